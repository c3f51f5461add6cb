//! A `POST`'s `tools/call`: started at once and, when it finishes in its first poll (most
//! do), answered with no future of its own; else answered when it finishes, within the request
//! timeout and until the shutdown. A tool that can send something before its result (progress,
//! a log message, in a session a question) gets an outbox for it, and the answer turns into an
//! SSE stream when something is queued; one that cannot reach its client
//! ([`Tool::may_ask`](claude_tools_core::tool::Tool::may_ask) false) is answered as plain JSON.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use axum::body::Body;
use axum::response::Response;
use tokio::time::Instant;

use super::Shared;
use super::outbox::Outbox;
use super::post::{ReplyForm, reply_response};
use super::reply::{RpcResponse, record_outcome, shut_down, timed_out};
use super::sse::{CallState, Limits, SseBody, sse_response};
use claude_tools_core::mcp::{McpRouter, RequestId, RunningCall, Started, ToolCall};

/// A `tools/call`'s answer: ready now (most calls finish in their first poll), or a future
/// for one that runs on. Only the latter is boxed, so the request's own future does not carry
/// a running call's state (its kilobytes are copied with every request's future).
pub(super) enum CallReply<'a> {
    Now(Response),
    Later(Pin<Box<dyn Future<Output = Response> + Send + 'a>>),
}

/// Starts `call`. `plain`: the tool's name when the tool cannot reach its client (see the
/// [module docs](self)).
#[allow(clippy::too_many_arguments)]
pub(super) fn tool_call<'a>(
    shared: &'a Shared,
    router: McpRouter,
    id: RequestId,
    call: ToolCall,
    plain: Option<Arc<str>>,
    form: ReplyForm,
    deadline: Instant,
    span: &'a tracing::Span,
) -> CallReply<'a> {
    // A tool whose handler cannot reach its call's context (no `ToolContext`, nothing that
    // holds one) can send nothing before its result: no progress, no log message, no question.
    // Its answer is plain JSON, without the outbox, notifier and stream the others are given.
    let streams_progress =
        form.accepts.sse_named && call.progress_token.is_some() && plain.is_none();
    // A tool may log, and in a session ask the client something: that goes out on the call's
    // SSE stream, which opens only if the tool sends something before its result.
    let tool = match plain {
        Some(tool) => tool,
        None if form.accepts.sse_named && !streams_progress => {
            return CallReply::Later(Box::pin(tool_call_streamed_on_demand(
                shared, router, id, call, form, deadline, span,
            )));
        }
        None => Arc::from(call.name.as_str()),
    };
    if !streams_progress {
        return match router.start_call(id, call) {
            Started::Done(reply) => {
                record_outcome(span, &reply);
                CallReply::Now(reply_response(reply, &form))
            }
            Started::Running(running) => CallReply::Later(Box::pin(finish_in_time(
                shared, running, tool, form, deadline, span,
            ))),
        };
    }
    let tool = tool.to_string();
    let (queued, notifier) = Outbox::new();
    let router = router.with_notifier(notifier);
    let state = match router.start_call(id.clone(), call) {
        // Answered at once: as plain JSON unless it reported progress on the way.
        Started::Done(reply) if queued.is_empty() && form.accepts.json => {
            record_outcome(span, &reply);
            return CallReply::Now(reply_response(reply, &form));
        }
        Started::Done(reply) => CallState::Done(reply),
        Started::Running(running) => CallState::Running(Box::pin(running.finish())),
    };
    let body = SseBody {
        queued,
        state,
        limits: Limits::of(shared, deadline, id, tool, span),
    };
    CallReply::Now(sse_response(Body::new(body)))
}

/// The answer of a call still running after its first poll, within the request timeout and
/// until the shutdown. Dropping the running call (a timeout, the shutdown, or this future
/// dropped on a disconnect) cancels it.
async fn finish_in_time(
    shared: &Shared,
    running: RunningCall,
    tool: Arc<str>,
    form: ReplyForm,
    deadline: Instant,
    span: &tracing::Span,
) -> Response {
    let id = running.id().clone();
    let reply = tokio::select! {
        biased;
        reply = running.finish() => reply,
        () = tokio::time::sleep_until(deadline) => {
            return reply_response(cut_short(shared, span, id, &tool, Cut::Timeout), &form);
        }
        () = shared.shutdown.cancelled() => {
            return reply_response(cut_short(shared, span, id, &tool, Cut::Shutdown), &form);
        }
    };
    record_outcome(span, &reply);
    reply_response(reply, &form)
}

/// A `tools/call` without a progress token, from a client that takes SSE: answered as JSON,
/// unless its tool sends something before its result (a log message; in a session, a question
/// to the client); then the answer is an SSE stream, that message first. Stateless or in a
/// session alike: a log message belongs on the stream of the call that logged it.
async fn tool_call_streamed_on_demand(
    shared: &Shared,
    router: McpRouter,
    id: RequestId,
    call: ToolCall,
    form: ReplyForm,
    deadline: Instant,
    span: &tracing::Span,
) -> Response {
    let tool = call.name.clone();
    let (queued, notifier) = Outbox::new();
    let router = router.with_notifier(notifier);
    let running = match router.start_call(id.clone(), call) {
        Started::Done(reply) if queued.is_empty() && form.accepts.json => {
            record_outcome(span, &reply);
            return reply_response(reply, &form);
        }
        Started::Done(reply) => CallState::Done(reply),
        Started::Running(running) => {
            let mut finishing: Pin<Box<dyn Future<Output = RpcResponse> + Send>> =
                Box::pin(running.finish());
            if form.accepts.json && queued.is_empty() {
                tokio::select! {
                    biased;
                    reply = &mut finishing => {
                        if queued.is_empty() {
                            record_outcome(span, &reply);
                            return reply_response(reply, &form);
                        }
                        CallState::Done(reply)
                    }
                    () = queued.queued() => CallState::Running(finishing),
                    () = tokio::time::sleep_until(deadline) => {
                        return reply_response(cut_short(shared, span, id, &tool, Cut::Timeout), &form);
                    }
                    () = shared.shutdown.cancelled() => {
                        return reply_response(cut_short(shared, span, id, &tool, Cut::Shutdown), &form);
                    }
                }
            } else {
                CallState::Running(finishing)
            }
        }
    };
    let body = SseBody {
        queued,
        state: running,
        limits: Limits::of(shared, deadline, id, tool, span),
    };
    sse_response(Body::new(body))
}

/// What ended a call before its result.
#[derive(Clone, Copy)]
pub(super) enum Cut {
    /// The request timeout.
    Timeout,
    /// The graceful shutdown's end.
    Shutdown,
}

/// The `isError` answer of the call `id` of `tool` that `cut` ended, noted in the request's
/// span.
pub(super) fn cut_short(
    shared: &Shared,
    span: &tracing::Span,
    id: RequestId,
    tool: &str,
    cut: Cut,
) -> RpcResponse {
    match cut {
        Cut::Timeout => {
            span.record("outcome", "timeout");
            timed_out(id, tool, shared.request_timeout)
        }
        Cut::Shutdown => {
            span.record("outcome", "shutdown");
            shut_down(id, tool)
        }
    }
}
