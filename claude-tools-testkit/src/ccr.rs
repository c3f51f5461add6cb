//! A fake of the Remote Control session service ("CCR") that the bridge talks to: a real HTTP
//! server on 127.0.0.1 that records every request and speaks the protocol as the official
//! TypeScript client (`@anthropic-ai/claude-agent-sdk/bridge`) expects it:
//!
//! - `POST /v1/code/sessions` creates a session (`{"session": {"id": "cse_…"}}`);
//! - `POST /v1/code/sessions/{id}/bridge` mints a worker JWT and bumps the worker epoch;
//! - `POST …/worker/register` bumps the epoch too;
//! - `GET` / `PUT …/worker`, `POST …/worker/events`, `…/worker/events/delivery` and
//!   `…/worker/heartbeat` answer 200, or 409 when the body's `worker_epoch` is not the current
//!   one (a superseded worker);
//! - `GET …/worker/events/stream` is an SSE stream of `client_event` frames (`id:` is the
//!   sequence number), resumed after `from_sequence_num` (or `Last-Event-ID`); the worker
//!   endpoints refuse a JWT that was revoked with 401.
//!
//! A test pushes inbound events with [`CcrServer::push`] and scripts failures with
//! [`CcrServer::answer_next`] (a status and body for the next matching requests) and
//! [`CcrServer::hang_next`] (no answer at all).
//!
//! ```no_run
//! # async fn demo() {
//! use claude_tools_testkit::ccr::CcrServer;
//!
//! let ccr = CcrServer::start().await;
//! let seq = ccr.push(serde_json::json!({"type": "user", "uuid": "u1",
//!     "message": {"role": "user", "content": "hello"}, "parent_tool_use_id": null}));
//! assert_eq!(seq, 1);
//! println!("{} requests so far", ccr.requests().len());
//! # }
//! ```

use std::collections::BTreeSet;
use std::convert::Infallible;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::{Arc, Mutex, MutexGuard};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use axum::body::{Body, Bytes};
use axum::http::{Request, Response, StatusCode};
use serde_json::{Value, json};
use tokio::sync::{mpsc, oneshot};

/// One request as it came.
#[derive(Debug, Clone, PartialEq)]
pub struct RecordedRequest {
    /// `GET`, `POST`, `PUT`…
    pub method: String,
    /// The path, without the query.
    pub path: String,
    /// The query (without `?`), empty when none.
    pub query: String,
    /// The headers, names lower case, in the order sent.
    pub headers: Vec<(String, String)>,
    /// The body as JSON (`Null` when empty; a string when it is not JSON).
    pub body: Value,
}

impl RecordedRequest {
    /// The first value of a header (name in any case).
    pub fn header(&self, name: &str) -> Option<&str> {
        let name = name.to_ascii_lowercase();
        self.headers
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| v.as_str())
    }
}

/// A scripted answer to the next requests matching a method and a path suffix.
#[derive(Debug, Clone)]
struct Scripted {
    method: String,
    path_suffix: String,
    remaining: usize,
    answer: Option<(u16, Value)>,
}

#[derive(Default)]
struct State {
    requests: Vec<RecordedRequest>,
    sessions: u64,
    epoch: i64,
    /// JWTs minted and not revoked.
    tokens: BTreeSet<String>,
    revoked: BTreeSet<String>,
    /// Every client_event pushed: `(sequence_num, frame text)`.
    history: Vec<(u64, String)>,
    streams: Vec<mpsc::UnboundedSender<Bytes>>,
    scripted: Vec<Scripted>,
    heartbeat_interval_seconds: Option<f64>,
}

struct Shared {
    state: Mutex<State>,
    addr: SocketAddr,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, State> {
        self.state
            .lock()
            .unwrap_or_else(|poison| poison.into_inner())
    }
}

/// The fake service. Dropping it stops the server.
pub struct CcrServer {
    shared: Arc<Shared>,
    _shutdown: oneshot::Sender<()>,
}

impl std::fmt::Debug for CcrServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CcrServer")
            .field("addr", &self.shared.addr)
            .finish()
    }
}

impl CcrServer {
    /// Starts the server on an ephemeral port of 127.0.0.1. Panics when no port can be bound
    /// (a test fixture: see [`try_start`](Self::try_start)).
    pub async fn start() -> CcrServer {
        Self::try_start().await.expect("bind the fake CCR service")
    }

    /// Starts the server; fails when no port can be bound.
    pub async fn try_start() -> std::io::Result<CcrServer> {
        let listener = tokio::net::TcpListener::bind(("127.0.0.1", 0)).await?;
        let addr = listener.local_addr()?;
        let shared = Arc::new(Shared {
            state: Mutex::new(State {
                epoch: 0,
                ..State::default()
            }),
            addr,
        });
        let (shutdown, stopped) = oneshot::channel::<()>();
        let app_shared = shared.clone();
        let app = axum::Router::new().fallback(move |request: Request<Body>| {
            let shared = app_shared.clone();
            async move { handle(shared, request).await }
        });
        tokio::spawn(async move {
            let _ = axum::serve(listener, app)
                .with_graceful_shutdown(async move {
                    let _ = stopped.await;
                })
                .await;
        });
        Ok(CcrServer {
            shared,
            _shutdown: shutdown,
        })
    }

