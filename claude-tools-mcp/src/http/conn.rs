//! One connection of [`HttpServer::serve`](super::HttpServer::serve) under its limits: the
//! head's size, the time to send it (from its first byte), the time a connection may sit with no
//! request in progress, and the time a response may wait for the client to take its bytes; and
//! the answer to a connection beyond the cap on open connections.
//!
//! hyper's own header timer runs from the moment it waits for a request, idle time included, so
//! it cannot tell an idle keep-alive connection from a slow head: [`Activity`] follows the
//! connection instead (idle, reading a head, answering requests) and the connection's task
//! closes it when the phase's deadline passes.

use std::future::Future;
use std::io;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll};
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpStream;
use tokio::sync::{OwnedSemaphorePermit, watch};
use tokio::time::{Instant, Sleep};

use super::endpoint::Endpoint;
use super::limits::Limits;
use super::reply::seconds;

/// Serves one connection until it ends, its idle or header deadline passes, or the shutdown
/// closes it (once its request in flight, if any, is answered). `_permit` is its place under the
/// cap on connections.
pub(super) async fn serve_connection(
    stream: TcpStream,
    peer: SocketAddr,
    endpoint: Endpoint,
    limits: Arc<Limits>,
    mut closing: watch::Receiver<bool>,
    _permit: OwnedSemaphorePermit,
) {
    // Replies are written whole: do not hold the last segment back for an ACK.
    let _ = stream.set_nodelay(true);
    // TCP keepalive on; the peer's address goes on each request (sessions count by it).
    super::peer::keep_alive(&stream, peer, limits.tcp_keepalive);
    let activity = Arc::new(Activity::new());
    let io = Guarded {
        stream,
        activity: activity.clone(),
        write_timeout: limits.write_timeout,
        stall: None,
        peer,
    };
    let tracker = activity.clone();
    let known_host = super::endpoint::KnownHost::default();
    let service = hyper::service::service_fn(move |request| {
        // The request is in progress until its answer is sent or dropped.
        endpoint.answer(request, peer, tracker.begin(), &known_host)
    });
    let connection = hyper::server::conn::http1::Builder::new()
        .timer(hyper_util::rt::TokioTimer::new())
        // Timed by `Activity` instead, from the head's first byte (hyper's timer would also run
        // while the connection is idle).
        .header_read_timeout(None)
        .max_header_size(limits.max_header_size)
        .max_buf_size(limits.max_header_size.max(8 * 1024))
        .serve_connection(hyper_util::rt::TokioIo::new(io), service);
    tokio::pin!(connection);
    let expired = activity.expired(&limits);
    tokio::pin!(expired);
    let mut told = false;
    loop {
        tokio::select! {
            result = connection.as_mut() => {
                match result {
                    Err(error) if error.is_parse_too_large() => tracing::info!(
                        %peer,
                        max = limits.max_header_size,
                        "MCP HTTP: a request head over max_header_size; answered 431 and closed"
                    ),
                    Err(error) => {
                        tracing::debug!(%error, %peer, "MCP HTTP: connection ended with an error");
                    }
                    Ok(()) => {}
                }
                return;
            }
            expired = expired.as_mut() => {
                match expired {
                    Expired::Idle => tracing::debug!(
                        %peer,
                        timeout = %seconds(limits.idle_timeout),
                        "MCP HTTP: closing a connection idle for its idle timeout"
                    ),
                    Expired::Head => tracing::info!(
                        %peer,
                        timeout = %seconds(limits.header_read_timeout),
                        "MCP HTTP: a request's headers did not arrive within the header read timeout; closing the connection"
                    ),
                }
                // Nothing is in progress on it: drop the connection (and close the socket).
                return;
            }
            // Closes the connection once its request in flight (if any) is answered.
            changed = closing.changed(), if !told => {
                told = true;
                if changed.is_ok() {
                    connection.as_mut().graceful_shutdown();
                }
            }
        }
    }
}

/// Answers a connection beyond the cap: a `503` written only if the socket takes it at once
/// (it is never waited for), then the connection is closed without reading anything.
pub(super) fn refuse_over_capacity(stream: TcpStream, max: usize) {
    let body = format!(
        "{{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{{\"code\":-32000,\"message\":\"Service Unavailable\",\"data\":\"the server holds its maximum of {max} connections; retry later\"}}}}"
    );
    let response = format!(
        "HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json\r\nretry-after: 1\r\nconnection: close\r\ncontent-length: {}\r\n\r\n{body}",
        body.len()
    );
    let _ = stream.try_write(response.as_bytes());
}

/// Which deadline of a connection passed.
#[derive(Debug, Clone, Copy)]
enum Expired {
    Idle,
    Head,
}

/// What a connection is doing, for its idle and header deadlines.
#[derive(Debug, Clone, Copy)]
enum Phase {
    /// No request in progress since then.
    Idle(Instant),
    /// The first byte of a request's head arrived then.
    Head(Instant),
    /// This many requests are being answered (hyper answers one at a time; a pipelined next
    /// one may start as the last answer's body ends).
    Busy(usize),
}

