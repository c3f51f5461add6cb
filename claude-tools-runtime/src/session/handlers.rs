//! Answers to the CLI's requests: each gets exactly one answer, or none when cancelled.
//!
//! A request is first polled once where it was read, on the session's reading thread, with the
//! application's runtime entered (so a tool's `tokio::spawn`, timers and `Handle::current` are
//! the application's, and `block_in_place` works: the reading thread is in no runtime while it
//! polls). Most are answered right there — a quick tool, a notification's acknowledgement,
//! `tools/list` — with no task, no registration and no hop between threads, which is what keeps
//! a tool call's round trip close to a hand-written responder's. A request that is not done
//! after that first poll moves into its own task **on the application's runtime**, spawned from
//! the reading thread (so it goes through the runtime's shared queue and wakes an idle worker,
//! never into the LIFO slot of a worker that may block), registered under its `request_id` so
//! `control_cancel_request` can find it; a slow tool never delays anything else. A handler that
//! blocks in its first poll holds the reading thread: the [`watchdog`](super::watchdog) moves
//! the reading to a new thread within 5 to 10 ms. One that blocks later holds a worker of the
//! application's runtime, not the session. Either way a poll of 100 ms or more is reported
//! ([`held`](super::held)).
//!
//! Withdrawal (`control_cancel_request`, or the session ending) keeps the one cancellation
//! contract described at [`CANCEL_GRACE`](claude_tools_core::mcp::CANCEL_GRACE): a permission callback's
//! or hook's token fires, nothing is written for it, and its task keeps polling it for up to
//! `CANCEL_GRACE` ([`run_out_grace`], as a cancelled tool call's handler) so its cancellation
//! branch runs, then drops it. An `mcp_message`'s task is aborted instead: dropping
//! the router's future hands a running tool its own token and grace, in the router.
//!
//! A `request_id` the CLI sends again while a request with that id is still running is not an
//! error here: both requests run and **each is answered** under that id, in the order they
//! finish (the CLI never reuses ids, so this is only ever a buggy or hostile peer, and answering
//! keeps "every request ends once" without guessing which of the two it meant). A
//! `control_cancel_request` for the id withdraws every request running under it. (An MCP
//! `tools/call` that repeats a *JSON-RPC* id still running is refused by the router with
//! `-32600`; that is another layer.)

use std::borrow::Cow;
use std::collections::hash_map::Entry;
use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::sync::Arc;
use std::task::{Context, Poll, Waker};

use serde_json::Value;
use tokio_util::sync::CancellationToken;
use tracing::{Instrument, Span};

use super::deferred::Deferred;
use super::held::{self, Label};
use super::inflight::{InFlight, Taken, Withdrawable};
use super::{SessionCore, lock};
use crate::dialog::UserDialogAnswer;
use crate::elicitation::ElicitationAnswer;
use crate::hooks::{HookEvent, HookOutput};
use crate::permission::PermissionDecision;
use crate::protocol::{self, CliRequest, DialogAnswer, PermissionAnswer};
use claude_tools_core::catch_unwind::{CatchUnwind, panic_message};
use claude_tools_core::mcp::{
    Call, ErrorCode, ErrorObject, McpRouter, Message, MetaClaim, Request, RequestId, Response,
    Started, ToolCall, run_out_grace,
};

/// What to write back, serialised straight into the answer line.
enum ControlAnswer {
    /// `{"mcp_response": <response>}`, from the router's answer (the placeholder for none).
    Mcp(Option<Response>),
    /// The permission callback's decision about a request whose input was `input`.
    Permission {
        decision: PermissionDecision,
        input: Value,
    },
    /// A hook's output.
    Hook(Value),
    Elicitation(ElicitationAnswer),
    /// The answer to a `request_user_dialog`.
    Dialog(UserDialogAnswer),
    /// Nothing now: the host answers later ([`super::deferred`]).
    Deferred(Deferred),
    Error(String),
}

/// A request of the CLI taken out of its line, ready for its first poll. Only its id may still
/// borrow the line: [`FirstPoll::detach`] copies it out when the reader must hand its line
/// buffer to another task while the first poll runs (in case the host's code blocks the thread).
pub(super) struct FirstPoll<'s, 'l> {
    request_id: Cow<'l, str>,
    work: Work<'s>,
    /// The request's span ([`crate::telemetry`]), entered for its first poll and around its
    /// task.
    span: Span,
}

