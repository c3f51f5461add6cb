//! The MCP router: JSON-RPC in, JSON-RPC out, no I/O.
//!
//! The Claude Code CLI talks MCP to an in-process server through `mcp_message` control
//! requests; [`McpRouter::handle`] takes the JSON-RPC message of one and returns the JSON-RPC
//! reply to put in its `mcp_response`. Every message gets exactly one reply:
//!
//! | message | reply |
//! |---|---|
//! | `initialize` | `protocolVersion` (the client's if supported, else [`LATEST_PROTOCOL_VERSION`]), `capabilities: {"tools": {"listChanged": false}}`, `serverInfo`, `instructions` when the server has them |
//! | a notification (no `id`) | the placeholder `{"jsonrpc":"2.0","result":{}}` (the CLI awaits one) |
//! | `notifications/cancelled {requestId}` | cancels that running `tools/call`, which then answers `-32800 "Request cancelled"` at once; the placeholder |
//! | `tools/list` | `{"tools": [...]}` |
//! | `tools/call` | the tool result; an unknown tool, bad arguments, a handler error or panic are `isError` results; no `params.name` is `-32602` |
//! | `ping` | `{}` |
//! | any other method | `-32601 "Method not found"` with the method as `data` |
//! | not a JSON-RPC request | `-32600 "Invalid Request"` with the reason as `data` |
//!
//! Decisions beyond the table:
//! - Requests before `initialize` are served. The CLI always initializes first, and refusing
//!   (as the Python SDK does, with `-32602`) would only turn a harmless reordering into a failure.
//!   A later `initialize` (the CLI reconnecting) negotiates again.
//! - A message whose method starts with `notifications/` is a notification even if it carries an
//!   `id`; it is then answered `{"jsonrpc":"2.0","id":<id>,"result":{}}`.
//! - A `tools/call` whose `id` is already running is refused with `-32600` (its cancellation
//!   would be ambiguous); a `tools/call` without an `id` is a notification and does not run.
//! - Cancellation keeps the one contract described at [`CANCEL_GRACE`]: the handler's
//!   [`ToolContext::cancellation_token`](crate::tool::ToolContext::cancellation_token) fires,
//!   the call answers `-32800` at once, and the handler runs on in a task of its own for up to
//!   [`CANCEL_GRACE`] to react (finish a `select!` on `ctx.cancelled()`, clean up), its result
//!   discarded; then its future is dropped. Cancelling an unknown or finished id does nothing.
//!   Dropping the future returned by [`McpRouter::handle`] (the session aborting the control
//!   request) cancels the call the same way, grace included.
//! - Progress (`ToolContext::report_progress`) becomes `notifications/progress` with the call's
//!   `params._meta.progressToken`, handed to the [`McpRouter::with_notifier`] callback; without a
//!   notifier or a token it is dropped.
//! - The tool set can change while the router serves it, through a [`ToolServerHandle`]
//!   ([`McpRouter::tool_server_handle`]): each change that alters the list hands
//!   `notifications/tools/list_changed` to the notifier. `initialize` still answers
//!   `listChanged: false`: the Claude Code CLI re-fetches an sdk server's tools on that
//!   notification whatever the capability says (observed with 2.1.330 and 2.1.332; see
//!   `tests/tests/e2e/live_tools.rs`).
//!
//! To serve a [`ToolServer`] to any MCP client over stdin/stdout rather than in-process, see
//! `claude_tools::mcp::stdio` (`ServeExt::serve_stdio`); over MCP Streamable HTTP, see
//! `claude_tools::mcp::http` (cargo feature `http`, `ServeExt::serve_http`). Both live in the
//! `claude-tools-mcp` crate.

pub mod jsonrpc;
mod live;
mod message;

pub use live::{LiveToolError, TOOLS_LIST_CHANGED, ToolServerHandle, ToolSetEdit};
pub use message::{McpMessage, ToolCallRequest};

use std::collections::HashMap;
use std::collections::hash_map::Entry;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll, Waker};

