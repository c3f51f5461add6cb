//! Serving a [`ToolServer`] to remote MCP clients over MCP's Streamable HTTP transport
//! (cargo feature `http`): [`HttpServer`], [`ServeExt::serve_http`](crate::ServeExt::serve_http).
//!
//! ```no_run
//! use claude_tools::mcp::http::HttpServer;
//! use claude_tools::tools::{ToolDefBuilder, ToolServer};
//!
//! # async fn run() -> std::io::Result<()> {
//! let server = ToolServer::new("demo", "1.0.0")
//!     .with_tool(ToolDefBuilder::new("hello"), |_call| async { "hi" })
//!     .expect("a valid server");
//! let listener = tokio::net::TcpListener::bind("127.0.0.1:8080").await?;
//! HttpServer::new(server)
//!     .bearer_token("s3cret")                      // optional
//!     .serve(listener)                             // clients POST to http://127.0.0.1:8080/mcp
//!     .with_graceful_shutdown(async { let _ = tokio::signal::ctrl_c().await; })
//!     .await
//! # }
//! ```
//!
//! The same [`McpRouter`] as in-process and over stdio answers, so schemas and
//! results are the same. The server is **stateless**: it issues no `Mcp-Session-Id`, keeps
//! nothing between requests, and any number of replicas can sit behind an ordinary load
//! balancer (tool state belongs in the application's own database). Each request is answered on
//! a connection state of its own over the one shared tool set, so two clients that both use
//! JSON-RPC id `1` at the same time never meet. Stateful [sessions](#sessions) are opt-in.
//!
//! # The rules, in the order they are checked
//!
//! | request | answer |
//! |---|---|
//! | `GET` or `DELETE` on the path (a server→client stream, ending a session) | `405 Method Not Allowed`, `Allow: POST`: a stateless server has neither (with [sessions](#sessions), see there) |
//! | an `Origin` header that is not allowed ([`HttpServer::allowed_origins`]; by default only loopback origins) | `403 Forbidden` |
//! | refused by the [auth hook](HttpServer::authorize) or the [bearer token](HttpServer::bearer_token) | `401 Unauthorized`, `WWW-Authenticate: Bearer` (with `error="invalid_token"` when a token was sent) |
//! | an auth hook still undecided at the request timeout | `503 Service Unavailable` |
//! | an `MCP-Protocol-Version` header naming a version not in [`SUPPORTED_PROTOCOL_VERSIONS`] | `400 Bad Request` |
//! | a `Content-Type` other than `application/json` (parameters such as `charset` allowed), or none | `415 Unsupported Media Type` |
//! | an `Accept` header that admits neither `application/json` nor `text/event-stream` | `406 Not Acceptable` |
//! | a body over [`HttpServer::max_body_size`] (by its `Content-Length`, or as it streams in) | `413 Payload Too Large`, without reading the rest |
//! | a body that is not JSON (or holds a number out of a 64-bit float's range, an `id` of `1e400` included) | `400`, `-32700 "Parse error"` |
//! | with [sessions](#sessions): an `initialize` when [`HttpServer::max_sessions`] live sessions exist | `503 Service Unavailable` |
//! | with [sessions](#sessions): any other message without `Mcp-Session-Id` / with one naming no live session | `400 Bad Request` / `404 Not Found` |
//! | a JSON array (a JSON-RPC batch) | `400`, `-32600 "Invalid Request"`: batching was removed from MCP in 2025-06-18, and no client sends one |
//! | any other JSON that is not a JSON-RPC message (not an object, no `method` and no `result`/`error`, bad `jsonrpc`, bad `id`) | `400`, `-32600 "Invalid Request"` |
//! | a notification (a `method`, no `id`) or a response (a `result` or an `error`, no `method`) | `202 Accepted`, no body |
//! | a request | `200`, its JSON-RPC reply as `application/json` (JSON-RPC errors such as `-32601` included) |
//! | a `tools/call` with `params._meta.progressToken` from a client whose `Accept` names `text/event-stream` | `200`, `text/event-stream`: one `notifications/progress` event per [`report_progress`](claude_tools_core::tool::ToolContext::report_progress), then the reply, then the stream ends |
//! | a request from a client that accepts only `text/event-stream` | the reply as a one-event SSE stream |
//!
//! A reply carries its request's `id` exactly as it came: an integer past `u64` (which a
//! `serde_json::Value` holds as a float) or a number like `1.50` is not rewritten.
//!
//! Every refusal (4xx, 503) carries a JSON-RPC error body with `id: null` (code
//! [`TRANSPORT_ERROR`], `-32000`, unless the table names one; the message names the reason, the
//! `data` says more), `Content-Type: application/json`; the official SDKs hand that error to the
//! caller as it is.
//!
//! # Time limits, cancellation and shutdown
//!
//! - **Request timeout** ([`HttpServer::request_timeout`], default
//!   [`DEFAULT_REQUEST_TIMEOUT`]): measured from the request's arrival, body included. A
//!   `tools/call` still running then is cancelled (its handler's
//!   [cancellation token](claude_tools_core::tool::ToolContext::cancellation_token) fires and it keeps its
//!   [`CANCEL_GRACE`](claude_tools_core::mcp::CANCEL_GRACE) in the background) and the client gets a normal
//!   `isError` tool result naming the timeout: a model reads that and can retry or give up,
//!   where a JSON-RPC error would surface as a transport failure. Any other request still
//!   running gets `-32603`; a body still arriving gets `408 Request Timeout`.
//! - **Client disconnect**: in stateless mode a reply can only travel on the request's own
//!   response, so when the client goes away mid-call nothing could ever receive the result. The
//!   call is cancelled at once (token, then [`CANCEL_GRACE`](claude_tools_core::mcp::CANCEL_GRACE)) rather than
//!   left to run for nobody. This is also how a client cancels a call over HTTP: it closes the
//!   request.
//! - **`notifications/cancelled`** is answered `202` and, without [sessions](#sessions),
//!   cancels nothing: request ids belong to each client, and without sessions the server cannot
//!   tell whose id `7` a notification means, so honouring it could cancel another client's
//!   call. A client cancels by closing the request, which does cancel. (The official Python SDK
//!   2.3.0 does so from protocol revision 2026 on; at the revisions this server speaks it posts
//!   `notifications/cancelled` and stops reading, so the abandoned call runs to its end, its
//!   timeout, or the client's disconnect. With sessions, that notification cancels the call.)
//! - **Graceful shutdown** ([`HttpServe::with_graceful_shutdown`]): when the signal resolves the
//!   listener is closed (new connections are refused), idle keep-alive connections are closed,
//!   and requests in flight may finish for up to [`HttpServe::shutdown_grace`] (default
//!   [`DEFAULT_SHUTDOWN_GRACE`]). Calls still running then are cancelled and answered with an
//!   `isError` result saying the server shut down; the connections get a last
//!   [`CANCEL_GRACE`](claude_tools_core::mcp::CANCEL_GRACE) to write those answers; then the future resolves
//!   `Ok(())`.
//!
//! # Origins, auth, observability
//!
//! The MCP transport rules require a server to validate `Origin` against DNS rebinding: a web
//! page in a browser on the same machine could otherwise reach a server bound to localhost. By
//! default only loopback origins pass (`http://` or `https://` with host `localhost`,
//! `127.0.0.1` or `[::1]`, any port); [`HttpServer::allowed_origins`] replaces that list.
//! Requests without an `Origin` header (every non-browser client: the Claude Code CLI, the SDKs,
//! curl) are not affected.
//!
//! **The caller's identity.** A multi-tenant server must know, inside a tool, who is calling.
//! The [auth hook](HttpServer::authorize) finds it out from the headers and answers
//! [`AuthDecision::allow_with(identity)`](AuthDecision::allow_with); each tool the request calls
//! then reads it with [`ToolContext::extension::<T>()`](claude_tools_core::tool::ToolContext::extension), or
//! takes an [`Extension<T>`](claude_tools_core::tool::Extension) parameter. Each request carries its own:
//! two clients calling at once with different tokens each see theirs. A plain
//! [`AuthDecision::Allow`] (and the [bearer token](HttpServer::bearer_token)) attaches nothing.
//!
//! Each request runs in a `tracing` span `mcp_http` with the fields `method` (JSON-RPC), `tool`,
//! `id`, `status` (HTTP) and `outcome` (`result`, `tool_error`, `error`, `accepted`, `rejected`,
//! `timeout`, `shutdown`, `disconnected`). Argument values and results are never logged.
//!
//! The tool set can change while the server runs ([`HttpServer::tool_server_handle`]): each
//! request uses the set current when it starts. No `notifications/tools/list_changed` can be
//! pushed without a session's stream; clients see the change at their next `tools/list` (with
//! [sessions](#sessions) it goes to every open session stream).
//!
//! # Sessions
//!
//! [`HttpServer::sessions(true)`](HttpServer::sessions) turns on the transport's stateful
//! sessions (stateless stays the default):
//!
//! | request | answer |
//! |---|---|
//! | `POST` `initialize` | a new session: the reply carries `Mcp-Session-Id` (32 hex digits, 128 bits from the operating system's CSPRNG) and `listChanged: true`; beyond [`HttpServer::max_sessions`] (default [`DEFAULT_MAX_SESSIONS`]) live sessions, `503` |
//! | any other `POST`, `GET` or `DELETE` without `Mcp-Session-Id` | `400 Bad Request` |
//! | … naming a session that never existed, was deleted or expired | `404 Not Found` (the client starts a new session) |
//! | `POST` in a session | as without sessions, on the session's connection state: request ids belong to the session, and `notifications/cancelled {requestId}` cancels the session's running call with that id (it answers `-32800` on its own request) |
//! | `GET` with `Accept: text/event-stream` | `200`, the session's server→client SSE stream: `notifications/tools/list_changed` each time [`HttpServer::tool_server_handle`] changes the list; `409 Conflict` while the session's stream is already open; `406` without `text/event-stream` in `Accept` |
//! | `DELETE` | `204 No Content`: the session ends, its running calls are cancelled, its stream ends |
//!
//! Progress stays on the call's own SSE response, as without sessions. A session unused for
//! [`HttpServer::session_idle_timeout`] (default [`DEFAULT_SESSION_IDLE_TIMEOUT`]) is dropped
//! (a request still running, or its open stream, keeps it alive); its id then answers `404`.
//! Each request still passes the origin and auth checks on its own, and the identity an auth
//! hook attaches is the request's, not the session's. At a graceful shutdown the session
//! streams end first, so that they do not hold their connections through the grace.
//!
//! Sessions live in the memory of the replica that made them. Behind a load balancer, every
//! request of a session must reach that replica (sticky sessions, e.g. by the
//! `Mcp-Session-Id` header), and a replica's restart ends its sessions (clients get `404` and
//! initialize again). Behind a plain load balancer, stay stateless.
//!
//! The server speaks HTTP/1.1 (what the MCP clients use; put a TLS-terminating proxy in front
//! for HTTPS or HTTP/2). To serve MCP next to routes of your own, mount
//! [`HttpServer::into_router`] into your [`axum`] app.

