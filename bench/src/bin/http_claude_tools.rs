//! `ct-bench-http-claude-tools`: the Streamable HTTP bench's claude-tools server — the same
//! `#[tool]` `add(a, b)` as the in-process bench, served by `claude_tools::mcp::http` with its
//! defaults (stateless, `/mcp`). Beside it, the same `#[prompt]` `sum(a, b)` and
//! `#[resource(uri = "bench://sum/{a}/{b}")]` as `ct-bench-hot-path` (issue 22: `bench/run http
//! --methods tool,prompt,resource` measures `prompts/get` and `resources/read` against
//! `tools/call` on this server).
//!
//! Beside them, `add_confirmed(a, b)`, which asks the client to confirm first: at 2026-07-28 an
//! `input_required` result, then the retry with the answer (issue 28's MRTR round trip).
//!
//! Binds `127.0.0.1:0` and prints `http://127.0.0.1:<port>/mcp` on stdout once it listens.
//! The runtime is tokio's default multi-thread one, as `#[tokio::main]` gives (the rmcp server
//! of the bench uses the same).

use std::process::ExitCode;

use claude_tools::mcp::Elicitation;
use claude_tools::mcp::http::HttpServer;
use claude_tools::prelude::*;

/// The bench server.
#[tool_server(name = "bench", version = "1.0.0")]
pub struct Bench;

/// Add two integers.
#[tool(server = Bench, read_only)]
async fn add(
    /// The first term
    a: i64,
    /// The second term
    b: i64,
) -> i64 {
    a.wrapping_add(b)
}

/// The form of [`add_confirmed`]: the client says whether to add.
#[derive(Deserialize, Serialize, JsonSchema)]
struct Confirm {
    /// Whether to add
    ok: bool,
}

/// Add two integers once the client confirms (issue 28: an MCP 2026-07-28 multi-round-trip
/// call, `bench/wrk.py count --mrtr`; the question under the key `confirm`).
#[tool(server = Bench, read_only)]
async fn add_confirmed(
    context: ToolContext,
    /// The first term
    a: i64,
    /// The second term
    b: i64,
) -> Result<i64, ToolError> {
    match context
        .question("confirm")
        .elicit::<Confirm>("Add?")
        .await?
    {
        Elicitation::Accepted(Confirm { ok: true }) => Ok(a.wrapping_add(b)),
        _ => Err(ToolError::new("not confirmed")),
    }
}

/// Ask for the sum of two integers.
#[prompt(server = Bench)]
fn sum(
    /// The first term
    a: i64,
    /// The second term
    b: i64,
) -> String {
    format!("What is {a} + {b}? It is {}.", a.wrapping_add(b))
}

/// The sum of two integers.
#[resource(server = Bench, uri = "bench://sum/{a}/{b}", mime_type = "text/plain")]
fn sum_resource(a: i64, b: i64) -> String {
    a.wrapping_add(b).to_string()
}

#[tokio::main]
async fn main() -> ExitCode {
    match serve().await {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("ct-bench-http-claude-tools: {e}");
            ExitCode::from(1)
        }
    }
}

async fn serve() -> std::io::Result<()> {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    println!("http://{}/mcp", listener.local_addr()?);
    HttpServer::new(Bench::server()).serve(listener).await
}
