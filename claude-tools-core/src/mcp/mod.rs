//! The MCP router: typed JSON-RPC in, typed JSON-RPC out, no I/O.
//!
//! The Claude Code CLI talks MCP to an in-process server through `mcp_message` control
//! requests; the stdio and HTTP transports of `claude-tools-mcp` talk it to any client. Each
//! reads a message with [`Message::decode`] and hands it to [`McpRouter::handle`], which
//! answers every request exactly once and nothing else:
//!
//! | message | answer |
//! |---|---|
//! | `initialize` | `protocolVersion` (the client's if supported, else [`LATEST_PROTOCOL_VERSION`]), `capabilities: {"tools": {"listChanged": false}, "logging": {}}` (`true` with [`McpRouter::with_list_changed`]), `serverInfo`, `instructions` when the server has them |
//! | `tools/list` | `{"tools": [...]}`, every tool on one page; with a `cursor` (which this server never issues) `-32602` |
//! | `tools/call` | the tool result; bad arguments, a handler error or panic are `isError` results (the model reads them); an unknown tool, or params without a string `name`, are `-32602` (MCP lists both among protocol errors) |
//! | `ping` | `{}` |
//! | `logging/setLevel {level}` | `{}`; the connection's calls then log at `level` and above (an unknown level `-32602`; see the `logging` module's table) |
//! | any other request | `-32601 "Method not found"` with the method (cut to [`crate::jsonrpc::MAX_ECHO`] bytes) as `data` |
//! | a notification | none (`None`) |
//! | a client's response | none; handed to the tool waiting for it (a question asked with [`crate::ask`]), ignored when no tool waits for its id |
//! | `notifications/cancelled {requestId}` | none; cancels that running `tools/call`, which then answers `-32800 "Request cancelled"` at once |
//! | not a JSON-RPC message ([`Message::Invalid`]) | its `-32600`, with the id when it could be read |
//! | bytes the decoder cannot read ([`Message::Unreadable`]) | a `tools/call`: an `isError` result naming what was wrong; else `-32700`; with the id when a scan could read it |
//!
//! What a transport does with "none" is its own policy: the control protocol answers the CLI's
//! `mcp_message` with the placeholder the CLI awaits, stdio writes nothing, HTTP answers `202`.
//!
//! Decisions beyond the table:
//! - Requests before `initialize` are served. The CLI always initializes first, and refusing
//!   (as the Python SDK does, with `-32602`) would only turn a harmless reordering into a failure.
//!   A later `initialize` (the CLI reconnecting) negotiates again.
//! - A `tools/call` whose `id` is already running is refused with `-32600` (its cancellation
//!   would be ambiguous); a `tools/call` without an `id` is a notification and does not run.
//! - Cancellation keeps the one contract described at [`CANCEL_GRACE`]: the handler's
//!   [`ToolContext::cancellation_token`](crate::tool::ToolContext::cancellation_token)(crate::tool::ToolContext::cancellation_token) fires,
//!   the call answers `-32800` at once, and the handler runs on in a task of its own for up to
//!   [`CANCEL_GRACE`] to react (finish a `select!` on `ctx.cancelled()`, clean up), its result
//!   discarded; then its future is dropped. Cancelling an unknown or finished id does nothing.
//!   Dropping the future returned by [`McpRouter::handle`] (the session aborting the control
//!   request) cancels the call the same way, grace included.
//! - A tool's log messages (`ToolContext::log`) become `notifications/message`, handed to the
//!   notifier like progress, when at or above the connection's level: the one its client set
//!   with `logging/setLevel`, or every level until it does ([`DEFAULT_LOG_LEVEL`]). The router
//!   sets that level on each call's context ([`ToolContext::with_log_level`](crate::tool::ToolContext::with_log_level)).
//! - Progress (`ToolContext::report_progress`) becomes `notifications/progress` with the call's
//!   `params._meta.progressToken`, handed to the [`McpRouter::with_notifier`] callback; without a
//!   notifier or a token it is dropped.
//! - The tool set can change while the router serves it, through a [`ToolServerHandle`]
//!   ([`McpRouter::tool_server_handle`]): each change that alters the list hands
//!   `notifications/tools/list_changed` to the notifier. In-process, `initialize` still answers
//!   `listChanged: false`: the Claude Code CLI re-fetches an sdk server's tools on that
//!   notification whatever the capability says (observed with 2.1.330 and 2.1.332; see
//!   `tests/tests/e2e/live_tools.rs`).
//!
//! To serve a [`ToolServer`] to any MCP client over stdin/stdout rather than in-process, see
//! `claude_tools::mcp::stdio` (`ServeExt::serve_stdio`); over MCP Streamable HTTP, see
//! `claude_tools::mcp::http` (cargo feature `http`, `ServeExt::serve_http`). Both live in the
//! `claude-tools-mcp` crate.

