//! Session history over transcripts as the real CLI writes them: `fixtures/history/` holds a
//! session captured from CLI 2.1.332 (a prompt, two parallel in-process tool calls, their
//! results, the answer) and, under `<session id>/subagents/`, a subagent's transcript and
//! `.meta.json` from another run (renamed into that session); both trimmed of their large
//! request and attachment bodies, their paths made `/home/me/repo`. Each test copies them into
//! a throwaway config dir.

mod archiving;
mod changing;
mod damaged;
mod reading;
mod store;

use std::fs::{self, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, Ordering};

use claude_tools::Message;
use claude_tools::sessions::{ListSessions, Lookup, ReadMessages};
use serde_json::Value;

pub const ID: &str = "21d56f35-2494-4dc6-8f74-36479fab48b9";
pub const PROJECT: &str = "/home/me/repo";
pub const FOLDER: &str = "-home-me-repo";

/// A config dir of its own, removed at the end of the test.
pub struct Config(pub PathBuf);

impl Config {
    pub fn empty() -> Config {
        static NEXT: AtomicU32 = AtomicU32::new(0);
        let dir = std::env::temp_dir().join(format!(
            "ct-history-{}-{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        ));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).expect("temp dir");
        Config(dir)
    }

    /// A config dir holding the captured session in `/home/me/repo`'s project folder.
    pub fn with_fixture() -> Config {
        let config = Config::empty();
        fs::create_dir_all(config.project()).expect("project dir");
        fs::write(config.transcript(ID), fixture()).expect("copy the fixture");
        config
    }

    pub fn project(&self) -> PathBuf {
        self.0.join("projects").join(FOLDER)
    }

    pub fn transcript(&self, id: &str) -> PathBuf {
        self.project().join(format!("{id}.jsonl"))
    }

    pub fn lookup(&self) -> Lookup {
        Lookup::new().dir(PROJECT).config_dir(&self.0)
    }

    pub fn read(&self) -> ReadMessages {
        ReadMessages::new().dir(PROJECT).config_dir(&self.0)
    }

    pub fn list(&self) -> ListSessions {
        ListSessions::new().dir(PROJECT).config_dir(&self.0)
    }

    pub fn append(&self, id: &str, bytes: &[u8]) {
        let mut file = OpenOptions::new()
            .append(true)
            .open(self.transcript(id))
            .expect("open");
        file.write_all(bytes).expect("append");
    }

    pub fn lines(&self, id: &str) -> Vec<Value> {
        fs::read_to_string(self.transcript(id))
            .expect("read")
            .lines()
            .map(|l| serde_json::from_str(l).expect("JSON"))
            .collect()
    }
}

impl Drop for Config {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.0);
    }
}

pub fn fixture() -> Vec<u8> {
    fs::read(
        Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("tests/fixtures/history/{ID}.jsonl")),
    )
    .expect("the fixture")
}

/// A message in brief: `user: <text>`, `call <id>`, `result <id>: <text>`, `assistant: <text>`.
pub fn brief(message: &Message) -> String {
    match message {
        Message::User(user) => match user.tool_results().next() {
            Some((id, content, _)) => {
                format!(
                    "result {id}: {}",
                    content.map(|c| c.text()).unwrap_or_default()
                )
            }
            None => format!("user: {}", user.text()),
        },
        Message::Assistant(assistant) => match assistant.tool_uses().next() {
            Some((id, name, input)) => format!("call {id} {name} {input}"),
            None => format!("assistant: {}", assistant.text()),
        },
        other => format!("other: {}", other.to_value()),
    }
}

pub fn briefs(messages: &[Message]) -> Vec<String> {
    messages.iter().map(brief).collect()
}

pub const CONVERSATION: [&str; 7] = [
    "user: look up alpha and add two",
    "assistant: Looking up and adding.",
    r#"call toolu_hist_a mcp__e2e__slow_lookup {"key":"alpha","ms":10}"#,
    r#"call toolu_hist_b mcp__e2e__counter_add {"by":2}"#,
    "result toolu_hist_a: value of alpha",
    "result toolu_hist_b: counter is now 42",
    "assistant: Done: value of alpha; counter is now 42",
];
