//! An OTLP/HTTP receiver on 127.0.0.1 for the tests: what an OpenTelemetry Collector's `otlp`
//! receiver does with `http/protobuf` trace exports, reduced to keeping the spans for the test
//! to read. Built on the OpenTelemetry project's own protobuf types (`opentelemetry-proto`),
//! so the bytes it accepts are the ones a collector accepts.
//!
//! - `POST /v1/traces` with `content-type: application/x-protobuf`: an
//!   `ExportTraceServiceRequest`, answered with an empty `ExportTraceServiceResponse`;
//! - `POST /v1/metrics` and `/v1/logs`: accepted and counted, not decoded;
//! - anything else (a JSON export, another path): `415` / `404`, recorded, so a test sees a
//!   sender speaking what this receiver does not.

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use axum::Router;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use opentelemetry_proto::tonic::collector::trace::v1::{
    ExportTraceServiceRequest, ExportTraceServiceResponse,
};
use opentelemetry_proto::tonic::common::v1::{AnyValue, any_value};
use prost::Message;
use tokio::net::TcpListener;

/// One span as the receiver got it, ids in lower-case hex.
#[derive(Clone, Debug)]
pub struct ReceivedSpan {
    /// The resource's `service.name` (`claude-code` for the CLI's spans).
    pub service: String,
    /// The instrumentation scope's name.
    pub scope: String,
    /// The span's name.
    pub name: String,
    /// 32 hex digits.
    pub trace_id: String,
    /// 16 hex digits.
    pub span_id: String,
    /// 16 hex digits, `None` for a root span.
    pub parent_span_id: Option<String>,
    /// The span's attributes, each value as text.
    pub attributes: BTreeMap<String, String>,
}

impl ReceivedSpan {
    /// The attribute `key`'s value as text.
    pub fn attribute(&self, key: &str) -> Option<&str> {
        self.attributes.get(key).map(String::as_str)
    }
}

#[derive(Default)]
struct Received {
    spans: Vec<ReceivedSpan>,
    /// `(path, content-type)` of every request, in order.
    requests: Vec<(String, String)>,
}

