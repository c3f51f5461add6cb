//! The router's side of the tasks extension ([`crate::task`], whose module docs hold the
//! table of answers): which calls become tasks, the `tasks/*` methods, and the runner that
//! drives a task's handler in the background and writes what happens to the task's record.

use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex, MutexGuard};
use std::task::{Context, Poll, Waker};
use std::time::SystemTime;

use serde_json::value::RawValue;
use tokio::sync::Notify;
use tokio_util::sync::CancellationToken;

use super::McpRouter;
use super::calls::{Prepared, run_out_grace};
use super::listen::Listeners;
use super::mrtr::{self, Bound};
use crate::ask::task_link::TaskLink;
use crate::jsonrpc::{
    Answer, Call, ErrorObject, RawParams, RequestId, RequestMeta, Response, ResultMeta, ResultType,
    ServerNotification, ToolCall,
};
use crate::task::wire::{self, TaskAnswer};
use crate::task::{
    MemoryTaskStore, TASKS_EXTENSION, TaskChange, TaskRecord, TaskSettings, TaskStart, TaskStore,
    TaskStoreError, TaskSupport,
};
use crate::tool::{CallFuture, ToolResult, ToolServer};

/// What the router does with a 2026-07-28 request, as far as tasks go.
pub(super) enum TaskRoute {
    /// Nothing to do with tasks: the usual path.
    NotTask,
    /// A `tools/call` of a task tool, for a client that declared the extension.
    Run(TaskStart),
    /// A `tools/call` of a task tool that must run as one, or a `tasks/*` request, from a
    /// client that did not declare the extension: `-32021`.
    Undeclared,
    /// A `tasks/get`, `tasks/update` or `tasks/cancel` to serve.
    Method,
}

/// The tasks of one tool set, over every connection: where they are kept, and the ones this
/// process runs.
pub(crate) struct TaskHost {
    store: Arc<dyn TaskStore>,
    /// The tool set's listen streams, told of the changes of the tasks they follow.
    listeners: Arc<Listeners>,
    /// The running tasks of this process, by id.
    running: Mutex<HashMap<String, Running>>,
}

/// A task this process runs: how the router reaches its runner.
#[derive(Clone)]
struct Running {
    /// Fires on `tasks/cancel`.
    cancel: CancellationToken,
    /// Rings when `tasks/update` took answers for it.
    answered: Arc<Notify>,
}

impl TaskHost {
    pub(crate) fn new(server: &ToolServer, listeners: Arc<Listeners>) -> Self {
        Self {
            store: server
                .task_store()
                .cloned()
                .unwrap_or_else(|| Arc::new(MemoryTaskStore::default())),
            listeners,
            running: Mutex::new(HashMap::new()),
        }
    }

    fn lock(&self) -> MutexGuard<'_, HashMap<String, Running>> {
        // Single inserts and removes under the lock: a poisoned one is still consistent.
        self.running
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    fn running(&self, task_id: &str) -> Option<Running> {
        self.lock().get(task_id).cloned()
    }

    /// Tells the listen streams that follow `task_id` its state now (`notifications/tasks`),
    /// read back from the store; nothing is read when no stream follows it. Only the streams
    /// of this process hear it: a change made on another replica is told there.
    async fn announce(&self, task_id: &str) {
        if !self.listeners.follow_task(task_id) {
            return;
        }
        match self.store.get(task_id, now_ms()).await {
            Ok(Some(record)) => {
                self.listeners
                    .publish(&ServerNotification::Task(Box::new(TaskAnswer::detailed(
                        record,
                    ))))
            }
            Ok(None) => {}
            Err(error) => {
                tracing::warn!(%error, task = task_id, "MCP tasks: a change could not be told");
            }
        }
    }
}

/// The `-32021` of a client that did not declare the extension.
pub(super) fn undeclared() -> ErrorObject {
    ErrorObject::missing_client_capability(
        serde_json::json!({ "extensions": { TASKS_EXTENSION: {} } }),
    )
}

