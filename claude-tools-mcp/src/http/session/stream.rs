//! A session's server→client `GET` stream: one SSE event per message, and an SSE comment when
//! it has been quiet for the keep-alive period, so that the stream of a client that vanished
//! fails to write and ends (freeing its session) rather than holding its slot for ever.

use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use axum::body::Bytes;
use claude_tools_core::mcp::ServerNotification;
use http_body::Frame;
use tokio::sync::mpsc;
use tokio::time::{Interval, MissedTickBehavior};

use crate::http::sse::sse_event;

/// The SSE comment sent on a quiet stream: clients ignore it.
const KEEP_ALIVE_COMMENT: &[u8] = b": keep-alive\n\n";

/// The body of a session's `GET` stream: one SSE event per server→client message, until the
/// session ends (or the server shuts down). Dropped when the client goes away, which a write
/// (a message, or the keep-alive comment) finds out. It holds `Use` (the session in use) as
/// long as it lives.
pub(in crate::http) struct SessionStream<Use> {
    queued: mpsc::UnboundedReceiver<ServerNotification>,
    keep_alive: Option<Interval>,
    _use: Use,
}

impl<Use> SessionStream<Use> {
    pub(super) fn new(
        queued: mpsc::UnboundedReceiver<ServerNotification>,
        keep_alive: Option<Duration>,
        session: Use,
    ) -> Self {
        let keep_alive = keep_alive.filter(|period| !period.is_zero()).map(|period| {
            let mut interval =
                tokio::time::interval_at(tokio::time::Instant::now() + period, period);
            interval.set_missed_tick_behavior(MissedTickBehavior::Delay);
            interval
        });
        Self {
            queued,
            keep_alive,
            _use: session,
        }
    }
}

impl<Use: Unpin> http_body::Body for SessionStream<Use> {
    type Data = Bytes;
    type Error = std::convert::Infallible;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Self::Error>>> {
        let this = self.get_mut();
        match this.queued.poll_recv(cx) {
            Poll::Ready(Some(message)) => {
                // A message is as good as a comment: the quiet period starts again.
                if let Some(keep_alive) = &mut this.keep_alive {
                    keep_alive.reset();
                }
                let json = serde_json::to_vec(&message).unwrap_or_default();
                return Poll::Ready(Some(Ok(Frame::data(sse_event(&json)))));
            }
            Poll::Ready(None) => return Poll::Ready(None),
            Poll::Pending => {}
        }
        if let Some(keep_alive) = &mut this.keep_alive
            && keep_alive.poll_tick(cx).is_ready()
        {
            return Poll::Ready(Some(Ok(Frame::data(Bytes::from_static(
                KEEP_ALIVE_COMMENT,
            )))));
        }
        Poll::Pending
    }
}