use std::any::Any;
use std::convert::Infallible;
use std::future::{Future, IntoFuture};
use std::io;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

pub use axum;
use axum::body::{Body, Bytes};
use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use http_body::Frame;
use http_body_util::BodyExt;
use serde_json::Value;
use serde_json::value::RawValue;
use tokio::net::TcpListener;
use tokio::sync::{mpsc, watch};
use tokio::task::JoinSet;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;
use tracing::Instrument;

pub use crate::stdio::DEFAULT_SHUTDOWN_GRACE;
pub use session::table::{DEFAULT_MAX_SESSIONS, DEFAULT_SESSION_IDLE_TIMEOUT};
use session::table::{NewSessionError, SessionTable, SessionUse};

mod session;
use claude_tools_core::json_scan;
use claude_tools_core::mcp::{
    McpMessage, McpRouter, Reply, SUPPORTED_PROTOCOL_VERSIONS, Started, ToolServerHandle, jsonrpc,
};
use claude_tools_core::tool::{ToolResult, ToolServer};

/// The path clients POST to unless [`HttpServer::path`] says otherwise.
pub const DEFAULT_PATH: &str = "/mcp";

/// The largest request body accepted unless [`HttpServer::max_body_size`] says otherwise: 4 MiB.
pub const DEFAULT_MAX_BODY_SIZE: usize = 4 * 1024 * 1024;

/// How long a request may take unless [`HttpServer::request_timeout`] says otherwise: 60 s.
pub const DEFAULT_REQUEST_TIMEOUT: Duration = Duration::from_secs(60);

/// The JSON-RPC error code of the transport's own refusals (403, 401, 405, 406, 413, 415…): the
/// start of JSON-RPC's range for implementation-defined server errors.
pub const TRANSPORT_ERROR: i64 = -32000;

/// The request header carrying the client's negotiated MCP version.
const PROTOCOL_VERSION_HEADER: &str = "mcp-protocol-version";

/// The header carrying the session id, in `initialize`'s answer and every later request of the
/// session (sessions mode only).
const SESSION_ID_HEADER: &str = "mcp-session-id";

/// What an [auth hook](HttpServer::authorize) decides about one request.
#[derive(Clone)]
pub enum AuthDecision {
    /// Serve the request.
    Allow,
    /// Serve the request, and hand this value (the caller's identity: a tenant, a user, its
    /// scopes) to the tools it calls, which read it with
    /// [`ToolContext::extension`](claude_tools_core::tool::ToolContext::extension) or the
    /// [`Extension`](claude_tools_core::tool::Extension) extractor. Made by [`AuthDecision::allow_with`].
    AllowWith(Identity),
    /// Answer `401 Unauthorized` with `WWW-Authenticate: Bearer`.
    Deny,
}

/// The caller's identity an [auth hook](HttpServer::authorize) attaches to a request's calls.
pub type Identity = Arc<dyn Any + Send + Sync>;

impl AuthDecision {
    /// Serve the request, with `identity` attached to every tool call it makes: a tool reads it
    /// as `ctx.extension::<T>()` or takes an `Extension<T>` parameter, `T` being exactly the
    /// type given here (pass a `T`, not an `Arc<T>`: that would attach an `Arc<T>`).
    pub fn allow_with<T: Send + Sync + 'static>(identity: T) -> Self {
        AuthDecision::AllowWith(Arc::new(identity))
    }
}

impl std::fmt::Debug for AuthDecision {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            AuthDecision::Allow => f.write_str("Allow"),
            AuthDecision::AllowWith(_) => f.write_str("AllowWith(..)"),
            AuthDecision::Deny => f.write_str("Deny"),
        }
    }
}

/// Two `AllowWith` are equal when they carry the same value (the same `Arc`).
impl PartialEq for AuthDecision {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (AuthDecision::Allow, AuthDecision::Allow)
            | (AuthDecision::Deny, AuthDecision::Deny) => true,
            (AuthDecision::AllowWith(a), AuthDecision::AllowWith(b)) => Arc::ptr_eq(a, b),
            _ => false,
        }
    }
}

impl Eq for AuthDecision {}

type AuthFuture = Pin<Box<dyn Future<Output = AuthDecision> + Send>>;
type AuthHook = dyn Fn(&HeaderMap) -> AuthFuture + Send + Sync;

/// Who may call: a ready-made bearer token (checked without a future), or the user's hook.
#[derive(Clone)]
enum Auth {
    Bearer(Arc<[u8]>),
    Hook(Arc<AuthHook>),
}

/// Which `Origin` headers pass.
#[derive(Debug, Clone)]
enum Origins {
    /// `http(s)://localhost|127.0.0.1|[::1]` with any port.
    Loopback,
    /// Exactly these origins, lowercased, without a trailing `/`.
    List(Vec<String>),
    /// Any origin (`"*"` in the list).
    Any,
}

