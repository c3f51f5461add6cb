//! The fixture server of the official MCP conformance suite (npm
//! `@modelcontextprotocol/conformance`), written with claude-tools' public API: every tool,
//! resource, resource template and prompt the suite's server scenarios call, with the names,
//! arguments and results they expect. `scripts/conformance` runs the suite against it.
//!
//! ```text
//! cargo run -p claude-tools-examples --example everything_server -- --listen 127.0.0.1:8080
//! cargo run -p claude-tools-examples --example everything_server -- --listen 127.0.0.1:8080 --stateless
//! ```
//!
//! The first line on stdout is the endpoint's URL (`http://127.0.0.1:8080/mcp`; with
//! `--listen 127.0.0.1:0` the system picks the port and this line tells it). MCP sessions are on
//! by default: the suite's 2025-11-25 scenarios ask the client questions mid-call
//! (`elicitation/create`, `sampling/createMessage`), which a 2025 server can only send on a
//! session's stream. `--stateless` turns them off. Ctrl-C or `SIGTERM` stops the server.
//!
//! The modules follow the suite's scenarios:
//! - `content`: tools returning each kind of content, an error, progress, logging;
//! - `questions`: tools that ask the client (elicitation, sampling, roots), for the 2025
//!   scenarios (server-to-client requests on the session) and the 2026-07-28 ones (the same
//!   calls, answered through `input_required` results);
//! - `catalog`: the resources, the resource template and the prompts;
//! - `live`: the tools that change the tool and prompt lists while clients listen;
//! - `tasks`: tools that run as tasks (the tasks extension, the `tasks-*` scenarios).

mod catalog;
mod content;
mod live;
mod questions;
mod tasks;

use std::sync::Arc;

use claude_tools::mcp::http::HttpServer;
use claude_tools::prelude::*;
use claude_tools_examples::run::Args;

/// The server. Its name and version are what `initialize` and `server/discover` report.
#[tool_server(
    name = "everything",
    version = "1.0.0",
    instructions = "The MCP conformance suite's fixture: one tool, resource or prompt per \
                    scenario of the suite."
)]
pub struct Everything;

#[tokio::main]
async fn main() -> std::io::Result<()> {
    let mut args = Args::from_env();
    let listen = args
        .take_value("--listen")
        .unwrap_or_else(|| "127.0.0.1:8080".to_string());
    let stateless = args.words.iter().any(|word| word == "--stateless");
    let listener = tokio::net::TcpListener::bind(&listen).await?;

    // The list-changing tools reach the served tool set through its handle, which exists only
    // once the HTTP server does: they get it from this slot, filled below.
    let handle = Arc::new(live::Handle::default());
    let server = Everything::server()
        .with_prompt(catalog::embedded_resource_prompt())
        .map_err(std::io::Error::other)?
        .with_prompt(catalog::input_required_prompt())
        .map_err(std::io::Error::other)?;
    let (schema_tool, schema_handler) = catalog::json_schema_2020_12_tool();
    let (header_tool, header_handler) = catalog::header_param_tool();
    let server = server
        .with_tool(schema_tool, schema_handler)
        .map_err(std::io::Error::other)?
        .with_tool(header_tool, header_handler)
        .map_err(std::io::Error::other)?
        .with_shared_state(handle.clone());
    let server = HttpServer::new(server).sessions(!stateless);
    handle.set(server.tool_server_handle());

    // The URL goes out first and alone on its line, flushed: scripts read the port from it.
    println!("http://{}/mcp", listener.local_addr()?);
    server
        .serve(listener)
        .with_graceful_shutdown(claude_tools::mcp::shutdown_signal())
        .await
}
