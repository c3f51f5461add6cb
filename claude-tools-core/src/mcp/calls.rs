//! Running `tools/call`s: the in-flight map by request id, a call that outlives its first poll,
//! and the one cancellation contract.

use std::collections::HashMap;
use std::collections::hash_map::Entry;
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::task::{Context, Poll, Waker};

use tokio_util::sync::CancellationToken;

use super::McpRouter;
use crate::ask::ClientPeer;
use crate::jsonrpc::{Answer, ErrorCode, ErrorObject, RequestId, Response, ToolCall};
use crate::telemetry;
use crate::tool::{CallFuture, CallOrigin, CallRefused, ProgressReporter, ToolContext};

/// How long a cancelled handler may run on after its token fires, before it is dropped.
///
/// This is the one cancellation contract of the runtime, kept alike for `tools/call` handlers
/// (`notifications/cancelled`, [`McpRouter::cancel_all`](super::McpRouter::cancel_all), or the
/// reply future dropped), permission callbacks and hooks (`control_cancel_request`), and every
/// handler still running when a session ends:
///
/// 1. the handler's cancellation token fires
///    ([`ToolContext::cancellation_token`](crate::tool::ToolContext::cancellation_token),
///    `claude_tools::PermissionRequest::cancellation_token`,
///    `claude_tools::HookInput::cancellation_token`);
/// 2. the answer, if the request has one, goes at once: a cancelled `tools/call` answers
///    `-32800 "Request cancelled"` without waiting for its handler; a withdrawn callback is not
///    answered at all;
/// 3. the handler runs on, in the background, for up to this long, to notice the token and
///    clean up (stop a child process, roll back); whatever it returns is discarded;
/// 4. then its future is dropped, wherever it is.
pub const CANCEL_GRACE: std::time::Duration = std::time::Duration::from_secs(1);

/// Steps 3 and 4 of the contract at [`CANCEL_GRACE`], for a tool call as for a withdrawn
/// callback: polls the cancelled `handler` on for up to [`CANCEL_GRACE`], its output discarded,
/// then drops it.
#[doc(hidden)]
pub async fn run_out_grace(handler: impl Future) {
    let _ = tokio::time::timeout(CANCEL_GRACE, handler).await;
}

/// The running `tools/call`s of one connection, by request id.
#[derive(Default)]
pub(crate) struct InFlight {
    calls: Mutex<HashMap<RequestId, CancellationToken>>,
    /// How many calls `calls` holds, readable without the lock: most `tools/call`s arrive
    /// when none is running, and [`InFlight::contains`] then answers without taking it.
    registered: AtomicUsize,
    /// Holds no calls: the connection is shared by requests of unrelated clients (see
    /// [`McpRouter::for_plain_calls`]), whose ids may be the same and who cannot cancel by id.
    untracked: bool,
}

impl InFlight {
    /// An [`InFlight`] that holds no calls (`untracked`).
    pub(crate) fn untracked() -> Self {
        Self {
            untracked: true,
            ..Self::default()
        }
    }

    fn lock(&self) -> MutexGuard<'_, HashMap<RequestId, CancellationToken>> {
        // Only single inserts and removes happen under this lock: a panic cannot leave the map
        // inconsistent, so a poisoned lock is still good.
        self.calls
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    pub(crate) fn len(&self) -> usize {
        self.lock().len()
    }

    pub(crate) fn contains(&self, id: &RequestId) -> bool {
        // A registration racing this read is caught by `register`, as one racing the lock is.
        self.registered.load(Ordering::Acquire) != 0 && self.lock().contains_key(id)
    }

    /// Fires the token of the call `id`, if it is running.
    pub(crate) fn cancel(&self, id: &RequestId) {
        if let Some(token) = self.lock().get(id) {
            tracing::debug!(request = %id, "MCP tools/call cancelled by the client");
            token.cancel();
        }
    }

    pub(crate) fn cancel_all(&self) {
        for token in self.lock().values() {
            token.cancel();
        }
    }

    /// Registers a call that outlived its first poll: `None` when a call with the same id
    /// started in the meantime.
    pub(crate) fn register(
        self: &Arc<Self>,
        id: &RequestId,
        cancellation: &CancellationToken,
    ) -> Option<Registration> {
        if self.untracked {
            // Cancelled on drop all the same; nothing to find it by.
            return Some(Registration {
                in_flight: self.clone(),
                id: Some(id.clone()),
                cancellation: cancellation.clone(),
            });
        }
        match self.lock().entry(id.clone()) {
            Entry::Occupied(_) => None,
            Entry::Vacant(slot) => {
                slot.insert(cancellation.clone());
                self.registered.fetch_add(1, Ordering::Release);
                Some(Registration {
                    in_flight: self.clone(),
                    id: Some(id.clone()),
                    cancellation: cancellation.clone(),
                })
            }
        }
    }
}