/// An MCP Streamable HTTP server for one [`ToolServer`]: configure it, then
/// [`serve`](HttpServer::serve) it on a listener or mount it with
/// [`into_router`](HttpServer::into_router). See the [module docs](self) for the protocol rules.
#[must_use = "an HttpServer does nothing until it is served"]
pub struct HttpServer {
    router: McpRouter,
    path: String,
    origins: Origins,
    auth: Option<Auth>,
    max_body_size: usize,
    request_timeout: Duration,
    sessions: Arc<SessionTable>,
    session_limits: Option<SessionLimits>,
}

/// The rules of sessions mode ([`HttpServer::sessions`]).
#[derive(Debug, Clone, Copy)]
struct SessionLimits {
    idle_timeout: Duration,
    max: usize,
}

impl Default for SessionLimits {
    fn default() -> Self {
        Self {
            idle_timeout: DEFAULT_SESSION_IDLE_TIMEOUT,
            max: DEFAULT_MAX_SESSIONS,
        }
    }
}

impl HttpServer {
    /// A server for `server`'s tools, with the defaults: path [`DEFAULT_PATH`], loopback origins
    /// only, no auth, [`DEFAULT_MAX_BODY_SIZE`], [`DEFAULT_REQUEST_TIMEOUT`].
    pub fn new(server: ToolServer) -> Self {
        let sessions = Arc::new(SessionTable::default());
        // A change of the tool set goes to every session's stream (none in stateless mode).
        let hub = sessions.clone();
        let router =
            McpRouter::new(server).with_notifier(Arc::new(move |message| hub.broadcast(&message)));
        Self {
            router,
            path: DEFAULT_PATH.to_string(),
            origins: Origins::Loopback,
            auth: None,
            max_body_size: DEFAULT_MAX_BODY_SIZE,
            request_timeout: DEFAULT_REQUEST_TIMEOUT,
            sessions,
            session_limits: None,
        }
    }

    /// Turns stateful sessions on (`true`) or off (`false`, the default: stateless). See
    /// [Sessions](self#sessions) in the module docs: `initialize` issues an `Mcp-Session-Id` that
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
    /// [`DEFAULT_SESSION_IDLE_TIMEOUT`], 30 minutes); a request still running, or an open
    /// `GET` stream, keeps it alive. Turns sessions on.
    pub fn session_idle_timeout(mut self, timeout: Duration) -> Self {
        self.session_limits
            .get_or_insert_with(SessionLimits::default)
            .idle_timeout = timeout;
        self
    }

    /// The most sessions held at once (default [`DEFAULT_MAX_SESSIONS`]); an `initialize` beyond
    /// it, once idle sessions are dropped, is answered `503 Service Unavailable`. Turns sessions
    /// on.
    pub fn max_sessions(mut self, max: usize) -> Self {
        self.session_limits
            .get_or_insert_with(SessionLimits::default)
            .max = max;
        self
    }

    /// The path clients POST to (default [`DEFAULT_PATH`], `/mcp`). A path without a leading
    /// `/` gets one.
    pub fn path(mut self, path: impl Into<String>) -> Self {
        let path = path.into();
        self.path = if path.starts_with('/') {
            path
        } else {
            format!("/{path}")
        };
        self
    }

    /// The browser origins allowed to call, replacing the default (loopback origins with any
    /// port). Each entry is an origin as browsers send it, `scheme://host[:port]`, compared
    /// without regard to case; `"*"` allows any origin (only behind a proxy that checks origins
    /// itself). Requests without an `Origin` header always pass: only browsers send one.
    ///
    /// ```
    /// # use claude_tools::mcp::http::HttpServer;
    /// # let server = claude_tools::ToolServer::new("demo", "1.0.0");
    /// let http = HttpServer::new(server)
    ///     .allowed_origins(["https://console.example.com", "http://localhost:5173"]);
    /// ```
    pub fn allowed_origins<I, S>(mut self, origins: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        let mut list = Vec::new();
        for origin in origins {
            let origin = origin.into();
            if origin.trim() == "*" {
                self.origins = Origins::Any;
                return self;
            }
            list.push(origin.trim().trim_end_matches('/').to_ascii_lowercase());
        }
        self.origins = Origins::List(list);
        self
    }

    /// The largest request body accepted, in bytes (default [`DEFAULT_MAX_BODY_SIZE`], 4 MiB). A
    /// larger one is answered `413` as soon as its `Content-Length` (or, streamed, its first
    /// byte over the cap) shows it, never held whole in memory.
    pub fn max_body_size(mut self, bytes: usize) -> Self {
        self.max_body_size = bytes;
        self
    }

    /// How long one request may take, from its arrival to its answer (default
    /// [`DEFAULT_REQUEST_TIMEOUT`], 60 s); a `tools/call` running longer is cancelled and
    /// answered with an `isError` result naming the timeout (see the [module docs](self)).
    pub fn request_timeout(mut self, timeout: Duration) -> Self {
        self.request_timeout = timeout;
        self
    }

    /// Requires `Authorization: Bearer <token>` on every request; others get `401`. The
    /// comparison takes the same time wherever the tokens differ (only the length can be told
    /// apart). Replaces any earlier [`authorize`](HttpServer::authorize) hook.
    pub fn bearer_token(mut self, token: impl Into<String>) -> Self {
        self.auth = Some(Auth::Bearer(token.into().into_bytes().into()));
        self
    }

    /// Decides per request, from its headers, whether it is served: an async hook, for example
    /// to look a bearer token up in a database. [`AuthDecision::Deny`] answers `401` with
    /// `WWW-Authenticate: Bearer`. The hook runs after the origin check and before the body is
    /// read. Replaces any earlier hook or [`bearer_token`](HttpServer::bearer_token).
    ///
    /// The hook gets the headers borrowed: take what it needs out of them before its `async`
    /// block ([`bearer_token_of`] reads the token).
    ///
    /// [`AuthDecision::allow_with`] also tells the tools who is calling: the value it carries
    /// (a tenant, a user) is attached to every tool call of the request, which reads it with
    /// [`ToolContext::extension`](claude_tools_core::tool::ToolContext::extension) or an
    /// [`Extension<T>`](claude_tools_core::tool::Extension) parameter.
    ///
    /// ```
    /// use std::collections::HashMap;
    /// use std::sync::Arc;
    /// use claude_tools::mcp::http::{AuthDecision, HttpServer, bearer_token_of};
    /// use claude_tools::tools::{ToolDefBuilder, ToolServer};
    ///
    /// /// Who is calling.
    /// struct Tenant(String);
    ///
    /// let server = ToolServer::new("demo", "1.0.0")
    ///     .with_tool(ToolDefBuilder::new("whoami"), |call| async move {
    ///         let tenant = call.context().extension::<Tenant>().map(|t| t.0.clone());
    ///         tenant.unwrap_or_default()
    ///     })
    ///     .expect("a valid server");
    /// let keys: Arc<HashMap<String, String>> =
    ///     Arc::new([("key-1".to_string(), "acme".to_string())].into());
    /// let http = HttpServer::new(server).authorize(move |headers| {
    ///     let token = bearer_token_of(headers).map(str::to_owned);
    ///     let keys = keys.clone();
    ///     async move {
    ///         // e.g. `SELECT tenant FROM api_keys WHERE key = $1` in a real deployment
    ///         match token.and_then(|token| keys.get(&token).cloned()) {
    ///             Some(tenant) => AuthDecision::allow_with(Tenant(tenant)),
    ///             None => AuthDecision::Deny,
    ///         }
    ///     }
    /// });
    /// ```
    pub fn authorize<F, Fut>(mut self, hook: F) -> Self
    where
        F: Fn(&HeaderMap) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = AuthDecision> + Send + 'static,
    {
        self.auth = Some(Auth::Hook(Arc::new(move |headers: &HeaderMap| {
            Box::pin(hook(headers)) as AuthFuture
        })));
        self
    }