mod calls;
mod catalog;
mod connection;
mod layered;
mod lifecycle;
pub mod listen;
mod live;
mod live_catalog;
mod logging;
pub mod modern;
pub mod mrtr;
pub mod revision;
mod skills;
mod subscriptions;
mod tasks;
mod transport_settings;

pub use crate::ask::{
    AskError, ClientCapabilities, ClientPeer, CreateMessageRequest, CreateMessageResult,
    DEFAULT_ASK_TIMEOUT, ElicitParams, Elicitation, IncludeContext, LocalAnswer, LocalClient,
    ModelHint, ModelPreferences, RequestsToClient, Role, Root, SamplingContent, SamplingMessage,
    ServerRequest, ServerRequestParams, elicitation_schema,
};
pub use crate::jsonrpc::*;
pub use crate::tool::PanicDetail;
pub use calls::{CANCEL_GRACE, RunningCall, Started, run_out_grace};
pub use catalog::RESOURCE_NOT_FOUND;
#[doc(hidden)]
pub use lifecycle::{HandshakeManifest, handshake_manifest};
pub use lifecycle::{LATEST_PROTOCOL_VERSION, SUPPORTED_PROTOCOL_VERSIONS};
pub use listen::{
    ListenFilter, ListenMessage, ListenStream, MAX_RESOURCE_SUBSCRIPTIONS, MAX_TASK_SUBSCRIPTIONS,
    SUBSCRIPTION_ID_META, SUBSCRIPTIONS_ACKNOWLEDGED,
};
pub use live::{LiveToolError, ToolServerHandle, ToolSetEdit};
pub use logging::DEFAULT_LOG_LEVEL;
#[doc(hidden)]
pub use modern::{ModernRunningCall, ModernStarted};
pub use revision::{
    MODERN_PROTOCOL_VERSIONS, NEWEST_PROTOCOL_VERSION, Revision, Transport, all_protocol_versions,
    decide as decide_revision,
};

use std::sync::Arc;
use std::sync::atomic::Ordering;

use serde_json::Value;
use tracing::Instrument;

use crate::telemetry;
use crate::tool::ToolServer;
use connection::Connection;
use revision::Era;

/// Receives the server→client notifications of a router (`notifications/progress`,
/// `notifications/message`, `notifications/tools/list_changed`…), for the transport to send to
/// the client.
pub type Notifier = Arc<dyn Fn(ServerNotification) + Send + Sync>;

/// Answers the MCP JSON-RPC traffic of one connection to one [`ToolServer`].
///
/// Create one per connection; it is `Send + Sync` and [`handle`](McpRouter::handle) takes
/// `&self`, so every message can be handled in its own task. Clones share the connection's
/// state (running calls, negotiated version).
///
/// ```
/// use claude_tools::mcp::{McpRouter, Message};
/// use claude_tools::tools::{ToolDefBuilder, ToolServer};
///
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// let server = ToolServer::new("demo", "1.0.0")
///     .with_tool(ToolDefBuilder::new("hello"), |_call| async { "hi" })
///     .unwrap();
/// let router = McpRouter::new(server);
/// let message = Message::decode(br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"hello"}}"#);
/// let response = router.handle(message).await.expect("a request is answered");
/// assert_eq!(
///     response.to_json(),
///     r#"{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"hi"}],"isError":false}}"#
/// );
/// // A notification is not answered.
/// let initialized = Message::decode(br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
/// assert!(router.handle(initialized).await.is_none());
/// # });
/// ```
#[derive(Clone)]
pub struct McpRouter {
    /// The tool set, which [`ToolServerHandle`]s may change while the router serves it.
    tools: Arc<live::LiveTools>,
    connection: Arc<Connection>,
    /// Where server→client notifications go, the calls' progress and log messages included.
    notifier: Option<Notifier>,
    /// Attached to the context of every call this router starts (the HTTP caller's identity).
    extension: Option<Arc<dyn std::any::Any + Send + Sync>>,
    /// What `initialize` says of `capabilities.tools.listChanged`.
    list_changed: bool,
    /// What a client reads of a handler's panic.
    panic_detail: PanicDetail,
    /// Whether a running tool's questions reach the client, and what it can be asked.
    client: ClientSettings,
    /// Who is calling, as the transport's auth found out (an HTTP principal): the sealed state
    /// of a 2026-07-28 call's questions is bound to it.
    principal: Option<Arc<str>>,
    /// Whether the transport holds listen streams (MCP 2026-07-28's `subscriptions/listen`).
    listen: bool,
    /// The layers around every request ([`ToolServer::request_layer`]), from the server the
    /// router was made for; `None`: requests are answered with nothing around them.
    request_layers: Option<Arc<crate::layer::McpService>>,
}

