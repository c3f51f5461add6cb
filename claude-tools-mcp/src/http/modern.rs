//! An MCP 2026-07-28 `POST`: a request that carries its revision, its client's capabilities
//! and its client in its own `_meta`, served statelessly on a connection state of its own
//! whether or not the server keeps [sessions](super#sessions) for 2025 clients (none is
//! looked up, minted or echoed).
//!
//! | request | answer |
//! |---|---|
//! | `Mcp-Method` / `Mcp-Name` missing or not what the body says ([`standard_headers`](super::standard_headers)) | `400`, `-32020` |
//! | answered with `-32601` (a method the server does not have, or one 2026-07-28 removed) | `404` with the error |
//! | answered with `-32020`, `-32021` or `-32022` | `400` with the error |
//! | any other answer (other errors included) | `200`: JSON, or for a `tools/call` from a client whose `Accept` names `text/event-stream`, an SSE stream once the call sends something before its result (progress; log messages when its `_meta` names a `logLevel`), the result last |
//!
//! A request whose `_meta` and `MCP-Protocol-Version` disagree, or whose `_meta` is malformed,
//! never gets here: [`decide_revision`](claude_tools_core::mcp::decide_revision) refuses it
//! first (`400` with `-32020`, `-32022` or `-32602`).

use std::net::IpAddr;
use std::pin::Pin;

use super::outbox::Outbox;
use axum::body::Body;
use axum::http::StatusCode;
use axum::response::Response;
use tokio::time::Instant;

use super::Shared;
use super::admit::Accepts;
use super::auth::Caller;
use super::head::Head;
use super::reply::{RpcResponse, json_response, record_outcome, reply_bytes, seconds};
use super::session::client_of;
use super::sse::{CallState, Limits, SseBody, sse_event, sse_response};
use super::standard_headers;
use super::tool_call::{CallReply, Cut, cut_short};
use claude_tools_core::mcp::{
    Call, ErrorCode, ErrorObject, Message, ModernRunningCall, ModernStarted, Request, ResultMeta,
    ResultType, ServerNotification,
};

/// The HTTP status of a 2026-07-28 answer (the table of the [module docs](self)).
pub(super) fn status_of(reply: &RpcResponse) -> StatusCode {
    match reply.error_code() {
        Some(ErrorCode::METHOD_NOT_FOUND) => StatusCode::NOT_FOUND,
        Some(
            ErrorCode::HEADER_MISMATCH
            | ErrorCode::MISSING_REQUIRED_CLIENT_CAPABILITY
            | ErrorCode::UNSUPPORTED_PROTOCOL_VERSION,
        ) => StatusCode::BAD_REQUEST,
        _ => StatusCode::OK,
    }
}

/// `status` with `error` as the JSON-RPC answer to the request `id`.
pub(super) fn refused(
    status: StatusCode,
    id: Option<claude_tools_core::mcp::RequestId>,
    error: ErrorObject,
    span: &tracing::Span,
) -> Response {
    span.record("outcome", "rejected");
    json_response(status, reply_bytes(&RpcResponse::error(id, error)))
}

/// What can be answered of the 2026-07-28 `request` without waiting: a refusal of its headers,
/// or a call that can only end with its result (a tool that cannot ask, log or report
/// progress), started on the connection state all such calls share and answered as plain JSON,
/// now or once it finishes. Any other request comes back, for [`answer`] (by value: boxing it
/// would cost every other request an allocation).
#[allow(clippy::result_large_err)]
pub(super) fn start<'a>(
    shared: &'a Shared,
    caller: &Caller,
    head: &Head<'_>,
    request: Request,
    accepts: Accepts,
    deadline: Instant,
    span: &'a tracing::Span,
) -> Result<CallReply<'a>, Request> {
    if let Err(error) = standard_headers::check(head, &request, &shared.router.server()) {
        let refusal = refused(StatusCode::BAD_REQUEST, Some(request.id), error, span);
        return Ok(CallReply::Now(refusal));
    }
    span.record("method", request.method());
    span.record("id", tracing::field::display(&request.id));
    if let Call::ToolsCall(call) = &request.call {
        span.record("tool", call.name.as_str());
    }
    let plain = shared
        .plain_router
        .clone()
        .with_principal(caller.principal.clone())
        .with_extension(caller.identity.clone());
    match plain.start_plain_modern_call(request) {
        Ok(ModernStarted::Done(reply)) => {
            record_outcome(span, &reply);
            Ok(CallReply::Now(reply_response(reply, &accepts)))
        }
        Ok(ModernStarted::Running(running)) => Ok(CallReply::Later(Box::pin(plain_call(
            shared, running, accepts, deadline, span,
        )))),
        Err(request) => Err(request),
    }
}

