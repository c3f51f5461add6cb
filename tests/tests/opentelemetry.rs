//! One trace across the host, the CLI and the tool (feature `opentelemetry`; issue 32): spans
//! exported through `tracing-opentelemetry` into the SDK's in-memory exporter.
//!
//! - a W3C `traceparent` in a `tools/call`'s `_meta` parents the tool's span, in-process
//!   (through a session's `mcp_message`), over stdio and over Streamable HTTP;
//! - a malformed one is ignored (the span stays in the local trace), never a panic;
//! - the host's current span reaches the CLI as `TRACEPARENT` / `TRACESTATE`, and only then;
//! - a session's spans nest: `invoke_agent` > `turn` > `control_request` > `tools/call`.

use std::net::SocketAddr;
use std::time::Duration;

use claude_tools::mcp::http::HttpServer;
use claude_tools::tools::{ToolDefBuilder, ToolServer};
use claude_tools::transport::{MemoryCli, MemoryTransport};
use claude_tools::{Client, Options};
use opentelemetry::trace::{SpanId, TraceContextExt, TraceId, TracerProvider as _};
use opentelemetry_sdk::trace::{InMemorySpanExporter, SdkTracerProvider, SpanData};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpListener;
use tracing_opentelemetry::OpenTelemetrySpanExt;
use tracing_subscriber::layer::SubscriberExt;

const WAIT: Duration = Duration::from_secs(10);
const TRACE_ID: &str = "4bf92f3577b34da6a3ce929d0e0e4736";
const PARENT_ID: &str = "00f067aa0ba902b7";

/// Spans go to an in-memory exporter, through the tracing bridge, on this thread (the tests
/// run on a current-thread runtime, so every task of theirs is traced).
struct Traced {
    exporter: InMemorySpanExporter,
    _provider: SdkTracerProvider,
    _guard: tracing::subscriber::DefaultGuard,
}

impl Traced {
    fn start() -> Traced {
        let exporter = InMemorySpanExporter::default();
        let provider = SdkTracerProvider::builder()
            .with_simple_exporter(exporter.clone())
            .build();
        let layer =
            tracing_opentelemetry::layer().with_tracer(provider.tracer("claude-tools-tests"));
        let guard = tracing::subscriber::set_default(tracing_subscriber::registry().with(layer));
        Traced {
            exporter,
            _provider: provider,
            _guard: guard,
        }
    }

    fn spans(&self) -> Vec<SpanData> {
        self.exporter.get_finished_spans().unwrap()
    }

    /// The one finished span named `name`, waiting a little for it to end.
    async fn span(&self, name: &str) -> SpanData {
        let deadline = tokio::time::Instant::now() + WAIT;
        loop {
            let found: Vec<_> = self
                .spans()
                .into_iter()
                .filter(|s| s.name == name)
                .collect();
            match found.len() {
                1 => return found.into_iter().next().unwrap(),
                0 if tokio::time::Instant::now() < deadline => {
                    tokio::time::sleep(Duration::from_millis(10)).await
                }
                _ => panic!("one `{name}` span: {:#?}", self.spans()),
            }
        }
    }
}

fn attribute(span: &SpanData, key: &str) -> Option<String> {
    span.attributes
        .iter()
        .find(|kv| kv.key.as_str() == key)
        .map(|kv| kv.value.to_string())
}

fn server() -> ToolServer {
    ToolServer::new("otel", "1.0.0")
        .with_tool(
            ToolDefBuilder::new("echo").description("Echo"),
            |_call| async {
                // The tool's own span, beneath the call's.
                let _inner = tracing::info_span!("tool.work").entered();
                "echoed"
            },
        )
        .unwrap()
}

fn tools_call(id: u32, traceparent: &str) -> String {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {
        "name": "echo", "arguments": {},
        "_meta": {"traceparent": traceparent, "tracestate": "vendor=abc"}}})
    .to_string()
}

fn valid_traceparent() -> String {
    format!("00-{TRACE_ID}-{PARENT_ID}-01")
}

