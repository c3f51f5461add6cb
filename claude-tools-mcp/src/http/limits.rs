//! The limits on what clients can make the server hold (issue 20): their defaults, their
//! [`HttpServer`] builder methods, and the two of them every request meets whoever serves the
//! router (the cap on requests in flight, [`InFlight`], and the body's read and drain limits,
//! read by [`admit`](super::admit)). The connection-level ones are enforced by
//! [`conn`](super::conn) in [`HttpServer::serve`].

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use axum::http::{HeaderValue, StatusCode, header};
use axum::response::Response;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use super::reply::transport_error;
use super::{HttpServer, TRANSPORT_ERROR};

/// The most connections [`HttpServer::serve`] holds open at once unless
/// [`HttpServer::max_connections`] says otherwise: 1024.
pub const DEFAULT_MAX_CONNECTIONS: usize = 1024;

/// The most `POST`s answered at once unless [`HttpServer::max_requests_in_flight`] says
/// otherwise: 512.
pub const DEFAULT_MAX_REQUESTS_IN_FLIGHT: usize = 512;

/// How long a client may take to send a request's headers, from its first byte, unless
/// [`HttpServer::header_read_timeout`] says otherwise: 10 s.
pub const DEFAULT_HEADER_READ_TIMEOUT: Duration = Duration::from_secs(10);

/// The largest request head (request line and headers) unless [`HttpServer::max_header_size`]
/// says otherwise: 64 KiB.
pub const DEFAULT_MAX_HEADER_SIZE: usize = 64 * 1024;

/// How long a connection may wait with no request in progress unless
/// [`HttpServer::idle_timeout`] says otherwise: 30 s.
pub const DEFAULT_IDLE_TIMEOUT: Duration = Duration::from_secs(30);

/// How long a response may wait for the client to take its next bytes unless
/// [`HttpServer::write_timeout`] says otherwise: 30 s.
pub const DEFAULT_WRITE_TIMEOUT: Duration = Duration::from_secs(30);

/// How long a request's body may take to arrive, from its headers, unless
/// [`HttpServer::body_read_timeout`] says otherwise: 20 s.
pub const DEFAULT_BODY_READ_TIMEOUT: Duration = Duration::from_secs(20);

/// How many bytes of a body over the cap are read and thrown away so that the client can read
/// its `413`, unless [`HttpServer::max_drain_size`] says otherwise: 8 MiB.
pub const DEFAULT_MAX_DRAIN_SIZE: usize = 8 * 1024 * 1024;

/// How long the rest of a body over the cap is read and thrown away, unless
/// [`HttpServer::drain_timeout`] says otherwise: 5 s.
pub const DEFAULT_DRAIN_TIMEOUT: Duration = Duration::from_secs(5);

/// How long an accepted connection may be silent before the kernel probes its peer (TCP
/// keepalive) unless [`HttpServer::tcp_keepalive`] says otherwise: 60 s.
pub const DEFAULT_TCP_KEEPALIVE: Duration = Duration::from_secs(60);

/// The `Retry-After` of a `503` for too many requests in flight, in seconds.
const RETRY_AFTER_SECONDS: &str = "1";

/// The limits as configured.
#[derive(Debug, Clone)]
pub(super) struct Limits {
    pub(super) max_connections: usize,
    pub(super) max_in_flight: usize,
    pub(super) header_read_timeout: Duration,
    pub(super) max_header_size: usize,
    pub(super) idle_timeout: Duration,
    pub(super) write_timeout: Duration,
    pub(super) body_read_timeout: Duration,
    pub(super) max_drain_size: usize,
    pub(super) drain_timeout: Duration,
    /// `None`: TCP keepalive off.
    pub(super) tcp_keepalive: Option<Duration>,
    pub(super) max_listen_streams: usize,
    pub(super) max_listen_streams_per_client: usize,
    pub(super) listen_keep_alive: Duration,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            max_connections: DEFAULT_MAX_CONNECTIONS,
            max_in_flight: DEFAULT_MAX_REQUESTS_IN_FLIGHT,
            header_read_timeout: DEFAULT_HEADER_READ_TIMEOUT,
            max_header_size: DEFAULT_MAX_HEADER_SIZE,
            idle_timeout: DEFAULT_IDLE_TIMEOUT,
            write_timeout: DEFAULT_WRITE_TIMEOUT,
            body_read_timeout: DEFAULT_BODY_READ_TIMEOUT,
            max_drain_size: DEFAULT_MAX_DRAIN_SIZE,
            drain_timeout: DEFAULT_DRAIN_TIMEOUT,
            tcp_keepalive: Some(DEFAULT_TCP_KEEPALIVE),
            max_listen_streams: super::listen::DEFAULT_MAX_LISTEN_STREAMS,
            max_listen_streams_per_client: super::listen::DEFAULT_MAX_LISTEN_STREAMS_PER_CLIENT,
            listen_keep_alive: super::listen::DEFAULT_LISTEN_KEEP_ALIVE,
        }
    }
}

