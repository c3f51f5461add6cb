//! The opt-in stateful sessions of the HTTP transport ([`HttpServer::sessions`](crate::http::HttpServer::sessions)):
//! a replica-local table of sessions, each with the connection state its requests share, the
//! principal it belongs to and its server→client SSE stream; bounded per client and in all, an
//! idle session making room for a new one.

use std::collections::{HashMap, HashSet};
use std::net::IpAddr;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use claude_tools_core::mcp::ServerNotification;
use tokio::sync::mpsc;
use tokio::time::Instant;

use super::stream::SessionStream;
use claude_tools_core::mcp::McpRouter;

/// How long a session may go without a request before it is dropped, unless
/// [`HttpServer::session_idle_timeout`](crate::http::HttpServer::session_idle_timeout) says otherwise:
/// 30 minutes.
pub const DEFAULT_SESSION_IDLE_TIMEOUT: Duration = Duration::from_secs(30 * 60);

/// How many sessions a server holds at most unless
/// [`HttpServer::max_sessions`](crate::http::HttpServer::max_sessions) says otherwise: 10 000.
pub const DEFAULT_MAX_SESSIONS: usize = 10_000;

/// How many sessions one client (one principal, or one peer address) holds at most unless
/// [`HttpServer::max_sessions_per_client`](crate::http::HttpServer::max_sessions_per_client) says
/// otherwise: 100.
pub const DEFAULT_MAX_SESSIONS_PER_CLIENT: usize = 100;

/// How often an open session stream carries an SSE comment when it has nothing else to send,
/// unless [`HttpServer::session_keep_alive`](crate::http::HttpServer::session_keep_alive) says
/// otherwise: 15 s.
pub const DEFAULT_SESSION_KEEP_ALIVE: Duration = Duration::from_secs(15);

/// The rules of sessions mode ([`HttpServer::sessions`](crate::http::HttpServer::sessions)).
#[derive(Debug, Clone, Copy)]
pub(in crate::http) struct SessionLimits {
    pub(in crate::http) idle_timeout: Duration,
    pub(in crate::http) max: usize,
    pub(in crate::http) per_client: usize,
    /// `None`: no keep-alive comments.
    pub(in crate::http) keep_alive: Option<Duration>,
}