/// The tool's span continues the caller's trace: its trace, its remote parent.
fn assert_continues_the_callers_trace(span: &SpanData, transport: &str) {
    assert_eq!(
        span.span_context.trace_id(),
        TraceId::from_hex(TRACE_ID).unwrap(),
        "{transport}"
    );
    assert_eq!(
        span.parent_span_id,
        SpanId::from_hex(PARENT_ID).unwrap(),
        "{transport}"
    );
    assert!(span.parent_span_is_remote, "{transport}");
    assert_eq!(span.span_context.trace_state().get("vendor"), Some("abc"));
    assert_eq!(attribute(span, "gen_ai.tool.name").as_deref(), Some("echo"));
    assert_eq!(
        attribute(span, "mcp.method.name").as_deref(),
        Some("tools/call")
    );
    assert_eq!(span.span_kind, opentelemetry::trace::SpanKind::Server);
}

/// The tool's own span sits beneath the call's.
fn assert_tool_work_beneath(traced: &Traced, call: &SpanData) {
    let work = traced
        .spans()
        .into_iter()
        .find(|s| s.name == "tool.work")
        .expect("the tool's own span");
    assert_eq!(work.parent_span_id, call.span_context.span_id());
    assert_eq!(work.span_context.trace_id(), call.span_context.trace_id());
}