use serde::Serialize;
use serde_json::value::RawValue;
use serde_json::{Map, Value};
use tokio_util::sync::CancellationToken;

use crate::tool::{Arguments, CallFuture, ProgressReporter, ToolContext, ToolResult, ToolServer};
use jsonrpc::IdKey;

/// The MCP protocol versions this router speaks, oldest first.
pub const SUPPORTED_PROTOCOL_VERSIONS: [&str; 4] =
    ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"];

/// The version answered when the client asks for one this router does not know.
pub const LATEST_PROTOCOL_VERSION: &str = "2025-11-25";

/// The `params._meta` key under which the CLI sends the Anthropic `tool_use` id of a call.
pub const TOOL_USE_ID_META: &str = "claudecode/toolUseId";

/// Receives the server→client notifications of a router (`notifications/progress`), as complete
/// JSON-RPC messages for the runtime to send to the CLI.
pub type Notifier = Arc<dyn Fn(Value) + Send + Sync>;

/// How long a cancelled handler may run on after its token fires, before it is dropped.
///
/// This is the one cancellation contract of the runtime, kept alike for `tools/call` handlers
/// (`notifications/cancelled`, [`McpRouter::cancel_all`], or the reply future dropped),
/// permission callbacks and hooks (`control_cancel_request`), and every handler still running
/// when a session ends:
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

type ProgressSink = dyn Fn(&Value, f64, Option<f64>, Option<&str>) + Send + Sync;

/// Answers the MCP JSON-RPC traffic of one connection to one [`ToolServer`].
///
/// Create one per CLI connection; it is `Send + Sync` and [`handle`](McpRouter::handle) takes
/// `&self`, so every message can be handled in its own task. Clones share the connection's
/// state (running calls, negotiated version).
///
/// ```
/// use claude_tools::mcp::McpRouter;
/// use claude_tools::tools::{ToolDefBuilder, ToolServer};
/// use serde_json::json;
///
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// let server = ToolServer::new("demo", "1.0.0")
///     .with_tool(ToolDefBuilder::new("hello"), |_call| async { "hi" })
///     .unwrap();
/// let router = McpRouter::new(server);
/// let reply = router
///     .handle(json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "hello"}}))
///     .await;
/// assert_eq!(
///     reply,
///     json!({"jsonrpc": "2.0", "id": 1, "result": {
///         "content": [{"type": "text", "text": "hi"}],
///         "isError": false
///     }})
/// );
/// # });
/// ```
#[derive(Clone)]
pub struct McpRouter {
    /// The tool set, which [`ToolServerHandle`]s may change while the router serves it.
    tools: Arc<live::LiveTools>,
    connection: Arc<Connection>,
    notifier: Option<Notifier>,
    progress: Option<Arc<ProgressSink>>,
    /// Attached to the context of every call this router starts (the HTTP caller's identity).
    extension: Option<Arc<dyn std::any::Any + Send + Sync>>,
}

/// What one connection remembers between messages.
#[derive(Default)]
struct Connection {
    /// The running `tools/call`s, by JSON-RPC id.
    in_flight: Mutex<HashMap<IdKey, CancellationToken>>,
    /// 1 + the index in [`SUPPORTED_PROTOCOL_VERSIONS`] of the negotiated version; 0 before
    /// `initialize`.
    protocol_version: AtomicUsize,
}

impl Connection {
    fn in_flight(&self) -> MutexGuard<'_, HashMap<IdKey, CancellationToken>> {
        // Only single inserts and removes happen under this lock: a panic cannot leave the map
        // inconsistent, so a poisoned lock is still good.
        self.in_flight
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

/// A JSON-RPC reply of [`McpRouter::handle_raw`]: a tool's result is kept as the
/// [`ToolResult`] it is, and serialised straight into the answer line.
#[derive(Debug, Clone, PartialEq)]
pub enum Reply {
    /// Any reply, as JSON.
    Json(Value),
    /// `{"jsonrpc":"2.0","id":…,"result":<the tool's result>}`.
    ToolResult {
        /// The request's id.
        id: Value,
        /// The tool's result.
        result: ToolResult,
    },
}

impl Reply {
    /// The reply as a `Value`.
    pub fn into_value(self) -> Value {
        match self {
            Reply::Json(value) => value,
            Reply::ToolResult { id, result } => jsonrpc::success(id, result.to_json()),
        }
    }
}

impl Serialize for Reply {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        match self {
            Reply::Json(value) => value.serialize(serializer),
            Reply::ToolResult { id, result } => {
                let mut reply = serializer.serialize_map(Some(3))?;
                reply.serialize_entry("jsonrpc", "2.0")?;
                reply.serialize_entry("id", id)?;
                reply.serialize_entry("result", result)?;
                reply.end()
            }
        }
    }
}

