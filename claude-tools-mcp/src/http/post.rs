//! One `POST`: admitted ([`admit`](super::admit)), its body read as one JSON-RPC message, run on
//! the connection state of its [session](super::session) (a fresh one when stateless) by the
//! router, and answered in the form the client takes (JSON, or SSE for a call with progress).
//!
//! The JSON-RPC handling of the message ([`parse`], [`as_tool_call`], [`other_message`],
//! [`tool_call`]) is kept together here.

use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use axum::body::{Body, Bytes};
use axum::extract::{Request, State};
use axum::http::{HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use http_body::Frame;
use serde_json::Value;
use serde_json::value::RawValue;
use tokio::sync::mpsc;
use tokio::time::Instant;
use tracing::Instrument;

use super::Shared;
use super::admit::{Accepts, admit, check_headers, read_body};
use super::reply::{
    Refusal, json_response, record_outcome, reply_bytes, seconds, shut_down, timed_out,
    transport_error,
};
use super::session::SESSION_ID_HEADER;
use super::session::table::SessionUse;
use super::sse::{CallState, Limits, SseBody, sse_event, sse_response};
use claude_tools_core::json_scan;
use claude_tools_core::mcp::{McpMessage, McpRouter, Reply, Started, jsonrpc};

pub(super) async fn handle(State(shared): State<Arc<Shared>>, request: Request) -> Response {
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
    let initialize = is_initialize(&message);
    let connection = shared
        .sessions
        .connection(&shared.router, &parts.headers, initialize);
    let (router, session) = match connection {
        Ok(connection) => connection,
        Err(refusal) => {
            span.record("outcome", "rejected");
            return refusal.into_response();
        }
    };
    let router = router.with_extension(identity);
    let in_session = session.is_some();
    let opened = initialize.then_some(()).and(session.as_ref());
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

/// How this request's reply is written: in the form the client takes, with the request's id
/// as it came when the reply must write it so ([`jsonrpc::verbatim_id`]).
struct ReplyForm {
    accepts: Accepts,
    id: Option<Box<RawValue>>,
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

// ---------------------------------------------------------------------------------------------
// The JSON-RPC of a POST: the body as one message, and its handling.

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