/// How a router's tools ask the client questions (see [`crate::ask`]).
#[derive(Clone, Default)]
struct ClientSettings {
    requests: RequestsToClient,
    assumed: Option<ClientCapabilities>,
    local: Option<LocalClient>,
}

impl McpRouter {
    /// A router for one connection (one CLI session) to `server`.
    pub fn new(server: ToolServer) -> Self {
        let request_layers = layered::of(&server);
        let tools = Arc::new(live::LiveTools::new(server));
        Self {
            connection: Connection::new(&tools),
            tools,
            notifier: None,
            extension: None,
            list_changed: false,
            panic_detail: PanicDetail::Shown,
            client: ClientSettings::default(),
            principal: None,
            listen: false,
            request_layers,
        }
    }

    /// A router for a new connection to the same live tool set: the tools are shared (no copy),
    /// the connection state (running calls by id, negotiated version) is fresh and the router
    /// has no notifier. The stateless HTTP transport answers each request on one of these, so
    /// two clients using the same JSON-RPC id never meet.
    /// A router for the `tools/call`s of tools that cannot reach their client
    /// ([`Tool::may_ask`](crate::tool::Tool::may_ask)), made once and shared by the requests of
    /// every client of a stateless transport: its connection state is one for all and keeps
    /// nothing per client (no call registered by id, so two clients may use the same id; no
    /// era chosen; no subscription, question or log level, which such a call never uses). A
    /// request given to it through [`McpRouter::start_call`] or
    /// [`McpRouter::start_plain_modern_call`] costs no connection state of its own; anything
    /// else belongs on [`McpRouter::new_connection`]'s.
    #[doc(hidden)]
    pub fn for_plain_calls(&self) -> McpRouter {
        Self {
            connection: Connection::shared(&self.tools),
            ..self.new_connection()
        }
    }

    #[doc(hidden)]
    pub fn new_connection(&self) -> McpRouter {
        Self {
            tools: self.tools.clone(),
            connection: Connection::new(&self.tools),
            notifier: None,
            extension: None,
            list_changed: false,
            panic_detail: self.panic_detail,
            client: ClientSettings::default(),
            principal: None,
            // A property of the transport, not of the connection.
            listen: self.listen,
            // A property of the server.
            request_layers: self.request_layers.clone(),
        }
    }

    /// How many listen streams are open on this router's tool set, over every connection.
    pub fn listen_streams(&self) -> usize {
        self.tools.listeners.len()
    }

    /// The client as the tools of this router see it ([`ToolContext::client`](crate::tool::ToolContext::client)).
    pub fn client(&self) -> ClientPeer {
        ClientPeer {
            peer: self.connection.peer.clone(),
            route: self.client.requests.clone(),
            notifier: self.notifier.clone(),
            assumed: self.client.assumed,
            local: self.client.local.clone(),
            round: None,
            task: None,
            log_level: None,
        }
    }

    /// The server behind this router, with the tools it serves now (a snapshot: later changes
    /// through a [`ToolServerHandle`] do not alter it).
    pub fn server(&self) -> ToolServer {
        self.tools.active()
    }