impl McpRouter {
    /// A router for one connection (one CLI session) to `server`.
    pub fn new(server: ToolServer) -> Self {
        Self {
            tools: Arc::new(live::LiveTools::new(server)),
            connection: Arc::default(),
            notifier: None,
            progress: None,
            extension: None,
        }
    }

    /// A router for a new connection to the same live tool set: the tools are shared (no copy),
    /// the connection state (running calls by id, negotiated version) is fresh and the router
    /// has no notifier. The stateless HTTP transport answers each request on one of these, so
    /// two clients using the same JSON-RPC id never meet.
    #[doc(hidden)]
    pub fn new_connection(&self) -> McpRouter {
        Self {
            tools: self.tools.clone(),
            connection: Arc::default(),
            notifier: None,
            progress: None,
            extension: None,
        }
    }

    /// Attaches `extension` to the [`ToolContext`] of every call this router starts
    /// ([`ToolContext::extension`]).
    #[doc(hidden)]
    pub fn with_extension(
        mut self,
        extension: Option<Arc<dyn std::any::Any + Send + Sync>>,
    ) -> Self {
        self.extension = extension;
        self
    }

    /// Hands server→client notifications (`notifications/progress`, built from
    /// [`ToolContext::report_progress`] and the call's `progressToken`) to `notifier`. Without
    /// one, progress is dropped. `notifier` is called on the reporting handler's thread and
    /// should only enqueue the message.
    ///
    /// The same callback sends `notifications/tools/list_changed` when a
    /// [`ToolServerHandle`] changes the tool set.
    pub fn with_notifier(mut self, notifier: Notifier) -> Self {
        self.notifier = Some(notifier.clone());
        self.progress = Some(Arc::new(move |token: &Value, progress, total, message| {
            notifier(progress_notification(token, progress, total, message));
        }));
        self
    }

    /// The server behind this router, with the tools it serves now (a snapshot: later changes
    /// through a [`ToolServerHandle`] do not alter it).
    pub fn server(&self) -> ToolServer {
        self.tools.active()
    }

    /// A handle to change the tools this router serves while it runs; each change is sent to
    /// the client as `notifications/tools/list_changed` through the
    /// [notifier](McpRouter::with_notifier) (set the notifier first).
    ///
    /// ```
    /// use std::sync::{Arc, Mutex};
    /// use claude_tools::mcp::McpRouter;
    /// use claude_tools::ToolServer;
    /// use serde_json::json;
    ///
    /// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
    /// let sent = Arc::new(Mutex::new(Vec::new()));
    /// let sink = sent.clone();
    /// let router = McpRouter::new(ToolServer::new("demo", "1.0.0"))
    ///     .with_notifier(Arc::new(move |message| sink.lock().unwrap().push(message)));
    /// router.tool_server_handle().add_typed_tool("hello", || async { "hi" }).unwrap();
    ///
    /// assert_eq!(
    ///     *sent.lock().unwrap(),
    ///     [json!({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})]
    /// );
    /// let list = router.handle(json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"})).await;
    /// assert_eq!(list["result"]["tools"][0]["name"], "hello");
    /// # });
    /// ```
    pub fn tool_server_handle(&self) -> ToolServerHandle {
        ToolServerHandle::new(self.tools.clone(), self.notifier.clone())
    }

