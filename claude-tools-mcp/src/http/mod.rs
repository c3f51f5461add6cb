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
//!     .with_graceful_shutdown(claude_tools::mcp::shutdown_signal()) // Ctrl-C or SIGTERM
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
//! | `OPTIONS` (a browser's CORS preflight) | the `Host` and `Origin` checks below, then `204 No Content` granting an allowed origin (see [CORS](#cors)); without an `Origin`, `204` with `Allow` |
//! | `GET` or `DELETE` on the path (a server→client stream, ending a session) | `405 Method Not Allowed`, `Allow: POST, OPTIONS`: a stateless server has neither (with [sessions](#sessions), see there) |
//! | any other method but `POST` and `OPTIONS` (`HEAD`, `PUT`…) | `405`, with an `Allow` that names only the methods served (`POST, OPTIONS`; with sessions `GET, POST, DELETE, OPTIONS`) |
//! | a `POST` while [`HttpServer::max_requests_in_flight`] others are being answered (default [`DEFAULT_MAX_REQUESTS_IN_FLIGHT`], 512) | `503 Service Unavailable`, `Retry-After: 1`, at once |
//! | a `Host` header that is not allowed ([`HttpServer::allowed_hosts`]; by default, on a loopback listener, only loopback hosts), or none | `403 Forbidden` |
//! | an `Origin` header that is not allowed ([`HttpServer::allowed_origins`]; by default only loopback origins) | `403 Forbidden` |
//! | refused by the [auth hook](HttpServer::authorize) or the [bearer token](HttpServer::bearer_token) | `401 Unauthorized`, `WWW-Authenticate: Bearer` (with `error="invalid_token"` when a token was sent) |
//! | an auth hook still undecided at the request timeout | `503 Service Unavailable` |
//! | an `MCP-Protocol-Version` header naming a version not in [`SUPPORTED_PROTOCOL_VERSIONS`](claude_tools_core::mcp::SUPPORTED_PROTOCOL_VERSIONS) | `400 Bad Request` |
//! | a `Content-Type` other than `application/json` (parameters such as `charset` allowed), or none | `415 Unsupported Media Type` |
//! | an `Accept` header that admits neither `application/json` nor `text/event-stream` | `406 Not Acceptable` |
//! | a body still arriving [`HttpServer::body_read_timeout`] after the headers (default [`DEFAULT_BODY_READ_TIMEOUT`], 20 s), or at the request timeout | `408 Request Timeout`, `Connection: close` |
//! | a body over [`HttpServer::max_body_size`] (by its `Content-Length`, or as it streams in) | `413 Payload Too Large`, `Connection: close`, once the rest of the body is read and thrown away (up to [`HttpServer::max_drain_size`] bytes past the cap, default [`DEFAULT_MAX_DRAIN_SIZE`], 8 MiB, for up to [`HttpServer::drain_timeout`], default [`DEFAULT_DRAIN_TIMEOUT`], 5 s), so that a client still uploading reads it; a body declared larger than that is answered at once |
//! | a body that is not JSON (or holds a number out of a 64-bit float's range, an `id` of `1e400` included) | `400`, `-32700 "Parse error"` |
//! | with [sessions](#sessions): an `initialize` when the client's [`HttpServer::max_sessions_per_client`] / the server's [`HttpServer::max_sessions`] sessions exist, every one busy | `429 Too Many Requests` / `503 Service Unavailable`, with `Retry-After: 5` (an idle one would have been ended to make room) |
//! | with [sessions](#sessions): any other message without `Mcp-Session-Id` / with one naming no live session of the caller's principal | `400 Bad Request` / `404 Not Found` |
//! | a JSON array (a JSON-RPC batch) | `400`, `-32600 "Invalid Request"`: batching was removed from MCP in 2025-06-18, and no client sends one |
//! | any other JSON that is not a JSON-RPC message (not an object, no `method` and no `result`/`error`, bad `jsonrpc`, bad `id`) | `400`, `-32600 "Invalid Request"` |
//! | a notification (a `method`, no `id`) or a response (a `result` or an `error`, no `method`; with sessions, handed to the tool of the session waiting for it) | `202 Accepted`, no body |
//! | a request | `200`, its JSON-RPC reply as `application/json` (JSON-RPC errors such as `-32601` included) |
//! | a `tools/call` of a tool that cannot reach its client (none of its parameters can: no [`ToolContext`](claude_tools_core::tool::ToolContext), [`Tool::may_ask`](claude_tools_core::tool::Tool::may_ask) false) | `200`, its reply as `application/json` (to a client that accepts only `text/event-stream`, a one-event SSE stream), whether or not it gave a progress token: it can send nothing before its result |
//! | a `tools/call` with `params._meta.progressToken` from a client whose `Accept` names `text/event-stream` | `200`, `text/event-stream`: one `notifications/progress` event per [`report_progress`](claude_tools_core::tool::ToolContext::report_progress) (and one `notifications/message` per [`log`](claude_tools_core::tool::ToolContext::log)), then the reply, then the stream ends |
//! | a `tools/call` (no progress token) from a client whose `Accept` names `text/event-stream`, whose tool logs ([`ToolContext::log`](claude_tools_core::tool::ToolContext::log)) before its result, stateless or in a session | `200`, `text/event-stream`: each `notifications/message` as an event, then the reply; a call that logs nothing is answered as JSON |
//! | a request from a client that accepts only `text/event-stream` | the reply as a one-event SSE stream |
//! | with [sessions](#sessions): a `tools/call` (no progress token) from a client whose `Accept` names `text/event-stream`, whose tool asks the client something (`ToolContext::elicit`, `create_message`, `list_roots`) | `200`, `text/event-stream`: the question (an `elicitation/create`… request) as an event, then the reply once the client has `POST`ed its answer in the session (`202`); a call that asks nothing is answered as JSON, as without sessions |
//! | stateless: a `tools/call` whose tool asks the client something | the tool gets an error saying to serve with sessions on (the answer would come back on a `POST` no stateless server can tie to the question); nothing is sent to the client |
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
//! - **Graceful shutdown** ([`HttpServe::with_graceful_shutdown`]; give it
//!   [`shutdown_signal`](crate::shutdown_signal)`()` to stop on Ctrl-C or `SIGTERM`, what
//!   process managers send: a server stopped any other way drops its calls in flight): when the signal resolves the
//!   listener is closed (new connections are refused), idle keep-alive connections are closed,
//!   and requests in flight may finish for up to [`HttpServe::shutdown_grace`] (default
//!   [`DEFAULT_SHUTDOWN_GRACE`]). Calls still running then are cancelled and answered with an
//!   `isError` result saying the server shut down; the connections get a last
//!   [`CANCEL_GRACE`](claude_tools_core::mcp::CANCEL_GRACE) to write those answers; then the future resolves
//!   `Ok(())`.
//!
//! # Limits
//!
//! What one client can make the server hold is bounded; each limit has a builder method, and
//! its biting is logged (`tracing`: `info` for one client's request or connection, `debug` for
//! an idle connection closed, `warn` at most once a second for the server-wide caps).
//!
//! | limit (default) | when it bites |
//! |---|---|
//! | [`HttpServer::max_connections`] ([`DEFAULT_MAX_CONNECTIONS`], 1024; on Unix at most the file-descriptor limit less 64) | a connection beyond it is written a `503` (if its socket takes it at once) and closed unread. An `accept` that fails (out of file descriptors) is retried after 100 ms, never in a busy loop |
//! | [`HttpServer::max_requests_in_flight`] ([`DEFAULT_MAX_REQUESTS_IN_FLIGHT`], 512) | `503` with `Retry-After: 1` (a request is in flight until its answer, SSE included, is sent or dropped) |
//! | [`HttpServer::max_header_size`] ([`DEFAULT_MAX_HEADER_SIZE`], 64 KiB) | a larger request head is answered `431` and its connection closed |
//! | [`HttpServer::header_read_timeout`] ([`DEFAULT_HEADER_READ_TIMEOUT`], 10 s) | a head not complete that long after its first byte: the connection is closed |
//! | [`HttpServer::idle_timeout`] ([`DEFAULT_IDLE_TIMEOUT`], 30 s) | a connection with no request in progress that long (before its first request or between two) is closed |
//! | [`HttpServer::write_timeout`] ([`DEFAULT_WRITE_TIMEOUT`], 30 s) | a client that takes none of its response's bytes that long: the response is dropped (its call cancelled) and the connection closed. A write that waits is timed, an open SSE stream waiting for its next event is not |
//! | [`HttpServer::body_read_timeout`], [`HttpServer::max_body_size`], [`HttpServer::max_drain_size`], [`HttpServer::drain_timeout`] | `408`, `413` (see the table above) |
//! | [`HttpServer::tcp_keepalive`] ([`DEFAULT_TCP_KEEPALIVE`], 60 s; `None` off) | a connection silent that long is probed by the kernel; a peer that answers no probe (15 s apart) is dropped, with its session stream |
//!
//! All hold in [`HttpServer::serve`]. With [`HttpServer::into_router`] under a server of your
//! own, only the cap on requests in flight and the body's limits hold: the others belong to the
//! server that owns the connections.
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
//! The `Host` header is checked too, as both official MCP SDKs do on localhost: a page whose
//! host name an attacker made resolve to `127.0.0.1` names that host. [`HttpServer::allowed_hosts`]
//! sets the list; by default it follows the listener:
//!
//! | served by | hosts allowed by default |
//! |---|---|
//! | [`HttpServer::serve`] on a loopback address (`127.0.0.1`, `[::1]`) | `localhost`, `[::1]` and the addresses of `127.0.0.0/8`, any port |
//! | [`HttpServer::serve`] on any other address (`0.0.0.0`, a public one) | any host: the server cannot know the names clients use; the `Origin` check still stands |
//! | [`HttpServer::into_router`], mounted | the same loopback hosts: the router cannot see its listener; list the names (or `"*"`) when serving it elsewhere |
//!
//! # CORS
//!
//! A web page of an allowed origin can call the server from a browser. A preflight
//! (`OPTIONS` with `Origin`) from an allowed origin is answered `204` with
//! `Access-Control-Allow-Origin` (the origin), `Access-Control-Allow-Methods` (`POST`; with
//! [sessions](#sessions) `GET, POST, DELETE`), `Access-Control-Allow-Headers` (`content-type,
//! authorization, mcp-protocol-version, mcp-session-id, last-event-id, accept`),
//! `Access-Control-Max-Age` ([`CORS_MAX_AGE_SECONDS`], 2 hours) and `Vary: Origin`; from
//! another origin, `403` without any of them, so the browser sends nothing. Every other
//! response to an allowed origin, refusals included (a page can read its `401`), carries
//! `Access-Control-Allow-Origin`, `Access-Control-Expose-Headers: mcp-session-id,
//! www-authenticate, retry-after` and `Vary: Origin`. A bearer token travels in
//! `Authorization`, not in cookies: no credentialed CORS is granted.
//!
//! **The caller's identity.** A multi-tenant server must know, inside a tool, who is calling.
//! The [auth hook](HttpServer::authorize) finds it out from the headers and answers
//! [`AuthDecision::allow_with(identity)`](AuthDecision::allow_with); each tool the request calls
//! then reads it with [`ToolContext::extension::<T>()`](claude_tools_core::tool::ToolContext::extension), or
//! takes an [`Extension<T>`](claude_tools_core::tool::Extension) parameter. Each request carries its own:
//! two clients calling at once with different tokens each see theirs. A plain
//! [`AuthDecision::Allow`] (and the [bearer token](HttpServer::bearer_token)) attaches nothing.
//! The server itself cannot compare identities (they are any type): a hook that tells callers
//! apart also names each one's **principal**, a key compared for equality
//! ([`AuthDecision::allow_with(tenant).principal("acme")`](AuthDecision::principal)). With
//! [sessions](#sessions) a session belongs to the principal that opened it, and sessions are
//! counted per principal. Without one, every allowed caller is the same anonymous principal.
//!
//! **Panics.** A tool handler that panics gets an `isError` result without the panic's
//! message (it may hold a password or a customer's data) but with an incident id, which is
//! logged at level `error` beside the message; [`HttpServer::panic_detail`] can send the message
//! instead.
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
//! | `POST` `initialize` | a new session of the caller's principal: the reply carries `Mcp-Session-Id` (32 hex digits, 128 bits from the operating system's CSPRNG) and `listChanged: true`; see [the bounds](#bounds-of-sessions) for a full table |
//! | any other `POST`, `GET` or `DELETE` without `Mcp-Session-Id` | `400 Bad Request` |
//! | … naming a session that never existed, was deleted, expired or was ended to make room, or that another [principal](AuthDecision::principal) opened (an anonymous caller included) | `404 Not Found` (the client starts a new session); the answer is the same whichever it is, so a session's existence is not revealed |
//! | `POST` in a session | as without sessions, on the session's connection state: request ids belong to the session, and `notifications/cancelled {requestId}` cancels the session's running call with that id (it answers `-32800` on its own request) |
//! | `GET` with `Accept: text/event-stream` | `200`, the session's server→client SSE stream: `notifications/tools/list_changed` each time [`HttpServer::tool_server_handle`] changes the list, and a `: keep-alive` comment after each [`HttpServer::session_keep_alive`] (default [`DEFAULT_SESSION_KEEP_ALIVE`]) without one; `409 Conflict` while the session's stream is already open; `406` without `text/event-stream` in `Accept` |
//! | `DELETE` | `204 No Content`: the session ends, its running calls are cancelled, its stream ends |
//!
//! Progress stays on the call's own SSE response, as without sessions. A session unused for
//! [`HttpServer::session_idle_timeout`] (default [`DEFAULT_SESSION_IDLE_TIMEOUT`]) is dropped
//! (a request still running, or its open stream, keeps it alive); its id then answers `404`.
//! Each request still passes the origin and auth checks on its own, and the identity an auth
//! hook attaches is the request's, not the session's; but the session is its principal's: a
//! request of another principal cannot use, watch, cancel in or end it. At a graceful shutdown
//! the session streams end first, so that they do not hold their connections through the
//! grace.
//!
//! ## Bounds of sessions
//!
//! | limit | default | when it bites (logged by `tracing`: `info` when a session is ended to make room, `warn` when an `initialize` is refused) |
//! |---|---|---|
//! | [`HttpServer::max_sessions_per_client`]: sessions of one client, which is the caller's [principal](AuthDecision::principal), else its peer's IP address | [`DEFAULT_MAX_SESSIONS_PER_CLIENT`] (100) | that client's idlest session (no request running, no open stream, unused the longest) is ended; when all of its sessions are busy, `429` with `Retry-After: 5` |
//! | [`HttpServer::max_sessions`]: sessions in all | [`DEFAULT_MAX_SESSIONS`] (10 000) | the expired sessions are dropped, then the idlest session of any client is ended; when every session is busy, `503` with `Retry-After: 5` |
//! | [`HttpServer::session_idle_timeout`] | [`DEFAULT_SESSION_IDLE_TIMEOUT`] (30 min) | a session unused that long is dropped (see above) |
//! | [`HttpServer::session_keep_alive`]: the quiet time after which an open stream carries a `: keep-alive` comment | [`DEFAULT_SESSION_KEEP_ALIVE`] (15 s) | the comment's write to a client that vanished fails: its stream ends and its session turns idle |
//!
//! So one client cannot fill the table and lock the others out, and a client that vanished
//! with its stream open frees its slot: a closed connection is seen at once, one gone without
//! a word (a machine off the network) by the failing writes of the keep-alive comments (within
//! the system's TCP retransmission limit) or, on a connection with nothing to send, by TCP
//! keepalive, which [`serve`](HttpServer::serve) turns on for each connection (probes after 60 s
//! of silence). Behind a reverse proxy every anonymous client has the proxy's address: name
//! principals in the auth hook, or raise the per-client bound. A router mounted with
//! [`HttpServer::into_router`] knows peers' addresses only when served with
//! `into_make_service_with_connect_info::<SocketAddr>()`; without them, anonymous sessions are
//! bounded by [`HttpServer::max_sessions`] alone.
//!
//! Sessions live in the memory of the replica that made them. Behind a load balancer, every
//! request of a session must reach that replica (sticky sessions, e.g. by the
//! `Mcp-Session-Id` header), and a replica's restart ends its sessions (clients get `404` and
//! initialize again). Behind a plain load balancer, stay stateless.
//!
//! The server speaks HTTP/1.1 (what the MCP clients use; put a TLS-terminating proxy in front
//! for HTTPS or HTTP/2). To serve MCP next to routes of your own, mount
//! [`HttpServer::into_router`] into your [`axum`] app.

