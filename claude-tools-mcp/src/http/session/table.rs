//! The opt-in stateful sessions of the HTTP transport ([`HttpServer::sessions`](crate::http::HttpServer::sessions)):
//! a replica-local table of sessions, each with the connection state its requests share and
//! its server→client SSE stream.

use std::collections::HashMap;
use std::pin::Pin;
use std::sync::{Arc, Mutex, MutexGuard};
use std::task::{Context, Poll};
use std::time::Duration;

use axum::body::Bytes;
use claude_tools_core::mcp::ServerNotification;
use http_body::Frame;
use tokio::sync::mpsc;
use tokio::time::Instant;

use crate::http::sse::sse_event;
use claude_tools_core::mcp::McpRouter;

/// How long a session may go without a request before it is dropped, unless
/// [`HttpServer::session_idle_timeout`](crate::http::HttpServer::session_idle_timeout) says otherwise:
/// 30 minutes.
pub const DEFAULT_SESSION_IDLE_TIMEOUT: Duration = Duration::from_secs(30 * 60);

/// How many sessions a server holds at most unless
/// [`HttpServer::max_sessions`](crate::http::HttpServer::max_sessions) says otherwise: 10 000.
pub const DEFAULT_MAX_SESSIONS: usize = 10_000;

/// The rules of sessions mode ([`HttpServer::sessions`](crate::http::HttpServer::sessions)).
#[derive(Debug, Clone, Copy)]
pub(in crate::http) struct SessionLimits {
    pub(in crate::http) idle_timeout: Duration,
    pub(in crate::http) max: usize,
}

impl Default for SessionLimits {
    fn default() -> Self {
        Self {
            idle_timeout: DEFAULT_SESSION_IDLE_TIMEOUT,
            max: DEFAULT_MAX_SESSIONS,
        }
    }
}

/// Stateless or stateful: chosen once, when the server is served, instead of asked again by
/// each method (the requests' side of it is in [`super`]).
pub(in crate::http) enum Sessions {
    /// No session: each request runs on a fresh connection state; `GET` and `DELETE` are
    /// answered `405`.
    Stateless,
    /// `initialize` opens a session in `table`, every other request names a live one.
    Stateful {
        table: Arc<SessionTable>,
        limits: SessionLimits,
    },
}

/// The sessions of one server, by id; empty (and never locked by a request) in stateless mode.
#[derive(Default)]
pub(in crate::http) struct SessionTable {
    sessions: Mutex<HashMap<String, Arc<Session>>>,
}

/// Why a session could not be made.
pub(in crate::http) enum NewSessionError {
    /// The table holds its maximum of live sessions.
    Full,
    /// The operating system's random source failed.
    NoRandomness(String),
}

impl SessionTable {
    fn sessions(&self) -> MutexGuard<'_, HashMap<String, Arc<Session>>> {
        // Only inserts, removes and reads happen under this lock: a poisoned one is still good.
        self.sessions
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// A new session on a fresh connection of `router`, unless `max` live sessions exist (idle
    /// ones are dropped first).
    pub(in crate::http) fn create(
        &self,
        router: &McpRouter,
        max: usize,
        idle_timeout: Duration,
    ) -> Result<Arc<Session>, NewSessionError> {
        let id = new_session_id().map_err(NewSessionError::NoRandomness)?;
        let now = Instant::now();
        let mut sessions = self.sessions();
        if sessions.len() >= max {
            // Make room by forgetting the sessions idle past their limit.
            sessions.retain(|_, session| {
                let keep = !session.expired(now, idle_timeout);
                if !keep {
                    session.end();
                }
                keep
            });
            if sessions.len() >= max {
                return Err(NewSessionError::Full);
            }
        }
        let session = Arc::new(Session {
            id: id.clone(),
            router: router.new_connection(),
            state: Mutex::new(SessionState {
                last_used: now,
                busy: 0,
                stream: None,
            }),
        });
        sessions.insert(id, session.clone());
        Ok(session)
    }

    /// The live session `id`, in use until the returned guard is dropped; `None` for an unknown,
    /// ended or expired one (an expired one is dropped now).
    pub(in crate::http) fn open(&self, id: &str, idle_timeout: Duration) -> Option<SessionUse> {
        let mut sessions = self.sessions();
        let session = sessions.get(id)?;
        if session.expired(Instant::now(), idle_timeout) {
            if let Some(session) = sessions.remove(id) {
                session.end();
            }
            return None;
        }
        Some(SessionUse::new(session.clone()))
    }

    /// Ends session `id` (its running calls are cancelled, its stream ends); whether it existed.
    pub(in crate::http) fn remove(&self, id: &str) -> bool {
        let removed = self.sessions().remove(id);
        match removed {
            Some(session) => {
                session.end();
                true
            }
            None => false,
        }
    }

    /// Sends `message` on every session's server→client stream that is open.
    pub(in crate::http) fn broadcast(&self, message: &ServerNotification) {
        for session in self.sessions().values() {
            session.send(message.clone());
        }
    }

    /// Ends every session's server→client stream (at shutdown: an open stream would hold its
    /// connection open for the whole grace).
    pub(in crate::http) fn close_streams(&self) {
        for session in self.sessions().values() {
            session.state().stream = None;
        }
    }

