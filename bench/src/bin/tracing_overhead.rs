//! `ct-bench-tracing`: what the tracing spans (`claude_tools::telemetry`) cost an in-process
//! tool call, for instruction counts (`valgrind --tool=callgrind`, as `ct-bench-hot-path`).
//!
//! `ct-bench-tracing <calls> <mode>` runs `<calls>` `tools/call`s of the bench's `add` tool
//! through an `McpRouter` (the message of `ct-bench-hot-path`, with a W3C `traceparent` in its
//! `_meta`, so the trace context is read and applied too), with:
//!
//! - `off`: no subscriber (every span disabled: the cost every user pays);
//! - `layer`: a `tracing-opentelemetry` layer over a tracer provider with no exporter (spans
//!   built, parented and dropped);
//! - `export`: the same with the SDK's simple processor into its in-memory exporter (spans
//!   built, ended and handed to an exporter on the calling thread; the exporter is emptied
//!   every 1,000 calls).
//!
//! The instructions of one call are the difference between two runs divided by the difference
//! of their `<calls>` (BENCHMARKS.md, "Cost of tracing spans").

use std::process::ExitCode;

use claude_tools::mcp::{McpRouter, Message};
use claude_tools::prelude::*;
use opentelemetry::trace::TracerProvider as _;
use opentelemetry_sdk::trace::{InMemorySpanExporter, SdkTracerProvider};
use tracing_subscriber::layer::SubscriberExt;

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

/// `ct-bench-hot-path`'s message with a caller's trace context in `_meta`.
const MESSAGE: &str = r#"{"method":"tools/call","params":{"name":"add","arguments":{"a":12345,"b":67890},"_meta":{"claudecode/toolUseId":"toolu_bench000000000001","progressToken":7,"traceparent":"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"}},"jsonrpc":"2.0","id":7}"#;

fn main() -> ExitCode {
    let Some(calls) = std::env::args().nth(1).and_then(|n| n.parse::<u64>().ok()) else {
        eprintln!("usage: ct-bench-tracing <calls> <off|layer|export>");
        return ExitCode::from(2);
    };
    let mode = std::env::args().nth(2).unwrap_or_else(|| "off".to_owned());
    let exporter = InMemorySpanExporter::default();
    let provider = match mode.as_str() {
        "off" => None,
        "layer" => Some(SdkTracerProvider::builder().build()),
        "export" => Some(
            SdkTracerProvider::builder()
                .with_simple_exporter(exporter.clone())
                .build(),
        ),
        other => {
            eprintln!("ct-bench-tracing: unknown mode `{other}`: off, layer or export");
            return ExitCode::from(2);
        }
    };
    let _guard = provider.as_ref().map(|provider| {
        let layer = tracing_opentelemetry::layer().with_tracer(provider.tracer("ct-bench"));
        tracing::subscriber::set_default(tracing_subscriber::registry().with(layer))
    });
    let runtime = match tokio::runtime::Builder::new_current_thread().build() {
        Ok(runtime) => runtime,
        Err(e) => {
            eprintln!("ct-bench-tracing: runtime: {e}");
            return ExitCode::from(2);
        }
    };
    let router = McpRouter::new(Bench::server());
    let answered = runtime.block_on(async {
        let mut buffer = Vec::with_capacity(256);
        let mut answered = 0usize;
        for n in 0..calls {
            buffer.clear();
            if let Some(response) = router.handle(Message::decode_str(MESSAGE)).await {
                response.write_to(&mut buffer);
                answered += buffer.len();
            }
            if n % 1000 == 999 {
                exporter.reset();
            }
        }
        answered
    });
    // The spans exported since the last reset, so that a mode exporting nothing shows.
    let exported = exporter.get_finished_spans().map(|s| s.len()).unwrap_or(0);
    println!("{answered} {exported}");
    ExitCode::SUCCESS
}
