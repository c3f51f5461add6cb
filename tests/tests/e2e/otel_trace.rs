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
/// The host's own span was exported: it ended once the query was over, wherever the session's
/// last holder dropped it (a session ending on its reading thread kept it open before).
fn assert_the_hosts_span_ended(spans: &[ReceivedSpan], host_id: &str) {
    let host = one(spans, "host request");
    assert_eq!(host.span_id, host_id, "{}", summary(spans));
    assert_eq!(host.parent_span_id, None, "{}", summary(spans));
}

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
    let (trace_id, host_id) = ids(&request);
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
            [
                "host request",
                "claude_code.interaction",
                "claude_code.tool",
                "tools/call echo",
                "invoke_agent claude-code",
            ]
            .iter()
            .all(|name| !named(spans, name).is_empty())
        })
        .await;

    // The host's span is the parent of the session's and, through TRACEPARENT, of the CLI's
    // interaction: one trace, the host's.
    let session = one(&spans, "invoke_agent claude-code");
    let interaction = one(&spans, "claude_code.interaction");
    assert_eq!(
        session.parent_span_id.as_ref(),
        Some(&host_id),
        "{}",
        summary(&spans)
    );
    assert_eq!(
        interaction.parent_span_id.as_ref(),
        Some(&host_id),
        "{}",
        summary(&spans)
    );
    assert_eq!(interaction.service, "claude-code");
    assert_eq!(interaction.attribute("parent.source"), Some("env"));
    // The CLI's tool-call span, beneath its interaction.
    let cli_tool = one(&spans, "claude_code.tool");
    assert_eq!(cli_tool.parent_span_id.as_ref(), Some(&interaction.span_id));
    assert_eq!(cli_tool.attribute("tool_name"), Some("mcp__otel__echo"));
    // The Rust tool's span, beneath the host's control request that carried it, and the
    // tool's own span beneath it.
    let call = one(&spans, "tools/call echo");
    assert_eq!(
        ancestry(&spans, call)[..4],
        [
            "tools/call echo",
            "mcp_message",
            "turn",
            "invoke_agent claude-code"
        ],
        "{}",
        summary(&spans)
    );
    let work = one(&spans, "tool.work");
    assert_eq!(work.parent_span_id.as_ref(), Some(&call.span_id));
    for span in [session, interaction, cli_tool, call, work] {
        assert_eq!(
            span.trace_id,
            trace_id,
            "{}: {}",
            span.name,
            summary(&spans)
        );
    }
    // What the CLI 2.1.332 sends: no `traceparent` in the call's `_meta`, so the tool's span
    // is the sibling of the CLI's tool span in the one trace, not its child. Both carry the
    // tool_use id, which joins them.
    assert_eq!(seen.get(), [None]);
    assert_eq!(
        cli_tool.attribute("gen_ai.tool.call.id"),
        Some("toolu_otel_echo")
    );
    assert_eq!(
        call.attribute("gen_ai.tool.call.id"),
        Some("toolu_otel_echo")
    );
    assert_the_hosts_span_ended(&spans, &host_id);
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
    // CLI sends can put its spans in the host's trace. Its router records the `traceparent`
    // header of each POST.
    let headers: Arc<Mutex<Vec<Option<String>>>> = Arc::default();
    let recorded = headers.clone();
    let router = HttpServer::new(server("remote", seen.clone()))
        .into_router()
        .layer(axum::middleware::from_fn(
            move |request: axum::extract::Request, next: axum::middleware::Next| {
                let traceparent = request
                    .headers()
                    .get("traceparent")
                    .and_then(|value| value.to_str().ok())
                    .map(str::to_owned);
                if let Ok(mut recorded) = recorded.lock() {
                    recorded.push(traceparent);
                }
                next.run(request)
            },
        ));
    tokio::spawn(axum::serve(listener, router).into_future());
    let options = with_cli_telemetry(w.options(), &receiver)
        .external_mcp_server("remote", ExternalServer::http(url))
        .allowed_tools(["mcp__remote__echo"]);
    let request = tracing::info_span!("host request");
    let (trace_id, host_id) = ids(&request);
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
            [
                "host request",
                "claude_code.interaction",
                "claude_code.tool",
                "tools/call echo",
            ]
            .iter()
            .all(|name| !named(spans, name).is_empty())
        })
        .await;

    // The CLI continues the host's trace.
    let interaction = one(&spans, "claude_code.interaction");
    let cli_tool = one(&spans, "claude_code.tool");
    assert_eq!(
        interaction.parent_span_id.as_ref(),
        Some(&host_id),
        "{}",
        summary(&spans)
    );
    assert_eq!(cli_tool.parent_span_id.as_ref(), Some(&interaction.span_id));
    for span in [interaction, cli_tool] {
        assert_eq!(
            span.trace_id,
            trace_id,
            "{}: {}",
            span.name,
            summary(&spans)
        );
    }
    // What the CLI 2.1.332 sends an HTTP server: no `traceparent` header and none in `_meta`,
    // so the server's spans are a trace of their own, rooted at its HTTP request span; the
    // tool_use id in both joins the CLI's tool span and the server's call.
    let call = one(&spans, "tools/call echo");
    let work = one(&spans, "tool.work");
    assert_eq!(work.parent_span_id.as_ref(), Some(&call.span_id));
    assert_eq!(ancestry(&spans, call), ["tools/call echo", "mcp_http"]);
    assert_ne!(call.trace_id, trace_id);
    assert_eq!(seen.get(), [None]);
    let sent = headers.lock().map(|sent| sent.clone()).unwrap_or_default();
    assert!(
        !sent.is_empty() && sent.iter().all(Option::is_none),
        "{sent:?}"
    );
    assert_eq!(
        cli_tool.attribute("gen_ai.tool.call.id"),
        Some("toolu_otel_echo")
    );
    assert_eq!(
        call.attribute("gen_ai.tool.call.id"),
        Some("toolu_otel_echo")
    );
    assert_the_hosts_span_ended(&spans, &host_id);
    w.assert_offline();
}

/// The trace id and span id of `span`, in hex.
fn ids(span: &tracing::Span) -> (String, String) {
    let context = span.context();
    let span_context = context.span().span_context().clone();
    (
        span_context.trace_id().to_string(),
        span_context.span_id().to_string(),
    )
}
