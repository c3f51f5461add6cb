//! Spans leaving the process over OTLP/HTTP (feature `opentelemetry`; issue 32), through the
//! real `opentelemetry-otlp` exporter, to the OTLP receiver of the tests
//! (`claude_tools_tests::otlp`):
//!
//! - a collector that is down: the server and the agent go on answering, the spans are dropped,
//!   counted (`CountingExporter`) and the outage logged once; when the collector is back the
//!   spans reach it and the recovery is logged once, with what was lost;
//! - the receiver gets a tool call's spans as a collector would, parents and attributes.
//!
//! One test: the logs of the exporter come from the batch processor's own thread, so they are
//! read through the process's global subscriber, which a test binary can set once.

use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use claude_tools::mcp::http::HttpServer;
use claude_tools::telemetry::{CountingExporter, DroppedSpans};
use claude_tools::tools::{ToolDefBuilder, ToolServer};
use claude_tools::transport::{MemoryCli, MemoryTransport};
use claude_tools::{Client, Options};
use claude_tools_tests::otlp::OtlpReceiver;
use opentelemetry::trace::TracerProvider as _;
use opentelemetry_otlp::WithExportConfig;
use opentelemetry_sdk::trace::{InMemorySpanExporter, SdkTracerProvider};
use serde_json::{Value, json};
use tracing_subscriber::layer::SubscriberExt;

const WAIT: Duration = Duration::from_secs(10);

/// The exporter's log lines (target `claude_tools::mcp`, from `CountingExporter`), as
/// `(level, message)`.
#[derive(Clone, Default)]
struct Logged(Arc<Mutex<Vec<(tracing::Level, String)>>>);

impl Logged {
    fn lines(&self) -> Vec<(tracing::Level, String)> {
        self.0.lock().unwrap().clone()
    }
}

impl<S: tracing::Subscriber> tracing_subscriber::Layer<S> for Logged {
    fn on_event(&self, event: &tracing::Event<'_>, _: tracing_subscriber::layer::Context<'_, S>) {
        let metadata = event.metadata();
        if metadata.target() != "claude_tools::mcp" || *metadata.level() > tracing::Level::INFO {
            return;
        }
        let mut message = String::new();
        event.record(&mut MessageOf(&mut message));
        if message.starts_with("exporting spans") {
            self.0.lock().unwrap().push((*metadata.level(), message));
        }
    }
}

struct MessageOf<'a>(&'a mut String);

impl tracing::field::Visit for MessageOf<'_> {
    fn record_debug(&mut self, field: &tracing::field::Field, value: &dyn std::fmt::Debug) {
        if field.name() == "message" {
            *self.0 = format!("{value:?}");
        }
    }
}

fn server() -> ToolServer {
    ToolServer::new("otel", "1.0.0")
        .with_tool(
            ToolDefBuilder::new("echo").description("Echo"),
            |_call| async {
                let _work = tracing::info_span!("tool.work").entered();
                "echoed"
            },
        )
        .unwrap()
}

fn tools_call(id: u32) -> String {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
        "params": {"name": "echo", "arguments": {}}})
    .to_string()
}

/// A tool call over Streamable HTTP, answered.
async fn call_over_http(http: &reqwest::Client, addr: SocketAddr, id: u32) {
    let answer = http
        .post(format!("http://{addr}/mcp"))
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .body(tools_call(id))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(answer.contains("echoed"), "{answer}");
}

/// A session on a scripted CLI, past its `initialize`.
async fn session() -> (Client, MemoryCli) {
    let (transport, mut cli) = MemoryTransport::pair();
    let connecting = tokio::spawn(Client::connect_with(
        Options::new().mcp_server(server()),
        transport,
    ));
    let initialize = tokio::time::timeout(WAIT, cli.next_json())
        .await
        .unwrap()
        .unwrap()
        .unwrap();
    cli.write_json(
        &json!({"type": "control_response", "response": {"subtype": "success",
        "request_id": initialize["request_id"], "response": {}}}),
    )
    .await
    .unwrap();
    let client = tokio::time::timeout(WAIT, connecting)
        .await
        .unwrap()
        .unwrap()
        .unwrap();
    (client, cli)
}

/// A tool call in an `mcp_message` of the CLI, answered by the host.
async fn call_in_process(cli: &mut MemoryCli, id: u32) {
    cli.write_line(&format!(
        r#"{{"type":"control_request","request_id":"r{id}","request":{{"subtype":"mcp_message","server_name":"otel","message":{}}}}}"#,
        tools_call(id)
    ))
    .await
    .unwrap();
    let answer: Value = tokio::time::timeout(WAIT, cli.next_json())
        .await
        .unwrap()
        .unwrap()
        .unwrap();
    assert!(answer.to_string().contains("echoed"), "{answer}");
}

/// Exports what the batch processor holds, off the runtime (the exporter blocks its caller).
async fn flush(provider: &SdkTracerProvider) {
    let provider = provider.clone();
    let _ = tokio::task::spawn_blocking(move || provider.force_flush()).await;
}