/// The answer to a `taskId` that names no task this caller may see.
fn unknown_task() -> ErrorObject {
    ErrorObject::invalid_params(
        "unknown task: no task of this caller has this `taskId` (it may have expired)",
    )
}

/// The error of a store that could not answer.
fn store_error(error: TaskStoreError) -> ErrorObject {
    match error {
        TaskStoreError::TooManyRunning { .. } | TaskStoreError::Full { .. } => {
            ErrorObject::invalid_request(error.to_string())
        }
        error => {
            tracing::error!(%error, "MCP tasks: the task store failed");
            ErrorObject::internal_error("the server could not reach its task store")
        }
    }
}

/// The end of a lease taken or renewed at `now`.
fn lease_end(now: u64, settings: &TaskSettings) -> u64 {
    now.saturating_add(crate::task::record::millis(settings.lease))
}

fn now_ms() -> u64 {
    crate::task::record::unix_ms(SystemTime::now())
}

impl McpRouter {
    /// How `call` relates to tasks (see [`TaskRoute`]).
    pub(super) fn task_route(call: &Call, meta: &RequestMeta, server: &ToolServer) -> TaskRoute {
        let declared = meta.extensions.iter().any(|id| id == TASKS_EXTENSION);
        match call {
            Call::ToolsCall(call) => server.tool(&call.name).map_or(TaskRoute::NotTask, |tool| {
                McpRouter::task_route_of_tool(tool, meta)
            }),
            Call::Other { method, .. }
                if wire::TASK_METHODS.contains(&method.as_str()) && server.has_task_tools() =>
            {
                if declared {
                    TaskRoute::Method
                } else {
                    TaskRoute::Undeclared
                }
            }
            _ => TaskRoute::NotTask,
        }
    }

    /// [`McpRouter::task_route`] of a `tools/call` of `tool`.
    pub(super) fn task_route_of_tool(tool: &crate::tool::Tool, meta: &RequestMeta) -> TaskRoute {
        let declared = meta.extensions.iter().any(|id| id == TASKS_EXTENSION);
        match (tool.task_support(), declared) {
            (TaskSupport::Never, _) | (TaskSupport::Optional, false) => TaskRoute::NotTask,
            (TaskSupport::Required, false) => TaskRoute::Undeclared,
            (_, true) => TaskRoute::Run(tool.task_start()),
        }
    }

    /// The tasks of this router's tool set.
    fn task_host(&self, server: &ToolServer) -> Arc<TaskHost> {
        self.tools
            .tasks
            .get_or_init(|| Arc::new(TaskHost::new(server, self.tools.listeners.clone())))
            .clone()
    }

    /// Answers a 2026-07-28 `tools/call` of a task tool for a client that declared the
    /// extension: a task, or (before the task starts, with [`TaskStart::AtFirstWait`]) what a
    /// plain call answers.
    pub(super) async fn answer_task_call(
        &self,
        id: RequestId,
        call: Call,
        meta: &RequestMeta,
        bound: Bound,
        server: &ToolServer,
        start: TaskStart,
    ) -> Response {
        let Call::ToolsCall(tool_call) = call else {
            return Response::error(Some(id), ErrorObject::internal_error("not a tools/call"));
        };
        let link = Arc::new(TaskLink::default());
        match start {
            TaskStart::Immediately => {
                link.detach();
                let mut client = self.modern_client(meta, None);
                client.task = Some(link.clone());
                let (call, cancellation) =
                    match self.prepare_call(id.clone(), tool_call, Some(client), true) {
                        Prepared::Ready(call, cancellation) => (call, cancellation),
                        Prepared::Done(response) => return response,
                    };
                self.create_task(id, call, cancellation, link, server).await
            }
            TaskStart::AtFirstWait => {
                self.answer_at_first_wait(id, tool_call, meta, bound, server, link)
                    .await
            }
        }
    }