impl HttpServer {
    /// How long an accepted connection may be silent before the kernel probes its peer (TCP
    /// keepalive; default [`DEFAULT_TCP_KEEPALIVE`]; `None` turns it off). A peer that vanished
    /// without closing (a laptop lid, a dropped route) answers no probe, and its connection,
    /// with any session stream on it, is dropped after a few more probes 15 s apart. Applied by
    /// [`serve`](HttpServer::serve).
    pub fn tcp_keepalive(mut self, idle: Option<Duration>) -> Self {
        self.limits.tcp_keepalive = idle;
        self
    }

    /// The most connections [`serve`](HttpServer::serve) holds open at once (default
    /// [`DEFAULT_MAX_CONNECTIONS`]; at least 1; on Unix, lowered to the file-descriptor limit
    /// less 64 when that is lower, with a warning). A connection beyond it is accepted, written a
    /// `503 Service Unavailable` if its socket takes it at once, and closed, without being read:
    /// the cap bounds the memory and file descriptors clients can hold. Not applied by
    /// [`into_router`](HttpServer::into_router), whose server owns the connections.
    pub fn max_connections(mut self, max: usize) -> Self {
        self.limits.max_connections = max.max(1);
        self
    }

    /// The most MCP 2026-07-28 listen streams (`subscriptions/listen`) open at once, over
    /// all clients (default [`DEFAULT_MAX_LISTEN_STREAMS`](super::DEFAULT_MAX_LISTEN_STREAMS);
    /// at least 1). One more is answered `503` with `Retry-After: 5`. An open stream does not
    /// count against [`max_requests_in_flight`](HttpServer::max_requests_in_flight).
    pub fn max_listen_streams(mut self, max: usize) -> Self {
        self.limits.max_listen_streams = max.max(1);
        self
    }

    /// The most listen streams one client holds open at once (default
    /// [`DEFAULT_MAX_LISTEN_STREAMS_PER_CLIENT`](super::DEFAULT_MAX_LISTEN_STREAMS_PER_CLIENT);
    /// at least 1): a client is the auth hook's principal, else the peer's address. One more
    /// is answered `429` with `Retry-After: 5`.
    pub fn max_listen_streams_per_client(mut self, max: usize) -> Self {
        self.limits.max_listen_streams_per_client = max.max(1);
        self
    }

    /// How often an idle listen stream gets a keep-alive comment (default
    /// [`DEFAULT_LISTEN_KEEP_ALIVE`](super::DEFAULT_LISTEN_KEEP_ALIVE), 15 s; at least 1 s), so
    /// that proxies do not cut it and a vanished client is found out.
    pub fn listen_keep_alive(mut self, every: Duration) -> Self {
        self.limits.listen_keep_alive = every.max(Duration::from_secs(1));
        self
    }

    /// The most `POST`s answered at once, over all connections (default
    /// [`DEFAULT_MAX_REQUESTS_IN_FLIGHT`]; at least 1). A `POST` beyond it is answered at once
    /// `503 Service Unavailable` with `Retry-After: 1`, before its body is read. A request is
    /// in flight from its headers until its answer (an SSE answer included) is sent or dropped.
    /// Holds for [`into_router`](HttpServer::into_router) too.
    pub fn max_requests_in_flight(mut self, max: usize) -> Self {
        self.limits.max_in_flight = max.max(1);
        self
    }

    /// How long a client may take to send a request's head, from its first byte to the end of
    /// its headers (default [`DEFAULT_HEADER_READ_TIMEOUT`]); then the connection is closed.
    /// Applied by [`serve`](HttpServer::serve).
    pub fn header_read_timeout(mut self, timeout: Duration) -> Self {
        self.limits.header_read_timeout = timeout;
        self
    }

    /// The largest request head, request line and headers, in bytes (default
    /// [`DEFAULT_MAX_HEADER_SIZE`]; at least 8 KiB); a larger one is answered
    /// `431 Request Header Fields Too Large` and the connection closed. Applied by
    /// [`serve`](HttpServer::serve).
    pub fn max_header_size(mut self, bytes: usize) -> Self {
        self.limits.max_header_size = bytes.max(8 * 1024);
        self
    }

    /// How long a connection may stay open with no request in progress, before its first
    /// request or between two (default [`DEFAULT_IDLE_TIMEOUT`]); then it is closed. An open
    /// SSE stream is a request in progress. Applied by [`serve`](HttpServer::serve).
    pub fn idle_timeout(mut self, timeout: Duration) -> Self {
        self.limits.idle_timeout = timeout;
        self
    }

    /// How long a response may wait for the client to take more of its bytes (default
    /// [`DEFAULT_WRITE_TIMEOUT`]); a client that stops reading for that long has its response
    /// dropped (a call still running is cancelled) and its connection closed. Only stalled
    /// writes count: an SSE stream waiting for its next event is not timed. Applied by
    /// [`serve`](HttpServer::serve).
    pub fn write_timeout(mut self, timeout: Duration) -> Self {
        self.limits.write_timeout = timeout;
        self
    }

