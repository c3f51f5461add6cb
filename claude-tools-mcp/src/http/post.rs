//! One `POST`: admitted ([`admit`](super::admit)), its body read as one JSON-RPC message, run on
//! the connection state of its [session](super::session) (a fresh one when stateless) by the
//! router, and answered in the form the client takes (JSON, or SSE for a call with progress or
//! one that sends something before its result: a log message, a question).
//!
//! The body is read by the one decoder ([`Message::decode`]), as every transport reads it; this
//! file keeps only HTTP's policy: an invalid message is `400` with its error, a notification
//! or a client's response `202` with no body, a request `200` with its answer (JSON, or SSE for
//! a call that streams progress).

use std::net::IpAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use axum::body::{Body, Bytes};
use axum::extract::{Request, State};
use axum::http::request::Parts;
use axum::http::{HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use http_body::Frame;
use tokio::time::Instant;
use tracing::Instrument;

use super::Shared;
use super::admit::{
    Accepts, admit, check_headers, protocol_version, read_body, unsupported_version,
};
use super::auth::refuse_message;
use super::endpoint::HostChecked;
use super::head::Head;
use super::limits::Holding;
use super::modern;
use super::reply::{RpcResponse, json_response, record_outcome, reply_bytes, seconds};
use super::session::SESSION_ID_HEADER;
use super::session::table::{SessionUse, Sessions};
use super::sse::{sse_event, sse_response};
use super::tool_call::{CallReply, tool_call};
use claude_tools_core::mcp::{
    Call, ErrorCode, ErrorObject, Invalid, MODERN_PROTOCOL_VERSIONS, McpRouter, Message,
    Request as RpcRequest, RequestsToClient, Transport, all_protocol_versions, decide_revision,
};

pub(super) async fn handle(State(shared): State<Arc<Shared>>, request: Request) -> Response {
    // Mounted in an application's router: the peer is what its `ConnectInfo` says, if any.
    let peer = super::peer::peer_ip(request.extensions());
    answer_holding(shared, request, peer, (), HostChecked::No).await
}

/// The answer to `request` from `peer` (its address, if known), its body holding `held` (and
/// the request's place among those in flight) until it is sent or dropped: one body wrapper
/// for both.
pub(super) async fn answer_holding<H: Send + Unpin + 'static>(
    shared: Arc<Shared>,
    request: Request,
    peer: Option<IpAddr>,
    held: H,
    host: HostChecked,
) -> Response {
    // Held until the answer is sent or dropped.
    let permit = match shared.in_flight.admit() {
        Ok(permit) => permit,
        Err(refusal) => return *refusal,
    };
    let span = tracing::info_span!(
        "mcp_http",
        method = tracing::field::Empty,
        tool = tracing::field::Empty,
        id = tracing::field::Empty,
        status = tracing::field::Empty,
        outcome = tracing::field::Empty,
        mcp.session.id = tracing::field::Empty,
    );
    let watch = DisconnectWatch::new(span.clone());
    let response = instrumented_answer(&shared, request, peer, host, &span).await;
    watch.answered();
    span.record("status", response.status().as_u16());
    tracing::debug!(parent: &span, "MCP HTTP: answered");
    if response
        .extensions()
        .get::<super::listen::Listening>()
        .is_some()
    {
        // Bounded by the listen streams' own limits instead.
        drop(permit);
        return response.map(|body| Body::new(Holding::new(body, held)));
    }
    response.map(|body| Body::new(Holding::new(body, (permit, held))))
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

/// [`answer`] in `span`. Built in a plain function: moving a future into its `Instrumented`
/// inside `handle`'s own state would keep both copies there (rustc does not overlap them),
/// doubling the kilobytes every request's future is copied with.
fn instrumented_answer<'a>(
    shared: &'a Shared,
    request: Request,
    peer: Option<IpAddr>,
    host: HostChecked,
    span: &'a tracing::Span,
) -> tracing::instrument::Instrumented<impl Future<Output = Response> + use<'a>> {
    let (parts, body) = request.into_parts();
    answer(shared, parts, body, peer, host, span).instrument(span.clone())
}

