//! [`MessageStream`]: the typed messages of a session, as a `Stream`.

use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use crate::error::Result;
use crate::message::Message;
use crate::session::{MessageReceiver, Shared};

/// The messages the CLI streams, in order, ending when the CLI exits. Errors (a line that is
/// not JSON, a CLI that exited mid-run) are items of the stream; the stream goes on after those
/// it can survive.
///
/// Use it as a `futures_core::Stream`, or call [`MessageStream::next`]. Dropping it stops the
/// session (the CLI is killed if it is still running).
///
/// Unread messages are held up to [`Options::message_queue_limit`](crate::options::Options::message_queue_limit);
/// at that bound the session stops reading the CLI (tool calls and hooks wait too) until the
/// stream is read again. Nothing is dropped.
pub struct MessageStream {
    receiver: MessageReceiver,
    session: Arc<Shared>,
}

impl MessageStream {
    pub(crate) fn new(receiver: MessageReceiver, session: Arc<Shared>) -> Self {
        Self { receiver, session }
    }

    /// The next message, or `None` once the CLI has exited and everything was read.
    pub async fn next(&mut self) -> Option<Result<Message>> {
        self.receiver.recv().await
    }

    /// Reads to the end and returns every message, failing on the first error.
    pub async fn collect(mut self) -> Result<Vec<Message>> {
        let mut messages = Vec::new();
        while let Some(message) = self.next().await {
            messages.push(message?);
        }
        Ok(messages)
    }
}

impl futures_core::Stream for MessageStream {
    type Item = Result<Message>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        self.receiver.poll_recv(cx)
    }
}

impl Drop for MessageStream {
    fn drop(&mut self) {
        self.session.shutdown();
    }
}

impl std::fmt::Debug for MessageStream {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MessageStream").finish_non_exhaustive()
    }
}
