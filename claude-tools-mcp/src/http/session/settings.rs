//! The [`HttpServer`] builder methods of sessions mode: on or off, and the bounds of the table
//! (see [Sessions](crate::http#sessions) in the module docs).

use std::time::Duration;

use super::table::SessionLimits;
use crate::http::HttpServer;

impl HttpServer {
    /// Turns stateful sessions on (`true`) or off (`false`, the default: stateless). See
    /// [Sessions](crate::http#sessions) in the module docs: `initialize` issues an `Mcp-Session-Id` that
    /// every later request must carry, `GET` opens the session's server→client stream (which
    /// carries `notifications/tools/list_changed`), `DELETE` ends the session, and
    /// `notifications/cancelled` cancels a call of the same session.
    ///
    /// Sessions live in this process's memory: behind a load balancer, every request of a
    /// session must reach the replica that made it (sticky sessions). Behind a plain load
    /// balancer, stay stateless.
    pub fn sessions(mut self, on: bool) -> Self {
        self.session_limits = on.then(|| self.session_limits.unwrap_or_default());
        self
    }

    /// How long a session may go without a request before it is dropped (default
    /// [`DEFAULT_SESSION_IDLE_TIMEOUT`](crate::http::DEFAULT_SESSION_IDLE_TIMEOUT), 30 minutes); a request still running, or an open
    /// `GET` stream, keeps it alive. Turns sessions on.
    pub fn session_idle_timeout(mut self, timeout: Duration) -> Self {
        self.session_limits
            .get_or_insert_with(SessionLimits::default)
            .idle_timeout = timeout;
        self
    }

    /// The most sessions held at once (default [`DEFAULT_MAX_SESSIONS`](crate::http::DEFAULT_MAX_SESSIONS)). An `initialize`
    /// beyond it ends the idlest session (no request running, no open stream, unused the
    /// longest) to make room; only when every session is busy is it answered `503 Service
    /// Unavailable` with `Retry-After`. Turns sessions on.
    pub fn max_sessions(mut self, max: usize) -> Self {
        self.session_limits
            .get_or_insert_with(SessionLimits::default)
            .max = max;
        self
    }

    /// The most sessions one client holds at once (default
    /// [`DEFAULT_MAX_SESSIONS_PER_CLIENT`](crate::http::DEFAULT_MAX_SESSIONS_PER_CLIENT)), so that one client cannot fill the table: a client
    /// is the [principal](crate::http::AuthDecision::principal) the auth hook names, else the peer's IP
    /// address. An `initialize` beyond it ends that client's idlest session; only when all of
    /// them are busy is it answered `429 Too Many Requests` with `Retry-After`. Turns sessions
    /// on.
    ///
    /// Behind a reverse proxy every anonymous client has the proxy's address: name principals
    /// in the auth hook, or raise this bound. A router mounted with
    /// [`into_router`](HttpServer::into_router) knows the peer's address only when served with
    /// `into_make_service_with_connect_info::<SocketAddr>()`; without it, anonymous sessions are
    /// bounded by [`max_sessions`](HttpServer::max_sessions) alone.
    pub fn max_sessions_per_client(mut self, max: usize) -> Self {
        self.session_limits
            .get_or_insert_with(SessionLimits::default)
            .per_client = max;
        self
    }

    /// How long an open session stream (`GET`) may stay quiet before the server writes an SSE
    /// comment (`: keep-alive`) on it (default [`DEFAULT_SESSION_KEEP_ALIVE`](crate::http::DEFAULT_SESSION_KEEP_ALIVE), 15 s). Clients
    /// ignore it; the write finds out a client that vanished, whose stream then ends and whose
    /// session becomes idle (and so can expire or make room). `Duration::ZERO` sends none.
    /// Turns sessions on.
    pub fn session_keep_alive(mut self, period: Duration) -> Self {
        self.session_limits
            .get_or_insert_with(SessionLimits::default)
            .keep_alive = (!period.is_zero()).then_some(period);
        self
    }
}
