//! The compile-time check that a tool's full name, `mcp__{server}__{tool}`, is short enough for
//! the Claude Code CLI.

use super::const_text::ConstText;

/// The length of `mcp__{server}__{tool}`, evaluated at compile time.
pub const fn qualified_name_len(server: &str, tool: &str) -> usize {
    crate::tool::names_rule::qualified_len(server, tool)
}

/// The longest `mcp__{server}__{tool}` the Claude Code CLI accepts.
pub const MAX_QUALIFIED_NAME_LEN: usize = crate::tool::MAX_QUALIFIED_TOOL_NAME;

/// What `#[tool]` reports when `mcp__{server}__{tool}` is too long: the full name, its length
/// and what to do.
pub const fn name_too_long(server: &str, tool: &str) -> ConstText {
    ConstText {
        bytes: [0; 512],
        len: 0,
    }
    .then("the tool's full name `mcp__")
    .then(server)
    .then("__")
    .then(tool)
    .then("` is ")
    .then_number(qualified_name_len(server, tool))
    .then(" characters, longer than the ")
    .then_number(MAX_QUALIFIED_NAME_LEN)
    .then(
        " the Claude Code CLI accepts: shorten the tool's name with #[tool(name = \"...\")] \
         or the server's name in #[tool_server(name = \"...\")]",
    )
}