    /// A handle to change the served tools while the server runs: a change applies to every
    /// request that starts after it, on every connection. Stateless HTTP has no stream to push
    /// `notifications/tools/list_changed` on, so none is sent (and `initialize` says
    /// `listChanged: false`); clients see the new list at their next `tools/list`. With
    /// [sessions](HttpServer::sessions), each change that alters the list is sent on every
    /// session's open `GET` stream (and `initialize` says `listChanged: true`).
    pub fn tool_server_handle(&self) -> ToolServerHandle {
        self.router.tool_server_handle()
    }

    /// Serves on `listener` (HTTP/1.1) until the [graceful shutdown](HttpServe::with_graceful_shutdown)
    /// signal, if one is set; await the returned [`HttpServe`].
    pub fn serve(self, listener: TcpListener) -> HttpServe {
        HttpServe {
            server: self,
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
    /// Every rule of the [module docs](self) holds, request timeout included, except the
    /// graceful shutdown's grace and cancellation, which belong to [`HttpServe`] (with
    /// `axum::serve`'s own graceful shutdown, running calls are waited for without a limit, and
    /// open session streams too: end the sessions first).
    /// A call is cancelled when its client disconnects as long as the server drops the request
    /// then, which `axum::serve` and hyper do.
    pub fn into_router(self) -> axum::Router {
        router_of(Arc::new(self.into_shared()))
    }

    fn into_shared(self) -> Shared {
        let Self {
            router,
            path,
            origins,
            auth,
            max_body_size,
            request_timeout,
            sessions,
            session_limits,
        } = self;
        Shared {
            router,
            path,
            origins,
            auth,
            max_body_size,
            request_timeout,
            sessions,
            session_limits,
            shutdown: CancellationToken::new(),
        }
    }
}

impl std::fmt::Debug for HttpServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HttpServer")
            .field("server", &self.router.server())
            .field("path", &self.path)
            .field("origins", &self.origins)
            .field("auth", &self.auth.as_ref().map(|_| "set"))
            .field("max_body_size", &self.max_body_size)
            .field("request_timeout", &self.request_timeout)
            .field("sessions", &self.session_limits)
            .finish()
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
    /// Shuts the server down gracefully when `signal` resolves (see the [module docs](self)).
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

/// The `Authorization: Bearer <token>` of `headers`, if there is one (the scheme's case does
/// not matter), for an [auth hook](HttpServer::authorize).
pub fn bearer_token_of(headers: &HeaderMap) -> Option<&str> {
    let value = headers.get(header::AUTHORIZATION)?.to_str().ok()?;
    let (scheme, token) = value.trim().split_once(' ')?;
    let token = token.trim();
    (scheme.eq_ignore_ascii_case("bearer") && !token.is_empty()).then_some(token)
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

// ---------------------------------------------------------------------------------------------
// One request.

/// What every request shares: the tools, the rules, and the shutdown's cancellation.
struct Shared {
    /// Serves no request itself: each request gets [`McpRouter::new_connection`] of it.
    router: McpRouter,
    path: String,
    origins: Origins,
    auth: Option<Auth>,
    max_body_size: usize,
    request_timeout: Duration,
    /// The sessions, by id (empty when stateless).
    sessions: Arc<SessionTable>,
    /// `Some` in sessions mode.
    session_limits: Option<SessionLimits>,
    /// Fires when a graceful shutdown's grace is over.
    shutdown: CancellationToken,
}

fn router_of(shared: Arc<Shared>) -> axum::Router {
    let path = shared.path.clone();
    let route = if shared.session_limits.is_some() {
        post(handle).get(open_stream).delete(end_session)
    } else {
        post(handle)
            .get(method_not_allowed)
            .delete(method_not_allowed)
    };
    axum::Router::new().route(&path, route).with_state(shared)
}

async fn method_not_allowed() -> Response {
    let mut response = transport_error(
        StatusCode::METHOD_NOT_ALLOWED,
        TRANSPORT_ERROR,
        "Method Not Allowed",
        "this MCP server is stateless: POST each JSON-RPC message; it has no GET stream and no session to DELETE",
    );
    response
        .headers_mut()
        .insert(header::ALLOW, HeaderValue::from_static("POST"));
    response
}

async fn handle(State(shared): State<Arc<Shared>>, request: Request) -> Response {
    let span = tracing::info_span!(
        "mcp_http",
        method = tracing::field::Empty,
        tool = tracing::field::Empty,
        id = tracing::field::Empty,
        status = tracing::field::Empty,
        outcome = tracing::field::Empty,
    );
    let watch = DisconnectWatch::new(span.clone());
    let response = answer(&shared, request, &span)
        .instrument(span.clone())
        .await;
    watch.answered();
    span.record("status", response.status().as_u16());
    tracing::debug!(parent: &span, "MCP HTTP: answered");
    response
}

/// Notes in the request's span that the client went away while its request ran (the handler's
/// future dropped before it answered).
struct DisconnectWatch {
    span: Option<tracing::Span>,
}

impl DisconnectWatch {
    fn new(span: tracing::Span) -> Self {
        Self { span: Some(span) }
    }

    fn answered(mut self) {
        self.span = None;
    }
}

impl Drop for DisconnectWatch {
    fn drop(&mut self) {
        if let Some(span) = self.span.take() {
            span.record("outcome", "disconnected");
            tracing::debug!(parent: &span, "MCP HTTP: the client disconnected; its call is cancelled");
        }
    }
}

async fn answer(shared: &Shared, request: Request, span: &tracing::Span) -> Response {
    let deadline = Instant::now() + shared.request_timeout;
    let (parts, body) = request.into_parts();
    let identity = match admit(shared, &parts.headers, deadline).await {
        Ok(identity) => identity,
        Err(refusal) => {
            span.record("outcome", "rejected");
            return refusal;
        }
    };
    let accepts = match check_headers(&parts.headers) {
        Ok(accepts) => accepts,
        Err(refusal) => {
            span.record("outcome", "rejected");
            return refusal.into_response();
        }
    };
    let body = match read_body(body, &parts.headers, shared.max_body_size, deadline).await {
        Ok(body) => body,
        Err(refusal) => {
            span.record("outcome", "rejected");
            return refusal.into_response();
        }
    };
    let message = match parse(&body) {
        Ok(message) => message,
        Err(refusal) => {
            span.record("outcome", "rejected");
            return refusal.into_response();
        }
    };
    let form = ReplyForm {
        accepts,
        id: jsonrpc::verbatim_id(message.id(), || json_scan::message_id(&body)),
    };
    // Stateless: a fresh connection state per request. Sessions: `initialize` opens a session,
    // anything else must name a live one and shares its connection state.
    let (router, session) = match shared.session_limits {
        None => (shared.router.new_connection(), None),
        Some(limits) => match session_of(shared, limits, &parts.headers, &message) {
            Ok(session) => (session.session().router().clone(), Some(session)),
            Err(refusal) => {
                span.record("outcome", "rejected");
                return refusal.into_response();
            }
        },
    };
    let router = router.with_extension(identity);
    let in_session = session.is_some();
    let opened = is_initialize(&message).then_some(()).and(session.as_ref());
    let mut response = match message {
        McpMessage::ToolCall(call) => {
            span.record("method", "tools/call");
            span.record("tool", call.name.as_str());
            span.record("id", tracing::field::display(&call.id));
            tool_call(shared, router, call, form, deadline, span).await
        }
        McpMessage::Other(value) => match as_tool_call(value) {
            Ok(call) => {
                span.record("method", "tools/call");
                span.record("tool", call.name.as_str());
                span.record("id", tracing::field::display(&call.id));
                tool_call(shared, router, call, form, deadline, span).await
            }
            Err(value) => {
                other_message(shared, router, in_session, value, form, deadline, span).await
            }
        },
    };
    if let Some(session) = opened
        && let Ok(id) = HeaderValue::from_str(session.session().id())
    {
        response.headers_mut().insert(SESSION_ID_HEADER, id);
    }
    match session {
        // A streamed answer (a call with progress) outlives this function: the session stays in
        // use until its body has been sent or dropped.
        Some(session) => response.map(|body| {
            Body::new(InSession {
                body,
                _use: session,
            })
        }),
        None => response,
    }
}

/// A response body of a session's request, holding the session in use while it is sent.
struct InSession {
    body: Body,
    _use: SessionUse,
}

impl http_body::Body for InSession {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, axum::Error>>> {
        Pin::new(&mut self.body).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> http_body::SizeHint {
        self.body.size_hint()
    }
}

/// Whether `message` is an `initialize` request (which opens a session in sessions mode).
fn is_initialize(message: &McpMessage) -> bool {
    match message {
        McpMessage::ToolCall(_) => false,
        McpMessage::Other(value) => {
            value.get("method").and_then(Value::as_str) == Some("initialize")
                && value.get("id").is_some()
        }
    }
}

/// The session a POST of sessions mode belongs to: a new one for `initialize`, else the live
/// one its `Mcp-Session-Id` names.
fn session_of(
    shared: &Shared,
    limits: SessionLimits,
    headers: &HeaderMap,
    message: &McpMessage,
) -> Result<SessionUse, Refusal> {
    if !is_initialize(message) {
        return session_named(shared, limits, headers);
    }
    match shared
        .sessions
        .create(&shared.router, limits.max, limits.idle_timeout)
    {
        Ok(session) => Ok(SessionUse::of_new(session)),
        Err(NewSessionError::Full) => Err(Refusal::new(
            StatusCode::SERVICE_UNAVAILABLE,
            TRANSPORT_ERROR,
            "Service Unavailable",
            format!(
                "this server holds its maximum of {} sessions; try again later",
                limits.max
            ),
        )),
        Err(NewSessionError::NoRandomness(error)) => Err(Refusal::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            TRANSPORT_ERROR,
            "Internal Server Error",
            format!("no session id could be made: {error}"),
        )),
    }
}

/// The live session the request's `Mcp-Session-Id` names: `400` without the header, `404` for
/// an unknown, ended or expired session (the client then initializes a new one).
fn session_named(
    shared: &Shared,
    limits: SessionLimits,
    headers: &HeaderMap,
) -> Result<SessionUse, Refusal> {
    let Some(id) = headers.get(SESSION_ID_HEADER) else {
        return Err(Refusal::new(
            StatusCode::BAD_REQUEST,
            TRANSPORT_ERROR,
            "Bad Request",
            "this server uses sessions: send the `Mcp-Session-Id` header that `initialize` answered",
        ));
    };
    let id = id.to_str().unwrap_or_default().trim();
    shared
        .sessions
        .open(id, limits.idle_timeout)
        .ok_or_else(|| {
            Refusal::new(
                StatusCode::NOT_FOUND,
                TRANSPORT_ERROR,
                "Not Found",
                "no such session: it never existed, was ended, or expired; send `initialize` to start a new one",
            )
        })
}

/// `GET` in sessions mode: the session's server→client SSE stream.
async fn open_stream(State(shared): State<Arc<Shared>>, request: Request) -> Response {
    let headers = request.headers();
    let deadline = Instant::now() + shared.request_timeout;
    if let Err(refusal) = admit(&shared, headers, deadline).await {
        return refusal;
    }
    if !accepts(headers).sse_named {
        return transport_error(
            StatusCode::NOT_ACCEPTABLE,
            TRANSPORT_ERROR,
            "Not Acceptable",
            "the session's stream is `text/event-stream`: name it in `Accept`",
        );
    }
    let Some(limits) = shared.session_limits else {
        return method_not_allowed().await;
    };
    let session = match session_named(&shared, limits, headers) {
        Ok(session) => session,
        Err(refusal) => return refusal.into_response(),
    };
    match session.open_stream() {
        Some(stream) => sse_response(Body::new(stream)),
        None => transport_error(
            StatusCode::CONFLICT,
            TRANSPORT_ERROR,
            "Conflict",
            "this session's stream is already open",
        ),
    }
}

/// `DELETE` in sessions mode: ends the session (its running calls are cancelled, its stream
/// ends).
async fn end_session(State(shared): State<Arc<Shared>>, request: Request) -> Response {
    let headers = request.headers();
    let deadline = Instant::now() + shared.request_timeout;
    if let Err(refusal) = admit(&shared, headers, deadline).await {
        return refusal;
    }
    let Some(limits) = shared.session_limits else {
        return method_not_allowed().await;
    };
    let id = match session_named(&shared, limits, headers) {
        Ok(session) => session.session().id().to_string(),
        Err(refusal) => return refusal.into_response(),
    };
    // Another DELETE may have ended it meanwhile: it is gone either way.
    shared.sessions.remove(&id);
    StatusCode::NO_CONTENT.into_response()
}

/// A well-formed `tools/call` the typed reader left as JSON (its `params` came before its
/// `method`), so that it gets the same progress, timeout and shutdown handling.
fn as_tool_call(value: Value) -> Result<claude_tools_core::mcp::ToolCallRequest, Value> {
    let Value::Object(mut fields) = value else {
        return Err(value);
    };
    let well_formed = fields.get("method").and_then(Value::as_str) == Some("tools/call")
        && fields.get("jsonrpc").and_then(Value::as_str) == Some("2.0")
        && matches!(fields.get("id"), Some(Value::Number(_) | Value::String(_)))
        && fields
            .get("params")
            .and_then(|params| params.get("name"))
            .is_some_and(Value::is_string);
    if !well_formed {
        return Err(Value::Object(fields));
    }
    let id = fields.remove("id").unwrap_or_default();
    let params = fields.remove("params");
    // `params.name` was checked: the conversion cannot refuse it.
    claude_tools_core::mcp::tool_call_request(id, params).map_err(|_| Value::Null)
}

/// The checks every method passes first, in this order: the `Origin`, then the auth hook or
/// bearer token. Returns the identity the hook attached, if any.
async fn admit(
    shared: &Shared,
    headers: &HeaderMap,
    deadline: Instant,
) -> Result<Option<Identity>, Response> {
    if let Some(refusal) = check_origin(shared, headers) {
        return Err(refusal);
    }
    check_auth(shared, headers, deadline).await
}

fn check_origin(shared: &Shared, headers: &HeaderMap) -> Option<Response> {
    let origin = headers.get(header::ORIGIN)?;
    let allowed = origin
        .to_str()
        .is_ok_and(|origin| origin_allowed(&shared.origins, origin));
    if allowed {
        return None;
    }
    let shown = String::from_utf8_lossy(origin.as_bytes());
    tracing::debug!(origin = %shown, "MCP HTTP: origin not allowed");
    Some(transport_error(
        StatusCode::FORBIDDEN,
        TRANSPORT_ERROR,
        "Forbidden",
        &format!("origin `{shown}` is not allowed"),
    ))
}

fn origin_allowed(origins: &Origins, origin: &str) -> bool {
    match origins {
        Origins::Any => true,
        Origins::List(list) => {
            let origin = origin.trim().trim_end_matches('/');
            list.iter()
                .any(|allowed| allowed.eq_ignore_ascii_case(origin))
        }
        Origins::Loopback => is_loopback_origin(origin.trim()),
    }
}

/// `http(s)://` + `localhost`, `127.0.0.1` or `[::1]` + an optional `:port`, nothing more.
fn is_loopback_origin(origin: &str) -> bool {
    let Some((scheme, rest)) = origin.split_once("://") else {
        return false;
    };
    if !scheme.eq_ignore_ascii_case("http") && !scheme.eq_ignore_ascii_case("https") {
        return false;
    }
    // `port` keeps its leading `:`.
    let (host, port) = match rest.strip_prefix("[::1]") {
        Some(port) => ("[::1]", port),
        None => rest.split_at(rest.find(':').unwrap_or(rest.len())),
    };
    let port_ok = port.is_empty()
        || port
            .strip_prefix(':')
            .is_some_and(|digits| !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()));
    port_ok && (host.eq_ignore_ascii_case("localhost") || host == "127.0.0.1" || host == "[::1]")
}

/// The request's identity if it may be served (`None`: no identity attached), or the refusal.
async fn check_auth(
    shared: &Shared,
    headers: &HeaderMap,
    deadline: Instant,
) -> Result<Option<Identity>, Response> {
    let Some(auth) = shared.auth.as_ref() else {
        return Ok(None);
    };
    let decision = match auth {
        Auth::Bearer(expected) => match bearer_token_of(headers) {
            Some(token) if constant_time_eq(token.as_bytes(), expected) => AuthDecision::Allow,
            _ => AuthDecision::Deny,
        },
        // A hook that hangs (its database down) must not hold the request past its deadline.
        Auth::Hook(hook) => match tokio::time::timeout_at(deadline, hook(headers)).await {
            Ok(decision) => decision,
            Err(_) => {
                return Err(transport_error(
                    StatusCode::SERVICE_UNAVAILABLE,
                    TRANSPORT_ERROR,
                    "Service Unavailable",
                    "the authorization check did not finish within the server's request timeout",
                ));
            }
        },
    };
    match decision {
        AuthDecision::Allow => return Ok(None),
        AuthDecision::AllowWith(identity) => return Ok(Some(identity)),
        AuthDecision::Deny => {}
    }
    let challenge = if headers.contains_key(header::AUTHORIZATION) {
        HeaderValue::from_static("Bearer error=\"invalid_token\"")
    } else {
        HeaderValue::from_static("Bearer")
    };
    let mut response = transport_error(
        StatusCode::UNAUTHORIZED,
        TRANSPORT_ERROR,
        "Unauthorized",
        "this server requires `Authorization: Bearer <token>` with a valid token",
    );
    response
        .headers_mut()
        .insert(header::WWW_AUTHENTICATE, challenge);
    Err(response)
}

/// Equal-length inputs take the same time however much of them matches.
fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    let difference = a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y));
    std::hint::black_box(difference) == 0
}