    /// [`TaskStart::AtFirstWait`]: the handler's first poll runs inside the request, with its
    /// MRTR round; it becomes a task if it is still running and waits on no question.
    async fn answer_at_first_wait(
        &self,
        id: RequestId,
        tool_call: ToolCall,
        meta: &RequestMeta,
        bound: Bound,
        server: &ToolServer,
        link: Arc<TaskLink>,
    ) -> Response {
        let codec = match self.codec(server) {
            Ok(codec) => codec,
            Err(error) => return Response::error(Some(id), error),
        };
        let principal = self.principal.as_deref();
        let retry = tool_call.retry.as_deref();
        let round = match mrtr::open_round(retry, &codec, &bound, principal).await {
            Ok(round) => Arc::new(round),
            Err(error) => return Response::error(Some(id), error),
        };
        let mut client = self.modern_client(meta, Some(round.clone()));
        client.task = Some(link.clone());
        let (mut call, cancellation) =
            match self.prepare_call(id.clone(), tool_call, Some(client), true) {
                Prepared::Ready(call, cancellation) => (call, cancellation),
                Prepared::Done(response) => return response,
            };
        // The waker does not matter: a call still running is polled again by its runner.
        if let Poll::Ready(result) =
            Pin::new(&mut call).poll(&mut Context::from_waker(Waker::noop()))
        {
            return Response::success(id, Answer::Tool(result));
        }
        if let Some(blocked) = round.blocked() {
            // Questions before the task: the request's answer, and this run is over.
            cancellation.cancel();
            if let Ok(runtime) = tokio::runtime::Handle::try_current() {
                runtime.spawn(run_out_grace(call));
            }
            return mrtr::blocked_answer(
                id,
                blocked,
                &round,
                &codec,
                &bound.binding(principal),
                server,
            );
        }
        link.detach();
        self.create_task(id, call, cancellation, link, server).await
    }

