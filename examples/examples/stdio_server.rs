//! A standalone MCP server on stdin/stdout: the `units` tool server, for Claude Code, Claude
//! Desktop or any MCP client to start.
//!
//! ```text
//! cargo build -p claude-tools-examples --example stdio_server
//! ```
//!
//! Register the built binary with Claude Code:
//!
//! ```text
//! claude mcp add units -- /path/to/target/debug/examples/stdio_server
//! ```
//!
//! or hand it to one run with `claude --mcp-config units.json`, where `units.json` is
//!
//! ```json
//! {"mcpServers": {"units": {"type": "stdio", "command": "/path/to/target/debug/examples/stdio_server", "args": []}}}
//! ```
//!
//! (from Rust: `Options::external_mcp_server("units", ExternalServer::stdio(command, args))`).
//! The model then sees `mcp__units__to_fahrenheit`, `mcp__units__word_stats` and
//! `mcp__units__count_to`; a 2026-07-28 client that uses skills also lists the skill
//! `temperature-report` (`examples/skills/`, compiled in). The server speaks newline-delimited JSON-RPC on stdin/stdout until
//! stdin closes; stdout carries nothing but the protocol. The tools are in
//! `examples/src/stdio_server.rs`.
//!
//! `stdio_server --server-json` prints the server's entry for the MCP registry (`server.json`,
//! made from the server's own name, version and instructions) and exits:
//!
//! ```text
//! cargo run -p claude-tools-examples --example stdio_server -- --server-json > server.json
//! ```

use claude_tools::ServeExt;
use claude_tools_examples::stdio_server::{server_json, server_with_skill};

#[tokio::main]
async fn main() -> std::io::Result<()> {
    if std::env::args().nth(1).as_deref() == Some("--server-json") {
        let json = server_json().map_err(std::io::Error::other)?;
        let text = serde_json::to_string_pretty(&json).map_err(std::io::Error::other)?;
        println!("{text}");
        return Ok(());
    }
    server_with_skill()
        .map_err(std::io::Error::other)?
        .serve_stdio()
        .await
}
