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
//!
//! Built with the feature `opentelemetry`, `CT_BENCH_TRACING` picks what the spans cost
//! (BENCHMARKS.md, "Cost of tracing spans"): `off` (the default: no subscriber), `layer` (a
//! `tracing-opentelemetry` layer over a tracer provider with no exporter) or `otlp` (the same
//! with the batch processor and the OTLP/HTTP exporter, to `OTEL_EXPORTER_OTLP_ENDPOINT`:
//! `bench/otlp-sink.py` answers there).
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
    #[cfg(feature = "opentelemetry")]
    let _provider = tracing_mode::install().map_err(std::io::Error::other)?;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    println!("http://{}/mcp", listener.local_addr()?);
    HttpServer::new(Bench::server()).serve(listener).await
}

/// `CT_BENCH_TRACING`: the tracing the server runs with (see the crate docs).
#[cfg(feature = "opentelemetry")]
mod tracing_mode {
    use opentelemetry::trace::TracerProvider as _;
    use opentelemetry_sdk::trace::SdkTracerProvider;
    use tracing_subscriber::layer::SubscriberExt;

    /// Installs the mode's subscriber for the whole process; the provider is kept alive by
    /// the caller. `None` for `off`.
    pub fn install() -> Result<Option<SdkTracerProvider>, String> {
        let mode = std::env::var("CT_BENCH_TRACING").unwrap_or_else(|_| "off".to_owned());
        let provider = match mode.as_str() {
            "off" => return Ok(None),
            "layer" => SdkTracerProvider::builder().build(),
            "otlp" => {
                // The endpoint from OTEL_EXPORTER_OTLP_ENDPOINT, as in production.
                let exporter = opentelemetry_otlp::SpanExporter::builder()
                    .with_http()
                    .build()
                    .map_err(|e| format!("the OTLP exporter: {e}"))?;
                SdkTracerProvider::builder()
                    .with_batch_exporter(exporter)
                    .build()
            }
            other => return Err(format!("CT_BENCH_TRACING={other}: off, layer or otlp")),
        };
        let layer = tracing_opentelemetry::layer().with_tracer(provider.tracer("ct-bench"));
        tracing::subscriber::set_global_default(tracing_subscriber::registry().with(layer))
            .map_err(|e| e.to_string())?;
        Ok(Some(provider))
    }
}