/// A receiver serving on 127.0.0.1 until dropped, on a thread and runtime of its own, so that
/// a test blocking its own runtime (a tracer provider's `force_flush`) cannot stall it.
pub struct OtlpReceiver {
    addr: SocketAddr,
    received: Arc<Mutex<Received>>,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl OtlpReceiver {
    /// Binds a free port on 127.0.0.1 and serves.
    pub fn start() -> std::io::Result<OtlpReceiver> {
        Self::start_at(SocketAddr::from(([127, 0, 0, 1], 0)))
    }

    /// Binds `addr` (a collector coming back where it was) and serves.
    pub fn start_at(addr: SocketAddr) -> std::io::Result<OtlpReceiver> {
        let listener = std::net::TcpListener::bind(addr)?;
        listener.set_nonblocking(true)?;
        let addr = listener.local_addr()?;
        let received = Arc::new(Mutex::new(Received::default()));
        let router = Router::new()
            .route("/v1/traces", post(traces))
            .route("/v1/metrics", post(accepted))
            .route("/v1/logs", post(accepted))
            .fallback(not_found)
            .with_state(received.clone());
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()?;
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let thread = std::thread::Builder::new()
            .name("otlp-receiver".to_owned())
            .spawn(move || {
                runtime.block_on(async move {
                    let Ok(listener) = TcpListener::from_std(listener) else {
                        return;
                    };
                    // Stopped at once, open connections and all, when the receiver is dropped.
                    tokio::select! {
                        _ = axum::serve(listener, router).into_future() => {}
                        _ = stopped => {}
                    }
                });
            })?;
        Ok(OtlpReceiver {
            addr,
            received,
            stop: Some(stop),
            thread: Some(thread),
        })
    }

    /// `http://127.0.0.1:<port>`: the `OTEL_EXPORTER_OTLP_ENDPOINT` of an exporter sending here
    /// (the signal's path is appended by the exporter).
    pub fn endpoint(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// Every span received so far.
    pub fn spans(&self) -> Vec<ReceivedSpan> {
        self.lock().spans.clone()
    }

    /// `(path, content-type)` of every request received so far.
    pub fn requests(&self) -> Vec<(String, String)> {
        self.lock().requests.clone()
    }

    /// Waits up to `within` until `done` holds for the spans received, then returns them.
    pub async fn wait_for(
        &self,
        within: Duration,
        done: impl Fn(&[ReceivedSpan]) -> bool,
    ) -> Vec<ReceivedSpan> {
        let deadline = tokio::time::Instant::now() + within;
        loop {
            let spans = self.spans();
            if done(&spans) || tokio::time::Instant::now() >= deadline {
                return spans;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    fn lock(&self) -> MutexGuard<'_, Received> {
        lock(&self.received)
    }
}

impl Drop for OtlpReceiver {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

fn lock(received: &Mutex<Received>) -> MutexGuard<'_, Received> {
    received
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

fn content_type(headers: &HeaderMap) -> String {
    headers
        .get(header::CONTENT_TYPE)
        .and_then(|value| value.to_str().ok())
        .unwrap_or_default()
        .to_owned()
}

async fn traces(
    State(received): State<Arc<Mutex<Received>>>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let content_type = content_type(&headers);
    lock(&received)
        .requests
        .push(("/v1/traces".to_owned(), content_type.clone()));
    if !content_type.starts_with("application/x-protobuf") {
        return (
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "this receiver takes http/protobuf",
        )
            .into_response();
    }
    let request = match ExportTraceServiceRequest::decode(body) {
        Ok(request) => request,
        Err(error) => return (StatusCode::BAD_REQUEST, error.to_string()).into_response(),
    };
    let spans = flatten(request);
    lock(&received).spans.extend(spans);
    (
        [(header::CONTENT_TYPE, "application/x-protobuf")],
        ExportTraceServiceResponse::default().encode_to_vec(),
    )
        .into_response()
}

async fn accepted(
    State(received): State<Arc<Mutex<Received>>>,
    uri: Uri,
    headers: HeaderMap,
) -> StatusCode {
    lock(&received)
        .requests
        .push((uri.path().to_owned(), content_type(&headers)));
    StatusCode::OK
}

async fn not_found(
    State(received): State<Arc<Mutex<Received>>>,
    uri: Uri,
    headers: HeaderMap,
) -> StatusCode {
    lock(&received)
        .requests
        .push((uri.path().to_owned(), content_type(&headers)));
    StatusCode::NOT_FOUND
}

fn flatten(request: ExportTraceServiceRequest) -> Vec<ReceivedSpan> {
    let mut spans = Vec::new();
    for resource_spans in request.resource_spans {
        let service = resource_spans
            .resource
            .iter()
            .flat_map(|resource| &resource.attributes)
            .find(|kv| kv.key == "service.name")
            .and_then(|kv| kv.value.as_ref())
            .map(text)
            .unwrap_or_default();
        for scope_spans in resource_spans.scope_spans {
            let scope = scope_spans
                .scope
                .map(|scope| scope.name)
                .unwrap_or_default();
            for span in scope_spans.spans {
                spans.push(ReceivedSpan {
                    service: service.clone(),
                    scope: scope.clone(),
                    name: span.name,
                    trace_id: hex(&span.trace_id),
                    span_id: hex(&span.span_id),
                    parent_span_id: (!span.parent_span_id.is_empty())
                        .then(|| hex(&span.parent_span_id)),
                    attributes: span
                        .attributes
                        .into_iter()
                        .map(|kv| {
                            let value = kv.value.as_ref().map(text).unwrap_or_default();
                            (kv.key, value)
                        })
                        .collect(),
                });
            }
        }
    }
    spans
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|byte| format!("{byte:02x}")).collect()
}

fn text(value: &AnyValue) -> String {
    match &value.value {
        Some(any_value::Value::StringValue(text)) => text.clone(),
        Some(any_value::Value::BoolValue(value)) => value.to_string(),
        Some(any_value::Value::IntValue(value)) => value.to_string(),
        Some(any_value::Value::DoubleValue(value)) => value.to_string(),
        Some(other) => format!("{other:?}"),
        None => String::new(),
    }
}
