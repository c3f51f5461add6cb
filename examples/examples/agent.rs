//! An agent with in-process tools and a permission callback, in a `Client` session on the real
//! Claude Code CLI.
//!
//! ```text
//! cargo run -p claude-tools-examples --example agent -- "Note that the demo works, then list my notes"
//! cargo run -p claude-tools-examples --example agent -- --scripted
//! ```
//!
//! It needs the CLI (`scripts/install-cli` puts the pinned version in `.cache/claude-cli`, where
//! it is found) and, for the real model, credentials: `ANTHROPIC_API_KEY`, or a CLI logged in
//! with `claude /login`. Without them it says so and gives both ways forward: set the key, or
//! run with `--scripted`, where a scripted model on 127.0.0.1 plays the agent's part (a note
//! written, the notes listed). The code is in `examples/src/notes_agent.rs`.

use std::process::ExitCode;

use claude_tools_examples::run::Args;

#[tokio::main]
async fn main() -> ExitCode {
    claude_tools_examples::notes_agent::main_with(Args::from_env()).await
}
