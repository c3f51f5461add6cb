//! Server-Sent Events: the framing of one event, the head of an SSE response, and [`SseBody`],
//! the streamed answer of a `tools/call` with progress (one event per progress notification,
//! then the reply), which ends early on the request timeout or the shutdown ([`Limits`]).

use std::convert::Infallible;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::http::{HeaderValue, header};
use axum::response::Response;
use http_body::Frame;
use std::sync::Arc;

use super::outbox::Outbox;
use super::reply::{RpcResponse, record_outcome, reply_bytes, shut_down, timed_out};
use claude_tools_core::mcp::{RequestId, ResultMeta};

pub(super) fn sse_response(body: Body) -> Response {
    let mut response = Response::new(body);
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/event-stream"),
    );
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    // nginx and similar proxies buffer responses by default; an event must go out as it comes.
    headers.insert("x-accel-buffering", HeaderValue::from_static("no"));
    response
}

/// One SSE `message` event carrying `json` (compact JSON has no newline).
pub(super) fn sse_event(json: &[u8]) -> Bytes {
    let mut event = Vec::with_capacity(json.len() + 24);
    event.extend_from_slice(b"event: message\ndata: ");
    event.extend_from_slice(json);
    event.extend_from_slice(b"\n\n");
    Bytes::from(event)
}

// ---------------------------------------------------------------------------------------------
// The SSE answer of a `tools/call` with progress.

pub(super) enum CallState {
    Running(Pin<Box<dyn Future<Output = RpcResponse> + Send>>),
    Done(RpcResponse),
    Sent,
}

/// The response body of a `tools/call` streamed as SSE: it drives the call itself, so the call
/// runs exactly as long as the client reads (the body dropped on a disconnect drops the call,
/// which cancels it). Each progress notification is an event; the reply is the last one.
pub(super) struct SseBody {
    pub(super) queued: Arc<Outbox>,
    pub(super) state: CallState,
    pub(super) limits: Limits,
}

/// What may end an SSE call before its handler does.
pub(super) struct Limits {
    pub(super) deadline: Pin<Box<tokio::time::Sleep>>,
    pub(super) shutdown: Pin<Box<tokio_util::sync::WaitForCancellationFutureOwned>>,
    pub(super) id: RequestId,
    pub(super) tool: String,
    pub(super) timeout: Duration,
    pub(super) span: tracing::Span,
    /// For an MCP 2026-07-28 call: what the server's own replies (timeout, shutdown) carry
    /// beside the result, as the router's do.
    pub(super) result_meta: Option<ResultMeta>,
}

impl Limits {
    /// The limits of the call `id` of `tool` (empty for a request that is not a tool call),
    /// from the server's own: its deadline and its shutdown.
    pub(super) fn of(
        shared: &super::Shared,
        deadline: tokio::time::Instant,
        id: RequestId,
        tool: String,
        span: &tracing::Span,
    ) -> Self {
        Self {
            deadline: Box::pin(tokio::time::sleep_until(deadline)),
            shutdown: Box::pin(shared.shutdown.clone().cancelled_owned()),
            id,
            tool,
            timeout: shared.request_timeout,
            span: span.clone(),
            result_meta: None,
        }
    }

    /// The same, for a 2026-07-28 call whose own replies carry `meta`.
    pub(super) fn with_result_meta(mut self, meta: ResultMeta) -> Self {
        self.result_meta = Some(meta);
        self
    }

    /// `reply` with the call's 2026-07-28 fields, if it has them.
    fn modern(&self, reply: RpcResponse) -> RpcResponse {
        match &self.result_meta {
            Some(meta) => reply.with_result_meta(meta.clone()),
            None => reply,
        }
    }

