//! The expansion is clean under strict crate lints.
#![forbid(unsafe_code)]
#![deny(missing_docs, unused, unreachable_pub, rust_2018_idioms, non_snake_case)]

use claude_tools::prelude::*;

/// A documented server.
#[tool_server(name = "strict")]
pub struct Strict;

/// A documented tool.
#[tool(server = Strict)]
async fn strict_tool(value: u32, _ctx: ToolContext) -> u32 {
    value
}

/// A sync tool.
#[tool(server = Strict)]
fn strict_sync() {}

fn main() {
    assert_eq!(Strict::server().tools().len(), 2);
}