// The rooms of this module, each using only the ones below it (and this file's configuration):
//
//   serve    the serve handle, the routes, the accept loop, graceful shutdown
//   post     one POST: body -> JSON-RPC message -> session -> router -> reply
//   cors     preflights, and the CORS headers of responses to allowed origins
//   session  stateless or stateful (chosen once), the session lookup, GET stream, DELETE
//   admit    host, origin, auth, headers and `Accept`, body cap -> a refusal
//   auth     the auth hook's decision, the bearer token, who is calling (`Caller`)
//   origin   the `Host` and `Origin` checks (DNS rebinding), their builder methods
//   session/settings  the builder methods of sessions mode
//   session/table  the table of live sessions, their bounds, and the mode's type (`Sessions`)
//   session/stream a session's GET stream and its keep-alive comments
//   peer     an accepted connection: TCP keepalive, the peer's address on each request
//   sse      SSE events, the streamed answer of a call with progress
//   reply    refusals, JSON responses, the shared reply writer
//
// This file holds the configuration (`HttpServer` and its general builder methods; those of
// origins and hosts are in `origin`, those of sessions in `session/settings`) and what every
// request shares once it is served (`Shared`); of the rooms it uses only `session::table`,
// `auth::Auth` and `origin`'s `Hosts` and `Origins` (its `pub use`s aside, which only
// re-export).
mod admit;
mod auth;
mod conn;
mod cors;
mod endpoint;
mod head;
mod limits;
mod listen;
mod modern;
#[cfg(feature = "oauth")]
pub mod oauth;
mod origin;
mod outbox;
mod peer;
mod post;
mod reply;
mod serve;
mod session;
mod sse;
mod standard_headers;
mod tool_call;

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