enum Work<'s> {
    /// The hot path: a `tools/call` for a server of this session.
    ToolCall(&'s McpRouter, RequestId, ToolCall),
    Other(CliRequest<'static>),
}

/// Takes a request out of its line.
// One caller, the reader, for every request of the CLI: inlined, the request is built in place
// instead of being moved through a return slot.
#[inline(always)]
pub(super) fn prepare<'s, 'l>(
    shared: &'s SessionCore,
    request_id: Cow<'l, str>,
    body: CliRequest<'_>,
) -> FirstPoll<'s, 'l> {
    let span = shared.spans.control_request(&body.subtype(), &request_id);
    let work = match body {
        // A 2025-era call (the CLI speaks 2025-11-25 to in-process servers) takes the fast
        // path; one with MCP 2026-07-28 `_meta` goes through the router like any request.
        CliRequest::Mcp {
            server,
            message:
                Message::Request(Request {
                    id,
                    call: Call::ToolsCall(call),
                    meta: MetaClaim::Absent,
                }),
        } => match shared.routers.get(&*server) {
            Some(router) => Work::ToolCall(router, id, call),
            None => Work::Other(CliRequest::Mcp {
                server: Cow::Owned(server.into_owned()),
                message: Message::Request(Request {
                    id,
                    call: Call::ToolsCall(call),
                    meta: MetaClaim::Absent,
                }),
            }),
        },
        body => Work::Other(body.into_owned()),
    };
    FirstPoll {
        request_id,
        work,
        span,
    }
}

impl<'s> FirstPoll<'s, '_> {
    /// The request with its id copied out of the line, so the line buffer can move.
    pub(super) fn detach(self) -> FirstPoll<'s, 'static> {
        FirstPoll {
            request_id: Cow::Owned(self.request_id.into_owned()),
            work: self.work,
            span: self.span,
        }
    }

    /// What the request runs, named for a warning should it hold its thread.
    pub(super) fn label(&self) -> Label {
        match &self.work {
            Work::ToolCall(_, _, call) => Label::tool(&call.name),
            Work::Other(body) => Label::of(body),
        }
    }

    /// Polls the request once and answers it, or moves it into its own task on the
    /// application's runtime. `label` is [`FirstPoll::label`].
    pub(super) fn run(self, shared: &Arc<SessionCore>, label: &Label) {
        let FirstPoll {
            request_id,
            work,
            span,
        } = self;
        let to = Recipient { request_id };
        let _entered = span.enter();
        match work {
            Work::ToolCall(router, id, call) => {
                serve_tool_call(shared, to, router, id, call, label, &span)
            }
            Work::Other(body) => serve(shared, to, body, label, &span),
        }
    }
}

/// Whom an answer goes to: the control request's id.
struct Recipient<'l> {
    request_id: Cow<'l, str>,
}

impl Recipient<'_> {
    fn into_owned(self) -> Recipient<'static> {
        Recipient {
            request_id: Cow::Owned(self.request_id.into_owned()),
        }
    }
}

fn serve(
    shared: &Arc<SessionCore>,
    to: Recipient<'_>,
    body: CliRequest<'static>,
    label: &Label,
    span: &Span,
) {
    // Callbacks get a token that `control_cancel_request` fires (the one their request carries).
    // An `mcp_message` needs none: the CLI cancels tool calls with `notifications/cancelled`,
    // and aborting the request's task drops the router's future, which cancels the call's own
    // token and starts its grace.
    let cancellation = body.cancellation_token();
    let mut pending = Box::pin(respond(shared.clone(), body));
    // The waker does not matter: a future still pending is polled again, with its task's real
    // waker, as soon as that task starts.
    if let Poll::Ready(answer) = pending
        .as_mut()
        .poll(&mut Context::from_waker(Waker::noop()))
    {
        send_answer(shared, &to, answer);
        return;
    }
    spawn_answer(
        shared,
        to.into_owned(),
        cancellation,
        label,
        pending.instrument(span.clone()),
    );
}

/// The hot path: a `tools/call` for a server of this session, started and polled once with no
/// future around it (the handler's own is the only one). A tool that is not done moves into a
/// task.
fn serve_tool_call(
    shared: &Arc<SessionCore>,
    to: Recipient<'_>,
    router: &McpRouter,
    id: RequestId,
    call: ToolCall,
    label: &Label,
    span: &Span,
) {
    // The handler's panics are caught in its call; this catches the router's own, so the
    // request still gets its one answer.
    match std::panic::catch_unwind(AssertUnwindSafe(|| router.start_call(id, call))) {
        // Written straight from the router's answer, with no answer built around it.
        Ok(Started::Done(response)) => shared
            .out
            .send_with(|out| protocol::mcp_success_line(out, &to.request_id, Some(&response))),
        Ok(Started::Running(call)) => {
            let answer = caught("mcp_message".into(), async move {
                ControlAnswer::Mcp(Some(call.finish().await))
            });
            spawn_answer(
                shared,
                to.into_owned(),
                None,
                label,
                answer.instrument(span.clone()),
            );
        }
        Err(panic) => send_answer(
            shared,
            &to,
            ControlAnswer::Error(panicked("mcp_message", panic_message(&*panic))),
        ),
    }
}