/// How this request's reply is written: in the form the client takes, with the request's id
/// as it came when the reply must write it so ([`jsonrpc::verbatim_id`]).
struct ReplyForm {
    accepts: Accepts,
    id: Option<Box<RawValue>>,
}

/// What the client's `Accept` admits.
#[derive(Debug, Clone, Copy)]
struct Accepts {
    json: bool,
    sse: bool,
    /// `text/event-stream` named (not through a wildcard): the client reads SSE, so progress
    /// may be streamed.
    sse_named: bool,
}

fn check_headers(headers: &HeaderMap) -> Result<Accepts, Refusal> {
    if let Some(version) = headers.get(PROTOCOL_VERSION_HEADER) {
        let known = version
            .to_str()
            .is_ok_and(|version| SUPPORTED_PROTOCOL_VERSIONS.contains(&version.trim()));
        if !known {
            return Err(Refusal::new(
                StatusCode::BAD_REQUEST,
                TRANSPORT_ERROR,
                "Bad Request",
                format!(
                    "unsupported MCP-Protocol-Version `{}`; this server supports {}",
                    String::from_utf8_lossy(version.as_bytes()),
                    SUPPORTED_PROTOCOL_VERSIONS.join(", ")
                ),
            ));
        }
    }
    let json_body = headers
        .get(header::CONTENT_TYPE)
        .and_then(|value| value.to_str().ok())
        .is_some_and(|value| {
            let essence = value.split(';').next().unwrap_or_default().trim();
            essence.eq_ignore_ascii_case("application/json")
        });
    if !json_body {
        return Err(Refusal::new(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            TRANSPORT_ERROR,
            "Unsupported Media Type",
            "the body must be one JSON-RPC message with `Content-Type: application/json`",
        ));
    }
    let accepts = accepts(headers);
    if !accepts.json && !accepts.sse {
        return Err(Refusal::new(
            StatusCode::NOT_ACCEPTABLE,
            TRANSPORT_ERROR,
            "Not Acceptable",
            "the client must accept `application/json` or `text/event-stream`",
        ));
    }
    Ok(accepts)
}