/// Answers the 2026-07-28 `request` that [`start`] gave back.
pub(super) async fn answer(
    shared: &Shared,
    caller: Caller,
    peer: Option<IpAddr>,
    request: Request,
    accepts: Accepts,
    deadline: Instant,
    span: &tracing::Span,
) -> Response {
    let client = client_of(&caller, peer);
    let router = shared
        .router
        .new_connection()
        .with_principal(caller.principal.clone())
        .with_extension(caller.identity);
    if request.method() == "subscriptions/listen" {
        return listen(shared, &router, client, request, span);
    }
    let id = request.id.clone();
    let tool = match &request.call {
        Call::ToolsCall(call) => Some(call.name.clone()),
        _ => None,
    };
    let result_meta = ResultMeta::new(ResultType::Complete, router.server_info());
    // Only what belongs on the request's own stream (progress, log messages); a 2026-07-28
    // request is never sent a request of the server's, nor a list change.
    let (queued, notifier) = Outbox::keeping(|message| {
        matches!(
            message,
            ServerNotification::Progress { .. } | ServerNotification::Message(_)
        )
    });
    let router = router.with_notifier(notifier);
    let mut finishing: Pin<Box<dyn Future<Output = RpcResponse> + Send>> = Box::pin(async move {
        let id = request.id.clone();
        match router.handle(Message::Request(request)).await {
            Some(reply) => reply,
            // The router answers every request.
            None => RpcResponse::error(Some(id), ErrorObject::internal_error("no answer")),
        }
    });
    let streams = accepts.sse_named && tool.is_some();
    let timed_out = |shared: &Shared| match &tool {
        Some(tool) => super::reply::timed_out(id.clone(), tool, shared.request_timeout)
            .with_result_meta(result_meta.clone()),
        None => RpcResponse::error(
            Some(id.clone()),
            ErrorObject::new(ErrorCode::INTERNAL_ERROR, "Request timed out").with_data(format!(
                "no answer within the server's {} request timeout",
                seconds(shared.request_timeout)
            )),
        ),
    };
    let state = tokio::select! {
        biased;
        reply = &mut finishing => {
            if queued.is_empty() || !streams {
                record_outcome(span, &reply);
                return reply_response(reply, &accepts);
            }
            CallState::Done(reply)
        }
        () = queued.queued(), if streams => CallState::Running(finishing),
        () = tokio::time::sleep_until(deadline) => {
            span.record("outcome", "timeout");
            return reply_response(timed_out(shared), &accepts);
        }
        () = shared.shutdown.cancelled() => {
            span.record("outcome", "shutdown");
            let reply = match &tool {
                Some(tool) => super::reply::shut_down(id.clone(), tool)
                    .with_result_meta(result_meta.clone()),
                None => RpcResponse::error(
                    Some(id.clone()),
                    ErrorObject::internal_error("the server shut down"),
                ),
            };
            return reply_response(reply, &accepts);
        }
    };
    // Here the answer streams: every other way out of the `select!` has returned.
    let body = SseBody {
        queued,
        state,
        limits: Limits::of(shared, deadline, id, tool.unwrap_or_default(), span)
            .with_result_meta(result_meta),
    };
    sse_response(Body::new(body))
}

/// The answer to a call [`McpRouter::start_plain_modern_call`] started that did not finish in
/// its first poll: its result, or within the request timeout and until the shutdown, the error
/// a call gets when either ends it. Dropping the running call (a timeout, the shutdown, or this
/// future dropped on a disconnect) cancels it.
///
/// [`McpRouter::start_plain_modern_call`]: claude_tools_core::mcp::McpRouter::start_plain_modern_call
async fn plain_call(
    shared: &Shared,
    running: ModernRunningCall,
    accepts: Accepts,
    deadline: Instant,
    span: &tracing::Span,
) -> Response {
    let id = running.id().clone();
    let tool = running.tool().to_owned();
    let in_form = |reply: RpcResponse, shared: &Shared| {
        reply.with_result_meta(ResultMeta::new(
            ResultType::Complete,
            shared.router.server_info(),
        ))
    };
    let reply = tokio::select! {
        biased;
        reply = running.finish() => reply,
        () = tokio::time::sleep_until(deadline) => {
            let reply = cut_short(shared, span, id, &tool, Cut::Timeout);
            return reply_response(in_form(reply, shared), &accepts);
        }
        () = shared.shutdown.cancelled() => {
            let reply = cut_short(shared, span, id, &tool, Cut::Shutdown);
            return reply_response(in_form(reply, shared), &accepts);
        }
    };
    record_outcome(span, &reply);
    reply_response(reply, &accepts)
}

/// Opens the listen stream `request` asks for, within the bounds (see [`listen`](super::listen)).
fn listen(
    shared: &Shared,
    router: &claude_tools_core::mcp::McpRouter,
    client: super::session::table::Client,
    request: Request,
    span: &tracing::Span,
) -> Response {
    let held = match shared.listen.admit(client, &request.id) {
        Ok(held) => held,
        Err(refusal) => {
            span.record("outcome", "rejected");
            return *refusal;
        }
    };
    match router.listen(request) {
        Ok(stream) => {
            span.record("outcome", "listening");
            let mut response = super::listen::stream_response(
                stream,
                held,
                shared.listen.keep_alive,
                shared.listen.closing.clone(),
            );
            // A listen stream is open for as long as the client likes: it holds no place among
            // the requests in flight.
            response.extensions_mut().insert(super::listen::Listening);
            response
        }
        Err(reply) => {
            record_outcome(span, &reply);
            json_response(status_of(&reply), reply_bytes(&reply))
        }
    }
}

/// A 2026-07-28 answer as JSON with its status, or a one-event SSE stream for a client that
/// takes only SSE.
fn reply_response(reply: RpcResponse, accepts: &Accepts) -> Response {
    let bytes = reply_bytes(&reply);
    if accepts.json {
        json_response(status_of(&reply), bytes)
    } else {
        sse_response(Body::from(sse_event(&bytes)))
    }
}
