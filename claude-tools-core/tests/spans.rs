//! The router's spans (`claude_tools_core::telemetry`): one per request, named and described
//! with the OpenTelemetry conventions for MCP and GenAI, the tool's handler running inside its
//! call's span, errors typed, and arguments and results never recorded.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use claude_tools_core::mcp::{McpRouter, Message};
use claude_tools_core::tool::{ToolCall, ToolDefBuilder, ToolError, ToolServer};
use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record};
use tracing_subscriber::layer::{Context, Layer, SubscriberExt};
use tracing_subscriber::registry::LookupSpan;

/// One span as the recording layer saw it.
#[derive(Debug, Clone, Default)]
struct Recorded {
    name: &'static str,
    target: String,
    fields: BTreeMap<String, String>,
    /// The name of its parent span, if any.
    parent: Option<&'static str>,
}

/// An event's message and the name of the span it was in.
type Event = (String, Option<&'static str>);

/// Every span, by id, and every event with the span it was in.
#[derive(Clone, Default)]
struct Recorder {
    spans: Arc<Mutex<BTreeMap<u64, Recorded>>>,
    events: Arc<Mutex<Vec<Event>>>,
}

struct Fields<'a>(&'a mut BTreeMap<String, String>);

impl Visit for Fields<'_> {
    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        self.0.insert(field.name().to_owned(), format!("{value:?}"));
    }

    fn record_str(&mut self, field: &Field, value: &str) {
        self.0.insert(field.name().to_owned(), value.to_owned());
    }
}

impl<S: tracing::Subscriber + for<'a> LookupSpan<'a>> Layer<S> for Recorder {
    fn on_new_span(&self, attributes: &Attributes<'_>, id: &Id, context: Context<'_, S>) {
        let mut recorded = Recorded {
            name: attributes.metadata().name(),
            target: attributes.metadata().target().to_owned(),
            ..Recorded::default()
        };
        attributes.record(&mut Fields(&mut recorded.fields));
        recorded.parent = context
            .span(id)
            .and_then(|span| span.parent())
            .map(|parent| parent.name());
        self.spans.lock().unwrap().insert(id.into_u64(), recorded);
    }

    fn on_record(&self, id: &Id, values: &Record<'_>, _: Context<'_, S>) {
        if let Some(span) = self.spans.lock().unwrap().get_mut(&id.into_u64()) {
            values.record(&mut Fields(&mut span.fields));
        }
    }

    fn on_event(&self, event: &tracing::Event<'_>, context: Context<'_, S>) {
        let mut fields = BTreeMap::new();
        event.record(&mut Fields(&mut fields));
        let span = context.event_span(event).map(|span| span.name());
        let message = fields.remove("message").unwrap_or_default();
        self.events.lock().unwrap().push((message, span));
    }
}

impl Recorder {
    fn spans(&self) -> Vec<Recorded> {
        self.spans.lock().unwrap().values().cloned().collect()
    }

    fn only(&self, name: &str) -> Recorded {
        let spans: Vec<_> = self
            .spans()
            .into_iter()
            .filter(|s| s.name == name)
            .collect();
        assert_eq!(spans.len(), 1, "one `{name}` span: {:#?}", self.spans());
        spans.into_iter().next().unwrap()
    }
}

fn server() -> ToolServer {
    ToolServer::new("shop", "1.0.0")
        .with_tool(
            ToolDefBuilder::new("search"),
            |mut call: ToolCall| async move {
                let query = call.take_argument("query").unwrap_or_default();
                tracing::info!("searching the catalogue");
                format!("found {}", query.as_str().unwrap_or_default())
            },
        )
        .unwrap()
        .with_tool(ToolDefBuilder::new("fail"), |_| async {
            Err::<String, _>(ToolError::new("disk on fire"))
        })
        .unwrap()
        .with_tool(ToolDefBuilder::new("boom"), |_| async {
            panic!("a handler bug");
            #[allow(unreachable_code)]
            ""
        })
        .unwrap()
        .with_tool(
            ToolDefBuilder::new("forever"),
            |call: ToolCall| async move {
                call.context().cancelled().await;
                ""
            },
        )
        .unwrap()
}

/// Runs `messages` through one router with the recorder installed; the answers as text.
fn traced(messages: &[&str]) -> (Recorder, Vec<Option<String>>) {
    let recorder = Recorder::default();
    let subscriber = tracing_subscriber::registry().with(recorder.clone());
    let answers = tracing::subscriber::with_default(subscriber, || {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .build()
            .unwrap();
        runtime.block_on(async {
            let router = McpRouter::new(server());
            let mut answers = Vec::new();
            for message in messages {
                let answer = router.handle(Message::decode(message.as_bytes())).await;
                answers.push(answer.map(|a| a.to_json()));
            }
            answers
        })
    });
    (recorder, answers)
}

const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;