fn accepts(headers: &HeaderMap) -> Accepts {
    let mut values = headers.get_all(header::ACCEPT).iter().peekable();
    if values.peek().is_none() {
        // No `Accept`: anything goes; a plain JSON reply is the safe choice.
        return Accepts {
            json: true,
            sse: true,
            sse_named: false,
        };
    }
    let mut accepts = Accepts {
        json: false,
        sse: false,
        sse_named: false,
    };
    for value in values {
        let Ok(value) = value.to_str() else { continue };
        for range in value.split(',') {
            let mut fields = range.split(';');
            let media = fields.next().unwrap_or_default().trim();
            let refused = fields.any(|param| {
                let param = param.trim();
                param
                    .strip_prefix("q=")
                    .or_else(|| param.strip_prefix("Q="))
                    .and_then(|q| q.trim().parse::<f32>().ok())
                    .is_some_and(|q| q <= 0.0)
            });
            if refused {
                continue;
            }
            let is = |name: &str| media.eq_ignore_ascii_case(name);
            if is("*/*") {
                accepts.json = true;
                accepts.sse = true;
            } else if is("application/*") || is("application/json") {
                accepts.json = true;
            } else if is("text/*") {
                accepts.sse = true;
            } else if is("text/event-stream") {
                accepts.sse = true;
                accepts.sse_named = true;
            }
        }
    }
    accepts
}

/// The body, read up to the cap and the deadline.
async fn read_body(
    body: Body,
    headers: &HeaderMap,
    cap: usize,
    deadline: Instant,
) -> Result<Bytes, Refusal> {
    let declared = headers
        .get(header::CONTENT_LENGTH)
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.trim().parse::<u64>().ok());
    if let Some(declared) = declared
        && declared > cap as u64
    {
        return Err(too_large(cap));
    }
    let limited = http_body_util::Limited::new(body, cap);
    match tokio::time::timeout_at(deadline, limited.collect()).await {
        Ok(Ok(collected)) => Ok(collected.to_bytes()),
        Ok(Err(error)) if error.is::<http_body_util::LengthLimitError>() => Err(too_large(cap)),
        Ok(Err(error)) => Err(Refusal::new(
            StatusCode::BAD_REQUEST,
            TRANSPORT_ERROR,
            "Bad Request",
            format!("the body could not be read: {error}"),
        )),
        Err(_) => Err(Refusal::new(
            StatusCode::REQUEST_TIMEOUT,
            TRANSPORT_ERROR,
            "Request Timeout",
            "the body did not arrive within the server's request timeout",
        )),
    }
}

fn too_large(cap: usize) -> Refusal {
    Refusal::new(
        StatusCode::PAYLOAD_TOO_LARGE,
        TRANSPORT_ERROR,
        "Payload Too Large",
        format!("the body is over this server's {cap}-byte cap"),
    )
}

/// The body as one message: a well-formed `tools/call` typed, anything else as JSON.
fn parse(body: &[u8]) -> Result<McpMessage, Refusal> {
    if let Ok(message) = serde_json::from_slice::<McpMessage>(body) {
        return match message {
            McpMessage::Other(Value::Array(_)) => Err(Refusal::new(
                StatusCode::BAD_REQUEST,
                jsonrpc::INVALID_REQUEST,
                "Invalid Request",
                "JSON-RPC batches are not supported (MCP removed them in 2025-06-18): POST one message per request",
            )),
            message => Ok(message),
        };
    }
    // Not a well-formed `tools/call` and not read as a plain value by the typed reader (a
    // `tools/call` with bad params): the router judges it as JSON.
    match serde_json::from_slice::<Value>(body) {
        Ok(value) => Ok(McpMessage::Other(value)),
        Err(error) => Err(Refusal::new(
            StatusCode::BAD_REQUEST,
            jsonrpc::PARSE_ERROR,
            "Parse error",
            error.to_string(),
        )),
    }
}

