//! An agent with in-process tools and a permission callback, on the real Claude Code CLI.
//!
//! ```text
//! cargo run -p claude-tools-examples --example agent -- "Note that the demo works, then list my notes"
//! ```
//!
//! It needs the CLI (`scripts/install-cli` puts the pinned version in `.cache/claude-cli`, where
//! it is found) and credentials (`ANTHROPIC_API_KEY`). Without the CLI it stops with the error
//! listing where it looked; without credentials the CLI answers "Not logged in". For a run with
//! no API key at all, see `scripts/demo`, which plays the model from a script.

use std::sync::Mutex;

use claude_tools::prelude::*;
use claude_tools::{PermissionRequest, ResultMessage};

#[tool_server(name = "notes", version = "1.0.0")]
struct Notes;

/// The notes, shared by the tools and the rest of the program.
#[derive(Default)]
struct Notebook {
    notes: Mutex<Vec<String>>,
}

/// Write a note down.
#[tool(server = Notes)]
async fn add_note(
    notebook: State<Notebook>,
    /// The note's text
    text: String,
) -> String {
    let mut notes = notebook
        .notes
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    notes.push(text);
    format!("Noted (#{}).", notes.len())
}

/// List every note.
#[tool(server = Notes, read_only)]
async fn list_notes(notebook: State<Notebook>) -> String {
    let notes = notebook
        .notes
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    if notes.is_empty() {
        return "No notes yet.".into();
    }
    notes
        .iter()
        .enumerate()
        .map(|(i, note)| format!("{}. {note}\n", i + 1))
        .collect()
}

/// Asked before any tool runs: notes may be read and written; anything else is refused.
async fn permit(request: PermissionRequest) -> PermissionDecision {
    println!("[permission] {} {}", request.tool_name, request.input);
    if request.tool_name.starts_with("mcp__notes__") {
        PermissionDecision::allow()
    } else {
        PermissionDecision::deny(format!(
            "{} is not allowed in this example",
            request.tool_name
        ))
    }
}

#[tokio::main]
async fn main() {
    let prompt = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "Note that the demo works, then list my notes.".into());
    match run(&prompt).await {
        Ok(true) => {}
        Ok(false) => std::process::exit(1),
        Err(error) => {
            eprintln!("error: {error}");
            std::process::exit(1);
        }
    }
}

/// Runs one prompt; `Ok(false)` when the turn failed (e.g. "Not logged in").
async fn run(prompt: &str) -> claude_tools::Result<bool> {
    let options = Options::new()
        .mcp_server(Notes::server().with_state(Notebook::default()))
        .can_use_tool(permit)
        .max_turns(6);
    let mut client = Client::connect(options).await?;
    println!("> {prompt}");
    client.query(prompt).await?;
    // Read up to the turn's result. A fatal error ends the session; a survivable one (a bad line
    // from the CLI) is reported and skipped.
    let succeeded = loop {
        let message = match client.next_message().await {
            Some(Ok(message)) => message,
            Some(Err(error)) if error.is_fatal() => return Err(error),
            Some(Err(error)) => {
                eprintln!("[skipped: {error}]");
                continue;
            }
            None => return Err(claude_tools::Error::Closed),
        };
        match message {
            Message::Assistant(assistant) => {
                for (_, name, input) in assistant.tool_uses() {
                    println!("[tool] {name} {input}");
                }
                let text = assistant.text();
                if !text.is_empty() {
                    println!("{text}");
                }
            }
            Message::Result(result) => break report(&result),
            _ => {}
        }
    };
    client.disconnect().await?;
    Ok(succeeded)
}

fn report(result: &ResultMessage) -> bool {
    if result.is_success() {
        println!(
            "[done] {} turns, {} ms",
            result.num_turns, result.duration_ms
        );
    } else {
        let details = result.result.as_deref().unwrap_or("no details");
        eprintln!("[failed] {}: {details}", result.subtype);
    }
    result.is_success()
}