    /// Records a task for the running `call` and answers its `CreateTaskResult` once the
    /// store has it; the call runs on in the background.
    async fn create_task(
        &self,
        id: RequestId,
        call: CallFuture,
        cancellation: CancellationToken,
        link: Arc<TaskLink>,
        server: &ToolServer,
    ) -> Response {
        let refuse = |error: ErrorObject| {
            // Never polled, or polled once: it stops here.
            cancellation.cancel();
            Response::error(Some(id.clone()), error)
        };
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return refuse(ErrorObject::internal_error("no runtime to run the task on"));
        };
        let settings = server.task_settings();
        let owner = self.principal.as_deref().map(String::from);
        let now = now_ms();
        let record = match TaskRecord::new(owner, now, settings.ttl, settings.poll_interval) {
            Ok(mut record) => {
                record.lease_expires_at_ms = Some(lease_end(now, &settings));
                record
            }
            Err(error) => {
                tracing::error!(%error, "MCP tasks: no random task id");
                return refuse(ErrorObject::internal_error(
                    "the server could not draw a task id",
                ));
            }
        };
        let host = self.task_host(server);
        if let Err(error) = host
            .store
            .create(record.clone(), settings.max_running_per_caller)
            .await
        {
            tracing::info!(%error, "MCP tasks: a task was refused");
            return refuse(store_error(error));
        }
        let running = Running {
            cancel: CancellationToken::new(),
            answered: Arc::new(Notify::new()),
        };
        host.lock().insert(record.task_id.clone(), running.clone());
        let runner = Runner {
            host,
            task_id: record.task_id.clone(),
            settings,
            expires_at: tokio::time::Instant::now() + settings.ttl,
            link,
            running,
            cancellation,
        };
        runtime.spawn(runner.run(call));
        let info = server.info().clone();
        Response::success(
            id,
            Answer::Task(Box::new(TaskAnswer {
                record,
                detailed: false,
            })),
        )
        .with_result_meta(ResultMeta::new(ResultType::Task, info))
    }

    /// Answers `tasks/get`, `tasks/update` or `tasks/cancel` from a client that declared the
    /// extension.
    pub(super) async fn answer_tasks_method(
        &self,
        id: RequestId,
        call: Call,
        server: &ToolServer,
    ) -> Response {
        let Call::Other { method, params } = call else {
            return Response::error(Some(id), ErrorObject::internal_error("not a tasks method"));
        };
        let host = self.task_host(server);
        let outcome = match method.as_str() {
            "tasks/get" => self.get_task(&host, params.as_ref()).await,
            "tasks/update" => self.update_task(&host, params.as_ref()).await,
            _ => self.cancel_task(&host, params.as_ref()).await,
        };
        match outcome {
            Ok(answer) => Response::success(id, answer),
            Err(error) => Response::error(Some(id), error),
        }
    }

    /// The task `task_id`, if this caller owns it; `failed` first if its runner is gone.
    async fn owned_task(&self, host: &TaskHost, task_id: &str) -> Result<TaskRecord, ErrorObject> {
        let now = now_ms();
        let mut record = host
            .store
            .get(task_id, now)
            .await
            .map_err(store_error)?
            .ok_or_else(unknown_task)?;
        if record.is_abandoned(now) {
            // The store applies this only if the lease is still lapsed: a runner that renewed
            // meanwhile keeps its task.
            tracing::warn!(
                task = task_id,
                "MCP tasks: a task's runner stopped renewing"
            );
            let error = ErrorObject::internal_error(
                "the task was abandoned: the server running it stopped (its lease lapsed) \
                 before it finished; call the tool again",
            );
            host.store
                .change(task_id, TaskChange::Abandoned(error_json(&error)), now)
                .await
                .map_err(store_error)?;
            record = host
                .store
                .get(task_id, now)
                .await
                .map_err(store_error)?
                .ok_or_else(unknown_task)?;
            host.announce(task_id).await;
        }
        if record.owner.as_deref() != self.principal.as_deref() {
            tracing::info!(
                task = task_id,
                "MCP tasks: a caller asked for another caller's task"
            );
            return Err(unknown_task());
        }
        Ok(record)
    }

    async fn get_task(
        &self,
        host: &TaskHost,
        params: Option<&RawParams>,
    ) -> Result<Answer, ErrorObject> {
        let task_id = wire::read_task_id(params)?;
        let record = self.owned_task(host, &task_id).await?;
        Ok(Answer::Task(Box::new(TaskAnswer {
            record,
            detailed: true,
        })))
    }

    async fn update_task(
        &self,
        host: &TaskHost,
        params: Option<&RawParams>,
    ) -> Result<Answer, ErrorObject> {
        let (task_id, responses) = wire::read_update(params)?;
        self.owned_task(host, &task_id).await?;
        let taken = host
            .store
            .answer(&task_id, responses, now_ms())
            .await
            .map_err(store_error)?;
        if !taken.is_empty() {
            if let Some(running) = host.running(&task_id) {
                running.answered.notify_one();
            }
            host.announce(&task_id).await;
        }
        Ok(Answer::Empty)
    }

    async fn cancel_task(
        &self,
        host: &TaskHost,
        params: Option<&RawParams>,
    ) -> Result<Answer, ErrorObject> {
        let task_id = wire::read_task_id(params)?;
        let record = self.owned_task(host, &task_id).await?;
        if !record.status.is_terminal() {
            host.store
                .request_cancel(&task_id, now_ms())
                .await
                .map_err(store_error)?;
            if let Some(running) = host.running(&task_id) {
                running.cancel.cancel();
            }
        }
        Ok(Answer::Empty)
    }
}

/// Drives one task's handler and writes what happens to the task's record.
struct Runner {
    host: Arc<TaskHost>,
    task_id: String,
    settings: TaskSettings,
    expires_at: tokio::time::Instant,
    link: Arc<TaskLink>,
    running: Running,
    /// The handler's own token.
    cancellation: CancellationToken,
}

/// How a task's run ended.
enum Ending {
    Finished,
    Cancelled,
    Expired,
}