async fn other_message(
    shared: &Shared,
    router: McpRouter,
    in_session: bool,
    message: Value,
    form: ReplyForm,
    deadline: Instant,
    span: &tracing::Span,
) -> Response {
    let Value::Object(fields) = &message else {
        span.record("outcome", "rejected");
        return transport_error(
            StatusCode::BAD_REQUEST,
            jsonrpc::INVALID_REQUEST,
            "Invalid Request",
            "a JSON-RPC message must be a JSON object",
        );
    };
    let method = fields.get("method").and_then(Value::as_str);
    if let Some(method) = method {
        span.record("method", method);
    }
    if let Some(id) = fields.get("id") {
        span.record("id", tracing::field::display(id));
    }
    let is_notification = method
        .is_some_and(|method| !fields.contains_key("id") || method.starts_with("notifications/"));
    let is_response =
        method.is_none() && (fields.contains_key("result") || fields.contains_key("error"));
    if is_notification || is_response {
        if fields.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
            span.record("outcome", "rejected");
            return transport_error(
                StatusCode::BAD_REQUEST,
                jsonrpc::INVALID_REQUEST,
                "Invalid Request",
                "`jsonrpc` must be \"2.0\"",
            );
        }
        // Nothing to do for either in stateless mode (see the module docs on
        // `notifications/cancelled`); in a session, a `notifications/cancelled` cancels the
        // session's call with that id.
        if in_session && is_notification {
            router.handle(message).await;
        }
        span.record("outcome", "accepted");
        return StatusCode::ACCEPTED.into_response();
    }
    let id = fields.get("id").cloned().unwrap_or(Value::Null);
    let advertise_list_changed = in_session && method == Some("initialize");
    let mut reply = tokio::select! {
        biased;
        reply = router.handle_message(McpMessage::Other(message)) => reply,
        () = tokio::time::sleep_until(deadline) => {
            span.record("outcome", "timeout");
            Reply::Json(jsonrpc::error(
                id,
                jsonrpc::INTERNAL_ERROR,
                "Request timed out",
                Some(Value::String(format!(
                    "no answer within the server's {} request timeout",
                    seconds(shared.request_timeout)
                ))),
            ))
        }
    };
    let status = match &reply {
        Reply::Json(value) => match value.pointer("/error/code").and_then(Value::as_i64) {
            Some(jsonrpc::INVALID_REQUEST | jsonrpc::PARSE_ERROR) => StatusCode::BAD_REQUEST,
            _ => StatusCode::OK,
        },
        Reply::ToolResult { .. } => StatusCode::OK,
    };
    // A session has a stream to send `notifications/tools/list_changed` on.
    if advertise_list_changed
        && let Reply::Json(value) = &mut reply
        && let Some(list_changed) = value.pointer_mut("/result/capabilities/tools/listChanged")
    {
        *list_changed = Value::Bool(true);
    }
    record_outcome(span, &reply);
    if status != StatusCode::OK {
        span.record("outcome", "rejected");
        return json_response(status, reply_bytes(&reply, form.id.as_deref()));
    }
    reply_response(reply, &form)
}

async fn tool_call(
    shared: &Shared,
    router: McpRouter,
    call: claude_tools_core::mcp::ToolCallRequest,
    form: ReplyForm,
    deadline: Instant,
    span: &tracing::Span,
) -> Response {
    let streams_progress = form.accepts.sse_named && call.progress_token.is_some();
    let tool = call.name.clone();
    let id = call.id.clone();
    if !streams_progress {
        let reply = match router.start_call(call) {
            Started::Done(reply) => reply,
            // Dropping the running call (a timeout, the shutdown, or this future dropped on a
            // disconnect) cancels it.
            Started::Running(running) => tokio::select! {
                biased;
                reply = running.finish() => reply,
                () = tokio::time::sleep_until(deadline) => {
                    span.record("outcome", "timeout");
                    return reply_response(timed_out(id, &tool, shared.request_timeout), &form);
                }
                () = shared.shutdown.cancelled() => {
                    span.record("outcome", "shutdown");
                    return reply_response(shut_down(id, &tool), &form);
                }
            },
        };
        record_outcome(span, &reply);
        return reply_response(reply, &form);
    }

    let (progress, queued) = mpsc::unbounded_channel();
    let router = router.with_notifier(Arc::new(move |notification| {
        let _ = progress.send(notification);
    }));
    let state = match router.start_call(call) {
        // Answered at once: as plain JSON unless it reported progress on the way.
        Started::Done(reply) if queued.is_empty() && form.accepts.json => {
            record_outcome(span, &reply);
            return reply_response(reply, &form);
        }
        Started::Done(reply) => CallState::Done(reply),
        Started::Running(running) => CallState::Running(Box::pin(running.finish())),
    };
    let body = SseBody {
        queued,
        state,
        limits: Limits {
            deadline: Box::pin(tokio::time::sleep_until(deadline)),
            shutdown: Box::pin(shared.shutdown.clone().cancelled_owned()),
            id,
            verbatim_id: form.id,
            tool,
            timeout: shared.request_timeout,
            span: span.clone(),
        },
    };
    sse_response(Body::new(body))
}

/// The `isError` result of a call cancelled by the request timeout.
fn timed_out(id: Value, tool: &str, timeout: Duration) -> Reply {
    Reply::ToolResult {
        id,
        result: ToolResult::error(format!(
            "tool `{tool}` did not finish within the server's {} request timeout and was cancelled",
            seconds(timeout)
        )),
    }
}

/// The `isError` result of a call cancelled by a graceful shutdown's end.
fn shut_down(id: Value, tool: &str) -> Reply {
    Reply::ToolResult {
        id,
        result: ToolResult::error(format!(
            "the server shut down before tool `{tool}` finished; the call was cancelled"
        )),
    }
}

fn seconds(duration: Duration) -> String {
    format!("{} s", duration.as_secs_f64())
}

/// Notes the kind of a reply the router made as the span's outcome.
fn record_outcome(span: &tracing::Span, reply: &Reply) {
    let outcome = match reply {
        Reply::ToolResult { result, .. } if result.is_error => "tool_error",
        Reply::ToolResult { .. } => "result",
        Reply::Json(value) if value.get("error").is_some() => "error",
        Reply::Json(_) => "result",
    };
    span.record("outcome", outcome);
}

/// The reply's JSON, its id written as `id` when there is one ([`jsonrpc::EchoedId`]).
fn reply_bytes(reply: &Reply, id: Option<&RawValue>) -> Vec<u8> {
    match serde_json::to_vec(&jsonrpc::EchoedId { reply, id }) {
        Ok(bytes) => bytes,
        Err(error) => {
            // Only a tool result can fail to serialise (a non-finite number in it); its request
            // still gets an answer.
            tracing::error!(%error, "MCP HTTP: a reply did not serialise");
            let id = match reply {
                Reply::ToolResult { id, .. } => id.clone(),
                Reply::Json(value) => value.get("id").cloned().unwrap_or(Value::Null),
            };
            jsonrpc::error(
                id,
                jsonrpc::INTERNAL_ERROR,
                "Internal error",
                Some(Value::String(error.to_string())),
            )
            .to_string()
            .into_bytes()
        }
    }
}

/// A reply in the form the client takes: JSON, or a one-event SSE stream for a client that
/// reads only SSE.
fn reply_response(reply: Reply, form: &ReplyForm) -> Response {
    let bytes = reply_bytes(&reply, form.id.as_deref());
    if form.accepts.json {
        json_response(StatusCode::OK, bytes)
    } else {
        sse_response(Body::from(sse_event(&bytes)))
    }
}

fn json_response(status: StatusCode, body: Vec<u8>) -> Response {
    let mut response = Response::new(Body::from(body));
    *response.status_mut() = status;
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    response
}

fn sse_response(body: Body) -> Response {
    let mut response = Response::new(body);
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/event-stream"),
    );
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    // nginx and similar proxies buffer responses by default; an event must go out as it comes.
    headers.insert("x-accel-buffering", HeaderValue::from_static("no"));
    response
}

/// A refusal: `status` with a JSON-RPC error body of `id: null`.
fn transport_error(status: StatusCode, code: i64, message: &'static str, data: &str) -> Response {
    Refusal::new(status, code, message, data).into_response()
}

/// A request refused before it reached the router.
struct Refusal {
    status: StatusCode,
    code: i64,
    message: &'static str,
    data: String,
}

impl Refusal {
    fn new(status: StatusCode, code: i64, message: &'static str, data: impl Into<String>) -> Self {
        Self {
            status,
            code,
            message,
            data: data.into(),
        }
    }

