//! Test kit of claude-tools: a scripted Anthropic Messages API server for driving the real
//! Claude Code CLI offline ([`model_server`]), a scriptable fake Claude Code CLI for the
//! control protocol ([`fake_cli`], binary `fake-claude`), and helpers shared by tests.

#![warn(missing_docs)]

pub mod fake_cli;
pub mod model_server;
mod util;

pub use util::{TempDir, random_u64, uuid_v4};

use std::path::PathBuf;

/// The real Claude Code CLI pinned by the workspace: `$CLAUDE_TOOLS_CLAUDE_BIN` if set, else
/// `<workspace>/.cache/claude-cli/node_modules/.bin/claude`. `None` if that file does not exist.
pub fn claude_cli_path() -> Option<PathBuf> {
    let path = match std::env::var_os("CLAUDE_TOOLS_CLAUDE_BIN") {
        Some(p) => PathBuf::from(p),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("..")
            .join(".cache/claude-cli/node_modules/.bin/claude"),
    };
    path.exists().then_some(path)
}