    /// The name and version of the server behind this router (what each 2026-07-28 result's
    /// `serverInfo` says), without a snapshot of its tools.
    pub fn server_info(&self) -> Arc<crate::jsonrpc::Implementation> {
        self.tools.with_active(|server| server.info().clone())
    }

    /// A handle to change the tools this router serves while it runs; each change is sent to
    /// the client as `notifications/tools/list_changed` through the
    /// [notifier](McpRouter::with_notifier) (set the notifier first).
    ///
    /// ```
    /// use std::sync::{Arc, Mutex};
    /// use claude_tools::mcp::{McpRouter, Message, ServerNotification};
    /// use claude_tools::ToolServer;
    ///
    /// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
    /// let sent = Arc::new(Mutex::new(Vec::new()));
    /// let sink = sent.clone();
    /// let router = McpRouter::new(ToolServer::new("demo", "1.0.0"))
    ///     .with_notifier(Arc::new(move |notification| sink.lock().unwrap().push(notification)));
    /// router.tool_server_handle().add_typed_tool("hello", || async { "hi" }).unwrap();
    ///
    /// assert_eq!(*sent.lock().unwrap(), [ServerNotification::ToolsListChanged]);
    /// let list = router
    ///     .handle(Message::decode(br#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#))
    ///     .await
    ///     .unwrap();
    /// assert_eq!(list.to_value()["result"]["tools"][0]["name"], "hello");
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

    /// Whether this connection should be sent `notification` unasked: not a
    /// `notifications/resources/updated` of a resource it did not subscribe to, and, on a
    /// connection that speaks MCP 2026-07-28, no list change or resource update at all (those
    /// go only to the listen streams that asked for them). A transport that fans one notifier
    /// out to several connections (HTTP sessions), or that writes the notifier's messages
    /// itself (stdio), asks each.
    #[doc(hidden)]
    pub fn wants(&self, notification: &ServerNotification) -> bool {
        let modern = self.connection.era() == Era::Modern;
        match notification {
            ServerNotification::ResourceUpdated { uri } => {
                !modern && self.connection.subscriptions.contains(uri)
            }
            ServerNotification::ToolsListChanged
            | ServerNotification::PromptsListChanged
            | ServerNotification::ResourcesListChanged => !modern,
            _ => true,
        }
    }

    /// How many `tools/call`s are running.
    pub fn in_flight_calls(&self) -> usize {
        self.connection.in_flight.len()
    }

    /// Cancels every running `tools/call` (each answers `-32800` at once, its handler keeping
    /// its [`CANCEL_GRACE`] in the background), for example when the session ends.
    pub fn cancel_all(&self) {
        self.connection.in_flight.cancel_all();
        // The connection is ending: no answer to the server's own requests will come.
        self.connection.peer.close();
    }

    /// Fails every question waiting for the client's answer with [`AskError::Closed`], for a
    /// transport whose client can no longer answer (stdio at the end of its input) while its
    /// calls may still finish.
    pub fn end_requests_to_client(&self) {
        self.connection.peer.close();
    }

    /// How many of the server's own requests to the client wait for an answer.
    pub fn waiting_requests(&self) -> usize {
        self.connection.peer.waiting()
    }