/// Moves a request that is not answered yet into its own task, registered under its
/// `request_id` so `control_cancel_request` (or the session's end) can find it.
fn spawn_answer(
    shared: &Arc<SessionCore>,
    to: Recipient<'static>,
    cancellation: Option<CancellationToken>,
    label: &Label,
    answer: impl Future<Output = ControlAnswer> + Send + 'static,
) {
    let answer = held::timed(label.clone(), answer);
    let task_shared = shared.clone();
    let request_id = to.request_id.to_string();
    let task_cancellation = cancellation.clone();
    // The map stays locked until the entry is in, so the task cannot finish (and look for its
    // entry) before it exists.
    let mut inflight = lock(&shared.inflight);
    // On the application's runtime, spawned from the reading thread: through the runtime's
    // shared queue, which wakes an idle worker, never on the session's own threads.
    let task = shared.host.spawn(async move {
        let answer = match task_cancellation {
            None => answer.await,
            Some(token) => match until_withdrawn(answer, &token).await {
                Some(answer) => answer,
                None => return,
            },
        };
        // Still registered means not withdrawn: answer. Withdrawn requests get nothing.
        if still_registered(&task_shared, &to.request_id) {
            send_answer(&task_shared, &to, answer);
        }
    });
    let handler = Withdrawable {
        cancellation,
        task: task.abort_handle(),
    };
    match inflight.entry(request_id) {
        Entry::Vacant(slot) => {
            slot.insert(InFlight::new(handler));
        }
        Entry::Occupied(mut running) => {
            tracing::warn!(
                request_id = %running.key(),
                "the CLI sent a request_id that is still running; both requests will be answered"
            );
            running.get_mut().duplicates.push(handler);
        }
    }
}

/// Serves again a request the CLI still waits on, as an `initialize` answer listed it (after a
/// transport gap, [`Controls::reinitialize`](crate::control::Controls::reinitialize)): in its
/// own task, unless a request of that id is being answered or deferred already (the answer the
/// gap lost is the one this gives again; the host's callbacks should be idempotent per
/// request id, as in the TypeScript SDK).
pub(super) fn redeliver(shared: &Arc<SessionCore>, request_id: String, body: CliRequest<'static>) {
    let running = lock(&shared.inflight).contains_key(&request_id);
    if running || lock(&shared.deferred).contains_key(&request_id) {
        return;
    }
    let label = Label::of(&body);
    let cancellation = body.cancellation_token();
    let answer = respond(shared.clone(), body);
    let to = Recipient {
        request_id: Cow::Owned(request_id),
    };
    spawn_answer(shared, to, cancellation, &label, answer);
}

/// `answer`, unless `token` fires first: then `answer` is polled on for up to the grace (the
/// callback sees its token and runs its cancellation branch), its outcome discarded, and dropped
/// ([`run_out_grace`]).
async fn until_withdrawn(
    answer: impl Future<Output = ControlAnswer>,
    token: &CancellationToken,
) -> Option<ControlAnswer> {
    let mut answer = std::pin::pin!(answer);
    tokio::select! {
        biased;
        () = token.cancelled() => {
            run_out_grace(answer).await;
            None
        }
        answer = &mut answer => Some(answer),
    }
}

/// Takes the current task's entry out of the in-flight map: `false` if its request was
/// withdrawn (the entry is gone, or the id now belongs to a later request).
fn still_registered(shared: &SessionCore, request_id: &str) -> bool {
    let mut inflight = lock(&shared.inflight);
    let Some(group) = inflight.get_mut(request_id) else {
        return false;
    };
    match group.take(tokio::task::id()) {
        Taken::Last => {
            inflight.remove(request_id);
            true
        }
        Taken::Some => true,
        Taken::None => false,
    }
}

/// The answer to one request, with a panic of the host's code turned into an error answer.
async fn respond(shared: Arc<SessionCore>, body: CliRequest<'static>) -> ControlAnswer {
    caught(body.subtype(), answer(&shared, body)).await
}

/// `answer`, with a panic turned into an error answer.
async fn caught(
    subtype: Cow<'static, str>,
    answer: impl Future<Output = ControlAnswer>,
) -> ControlAnswer {
    match CatchUnwind::new(answer).await {
        Ok(answer) => answer,
        Err(panic) => ControlAnswer::Error(panicked(&subtype, &panic)),
    }
}

fn panicked(subtype: &str, panic: &str) -> String {
    format!("the host's `{subtype}` handler panicked: {panic}")
}