async fn answer(
    shared: &Shared,
    parts: Parts,
    body: Body,
    peer: Option<IpAddr>,
    host: HostChecked,
    span: &tracing::Span,
) -> Response {
    let deadline = Instant::now() + shared.request_timeout;
    let head = Head::of(&parts.headers);
    let caller = match admit(shared, &head, host, deadline).await {
        Ok(caller) => caller,
        Err(refusal) => {
            span.record("outcome", "rejected");
            return refusal;
        }
    };
    let (accepts, version) = match check_headers(&head)
        .and_then(|accepts| protocol_version(&head).map(|version| (accepts, version)))
    {
        Ok(checked) => checked,
        Err(refusal) => {
            span.record("outcome", "rejected");
            return refusal.into_response();
        }
    };
    // Awaited where it is made: a future kept in a variable first is stored twice in this one.
    let body = match read_body(
        body,
        head.content_length.first(),
        shared.max_body_size,
        &shared.limits,
        deadline,
    )
    .await
    {
        Ok(body) => body,
        Err(refusal) => {
            span.record("outcome", "rejected");
            return refusal.into_response();
        }
    };
    // What the bytes are is decided once, before any session is looked up: an invalid message
    // is refused whatever session it names.
    let message = match Message::decode(&body) {
        Message::Invalid(invalid) => return invalid_message(invalid, span),
        Message::Unreadable(unreadable) => return unreadable_message(&unreadable, &accepts, span),
        message => message,
    };
    // With OAuth, a call of a tool whose scopes the token lacks is refused (`403`).
    if let Some(refusal) = refuse_message(shared, &caller, &message) {
        span.record("outcome", "rejected");
        return refusal;
    }
    // Which revision a request speaks is decided from its body and the header, once: a
    // 2026-07-28 request is served statelessly whatever the session settings.
    let message = match message {
        Message::Request(request) => {
            match decide_revision(&request.meta, Transport::Http(version)) {
                Err(error) => {
                    return modern::refused(StatusCode::BAD_REQUEST, Some(request.id), error, span);
                }
                // Boxed, as the other paths a plain 2025 `tools/call` does not take: their
                // states would otherwise make every request's future larger, and it is moved
                // (copied) on its way into the executor's box.
                Ok(revision) if revision.is_modern() => {
                    let start =
                        modern::start(shared, &caller, &head, request, accepts, deadline, span);
                    let request = match start {
                        Ok(CallReply::Now(response)) => return response,
                        Ok(CallReply::Later(answer)) => return answer.await,
                        Err(request) => request,
                    };
                    return Box::pin(modern::answer(
                        shared, caller, peer, request, accepts, deadline, span,
                    ))
                    .await;
                }
                Ok(_) => Message::Request(request),
            }
        }
        // A notification or a response says nothing of its revision but the header's.
        message => {
            if let Some(version) = version
                && !all_protocol_versions().any(|known| known == version)
            {
                span.record("outcome", "rejected");
                return unsupported_version(version).into_response();
            }
            // A 2026-07-28 notification (a `notifications/cancelled` a client sends beside
            // closing a listen stream or a call's stream) belongs to no session, whatever the
            // session settings: accepted, with nothing to do (closing the stream is what
            // cancels over HTTP), never refused for want of an `Mcp-Session-Id`.
            if let Some(version) = version
                && MODERN_PROTOCOL_VERSIONS.contains(&version)
            {
                if let Message::Notification(notification) = &message {
                    span.record("method", notification.method());
                }
                span.record("outcome", "accepted");
                return StatusCode::ACCEPTED.into_response();
            }
            message
        }
    };
    let form = ReplyForm { accepts };
    // A call of a tool that cannot reach its client (no progress, log or question): answered
    // as plain JSON, and stateless on the connection state all such calls share.
    let plain = is_plain_call(shared, &message);
    // Stateless: a fresh connection state per request. Sessions: `initialize` opens a session,
    // anything else must name a live one and shares its connection state.
    let initialize = is_initialize(&message);
    let connection = match &shared.sessions {
        Sessions::Stateless if plain.is_some() => Ok((shared.plain_router.clone(), None)),
        sessions => sessions.connection(&shared.router, &parts.headers, peer, &caller, initialize),
    };
    let (router, session) = match connection {
        Ok(connection) => connection,
        Err(refusal) => {
            span.record("outcome", "rejected");
            return refusal.into_response();
        }
    };
    let in_session = session.is_some();
    if let Some(session) = &session {
        // The OpenTelemetry conventions' name for the MCP session a request belongs to.
        span.record("mcp.session.id", session.session().id());
    }
    // A session has a stream to send `notifications/tools/list_changed` on, so its `initialize`
    // says `listChanged: true`.
    let router = router
        .with_principal(caller.principal)
        .with_extension(caller.identity)
        .with_list_changed(in_session)
        .with_requests_to_client(requests_to_client(in_session, &form.accepts));
    let opened = initialize.then_some(()).and(session.as_ref());
    let mut response = match message {
        Message::Request(RpcRequest {
            id,
            call: Call::ToolsCall(call),
            ..
        }) => {
            span.record("method", "tools/call");
            span.record("tool", call.name.as_str());
            span.record("id", tracing::field::display(&id));
            match tool_call(shared, router, id, call, plain, form, deadline, span) {
                CallReply::Now(response) => response,
                CallReply::Later(answer) => answer.await,
            }
        }
        Message::Request(request) => {
            span.record("method", request.method());
            span.record("id", tracing::field::display(&request.id));
            Box::pin(other_request(shared, router, request, form, deadline, span)).await
        }
        Message::Notification(notification) => {
            span.record("method", notification.method());
            // Nothing to do in stateless mode (see the module docs on `notifications/cancelled`);
            // in a session, a `notifications/cancelled` cancels the session's call with that id.
            if in_session {
                router.notify(notification);
            }
            span.record("outcome", "accepted");
            StatusCode::ACCEPTED.into_response()
        }
        Message::Response(response) => {
            // In a session, the answer to a question a running tool asked (on the stream of
            // its call); stateless, there is no such question to answer.
            if in_session {
                // Boxed: `handle`'s future holds the 2026-07-28 path's whole state, which would
                // otherwise make every request's future kilobytes larger (and `serve` moves it
                // into hyper's slot once per request: +10,000 instructions a call, issue 28).
                Box::pin(router.handle(Message::Response(response))).await;
            }
            span.record("outcome", "accepted");
            StatusCode::ACCEPTED.into_response()
        }
        Message::Invalid(invalid) => invalid_message(invalid, span),
        Message::Unreadable(unreadable) => unreadable_message(&unreadable, &form.accepts, span),
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

/// The tool's name, if `message` is a `tools/call` of a tool that cannot reach its client:
/// none of its parameters can ([`Tool::may_ask`](claude_tools_core::tool::Tool::may_ask)), so
/// it sends nothing before its result.
fn is_plain_call(shared: &Shared, message: &Message) -> Option<Arc<str>> {
    match message {
        Message::Request(RpcRequest {
            call: Call::ToolsCall(call),
            ..
        }) => shared
            .router
            .server()
            .tool(&call.name)
            .filter(|tool| !tool.may_ask())
            .map(|tool| tool.shared_name()),
        _ => None,
    }
}

/// Whether `message` is an `initialize` request (which opens a session in sessions mode).
fn is_initialize(message: &Message) -> bool {
    matches!(
        message,
        Message::Request(RpcRequest {
            call: Call::Initialize(_),
            ..
        })
    )
}

/// How this request's answer is written: in the form the client takes.
pub(super) struct ReplyForm {
    pub(super) accepts: Accepts,
}

/// An answer in the form the client takes: JSON, or a one-event SSE stream for a client that
/// reads only SSE.
pub(super) fn reply_response(reply: RpcResponse, form: &ReplyForm) -> Response {
    let bytes = reply_bytes(&reply);
    if form.accepts.json {
        json_response(StatusCode::OK, bytes)
    } else {
        sse_response(Body::from(sse_event(&bytes)))
    }
}

/// `400` with the error of bytes that are not a JSON-RPC message.
fn invalid_message(invalid: Invalid, span: &tracing::Span) -> Response {
    span.record("outcome", "rejected");
    if let Some(id) = &invalid.id {
        span.record("id", tracing::field::display(id));
    }
    let answer = RpcResponse::error(invalid.id, invalid.error);
    json_response(StatusCode::BAD_REQUEST, reply_bytes(&answer))
}

/// The answer to bytes the decoder could not read: `400` with the parse error, or, for a
/// `tools/call` whose id could be read, `200` with the `isError` result the model reads.
fn unreadable_message(
    unreadable: &claude_tools_core::mcp::Unreadable,
    accepts: &Accepts,
    span: &tracing::Span,
) -> Response {
    if let Some(id) = &unreadable.id {
        span.record("id", tracing::field::display(id));
    }
    if let Some(method) = &unreadable.method {
        span.record("method", method.as_str());
    }
    let answer = unreadable.response();
    if answer.outcome.is_err() {
        span.record("outcome", "rejected");
        return json_response(StatusCode::BAD_REQUEST, reply_bytes(&answer));
    }
    record_outcome(span, &answer);
    reply_response(answer, &ReplyForm { accepts: *accepts })
}

/// A request other than `tools/call`, answered within the request timeout.
async fn other_request(
    shared: &Shared,
    router: McpRouter,
    request: RpcRequest,
    form: ReplyForm,
    deadline: Instant,
    span: &tracing::Span,
) -> Response {
    let id = request.id.clone();
    let answer = tokio::select! {
        biased;
        answer = router.handle(Message::Request(request)) => answer,
        () = tokio::time::sleep_until(deadline) => {
            span.record("outcome", "timeout");
            Some(RpcResponse::error(
                Some(id),
                ErrorObject::new(ErrorCode::INTERNAL_ERROR, "Request timed out").with_data(format!(
                    "no answer within the server's {} request timeout",
                    seconds(shared.request_timeout)
                )),
            ))
        }
    };
    // The router answers every request.
    let Some(answer) = answer else {
        return StatusCode::ACCEPTED.into_response();
    };
    record_outcome(span, &answer);
    reply_response(answer, &form)
}

/// Whether a running tool's questions reach the client: only in a session (whose later `POST`
/// can bring the answer back to the same connection), on the call's SSE stream.
fn requests_to_client(in_session: bool, accepts: &Accepts) -> RequestsToClient {
    if !in_session {
        RequestsToClient::refused(
            "this MCP server is stateless, so a tool cannot ask the client anything (the answer would come back on a request of its own, which a stateless server cannot tie to the question): serve it with sessions on (`HttpServer::sessions(true)`)",
        )
    } else if !accepts.sse_named {
        RequestsToClient::refused(
            "the client's tools/call does not accept `text/event-stream`, the only way this server can send it a question during the call",
        )
    } else {
        RequestsToClient::sent()
    }
}