    /// Handles one message: `Some` answer for a request (and for an invalid message), `None`
    /// for a notification or a client's response (see the [module docs](self)).
    pub async fn handle(&self, message: Message) -> Option<Response> {
        match message {
            // With request layers, they answer it (their innermost service through this
            // router without them, on the arm below).
            Message::Request(request) if let Some(layers) = &self.request_layers => {
                Some(self.layered(layers, request).await)
            }
            // A request is answered at the revision it speaks (see the `revision` module). This
            // is written out here rather than in a function of its own: each `async fn` a
            // request goes through moves it (and its answer) once more, and every call pays
            // for that.
            Message::Request(Request { id, call, meta }) => {
                // Most requests claim nothing (every 2025-11-25 one), which `decide` serves
                // at 2025-11-25: asking first spares them the call.
                let revision = match &meta {
                    MetaClaim::Absent => Revision::Legacy,
                    claimed => match revision::decide(claimed, Transport::Plain) {
                        Ok(revision) => revision,
                        Err(error) => return Some(Response::error(Some(id), error)),
                    },
                };
                Some(match revision {
                    Revision::Legacy => {
                        if self.connection.era() == Era::Modern {
                            return Some(Response::error(
                                Some(id),
                                modern::legacy_on_modern(&call),
                            ));
                        }
                        match call {
                            // The most frequent request, answered here as `answer` would (the
                            // same two steps) without `answer`'s future around it.
                            Call::ToolsCall(call) => match self.start_call_at(id, call, None) {
                                Started::Done(response) => response,
                                Started::Running(call) => call.finish().await,
                            },
                            Call::Initialize(_)
                                if self.connection.choose(Era::Legacy) != Era::Legacy =>
                            {
                                Response::error(Some(id), modern::legacy_on_modern(&call))
                            }
                            call => {
                                let span = self.request_span(&call, &id, self.protocol_version());
                                let response = self.answer_in(&span, id, call).await;
                                telemetry::record_response(&span, &response);
                                response
                            }
                        }
                    }
                    Revision::Modern(meta) => {
                        let era = if matches!(call, Call::Discover) {
                            self.connection.era()
                        } else {
                            self.connection.choose(Era::Modern)
                        };
                        if era == Era::Legacy {
                            return Some(Response::error(
                                Some(id),
                                modern::modern_on_legacy(self.protocol_version()),
                            ));
                        }
                        // A `tools/call` has its own span (see `calls`).
                        let span = match &call {
                            Call::ToolsCall(_) => tracing::Span::none(),
                            call => self.request_span(call, &id, Some(NEWEST_PROTOCOL_VERSION)),
                        };
                        let response = self.answer_modern_in(&span, id, call, meta).await;
                        telemetry::record_response(&span, &response);
                        response
                    }
                })
            }
            Message::Notification(notification) => {
                self.notify(notification);
                None
            }
            Message::Response(response) => {
                let id = response.id.clone();
                if !self.connection.peer.answer(response) {
                    tracing::debug!(?id, "MCP: ignoring a response to no waiting request");
                }
                None
            }
            Message::Invalid(Invalid { id, error }) => {
                tracing::debug!(?error, "MCP: not a JSON-RPC message");
                Some(Response::error(id, error))
            }
            Message::Unreadable(unreadable) => {
                tracing::debug!(reason = %unreadable.reason, "MCP: a message that could not be read");
                Some(unreadable.response())
            }
        }
    }

    /// [`McpRouter::handle`] for a message given as a `serde_json::Value` (tools that build
    /// messages by hand): the value is written out and decoded as a transport's bytes are, and
    /// the answer comes back as a `Value`. A test of a server is better written with the typed
    /// client of the test kit, `claude_tools_testkit::TestClient` (tools, prompts, resources,
    /// completions, questions, progress and logs, at either revision).
    ///
    /// ```
    /// use claude_tools::mcp::McpRouter;
    /// use claude_tools::ToolServer;
    /// use serde_json::json;
    ///
    /// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
    /// let router = McpRouter::new(ToolServer::new("demo", "1.0.0"));
    /// let pong = router.handle_json(json!({"jsonrpc": "2.0", "id": 1, "method": "ping"})).await;
    /// assert_eq!(pong, Some(json!({"jsonrpc": "2.0", "id": 1, "result": {}})));
    /// # });
    /// ```
    pub async fn handle_json(&self, message: Value) -> Option<Value> {
        let bytes = serde_json::to_vec(&message).unwrap_or_default();
        self.handle(Message::decode(&bytes))
            .await
            .map(|response| response.to_value())
    }