impl Runner {
    async fn run(self, mut call: CallFuture) {
        let mut poll = tokio::time::interval(self.settings.poll_interval);
        poll.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        poll.reset();
        let mut renew = tokio::time::interval(self.settings.renew_interval());
        renew.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        renew.reset();
        let ending = loop {
            tokio::select! {
                biased;
                result = &mut call => {
                    self.finish(call.panicked(), result).await;
                    break Ending::Finished;
                }
                () = self.running.cancel.cancelled() => break Ending::Cancelled,
                () = tokio::time::sleep_until(self.expires_at) => break Ending::Expired,
                () = self.link.changed() => self.publish_questions().await,
                () = self.running.answered.notified() => self.read_answers().await,
                _ = renew.tick() => {
                    let until_ms = lease_end(now_ms(), &self.settings);
                    self.change(TaskChange::Renew { until_ms }).await;
                }
                _ = poll.tick() => {
                    // What reached another replica: answers, and a cancellation.
                    self.read_answers().await;
                    if self.cancel_requested().await {
                        break Ending::Cancelled;
                    }
                }
            }
        };
        self.host.lock().remove(&self.task_id);
        match ending {
            Ending::Finished => {}
            Ending::Cancelled => {
                self.cancellation.cancel();
                self.change(TaskChange::Cancelled).await;
                run_out_grace(call).await;
            }
            Ending::Expired => {
                self.cancellation.cancel();
                let error = ErrorObject::internal_error("the task outlived its TTL");
                self.change(TaskChange::Failed(error_json(&error))).await;
                run_out_grace(call).await;
            }
        }
    }

    /// Records the handler's `result`: `completed`, or `failed` when it panicked.
    async fn finish(&self, panicked: bool, result: ToolResult) {
        let change = if panicked {
            TaskChange::Failed(error_json(&ErrorObject::internal_error(
                result.text_content(),
            )))
        } else {
            match result_json(&result) {
                Ok(result) => TaskChange::Completed(result),
                Err(error) => TaskChange::Failed(error_json(&ErrorObject::internal_error(
                    format!("the result could not be written: {error}"),
                ))),
            }
        };
        self.change(change).await;
    }

    async fn change(&self, change: TaskChange) {
        // A renewal is no change a client sees.
        let told = !matches!(change, TaskChange::Renew { .. });
        if let Err(error) = self
            .host
            .store
            .change(&self.task_id, change, now_ms())
            .await
        {
            tracing::error!(%error, task = %self.task_id, "MCP tasks: a task's change was lost");
            return;
        }
        if told {
            self.host.announce(&self.task_id).await;
        }
    }

    async fn publish_questions(&self) {
        self.change(TaskChange::Questions(self.link.questions()))
            .await;
    }

    async fn read_answers(&self) {
        match self.host.store.take_answers(&self.task_id).await {
            Ok(answers) if !answers.is_empty() => self.link.deliver(answers),
            Ok(_) => {}
            Err(error) => {
                tracing::warn!(%error, task = %self.task_id, "MCP tasks: answers could not be read");
            }
        }
    }

    async fn cancel_requested(&self) -> bool {
        match self.host.store.get(&self.task_id, now_ms()).await {
            // Final already (another replica found the lease lapsed): nobody reads the rest.
            Ok(Some(record)) => record.cancel_requested || record.status.is_terminal(),
            // Expired or gone: nobody waits for it any more.
            Ok(None) => true,
            Err(_) => false,
        }
    }
}

/// A tool result as a completed task inlines it: the `CallToolResult`, `resultType` included.
fn result_json(result: &ToolResult) -> Result<Box<RawValue>, serde_json::Error> {
    let mut value = serde_json::to_value(result)?;
    if let serde_json::Value::Object(object) = &mut value {
        object.insert("resultType".into(), "complete".into());
    }
    serde_json::value::to_raw_value(&value)
}

/// A JSON-RPC error as a failed task inlines it.
fn error_json(error: &ErrorObject) -> Box<RawValue> {
    // An error of a code, strings and a JSON value always serialises.
    serde_json::value::to_raw_value(error).unwrap_or_default()
}
