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

/// A documented input, with claude-tools' own `JsonSchema` derive.
#[derive(Deserialize, JsonSchema)]
pub struct Point {
    /// Across
    pub x: i32,
    /// Down
    pub y: i32,
}

/// A tool taking it.
#[tool(server = Strict)]
fn strict_point(point: Point) -> i32 {
    point.x + point.y
}

fn main() {
    assert_eq!(Strict::server().tools().len(), 3);
}
