//! Serving: [`HttpServer::serve`] and its [`HttpServe`] handle, the routes of the endpoint
//! ([`HttpServer::into_router`]), the accept loop with one task per connection, and the graceful
//! shutdown (stop accepting, a grace for requests in flight, then cancelling what still runs).

use std::future::{Future, IntoFuture};
use std::io;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use axum::routing::post;
use tokio::net::TcpListener;
use tokio::sync::watch;
use tokio::task::JoinSet;

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
    axum::Router::new().route(&path, route).with_state(shared)
}

// ---------------------------------------------------------------------------------------------
// The server loop.

/// How often a failing `accept` (out of file descriptors…) is retried.
const ACCEPT_BACKOFF: Duration = Duration::from_millis(100);

/// How long a client may take to send a request's headers.
const HEADER_READ_TIMEOUT: Duration = Duration::from_secs(30);

async fn run(serve: HttpServe) -> io::Result<()> {
    let HttpServe {
        server,
        listener,
        signal,
        shutdown_grace,
    } = serve;
    let shared = Arc::new(server.into_shared());
    let service = hyper_util::service::TowerToHyperService::new(router_of(shared.clone()));
    let mut signal = signal.unwrap_or_else(|| Box::pin(std::future::pending()));
    let (closing, closing_seen) = watch::channel(false);
    let mut connections = JoinSet::new();

    loop {
        tokio::select! {
            biased;
            () = &mut signal => break,
            Some(_) = connections.join_next(), if !connections.is_empty() => {}
            accepted = listener.accept() => match accepted {
                Ok((stream, peer)) => {
                    connections.spawn(serve_connection(stream, peer, service.clone(), closing_seen.clone()));
                }
                Err(error) if is_connection_error(&error) => {}
                Err(error) => {
                    tracing::error!(%error, "MCP HTTP: accept failed; retrying");
                    tokio::time::sleep(ACCEPT_BACKOFF).await;
                }
            },
        }
    }

    // Stop accepting: from now on a connection attempt is refused.
    drop(listener);
    let _ = closing.send(true);
    // An open session stream would hold its connection for the whole grace.
    shared.sessions.close_streams();
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

async fn serve_connection(
    stream: tokio::net::TcpStream,
    peer: SocketAddr,
    service: hyper_util::service::TowerToHyperService<axum::Router>,
    mut closing: watch::Receiver<bool>,
) {
    // Replies are written whole: do not hold the last segment back for an ACK.
    let _ = stream.set_nodelay(true);
    let service = super::peer::accepted(&stream, peer, service);
    let connection = hyper::server::conn::http1::Builder::new()
        .timer(hyper_util::rt::TokioTimer::new())
        .header_read_timeout(HEADER_READ_TIMEOUT)
        .serve_connection(hyper_util::rt::TokioIo::new(stream), service);
    tokio::pin!(connection);
    let mut told = false;
    loop {
        tokio::select! {
            result = connection.as_mut() => {
                if let Err(error) = result {
                    tracing::debug!(%error, %peer, "MCP HTTP: connection ended with an error");
                }
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
