//! The rule of the names the Anthropic API and the Claude Code CLI accept: a server or tool name
//! is `[A-Za-z0-9_-]+`, and the CLI knows a tool as `mcp__{server}__{tool}`, at most
//! [`MAX_QUALIFIED_LEN`] characters long.
//!
//! Written once, as const fns with no dependency, for the two crates that check names:
//! claude-tools-core (when a server is built, and in the const assertions `#[tool]` expands to)
//! and claude-tools-macros (when it reads `#[tool]` and `#[tool_server]`). A proc-macro crate
//! cannot depend on core, and a `#[path]` to a file outside a package does not survive
//! `cargo package`, so the macro crate carries a copy, `claude-tools-macros/src/names_rule.rs`;
//! the workspace test `tests/tests/names_rule.rs` fails unless the copy is byte-identical to
//! `claude-tools-core/src/tool/names_rule.rs`. Edit the core file and copy it over.

// Each crate uses part of the rule.
#![allow(dead_code)]

/// What every qualified tool name starts with.
pub const PREFIX: &str = "mcp__";

/// What separates the server's name from the tool's in a qualified name.
pub const SEPARATOR: &str = "__";

/// The longest `mcp__{server}__{tool}` the Claude Code CLI accepts.
pub const MAX_QUALIFIED_LEN: usize = 64;

/// The longest server name that leaves room for a one-character tool name.
pub const MAX_SERVER_LEN: usize = MAX_QUALIFIED_LEN - PREFIX.len() - SEPARATOR.len() - 1;

/// The length of `mcp__{server}__{tool}`.
pub const fn qualified_len(server: &str, tool: &str) -> usize {
    PREFIX.len() + server.len() + SEPARATOR.len() + tool.len()
}

/// Whether `c` may appear in a server or tool name: an ASCII letter or digit, `_` or `-`.
pub const fn is_name_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '-'
}

/// Whether `name` is a valid server or tool name: non-empty, and only [`is_name_char`]s.
pub const fn is_valid_name(name: &str) -> bool {
    let bytes = name.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        if !is_name_char(bytes[i] as char) {
            return false;
        }
        i += 1;
    }
    !bytes.is_empty()
}
