//! [`Outbox`]: what a running `tools/call` sends before its result (progress, log messages, in a
//! session its questions to the client), queued for the call's SSE stream.
//!
//! One allocation per call, and none more until something is queued: most calls send nothing,
//! and every SSE-accepting `tools/call` makes one of these before it knows (a channel and a
//! separate bell cost five allocations a call, issue 28).

use std::collections::VecDeque;
use std::future::poll_fn;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::task::{Context, Poll, Waker};

use claude_tools_core::mcp::{Notifier, ServerNotification};

/// The queue of one call's messages and the waker of the one task that reads it (the request's
/// handler until the answer turns into a stream, then the stream's body).
#[derive(Default)]
pub(super) struct Outbox {
    inner: Mutex<Inner>,
}

#[derive(Default)]
struct Inner {
    queued: VecDeque<ServerNotification>,
    reader: Option<Waker>,
}

impl Outbox {
    /// An empty outbox and the notifier that fills it (for [`McpRouter::with_notifier`]).
    ///
    /// [`McpRouter::with_notifier`]: claude_tools_core::mcp::McpRouter::with_notifier
    pub(super) fn new() -> (Arc<Self>, Notifier) {
        Self::keeping(|_| true)
    }

    /// [`Outbox::new`] whose notifier drops what `keep` refuses.
    pub(super) fn keeping(keep: fn(&ServerNotification) -> bool) -> (Arc<Self>, Notifier) {
        let outbox = Arc::new(Self::default());
        let sender = outbox.clone();
        let notifier: Notifier = Arc::new(move |message| {
            if keep(&message) {
                sender.push(message);
            }
        });
        (outbox, notifier)
    }

    /// A poisoned lock still holds a consistent queue (no code here panics while holding it).
    fn lock(&self) -> MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Queues `message` and wakes the reader.
    pub(super) fn push(&self, message: ServerNotification) {
        let reader = {
            let mut inner = self.lock();
            inner.queued.push_back(message);
            inner.reader.take()
        };
        if let Some(reader) = reader {
            reader.wake();
        }
    }

    /// Whether nothing is queued.
    pub(super) fn is_empty(&self) -> bool {
        self.lock().queued.is_empty()
    }

    /// The next queued message; pending (the reader woken on the next push) when none is.
    pub(super) fn poll_next(&self, cx: &mut Context<'_>) -> Poll<ServerNotification> {
        let mut inner = self.lock();
        match inner.queued.pop_front() {
            Some(message) => Poll::Ready(message),
            None => {
                match &mut inner.reader {
                    Some(reader) if reader.will_wake(cx.waker()) => {}
                    reader => *reader = Some(cx.waker().clone()),
                }
                Poll::Pending
            }
        }
    }

    /// Resolves once something is queued, leaving it queued.
    pub(super) async fn queued(&self) {
        poll_fn(|cx| {
            let mut inner = self.lock();
            if inner.queued.is_empty() {
                inner.reader = Some(cx.waker().clone());
                Poll::Pending
            } else {
                Poll::Ready(())
            }
        })
        .await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::task::Wake;

    struct Counting(AtomicUsize);

    impl Wake for Counting {
        fn wake(self: Arc<Self>) {
            self.0.fetch_add(1, Ordering::SeqCst);
        }
    }

    #[test]
    fn messages_come_out_in_order_and_a_waiting_reader_is_woken_once_per_push() {
        let (outbox, notifier) = Outbox::new();
        let woken = Arc::new(Counting(AtomicUsize::new(0)));
        let waker = Waker::from(woken.clone());
        let mut cx = Context::from_waker(&waker);
        assert!(outbox.poll_next(&mut cx).is_pending());
        assert!(outbox.is_empty());

        notifier(ServerNotification::ToolsListChanged);
        notifier(ServerNotification::PromptsListChanged);
        assert_eq!(
            woken.0.load(Ordering::SeqCst),
            1,
            "woken by the first push only"
        );
        assert!(!outbox.is_empty());
        assert!(matches!(
            outbox.poll_next(&mut cx),
            Poll::Ready(ServerNotification::ToolsListChanged)
        ));
        assert!(matches!(
            outbox.poll_next(&mut cx),
            Poll::Ready(ServerNotification::PromptsListChanged)
        ));
        assert!(outbox.poll_next(&mut cx).is_pending());
        notifier(ServerNotification::ToolsListChanged);
        assert_eq!(woken.0.load(Ordering::SeqCst), 2);
    }

    #[tokio::test]
    async fn queued_resolves_when_something_is_pushed_and_leaves_it_queued() {
        let (outbox, notifier) = Outbox::new();
        let waiting = tokio::spawn({
            let outbox = outbox.clone();
            async move { outbox.queued().await }
        });
        tokio::task::yield_now().await;
        assert!(!waiting.is_finished());
        notifier(ServerNotification::ToolsListChanged);
        waiting.await.expect("resolves");
        assert!(!outbox.is_empty(), "still queued for the stream");
    }
}
