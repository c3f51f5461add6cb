//! MCP 2026-07-28's listen streams over Streamable HTTP: a `subscriptions/listen` `POST` is
//! answered with an SSE stream that stays open: the acknowledgement first, then the
//! notifications it asked for, a keep-alive comment every [`HttpServer::listen_keep_alive`]
//! (default [`DEFAULT_LISTEN_KEEP_ALIVE`]), and at a graceful shutdown the listen request's
//! result (`resultType: "complete"`), after which the stream ends. The client ends it by
//! closing the response.
//!
//! | limit (default) | when it bites |
//! |---|---|
//! | [`HttpServer::max_listen_streams`] ([`DEFAULT_MAX_LISTEN_STREAMS`], 1024) | `503 Service Unavailable`, `Retry-After: 5`, a JSON-RPC error with the request's id |
//! | [`HttpServer::max_listen_streams_per_client`] ([`DEFAULT_MAX_LISTEN_STREAMS_PER_CLIENT`], 16; a client is the auth hook's principal, else the peer's address) | `429 Too Many Requests`, `Retry-After: 5`, likewise |
//!
//! [`HttpServer::listen_keep_alive`]: super::HttpServer::listen_keep_alive
//! [`HttpServer::max_listen_streams`]: super::HttpServer::max_listen_streams
//! [`HttpServer::max_listen_streams_per_client`]: super::HttpServer::max_listen_streams_per_client

use std::collections::HashMap;
use std::convert::Infallible;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex, MutexGuard};
use std::task::{Context, Poll};
use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::Response;
use http_body::Frame;

use super::reply::{RpcResponse, json_response, reply_bytes};
use super::session::table::Client;
use super::sse::{sse_event, sse_response};
use claude_tools_core::mcp::{ErrorCode, ErrorObject, ListenStream, RequestId, ServerNotification};

/// The default of [`HttpServer::max_listen_streams`](super::HttpServer::max_listen_streams).
pub const DEFAULT_MAX_LISTEN_STREAMS: usize = 1024;

/// The default of
/// [`HttpServer::max_listen_streams_per_client`](super::HttpServer::max_listen_streams_per_client).
pub const DEFAULT_MAX_LISTEN_STREAMS_PER_CLIENT: usize = 16;

/// The default of [`HttpServer::listen_keep_alive`](super::HttpServer::listen_keep_alive).
pub const DEFAULT_LISTEN_KEEP_ALIVE: Duration = Duration::from_secs(15);

/// The bounds on listen streams, and who holds how many.
pub(super) struct ListenLimits {
    pub(super) max: usize,
    pub(super) per_client: usize,
    pub(super) keep_alive: Duration,
    /// Fires when a graceful shutdown starts: every stream sends its end and closes.
    pub(super) closing: tokio_util::sync::CancellationToken,
    open: Mutex<Open>,
}

#[derive(Default)]
struct Open {
    total: usize,
    by_client: HashMap<Client, usize>,
}

impl Default for ListenLimits {
    fn default() -> Self {
        Self {
            max: DEFAULT_MAX_LISTEN_STREAMS,
            per_client: DEFAULT_MAX_LISTEN_STREAMS_PER_CLIENT,
            keep_alive: DEFAULT_LISTEN_KEEP_ALIVE,
            closing: tokio_util::sync::CancellationToken::new(),
            open: Mutex::default(),
        }
    }
}

impl ListenLimits {
    /// The same bounds, none held (for a server built anew from a configured one).
    pub(super) fn configured(max: usize, per_client: usize, keep_alive: Duration) -> Self {
        Self {
            max,
            per_client,
            keep_alive,
            closing: tokio_util::sync::CancellationToken::new(),
            open: Mutex::default(),
        }
    }

    fn lock(&self) -> MutexGuard<'_, Open> {
        self.open
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// A place for one more stream of `client`, or the refusal.
    pub(super) fn admit(
        self: &Arc<Self>,
        client: Client,
        id: &RequestId,
    ) -> Result<Held, Box<Response>> {
        let mut open = self.lock();
        if open.total >= self.max {
            tracing::warn!(
                max = self.max,
                "MCP HTTP: the server's listen streams are all taken"
            );
            return Err(Box::new(too_many(
                StatusCode::SERVICE_UNAVAILABLE,
                id,
                format!(
                    "this server holds at most {} listen streams; try again later",
                    self.max
                ),
            )));
        }
        let held = open.by_client.get(&client).copied().unwrap_or(0);
        if client != Client::Unknown && held >= self.per_client {
            tracing::info!(
                per_client = self.per_client,
                "MCP HTTP: a client's listen streams are all taken"
            );
            return Err(Box::new(too_many(
                StatusCode::TOO_MANY_REQUESTS,
                id,
                format!(
                    "a client holds at most {} listen streams; close one first",
                    self.per_client
                ),
            )));
        }
        open.total += 1;
        *open.by_client.entry(client.clone()).or_default() += 1;
        Ok(Held {
            limits: self.clone(),
            client,
        })
    }
}