/// Writes the answer line straight into the outbox's buffer (or, for an answer deferred,
/// holds the request for the host's later one).
fn send_answer(shared: &SessionCore, to: &Recipient<'_>, answer: ControlAnswer) {
    let request_id = &*to.request_id;
    if let ControlAnswer::Deferred(deferred) = answer {
        shared.defer(request_id, deferred);
        return;
    }
    shared.out.send_with(|out| match &answer {
        ControlAnswer::Mcp(response) => {
            protocol::mcp_success_line(out, request_id, response.as_ref());
        }
        ControlAnswer::Permission { decision, input } => {
            match PermissionAnswer::new(decision, input) {
                Some(payload) => protocol::success_line(out, request_id, &payload),
                // `answer` turns a deferred decision into `Deferred`: none gets here.
                None => protocol::error_line(out, request_id, "no permission decision"),
            }
        }
        ControlAnswer::Hook(output) => protocol::success_line(out, request_id, output),
        ControlAnswer::Elicitation(payload) => protocol::success_line(out, request_id, payload),
        ControlAnswer::Dialog(UserDialogAnswer::Completed(result)) => {
            protocol::success_line(out, request_id, &DialogAnswer::Completed { result });
        }
        // `answer` turns `Later` into `Deferred`.
        ControlAnswer::Dialog(_) => {
            protocol::success_line(out, request_id, &DialogAnswer::Cancelled);
        }
        ControlAnswer::Error(message) => protocol::error_line(out, request_id, message),
        ControlAnswer::Deferred(_) => {}
    });
}

async fn answer(shared: &SessionCore, body: CliRequest<'static>) -> ControlAnswer {
    match body {
        CliRequest::Mcp { server, message } => {
            let response = match shared.router(&server) {
                Some(router) => router.handle(message).await,
                None => Some(Response::error(
                    message.id().cloned(),
                    ErrorObject::new(
                        ErrorCode::METHOD_NOT_FOUND,
                        format!("Server '{server}' not found"),
                    ),
                )),
            };
            ControlAnswer::Mcp(response)
        }
        CliRequest::CanUseTool(request) => {
            let Some(callback) = &shared.can_use_tool else {
                return ControlAnswer::Error("canUseTool callback is not provided".into());
            };
            let input = request.input.clone();
            let decision = callback.call(*request).await;
            match decision {
                PermissionDecision::Later => {
                    ControlAnswer::Deferred(Deferred::Permission { input })
                }
                decision => ControlAnswer::Permission { decision, input },
            }
        }
        CliRequest::HookCallback {
            callback_id,
            id,
            input,
        } => {
            let Some(callback) = id.and_then(|id| shared.hooks.get(id.index())) else {
                return ControlAnswer::Error(format!(
                    "No hook callback found for ID: {callback_id}"
                ));
            };
            let event = HookEvent::from(input.event_name().unwrap_or_default());
            let output = callback.call(input).await;
            // An answer meant for another event is not sent as it is (issue 29). A guard of a
            // call fails closed: the call is denied, as the CLI 2.1.332 itself does with a
            // `PreToolUse` answer naming another event (tests/tests/e2e/typed_hooks.rs); any
            // other event gets an error, a failure of the hook for `onFailure` to decide.
            match output.check(&event) {
                Ok(()) => ControlAnswer::Hook(output.to_json(event.as_str())),
                Err(mismatch) => {
                    tracing::error!(%mismatch, "a hook callback's answer was refused");
                    match event {
                        HookEvent::PreToolUse | HookEvent::PreSkillShellCommand => {
                            let deny = HookOutput::new().deny_tool(mismatch.to_string());
                            ControlAnswer::Hook(deny.to_json(event.as_str()))
                        }
                        _ => ControlAnswer::Error(mismatch.to_string()),
                    }
                }
            }
        }
        CliRequest::Elicitation(request) => {
            let answer = match &shared.on_elicitation {
                Some(callback) => callback.call(*request).await,
                // The official SDKs' answer when the host has no elicitation handler.
                None => ElicitationAnswer::decline(),
            };
            if answer.is_later() {
                ControlAnswer::Deferred(Deferred::Elicitation)
            } else {
                ControlAnswer::Elicitation(answer)
            }
        }
        CliRequest::UserDialog(request) => {
            // The CLI sends only the kinds `initialize` declared, which needs the callback; an
            // error answer to any other is discarded by the CLI (the dialog stays up).
            let Some(callback) = &shared.on_user_dialog else {
                return ControlAnswer::Error(
                    "the host shows no user dialogs (Options::on_user_dialog)".into(),
                );
            };
            match callback.call(*request).await {
                UserDialogAnswer::Later => ControlAnswer::Deferred(Deferred::Dialog),
                answer => ControlAnswer::Dialog(answer),
            }
        }
        CliRequest::Other { subtype, .. } => {
            ControlAnswer::Error(format!("Unsupported control request subtype: {subtype}"))
        }
    }
}