/// A `tools/call` after its first poll.
#[doc(hidden)]
pub enum Started {
    /// Answered on the first poll, or refused before it ran.
    Done(Response),
    /// Still running, registered for cancellation.
    Running(RunningCall),
}

/// A `tools/call` that did not finish on its first poll. Dropping it before the call has
/// finished cancels the call: its token fires and its handler gets its [`CANCEL_GRACE`].
#[doc(hidden)]
pub struct RunningCall {
    run: Run,
}

/// How a running call goes on.
enum Run {
    /// Its handler's future, run here.
    Direct {
        id: RequestId,
        /// `None` once the call has finished.
        call: Option<CallFuture>,
        registration: Registration,
    },
    /// Its answer through the server's request layers, whose innermost service runs the call
    /// (and keeps its contract when dropped).
    Layered(RequestId, Pin<Box<dyn Future<Output = Response> + Send>>),
}

impl RunningCall {
    pub(crate) fn new(id: RequestId, call: CallFuture, registration: Registration) -> Self {
        Self {
            run: Run::Direct {
                id,
                call: Some(call),
                registration,
            },
        }
    }

    /// A call answered through the request layers.
    pub(crate) fn layered(
        id: RequestId,
        answer: Pin<Box<dyn Future<Output = Response> + Send>>,
    ) -> Self {
        Self {
            run: Run::Layered(id, answer),
        }
    }

    /// The id of the request that started the call.
    #[doc(hidden)]
    pub fn id(&self) -> &RequestId {
        match &self.run {
            Run::Direct { id, .. } | Run::Layered(id, _) => id,
        }
    }

    /// Runs the call to its answer: the tool's result, or `-32800` as soon as it is cancelled.
    /// A cancelled handler is not waited for: dropping `self` moves it into its grace.
    #[doc(hidden)]
    pub async fn finish(mut self) -> Response {
        let (id, call, registration) = match &mut self.run {
            Run::Direct {
                id,
                call,
                registration,
            } => (id, call, registration),
            Run::Layered(_, answer) => return answer.await,
        };
        let outcome = match call {
            Some(running) => tokio::select! {
                biased;
                () = registration.cancellation.cancelled() => None,
                result = running => Some(result),
            },
            None => None,
        };
        registration.finish();
        match outcome {
            Some(result) => {
                *call = None;
                Response::success(id.clone(), Answer::Tool(result))
            }
            None => {
                if let Some(call) = call {
                    telemetry::record_error_code(call.span(), ErrorCode::REQUEST_CANCELLED.0);
                }
                Response::error(Some(id.clone()), ErrorObject::request_cancelled())
            }
        }
    }
}

impl Drop for RunningCall {
    fn drop(&mut self) {
        if let Run::Direct {
            call, registration, ..
        } = &mut self.run
            && let Some(call) = call.take()
        {
            registration.cancellation.cancel();
            // A drop cannot wait: the grace runs in a task of its own. Outside a tokio runtime
            // (or one shutting down) the handler is dropped now.
            if let Ok(runtime) = tokio::runtime::Handle::try_current() {
                runtime.spawn(run_out_grace(call));
            }
        }
    }
}

/// A running call's entry in the in-flight map. Removed when the call ends; if the call is
/// dropped first (the session aborting the control request), its token is also cancelled, for
/// any work it spawned.
pub(crate) struct Registration {
    in_flight: Arc<InFlight>,
    id: Option<RequestId>,
    cancellation: CancellationToken,
}

impl Registration {
    fn finish(&mut self) {
        if let Some(id) = self.id.take()
            && !self.in_flight.untracked
            && self.in_flight.lock().remove(&id).is_some()
        {
            self.in_flight.registered.fetch_sub(1, Ordering::Release);
        }
    }
}

impl Drop for Registration {
    fn drop(&mut self) {
        if self.id.is_some() {
            self.finish();
            self.cancellation.cancel();
        }
    }
}

impl McpRouter {
    /// Starts a `tools/call` and polls it once, with no future around it: most tools finish
    /// right there, and the session answers them with no task and no registration.
    #[doc(hidden)]
    pub fn start_call(&self, id: RequestId, call: ToolCall) -> Started {
        if let Some(layers) = &self.request_layers {
            let call = crate::jsonrpc::Call::ToolsCall(call);
            let meta = crate::jsonrpc::MetaClaim::Absent;
            return self.start_layered(layers, crate::jsonrpc::Request { id, call, meta });
        }
        self.start_call_at(id, call, None)
    }

