//! The demo: a Claude Code agent calling tools that run inside this process.
//!
//! ```text
//! scripts/demo                 # installs the pinned Claude Code CLI if missing, then runs this
//! scripts/demo --scripted      # the embedded scripted model even when ANTHROPIC_API_KEY is set
//! scripts/demo "my prompt"     # with ANTHROPIC_API_KEY: your own prompt to the real model
//! ```
//!
//! The real Claude Code CLI runs the agent loop. Its model is the real Anthropic API when
//! `ANTHROPIC_API_KEY` is set, and otherwise a scripted Messages API served on 127.0.0.1 by this
//! process (`claude_tools_testkit::model_server`), whose "model" calls the tools of the
//! [`triage`](claude_tools_examples::triage) board and quotes their answers. Either way the tools
//! are ordinary `#[tool]` functions sharing a `Board`, served in-process over the CLI's control
//! protocol, and the transcript shows each call with its arguments and result. The
//! [runner](claude_tools_examples::run) finds the CLI and isolates its HOME and config.

use std::process::ExitCode;

use claude_tools_examples::demo_script;
use claude_tools_examples::run::Example;
use claude_tools_examples::triage::{Board, Triage};

const SYSTEM_PROMPT: &str = "You triage bug reports with the triage tools: find the owning team \
of each area, file one ticket per report, then list the open tickets and summarise them briefly.";

#[tokio::main]
async fn main() -> ExitCode {
    Example::new("demo", demo_script::PROMPT, demo_script::script())
        .system_prompt(SYSTEM_PROMPT)
        .server(Triage::server().with_state(Board::with_default_owners()))
        .allowed_tools([
            "mcp__triage__find_owner",
            "mcp__triage__create_ticket",
            "mcp__triage__list_tickets",
            "mcp__triage__close_ticket",
        ])
        .main()
        .await
}