    /// The protocol version negotiated by the last `initialize`, if there was one.
    pub fn protocol_version(&self) -> Option<&'static str> {
        match self.connection.protocol_version.load(Ordering::Acquire) {
            0 => None,
            n => SUPPORTED_PROTOCOL_VERSIONS.get(n - 1).copied(),
        }
    }

    /// How many `tools/call`s are running.
    pub fn in_flight_calls(&self) -> usize {
        self.connection.in_flight().len()
    }

    /// Cancels every running `tools/call` (each answers `-32800` at once, its handler keeping
    /// its [`CANCEL_GRACE`] in the background), for example when the session ends.
    pub fn cancel_all(&self) {
        for token in self.connection.in_flight().values() {
            token.cancel();
        }
    }

    /// [`McpRouter::handle`] for a message already read as an [`McpMessage`]: a `tools/call`
    /// read typed goes straight to its tool, and its result comes back unserialised.
    pub async fn handle_message(&self, message: McpMessage) -> Reply {
        match message {
            McpMessage::ToolCall(call) => self.run_call(call).await,
            McpMessage::Other(message) => Reply::Json(self.handle(message).await),
        }
    }

    /// [`McpRouter::handle_message`] for a message still in its raw JSON.
    pub async fn handle_raw(&self, message: &RawValue) -> Reply {
        if let Ok(message) = serde_json::from_str::<McpMessage>(message.get()) {
            return self.handle_message(message).await;
        }
        match serde_json::from_str::<Value>(message.get()) {
            Ok(message) => Reply::Json(self.handle(message).await),
            Err(error) => Reply::Json(jsonrpc::error(
                Value::Null,
                jsonrpc::PARSE_ERROR,
                "Parse error",
                Some(Value::String(error.to_string())),
            )),
        }
    }

    /// Handles one JSON-RPC message and returns the JSON-RPC reply to send back: always exactly
    /// one, even for notifications (see the [module docs](self)).
    pub async fn handle(&self, message: Value) -> Value {
        let Value::Object(mut message) = message else {
            return invalid_request(Value::Null, "a JSON-RPC message must be a JSON object");
        };
        let id = match message.remove("id") {
            None => None,
            Some(id @ (Value::Number(_) | Value::String(_))) => Some(id),
            Some(_) => {
                return invalid_request(Value::Null, "`id` must be a string or a number");
            }
        };
        if message.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
            return invalid_request(id.unwrap_or(Value::Null), "`jsonrpc` must be \"2.0\"");
        }
        let method = match message.remove("method") {
            Some(Value::String(method)) => method,
            _ => {
                return invalid_request(
                    id.unwrap_or(Value::Null),
                    "a request needs a `method` string",
                );
            }
        };
        let params = message.remove("params");
        let id = match id {
            Some(id) if !method.starts_with("notifications/") => id,
            id => {
                self.notification(&method, params);
                return match id {
                    Some(id) => jsonrpc::success(id, Value::Object(Map::new())),
                    None => jsonrpc::notification_ack(),
                };
            }
        };
        match method.as_str() {
            "tools/call" => self.call_tool(id, params).await,
            "tools/list" => {
                let mut result = Map::new();
                let tools = self.tools.active().list_tools();
                result.insert("tools".into(), Value::Array(tools));
                jsonrpc::success(id, Value::Object(result))
            }
            "initialize" => self.initialize(id, params),
            "ping" => jsonrpc::success(id, Value::Object(Map::new())),
            _ => {
                tracing::debug!(method, "MCP method not found");
                jsonrpc::error(
                    id,
                    jsonrpc::METHOD_NOT_FOUND,
                    "Method not found",
                    Some(Value::String(method)),
                )
            }
        }
    }

    fn notification(&self, method: &str, params: Option<Value>) {
        if method != "notifications/cancelled" {
            return;
        }
        let Some(key) = params
            .as_ref()
            .and_then(|params| params.get("requestId"))
            .and_then(IdKey::of)
        else {
            return;
        };
        if let Some(token) = self.connection.in_flight().get(&key) {
            tracing::debug!(request = ?key, "MCP tools/call cancelled by the client");
            token.cancel();
        }
    }

    fn initialize(&self, id: Value, params: Option<Value>) -> Value {
        let requested = params
            .as_ref()
            .and_then(|params| params.get("protocolVersion"))
            .and_then(Value::as_str);
        let index = requested
            .and_then(|requested| {
                SUPPORTED_PROTOCOL_VERSIONS
                    .iter()
                    .position(|v| *v == requested)
            })
            .unwrap_or(SUPPORTED_PROTOCOL_VERSIONS.len() - 1);
        self.connection
            .protocol_version
            .store(index + 1, Ordering::Release);
        let server = self.tools.active();
        jsonrpc::success(
            id,
            initialize_result(&server, SUPPORTED_PROTOCOL_VERSIONS[index]),
        )
    }

    async fn call_tool(&self, id: Value, params: Option<Value>) -> Value {
        match tool_call_request(id, params) {
            Ok(call) => self.run_call(call).await.into_value(),
            Err(error) => error,
        }
    }

    /// Runs one `tools/call` (registered for cancellation under its id) to its reply.
    async fn run_call(&self, call: ToolCallRequest) -> Reply {
        match self.start_call(call) {
            Started::Done(reply) => reply,
            Started::Running(call) => call.finish().await,
        }
    }

    /// Starts a `tools/call` and polls it once, with no future around it: most tools finish
    /// right there, and the session answers them with no task and no registration.
    #[doc(hidden)]
    pub fn start_call(&self, call: ToolCallRequest) -> Started {
        let ToolCallRequest {
            id,
            name,
            arguments,
            tool_use_id,
            progress_token,
        } = call;
        let cancellation = CancellationToken::new();
        let mut context = ToolContext::for_call(id.clone(), cancellation.clone());
        if let Some(tool_use_id) = tool_use_id {
            context = context.with_tool_use_id(tool_use_id);
        }
        if let (Some(token @ (Value::Number(_) | Value::String(_))), Some(sink)) =
            (progress_token, &self.progress)
        {
            context = context.with_progress(ProgressReporter::new(token, sink.clone()));
        }
        if let Some(extension) = &self.extension {
            context = context.with_extension(extension.clone());
        }

        // Both callers checked the id's type, so it always has a key; without one the call runs
        // unregistered.
        let key = IdKey::of(&id);
        if let Some(key) = &key
            && self.connection.in_flight().contains_key(key)
        {
            return Started::Done(already_running(id));
        }
        // The call resolves its tool in this snapshot and keeps it, whatever changes later.
        let started = self
            .tools
            .with_active(|tools| tools.start_call(&name, arguments, context));
        let mut call = match started {
            Ok(call) => call,
            Err(result) => return Started::Done(Reply::ToolResult { id, result }),
        };
        // The waker does not matter: a call still pending is polled again by `finish`, with
        // the waker of the task that awaits it.
        if let Poll::Ready(result) =
            Pin::new(&mut call).poll(&mut Context::from_waker(Waker::noop()))
        {
            return Started::Done(Reply::ToolResult { id, result });
        }
        // Nothing can have cancelled the call before it was registered: registering only calls
        // that outlive their first poll costs the quick ones nothing.
        let key = match key {
            Some(key) => match self.connection.in_flight().entry(key.clone()) {
                // Another call with this id started while this one was being polled: answer as
                // if it had been there first.
                Entry::Occupied(_) => return Started::Done(already_running(id)),
                Entry::Vacant(slot) => {
                    slot.insert(cancellation.clone());
                    Some(key)
                }
            },
            None => None,
        };
        Started::Running(RunningCall {
            id,
            call: Some(call),
            registration: Registration {
                connection: self.connection.clone(),
                key,
                cancellation,
            },
        })
    }
}

