//! Serving: [`HttpServer::serve`] and its [`HttpServe`] handle, the routes of the endpoint
//! ([`HttpServer::into_router`]), the accept loop with one task per connection, and the graceful
//! shutdown (stop accepting, a grace for requests in flight, then cancelling what still runs).

use std::future::{Future, IntoFuture};
use std::io;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::AtomicU64;
use std::time::Duration;

use axum::routing::post;
use tokio::net::TcpListener;
use tokio::sync::{Semaphore, watch};
use tokio::task::JoinSet;

use super::conn::{refuse_over_capacity, serve_connection};
use super::endpoint::Endpoint;
use super::limits::{connection_cap, once_a_second};
use super::post::handle;
use super::{DEFAULT_SHUTDOWN_GRACE, HttpServer, Shared};

impl HttpServer {
    /// Serves on `listener` (HTTP/1.1) until the [graceful shutdown](HttpServe::with_graceful_shutdown)
    /// signal, if one is set; await the returned [`HttpServe`].
    pub fn serve(self, listener: TcpListener) -> HttpServe {
        HttpServe {
            server: self.bound_to(listener.local_addr().ok()),
            listener,
            signal: None,
            shutdown_grace: DEFAULT_SHUTDOWN_GRACE,
        }
    }

    /// The MCP endpoint as an [`axum::Router`] (a `POST` route at the [path](HttpServer::path),
    /// `GET`/`DELETE` answered `405` unless [sessions](HttpServer::sessions) are on), to merge or nest into an axum app of your own, served
    /// by your own `axum::serve` (the re-exported [`axum`] is the version this crate uses):
    ///
    /// ```no_run
    /// use claude_tools::mcp::http::{HttpServer, axum};
    ///
    /// # async fn run(server: claude_tools::ToolServer) -> std::io::Result<()> {
    /// let app = axum::Router::new()
    ///     .route("/health", axum::routing::get(|| async { "ok" }))
    ///     .merge(HttpServer::new(server).into_router());
    /// let listener = tokio::net::TcpListener::bind("127.0.0.1:8080").await?;
    /// axum::serve(listener, app).await
    /// # }
    /// ```
    ///
    /// Every rule of the [module docs](crate::http) holds, request timeout included, except the
    /// graceful shutdown's grace and cancellation, which belong to [`HttpServe`] (with
    /// `axum::serve`'s own graceful shutdown, running calls are waited for without a limit, and
    /// open session streams too: end the sessions first).
    ///
    /// Of the [limits](crate::http#limits), the cap on requests in flight, the body's read
    /// timeout and the drain of an oversized body hold here too; the connection-level ones (the
    /// cap on connections, the header read, idle and write timeouts, the head's size) belong to
    /// the server that owns the connections: configure them on yours (`axum::serve` has none of
    /// them; hyper's `http1::Builder` has `header_read_timeout` and `max_buf_size`).
    /// A call is cancelled when its client disconnects as long as the server drops the request
    /// then, which `axum::serve` and hyper do.
    pub fn into_router(self) -> axum::Router {
        router_of(Arc::new(self.into_shared()))
    }
}

/// An [`HttpServer`] about to serve on a listener, made by [`HttpServer::serve`] or
/// [`ServeExt::serve_http`](crate::ServeExt::serve_http). Await it to run the server: it resolves `Ok(())` after a
/// graceful shutdown, and never without one.
#[must_use = "an HttpServe does nothing until it is awaited"]
pub struct HttpServe {
    server: HttpServer,
    listener: TcpListener,
    signal: Option<Pin<Box<dyn Future<Output = ()> + Send>>>,
    shutdown_grace: Duration,
}

impl HttpServe {
    /// Shuts the server down gracefully when `signal` resolves (see the [module docs](crate::http)).
    pub fn with_graceful_shutdown<F>(mut self, signal: F) -> Self
    where
        F: Future<Output = ()> + Send + 'static,
    {
        self.signal = Some(Box::pin(signal));
        self
    }

    /// How long requests in flight at shutdown may go on before their calls are cancelled
    /// (default [`DEFAULT_SHUTDOWN_GRACE`], as for stdio).
    pub fn shutdown_grace(mut self, grace: Duration) -> Self {
        self.shutdown_grace = grace;
        self
    }

    /// The address the listener is bound to.
    pub fn local_addr(&self) -> io::Result<SocketAddr> {
        self.listener.local_addr()
    }
}

impl std::fmt::Debug for HttpServe {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HttpServe")
            .field("server", &self.server)
            .field("local_addr", &self.listener.local_addr().ok())
            .field("graceful_shutdown", &self.signal.is_some())
            .field("shutdown_grace", &self.shutdown_grace)
            .finish()
    }
}

