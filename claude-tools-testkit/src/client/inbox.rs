//! What the server sends the test client unasked: notifications (progress, log messages, list
//! changes), kept in order for the test to read, and the server's own requests (a running
//! tool's questions on a 2025-11-25 connection), queued for the client to answer.

use std::collections::VecDeque;
use std::sync::{Mutex, MutexGuard};

use claude_tools_core::ask::ServerRequest;
use claude_tools_core::jsonrpc::ServerNotification;
use tokio::sync::Notify;

/// The router's notifier writes here; the client reads.
#[derive(Default)]
pub(super) struct Inbox {
    state: Mutex<State>,
    /// Rings when a request is queued. `Notify` keeps one permit when nobody waits, so a request
    /// queued between two waits is not missed.
    requests_ready: Notify,
}

#[derive(Default)]
struct State {
    /// Every notification, in the order sent (requests are not notifications: not here).
    notifications: Vec<ServerNotification>,
    /// The server's requests not yet answered, oldest first.
    requests: VecDeque<ServerRequest>,
}

impl Inbox {
    fn lock(&self) -> MutexGuard<'_, State> {
        // Single pushes and drains under the lock: a poisoned one is still consistent.
        self.state
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Takes what the router's notifier hands over. Called on the reporting handler's thread:
    /// it only enqueues.
    pub(super) fn deliver(&self, notification: ServerNotification) {
        match notification {
            ServerNotification::Request(request) => {
                self.lock().requests.push_back(request);
                self.requests_ready.notify_one();
            }
            notification => self.lock().notifications.push(notification),
        }
    }

    /// How many notifications have arrived so far (a mark to read from later).
    pub(super) fn mark(&self) -> usize {
        self.lock().notifications.len()
    }

    /// The notifications that arrived since `mark`.
    pub(super) fn since(&self, mark: usize) -> Vec<ServerNotification> {
        self.lock()
            .notifications
            .get(mark..)
            .map(<[_]>::to_vec)
            .unwrap_or_default()
    }

    /// Waits until a request is queued, then takes every queued one.
    pub(super) async fn next_requests(&self) -> Vec<ServerRequest> {
        loop {
            let taken: Vec<ServerRequest> = self.lock().requests.drain(..).collect();
            if !taken.is_empty() {
                return taken;
            }
            self.requests_ready.notified().await;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use claude_tools_core::ask::ServerRequestParams;
    use claude_tools_core::jsonrpc::RequestId;

    #[tokio::test]
    async fn requests_are_queued_apart_from_notifications_and_none_is_missed() {
        let inbox = Inbox::default();
        inbox.deliver(ServerNotification::ToolsListChanged);
        let mark = inbox.mark();
        for id in [1, 2] {
            inbox.deliver(ServerNotification::Request(ServerRequest {
                id: RequestId::from(id),
                params: ServerRequestParams::ListRoots,
            }));
        }
        inbox.deliver(ServerNotification::PromptsListChanged);
        let taken = inbox.next_requests().await;
        assert_eq!(taken.len(), 2);
        assert_eq!(inbox.since(mark), [ServerNotification::PromptsListChanged]);
        assert_eq!(inbox.since(0).len(), 2);
        assert!(inbox.since(99).is_empty());
    }
}
