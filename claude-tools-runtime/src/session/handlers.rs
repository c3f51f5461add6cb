//! Answers to the CLI's requests: each gets exactly one answer, or none when cancelled.
//!
//! A request is first polled once where it was read. Most are answered right there — a quick
//! tool, a notification's acknowledgement, `tools/list` — with no task and no registration, which
//! is what keeps a tool call's round trip close to a hand-written responder's. A request that is
//! not done after that first poll moves into its own task, registered under its `request_id` so
//! `control_cancel_request` can find it; a slow tool never delays anything else. (The first poll
//! runs on the reader task: a handler that blocks before its first `.await` holds that task's
//! thread. On a multi-thread runtime with a worker to spare, the watchdog thread hands the
//! reader to a new task within 5 to 10 ms and the session's other requests are answered
//! meanwhile; on a current-thread runtime they wait until the handler returns. Blocking work
//! still belongs in `spawn_blocking`: a blocked thread is one worker fewer for everything else,
//! and tasks it had just woken wait for it in tokio's LIFO slot.)
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

use serde_json::value::RawValue;
use serde_json::{Map, Value, json};
use tokio_util::sync::CancellationToken;

use super::{Handler, InFlight, Shared, Taken, lock};
use crate::hooks::HookInput;
use crate::permission::PermissionRequest;
use crate::protocol::{self, RequestBody};
use claude_tools_core::catch_unwind::{CatchUnwind, panic_message};
use claude_tools_core::mcp::{
    McpMessage, McpRouter, Reply, Started, ToolCallRequest, jsonrpc, run_out_grace,
};

/// What to write back.
enum Answer {
    Success(Value),
    /// `{"mcp_response": <reply>}`, serialised straight from the router's reply.
    Mcp(Reply),
    Error(String),
}

/// A request of the CLI taken out of its line, ready for its first poll. Only its id may still
/// borrow the line: [`FirstPoll::detach`] copies it out when the reader must hand its line
/// buffer to another task while the first poll runs (in case the host's code blocks the thread).
pub(super) struct FirstPoll<'s, 'l> {
    request_id: Cow<'l, str>,
    /// An `mcp_message`'s JSON-RPC id as the line wrote it, when its parsed id would not be
    /// written back the same ([`jsonrpc::verbatim_id`]); `None` as a rule.
    rpc_id: Option<Box<RawValue>>,
    work: Work<'s>,
}

enum Work<'s> {
    /// The hot path: a `tools/call` for a server of this session.
    ToolCall(&'s McpRouter, ToolCallRequest),
    Other(RequestBody<'static>),
}

/// Takes a request out of its line.
pub(super) fn prepare<'s, 'l>(
    shared: &'s Shared,
    line: &[u8],
    request_id: Cow<'l, str>,
    body: RequestBody<'_>,
) -> FirstPoll<'s, 'l> {
    let rpc_id = match &body {
        RequestBody::Mcp { message, .. } => {
            jsonrpc::verbatim_id(message.id(), || protocol::scan(line).rpc_id)
        }
        RequestBody::Other { .. } => None,
    };
    let work = match body {
        RequestBody::Mcp {
            server,
            message: McpMessage::ToolCall(call),
        } => match shared.routers.get(&*server) {
            Some(router) => Work::ToolCall(router, call),
            None => Work::Other(RequestBody::Mcp {
                server: Cow::Owned(server.into_owned()),
                message: McpMessage::ToolCall(call),
            }),
        },
        body => Work::Other(body.into_owned()),
    };
    FirstPoll {
        request_id,
        rpc_id,
        work,
    }
}

impl<'s> FirstPoll<'s, '_> {
    /// The request with its id copied out of the line, so the line buffer can move.
    pub(super) fn detach(self) -> FirstPoll<'s, 'static> {
        FirstPoll {
            request_id: Cow::Owned(self.request_id.into_owned()),
            rpc_id: self.rpc_id,
            work: self.work,
        }
    }

    /// Polls the request once and answers it, or moves it into its own task.
    pub(super) fn run(self, shared: &Arc<Shared>) {
        let FirstPoll {
            request_id,
            rpc_id,
            work,
        } = self;
        let to = Recipient { request_id, rpc_id };
        match work {
            Work::ToolCall(router, call) => serve_tool_call(shared, to, router, call),
            Work::Other(body) => serve(shared, to, body),
        }
    }
}

/// Whom an answer goes to: the control request's id, and its JSON-RPC id when the answer must
/// write it as it came.
struct Recipient<'l> {
    request_id: Cow<'l, str>,
    rpc_id: Option<Box<RawValue>>,
}

impl Recipient<'_> {
    fn into_owned(self) -> Recipient<'static> {
        Recipient {
            request_id: Cow::Owned(self.request_id.into_owned()),
            rpc_id: self.rpc_id,
        }
    }
}

fn serve(shared: &Arc<Shared>, to: Recipient<'_>, body: RequestBody<'static>) {
    // Callbacks get a token that `control_cancel_request` fires. An `mcp_message` needs none:
    // the CLI cancels tool calls with `notifications/cancelled`, and aborting the request's task
    // drops the router's future, which cancels the call's own token and starts its grace.
    let cancellation = match body {
        RequestBody::Mcp { .. } => None,
        RequestBody::Other { .. } => Some(CancellationToken::new()),
    };
    let mut pending = Box::pin(respond(shared.clone(), body, cancellation.clone()));
    // The waker does not matter: a future still pending is polled again, with its task's real
    // waker, as soon as that task starts.
    if let Poll::Ready(answer) = pending
        .as_mut()
        .poll(&mut Context::from_waker(Waker::noop()))
    {
        send_answer(shared, &to, answer);
        return;
    }
    spawn_answer(shared, to.into_owned(), cancellation, pending);
}