/// A `tools/call` after its first poll.
#[doc(hidden)]
pub enum Started {
    /// Answered on the first poll, or refused before it ran.
    Done(Reply),
    /// Still running, registered for cancellation.
    Running(RunningCall),
}

/// A `tools/call` that did not finish on its first poll. Dropping it before the call has
/// finished cancels the call: its token fires and its handler gets its [`CANCEL_GRACE`].
#[doc(hidden)]
pub struct RunningCall {
    id: Value,
    /// `None` once the call has finished.
    call: Option<CallFuture>,
    registration: Registration,
}

impl RunningCall {
    /// Runs the call to its reply: the tool's result, or `-32800` as soon as it is cancelled.
    /// A cancelled handler is not waited for: dropping `self` moves it into its grace.
    #[doc(hidden)]
    pub async fn finish(mut self) -> Reply {
        let outcome = match &mut self.call {
            Some(call) => tokio::select! {
                biased;
                () = self.registration.cancellation.cancelled() => None,
                result = call => Some(result),
            },
            None => None,
        };
        self.registration.finish();
        let id = std::mem::take(&mut self.id);
        match outcome {
            Some(result) => {
                self.call = None;
                Reply::ToolResult { id, result }
            }
            None => Reply::Json(jsonrpc::error(
                id,
                jsonrpc::REQUEST_CANCELLED,
                "Request cancelled",
                None,
            )),
        }
    }
}