impl Default for SessionLimits {
    fn default() -> Self {
        Self {
            idle_timeout: DEFAULT_SESSION_IDLE_TIMEOUT,
            max: DEFAULT_MAX_SESSIONS,
            per_client: DEFAULT_MAX_SESSIONS_PER_CLIENT,
            keep_alive: Some(DEFAULT_SESSION_KEEP_ALIVE),
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

/// Who a session is counted against for the per-client bound.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(in crate::http) enum Client {
    /// The principal the auth hook named.
    Principal(Arc<str>),
    /// An anonymous caller, by its peer's address.
    Peer(IpAddr),
    /// An anonymous caller whose address is unknown (a router mounted without `ConnectInfo`):
    /// bounded by the table's maximum only.
    Unknown,
}

/// The sessions of one server, by id; empty (and never locked by a request) in stateless mode.
#[derive(Default)]
pub(in crate::http) struct SessionTable {
    inner: Mutex<Inner>,
}

#[derive(Default)]
struct Inner {
    sessions: HashMap<String, Arc<Session>>,
    /// The ids of each client's sessions (not of [`Client::Unknown`]).
    by_client: HashMap<Client, HashSet<String>>,
}

impl Inner {
    fn insert(&mut self, session: Arc<Session>) {
        if session.client != Client::Unknown {
            self.by_client
                .entry(session.client.clone())
                .or_default()
                .insert(session.id.clone());
        }
        self.sessions.insert(session.id.clone(), session);
    }

    fn remove(&mut self, id: &str) -> Option<Arc<Session>> {
        let session = self.sessions.remove(id)?;
        if let Some(ids) = self.by_client.get_mut(&session.client) {
            ids.remove(id);
            if ids.is_empty() {
                self.by_client.remove(&session.client);
            }
        }
        session.end();
        Some(session)
    }

    /// The idle session (no request running, no open stream) unused the longest, among `ids`.
    fn idlest<'a>(&self, ids: impl Iterator<Item = &'a String>) -> Option<String> {
        ids.filter_map(|id| {
            let state = self.sessions.get(id)?.state();
            (state.busy == 0).then(|| (state.last_used, id))
        })
        .min()
        .map(|(_, id)| id.clone())
    }

    fn client_count(&self, client: &Client) -> usize {
        self.by_client.get(client).map_or(0, HashSet::len)
    }
}

/// Why a session could not be made.
pub(in crate::http) enum NewSessionError {
    /// The table holds its maximum of sessions, every one of them busy.
    Full,
    /// The client holds its maximum of sessions, every one of them busy.
    ClientFull,
    /// The operating system's random source failed.
    NoRandomness(String),
}

impl SessionTable {
    fn inner(&self) -> MutexGuard<'_, Inner> {
        // Only inserts, removes and reads happen under this lock: a poisoned one is still good.
        self.inner
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// A new session of `principal` on a fresh connection of `router`, counted against
    /// `client`. At the client's bound its idlest idle session makes room; at the table's
    /// maximum the expired sessions go, then the idlest idle one. Refused only when every
    /// session in the way is busy. The new session is in use (by the `initialize` that made
    /// it) from the start, so that no other `initialize` can end it to make room meanwhile.
    pub(in crate::http) fn create(
        &self,
        router: &McpRouter,
        limits: &SessionLimits,
        principal: Option<Arc<str>>,
        client: Client,
    ) -> Result<SessionUse, NewSessionError> {
        let id = new_session_id().map_err(NewSessionError::NoRandomness)?;
        let now = Instant::now();
        let mut inner = self.inner();
        if client != Client::Unknown && inner.client_count(&client) >= limits.per_client {
            let idlest = inner
                .by_client
                .get(&client)
                .and_then(|ids| inner.idlest(ids.iter()));
            let Some(idlest) = idlest else {
                tracing::warn!(
                    ?client,
                    limit = limits.per_client,
                    "MCP HTTP: a client holds its maximum of sessions, all busy; initialize refused"
                );
                return Err(NewSessionError::ClientFull);
            };
            tracing::info!(
                ?client,
                limit = limits.per_client,
                "MCP HTTP: a client at its maximum of sessions; its idlest session is ended to make room"
            );
            inner.remove(&idlest);
        }
        if inner.sessions.len() >= limits.max {
            // Make room by forgetting the sessions idle past their limit, then the idlest.
            let expired: Vec<String> = inner
                .sessions
                .values()
                .filter(|session| session.expired(now, limits.idle_timeout))
                .map(|session| session.id.clone())
                .collect();
            for id in &expired {
                inner.remove(id);
            }
            if inner.sessions.len() >= limits.max {
                let Some(idlest) = inner.idlest(inner.sessions.keys()) else {
                    tracing::warn!(
                        limit = limits.max,
                        "MCP HTTP: the session table is full, every session busy; initialize refused"
                    );
                    return Err(NewSessionError::Full);
                };
                tracing::info!(
                    limit = limits.max,
                    "MCP HTTP: the session table is full; the idlest session is ended to make room"
                );
                inner.remove(&idlest);
            }
        }
        let session = Arc::new(Session {
            id,
            router: router.new_connection(),
            principal,
            client,
            keep_alive: limits.keep_alive,
            state: Mutex::new(SessionState {
                last_used: now,
                busy: 0,
                stream: None,
            }),
        });
        let used = SessionUse::new(session.clone());
        inner.insert(session);
        Ok(used)
    }

    /// The live session `id` of `principal`, in use until the returned guard is dropped; `None`
    /// for an unknown, ended or expired one (an expired one is dropped now), or one of another
    /// principal (which is not told apart from an unknown one).
    pub(in crate::http) fn open(
        &self,
        id: &str,
        idle_timeout: Duration,
        principal: Option<&str>,
    ) -> Option<SessionUse> {
        let mut inner = self.inner();
        let session = inner.sessions.get(id)?;
        if session.principal.as_deref() != principal {
            tracing::debug!("MCP HTTP: a request named a session of another principal");
            return None;
        }
        if session.expired(Instant::now(), idle_timeout) {
            inner.remove(id);
            return None;
        }
        Some(SessionUse::new(session.clone()))
    }

    /// Ends session `id` (its running calls are cancelled, its stream ends); whether it existed.
    pub(in crate::http) fn remove(&self, id: &str) -> bool {
        self.inner().remove(id).is_some()
    }

    /// Sends `message` on every session's server→client stream that is open, to the sessions
    /// that want it (a resource's update goes only to those that subscribed to it).
    pub(in crate::http) fn broadcast(&self, message: &ServerNotification) {
        for session in self.inner().sessions.values() {
            if session.router().wants(message) {
                session.send(message.clone());
            }
        }
    }

    /// Ends every session's server→client stream (at shutdown: an open stream would hold its
    /// connection open for the whole grace).
    pub(in crate::http) fn close_streams(&self) {
        for session in self.inner().sessions.values() {
            session.state().stream = None;
        }
    }