impl IntoFuture for HttpServe {
    type Output = io::Result<()>;
    type IntoFuture = Pin<Box<dyn Future<Output = io::Result<()>> + Send>>;

    fn into_future(self) -> Self::IntoFuture {
        Box::pin(run(self))
    }
}

/// The endpoint: `POST` at the path, and `GET`/`DELETE` as the session mode has them
/// ([`Sessions::methods`](super::session::table::Sessions::methods)).
fn router_of(shared: Arc<Shared>) -> axum::Router {
    let path = shared.path.clone();
    let route = super::cors::with_cors(shared.sessions.methods(post(handle)), &shared);
    let router = axum::Router::new().route(&path, route);
    // An OAuth resource server's metadata, public at its well-known paths.
    #[cfg(feature = "oauth")]
    let router = match &shared.auth {
        Some(super::auth::Auth::ResourceServer(verifier)) => super::oauth::routes(router, verifier),
        _ => router,
    };
    router.with_state(shared)
}

// ---------------------------------------------------------------------------------------------
// The server loop.

/// How long the accept loop waits after a failing `accept` (out of file descriptors…) before
/// it tries again: never a busy loop.
const ACCEPT_BACKOFF: Duration = Duration::from_millis(100);

async fn run(serve: HttpServe) -> io::Result<()> {
    let HttpServe {
        server,
        listener,
        signal,
        shutdown_grace,
    } = serve;
    let shared = Arc::new(server.into_shared());
    let service = Endpoint::new(shared.clone(), router_of(shared.clone()));
    let limits = Arc::new(shared.limits.clone());
    let max_connections = connection_cap(limits.max_connections);
    let open = Arc::new(Semaphore::new(max_connections));
    let (last_full, last_failed) = (AtomicU64::new(0), AtomicU64::new(0));
    let mut signal = signal.unwrap_or_else(|| Box::pin(std::future::pending()));
    let (closing, closing_seen) = watch::channel(false);
    let mut connections = JoinSet::new();

    loop {
        tokio::select! {
            biased;
            () = &mut signal => break,
            Some(_) = connections.join_next(), if !connections.is_empty() => {}
            accepted = listener.accept() => match accepted {
                Ok((stream, peer)) => match open.clone().try_acquire_owned() {
                    Ok(permit) => {
                        connections.spawn(serve_connection(
                            stream,
                            peer,
                            service.clone(),
                            limits.clone(),
                            closing_seen.clone(),
                            permit,
                        ));
                    }
                    Err(_) => {
                        if once_a_second(&last_full) {
                            tracing::warn!(
                                max = max_connections,
                                "MCP HTTP: too many open connections; refusing new ones with 503 (max_connections)"
                            );
                        }
                        refuse_over_capacity(stream, max_connections);
                    }
                },
                Err(error) if is_connection_error(&error) => {}
                Err(error) => {
                    if once_a_second(&last_failed) {
                        tracing::error!(%error, "MCP HTTP: accept failed (out of file descriptors?); backing off");
                    }
                    tokio::time::sleep(ACCEPT_BACKOFF).await;
                }
            },
        }
    }

    // Stop accepting: from now on a connection attempt is refused.
    drop(listener);
    let _ = closing.send(true);
    // An open session stream, or listen stream, would hold its connection for the whole
    // grace: a listen stream gets its graceful end now.
    shared.sessions.close_streams();
    shared.listen.closing.cancel();
    tracing::debug!(
        connections = connections.len(),
        "MCP HTTP: shutting down, letting requests in flight finish"
    );
    if !finish_within(&mut connections, shutdown_grace).await {
        tracing::debug!(
            connections = connections.len(),
            "MCP HTTP: shutdown grace over, cancelling the calls still running"
        );
        shared.shutdown.cancel();
        if !finish_within(&mut connections, claude_tools_core::mcp::CANCEL_GRACE).await {
            connections.shutdown().await;
        }
    }
    Ok(())
}

/// Waits for every connection to end, for up to `limit`; whether they all did.
async fn finish_within(connections: &mut JoinSet<()>, limit: Duration) -> bool {
    tokio::time::timeout(limit, async {
        while connections.join_next().await.is_some() {}
    })
    .await
    .is_ok()
}

/// Errors of one incoming connection, not of the listener: accept the next one at once.
fn is_connection_error(error: &io::Error) -> bool {
    matches!(
        error.kind(),
        io::ErrorKind::ConnectionRefused
            | io::ErrorKind::ConnectionAborted
            | io::ErrorKind::ConnectionReset
    )
}