    /// The call's reply once it has one: its own, or the timeout's or the shutdown's.
    fn poll_reply(
        &mut self,
        call: &mut Pin<Box<dyn Future<Output = RpcResponse> + Send>>,
        cx: &mut Context<'_>,
    ) -> Poll<RpcResponse> {
        if let Poll::Ready(reply) = call.as_mut().poll(cx) {
            record_outcome(&self.span, &reply);
            return Poll::Ready(reply);
        }
        if self.deadline.as_mut().poll(cx).is_ready() {
            self.span.record("outcome", "timeout");
            return Poll::Ready(self.modern(timed_out(self.id.clone(), &self.tool, self.timeout)));
        }
        if self.shutdown.as_mut().poll(cx).is_ready() {
            self.span.record("outcome", "shutdown");
            return Poll::Ready(self.modern(shut_down(self.id.clone(), &self.tool)));
        }
        Poll::Pending
    }
}

impl http_body::Body for SseBody {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        let this = self.get_mut();
        loop {
            // Nothing after the reply, not even progress a cancelled handler reports in its
            // grace.
            if matches!(this.state, CallState::Sent) {
                return Poll::Ready(None);
            }
            // Progress first: what the call reported before its reply goes out before it.
            if let Poll::Ready(notification) = this.queued.poll_next(cx) {
                let json = serde_json::to_vec(&notification).unwrap_or_default();
                return Poll::Ready(Some(Ok(Frame::data(sse_event(&json)))));
            }
            let reply = match &mut this.state {
                CallState::Sent => return Poll::Ready(None),
                CallState::Done(_) => match std::mem::replace(&mut this.state, CallState::Sent) {
                    CallState::Done(reply) => reply,
                    _ => return Poll::Ready(None),
                },
                CallState::Running(call) => match this.limits.poll_reply(call, cx) {
                    // The call is dropped here (cancelled if it still ran); the progress it
                    // reported first is drained by the next turn of the loop.
                    Poll::Ready(reply) => {
                        this.state = CallState::Done(reply);
                        continue;
                    }
                    Poll::Pending => return Poll::Pending,
                },
            };
            let json = reply_bytes(&reply);
            return Poll::Ready(Some(Ok(Frame::data(sse_event(&json)))));
        }
    }
}

impl Drop for SseBody {
    fn drop(&mut self) {
        if matches!(self.state, CallState::Running(_)) {
            self.limits.span.record("outcome", "disconnected");
            tracing::debug!(
                parent: &self.limits.span,
                "MCP HTTP: the client disconnected; its call is cancelled"
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use claude_tools_core::mcp::ServerNotification;
    use tokio_util::sync::CancellationToken;

    #[tokio::test]
    async fn an_sse_body_sends_queued_progress_then_the_reply_then_nothing() {
        use http_body::Body as _;

        let (queued, progress) = Outbox::new();
        let mut body = SseBody {
            queued,
            state: CallState::Done(RpcResponse::success(
                RequestId::from(1),
                claude_tools_core::mcp::Answer::Empty,
            )),
            limits: Limits {
                deadline: Box::pin(tokio::time::sleep(Duration::from_secs(60))),
                shutdown: Box::pin(CancellationToken::new().cancelled_owned()),
                id: RequestId::from(1),
                tool: "t".into(),
                timeout: Duration::from_secs(60),
                span: tracing::Span::none(),
                result_meta: None,
            },
        };
        let mut next = || {
            let mut cx = Context::from_waker(std::task::Waker::noop());
            match Pin::new(&mut body).poll_frame(&mut cx) {
                Poll::Ready(Some(Ok(frame))) => Some(frame.into_data().unwrap_or_default()),
                Poll::Ready(None) => None,
                Poll::Ready(Some(Err(never))) => match never {},
                Poll::Pending => panic!("pending"),
            }
        };
        progress(ServerNotification::ToolsListChanged);
        assert_eq!(
            next().unwrap(),
            "event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/tools/list_changed\"}\n\n"
        );
        assert_eq!(
            next().unwrap(),
            "event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n\n"
        );
        // A cancelled handler reporting in its grace: too late, the stream has ended.
        progress(ServerNotification::ToolsListChanged);
        assert_eq!(next(), None);
    }
}