impl Drop for RunningCall {
    fn drop(&mut self) {
        if let Some(call) = self.call.take() {
            self.registration.cancellation.cancel();
            // A drop cannot wait: the grace runs in a task of its own. Outside a tokio runtime
            // (or one shutting down) the handler is dropped now.
            if let Ok(runtime) = tokio::runtime::Handle::try_current() {
                runtime.spawn(run_out_grace(call));
            }
        }
    }
}

/// Steps 3 and 4 of the contract at [`CANCEL_GRACE`], for a tool call as for a withdrawn
/// callback: polls the cancelled `handler` on for up to [`CANCEL_GRACE`], its output discarded,
/// then drops it.
#[doc(hidden)]
pub async fn run_out_grace(handler: impl Future) {
    let _ = tokio::time::timeout(CANCEL_GRACE, handler).await;
}

/// The `tools/call` request of `id` and `params` as read from JSON, or the `-32602` reply when
/// `params.name` is missing.
#[doc(hidden)]
pub fn tool_call_request(id: Value, params: Option<Value>) -> Result<ToolCallRequest, Value> {
    let mut params = match params {
        Some(Value::Object(params)) => params,
        _ => Map::new(),
    };
    let name = match params.remove("name") {
        Some(Value::String(name)) => name,
        _ => {
            return Err(jsonrpc::error(
                id,
                jsonrpc::INVALID_PARAMS,
                "Invalid params",
                Some(Value::String(
                    "tools/call needs `params.name`, the tool's name as a string".into(),
                )),
            ));
        }
    };
    let arguments = params
        .remove("arguments")
        .map(Arguments::from)
        .unwrap_or_default();
    let (mut tool_use_id, mut progress_token) = (None, None);
    if let Some(Value::Object(mut meta)) = params.remove("_meta") {
        if let Some(Value::String(id)) = meta.remove(TOOL_USE_ID_META) {
            tool_use_id = Some(Arc::<str>::from(id));
        }
        progress_token = meta.remove("progressToken");
    }
    Ok(ToolCallRequest {
        id,
        name,
        arguments,
        tool_use_id,
        progress_token,
    })
}

fn already_running(id: Value) -> Reply {
    Reply::Json(jsonrpc::error(
        id,
        jsonrpc::INVALID_REQUEST,
        "Invalid Request",
        Some(Value::String(
            "a tools/call with this id is already running".into(),
        )),
    ))
}

impl std::fmt::Debug for McpRouter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpRouter")
            .field("server", &self.server())
            .field("protocol_version", &self.protocol_version())
            .field("in_flight_calls", &self.in_flight_calls())
            .field("notifier", &self.progress.is_some())
            .finish()
    }
}

/// A running call's entry in the in-flight map. Removed when the call ends; if the call is
/// dropped first (the session aborting the control request), its token is also cancelled, for
/// any work it spawned.
struct Registration {
    connection: Arc<Connection>,
    key: Option<IdKey>,
    cancellation: CancellationToken,
}