    /// How many sessions the table holds.
    #[cfg(test)]
    pub(in crate::http) fn len(&self) -> usize {
        self.inner().sessions.len()
    }
}

/// One session: the connection state its requests share (running calls by id, for
/// `notifications/cancelled`), who it belongs to, and its server→client stream.
pub(in crate::http) struct Session {
    id: String,
    router: McpRouter,
    /// The principal that opened it: only its requests may use it.
    principal: Option<Arc<str>>,
    /// Who it is counted against.
    client: Client,
    keep_alive: Option<Duration>,
    state: Mutex<SessionState>,
}

struct SessionState {
    /// When the last request of the session ended (or the session began).
    last_used: Instant,
    /// Requests of the session in progress, its open stream included: a busy session never
    /// expires and is never ended to make room.
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

/// A request of a session in progress: the session cannot expire (or be ended to make room)
/// meanwhile, and its idle time starts again when this is dropped.
pub(in crate::http) struct SessionUse {
    session: Arc<Session>,
}

impl SessionUse {
    fn new(session: Arc<Session>) -> Self {
        session.state().busy += 1;
        Self { session }
    }

    pub(in crate::http) fn session(&self) -> &Session {
        &self.session
    }

    /// Opens the session's server→client stream, unless one is open already.
    pub(in crate::http) fn open_stream(self) -> Option<SessionStream<SessionUse>> {
        let (sender, queued) = mpsc::unbounded_channel();
        {
            let mut state = self.session.state();
            if state.stream.as_ref().is_some_and(|open| !open.is_closed()) {
                return None;
            }
            state.stream = Some(sender);
        }
        let keep_alive = self.session.keep_alive;
        Some(SessionStream::new(queued, keep_alive, self))
    }
}

impl Drop for SessionUse {
    fn drop(&mut self) {
        let mut state = self.session.state();
        state.busy -= 1;
        state.last_used = Instant::now();
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

    fn limits(max: usize, per_client: usize) -> SessionLimits {
        SessionLimits {
            max,
            per_client,
            ..SessionLimits::default()
        }
    }

    /// The id of a session just made, left idle.
    fn idle(made: Result<SessionUse, NewSessionError>) -> String {
        let used = made.ok().expect("a session");
        used.session().id().to_string()
    }

    fn peer(last: u8) -> Client {
        Client::Peer(IpAddr::from([10, 0, 0, last]))
    }

    #[tokio::test]
    async fn a_full_table_ends_the_idlest_idle_session_and_refuses_only_when_all_are_busy() {
        let router = McpRouter::new(ToolServer::new("s", "1"));
        let table = SessionTable::default();
        let limits = limits(2, 10);
        let busy = table.create(&router, &limits, None, peer(1)).ok().unwrap();
        let older_id = idle(table.create(&router, &limits, None, peer(2)));
        // Used after `older` was made: less idle.
        tokio::time::sleep(Duration::from_millis(5)).await;
        // The idle one goes; the busy one stays.
        let _newer = table.create(&router, &limits, None, peer(3)).ok().unwrap();
        assert_eq!(table.len(), 2);
        assert!(table.open(&older_id, limits.idle_timeout, None).is_none());
        // Now both are busy: refused.
        assert!(matches!(
            table.create(&router, &limits, None, peer(4)),
            Err(NewSessionError::Full)
        ));
        assert!(
            table
                .open(busy.session().id(), limits.idle_timeout, None)
                .is_some()
        );
    }

    #[tokio::test]
    async fn a_client_at_its_bound_makes_room_from_its_own_sessions_only() {
        let router = McpRouter::new(ToolServer::new("s", "1"));
        let table = SessionTable::default();
        let limits = limits(10, 1);
        let other = idle(table.create(&router, &limits, None, peer(9)));
        let first = idle(table.create(&router, &limits, None, peer(1)));
        let _busy = table.create(&router, &limits, None, peer(1)).ok().unwrap();
        let open = |id: &str| table.open(id, limits.idle_timeout, None).is_some();
        assert!(!open(&first));
        assert!(open(&other));
        assert!(matches!(
            table.create(&router, &limits, None, peer(1)),
            Err(NewSessionError::ClientFull)
        ));
        // Unknown clients are bounded by the table's maximum only.
        for _ in 0..3 {
            assert!(
                table
                    .create(&router, &limits, None, Client::Unknown)
                    .is_ok()
            );
        }
    }

    #[test]
    fn a_session_opens_only_for_its_principal() {
        let router = McpRouter::new(ToolServer::new("s", "1"));
        let table = SessionTable::default();
        let limits = SessionLimits::default();
        let a: Arc<str> = "a".into();
        let id = idle(table.create(&router, &limits, Some(a.clone()), Client::Principal(a)));
        let open = |principal| table.open(&id, limits.idle_timeout, principal);
        assert!(open(Some("a")).is_some());
        assert!(open(Some("b")).is_none());
        assert!(open(None).is_none());
    }
}
