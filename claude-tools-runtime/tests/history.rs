//! Session history over transcripts as the real CLI writes them: `fixtures/history/` holds one
//! captured from CLI 2.1.332 (a prompt, two parallel in-process tool calls, their results, the
//! answer; trimmed of its large request and attachment bodies, its paths made `/home/me/repo`),
//! copied into a throwaway config dir per test.

use std::fs::{self, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use claude_tools::Message;
use claude_tools::sessions::{
    ForkSession, HistoryError, ListSessions, Lookup, ReadMessages, delete_session, fork_session,
    list_sessions, list_subagents, rename_session, session_info, session_messages,
    subagent_messages, tag_session,
};
use serde_json::{Value, json};

const ID: &str = "21d56f35-2494-4dc6-8f74-36479fab48b9";
const PROJECT: &str = "/home/me/repo";
const FOLDER: &str = "-home-me-repo";

/// A config dir of its own, removed at the end of the test.
struct Config(PathBuf);

impl Config {
    fn new() -> Config {
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
    fn with_fixture() -> Config {
        let config = Config::new();
        fs::create_dir_all(config.project()).expect("project dir");
        fs::write(config.transcript(ID), fixture()).expect("copy the fixture");
        config
    }

    fn project(&self) -> PathBuf {
        self.0.join("projects").join(FOLDER)
    }

    fn transcript(&self, id: &str) -> PathBuf {
        self.project().join(format!("{id}.jsonl"))
    }

    fn lookup(&self) -> Lookup {
        Lookup::new().dir(PROJECT).config_dir(&self.0)
    }

    fn read(&self) -> ReadMessages {
        ReadMessages::new().dir(PROJECT).config_dir(&self.0)
    }

    fn list(&self) -> ListSessions {
        ListSessions::new().dir(PROJECT).config_dir(&self.0)
    }

    fn append(&self, id: &str, bytes: &[u8]) {
        let mut file = OpenOptions::new()
            .append(true)
            .open(self.transcript(id))
            .expect("open");
        file.write_all(bytes).expect("append");
    }

    fn lines(&self, id: &str) -> Vec<Value> {
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

fn fixture() -> Vec<u8> {
    fs::read(
        Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("tests/fixtures/history/{ID}.jsonl")),
    )
    .expect("the fixture")
}

/// A message in brief: `user: <text>`, `call <id>`, `result <id>: <text>`, `assistant: <text>`.
fn brief(message: &Message) -> String {
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

fn briefs(messages: &[Message]) -> Vec<String> {
    messages.iter().map(brief).collect()
}

const CONVERSATION: [&str; 7] = [
    "user: look up alpha and add two",
    "assistant: Looking up and adding.",
    r#"call toolu_hist_a mcp__e2e__slow_lookup {"key":"alpha","ms":10}"#,
    r#"call toolu_hist_b mcp__e2e__counter_add {"by":2}"#,
    "result toolu_hist_a: value of alpha",
    "result toolu_hist_b: counter is now 42",
    "assistant: Done: value of alpha; counter is now 42",
];

#[test]
fn a_real_transcript_is_listed_with_its_summary() {
    let config = Config::with_fixture();
    let listed = list_sessions(&config.list()).expect("list");
    assert_eq!(listed.len(), 1, "{listed:#?}");
    let info = &listed[0];
    assert_eq!(info.session_id, ID);
    assert_eq!(info.summary, "look up alpha and add two");
    assert_eq!(
        info.first_prompt.as_deref(),
        Some("look up alpha and add two")
    );
    assert_eq!(info.custom_title, None);
    assert_eq!(info.tag, None);
    assert_eq!(info.git_branch.as_deref(), Some("HEAD"));
    assert_eq!(info.cwd.as_deref(), Some(Path::new(PROJECT)));
    assert_eq!(info.file_size, fixture().len() as u64);
    assert_eq!(
        info.created_at.map(|t| t
            .duration_since(UNIX_EPOCH)
            .expect("after 1970")
            .as_millis()),
        Some(1_795_769_588_365),
        "the first timestamp: 2026-11-27T08:53:08.365Z"
    );
    // The same from session_info, and from a listing of every project.
    assert_eq!(
        session_info(ID, &config.lookup()).expect("info").as_ref(),
        Some(info)
    );
    let everywhere = ListSessions::new().config_dir(&config.0);
    assert_eq!(list_sessions(&everywhere).expect("list"), listed);
}

#[test]
fn a_real_transcript_reads_as_typed_messages_with_parallel_calls_whole() {
    let config = Config::with_fixture();
    let messages = session_messages(ID, &config.read()).expect("messages");
    // The chain from the last message runs through the second result only: the first result
    // is put back after the calls.
    assert_eq!(briefs(&messages), CONVERSATION);
    for message in &messages {
        assert_eq!(message.session_id(), Some(ID));
        assert!(message.uuid().is_some());
        let value = message.to_value();
        assert_eq!(value["parent_tool_use_id"], Value::Null);
        assert!(value.get("sessionId").is_none(), "renamed to session_id");
        assert!(value["timestamp"].is_string() && value.get("parentUuid").is_some());
    }
    let Message::User(result) = &messages[4] else {
        panic!("a user message: {:#?}", messages[4]);
    };
    assert_eq!(
        result.tool_use_result,
        Some(json!([{"type": "text", "text": "value of alpha"}]))
    );
    assert_eq!(result.extra["cwd"], PROJECT);
    let Message::Assistant(call) = &messages[2] else {
        panic!("an assistant message: {:#?}", messages[2]);
    };
    assert_eq!(call.message.id.as_deref(), Some("msg_test_000001"));
    // Pages.
    let page = session_messages(ID, &config.read().offset(2).limit(3)).expect("a page");
    assert_eq!(briefs(&page), CONVERSATION[2..5]);
    assert!(
        session_messages(ID, &config.read().offset(9))
            .expect("past the end")
            .is_empty()
    );
    // Found without a dir too.
    let anywhere = ReadMessages::new().config_dir(&config.0);
    assert_eq!(
        briefs(&session_messages(ID, &anywhere).expect("messages")),
        CONVERSATION
    );
}

#[test]
fn a_line_still_being_written_is_left_out_until_whole() {
    let config = Config::with_fixture();
    let line = json!({
        "parentUuid": "617bbf5f-98a1-44d9-814f-aebd9b2356ef", "isSidechain": false,
        "type": "user", "message": {"role": "user", "content": "and now?"},
        "uuid": "7d7d7d7d-0000-4000-8000-000000000001",
        "timestamp": "2026-11-27T09:00:00.000Z", "sessionId": ID,
    })
    .to_string();
    let (first, rest) = line.split_at(line.len() / 2);
    // The CLI has written half of a line: reads see the file up to its last whole line.
    config.append(ID, first.as_bytes());
    let messages = session_messages(ID, &config.read()).expect("messages");
    assert_eq!(briefs(&messages), CONVERSATION);
    let info = session_info(ID, &config.lookup())
        .expect("info")
        .expect("some");
    assert_eq!(info.summary, "look up alpha and add two");
    // The rest arrives: the line is read.
    config.append(ID, rest.as_bytes());
    config.append(ID, b"\n");
    let messages = session_messages(ID, &config.read()).expect("messages");
    assert_eq!(
        briefs(&messages).last().map(String::as_str),
        Some("user: and now?")
    );
    assert_eq!(messages.len(), CONVERSATION.len() + 1);
}

#[test]
fn malformed_lines_are_skipped() {
    let config = Config::with_fixture();
    let text = String::from_utf8(fixture()).expect("UTF-8");
    let mut lines: Vec<&str> = text.lines().collect();
    lines.insert(3, r#"{"type":"user","message":{"#);
    lines.insert(5, "[1, 2, 3]");
    lines.insert(7, "not json at all");
    lines.push("\u{0}\u{1}garbage");
    let mut broken = lines.join("\n").into_bytes();
    broken.extend_from_slice(b"\n\xff\xfe\n");
    fs::write(config.transcript(ID), broken).expect("write");
    assert_eq!(
        briefs(&session_messages(ID, &config.read()).expect("messages")),
        CONVERSATION
    );
    assert!(session_info(ID, &config.lookup()).expect("info").is_some());
}

#[test]
fn missing_dirs_are_no_sessions_and_a_missing_session_is_an_error() {
    let config = Config::new();
    // No projects folder at all.
    assert!(list_sessions(&config.list()).expect("list").is_empty());
    assert!(
        list_sessions(&ListSessions::new().config_dir(config.0.join("nowhere")))
            .expect("list")
            .is_empty()
    );
    let not_found = |result: Result<(), HistoryError>| match result {
        Err(HistoryError::SessionNotFound {
            session_id,
            searched,
        }) => {
            assert_eq!(session_id, ID);
            assert!(searched.starts_with(&config.0), "{}", searched.display());
        }
        other => panic!("expected SessionNotFound, got {other:?}"),
    };
    not_found(session_info(ID, &config.lookup()).map(|_| ()));
    not_found(session_messages(ID, &config.read()).map(|_| ()));
    not_found(list_subagents(ID, &config.lookup()).map(|_| ()));
    not_found(rename_session(ID, "title", &config.lookup()));
    not_found(tag_session(ID, Some("tag"), &config.lookup()));
    not_found(delete_session(ID, &config.lookup()));
    not_found(fork_session(ID, &ForkSession::new().config_dir(&config.0)).map(|_| ()));
    // An empty transcript is no session; renaming it does not create one.
    fs::create_dir_all(config.project()).expect("project");
    fs::write(config.transcript(ID), b"").expect("empty");
    not_found(session_messages(ID, &config.read()).map(|_| ()));
    not_found(rename_session(ID, "title", &config.lookup()));
    assert_eq!(fs::read(config.transcript(ID)).expect("still there"), b"");
    assert!(list_sessions(&config.list()).expect("list").is_empty());
    let message = session_info(ID, &config.lookup())
        .expect_err("not found")
        .to_string();
    assert!(
        message.contains(ID) && message.contains("not found"),
        "{message}"
    );
}

#[test]
fn ids_that_are_not_uuids_never_reach_the_file_system() {
    let config = Config::with_fixture();
    for bad in [
        "",
        "../../etc/passwd",
        "21d56f35-2494-4dc6-8f74-36479fab48b9/../x",
        "21d56f35",
    ] {
        let invalid = |result: Result<(), HistoryError>| {
            assert!(
                matches!(&result, Err(HistoryError::InvalidSessionId(id)) if id == bad),
                "{bad:?}: {result:?}"
            )
        };
        invalid(session_info(bad, &config.lookup()).map(|_| ()));
        invalid(session_messages(bad, &config.read()).map(|_| ()));
        invalid(list_subagents(bad, &config.lookup()).map(|_| ()));
        invalid(subagent_messages(bad, "a1", &config.read()).map(|_| ()));
        invalid(rename_session(bad, "title", &config.lookup()));
        invalid(tag_session(bad, None, &config.lookup()));
        invalid(delete_session(bad, &config.lookup()));
        invalid(fork_session(bad, &ForkSession::new()).map(|_| ()));
    }
    assert!(matches!(
        fork_session(ID, &ForkSession::new().config_dir(&config.0).up_to("../x")),
        Err(HistoryError::InvalidMessageId(_))
    ));
    for bad in ["", "../agent-x", "a/b"] {
        assert!(matches!(
            subagent_messages(ID, bad, &config.read()),
            Err(HistoryError::InvalidAgentId(_))
        ));
    }
    let message = HistoryError::InvalidSessionId("../x".into()).to_string();
    assert_eq!(
        message,
        r#"invalid session id "../x": a session id is a UUID"#
    );
    // Nothing was written.
    assert_eq!(fs::read(config.transcript(ID)).expect("read"), fixture());
}

#[test]
fn renaming_and_tagging_append_a_line_and_the_last_one_wins() {
    let config = Config::with_fixture();
    rename_session(ID, "  Billing refactor \n", &config.lookup()).expect("rename");
    assert_eq!(
        config.lines(ID).last(),
        Some(&json!({"type": "custom-title", "customTitle": "Billing refactor", "sessionId": ID}))
    );
    rename_session(ID, "Billing, take two", &config.lookup()).expect("rename");
    tag_session(ID, Some(" \u{200b}wip\u{202e} "), &config.lookup()).expect("tag");
    let last = fs::read_to_string(config.transcript(ID)).expect("read");
    let last = last.lines().last().expect("a line");
    // `type` first: readers find tag lines by their start.
    assert_eq!(
        last,
        format!(r#"{{"type":"tag","tag":"wip","sessionId":"{ID}"}}"#)
    );
    let info = session_info(ID, &config.lookup())
        .expect("info")
        .expect("some");
    assert_eq!(info.custom_title.as_deref(), Some("Billing, take two"));
    assert_eq!(info.summary, "Billing, take two");
    assert_eq!(info.tag.as_deref(), Some("wip"));
    tag_session(ID, None, &config.lookup()).expect("clear");
    assert_eq!(
        session_info(ID, &config.lookup())
            .expect("info")
            .expect("some")
            .tag,
        None
    );
    assert!(matches!(
        rename_session(ID, " \t", &config.lookup()),
        Err(HistoryError::EmptyTitle)
    ));
    assert!(matches!(
        tag_session(ID, Some("\u{200b}\u{feff} "), &config.lookup()),
        Err(HistoryError::EmptyTag)
    ));
    // The conversation is unchanged.
    assert_eq!(
        briefs(&session_messages(ID, &config.read()).expect("messages")),
        CONVERSATION
    );
}

#[test]
fn a_fork_copies_the_conversation_under_new_ids() {
    let config = Config::with_fixture();
    let fork =
        fork_session(ID, &ForkSession::new().dir(PROJECT).config_dir(&config.0)).expect("fork");
    assert_ne!(fork, ID);
    assert!(
        config.transcript(&fork).is_file(),
        "written next to the source"
    );
    let lines = config.lines(&fork);
    let source_uuids: Vec<Value> = config.lines(ID).iter().map(|l| l["uuid"].clone()).collect();
    let fork_uuids: Vec<&Value> = lines.iter().map(|l| &l["uuid"]).collect();
    for line in &lines {
        assert_eq!(line["sessionId"], fork.as_str());
        assert!(
            !source_uuids.contains(&line["uuid"]),
            "a fresh uuid: {line}"
        );
        let parent = &line["parentUuid"];
        assert!(
            parent.is_null() || fork_uuids.contains(&parent),
            "linked in the fork: {line}"
        );
        if line["type"] != "custom-title" {
            assert_eq!(line["forkedFrom"]["sessionId"], ID);
            assert!(source_uuids.contains(&line["forkedFrom"]["messageUuid"]));
        }
    }
    assert_eq!(
        lines.last().map(|l| (&l["type"], &l["customTitle"])),
        Some((
            &json!("custom-title"),
            &json!("look up alpha and add two (fork)")
        ))
    );
    // Only conversation lines are copied.
    assert!(
        lines
            .iter()
            .all(|l| l["type"] != "queue-operation" && l["type"] != "api-request")
    );
    let messages = session_messages(&fork, &config.read()).expect("the fork's messages");
    assert_eq!(briefs(&messages), CONVERSATION);
    assert!(
        messages
            .iter()
            .all(|m| m.session_id() == Some(fork.as_str()))
    );
    let info = session_info(&fork, &config.lookup())
        .expect("info")
        .expect("some");
    assert_eq!(
        info.custom_title.as_deref(),
        Some("look up alpha and add two (fork)")
    );
    assert_eq!(list_sessions(&config.list()).expect("list").len(), 2);

    // Up to a message (the first call), with a title.
    let first_call = "aabb381f-6be6-4fb2-b8eb-86a47087f018";
    let options = ForkSession::new()
        .config_dir(&config.0)
        .up_to(first_call)
        .title(" Just the lookup ");
    let short = fork_session(ID, &options).expect("fork");
    assert_eq!(
        briefs(&session_messages(&short, &config.read()).expect("messages")),
        CONVERSATION[..3]
    );
    let info = session_info(&short, &config.lookup())
        .expect("info")
        .expect("some");
    assert_eq!(info.custom_title.as_deref(), Some("Just the lookup"));
    let missing = "00000000-0000-4000-8000-000000000000";
    assert!(matches!(
        fork_session(ID, &ForkSession::new().config_dir(&config.0).up_to(missing)),
        Err(HistoryError::MessageNotFound { .. })
    ));
    // The source is untouched.
    assert_eq!(fs::read(config.transcript(ID)).expect("read"), fixture());
}

#[test]
fn subagents_are_listed_and_read_with_their_parent_call() {
    let config = Config::with_fixture();
    let subagents = config.project().join(ID).join("subagents");
    fs::create_dir_all(subagents.join("workflows/run-1")).expect("dirs");
    let line = |uuid: &str, parent: Option<&str>, kind: &str, content: Value, agent: &str| {
        json!({"parentUuid": parent, "isSidechain": true, "agentId": agent, "type": kind,
               "message": {"role": kind, "content": content}, "uuid": uuid,
               "timestamp": "2026-11-27T08:53:09.000Z", "sessionId": ID})
        .to_string()
    };
    let u = |n: u32| format!("5ab5ab00-0000-4000-8000-{n:012}");
    let agent = [
        line(&u(1), None, "user", json!("Find the config file"), "a1f"),
        line(
            &u(2),
            Some(&u(1)),
            "assistant",
            json!([{"type": "text", "text": "It is config.toml."}]),
            "a1f",
        ),
    ]
    .join("\n");
    fs::write(subagents.join("agent-a1f.jsonl"), agent + "\n").expect("agent");
    fs::write(
        subagents.join("agent-a1f.meta.json"),
        r#"{"agentType":"Explore","toolUseId":"toolu_agent_1"}"#,
    )
    .expect("meta");
    let nested = line(&u(3), None, "user", json!("Nested"), "b2e");
    fs::write(
        subagents.join("workflows/run-1/agent-b2e.jsonl"),
        nested + "\n",
    )
    .expect("nested");
    fs::write(
        subagents.join("workflows/run-1/agent-b2e.meta.json"),
        "{broken",
    )
    .expect("meta");

    assert_eq!(
        list_subagents(ID, &config.lookup()).expect("subagents"),
        ["a1f", "b2e"]
    );
    let messages = subagent_messages(ID, "a1f", &config.read()).expect("messages");
    assert_eq!(
        briefs(&messages),
        [
            "user: Find the config file",
            "assistant: It is config.toml."
        ]
    );
    assert!(
        messages
            .iter()
            .all(|m| m.to_value()["parent_tool_use_id"] == "toolu_agent_1")
    );
    // An unreadable .meta.json is no parent call, not an error.
    let nested = subagent_messages(ID, "b2e", &config.read()).expect("messages");
    assert_eq!(briefs(&nested), ["user: Nested"]);
    assert_eq!(nested[0].to_value()["parent_tool_use_id"], Value::Null);
    assert!(matches!(
        subagent_messages(ID, "zzz", &config.read()),
        Err(HistoryError::SubagentNotFound { .. })
    ));
    // The main conversation does not change, and deleting the session removes its subagents.
    assert_eq!(
        briefs(&session_messages(ID, &config.read()).expect("messages")),
        CONVERSATION
    );
    delete_session(ID, &config.lookup()).expect("delete");
    assert!(!config.transcript(ID).exists() && !config.project().join(ID).exists());
    assert!(matches!(
        delete_session(ID, &config.lookup()),
        Err(HistoryError::SessionNotFound { .. })
    ));
}

#[test]
fn listing_is_newest_first_one_per_id_and_paged() {
    let config = Config::with_fixture();
    let text = String::from_utf8(fixture()).expect("UTF-8");
    let ids = [
        "11111111-1111-4111-8111-111111111111",
        "22222222-2222-4222-8222-222222222222",
        "33333333-3333-4333-8333-333333333333",
    ];
    let now = SystemTime::now();
    for (age, id) in ids.iter().enumerate() {
        fs::write(config.transcript(id), text.replace(ID, id)).expect("copy");
        let file = OpenOptions::new()
            .append(true)
            .open(config.transcript(id))
            .expect("open");
        file.set_modified(now - Duration::from_secs(60 * (age as u64 + 1)))
            .expect("mtime");
    }
    let file = OpenOptions::new()
        .append(true)
        .open(config.transcript(ID))
        .expect("open");
    file.set_modified(now - Duration::from_secs(3600))
        .expect("mtime");
    // A subagent transcript, a file that is not a session and an empty one are not listed.
    fs::write(config.project().join("agent-x.jsonl"), text.clone()).expect("write");
    fs::write(config.project().join("notes.txt"), "x").expect("write");
    fs::write(
        config.transcript("44444444-4444-4444-8444-444444444444"),
        "",
    )
    .expect("write");
    let sidechain = r#"{"parentUuid":null,"isSidechain":true,"type":"user","message":{"role":"user","content":"sub"},"uuid":"5ab5ab00-0000-4000-8000-000000000009"}"#;
    fs::write(
        config.transcript("55555555-5555-4555-8555-555555555555"),
        format!("{sidechain}\n"),
    )
    .expect("write");
    // The same session in another project folder (a worktree's): listed once, the newest copy.
    let other = config.0.join("projects/-home-me-other");
    fs::create_dir_all(&other).expect("dir");
    fs::write(
        other.join(format!("{}.jsonl", ids[2])),
        text.replace(ID, ids[2]),
    )
    .expect("copy");

    let order = |options: &ListSessions| -> Vec<String> {
        list_sessions(options)
            .expect("list")
            .into_iter()
            .map(|s| s.session_id)
            .collect()
    };
    assert_eq!(order(&config.list()), [ids[0], ids[1], ids[2], ID]);
    assert_eq!(order(&config.list().offset(1).limit(2)), [ids[1], ids[2]]);
    assert!(order(&config.list().offset(4)).is_empty());
    let all = order(&ListSessions::new().config_dir(&config.0));
    assert_eq!(
        all,
        [ids[2], ids[0], ids[1], ID],
        "the copy in the other folder is newest"
    );
}

#[test]
fn a_long_working_directory_is_found_whatever_hash_ends_its_folder() {
    let config = Config::new();
    let dir = format!("/home/me/{}", "deep/".repeat(50));
    let cut: String = dir
        .chars()
        .take(200)
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect();
    // The CLI hashes with its runtime's own function: the suffix is not this crate's.
    let folder = config.0.join("projects").join(format!("{cut}-zzzz9"));
    fs::create_dir_all(&folder).expect("dir");
    fs::write(folder.join(format!("{ID}.jsonl")), fixture()).expect("copy");
    let read = ReadMessages::new().dir(&dir).config_dir(&config.0);
    assert_eq!(
        briefs(&session_messages(ID, &read).expect("messages")),
        CONVERSATION
    );
    let list = ListSessions::new().dir(&dir).config_dir(&config.0);
    assert_eq!(list_sessions(&list).expect("list").len(), 1);
}
