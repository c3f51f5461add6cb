//! Tools that run as tasks: MCP's `io.modelcontextprotocol/tasks` extension (SEP-2663).
//!
//! A tool call that takes a while can answer at once with a *task* (`resultType: "task"`, a
//! `taskId`), run on in the background, and be polled: the client asks `tasks/get` until the
//! task is `completed` (with the tool's result inlined), `failed` (a JSON-RPC error) or
//! `cancelled`. The tool author decides which tools may run so
//! ([`ToolDefBuilder::task`](crate::tool::ToolDefBuilder::task), or `#[tool(task)]` /
//! `#[tool(task = "optional")]`); the client only says, in each request's
//! `_meta.io.modelcontextprotocol/clientCapabilities.extensions`, that it understands tasks.
//!
//! | the request (MCP 2026-07-28) | the answer |
//! |---|---|
//! | `server/discover` of a server with a task tool | `capabilities.extensions["io.modelcontextprotocol/tasks"] = {}` |
//! | `tools/call` of a task tool, the extension declared | `{resultType: "task", taskId, status: "working", createdAt, lastUpdatedAt, ttlMs, pollIntervalMs}` once the task is in the [`TaskStore`]; with [`TaskStart::AtFirstWait`], the handler's first poll decides (see there) |
//! | `tools/call` of a [`TaskSupport::Optional`] tool, the extension not declared | the tool runs as a plain call |
//! | `tools/call` of a [`TaskSupport::Required`] tool, the extension not declared | `-32021` with `data.requiredCapabilities = {"extensions": {"io.modelcontextprotocol/tasks": {}}}`; nothing runs |
//! | `tasks/get {taskId}` | `{resultType: "complete", taskId, status, …}`, with `inputRequests` while `input_required`, `result` once `completed`, `error` once `failed` |
//! | `tasks/update {taskId, inputResponses}` | `{resultType: "complete"}`; each answer under a key the task is waiting on reaches the handler's question; answers under other keys (never asked, answered already) are ignored, as SEP-2663 says |
//! | `tasks/cancel {taskId}` | `{resultType: "complete"}`, at once and for a finished task too; a running task's [`cancellation_token`](crate::tool::ToolContext::cancellation_token) fires, its status becomes `cancelled`, and its handler gets [`CANCEL_GRACE`](crate::mcp::CANCEL_GRACE) to clean up, its result discarded |
//! | `tasks/*` without the extension declared | `-32021` (as above) |
//! | `tasks/*` for an unknown, expired or **another caller's** task | `-32602` "unknown task" (the same answer either way: a task id says nothing of whose it is) |
//! | `tasks/*` params that are not `{taskId: string, …}` | `-32602` |
//! | `tasks/result`, `tasks/list` (removed by SEP-2663), or `tasks/*` on a server without task tools | `-32601` |
//! | any request of a 2025-11-25 connection (`initialize` chose that era) | no tasks: a task tool's call runs as a plain call, `tasks/*` are `-32601` |
//! | a `tools/call` that would start a caller's [`TaskSettings::max_running_per_caller`]+1th running task | `-32600` saying so; nothing runs |
//!
//! What a task's handler sees:
//! - a question ([`ToolContext::elicit`](crate::tool::ToolContext::elicit),
//!   `create_message`, `list_roots`) puts the task in `input_required` with the question in
//!   `inputRequests` (under the key the handler named, or `elicitation-1`, `sampling-2`… by the
//!   order of asking), and waits until a `tasks/update` answers it; questions asked together
//!   (`tokio::join!`) are listed together, and an answer to one of them lets that one go on
//!   while the others stay listed. The capability checks are those of the request that created
//!   the task;
//! - the cancellation token fires on `tasks/cancel` and when the task outlives its TTL;
//! - a result, an `Err` or an `isError` result alike, is `completed` (the model reads it); a
//!   **panic** is `failed` with `-32603` (a server fault, not the tool's answer; the message is
//!   logged, and shown only as the router's [`PanicDetail`](crate::mcp::PanicDetail) allows);
//! - progress and log messages are not sent (SEP-2663 does not carry them for tasks).
//!
//! # Where tasks live
//!
//! A task is a record in a [`TaskStore`] (the process's [`MemoryTaskStore`] unless the server
//! sets one with [`ToolServer::with_task_store`](crate::tool::ToolServer::with_task_store)) and,
//! while it runs, a handler in this process. Polls, answers and cancellations go through the
//! store, so with a shared store any replica can answer them: the replica running the handler
//! reads answers and cancellations from the store at the task's poll interval (at once when they
//! reach it directly): a `tasks/cancel` that reached replica B fires the handler's token on
//! replica A within one poll interval. Routing `tasks/*` to the replica that created the task
//! (`Mcp-Name` carries the `taskId` on Streamable HTTP for that) avoids even that wait.
//!
//! The replica running a task holds a **lease** on its record
//! ([`TaskRecord::lease_expires_at_ms`]), renewed every third of [`TaskSettings::lease`] while
//! the handler runs. A task whose lease lapsed (its replica died, or lost the store) is marked
//! `failed` by the next `tasks/*` request for it, on any replica, with `-32603` "the task was
//! abandoned"; the store applies that only if the lease is still lapsed
//! ([`TaskChange::Abandoned`]), so a runner that renewed meanwhile keeps its task. Replicas
//! compare the lease with their own clocks: keep the lease well above their skew.
//!
//! # Limits
//!
//! | | default | set with |
//! |---|---|---|
//! | TTL (the record is kept, and the handler may run, this long after creation) | 1 hour | [`TaskSettings::ttl`] |
//! | poll interval suggested to clients | 1 second | [`TaskSettings::poll_interval`] |
//! | a runner's lease (a task not renewed this long is `failed`) | 30 seconds, renewed every 10 | [`TaskSettings::lease`] |
//! | running tasks per caller (the HTTP principal; every caller is one when there is no auth) | 32 | [`TaskSettings::max_running_per_caller`] |
//! | records in a [`MemoryTaskStore`] | 10,000 (unexpired; full, it refuses new tasks) | [`MemoryTaskStore::with_capacity`] |

pub(crate) mod record;
mod server;
mod settings;
mod store;
pub(crate) mod wire;

pub use record::{TaskRecord, TaskStatus};
pub use settings::{TaskSettings, TaskStart, TaskSupport};
pub use store::{
    DEFAULT_MEMORY_CAPACITY, MemoryTaskStore, StoreFuture, TaskChange, TaskStore, TaskStoreError,
};
pub use wire::{TaskAnswer, task_id_of};

/// The extension's id, the key under `capabilities.extensions` on both sides.
pub const TASKS_EXTENSION: &str = "io.modelcontextprotocol/tasks";
