//! The agent example: a [`Client`] session with in-process tools and a permission callback,
//! against whatever model the Claude Code CLI is set up for, and a clear message when it has
//! none.
//!
//! [`run`] sends one prompt and reads the session up to the turn's result, printing the
//! transcript; [`Outcome::failure`] turns a failed result into what to do about it. When the
//! CLI has no credentials at all (no `ANTHROPIC_API_KEY`, never logged in) it answers "Not
//! logged in · Please run /login" without contacting anything; [`advice`] turns that into the
//! two ways forward: set the key, or run the example against the scripted model
//! ([`script`], started by the example's `--scripted`).

use std::path::Path;
use std::process::ExitCode;
use std::sync::Mutex;

use claude_tools::prelude::*;
use claude_tools::{PermissionRequest, ResultMessage};
use claude_tools_testkit::TempDir;
use claude_tools_testkit::model_server::{ModelServer, Script, Turn, inherited_env_to_remove};
use serde_json::json;

use crate::run::{Args, RunError, find_cli};

/// The command that runs the agent example.
pub const COMMAND: &str = "cargo run -p claude-tools-examples --example agent";

/// The agent's default prompt.
pub const PROMPT: &str = "Note that the demo works, then list my notes.";

/// The server: the model sees its tools as `mcp__notes__<tool>`.
#[tool_server(name = "notes", version = "1.0.0")]
pub struct Notes;

/// The notes, shared by the tools and the rest of the program.
#[derive(Debug, Default)]
pub struct Notebook {
    notes: Mutex<Vec<String>>,
}

impl Notebook {
    fn with_notes<R>(&self, f: impl FnOnce(&mut Vec<String>) -> R) -> R {
        // A poisoned lock only means another tool panicked mid-update; the data is still usable.
        let mut notes = self.notes.lock().unwrap_or_else(|p| p.into_inner());
        f(&mut notes)
    }
}

/// Write a note down.
#[tool(server = Notes)]
async fn add_note(
    notebook: State<Notebook>,
    /// The note's text
    text: String,
) -> String {
    notebook.with_notes(|notes| {
        notes.push(text);
        format!("Noted (#{}).", notes.len())
    })
}

/// List every note.
#[tool(server = Notes, read_only)]
async fn list_notes(notebook: State<Notebook>) -> String {
    notebook.with_notes(|notes| {
        if notes.is_empty() {
            return "No notes yet.".into();
        }
        notes
            .iter()
            .enumerate()
            .map(|(i, note)| format!("{}. {note}", i + 1))
            .collect::<Vec<_>>()
            .join("\n")
    })
}

/// Asked before any tool runs: notes may be read and written; anything else is refused.
async fn permit(request: PermissionRequest) -> PermissionDecision {
    if request.tool_name.starts_with("mcp__notes__") {
        PermissionDecision::allow()
    } else {
        PermissionDecision::deny(format!(
            "{} is not allowed in this example",
            request.tool_name
        ))
    }
}

/// The agent's options: the notes server, the permission callback, a turn limit. Add the CLI's
/// environment on top (see the example's `main`).
pub fn options() -> Options {
    Options::new()
        .mcp_server(Notes::server().with_state(Notebook::default()))
        .can_use_tool(permit)
        .max_turns(6)
}

/// The scripted model of `--scripted`: a note written, the notes listed, the list quoted.
pub fn script() -> Script {
    Script::new()
        .turn(Turn::text("Writing that down.").and_tool_use(
            "toolu_agent_add",
            "mcp__notes__add_note",
            json!({"text": "the demo works"}),
        ))
        .turn(Turn::tool_use(
            "toolu_agent_list",
            "mcp__notes__list_notes",
            json!({}),
        ))
        .turn(Turn::text("Your notes:\n{{tool_result:toolu_agent_list}}"))
}

/// How one prompt ended.
#[derive(Debug)]
pub struct Outcome {
    /// The transcript's lines, as printed.
    pub lines: Vec<String>,
    /// The turn's `result` message.
    pub result: ResultMessage,
}

impl Outcome {
    /// Whether the turn succeeded.
    pub fn is_success(&self) -> bool {
        self.result.is_success()
    }

    /// What went wrong and what to do, when the turn failed: [`advice`] for a CLI without
    /// credentials, the CLI's own words otherwise.
    pub fn failure(&self) -> Option<String> {
        if self.is_success() {
            return None;
        }
        let said = self.result.result.as_deref().unwrap_or("no details");
        Some(advice(said).unwrap_or_else(|| {
            format!(
                "the agent's turn failed ({}): {said}",
                self.result.subtype.as_str()
            )
        }))
    }
}

/// What to do when the CLI says it has no credentials (`Not logged in · Please run /login`, its
/// answer when neither `ANTHROPIC_API_KEY` nor a login is there); `None` for anything else.
pub fn advice(cli_said: &str) -> Option<String> {
    if !cli_said.starts_with("Not logged in") {
        return None;
    }
    Some(format!(
        "The Claude Code CLI has no credentials (it said: \"{cli_said}\"), so no model can answer.\n\
         \n\
         To run the agent against the Anthropic API, set your API key and run it again:\n\
         \x20   export ANTHROPIC_API_KEY=<your key>\n\
         \x20   {COMMAND}\n\
         (or log the CLI in once with `claude /login`).\n\
         \n\
         To try it without a key, run it against the scripted model (served by the example on \
         127.0.0.1):\n\
         \x20   {COMMAND} -- --scripted"
    ))
}