    /// How long a request's body may take to arrive, from the end of its headers (default
    /// [`DEFAULT_BODY_READ_TIMEOUT`]; the [request timeout](HttpServer::request_timeout) still
    /// applies when it is shorter); a body still arriving then is answered
    /// `408 Request Timeout`. Bounds how long a slow upload holds its buffer. Holds for
    /// [`into_router`](HttpServer::into_router) too.
    pub fn body_read_timeout(mut self, timeout: Duration) -> Self {
        self.limits.body_read_timeout = timeout;
        self
    }

    /// How many bytes past [`max_body_size`](HttpServer::max_body_size) are read and thrown
    /// away before a `413` is answered (default [`DEFAULT_MAX_DRAIN_SIZE`]), so that a client
    /// still uploading can read the `413` instead of a broken pipe. A body declared larger than
    /// the cap plus this is answered at once; `0` never drains.
    pub fn max_drain_size(mut self, bytes: usize) -> Self {
        self.limits.max_drain_size = bytes;
        self
    }

    /// How long the rest of a body over the cap is read and thrown away before the `413` is
    /// answered anyway (default [`DEFAULT_DRAIN_TIMEOUT`]).
    pub fn drain_timeout(mut self, timeout: Duration) -> Self {
        self.limits.drain_timeout = timeout;
        self
    }
}

/// The cap on requests in flight, shared by every request.
pub(super) struct InFlight {
    permits: Arc<Semaphore>,
    max: usize,
    /// When a refusal was last logged, in seconds since `UNIX_EPOCH`: one warning a second at
    /// most.
    last_warned: AtomicU64,
}

impl InFlight {
    pub(super) fn new(max: usize) -> Self {
        Self {
            permits: Arc::new(Semaphore::new(max)),
            max,
            last_warned: AtomicU64::new(0),
        }
    }

    /// A permit held while the request is in flight, or the `503` to answer.
    pub(super) fn admit(&self) -> Result<OwnedSemaphorePermit, Box<Response>> {
        match self.permits.clone().try_acquire_owned() {
            Ok(permit) => Ok(permit),
            Err(_) => {
                if once_a_second(&self.last_warned) {
                    tracing::warn!(
                        max = self.max,
                        "MCP HTTP: too many requests in flight; answering 503 (max_requests_in_flight)"
                    );
                }
                let mut response = transport_error(
                    StatusCode::SERVICE_UNAVAILABLE,
                    TRANSPORT_ERROR,
                    "Service Unavailable",
                    &format!(
                        "the server is answering its maximum of {} requests at once; retry later",
                        self.max
                    ),
                );
                response.headers_mut().insert(
                    header::RETRY_AFTER,
                    HeaderValue::from_static(RETRY_AFTER_SECONDS),
                );
                Err(Box::new(response))
            }
        }
    }
}

/// File descriptors kept out of the cap on connections: the listener's, the runtime's, and the
/// tools' own files and sockets.
const FD_RESERVE: u64 = 64;

/// The cap on connections [`HttpServer::serve`] applies: the configured one, lowered under the
/// process's file-descriptor limit (less [`FD_RESERVE`]) when that is lower, so that the cap
/// bites (a fast `503`) before `accept` runs out of descriptors (where even a ping waits).
pub(super) fn connection_cap(configured: usize) -> usize {
    match fd_room() {
        Some(room) if room < configured => {
            tracing::warn!(
                configured,
                applied = room,
                "MCP HTTP: max_connections lowered under the file-descriptor limit (ulimit -n)"
            );
            room
        }
        _ => configured,
    }
}

/// The soft `RLIMIT_NOFILE` less [`FD_RESERVE`], if there is a limit.
#[cfg(unix)]
fn fd_room() -> Option<usize> {
    let mut limit = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit only writes the `rlimit` it is given, which lives through the call.
    if unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) } != 0
        || limit.rlim_cur == libc::RLIM_INFINITY
    {
        return None;
    }
    // `rlim_t` is `u64` on Linux and macOS, not on every Unix.
    #[allow(clippy::useless_conversion)]
    let room = u64::from(limit.rlim_cur).saturating_sub(FD_RESERVE).max(1);
    Some(usize::try_from(room).unwrap_or(usize::MAX))
}

#[cfg(not(unix))]
fn fd_room() -> Option<usize> {
    None
}

/// Whether a rate-limited warning may be logged now (at most once a second per `last`).
pub(super) fn once_a_second(last: &AtomicU64) -> bool {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |elapsed| elapsed.as_secs());
    last.swap(now, Ordering::Relaxed) != now
}

/// A response body holding `T` (a permit, a guard) until the body is sent or dropped.
pub(super) struct Holding<T> {
    body: axum::body::Body,
    _held: T,
}

impl<T> Holding<T> {
    pub(super) fn new(body: axum::body::Body, held: T) -> Self {
        Self { body, _held: held }
    }
}

impl<T: Send + Unpin + 'static> http_body::Body for Holding<T> {
    type Data = axum::body::Bytes;
    type Error = axum::Error;

    fn poll_frame(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Option<Result<http_body::Frame<Self::Data>, Self::Error>>> {
        std::pin::Pin::new(&mut self.body).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> http_body::SizeHint {
        self.body.size_hint()
    }
}