pub use axum;
use axum::http::HeaderMap;
use tokio_util::sync::CancellationToken;

pub use crate::stdio::DEFAULT_SHUTDOWN_GRACE;
use auth::Auth;
pub use auth::{AuthDecision, Identity, bearer_token_of};
pub use cors::CORS_MAX_AGE_SECONDS;
pub use limits::{
    DEFAULT_BODY_READ_TIMEOUT, DEFAULT_DRAIN_TIMEOUT, DEFAULT_HEADER_READ_TIMEOUT,
    DEFAULT_IDLE_TIMEOUT, DEFAULT_MAX_CONNECTIONS, DEFAULT_MAX_DRAIN_SIZE, DEFAULT_MAX_HEADER_SIZE,
    DEFAULT_MAX_REQUESTS_IN_FLIGHT, DEFAULT_TCP_KEEPALIVE, DEFAULT_WRITE_TIMEOUT,
};
use limits::{InFlight, Limits};
pub use listen::{
    DEFAULT_LISTEN_KEEP_ALIVE, DEFAULT_MAX_LISTEN_STREAMS, DEFAULT_MAX_LISTEN_STREAMS_PER_CLIENT,
};
use origin::{Hosts, Origins};
pub use serve::HttpServe;
pub use session::table::{
    DEFAULT_MAX_SESSIONS, DEFAULT_MAX_SESSIONS_PER_CLIENT, DEFAULT_SESSION_IDLE_TIMEOUT,
    DEFAULT_SESSION_KEEP_ALIVE,
};
use session::table::{SessionLimits, SessionTable, Sessions};