struct Pipeline {
    provider: SdkTracerProvider,
    /// Every span that ended, whatever became of its export.
    ended: InMemorySpanExporter,
    dropped: DroppedSpans,
}

/// Traces to an OTLP collector at `collector`, through the batch processor as in production,
/// every span also kept in memory; the process's global subscriber, with `logged`.
fn pipeline(collector: SocketAddr, logged: Logged) -> Pipeline {
    let otlp = opentelemetry_otlp::SpanExporter::builder()
        .with_http()
        .with_endpoint(format!("http://{collector}/v1/traces"))
        .with_timeout(Duration::from_secs(2))
        .build()
        .unwrap();
    let (exporter, dropped) = CountingExporter::new(otlp);
    let ended = InMemorySpanExporter::default();
    let provider = SdkTracerProvider::builder()
        .with_batch_exporter(exporter)
        .with_simple_exporter(ended.clone())
        .build();
    let layer = tracing_opentelemetry::layer().with_tracer(provider.tracer("claude-tools-tests"));
    tracing::subscriber::set_global_default(
        tracing_subscriber::registry().with(layer).with(logged),
    )
    .unwrap();
    Pipeline {
        provider,
        ended,
        dropped,
    }
}

fn spans_ended(pipeline: &Pipeline) -> u64 {
    pipeline.ended.get_finished_spans().unwrap().len() as u64
}

/// Flushes until every span that ended went through the exporter (a call's span may end just
/// after its answer reached the client), then returns how many ended.
async fn settle(pipeline: &Pipeline, exported: impl Fn() -> u64) -> u64 {
    let deadline = tokio::time::Instant::now() + WAIT;
    loop {
        flush(&pipeline.provider).await;
        let ended = spans_ended(pipeline);
        if exported() == ended || tokio::time::Instant::now() >= deadline {
            return ended;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_collector_that_is_down_costs_the_spans_alone_counted_and_logged_once() {
    // A port with nothing listening: the collector is down.
    let collector = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap();
    let logged = Logged::default();
    let pipeline = pipeline(collector, logged.clone());

    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(
        HttpServer::new(server())
            .sessions(false)
            .serve(listener)
            .into_future(),
    );
    let http = reqwest::Client::builder()
        .no_proxy()
        .timeout(WAIT)
        .build()
        .unwrap();
    let (client, mut cli) = session().await;

    // The server and the agent go on answering while every export fails.
    for id in 1..=3 {
        call_over_http(&http, addr, id).await;
        call_in_process(&mut cli, id).await;
        flush(&pipeline.provider).await;
    }
    let ended = settle(&pipeline, || pipeline.dropped.count()).await;
    assert!(pipeline.dropped.is_failing());
    assert!(ended >= 12, "two spans a call, six calls: {ended}");
    assert_eq!(
        pipeline.dropped.count(),
        ended,
        "every span that ended was dropped, and counted"
    );
    let lines = logged.lines();
    assert_eq!(
        lines.len(),
        1,
        "one line for the outage, not one per failed batch: {lines:#?}"
    );
    assert_eq!(lines[0].0, tracing::Level::WARN);
    assert!(lines[0].1.contains("exporting spans failed"), "{lines:#?}");

    // The collector is back on the same port: spans reach it, and the recovery is said once.
    let receiver = OtlpReceiver::start_at(collector).unwrap();
    let lost = pipeline.dropped.count();
    call_over_http(&http, addr, 10).await;
    call_in_process(&mut cli, 10).await;
    // Every span that ended since is at the receiver.
    let ended = settle(&pipeline, || lost + receiver.spans().len() as u64).await;
    assert_eq!(ended, lost + receiver.spans().len() as u64);
    assert!(!pipeline.dropped.is_failing());
    assert_eq!(pipeline.dropped.count(), lost, "nothing more was lost");
    let received = receiver
        .wait_for(WAIT, |spans| {
            spans.iter().filter(|s| s.name == "tools/call echo").count() >= 2
        })
        .await;
    let calls: Vec<_> = received
        .iter()
        .filter(|span| span.name == "tools/call echo")
        .collect();
    assert_eq!(calls.len(), 2, "the HTTP and the in-process call");
    for call in &calls {
        assert_eq!(call.attribute("gen_ai.tool.name"), Some("echo"));
        assert_eq!(call.attribute("mcp.method.name"), Some("tools/call"));
        let work = received
            .iter()
            .find(|span| {
                span.name == "tool.work" && span.parent_span_id.as_ref() == Some(&call.span_id)
            })
            .unwrap_or_else(|| panic!("the tool's own span beneath {call:?}: {received:#?}"));
        assert_eq!(work.trace_id, call.trace_id);
    }
    let lines = logged.lines();
    assert_eq!(lines.len(), 2, "{lines:#?}");
    assert_eq!(lines[1].0, tracing::Level::INFO);
    assert!(
        lines[1].1.contains(&format!("{lost} spans were dropped")),
        "{lines:#?}"
    );
    drop(client);
    drop(cli);
    let _ = tokio::task::spawn_blocking(move || pipeline.provider.shutdown()).await;
}
