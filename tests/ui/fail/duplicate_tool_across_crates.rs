// A crate that sees another crate's tools (its dependency) gets a compile error for a duplicate
// name, like two tools of one crate: `ping` is a tool of plugin_server::Shop in plugin_server,
// `search` one in plugin_tools.
use claude_tools::prelude::*;
use plugin_tools as _;

/// Ping again.
#[tool(server = plugin_server::Shop)]
async fn ping() -> String {
    String::new()
}

/// Search again.
#[tool(server = plugin_server::Shop, name = "search")]
async fn search_again() -> String {
    String::new()
}

fn main() {}
