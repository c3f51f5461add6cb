//! Mixed servers: an in-process tool server beside an external stdio MCP server.
//!
//! ```text
//! cargo run -p claude-tools-examples --example mixed_servers
//! ```
//!
//! The `inventory` server's `stock_level` tool runs inside this process; the `echo` server is a
//! separate program the Claude Code CLI starts and speaks MCP to over stdio, declared with
//! `Options::external_mcp_server("echo", ExternalServer::stdio(command, args))`. The model sees
//! `mcp__inventory__stock_level` and `mcp__echo__echo` side by side.
//!
//! So that nothing needs installing, the external server is the testkit's echo server, served
//! by this same executable when it is started with `--echo-mcp`; any stdio MCP server's command
//! line goes in its place. Without `ANTHROPIC_API_KEY` (or with `--scripted`) a scripted model
//! on 127.0.0.1 calls one tool of each server in one turn and quotes both answers; with a key
//! the real model gets the same prompt (or yours). The code is in
//! `examples/src/mixed_servers.rs`.

use std::process::ExitCode;

use claude_tools_examples::mixed_servers::{ECHO_MCP_FLAG, echo_server_in, example};
use claude_tools_examples::run::RunError;

#[tokio::main]
async fn main() -> ExitCode {
    if std::env::args().nth(1).as_deref() == Some(ECHO_MCP_FLAG) {
        // Started by the CLI as the external server: speak MCP on stdin/stdout until it closes.
        return match claude_tools_testkit::stdio_mcp::run_stdio() {
            0 => ExitCode::SUCCESS,
            _ => ExitCode::FAILURE,
        };
    }
    let program = match std::env::current_exe() {
        Ok(program) => program,
        Err(error) => {
            eprintln!("mixed_servers failed: {}", RunError::Setup(error));
            return ExitCode::FAILURE;
        }
    };
    example(echo_server_in(&program)).main().await
}
