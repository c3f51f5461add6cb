//! Serve claude-tools' tool servers to any MCP client, outside the Claude Code CLI's control
//! protocol: over stdin/stdout ([`stdio`]) and over MCP Streamable HTTP (`http`, cargo feature
//! `http`). The same [`McpRouter`](claude_tools_core::mcp::McpRouter) answers as in-process, so
//! schemas and results are the same on every transport.
//!
//! Users depend on the `claude-tools` facade (feature `mcp`, on by default; `http` opt-in), which
//! re-exports these modules as `claude_tools::mcp::stdio` and `claude_tools::mcp::http` and
//! [`ServeExt`] in its prelude.

#![warn(missing_docs)]

#[cfg(feature = "http")]
pub mod http;
pub mod stdio;
#[cfg(feature = "postgres")]
pub mod tasks;

use claude_tools_core::tool::ToolServer;

/// Resolves when the process is asked to stop: on Ctrl-C (`SIGINT`) or, on Unix, `SIGTERM`
/// (what `kill`, systemd, Docker and Kubernetes send). For a graceful shutdown:
/// `.with_graceful_shutdown(claude_tools::mcp::shutdown_signal())`, so that calls in flight are
/// answered rather than dropped when the server is stopped.
///
/// The signal handlers are installed when the future is first polled (a server polls its
/// shutdown signal as soon as it starts). A signal whose handler cannot be installed is logged
/// and never resolves; the other still does.
#[cfg(feature = "http")]
pub async fn shutdown_signal() {
    let interrupt = async {
        if let Err(error) = tokio::signal::ctrl_c().await {
            tracing::warn!(%error, "no Ctrl-C handler; only SIGTERM stops the server gracefully");
            std::future::pending::<()>().await;
        }
    };
    #[cfg(unix)]
    let terminate = async {
        use tokio::signal::unix::{SignalKind, signal};
        match signal(SignalKind::terminate()) {
            Ok(mut terminate) => {
                terminate.recv().await;
            }
            Err(error) => {
                tracing::warn!(%error, "no SIGTERM handler; only Ctrl-C stops the server gracefully");
                std::future::pending::<()>().await;
            }
        }
    };
    #[cfg(not(unix))]
    let terminate = std::future::pending::<()>();
    tokio::select! {
        () = interrupt => tracing::info!("Ctrl-C: shutting down"),
        () = terminate => tracing::info!("SIGTERM: shutting down"),
    }
}

/// Serving a [`ToolServer`] as a standalone MCP server: `server.serve_stdio()` and, with the
/// `http` feature, `server.serve_http(listener)`. In `claude_tools::prelude`.
///
/// ```no_run
/// use claude_tools::prelude::*;
/// use claude_tools::tools::ToolDefBuilder;
///
/// #[tokio::main]
/// async fn main() -> std::io::Result<()> {
///     ToolServer::new("demo", "1.0.0")
///         .with_tool(ToolDefBuilder::new("hello"), |_call| async { "hi" })
///         .expect("a valid server")
///         .serve_stdio()
///         .await
/// }
/// ```
pub trait ServeExt: Sized {
    /// Serves this server as a standalone MCP server on the process's stdin and stdout: what
    /// Claude Code (`claude mcp add`, or `--mcp-config` with `{"type": "stdio", "command": …}`),
    /// Claude Desktop or any MCP client launches. Returns when stdin ends (see [`stdio::serve`]).
    ///
    /// Keep stdout for the protocol: log to stderr.
    fn serve_stdio(self) -> stdio::Serve<tokio::io::Stdin, tokio::io::Stdout>;

    /// Serves this server over MCP Streamable HTTP on `listener`, with the defaults of
    /// [`http::HttpServer::new`]: `tool_server.serve_http(listener)` is
    /// `HttpServer::new(tool_server).serve(listener)`.
    ///
    /// ```no_run
    /// use claude_tools::prelude::*;
    /// use claude_tools::tools::ToolDefBuilder;
    ///
    /// #[tokio::main]
    /// async fn main() -> std::io::Result<()> {
    ///     let listener = tokio::net::TcpListener::bind("127.0.0.1:8080").await?;
    ///     ToolServer::new("demo", "1.0.0")
    ///         .with_tool(ToolDefBuilder::new("hello"), |_call| async { "hi" })
    ///         .expect("a valid server")
    ///         .serve_http(listener)
    ///         .await
    /// }
    /// ```
    #[cfg(feature = "http")]
    fn serve_http(self, listener: tokio::net::TcpListener) -> http::HttpServe;

    /// Needs the `http` feature (`cargo add claude-tools --features http`): without it this
    /// method only exists to say so at compile time (rustc would otherwise say no more than
    /// "no method named `serve_http` found").
    #[cfg(not(feature = "http"))]
    #[doc(hidden)]
    fn serve_http<L: HttpFeatureIsOff>(
        self,
        listener: L,
    ) -> std::future::Pending<std::io::Result<()>> {
        // Never called: no type implements the bound.
        let _ = listener;
        std::future::pending()
    }
}

/// What `ServeExt::serve_http` would take with the `http` feature on; without it, nothing
/// does (no type implements this trait), and the error names the feature.
#[cfg(not(feature = "http"))]
#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "`serve_http` needs claude-tools' `http` feature",
    label = "the Streamable HTTP server is not compiled in",
    note = "turn it on: `cargo add claude-tools --features http` (it brings axum and hyper)"
)]
pub trait HttpFeatureIsOff {}

impl ServeExt for ToolServer {
    fn serve_stdio(self) -> stdio::Serve<tokio::io::Stdin, tokio::io::Stdout> {
        stdio::serve(self, tokio::io::stdin(), tokio::io::stdout())
    }

    #[cfg(feature = "http")]
    fn serve_http(self, listener: tokio::net::TcpListener) -> http::HttpServe {
        http::HttpServer::new(self).serve(listener)
    }
}
