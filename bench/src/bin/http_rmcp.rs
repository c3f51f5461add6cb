//! `ct-bench-http-rmcp`: the Streamable HTTP bench's rmcp server — the same `add(a, b)` as
//! the other servers, behind rmcp's `StreamableHttpService` (feature
//! `transport-streamable-http-server`) mounted on axum at `/mcp`, as rmcp documents it.
//!
//! Stateless: `legacy_session_mode` off (no `Mcp-Session-Id`, no per-session worker) with the
//! `NeverSessionManager` rmcp names for that mode, and `json_response` on, so a plain
//! request-response call is answered `application/json` rather than as an SSE stream. Every
//! other setting is rmcp's default (loopback `Host` check, body limit).
//!
//! Binds `127.0.0.1:0` and prints `http://127.0.0.1:<port>/mcp` on stdout once it listens.
//! The runtime is tokio's default multi-thread one, as `#[tokio::main]` gives.

use std::process::ExitCode;
use std::sync::Arc;

use rmcp::handler::server::wrapper::Parameters;
use rmcp::transport::streamable_http_server::session::never::NeverSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{ServerHandler, schemars, tool, tool_handler, tool_router};

/// Arguments of `add`.
#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
pub struct AddArgs {
    /// The first term
    pub a: i64,
    /// The second term
    pub b: i64,
}

/// The bench server. Its tool router is not kept in a field: `#[tool_handler]` builds it with
/// `Self::tool_router()`, which rmcp's docs give as the usual way.
#[derive(Clone)]
pub struct Bench;

#[tool_router]
impl Bench {
    /// Add two integers.
    #[tool(annotations(read_only_hint = true))]
    async fn add(&self, Parameters(AddArgs { a, b }): Parameters<AddArgs>) -> String {
        a.wrapping_add(b).to_string()
    }
}

#[tool_handler(name = "bench", version = "1.0.0")]
impl ServerHandler for Bench {}

#[tokio::main]
async fn main() -> ExitCode {
    match serve().await {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("ct-bench-http-rmcp: {e}");
            ExitCode::from(1)
        }
    }
}

async fn serve() -> std::io::Result<()> {
    let config = StreamableHttpServerConfig::default()
        .with_legacy_session_mode(false)
        .with_json_response(true);
    let service = StreamableHttpService::new(
        || Ok(Bench),
        Arc::new(NeverSessionManager::default()),
        config,
    );
    let app = axum::Router::new().nest_service("/mcp", service);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    println!("http://{}/mcp", listener.local_addr()?);
    axum::serve(listener, app).await
}
