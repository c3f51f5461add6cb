//! Test kit of claude-tools: a scripted Anthropic Messages API server for driving the real
//! Claude Code CLI offline ([`model_server`]), a scriptable fake Claude Code CLI for the
//! control protocol ([`fake_cli`], binary `fake-claude`), a tiny external MCP server speaking
//! stdio ([`stdio_mcp`], binary `claude-tools-echo-mcp`), and helpers shared by tests.

#![warn(missing_docs)]

pub mod fake_cli;
pub mod model_server;
pub mod stdio_mcp;
mod util;

pub use util::{TempDir, random_u64, uuid_v4};

use std::path::PathBuf;

/// The real Claude Code CLI pinned by the workspace, looked up in this order:
///
/// 1. `$CLAUDE_CODE_CLI` (what `scripts/test` exports),
/// 2. `$CLAUDE_TOOLS_CLAUDE_BIN`,
/// 3. `<workspace>/.cache/claude-cli/node_modules/.bin/claude` (where `scripts/install-cli` puts it).
///
/// The first variable that is set (and non-empty) decides; `None` if the file it names (or the
/// fallback) does not exist.
pub fn claude_cli_path() -> Option<PathBuf> {
    let from_env = ["CLAUDE_CODE_CLI", "CLAUDE_TOOLS_CLAUDE_BIN"]
        .iter()
        .filter_map(std::env::var_os)
        .find(|value| !value.is_empty());
    let path = match from_env {
        Some(p) => PathBuf::from(p),
        None => workspace_cli_path(),
    };
    path.exists().then_some(path)
}

/// `<workspace>/.cache/claude-cli/node_modules/.bin/claude`, where `scripts/install-cli`
/// installs the pinned CLI (whether or not it is there).
pub fn workspace_cli_path() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join(".cache/claude-cli/node_modules/.bin/claude")
}