use claude_tools_core::mcp::{ErrorCode, McpRouter, PanicDetail, ToolServerHandle};
use claude_tools_core::tool::ToolServer;

/// The path clients POST to unless [`HttpServer::path`] says otherwise.
pub const DEFAULT_PATH: &str = "/mcp";

/// The largest request body accepted unless [`HttpServer::max_body_size`] says otherwise: 4 MiB.
pub const DEFAULT_MAX_BODY_SIZE: usize = 4 * 1024 * 1024;

/// How long a request may take unless [`HttpServer::request_timeout`] says otherwise: 60 s.
pub const DEFAULT_REQUEST_TIMEOUT: Duration = Duration::from_secs(60);

/// The JSON-RPC error code of the transport's own refusals (403, 401, 405, 406, 413, 415…): the
/// start of JSON-RPC's range for implementation-defined server errors.
pub const TRANSPORT_ERROR: ErrorCode = ErrorCode(-32000);

/// An MCP Streamable HTTP server for one [`ToolServer`]: configure it, then
/// [`serve`](HttpServer::serve) it on a listener or mount it with
/// [`into_router`](HttpServer::into_router). See the [module docs](self) for the protocol rules.
#[must_use = "an HttpServer does nothing until it is served"]
pub struct HttpServer {
    router: McpRouter,
    path: String,
    origins: Origins,
    hosts: Hosts,
    auth: Option<Auth>,
    max_body_size: usize,
    request_timeout: Duration,
    sessions: Arc<SessionTable>,
    session_limits: Option<SessionLimits>,
    limits: Limits,
}

