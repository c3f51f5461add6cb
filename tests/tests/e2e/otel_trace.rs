//! One trace from the host through the real CLI to a claude-tools tool (issue 32), exported
//! over OTLP/HTTP (protobuf) to a receiver on 127.0.0.1 (`claude_tools_tests::otlp`): the
//! host's spans by the real `opentelemetry-otlp` exporter, the CLI's own spans by the CLI with
//! its telemetry on, both to the same receiver.
//!
//! The host's current span reaches the CLI as `TRACEPARENT`, which the CLI continues: its
//! `claude_code.interaction` and `claude_code.tool` spans are in the host's trace. What the CLI
//! sends an MCP server of that trace is pinned here too (see each test).

use std::sync::{Arc, Mutex};
use std::time::Duration;

use claude_tools::layer::McpRequest;
use claude_tools::mcp::http::HttpServer;
use claude_tools::tools::{ToolDefBuilder, ToolServer};
use claude_tools_runtime::options::{ExternalServer, Options};
use claude_tools_testkit::model_server::{Script, Turn};
use claude_tools_tests::otlp::{OtlpReceiver, ReceivedSpan};
use opentelemetry::trace::{TraceContextExt, TracerProvider as _};
use opentelemetry_otlp::WithExportConfig;
use opentelemetry_sdk::Resource;
use opentelemetry_sdk::trace::SdkTracerProvider;
use serde_json::json;
use tracing::Instrument;
use tracing_opentelemetry::OpenTelemetrySpanExt;
use tracing_subscriber::layer::SubscriberExt;

use crate::harness::{success_text, within, world};
use crate::run_query;

/// How long the spans may take to reach the receiver once the run is over.
const EXPORTED: Duration = Duration::from_secs(20);

/// The host's tracing: every span of this thread (the test runs on a current-thread runtime,
/// so every task of its own is traced) exported by the OTLP exporter to `receiver`.
struct HostTracing {
    provider: SdkTracerProvider,
    _guard: tracing::subscriber::DefaultGuard,
}

impl HostTracing {
    fn start(receiver: &OtlpReceiver) -> HostTracing {
        let exporter = opentelemetry_otlp::SpanExporter::builder()
            .with_http()
            .with_endpoint(format!("{}/v1/traces", receiver.endpoint()))
            .build()
            .expect("the OTLP exporter");
        let provider = SdkTracerProvider::builder()
            .with_resource(Resource::builder().with_service_name("e2e-host").build())
            .with_batch_exporter(exporter)
            .build();
        let layer = tracing_opentelemetry::layer().with_tracer(provider.tracer("claude-tools-e2e"));
        let guard = tracing::subscriber::set_default(tracing_subscriber::registry().with(layer));
        HostTracing {
            provider,
            _guard: guard,
        }
    }

    /// Exports what is left, off the runtime (the exporter blocks its caller).
    async fn flush(&self) {
        let provider = self.provider.clone();
        let _ = tokio::task::spawn_blocking(move || provider.force_flush()).await;
    }
}

/// The CLI's telemetry, on and exporting its traces to `receiver` over `http/protobuf`, with
/// short export intervals so that a run's spans leave before its end.
fn with_cli_telemetry(options: Options, receiver: &OtlpReceiver) -> Options {
    options
        .env("CLAUDE_CODE_ENABLE_TELEMETRY", "1")
        .env("CLAUDE_CODE_ENHANCED_TELEMETRY_BETA", "1")
        .env("OTEL_TRACES_EXPORTER", "otlp")
        .env("OTEL_METRICS_EXPORTER", "none")
        .env("OTEL_LOGS_EXPORTER", "none")
        .env("OTEL_EXPORTER_OTLP_PROTOCOL", "http/protobuf")
        .env("OTEL_EXPORTER_OTLP_ENDPOINT", receiver.endpoint())
        .env("OTEL_TRACES_EXPORT_INTERVAL", "200")
        .env("OTEL_BSP_SCHEDULE_DELAY", "200")
}

/// What the server saw of each `tools/call`: the `traceparent` in its `_meta`, if any.
#[derive(Clone, Default)]
struct SeenMeta(Arc<Mutex<Vec<Option<String>>>>);