/// A session on a scripted CLI, past its `initialize`, connected in `span`.
async fn session(span: tracing::Span) -> (Client, MemoryCli) {
    let (transport, mut cli) = MemoryTransport::pair();
    let connecting = tokio::spawn(tracing::Instrument::instrument(
        Client::connect_with(Options::new().mcp_server(server()), transport),
        span,
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

/// Sends `message` in an `mcp_message` and returns the host's answer line.
async fn mcp_message(cli: &mut MemoryCli, message: &str) -> Value {
    cli.write_line(&format!(
        r#"{{"type":"control_request","request_id":"r1","request":{{"subtype":"mcp_message","server_name":"otel","message":{message}}}}}"#
    ))
    .await
    .unwrap();
    tokio::time::timeout(WAIT, cli.next_json())
        .await
        .unwrap()
        .unwrap()
        .unwrap()
}

#[tokio::test(flavor = "current_thread")]
async fn a_traceparent_in_meta_parents_the_tool_span_in_process() {
    let traced = Traced::start();
    let (_client, mut cli) = session(tracing::Span::none()).await;
    let answer = mcp_message(&mut cli, &tools_call(1, &valid_traceparent())).await;
    assert!(answer.to_string().contains("echoed"), "{answer}");
    let call = traced.span("tools/call echo").await;
    assert_continues_the_callers_trace(&call, "in-process");
    assert_tool_work_beneath(&traced, &call);
}

#[tokio::test(flavor = "current_thread")]
async fn a_traceparent_in_meta_parents_the_tool_span_over_stdio() {
    let traced = Traced::start();
    let (client, server_side) = tokio::io::duplex(1 << 16);
    let (from_client, to_client) = tokio::io::split(server_side);
    tokio::spawn(claude_tools::mcp::stdio::serve(server(), from_client, to_client).into_future());
    let (from_server, mut to_server) = tokio::io::split(client);
    to_server
        .write_all(format!("{}\n", tools_call(1, &valid_traceparent())).as_bytes())
        .await
        .unwrap();
    let mut lines = BufReader::new(from_server).lines();
    let answer = tokio::time::timeout(WAIT, lines.next_line())
        .await
        .unwrap()
        .unwrap()
        .unwrap();
    assert!(answer.contains("echoed"), "{answer}");
    let call = traced.span("tools/call echo").await;
    assert_continues_the_callers_trace(&call, "stdio");
    assert_tool_work_beneath(&traced, &call);
}

#[tokio::test(flavor = "current_thread")]
async fn a_traceparent_in_meta_parents_the_tool_span_over_http() {
    let traced = Traced::start();
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr: SocketAddr = listener.local_addr().unwrap();
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
    let answer = http
        .post(format!("http://{addr}/mcp"))
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .body(tools_call(1, &valid_traceparent()))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(answer.contains("echoed"), "{answer}");
    let call = traced.span("tools/call echo").await;
    assert_continues_the_callers_trace(&call, "HTTP");
    assert_tool_work_beneath(&traced, &call);
}

#[tokio::test(flavor = "current_thread")]
async fn a_malformed_traceparent_leaves_the_call_in_the_local_trace() {
    let traced = Traced::start();
    let (client, server_side) = tokio::io::duplex(1 << 16);
    let (from_client, to_client) = tokio::io::split(server_side);
    tokio::spawn(claude_tools::mcp::stdio::serve(server(), from_client, to_client).into_future());
    let (from_server, mut to_server) = tokio::io::split(client);
    let mut lines = BufReader::new(from_server).lines();
    let host = tracing::info_span!("host");
    let host_context = host.context().span().span_context().clone();
    let hostile = [
        format!("00-{}-{PARENT_ID}-01", "0".repeat(32)),
        format!("ff-{TRACE_ID}-{PARENT_ID}-01"),
        format!("00-{TRACE_ID}-{PARENT_ID}-01-trailing"),
        "00-é".repeat(40),
        String::new(),
    ];
    for (n, traceparent) in hostile.iter().enumerate() {
        let message = tools_call(n as u32, traceparent);
        // The stdio server reads on its own task; the host span is the parent of nothing
        // there, so the call is a root of its own trace, not the caller's.
        to_server
            .write_all(format!("{message}\n").as_bytes())
            .await
            .unwrap();
        let answer = tokio::time::timeout(WAIT, lines.next_line())
            .await
            .unwrap()
            .unwrap()
            .unwrap();
        assert!(answer.contains("echoed"), "{traceparent:?}: {answer}");
    }
    drop(host);
    tokio::time::sleep(Duration::from_millis(50)).await;
    let calls: Vec<_> = traced
        .spans()
        .into_iter()
        .filter(|s| s.name == "tools/call echo")
        .collect();
    assert_eq!(calls.len(), hostile.len());
    for call in calls {
        assert_ne!(
            call.span_context.trace_id(),
            TraceId::from_hex(TRACE_ID).unwrap()
        );
        assert!(!call.parent_span_is_remote);
        assert!(call.span_context.is_valid());
        assert_ne!(call.span_context.trace_id(), host_context.trace_id());
    }
}

#[tokio::test(flavor = "current_thread")]
async fn the_hosts_span_reaches_the_cli_as_traceparent_and_only_then() {
    let traced = Traced::start();
    // No current span: the CLI gets no trace context of the host's.
    let launch = Options::new().launch_spec();
    assert!(!launch.env.iter().any(|(name, _)| name == "TRACEPARENT"));
    assert!(!launch.env_remove.iter().any(|name| name == "TRACESTATE"));

    let host = tracing::info_span!("host request");
    let context = host.context().span().span_context().clone();
    let launch = host.in_scope(|| Options::new().launch_spec());
    let traceparent = launch
        .env
        .iter()
        .find(|(name, _)| name == "TRACEPARENT")
        .map(|(_, value)| value.clone())
        .expect("TRACEPARENT");
    assert_eq!(
        traceparent,
        format!("00-{}-{}-01", context.trace_id(), context.span_id())
    );
    // No trace state of its own: an inherited TRACESTATE would belong to another trace.
    assert!(launch.env_remove.iter().any(|name| name == "TRACESTATE"));

    // The application's own value wins.
    let launch = host.in_scope(|| {
        Options::new()
            .env(
                "TRACEPARENT",
                "00-11111111111111111111111111111111-2222222222222222-01",
            )
            .launch_spec()
    });
    let set: Vec<_> = launch
        .env
        .iter()
        .filter(|(name, _)| name == "TRACEPARENT")
        .collect();
    assert_eq!(set.len(), 1);
    assert!(set[0].1.starts_with("00-1111"));

    // Through a session: what the transport is given to launch.
    let (transport, mut cli) = MemoryTransport::pair();
    let connecting = tokio::spawn(tracing::Instrument::instrument(
        Client::connect_with(Options::new(), transport),
        host.clone(),
    ));
    let launch = cli.connected().await;
    assert!(
        launch
            .env
            .iter()
            .any(|(name, value)| name == "TRACEPARENT" && value == &traceparent)
    );
    connecting.abort();
    drop(traced);
}

#[tokio::test(flavor = "current_thread")]
async fn a_sessions_spans_nest_from_the_session_to_the_tool() {
    let traced = Traced::start();
    let host = tracing::info_span!("host");
    let (mut client, mut cli) = session(host.clone()).await;
    client.query("use the echo tool").await.unwrap();
    let _prompt = tokio::time::timeout(WAIT, cli.next_json()).await.unwrap();
    let call = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": "echo", "arguments": {}}})
    .to_string();
    let answer = mcp_message(&mut cli, &call).await;
    assert!(answer.to_string().contains("echoed"));
    cli.write_json(
        &json!({"type": "result", "subtype": "success", "is_error": false,
        "duration_ms": 1, "duration_api_ms": 1, "num_turns": 1, "result": "done",
        "session_id": "s-1", "usage": {"input_tokens": 12, "output_tokens": 3}}),
    )
    .await
    .unwrap();
    let turn = traced.span("turn").await;
    assert_eq!(
        attribute(&turn, "gen_ai.conversation.id").as_deref(),
        Some("s-1")
    );
    assert_eq!(
        attribute(&turn, "gen_ai.usage.input_tokens").as_deref(),
        Some("12")
    );
    assert_eq!(
        attribute(&turn, "gen_ai.usage.output_tokens").as_deref(),
        Some("3")
    );
    let control = traced.span("mcp_message").await;
    let tool = traced.span("tools/call echo").await;
    assert_eq!(tool.parent_span_id, control.span_context.span_id());
    assert_eq!(control.parent_span_id, turn.span_context.span_id());
    drop(client);
    drop(cli);
    let session = traced.span("invoke_agent claude-code").await;
    assert_eq!(turn.parent_span_id, session.span_context.span_id());
    assert_eq!(
        session.parent_span_id,
        host.context().span().span_context().span_id()
    );
    let trace = host.context().span().span_context().trace_id();
    for span in [&session, &turn, &control, &tool] {
        assert_eq!(span.span_context.trace_id(), trace, "{}", span.name);
    }
}

/// POSTs `body` to a Streamable HTTP server, in `session` when given; returns the answer's
/// `mcp-session-id` and body.
async fn post(
    http: &reqwest::Client,
    addr: SocketAddr,
    session: Option<&str>,
    body: Value,
) -> (Option<String>, String) {
    let mut request = http
        .post(format!("http://{addr}/mcp"))
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2025-11-25");
    if let Some(session) = session {
        request = request.header("mcp-session-id", session);
    }
    let response = request.body(body.to_string()).send().await.unwrap();
    let session = response
        .headers()
        .get("mcp-session-id")
        .and_then(|value| value.to_str().ok())
        .map(str::to_owned);
    (session, response.text().await.unwrap())
}

#[tokio::test(flavor = "current_thread")]
async fn an_http_requests_span_names_its_session() {
    let traced = Traced::start();
    let http = reqwest::Client::builder()
        .no_proxy()
        .timeout(WAIT)
        .build()
        .unwrap();
    let call = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {"name": "echo", "arguments": {}}});

    // With sessions: the request's HTTP span carries `mcp.session.id`.
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(
        HttpServer::new(server())
            .sessions(true)
            .serve(listener)
            .into_future(),
    );
    let initialize = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "otel-test", "version": "1"}}});
    let (session, answer) = post(&http, addr, None, initialize).await;
    let session = session.unwrap_or_else(|| panic!("a session: {answer}"));
    let (_, answer) = post(&http, addr, Some(&session), call.clone()).await;
    assert!(answer.contains("echoed"), "{answer}");
    let tool = traced.span("tools/call echo").await;
    let in_session = traced
        .spans()
        .into_iter()
        .find(|span| span.span_context.span_id() == tool.parent_span_id)
        .expect("the HTTP request's span, the call's parent");
    assert_eq!(in_session.name, "mcp_http");
    assert_eq!(
        attribute(&in_session, "mcp.session.id").as_deref(),
        Some(session.as_str())
    );

    // Stateless: no session, no attribute.
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(
        HttpServer::new(server())
            .sessions(false)
            .serve(listener)
            .into_future(),
    );
    let (_, answer) = post(&http, addr, None, call).await;
    assert!(answer.contains("echoed"), "{answer}");
    let deadline = tokio::time::Instant::now() + WAIT;
    let stateless = loop {
        let requests: Vec<_> = traced
            .spans()
            .into_iter()
            .filter(|span| span.name == "mcp_http")
            .collect();
        // initialize and the call in the session, then the stateless call.
        if requests.len() == 3 || tokio::time::Instant::now() >= deadline {
            break requests;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    };
    assert_eq!(stateless.len(), 3, "{stateless:#?}");
    let without: Vec<_> = stateless
        .iter()
        .filter(|span| attribute(span, "mcp.session.id").is_none())
        .collect();
    assert_eq!(
        without.len(),
        1,
        "only the stateless call has none: {stateless:#?}"
    );
}