    /// `status` with a JSON-RPC error body of `id: null`.
    fn into_response(self) -> Response {
        let body = jsonrpc::error(
            Value::Null,
            self.code,
            self.message,
            Some(Value::String(self.data)),
        );
        json_response(self.status, body.to_string().into_bytes())
    }
}

/// One SSE `message` event carrying `json` (compact JSON has no newline).
fn sse_event(json: &[u8]) -> Bytes {
    let mut event = Vec::with_capacity(json.len() + 24);
    event.extend_from_slice(b"event: message\ndata: ");
    event.extend_from_slice(json);
    event.extend_from_slice(b"\n\n");
    Bytes::from(event)
}

// ---------------------------------------------------------------------------------------------
// The SSE answer of a `tools/call` with progress.

enum CallState {
    Running(Pin<Box<dyn Future<Output = Reply> + Send>>),
    Done(Reply),
    Sent,
}

/// The response body of a `tools/call` streamed as SSE: it drives the call itself, so the call
/// runs exactly as long as the client reads (the body dropped on a disconnect drops the call,
/// which cancels it). Each progress notification is an event; the reply is the last one.
struct SseBody {
    queued: mpsc::UnboundedReceiver<Value>,
    state: CallState,
    limits: Limits,
}

/// What may end an SSE call before its handler does.
struct Limits {
    deadline: Pin<Box<tokio::time::Sleep>>,
    shutdown: Pin<Box<tokio_util::sync::WaitForCancellationFutureOwned>>,
    id: Value,
    /// The request's id as it came, for the reply to write ([`jsonrpc::verbatim_id`]).
    verbatim_id: Option<Box<RawValue>>,
    tool: String,
    timeout: Duration,
    span: tracing::Span,
}

impl Limits {
    /// The call's reply once it has one: its own, or the timeout's or the shutdown's.
    fn poll_reply(
        &mut self,
        call: &mut Pin<Box<dyn Future<Output = Reply> + Send>>,
        cx: &mut Context<'_>,
    ) -> Poll<Reply> {
        if let Poll::Ready(reply) = call.as_mut().poll(cx) {
            record_outcome(&self.span, &reply);
            return Poll::Ready(reply);
        }
        if self.deadline.as_mut().poll(cx).is_ready() {
            self.span.record("outcome", "timeout");
            return Poll::Ready(timed_out(self.id.clone(), &self.tool, self.timeout));
        }
        if self.shutdown.as_mut().poll(cx).is_ready() {
            self.span.record("outcome", "shutdown");
            return Poll::Ready(shut_down(self.id.clone(), &self.tool));
        }
        Poll::Pending
    }
}

impl http_body::Body for SseBody {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        let this = self.get_mut();
        loop {
            // Nothing after the reply, not even progress a cancelled handler reports in its
            // grace.
            if matches!(this.state, CallState::Sent) {
                return Poll::Ready(None);
            }
            // Progress first: what the call reported before its reply goes out before it.
            if let Poll::Ready(Some(notification)) = this.queued.poll_recv(cx) {
                let json = serde_json::to_vec(&notification).unwrap_or_default();
                return Poll::Ready(Some(Ok(Frame::data(sse_event(&json)))));
            }
            let reply = match &mut this.state {
                CallState::Sent => return Poll::Ready(None),
                CallState::Done(_) => match std::mem::replace(&mut this.state, CallState::Sent) {
                    CallState::Done(reply) => reply,
                    _ => return Poll::Ready(None),
                },
                CallState::Running(call) => match this.limits.poll_reply(call, cx) {
                    // The call is dropped here (cancelled if it still ran); the progress it
                    // reported first is drained by the next turn of the loop.
                    Poll::Ready(reply) => {
                        this.state = CallState::Done(reply);
                        continue;
                    }
                    Poll::Pending => return Poll::Pending,
                },
            };
            let json = reply_bytes(&reply, this.limits.verbatim_id.as_deref());
            return Poll::Ready(Some(Ok(Frame::data(sse_event(&json)))));
        }
    }
}

impl Drop for SseBody {
    fn drop(&mut self) {
        if matches!(self.state, CallState::Running(_)) {
            self.limits.span.record("outcome", "disconnected");
            tracing::debug!(
                parent: &self.limits.span,
                "MCP HTTP: the client disconnected; its call is cancelled"
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loopback_origins_pass_and_others_do_not() {
        for origin in [
            "http://localhost",
            "http://localhost:3000",
            "https://LOCALHOST:8443",
            "http://127.0.0.1:9",
            "http://[::1]",
            "http://[::1]:8080",
        ] {
            assert!(is_loopback_origin(origin), "{origin}");
        }
        for origin in [
            "http://evil.example",
            "http://localhost.evil.example",
            "http://127.0.0.1.nip.io",
            "http://localhost:",
            "http://localhost:80/path",
            "ftp://localhost",
            "null",
            "http://[::1]x",
            "http://127.0.0.2",
        ] {
            assert!(!is_loopback_origin(origin), "{origin}");
        }
    }

    #[test]
    fn accept_headers_are_read_leniently() {
        let read = |value: &str| {
            let mut headers = HeaderMap::new();
            headers.insert(header::ACCEPT, HeaderValue::from_str(value).unwrap());
            let a = accepts(&headers);
            (a.json, a.sse, a.sse_named)
        };
        assert_eq!(
            read("application/json, text/event-stream"),
            (true, true, true)
        );
        assert_eq!(read("application/json"), (true, false, false));
        assert_eq!(read("text/event-stream"), (false, true, true));
        assert_eq!(read("*/*"), (true, true, false));
        assert_eq!(read("text/html"), (false, false, false));
        assert_eq!(
            read("application/json;q=0, text/event-stream"),
            (false, true, true)
        );
        let none = accepts(&HeaderMap::new());
        assert_eq!((none.json, none.sse, none.sse_named), (true, true, false));
    }

    #[tokio::test]
    async fn an_sse_body_sends_queued_progress_then_the_reply_then_nothing() {
        use http_body::Body as _;

        let (progress, queued) = mpsc::unbounded_channel();
        let mut body = SseBody {
            queued,
            state: CallState::Done(Reply::Json(serde_json::json!({"id": 1}))),
            limits: Limits {
                deadline: Box::pin(tokio::time::sleep(Duration::from_secs(60))),
                shutdown: Box::pin(CancellationToken::new().cancelled_owned()),
                id: Value::from(1),
                verbatim_id: None,
                tool: "t".into(),
                timeout: Duration::from_secs(60),
                span: tracing::Span::none(),
            },
        };
        let mut next = || {
            let mut cx = Context::from_waker(std::task::Waker::noop());
            match Pin::new(&mut body).poll_frame(&mut cx) {
                Poll::Ready(Some(Ok(frame))) => Some(frame.into_data().unwrap_or_default()),
                Poll::Ready(None) => None,
                Poll::Ready(Some(Err(never))) => match never {},
                Poll::Pending => panic!("pending"),
            }
        };
        progress.send(serde_json::json!({"p": 1})).unwrap();
        assert_eq!(next().unwrap(), "event: message\ndata: {\"p\":1}\n\n");
        assert_eq!(next().unwrap(), "event: message\ndata: {\"id\":1}\n\n");
        // A cancelled handler reporting in its grace: too late, the stream has ended.
        progress.send(serde_json::json!({"p": 2})).unwrap();
        assert_eq!(next(), None);
    }

    #[test]
    fn bearer_tokens_are_read_and_compared() {
        let mut headers = HeaderMap::new();
        headers.insert(
            header::AUTHORIZATION,
            HeaderValue::from_static("bearer abc"),
        );
        assert_eq!(bearer_token_of(&headers), Some("abc"));
        headers.insert(header::AUTHORIZATION, HeaderValue::from_static("Basic abc"));
        assert_eq!(bearer_token_of(&headers), None);
        assert!(constant_time_eq(b"abc", b"abc"));
        assert!(!constant_time_eq(b"abc", b"abd"));
        assert!(!constant_time_eq(b"abc", b"abcd"));
    }
}