    /// `http://127.0.0.1:{port}`: both the API base and the worker endpoints' base.
    pub fn base_url(&self) -> String {
        format!("http://{}", self.shared.addr)
    }

    /// Every request so far, in order of arrival.
    pub fn requests(&self) -> Vec<RecordedRequest> {
        self.shared.lock().requests.clone()
    }

    /// The current worker epoch.
    pub fn epoch(&self) -> i64 {
        self.shared.lock().epoch
    }

    /// Every event payload posted to `…/worker/events` and accepted, in order.
    pub fn posted_events(&self) -> Vec<Value> {
        posted_events(&self.shared.lock().requests)
    }

    /// Pushes `payload` to the read streams as the next `client_event` (and keeps it for
    /// streams that resume later); answers its sequence number. Its event id is
    /// `evt_{sequence_num}`.
    pub fn push(&self, payload: Value) -> u64 {
        let mut state = self.shared.lock();
        let seq = state.history.len() as u64 + 1;
        let event = json!({
            "event_id": format!("evt_{seq}"),
            "sequence_num": seq,
            "event_type": payload.get("type").cloned().unwrap_or(Value::Null),
            "source": "client",
            "payload": payload,
        });
        let frame = format!("event: client_event\nid: {seq}\ndata: {event}\n\n");
        state.history.push((seq, frame.clone()));
        state
            .streams
            .retain(|stream| stream.send(Bytes::from(frame.clone())).is_ok());
        seq
    }

    /// Writes `text` as it is to every open read stream (a malformed frame, a comment…).
    pub fn push_raw(&self, text: &str) {
        let mut state = self.shared.lock();
        let bytes = Bytes::from(text.to_owned());
        state
            .streams
            .retain(|stream| stream.send(bytes.clone()).is_ok());
    }

    /// Ends every open read stream (the client should reopen it).
    pub fn end_streams(&self) {
        self.shared.lock().streams.clear();
    }

    /// Answers the next `count` requests whose method is `method` and whose path ends with
    /// `path_suffix` with `status` and `body` instead of the usual answer.
    pub fn answer_next(
        &self,
        method: &str,
        path_suffix: &str,
        count: usize,
        status: u16,
        body: Value,
    ) {
        self.shared.lock().scripted.push(Scripted {
            method: method.to_owned(),
            path_suffix: path_suffix.to_owned(),
            remaining: count,
            answer: Some((status, body)),
        });
    }

    /// Leaves the next `count` matching requests without any answer (the connection stays
    /// open until the client gives up).
    pub fn hang_next(&self, method: &str, path_suffix: &str, count: usize) {
        self.shared.lock().scripted.push(Scripted {
            method: method.to_owned(),
            path_suffix: path_suffix.to_owned(),
            remaining: count,
            answer: None,
        });
    }

    /// Revokes every JWT minted so far: the worker endpoints answer them with 401.
    pub fn revoke_tokens(&self) {
        let mut state = self.shared.lock();
        let tokens = std::mem::take(&mut state.tokens);
        state.revoked.extend(tokens);
    }

    /// Mints a worker JWT as `/bridge` does, bumping the epoch: `(jwt, epoch)`.
    pub fn mint(&self) -> (String, i64) {
        mint(&mut self.shared.lock())
    }

    /// Advises this heartbeat interval in every heartbeat answer.
    pub fn advise_heartbeat_interval(&self, seconds: f64) {
        self.shared.lock().heartbeat_interval_seconds = Some(seconds);
    }

    /// Waits until `predicate` holds for the requests so far, or `timeout` passes; answers
    /// whether it held.
    pub async fn wait_for(
        &self,
        timeout: Duration,
        predicate: impl Fn(&[RecordedRequest]) -> bool,
    ) -> bool {
        let deadline = Instant::now() + timeout;
        loop {
            // A copy: the predicate may call back into the server (`posted_events`).
            let requests = self.shared.lock().requests.clone();
            if predicate(&requests) {
                return true;
            }
            if Instant::now() >= deadline {
                return false;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    }
}

/// Every event payload posted to `…/worker/events` among `requests`, in order.
pub fn posted_events(requests: &[RecordedRequest]) -> Vec<Value> {
    requests
        .iter()
        .filter(|r| r.method == "POST" && r.path.ends_with("/worker/events"))
        .filter_map(|r| r.body.get("events").and_then(Value::as_array).cloned())
        .flatten()
        .filter_map(|event| event.get("payload").cloned())
        .collect()
}

fn mint(state: &mut State) -> (String, i64) {
    state.epoch += 1;
    let jwt = format!("jwt-{}", state.epoch);
    state.tokens.insert(jwt.clone());
    (jwt, state.epoch)
}

fn json_response(status: u16, body: &Value) -> Response<Body> {
    Response::builder()
        .status(StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR))
        .header("content-type", "application/json")
        .body(Body::from(body.to_string()))
        .unwrap_or_default()
}

/// The stream an SSE body is read from.
struct Frames(mpsc::UnboundedReceiver<Bytes>);

impl futures_core::Stream for Frames {
    type Item = Result<Bytes, Infallible>;
    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        self.0.poll_recv(cx).map(|frame| frame.map(Ok))
    }
}

