//! Test kit of claude-tools: a scripted Anthropic Messages API server for driving the real
//! Claude Code CLI offline ([`model_server`]), a scriptable fake Claude Code CLI for the
//! control protocol ([`fake_cli`], binary `fake-claude`), a tiny external MCP server speaking
//! stdio ([`stdio_mcp`], binary `claude-tools-echo-mcp`), a fake npm registry for the CLI
//! installer ([`npm_registry`]), a fake Remote Control session service for the bridge
//! ([`ccr`]), a typed in-process MCP client of a tool server
//! ([`TestClient`]), and helpers shared by tests.

#![warn(missing_docs)]

pub mod ccr;
pub mod client;
pub mod fake_cli;
pub mod model_server;
pub mod npm_registry;
pub mod stdio_mcp;
mod util;

pub use client::{
    CompletionRequest, Progress, ProtocolRevision, TestClient, TestClientError, ToolOutcome,
};
pub use util::{TempDir, random_u64, uuid_v4};

use std::path::PathBuf;

/// The real Claude Code CLI for a test, looked up in this order:
///
/// 1. `$CLAUDE_CODE_CLI` (what `scripts/test` exports),
/// 2. `$CLAUDE_TOOLS_CLAUDE_BIN`,
/// 3. [`workspace_cli_path`], which exists only when this crate is used from inside the
///    claude-tools repository (`scripts/install-cli` installs the pinned CLI there),
/// 4. `claude` in the directories of `$PATH`: how a crate outside the repository finds an
///    installed CLI.
///
/// The first variable that is set (and non-empty) decides, even when the file it names does
/// not exist (a wrong path must not silently run another CLI): then the answer is `None`.
/// Without either variable, the first of 3 and 4 that is an existing file is returned, or
/// `None`. A test that gets `None` should skip loudly, or fail when it runs in CI.
pub fn claude_cli_path() -> Option<PathBuf> {
    let from_env = ["CLAUDE_CODE_CLI", "CLAUDE_TOOLS_CLAUDE_BIN"]
        .iter()
        .filter_map(std::env::var_os)
        .find(|value| !value.is_empty());
    if let Some(path) = from_env {
        let path = PathBuf::from(path);
        return path.exists().then_some(path);
    }
    let workspace = workspace_cli_path();
    if workspace.exists() {
        return Some(workspace);
    }
    cli_in_path(std::env::var_os("PATH").as_deref())
}

/// `claude` in the first directory of `path` (a `PATH` value) that has one.
fn cli_in_path(path: Option<&std::ffi::OsStr>) -> Option<PathBuf> {
    std::env::split_paths(path?)
        .filter(|dir| !dir.as_os_str().is_empty())
        .map(|dir| dir.join("claude"))
        .find(|candidate| candidate.is_file())
}

/// `<workspace>/.cache/claude-cli/node_modules/.bin/claude`, where `scripts/install-cli`
/// installs the pinned CLI (whether or not it is there).
///
/// The path is fixed when this crate is compiled, from its own location: it means something
/// only while the crate is built from the claude-tools repository (a path dependency or a
/// workspace member). Built from crates.io, it points into the registry's source cache, where
/// no CLI is installed; [`claude_cli_path`] then falls back to `PATH`.
pub fn workspace_cli_path() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join(".cache/claude-cli/node_modules/.bin/claude")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cli_is_found_in_path_after_the_workspace() {
        let root = TempDir::new("ctk-path").expect("a temp dir");
        let (empty, with_cli) = (root.path().join("empty"), root.path().join("bin"));
        std::fs::create_dir_all(&empty).expect("dir");
        std::fs::create_dir_all(&with_cli).expect("dir");
        std::fs::write(with_cli.join("claude"), "").expect("file");
        let path = std::env::join_paths([&empty, &with_cli]).expect("a PATH");
        assert_eq!(cli_in_path(Some(&path)), Some(with_cli.join("claude")));
        assert_eq!(cli_in_path(Some(empty.as_os_str())), None);
        assert_eq!(cli_in_path(None), None);
    }
}