impl SeenMeta {
    fn get(&self) -> Vec<Option<String>> {
        self.0.lock().map(|seen| seen.clone()).unwrap_or_default()
    }
}

/// The `echo` server: the tool opens a span of its own (`tool.work`), and a request layer
/// records the `traceparent` each `tools/call` carried in `_meta`.
fn server(name: &str, seen: SeenMeta) -> ToolServer {
    ToolServer::new(name, "1.0.0")
        .with_tool(
            ToolDefBuilder::new("echo").description("Echo a word"),
            |_call| async {
                let _work = tracing::info_span!("tool.work").entered();
                "echoed"
            },
        )
        .expect("the echo tool")
        .request_layer(tower::layer::layer_fn(move |inner| RecordMeta {
            inner,
            seen: seen.clone(),
        }))
}

#[derive(Clone)]
struct RecordMeta<S> {
    inner: S,
    seen: SeenMeta,
}

impl<S: tower::Service<McpRequest>> tower::Service<McpRequest> for RecordMeta<S> {
    type Response = S::Response;
    type Error = S::Error;
    type Future = S::Future;

    fn poll_ready(
        &mut self,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Result<(), S::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: McpRequest) -> S::Future {
        if let claude_tools::mcp::Call::ToolsCall(call) = request.call()
            && let Ok(mut seen) = self.seen.0.lock()
        {
            seen.push(
                call.trace_context
                    .as_ref()
                    .map(|trace| trace.traceparent.clone()),
            );
        }
        self.inner.call(request)
    }
}

fn named<'a>(spans: &'a [ReceivedSpan], name: &str) -> Vec<&'a ReceivedSpan> {
    spans.iter().filter(|span| span.name == name).collect()
}

/// The one span named `name`, failing with every span received.
fn one<'a>(spans: &'a [ReceivedSpan], name: &str) -> &'a ReceivedSpan {
    let found = named(spans, name);
    assert_eq!(found.len(), 1, "one `{name}` span among {}", summary(spans));
    found[0]
}

/// One line per span: service, name, ids, parent, for failure output.
fn summary(spans: &[ReceivedSpan]) -> String {
    spans
        .iter()
        .map(|span| {
            format!(
                "\n  {} | {} | trace {} span {} parent {:?} | {:?}",
                span.service,
                span.name,
                span.trace_id,
                span.span_id,
                span.parent_span_id,
                span.attributes
            )
        })
        .collect()
}

/// `span`'s chain of parents up to its root, names only, within `spans`.
fn ancestry(spans: &[ReceivedSpan], span: &ReceivedSpan) -> Vec<String> {
    let mut names = vec![span.name.clone()];
    let mut current = span;
    while let Some(parent) = &current.parent_span_id {
        match spans.iter().find(|candidate| &candidate.span_id == parent) {
            Some(found) => {
                names.push(found.name.clone());
                current = found;
            }
            None => {
                names.push(format!("<{parent} not received>"));
                break;
            }
        }
    }
    names
}

fn script(tool: &str) -> Script {
    Script::new()
        .turn(Turn::text("Echoing.").and_tool_use("toolu_otel_echo", tool, json!({})))
        .turn(Turn::text("The tool said: {{tool_result}}"))
}