/// Sends `prompt` in a [`Client`] session with `options` and reads up to the turn's result,
/// printing the transcript when `print` is set. A fatal error ends the session; a survivable one
/// (a bad line from the CLI) is reported and skipped.
pub async fn run(prompt: &str, options: Options, print: bool) -> claude_tools::Result<Outcome> {
    let mut lines = Vec::new();
    let mut say = |line: String| {
        if print {
            // Not `println!`: a closed pipe (`| head`) must not panic the example.
            use std::io::Write;
            let _ = writeln!(std::io::stdout().lock(), "{line}");
        }
        lines.push(line);
    };
    let mut client = Client::connect(options).await?;
    say(format!("> {prompt}"));
    client.query(prompt).await?;
    let result = loop {
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
            // The CLI's own error text comes as an assistant message flagged with `error`;
            // the result repeats it, and `Outcome::failure` explains it.
            Message::Assistant(assistant) if assistant.error.is_some() => {}
            Message::Assistant(assistant) => {
                for (_, name, input) in assistant.tool_uses() {
                    say(format!("[tool] {name} {input}"));
                }
                let text = assistant.text();
                if !text.is_empty() {
                    say(text);
                }
            }
            Message::Result(result) => break result,
            _ => {}
        }
    };
    if result.is_success() {
        say(format!(
            "[done] {} turns, {} ms",
            result.num_turns, result.duration_ms
        ));
    }
    client.disconnect().await?;
    Ok(Outcome { lines, result })
}

/// The example's `main`: `[--scripted] [PROMPT...]`. Without `--scripted` the CLI runs with
/// this process's environment, so it uses `ANTHROPIC_API_KEY` or its own login; with it, a
/// scripted model on 127.0.0.1 plays [`script`] (the prompt is then the default one) and the CLI
/// gets a throwaway HOME. Prints the transcript, and on failure what to do
/// ([`Outcome::failure`]).
pub async fn main_with(args: Args) -> ExitCode {
    if args.help {
        println!(
            "usage: agent [--scripted] [PROMPT...]\n\
             Runs the notes agent with the CLI's credentials (ANTHROPIC_API_KEY or `claude \
             /login`), or with --scripted against a scripted model on 127.0.0.1."
        );
        return ExitCode::SUCCESS;
    }
    match run_with(&args).await {
        Ok(outcome) => match outcome.failure() {
            None => ExitCode::SUCCESS,
            Some(failure) => {
                eprintln!("\n{failure}");
                ExitCode::FAILURE
            }
        },
        Err(error) => {
            eprintln!("agent failed: {error}");
            ExitCode::FAILURE
        }
    }
}

/// `options` set up to talk to `server` and nothing else: the inherited `ANTHROPIC_*` /
/// `CLAUDE*` / proxy variables removed, the server's environment
/// ([`ModelServer::cli_env`]) with `home` as HOME, `home/work` as the working directory, no
/// setting sources, only the MCP servers of `options`.
pub fn on_scripted_model(
    options: Options,
    server: &ModelServer,
    home: &Path,
) -> std::io::Result<Options> {
    let work = home.join("work");
    std::fs::create_dir_all(&work)?;
    let mut options = options.cwd(&work).setting_sources([]).strict_mcp_config();
    for name in inherited_env_to_remove() {
        options = options.env_remove(name);
    }
    for (name, value) in server.cli_env(home) {
        options = options.env(name, value);
    }
    Ok(options)
}

async fn run_with(args: &Args) -> Result<Outcome, RunError> {
    let options = options().cli_path(find_cli()?);
    if !args.scripted {
        let prompt = args.prompt().unwrap_or_else(|| PROMPT.to_string());
        return Ok(run(&prompt, options, true).await?);
    }
    if args.prompt().is_some() {
        eprintln!("note: the scripted model plays a fixed script, so it gets the default prompt");
    }
    let server = ModelServer::try_start(script())?;
    let home = TempDir::new("example-agent")?;
    let options = on_scripted_model(options, &server, home.path())?;
    println!(
        "model: scripted, served by this process on {}",
        server.base_url()
    );
    Ok(run(PROMPT, options, true).await?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn advice_for_a_cli_without_credentials_gives_both_commands() {
        assert_eq!(
            advice("Not logged in · Please run /login").as_deref(),
            Some(
                "The Claude Code CLI has no credentials (it said: \"Not logged in · Please run \
                 /login\"), so no model can answer.\n\
                 \n\
                 To run the agent against the Anthropic API, set your API key and run it again:\n\
                 \x20   export ANTHROPIC_API_KEY=<your key>\n\
                 \x20   cargo run -p claude-tools-examples --example agent\n\
                 (or log the CLI in once with `claude /login`).\n\
                 \n\
                 To try it without a key, run it against the scripted model (served by the \
                 example on 127.0.0.1):\n\
                 \x20   cargo run -p claude-tools-examples --example agent -- --scripted"
            )
        );
        assert_eq!(advice("Credit balance is too low"), None);
    }

    fn outcome(result: serde_json::Value) -> Outcome {
        Outcome {
            lines: Vec::new(),
            result: serde_json::from_value(result).expect("a result message"),
        }
    }

    #[test]
    fn a_failed_turn_is_explained_and_a_successful_one_is_not() {
        let not_logged_in = outcome(json!({"subtype": "success", "is_error": true,
            "result": "Not logged in · Please run /login", "terminal_reason": "api_error"}));
        assert_eq!(
            not_logged_in.failure(),
            advice("Not logged in · Please run /login")
        );
        let out_of_turns = outcome(json!({"subtype": "error_max_turns", "is_error": true}));
        assert_eq!(
            out_of_turns.failure().as_deref(),
            Some("the agent's turn failed (error_max_turns): no details")
        );
        let done = outcome(json!({"subtype": "success", "is_error": false, "result": "ok"}));
        assert_eq!(done.failure(), None);
    }
}