impl HttpServer {
    /// A server for `server`'s tools, with the defaults: path [`DEFAULT_PATH`], loopback origins
    /// only, the hosts of [`allowed_hosts`](HttpServer::allowed_hosts)' default, no auth,
    /// [`DEFAULT_MAX_BODY_SIZE`], [`DEFAULT_REQUEST_TIMEOUT`], stateless.
    pub fn new(server: ToolServer) -> Self {
        let sessions = Arc::new(SessionTable::default());
        // A change of the tool set goes to every session's stream (none in stateless mode).
        let hub = sessions.clone();
        let router = McpRouter::new(server)
            .with_panic_detail(PanicDetail::Hidden)
            .with_listen(true)
            .with_notifier(Arc::new(move |message| hub.broadcast(&message)));
        Self {
            router,
            path: DEFAULT_PATH.to_string(),
            origins: Origins::Loopback,
            hosts: Hosts::Unset,
            auth: None,
            max_body_size: DEFAULT_MAX_BODY_SIZE,
            request_timeout: DEFAULT_REQUEST_TIMEOUT,
            sessions,
            session_limits: None,
            limits: Limits::default(),
        }
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

    /// What a remote client reads when a tool handler panics (default [`PanicDetail::Hidden`]:
    /// a generic `isError` result with an incident id, the panic's message logged beside that
    /// id at level `error`; [`PanicDetail::Shown`] sends the message itself, which may hold
    /// secrets: only for a server whose clients are its developers).
    pub fn panic_detail(mut self, detail: PanicDetail) -> Self {
        self.router = self.router.with_panic_detail(detail);
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
        self.auth = Some(Auth::hook(hook));
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

    fn into_shared(self) -> Shared {
        let Self {
            router,
            path,
            origins,
            hosts,
            auth,
            max_body_size,
            request_timeout,
            sessions,
            session_limits,
            limits,
        } = self;
        Shared {
            plain_router: router.for_plain_calls(),
            router,
            path,
            origins,
            // A mounted router cannot see its listener: loopback hosts unless told otherwise.
            hosts: hosts.on_listener(None),
            auth,
            max_body_size,
            request_timeout,
            // The one place the mode is chosen.
            sessions: match session_limits {
                None => Sessions::Stateless,
                Some(limits) => Sessions::Stateful {
                    table: sessions,
                    limits,
                },
            },
            shutdown: CancellationToken::new(),
            in_flight: InFlight::new(limits.max_in_flight),
            listen: Arc::new(listen::ListenLimits::configured(
                limits.max_listen_streams,
                limits.max_listen_streams_per_client,
                limits.listen_keep_alive,
            )),
            limits,
        }
    }
}

impl std::fmt::Debug for HttpServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HttpServer")
            .field("server", &self.router.server())
            .field("path", &self.path)
            .field("origins", &self.origins)
            .field("hosts", &self.hosts)
            .field("auth", &self.auth.as_ref().map(|_| "set"))
            .field("max_body_size", &self.max_body_size)
            .field("request_timeout", &self.request_timeout)
            .field("sessions", &self.session_limits)
            .field("limits", &self.limits)
            .finish()
    }
}

/// What every request shares: the tools, the rules, and the shutdown's cancellation.
struct Shared {
    /// Serves no request itself: each request gets [`McpRouter::new_connection`] of it.
    router: McpRouter,
    /// Serves the `tools/call`s of tools that cannot reach their client, of every client that
    /// keeps no session (a 2026-07-28 client, a stateless server's 2025 client), on one shared
    /// connection state ([`McpRouter::for_plain_calls`]): such a call needs none of its own.
    plain_router: McpRouter,
    path: String,
    origins: Origins,
    hosts: Hosts,
    auth: Option<Auth>,
    max_body_size: usize,
    request_timeout: Duration,
    /// Stateless, or the sessions by id and their rules: chosen once, when served.
    sessions: Sessions,
    /// Fires when a graceful shutdown's grace is over.
    shutdown: CancellationToken,
    limits: Limits,
    in_flight: InFlight,
    /// The open listen streams and their bounds.
    listen: Arc<listen::ListenLimits>,
}