    /// [`McpRouter::start_call`] whose handler sees `client` (a 2026-07-28 request's own), or
    /// the connection's (`None`).
    pub(crate) fn start_call_at(
        &self,
        id: RequestId,
        call: ToolCall,
        client: Option<ClientPeer>,
    ) -> Started {
        if self.connection.in_flight.contains(&id) {
            return Started::Done(already_running(id));
        }
        let (mut call, cancellation) = match self.prepare_call(id.clone(), call, client, false) {
            Prepared::Ready(call, cancellation) => (call, cancellation),
            Prepared::Done(response) => return Started::Done(response),
        };
        let in_flight = &self.connection.in_flight;
        // The waker does not matter: a call still pending is polled again by `finish`, with
        // the waker of the task that awaits it.
        if let Poll::Ready(result) =
            Pin::new(&mut call).poll(&mut Context::from_waker(Waker::noop()))
        {
            return Started::Done(Response::success(id, Answer::Tool(result)));
        }
        // Nothing can have cancelled the call before it was registered: registering only calls
        // that outlive their first poll costs the quick ones nothing.
        match in_flight.register(&id, &cancellation) {
            Some(registration) => Started::Running(RunningCall::new(id, call, registration)),
            // Another call with this id started while this one was being polled: answer as if
            // it had been there first.
            None => Started::Done(already_running(id)),
        }
    }

    /// Builds the context of `call` (its client `client`, or the connection's) and resolves its
    /// tool: the handler's future, not yet polled, and its cancellation token; or the answer
    /// when it cannot start (an unknown tool, arguments that do not fit). `for_task`: the call
    /// runs as a task, and gets no progress or log sink.
    pub(crate) fn prepare_call(
        &self,
        id: RequestId,
        call: ToolCall,
        client: Option<ClientPeer>,
        for_task: bool,
    ) -> Prepared {
        let ToolCall {
            name,
            arguments,
            tool_use_id,
            progress_token,
            retry: _,
            trace_context,
        } = call;
        // A 2026-07-28 request (one with a client of its own) speaks the one modern revision.
        let protocol_version = match &client {
            Some(_) => Some(super::NEWEST_PROTOCOL_VERSION),
            None => self.protocol_version(),
        };
        let span = telemetry::tool_call_span(
            telemetry::ToolSpan {
                tool: &name,
                id: &id,
                tool_use_id: tool_use_id.as_deref(),
                protocol_version,
            },
            trace_context.as_deref(),
        );
        let cancellation = CancellationToken::new();
        // A task's handler outlives its request's stream: SEP-2663 sends no progress or log
        // messages for tasks.
        let notifier = self.notifier.as_ref().filter(|_| !for_task);
        let progress = match (progress_token.filter(|_| !for_task), notifier) {
            (Some(token), Some(notifier)) => ProgressReporter::to_notifier(token, notifier.clone()),
            (Some(token), None) => ProgressReporter::token_only(token),
            (None, _) => ProgressReporter::default(),
        };
        // A 2025 call logs from its connection's `logging/setLevel`. A 2026-07-28 request (one
        // with a client of its own) is sent log messages only when its `_meta` names a level
        // (`io.modelcontextprotocol/logLevel`).
        let log_level = match (notifier, &client) {
            (None, _) => None,
            (Some(_), None) => Some(self.connection.log_level.get()),
            (Some(_), Some(client)) => client.log_level,
        };
        let context = ToolContext::for_call(CallOrigin {
            request_id: id.clone(),
            cancellation: cancellation.clone(),
            tool_use_id,
            progress,
            log_sink: notifier.cloned(),
            log_level,
            extension: self.extension.clone(),
            principal: self.principal.clone(),
            client: client.unwrap_or_else(|| self.client()),
        });
        // The call resolves its tool in this snapshot and keeps it, whatever changes later.
        // Entered while the handler's future is made (a handler's synchronous part runs here).
        // No subscriber wants the span (the usual case): no scope to enter, nothing to keep.
        let traced = !span.is_disabled();
        let start = || {
            self.tools
                .with_active(|tools| tools.start_call(&name, arguments, context))
        };
        let started = if traced {
            span.in_scope(start)
        } else {
            start()
        };
        let call = match started {
            Ok(mut call) => {
                call.set_panic_detail(self.panic_detail);
                if traced {
                    call.set_span(span);
                }
                call
            }
            Err(CallRefused::UnknownTool(message)) => {
                telemetry::record_error_code(&span, ErrorCode::INVALID_PARAMS.0);
                span.in_scope(|| tracing::debug!(%message, "MCP tools/call of an unknown tool"));
                return Prepared::Done(Response::error(
                    Some(id),
                    ErrorObject::invalid_params(message),
                ));
            }
            Err(CallRefused::Result(result)) => {
                if result.is_error {
                    telemetry::record_error(&span, telemetry::TOOL_ERROR);
                }
                return Prepared::Done(Response::success(id, Answer::Tool(result)));
            }
        };
        Prepared::Ready(call, cancellation)
    }
}

/// A `tools/call` made ready to run ([`McpRouter::prepare_call`]).
pub(crate) enum Prepared {
    /// The handler's future, not yet polled, and its cancellation token.
    Ready(CallFuture, CancellationToken),
    /// The answer of a call that cannot start.
    Done(Response),
}

fn already_running(id: RequestId) -> Response {
    Response::error(
        Some(id),
        ErrorObject::invalid_request("a tools/call with this id is already running"),
    )
}