async fn handle(shared: Arc<Shared>, request: Request<Body>) -> Response<Body> {
    let (parts, body) = request.into_parts();
    let bytes = axum::body::to_bytes(body, 64 * 1024 * 1024)
        .await
        .unwrap_or_default();
    let body = if bytes.is_empty() {
        Value::Null
    } else {
        serde_json::from_slice(&bytes)
            .unwrap_or_else(|_| Value::String(String::from_utf8_lossy(&bytes).into_owned()))
    };
    let recorded = RecordedRequest {
        method: parts.method.as_str().to_owned(),
        path: parts.uri.path().to_owned(),
        query: parts.uri.query().unwrap_or_default().to_owned(),
        headers: parts
            .headers
            .iter()
            .map(|(name, value)| {
                (
                    name.as_str().to_owned(),
                    String::from_utf8_lossy(value.as_bytes()).into_owned(),
                )
            })
            .collect(),
        body,
    };
    let scripted = {
        let mut state = shared.lock();
        state.requests.push(recorded.clone());
        let found = state.scripted.iter_mut().find(|s| {
            s.remaining > 0
                && s.method == recorded.method
                && recorded.path.ends_with(&s.path_suffix)
        });
        found.map(|s| {
            s.remaining -= 1;
            s.answer.clone()
        })
    };
    match scripted {
        Some(Some((status, body))) => return json_response(status, &body),
        Some(None) => std::future::pending::<()>().await,
        None => {}
    }
    route(&shared, &recorded)
}

fn route(shared: &Arc<Shared>, request: &RecordedRequest) -> Response<Body> {
    let path = request.path.as_str();
    let method = request.method.as_str();
    let mut state = shared.lock();
    if method == "POST" && path == "/v1/code/sessions" {
        state.sessions += 1;
        let id = format!("cse_fake{:04}", state.sessions);
        return json_response(200, &json!({"session": {"id": id}}));
    }
    let Some(rest) = path.strip_prefix("/v1/code/sessions/") else {
        return json_response(404, &json!({"error": {"type": "not_found_error"}}));
    };
    let (_session, tail) = rest.split_once('/').unwrap_or((rest, ""));
    if method == "POST" && tail == "bridge" {
        let (jwt, epoch) = mint(&mut state);
        let base = format!("http://{}", shared.addr);
        return json_response(
            200,
            &json!({"worker_jwt": jwt, "api_base_url": base, "expires_in": 3600, "worker_epoch": epoch}),
        );
    }
    // The worker endpoints: the JWT must be live.
    let token = request
        .header("authorization")
        .and_then(|h| h.strip_prefix("Bearer "))
        .unwrap_or_default()
        .to_owned();
    if state.revoked.contains(&token) {
        return json_response(401, &json!({"error": {"type": "authentication_error"}}));
    }
    if method == "POST" && tail == "worker/register" {
        state.epoch += 1;
        return json_response(200, &json!({"worker_epoch": state.epoch}));
    }
    let stale = request
        .body
        .get("worker_epoch")
        .and_then(Value::as_i64)
        .is_some_and(|epoch| epoch != state.epoch);
    match (method, tail) {
        ("GET", "worker") => json_response(200, &json!({"worker": {}})),
        ("PUT", "worker") | ("POST", "worker/events") | ("POST", "worker/events/delivery")
            if stale =>
        {
            json_response(409, &json!({"error": {"type": "epoch_mismatch"}}))
        }
        ("POST", "worker/heartbeat") if stale => {
            json_response(409, &json!({"error": {"type": "epoch_mismatch"}}))
        }
        ("PUT", "worker") | ("POST", "worker/events") | ("POST", "worker/events/delivery") => {
            json_response(200, &json!({}))
        }
        ("POST", "worker/heartbeat") => {
            let answer = match state.heartbeat_interval_seconds {
                Some(seconds) => json!({"heartbeat_interval_seconds": seconds}),
                None => json!({}),
            };
            json_response(200, &answer)
        }
        ("GET", "worker/events/stream") => {
            let from = request
                .query
                .split('&')
                .find_map(|pair| pair.strip_prefix("from_sequence_num="))
                .or_else(|| request.header("last-event-id"))
                .and_then(|n| n.parse::<u64>().ok())
                .unwrap_or(0);
            let (sender, receiver) = mpsc::unbounded_channel();
            for (seq, frame) in &state.history {
                if *seq > from {
                    let _ = sender.send(Bytes::from(frame.clone()));
                }
            }
            state.streams.push(sender);
            Response::builder()
                .status(StatusCode::OK)
                .header("content-type", "text/event-stream")
                .header("cache-control", "no-cache")
                .body(Body::from_stream(Frames(receiver)))
                .unwrap_or_default()
        }
        _ => json_response(404, &json!({"error": {"type": "not_found_error"}})),
    }
}
