//! The opt-in stateful sessions of the HTTP transport
//! ([`HttpServer::sessions`](crate::http::HttpServer::sessions)), on the requests' side: the
//! methods served besides `POST`, the connection state (and session) a `POST` runs on, the
//! lookup of the session a request names, the `GET` stream and `DELETE`.
//!
//! Stateless or stateful is a [`Sessions`] chosen once, when the server is served; the table of
//! live sessions is [`table`].

mod settings;
mod stream;
pub(super) mod table;

use std::net::IpAddr;
use std::sync::Arc;

use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::MethodRouter;
use tokio::time::Instant;

use super::admit::{accepts, admit};
use super::auth::Caller;
use super::endpoint::HostChecked;
use super::head::Head;
use super::reply::{Refusal, transport_error};
use super::sse::sse_response;
use super::{Shared, TRANSPORT_ERROR};
use claude_tools_core::mcp::McpRouter;
use table::{Client, NewSessionError, SessionLimits, SessionTable, SessionUse, Sessions};

/// The `Retry-After` of a refused `initialize`, in seconds: sessions in use now may be idle by
/// then.
const RETRY_AFTER_SECONDS: u32 = 5;

/// The header carrying the session id, in `initialize`'s answer and every later request of the
/// session (sessions mode only).
pub(super) const SESSION_ID_HEADER: &str = "mcp-session-id";

impl Sessions {
    /// The route at the path: `post`, and in sessions mode `GET` (the session's stream) and
    /// `DELETE` (ends it); a stateless server answers both `405`.
    pub(super) fn methods(&self, post: MethodRouter<Arc<Shared>>) -> MethodRouter<Arc<Shared>> {
        let route = match self {
            Sessions::Stateless => post.get(method_not_allowed).delete(method_not_allowed),
            Sessions::Stateful { .. } => post.get(open_stream).delete(end_session),
        };
        // Every other method gets the same `405` and `Allow` (axum's own would list `GET` and
        // `DELETE` of a stateless server, which are refused too); `HEAD` too, so that it never
        // opens a session stream with its body thrown away. (`OPTIONS` is answered by CORS.)
        route.head(method_not_allowed).fallback(method_not_allowed)
    }

    /// The methods the endpoint serves in this mode besides `OPTIONS`, for `Allow` and CORS.
    pub(super) fn served_methods(&self) -> &'static str {
        match self {
            Sessions::Stateless => "POST",
            Sessions::Stateful { .. } => "GET, POST, DELETE",
        }
    }

    /// The connection state a `POST` runs on, and the session it holds in use meanwhile.
    /// Stateless: a fresh connection state per request. Sessions: `initialize` opens a session,
    /// anything else must name a live one of the same caller and shares its connection state.
    pub(super) fn connection(
        &self,
        router: &McpRouter,
        headers: &HeaderMap,
        peer: Option<IpAddr>,
        caller: &Caller,
        initialize: bool,
    ) -> Result<(McpRouter, Option<SessionUse>), Refusal> {
        match self {
            Sessions::Stateless => Ok((router.new_connection(), None)),
            Sessions::Stateful { table, limits } => {
                let session = session_of(table, router, limits, headers, peer, caller, initialize)?;
                Ok((session.session().router().clone(), Some(session)))
            }
        }
    }

    /// Ends every session's server→client stream (at shutdown: an open stream would hold its
    /// connection open for the whole grace). A stateless server has none.
    pub(super) fn close_streams(&self) {
        if let Sessions::Stateful { table, .. } = self {
            table.close_streams();
        }
    }
}

/// `405`, with an `Allow` that names only what is served.
async fn method_not_allowed(State(shared): State<Arc<Shared>>, method: Method) -> Response {
    method_refusal(&shared.sessions, method.as_str())
}

fn method_refusal(sessions: &Sessions, method: &str) -> Response {
    let served = sessions.served_methods();
    let why = match (sessions, method) {
        (Sessions::Stateless, "GET" | "DELETE") => "this MCP server is stateless: POST each JSON-RPC message; it has no GET stream and no session to DELETE".to_string(),
        (_, method) => format!("`{method}` is not served here; this MCP endpoint serves {served} (and OPTIONS)"),
    };
    let mut response = transport_error(
        StatusCode::METHOD_NOT_ALLOWED,
        TRANSPORT_ERROR,
        "Method Not Allowed",
        &why,
    );
    if let Ok(allow) = HeaderValue::from_str(&format!("{served}, OPTIONS")) {
        response.headers_mut().insert(header::ALLOW, allow);
    }
    response
}

/// Who a new session is counted against: the principal, else the peer's address.
pub(in crate::http) fn client_of(caller: &Caller, peer: Option<IpAddr>) -> Client {
    match (&caller.principal, peer) {
        (Some(principal), _) => Client::Principal(principal.clone()),
        (None, Some(peer)) => Client::Peer(peer),
        (None, None) => Client::Unknown,
    }
}