/// One stream's place, given back when it is dropped.
pub(super) struct Held {
    limits: Arc<ListenLimits>,
    client: Client,
}

impl Drop for Held {
    fn drop(&mut self) {
        let mut open = self.limits.lock();
        open.total = open.total.saturating_sub(1);
        if let Some(count) = open.by_client.get_mut(&self.client) {
            *count -= 1;
            if *count == 0 {
                open.by_client.remove(&self.client);
            }
        }
    }
}

fn too_many(status: StatusCode, id: &RequestId, why: String) -> Response {
    let error = ErrorObject::new(ErrorCode(-32000), "Too many listen streams").with_data(why);
    let mut response = json_response(
        status,
        reply_bytes(&RpcResponse::error(Some(id.clone()), error)),
    );
    response
        .headers_mut()
        .insert(header::RETRY_AFTER, HeaderValue::from(5u32));
    response
}

/// Marks the response of a listen stream: it holds no place among the requests in flight.
#[derive(Clone, Copy)]
pub(super) struct Listening;

type Next = Pin<Box<dyn Future<Output = (ListenStream, ServerNotification)> + Send>>;

/// The SSE response of an open listen stream.
pub(super) fn stream_response(
    stream: ListenStream,
    held: Held,
    keep_alive: Duration,
    shutdown: tokio_util::sync::CancellationToken,
) -> Response {
    let acknowledgement = serde_json::to_vec(&stream.acknowledgement()).unwrap_or_default();
    let ended = serde_json::to_vec(&stream.ended()).unwrap_or_default();
    let start = tokio::time::Instant::now() + keep_alive;
    let body = ListenBody {
        first: Some(sse_event(&acknowledgement)),
        ended: Some(sse_event(&ended)),
        next: Some(next(stream)),
        keep_alive: tokio::time::interval_at(start, keep_alive),
        shutdown: Box::pin(shutdown.cancelled_owned()),
        _held: held,
    };
    sse_response(Body::new(body))
}

fn next(mut stream: ListenStream) -> Next {
    Box::pin(async move {
        let notification = stream.next().await;
        (stream, notification)
    })
}

/// The body of a listen stream: the acknowledgement, then notifications and keep-alives until
/// the client goes (the body dropped: the stream closes) or the server shuts down.
struct ListenBody {
    first: Option<Bytes>,
    /// The graceful end, sent once at shutdown.
    ended: Option<Bytes>,
    /// `None` once ended.
    next: Option<Next>,
    keep_alive: tokio::time::Interval,
    shutdown: Pin<Box<tokio_util::sync::WaitForCancellationFutureOwned>>,
    _held: Held,
}

impl http_body::Body for ListenBody {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        let this = self.get_mut();
        if let Some(first) = this.first.take() {
            return Poll::Ready(Some(Ok(Frame::data(first))));
        }
        let Some(next) = &mut this.next else {
            return Poll::Ready(None);
        };
        if this.shutdown.as_mut().poll(cx).is_ready() {
            // The stream closes (its listener with it) and its end goes out last.
            this.next = None;
            return Poll::Ready(this.ended.take().map(|ended| Ok(Frame::data(ended))));
        }
        if let Poll::Ready((stream, notification)) = next.as_mut().poll(cx) {
            let message = serde_json::to_vec(&stream.message(&notification)).unwrap_or_default();
            this.next = Some(self::next(stream));
            this.keep_alive.reset();
            return Poll::Ready(Some(Ok(Frame::data(sse_event(&message)))));
        }
        if this.keep_alive.poll_tick(cx).is_ready() {
            return Poll::Ready(Some(Ok(Frame::data(Bytes::from_static(
                b": keep-alive\n\n",
            )))));
        }
        Poll::Pending
    }
}
