use claude_tools::prelude::*;

#[tool_server(name = "a_rather_long_server_name_for_tools")]
pub struct Verbose;

/// Fits on its own, but not after `mcp__a_rather_long_server_name_for_tools__`.
#[tool(server = Verbose)]
async fn summarise_the_whole_document() -> String {
    String::new()
}

fn main() {}