impl Registration {
    fn finish(&mut self) {
        if let Some(key) = self.key.take() {
            self.connection.in_flight().remove(&key);
        }
    }
}

impl Drop for Registration {
    fn drop(&mut self) {
        if self.key.is_some() {
            self.finish();
            self.cancellation.cancel();
        }
    }
}

fn invalid_request(id: Value, reason: &str) -> Value {
    jsonrpc::error(
        id,
        jsonrpc::INVALID_REQUEST,
        "Invalid Request",
        Some(Value::String(reason.into())),
    )
}

/// The `initialize` result `server` answers for `version`: what the router replies, and what a
/// handshake manifest carries.
fn initialize_result(server: &ToolServer, version: &str) -> Value {
    let mut tools = Map::new();
    tools.insert("listChanged".into(), Value::Bool(false));
    let mut capabilities = Map::new();
    capabilities.insert("tools".into(), Value::Object(tools));
    let mut server_info = Map::new();
    server_info.insert("name".into(), Value::String(server.name().into()));
    server_info.insert("version".into(), Value::String(server.version().into()));
    let mut result = Map::new();
    result.insert("protocolVersion".into(), Value::String(version.into()));
    result.insert("capabilities".into(), Value::Object(capabilities));
    result.insert("serverInfo".into(), Value::Object(server_info));
    if let Some(instructions) = server.instructions() {
        result.insert("instructions".into(), Value::String(instructions.into()));
    }
    Value::Object(result)
}

/// The `sdkMcpServerManifests` entry of `server`: its `initialize` result for
/// [`LATEST_PROTOCOL_VERSION`] (the version the CLI asks for; the CLI ignores an entry of another
/// version) and its `tools/list` result, exactly as the router would answer them.
#[doc(hidden)]
pub fn handshake_manifest(server: &ToolServer) -> Value {
    let mut tools_list = Map::new();
    tools_list.insert("tools".into(), Value::Array(server.list_tools()));
    let mut manifest = Map::new();
    manifest.insert(
        "initializeResult".into(),
        initialize_result(server, LATEST_PROTOCOL_VERSION),
    );
    manifest.insert("toolsListResult".into(), Value::Object(tools_list));
    Value::Object(manifest)
}

fn progress_notification(
    token: &Value,
    progress: f64,
    total: Option<f64>,
    message: Option<&str>,
) -> Value {
    let mut params = Map::new();
    params.insert("progressToken".into(), token.clone());
    params.insert("progress".into(), Value::from(progress));
    if let Some(total) = total {
        params.insert("total".into(), Value::from(total));
    }
    if let Some(message) = message {
        params.insert("message".into(), Value::String(message.into()));
    }
    let mut notification = Map::new();
    notification.insert("jsonrpc".into(), Value::String("2.0".into()));
    notification.insert(
        "method".into(),
        Value::String("notifications/progress".into()),
    );
    notification.insert("params".into(), Value::Object(params));
    Value::Object(notification)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn progress_notifications_carry_the_token() {
        assert_eq!(
            progress_notification(&json!(7), 1.0, Some(4.0), Some("one of four")),
            json!({
                "jsonrpc": "2.0",
                "method": "notifications/progress",
                "params": {"progressToken": 7, "progress": 1.0, "total": 4.0, "message": "one of four"}
            })
        );
        assert_eq!(
            progress_notification(&json!("t"), 0.5, None, None),
            json!({
                "jsonrpc": "2.0",
                "method": "notifications/progress",
                "params": {"progressToken": "t", "progress": 0.5}
            })
        );
    }

    #[test]
    fn the_router_is_send_and_sync_and_its_future_is_send() {
        fn assert_send_sync<T: Send + Sync>(_: &T) {}
        fn assert_send<T: Send>(_: &T) {}
        let router = McpRouter::new(ToolServer::new("s", "1"));
        assert_send_sync(&router);
        let future = router.handle(json!({}));
        assert_send(&future);
    }
}