#[test]
fn a_tool_call_is_one_span_with_the_mcp_and_gen_ai_attributes() {
    let call = r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"search","arguments":{"query":"secret-sku-4711"},"_meta":{"claudecode/toolUseId":"toolu_01"}}}"#;
    let (recorder, answers) = traced(&[INITIALIZE, call]);
    assert!(
        answers[1]
            .as_deref()
            .unwrap()
            .contains("found secret-sku-4711")
    );
    let span = recorder.only("tools/call");
    assert_eq!(span.target, "claude_tools::mcp");
    let expected = [
        ("otel.name", "tools/call search"),
        ("otel.kind", "server"),
        ("mcp.method.name", "tools/call"),
        ("gen_ai.operation.name", "execute_tool"),
        ("gen_ai.tool.name", "search"),
        ("gen_ai.tool.call.id", "toolu_01"),
        ("jsonrpc.request.id", "7"),
        ("mcp.protocol.version", "2025-11-25"),
    ];
    for (key, value) in expected {
        assert_eq!(
            span.fields.get(key).map(String::as_str),
            Some(value),
            "{key}: {span:#?}"
        );
    }
    assert!(!span.fields.contains_key("error.type"), "{span:#?}");
    // Neither the arguments nor the result reach any span.
    for span in recorder.spans() {
        for value in span.fields.values() {
            assert!(!value.contains("secret-sku-4711"), "{span:#?}");
        }
    }
}

#[test]
fn the_handler_runs_inside_its_calls_span() {
    let call = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search","arguments":{"query":"x"}}}"#;
    let (recorder, _) = traced(&[call]);
    let events = recorder.events.lock().unwrap().clone();
    assert!(
        events.contains(&("searching the catalogue".to_owned(), Some("tools/call"))),
        "{events:?}"
    );
}

#[test]
fn a_failing_call_says_how_it_failed() {
    let cases = [
        ("fail", "tool_error"),
        ("boom", "panic"),
        ("missing", "-32602"),
    ];
    for (tool, error_type) in cases {
        let call = format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"{tool}"}}}}"#
        );
        let (recorder, _) = traced(&[&call]);
        let span = recorder.only("tools/call");
        assert_eq!(
            span.fields.get("error.type").map(String::as_str),
            Some(error_type),
            "{tool}: {span:#?}"
        );
        assert_eq!(
            span.fields.get("otel.status_code").map(String::as_str),
            Some("error")
        );
    }
}

#[test]
fn a_cancelled_call_is_error_type_32800() {
    let recorder = Recorder::default();
    let subscriber = tracing_subscriber::registry().with(recorder.clone());
    tracing::subscriber::with_default(subscriber, || {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .build()
            .unwrap();
        runtime.block_on(async {
            let router = McpRouter::new(server());
            let call =
                r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"forever"}}"#;
            let cancel =
                r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":3}}"#;
            let running = router.handle(Message::decode(call.as_bytes()));
            let cancelling = async {
                tokio::task::yield_now().await;
                router.handle(Message::decode(cancel.as_bytes())).await
            };
            let (answer, _) = tokio::join!(running, cancelling);
            assert!(answer.unwrap().to_json().contains("-32800"));
        });
    });
    let span = recorder.only("tools/call");
    assert_eq!(
        span.fields.get("error.type").map(String::as_str),
        Some("-32800"),
        "{span:#?}"
    );
}

#[test]
fn other_requests_get_a_span_named_by_their_method() {
    let ping = r#"{"jsonrpc":"2.0","id":"p","method":"ping"}"#;
    let unknown = r#"{"jsonrpc":"2.0","id":2,"method":"no/such"}"#;
    let (recorder, _) = traced(&[INITIALIZE, ping, unknown]);
    let spans = recorder.spans();
    let by_name = |name: &str| {
        spans
            .iter()
            .find(|span| span.fields.get("otel.name").map(String::as_str) == Some(name))
            .unwrap_or_else(|| panic!("a `{name}` span: {spans:#?}"))
            .clone()
    };
    let initialize = by_name("initialize");
    assert_eq!(initialize.name, "mcp.request");
    let ping = by_name("ping");
    assert_eq!(ping.fields["mcp.method.name"], "ping");
    assert_eq!(ping.fields["jsonrpc.request.id"], "\"p\"");
    assert_eq!(ping.fields["mcp.protocol.version"], "2025-11-25");
    assert!(!ping.fields.contains_key("error.type"));
    let unknown = by_name("no/such");
    assert_eq!(unknown.fields["error.type"], "-32601");
}

#[test]
fn a_malformed_traceparent_changes_nothing_and_the_span_keeps_its_local_parent() {
    let hostile = [
        r#""00-zz-zz-zz""#,
        r#""ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01""#,
        r#"42"#,
        r#"{"nested":true}"#,
        r#""00-4bf92f3577b34da6a3ce929d0e0e473é-00f067aa0ba902b7-01""#,
    ];
    for traceparent in hostile {
        let call = format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"search","arguments":{{"query":"q"}},"_meta":{{"traceparent":{traceparent},"tracestate":"{}"}}}}}}"#,
            "x".repeat(4096)
        );
        let recorder = Recorder::default();
        let subscriber = tracing_subscriber::registry().with(recorder.clone());
        let answer = tracing::subscriber::with_default(subscriber, || {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .build()
                .unwrap();
            runtime.block_on(async {
                let router = McpRouter::new(server());
                let outer = tracing::info_span!("host");
                tracing::Instrument::instrument(
                    router.handle(Message::decode(call.as_bytes())),
                    outer,
                )
                .await
            })
        });
        assert!(
            answer.unwrap().to_json().contains("found q"),
            "{traceparent}"
        );
        assert_eq!(
            recorder.only("tools/call").parent,
            Some("host"),
            "{traceparent}"
        );
    }
}