/// A connection's [`Phase`], shared by its socket (bytes read), its service (requests begun)
/// and the answers' bodies (requests ended), and checked by its task.
///
/// A change of phase only writes the phase: it neither wakes the connection's task nor touches
/// the timer. The task's one timer is armed at most [`Activity::step`] ahead and, when it
/// fires, looks at the phase and re-arms at the phase's deadline (or one step on). A phase
/// begun while it was armed began after the arming, so its deadline is at least a step after
/// it: every deadline is met exactly, and a keep-alive request costs a lock per phase change
/// instead of a timer registered and cancelled twice and a wake-up of the task (issue 28's
/// profile).
struct Activity {
    phase: Mutex<Phase>,
}

impl Activity {
    fn new() -> Self {
        Self {
            phase: Mutex::new(Phase::Idle(Instant::now())),
        }
    }

    fn update(&self, change: impl FnOnce(Phase) -> Phase) {
        let mut phase = self.phase.lock().unwrap_or_else(PoisonError::into_inner);
        *phase = change(*phase);
    }

    fn phase(&self) -> Phase {
        *self.phase.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Bytes arrived: on an idle connection, a request's head has begun.
    fn bytes_read(&self) {
        self.update(|phase| match phase {
            Phase::Idle(_) => Phase::Head(Instant::now()),
            other => other,
        });
    }

    /// A request's head was read; it is in progress until the guard is dropped.
    fn begin(self: &Arc<Self>) -> RequestGuard {
        self.update(|phase| match phase {
            Phase::Busy(requests) => Phase::Busy(requests + 1),
            _ => Phase::Busy(1),
        });
        RequestGuard(self.clone())
    }

    /// How far ahead the timer is armed at most: the shorter of the two timeouts (a
    /// millisecond at least, so that a zero timeout does not spin while a request runs).
    fn step(limits: &Limits) -> Duration {
        limits
            .idle_timeout
            .min(limits.header_read_timeout)
            .max(Duration::from_millis(1))
    }

    /// Resolves when the connection has been idle for the idle timeout, or a head has been
    /// arriving for the header read timeout.
    async fn expired(&self, limits: &Limits) -> Expired {
        let step = Self::step(limits);
        let timer = tokio::time::sleep(Duration::ZERO);
        tokio::pin!(timer);
        loop {
            (&mut timer).await;
            let now = Instant::now();
            let next = match self.phase() {
                Phase::Idle(since) => {
                    let deadline = since + limits.idle_timeout;
                    if now >= deadline {
                        return Expired::Idle;
                    }
                    deadline.min(now + step)
                }
                Phase::Head(since) => {
                    let deadline = since + limits.header_read_timeout;
                    if now >= deadline {
                        return Expired::Head;
                    }
                    deadline.min(now + step)
                }
                Phase::Busy(_) => now + step,
            };
            timer.as_mut().reset(next);
        }
    }
}

/// A request in progress on its connection.
struct RequestGuard(Arc<Activity>);

impl Drop for RequestGuard {
    fn drop(&mut self) {
        self.0.update(|phase| match phase {
            Phase::Busy(requests) if requests > 1 => Phase::Busy(requests - 1),
            _ => Phase::Idle(Instant::now()),
        });
    }
}

/// The connection's socket: reports bytes read to its [`Activity`], and fails a write that
/// makes no progress for the write timeout (hyper then drops the connection and the answer).
struct Guarded {
    stream: TcpStream,
    activity: Arc<Activity>,
    write_timeout: Duration,
    /// Running while a write is stalled: the client is not taking the bytes.
    stall: Option<Pin<Box<Sleep>>>,
    peer: SocketAddr,
}

impl Guarded {
    fn guard_write<T>(
        &mut self,
        cx: &mut Context<'_>,
        poll: Poll<io::Result<T>>,
    ) -> Poll<io::Result<T>> {
        if poll.is_ready() {
            self.stall = None;
            return poll;
        }
        let timeout = self.write_timeout;
        let stall = self
            .stall
            .get_or_insert_with(|| Box::pin(tokio::time::sleep(timeout)));
        if stall.as_mut().poll(cx).is_pending() {
            return Poll::Pending;
        }
        self.stall = None;
        tracing::info!(
            peer = %self.peer,
            timeout = %seconds(timeout),
            "MCP HTTP: the client took none of its response within the write timeout; dropping the response and closing the connection"
        );
        Poll::Ready(Err(io::Error::new(
            io::ErrorKind::TimedOut,
            "the client did not read its response within the write timeout",
        )))
    }
}

impl AsyncRead for Guarded {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let before = buf.filled().len();
        let poll = Pin::new(&mut self.stream).poll_read(cx, buf);
        if matches!(poll, Poll::Ready(Ok(()))) && buf.filled().len() > before {
            self.activity.bytes_read();
        }
        poll
    }
}

impl AsyncWrite for Guarded {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let poll = Pin::new(&mut self.stream).poll_write(cx, buf);
        self.guard_write(cx, poll)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let poll = Pin::new(&mut self.stream).poll_write_vectored(cx, bufs);
        self.guard_write(cx, poll)
    }

    fn is_write_vectored(&self) -> bool {
        self.stream.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let poll = Pin::new(&mut self.stream).poll_flush(cx);
        self.guard_write(cx, poll)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let poll = Pin::new(&mut self.stream).poll_shutdown(cx);
        self.guard_write(cx, poll)
    }
}