#[tokio::test(flavor = "current_thread")]
async fn one_trace_from_the_host_through_the_cli_to_an_in_process_tool() {
    let Some(w) = world("otel_in_process", script("mcp__otel__echo")).await else {
        return;
    };
    let receiver = OtlpReceiver::start().expect("the OTLP receiver");
    let host = HostTracing::start(&receiver);
    let seen = SeenMeta::default();
    let options = with_cli_telemetry(w.options(), &receiver)
        .mcp_server(server("otel", seen.clone()))
        .allowed_tools(["mcp__otel__echo"]);
    let request = tracing::info_span!("host request");
    let trace_id = request
        .context()
        .span()
        .span_context()
        .trace_id()
        .to_string();
    let messages = within(
        "an echo through the CLI",
        run_query("echo something", options).instrument(request.clone()),
    )
    .await;
    drop(request);
    assert_eq!(success_text(&messages), "The tool said: echoed");
    host.flush().await;
    let spans = receiver
        .wait_for(EXPORTED, |spans| {
            !named(spans, "host request").is_empty()
                && !named(spans, "claude_code.interaction").is_empty()
                && !named(spans, "claude_code.tool").is_empty()
        })
        .await;
    eprintln!("spans received: {}", summary(&spans));
    eprintln!("traceparent in _meta: {:?}", seen.get());
    eprintln!("requests: {:?}", receiver.requests());

    // Every span of the run is in the host's trace: the host's, the CLI's, the tool's.
    let root = one(&spans, "host request");
    assert_eq!(root.service, "e2e-host");
    assert_eq!(root.parent_span_id, None);
    let interaction = one(&spans, "claude_code.interaction");
    let cli_tool = one(&spans, "claude_code.tool");
    let call = one(&spans, "tools/call echo");
    let work = one(&spans, "tool.work");
    for span in [root, interaction, cli_tool, call, work] {
        assert_eq!(
            span.trace_id,
            trace_id,
            "{}: {}",
            span.name,
            summary(&spans)
        );
    }
    assert_ne!(interaction.service, "e2e-host", "the CLI's own span");
    assert_eq!(work.parent_span_id.as_ref(), Some(&call.span_id));
    assert!(
        ancestry(&spans, interaction).contains(&"host request".to_owned()),
        "{:?}",
        ancestry(&spans, interaction)
    );
    assert!(
        ancestry(&spans, call).contains(&"host request".to_owned()),
        "{:?}",
        ancestry(&spans, call)
    );
    eprintln!("call ancestry: {:?}", ancestry(&spans, call));
    eprintln!("cli tool ancestry: {:?}", ancestry(&spans, cli_tool));
    w.assert_offline();
}

#[tokio::test(flavor = "current_thread")]
async fn one_trace_from_the_host_through_the_cli_to_a_tool_on_an_http_server() {
    let Some(w) = world("otel_http", script("mcp__remote__echo")).await else {
        return;
    };
    let receiver = OtlpReceiver::start().expect("the OTLP receiver");
    let host = HostTracing::start(&receiver);
    let seen = SeenMeta::default();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("a port");
    let url = format!("http://{}/mcp", listener.local_addr().expect("its address"));
    // The HTTP server runs in this process, outside the host's request span: only what the
    // CLI sends can put its spans in the host's trace.
    tokio::spawn(
        HttpServer::new(server("remote", seen.clone()))
            .serve(listener)
            .into_future(),
    );
    let options = with_cli_telemetry(w.options(), &receiver)
        .external_mcp_server("remote", ExternalServer::http(url))
        .allowed_tools(["mcp__remote__echo"]);
    let request = tracing::info_span!("host request");
    let trace_id = request
        .context()
        .span()
        .span_context()
        .trace_id()
        .to_string();
    let messages = within(
        "an echo through the CLI over HTTP",
        run_query("echo something", options).instrument(request.clone()),
    )
    .await;
    drop(request);
    assert_eq!(success_text(&messages), "The tool said: echoed");
    host.flush().await;
    let spans = receiver
        .wait_for(EXPORTED, |spans| {
            !named(spans, "host request").is_empty()
                && !named(spans, "claude_code.tool").is_empty()
                && !named(spans, "tools/call echo").is_empty()
        })
        .await;
    eprintln!("spans received: {}", summary(&spans));
    eprintln!("traceparent in _meta: {:?}", seen.get());

    let interaction = one(&spans, "claude_code.interaction");
    let cli_tool = one(&spans, "claude_code.tool");
    let call = one(&spans, "tools/call echo");
    let work = one(&spans, "tool.work");
    for span in [interaction, cli_tool] {
        assert_eq!(
            span.trace_id,
            trace_id,
            "{}: {}",
            span.name,
            summary(&spans)
        );
    }
    assert_eq!(work.parent_span_id.as_ref(), Some(&call.span_id));
    eprintln!("call ancestry: {:?}", ancestry(&spans, call));
    eprintln!("cli tool ancestry: {:?}", ancestry(&spans, cli_tool));
    w.assert_offline();
}