    /// How many sessions the table holds.
    #[cfg(test)]
    pub(in crate::http) fn len(&self) -> usize {
        self.sessions().len()
    }
}

/// One session: the connection state its requests share (running calls by id, for
/// `notifications/cancelled`), and its server→client stream.
pub(in crate::http) struct Session {
    id: String,
    router: McpRouter,
    state: Mutex<SessionState>,
}

struct SessionState {
    /// When the last request of the session ended (or the session began).
    last_used: Instant,
    /// Requests of the session in progress, its open stream included: a busy session never
    /// expires.
    busy: usize,
    /// The open server→client stream, if any.
    stream: Option<mpsc::UnboundedSender<ServerNotification>>,
}

impl Session {
    fn state(&self) -> MutexGuard<'_, SessionState> {
        self.state
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// The session's id, as sent in `Mcp-Session-Id`.
    pub(in crate::http) fn id(&self) -> &str {
        &self.id
    }

    /// The router of the session's connection: clones share its running calls.
    pub(in crate::http) fn router(&self) -> &McpRouter {
        &self.router
    }

    fn expired(&self, now: Instant, idle_timeout: Duration) -> bool {
        let state = self.state();
        state.busy == 0 && now.saturating_duration_since(state.last_used) > idle_timeout
    }

    /// Cancels the session's running calls and ends its stream.
    fn end(&self) {
        self.router.cancel_all();
        self.state().stream = None;
    }

    fn send(&self, message: ServerNotification) {
        if let Some(stream) = &self.state().stream {
            let _ = stream.send(message);
        }
    }
}

/// A request of a session in progress: the session cannot expire meanwhile, and its idle time
/// starts again when this is dropped.
pub(in crate::http) struct SessionUse {
    session: Arc<Session>,
}

impl SessionUse {
    fn new(session: Arc<Session>) -> Self {
        session.state().busy += 1;
        Self { session }
    }

    /// For a session just made by [`SessionTable::create`].
    pub(in crate::http) fn of_new(session: Arc<Session>) -> Self {
        Self::new(session)
    }

    pub(in crate::http) fn session(&self) -> &Session {
        &self.session
    }

    /// Opens the session's server→client stream, unless one is open already.
    pub(in crate::http) fn open_stream(self) -> Option<SessionStream> {
        let (sender, queued) = mpsc::unbounded_channel();
        {
            let mut state = self.session.state();
            if state.stream.as_ref().is_some_and(|open| !open.is_closed()) {
                return None;
            }
            state.stream = Some(sender);
        }
        Some(SessionStream { queued, _use: self })
    }
}

impl Drop for SessionUse {
    fn drop(&mut self) {
        let mut state = self.session.state();
        state.busy -= 1;
        state.last_used = Instant::now();
    }
}

/// The body of a session's `GET` stream: one SSE event per server→client message, until the
/// session ends (or the server shuts down). Dropped when the client goes away.
pub(in crate::http) struct SessionStream {
    queued: mpsc::UnboundedReceiver<ServerNotification>,
    _use: SessionUse,
}

impl http_body::Body for SessionStream {
    type Data = Bytes;
    type Error = std::convert::Infallible;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Self::Error>>> {
        match self.get_mut().queued.poll_recv(cx) {
            Poll::Ready(Some(message)) => {
                let json = serde_json::to_vec(&message).unwrap_or_default();
                Poll::Ready(Some(Ok(Frame::data(sse_event(&json)))))
            }
            Poll::Ready(None) => Poll::Ready(None),
            Poll::Pending => Poll::Pending,
        }
    }
}

/// 128 bits from the operating system's CSPRNG, as 32 lowercase hex digits (visible ASCII, as
/// the transport requires of a session id).
fn new_session_id() -> Result<String, String> {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes).map_err(|error| error.to_string())?;
    Ok(bytes.iter().map(|byte| format!("{byte:02x}")).collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use claude_tools_core::tool::ToolServer;

    #[test]
    fn session_ids_are_32_hex_digits_and_differ() {
        let a = new_session_id().unwrap();
        let b = new_session_id().unwrap();
        assert_eq!(a.len(), 32);
        assert!(a.bytes().all(|b| b.is_ascii_hexdigit()));
        assert_ne!(a, b);
    }

    #[tokio::test]
    async fn a_full_table_makes_room_by_dropping_idle_sessions_only() {
        let router = McpRouter::new(ToolServer::new("s", "1"));
        let table = SessionTable::default();
        let idle = Duration::from_millis(20);
        let busy = SessionUse::of_new(table.create(&router, 2, idle).ok().unwrap());
        let _idle = table.create(&router, 2, idle).ok().unwrap();
        assert!(matches!(
            table.create(&router, 2, idle),
            Err(NewSessionError::Full)
        ));
        tokio::time::sleep(Duration::from_millis(40)).await;
        // The idle one goes; the busy one stays.
        assert!(table.create(&router, 2, idle).is_ok());
        assert_eq!(table.len(), 2);
        assert!(table.open(busy.session().id(), idle).is_some());
    }
}