/// The hot path: a `tools/call` for a server of this session, started and polled once with no
/// future around it (the handler's own is the only one). A tool that is not done moves into a
/// task.
fn serve_tool_call(
    shared: &Arc<Shared>,
    to: Recipient<'_>,
    router: &McpRouter,
    call: ToolCallRequest,
) {
    // The handler's panics are caught in its call; this catches the router's own, so the
    // request still gets its one answer.
    match std::panic::catch_unwind(AssertUnwindSafe(|| router.start_call(call))) {
        Ok(Started::Done(reply)) => send_answer(shared, &to, Answer::Mcp(reply)),
        Ok(Started::Running(call)) => {
            let answer = caught("mcp_message".into(), async move {
                Answer::Mcp(call.finish().await)
            });
            spawn_answer(shared, to.into_owned(), None, answer);
        }
        Err(panic) => send_answer(
            shared,
            &to,
            Answer::Error(panicked("mcp_message", panic_message(&*panic))),
        ),
    }
}

/// Moves a request that is not answered yet into its own task, registered under its
/// `request_id` so `control_cancel_request` (or the session's end) can find it.
fn spawn_answer(
    shared: &Arc<Shared>,
    to: Recipient<'static>,
    cancellation: Option<CancellationToken>,
    answer: impl Future<Output = Answer> + Send + 'static,
) {
    let task_shared = shared.clone();
    let request_id = to.request_id.to_string();
    let task_cancellation = cancellation.clone();
    // The map stays locked until the entry is in, so the task cannot finish (and look for its
    // entry) before it exists.
    let mut inflight = lock(&shared.inflight);
    let task = tokio::spawn(async move {
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
    let handler = Handler {
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

/// `answer`, unless `token` fires first: then `answer` is polled on for up to the grace (the
/// callback sees its token and runs its cancellation branch), its outcome discarded, and dropped
/// ([`run_out_grace`]).
async fn until_withdrawn(
    answer: impl Future<Output = Answer>,
    token: &CancellationToken,
) -> Option<Answer> {
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
fn still_registered(shared: &Shared, request_id: &str) -> bool {
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
async fn respond(
    shared: Arc<Shared>,
    body: RequestBody<'static>,
    cancellation: Option<CancellationToken>,
) -> Answer {
    let subtype: Cow<'static, str> = match &body {
        RequestBody::Mcp { .. } => Cow::Borrowed("mcp_message"),
        RequestBody::Other { subtype, .. } => Cow::Owned(subtype.clone()),
    };
    caught(subtype, answer(&shared, body, cancellation)).await
}

/// `answer`, with a panic turned into an error answer.
async fn caught(subtype: Cow<'static, str>, answer: impl Future<Output = Answer>) -> Answer {
    match CatchUnwind::new(answer).await {
        Ok(answer) => answer,
        Err(panic) => Answer::Error(panicked(&subtype, &panic)),
    }
}

fn panicked(subtype: &str, panic: &str) -> String {
    format!("the host's `{subtype}` handler panicked: {panic}")
}

/// Writes the answer line straight into the outbox's buffer.
fn send_answer(shared: &Shared, to: &Recipient<'_>, answer: Answer) {
    let request_id = &*to.request_id;
    shared.out.send_with(|out| match &answer {
        Answer::Success(payload) => protocol::success_line(out, request_id, payload),
        Answer::Mcp(reply) => {
            let reply = jsonrpc::EchoedId {
                reply,
                id: to.rpc_id.as_deref(),
            };
            protocol::mcp_success_line(out, request_id, &reply);
        }
        Answer::Error(message) => protocol::error_line(out, request_id, message),
    });
}

async fn answer(
    shared: &Shared,
    body: RequestBody<'static>,
    cancellation: Option<CancellationToken>,
) -> Answer {
    let (subtype, mut request) = match body {
        RequestBody::Mcp { server, message } => {
            let reply = match shared.router(&server) {
                Some(router) => router.handle_message(message).await,
                None => Reply::Json(json!({
                    "jsonrpc": "2.0",
                    "id": message.id().cloned().unwrap_or(Value::Null),
                    "error": {"code": -32601, "message": format!("Server '{server}' not found")},
                })),
            };
            return Answer::Mcp(reply);
        }
        RequestBody::Other { subtype, fields } => (subtype, fields),
    };
    match subtype.as_str() {
        "can_use_tool" => {
            let Some(callback) = &shared.can_use_tool else {
                return Answer::Error("canUseTool callback is not provided".into());
            };
            let request =
                PermissionRequest::from_request(request, cancellation.unwrap_or_default());
            let input = request.input.clone();
            let decision = callback.call(request).await;
            Answer::Success(decision.to_response(&input))
        }
        "hook_callback" => {
            let callback_id = request
                .get("callback_id")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string();
            let callback = callback_id
                .strip_prefix("hook_")
                .and_then(|index| index.parse::<usize>().ok())
                .and_then(|index| shared.hooks.get(index));
            let Some(callback) = callback else {
                return Answer::Error(format!("No hook callback found for ID: {callback_id}"));
            };
            let tool_use_id = request
                .get("tool_use_id")
                .and_then(Value::as_str)
                .map(String::from);
            let input = match request.remove("input") {
                Some(Value::Object(input)) => input,
                _ => Map::new(),
            };
            let input = HookInput::new(input, tool_use_id, cancellation.unwrap_or_default());
            let event = input.event_name().unwrap_or_default().to_string();
            let output = callback.call(input).await;
            Answer::Success(output.to_json(&event))
        }
        // The official TypeScript SDK's default answer when the host has no elicitation handler.
        "elicitation" => Answer::Success(json!({"action": "decline"})),
        other => Answer::Error(format!("Unsupported control request subtype: {other}")),
    }
}