/// The session a POST of sessions mode belongs to: a new one for `initialize`, else the live
/// one its `Mcp-Session-Id` names.
fn session_of(
    table: &SessionTable,
    router: &McpRouter,
    limits: &SessionLimits,
    headers: &HeaderMap,
    peer: Option<IpAddr>,
    caller: &Caller,
    initialize: bool,
) -> Result<SessionUse, Refusal> {
    if !initialize {
        return session_named(table, limits, headers, caller);
    }
    let client = client_of(caller, peer);
    match table.create(router, limits, caller.principal.clone(), client) {
        Ok(session) => Ok(session),
        Err(NewSessionError::Full) => Err(Refusal::new(
            StatusCode::SERVICE_UNAVAILABLE,
            TRANSPORT_ERROR,
            "Service Unavailable",
            format!(
                "this server holds its maximum of {} sessions, all in use; try again later",
                limits.max
            ),
        )
        .retry_after(RETRY_AFTER_SECONDS)),
        Err(NewSessionError::ClientFull) => Err(Refusal::new(
            StatusCode::TOO_MANY_REQUESTS,
            TRANSPORT_ERROR,
            "Too Many Requests",
            format!(
                "this client holds its maximum of {} sessions, all in use; end one (DELETE) or try again later",
                limits.per_client
            ),
        )
        .retry_after(RETRY_AFTER_SECONDS)),
        Err(NewSessionError::NoRandomness(error)) => Err(Refusal::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            TRANSPORT_ERROR,
            "Internal Server Error",
            format!("no session id could be made: {error}"),
        )),
    }
}

/// The live session the request's `Mcp-Session-Id` names: `400` without the header, `404` for
/// an unknown, ended or expired session, or one of another principal (the client then
/// initializes a new one).
fn session_named(
    table: &SessionTable,
    limits: &SessionLimits,
    headers: &HeaderMap,
    caller: &Caller,
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
    let principal = caller.principal.as_deref();
    table.open(id, limits.idle_timeout, principal).ok_or_else(|| {
        Refusal::new(
            StatusCode::NOT_FOUND,
            TRANSPORT_ERROR,
            "Not Found",
            "no such session: it never existed, was ended, or expired; send `initialize` to start a new one",
        )
    })
}

/// What `GET` and `DELETE` check first, in this order: the origin and auth ([`admit`], within
/// the request timeout), `check` (`GET`: its `Accept`), that sessions are on (`405` if not),
/// then the live session the request names ([`session_named`]).
async fn preamble<'a>(
    shared: &'a Shared,
    headers: &HeaderMap,
    check: impl FnOnce(&HeaderMap) -> Option<Response>,
) -> Result<(&'a SessionTable, SessionUse), Response> {
    let deadline = Instant::now() + shared.request_timeout;
    let caller = admit(shared, &Head::of(headers), HostChecked::No, deadline).await?;
    if let Some(refusal) = check(headers) {
        return Err(refusal);
    }
    let Sessions::Stateful { table, limits } = &shared.sessions else {
        // Only `GET` and `DELETE` come here, and a stateless server routes both elsewhere.
        return Err(method_refusal(&shared.sessions, "GET"));
    };
    let session = session_named(table, limits, headers, &caller).map_err(Refusal::into_response)?;
    Ok((table.as_ref(), session))
}

/// `GET` in sessions mode: the session's server→client SSE stream.
async fn open_stream(State(shared): State<Arc<Shared>>, request: Request) -> Response {
    let session = match preamble(&shared, request.headers(), names_the_stream).await {
        Ok((_, session)) => session,
        Err(refusal) => return refusal,
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

/// `406` unless the `GET`'s `Accept` names `text/event-stream`.
fn names_the_stream(headers: &HeaderMap) -> Option<Response> {
    (!accepts(headers).sse_named).then(|| {
        transport_error(
            StatusCode::NOT_ACCEPTABLE,
            TRANSPORT_ERROR,
            "Not Acceptable",
            "the session's stream is `text/event-stream`: name it in `Accept`",
        )
    })
}

/// `DELETE` in sessions mode: ends the session (its running calls are cancelled, its stream
/// ends).
async fn end_session(State(shared): State<Arc<Shared>>, request: Request) -> Response {
    let (table, id) = match preamble(&shared, request.headers(), |_| None).await {
        Ok((table, session)) => (table, session.session().id().to_string()),
        Err(refusal) => return refusal,
    };
    // Another DELETE may have ended it meanwhile: it is gone either way.
    table.remove(&id);
    StatusCode::NO_CONTENT.into_response()
}