    /// [`answer`](Self::answer) of a 2025-era request in `span`. Made in a plain function: a
    /// future moved into its `Instrumented` inside `handle` would be kept twice in `handle`'s
    /// state (rustc does not overlap the two), and every request's future is copied with it.
    fn answer_in<'a>(
        &'a self,
        span: &tracing::Span,
        id: RequestId,
        call: Call,
    ) -> tracing::instrument::Instrumented<impl Future<Output = Response> + 'a> {
        self.answer(id, call, None).instrument(span.clone())
    }

    /// [`answer_modern`](Self::answer_modern) in `span`, made as [`answer_in`](Self::answer_in)
    /// is and for the same reason.
    fn answer_modern_in<'a>(
        &'a self,
        span: &tracing::Span,
        id: RequestId,
        call: Call,
        meta: &'a RequestMeta,
    ) -> tracing::instrument::Instrumented<impl Future<Output = Response> + 'a> {
        self.answer_modern(id, call, meta).instrument(span.clone())
    }

    /// Answers `call`; `client` is the client its handlers see when it is not the connection's
    /// (a 2026-07-28 request's own).
    async fn answer(&self, id: RequestId, call: Call, client: Option<ClientPeer>) -> Response {
        let not_found = |method: &str| {
            tracing::debug!(method = %crate::jsonrpc::echo(method), "MCP method not found");
            Response::error(Some(id.clone()), ErrorObject::method_not_found(method))
        };
        match call {
            Call::ToolsCall(call) => match self.start_call_at(id, call, client) {
                Started::Done(response) => response,
                Started::Running(call) => call.finish().await,
            },
            Call::ToolsList => Response::success(
                id,
                Answer::ToolsList(ToolsList::new(self.tools.active().list_tools())),
            ),
            Call::Initialize(params) => self.initialize(id, params),
            Call::Ping => Response::success(id, Answer::Empty),
            // A 2026-07-28 method: its request carries `_meta`, which put it on the other path.
            Call::Discover => not_found("server/discover"),
            Call::InvalidParams(error) => Response::error(Some(id), error),
            // A server without prompts (or without resources) answers their methods `-32601`,
            // as a tools-only server always has; its `initialize` announces neither.
            Call::PromptsGet(read) if self.tools.with_active(ToolServer::has_prompts) => {
                self.answer_get_prompt(id, read, client).await
            }
            Call::ResourcesRead(read) if self.tools.with_active(ToolServer::has_resources) => {
                self.answer_read_resource(id, read, client).await
            }
            Call::Other { method, params } if method == LOGGING_SET_LEVEL => {
                self.set_log_level(id, params.as_ref())
            }
            Call::Other { method, params }
                if let Some(known) = catalog::CatalogMethod::of(&method)
                    && self.tools.with_active(|server| known.served_by(server)) =>
            {
                self.answer_catalog(id, known, params).await
            }
            Call::PromptsGet(_) => not_found("prompts/get"),
            Call::ResourcesRead(_) => not_found("resources/read"),
            Call::Other { method, .. } => not_found(&method),
        }
    }

    /// Takes a notification (what [`McpRouter::handle`] does with one, without a future): a
    /// `notifications/cancelled` cancels its call; the others change nothing.
    pub fn notify(&self, notification: Notification) {
        if let Notification::Cancelled {
            request_id: Some(id),
            ..
        } = notification
        {
            self.connection.in_flight.cancel(&id);
        }
    }

    /// The span of a request other than a `tools/call` (see [`crate::telemetry`]).
    fn request_span(&self, call: &Call, id: &RequestId, version: Option<&str>) -> tracing::Span {
        let name = match call {
            Call::PromptsGet(Ok(get)) => Some(get.name.as_str()),
            _ => None,
        };
        telemetry::request_span(modern::call_method(call), name, id, version)
    }

    fn initialize(&self, id: RequestId, params: InitializeParams) -> Response {
        let index = lifecycle::negotiate(params.protocol_version.as_deref());
        self.connection.peer.announce(params.capabilities);
        self.connection
            .protocol_version
            .store(index + 1, Ordering::Release);
        let server = self.tools.active();
        let result = lifecycle::initialize_result(
            &server,
            SUPPORTED_PROTOCOL_VERSIONS[index],
            self.list_changed,
            self.can_notify(),
        );
        Response::success(id, Answer::Initialize(result))
    }
}

impl std::fmt::Debug for McpRouter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpRouter")
            .field("server", &self.server())
            .field("protocol_version", &self.protocol_version())
            .field("in_flight_calls", &self.in_flight_calls())
            .field("notifier", &self.notifier.is_some())
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_router_is_send_and_sync_and_its_future_is_send() {
        fn assert_send_sync<T: Send + Sync>(_: &T) {}
        fn assert_send<T: Send>(_: &T) {}
        let router = McpRouter::new(ToolServer::new("s", "1"));
        assert_send_sync(&router);
        let future = router.handle(Message::decode(b"{}"));
        assert_send(&future);
    }
}
