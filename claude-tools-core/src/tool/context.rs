//! The call context: what a handler may know about the call besides its arguments.

use std::any::Any;
use std::fmt;
use std::sync::Arc;

use serde::Serialize;
use tokio_util::sync::CancellationToken;

use super::log::{CallLogger, LogSink, LogTarget};
use crate::ask::{AskError, ClientPeer, CreateMessageRequest, CreateMessageResult, Root};
pub use crate::jsonrpc::RequestId;
use crate::jsonrpc::{LoggingLevel, ProgressToken};

/// Everything about one tool call that is not model input.
///
/// Take it as a parameter of a `#[tool]` fn to read the `tool_use_id` of the call, wait for
/// cancellation, report progress, or log to the client ([`log`](ToolContext::log)). It is cheap
/// to clone.
///
/// ```
/// use claude_tools::tools::ToolContext;
///
/// async fn slow_work(ctx: ToolContext) -> String {
///     tokio::select! {
///         _ = ctx.cancelled() => "stopped".to_string(),
///         _ = tokio::time::sleep(std::time::Duration::from_millis(1)) => "done".to_string(),
///     }
/// }
/// # let rt = tokio::runtime::Builder::new_current_thread().enable_time().build().unwrap();
/// # assert_eq!(rt.block_on(slow_work(ToolContext::new())), "done");
/// ```
#[derive(Clone, Default)]
pub struct ToolContext {
    tool_use_id: Option<Arc<str>>,
    request_id: Option<RequestId>,
    cancellation: CancellationToken,
    progress: ProgressReporter,
    /// Where this call's log messages go, and from which level.
    logger: CallLogger,
    /// A value the transport attached to the call (over HTTP, the caller's identity from the
    /// auth hook); `None`, and free, when nothing did.
    extension: Option<Arc<dyn Any + Send + Sync>>,
    /// Who is calling, as the transport's auth found out (over HTTP, the auth hook's
    /// principal); `None` for an anonymous caller.
    principal: Option<Arc<str>>,
    /// The client of the connection the call came through, to ask it questions; `None` in a
    /// unit test's context.
    client: Option<ClientPeer>,
}

/// What the router knows of one `tools/call` as it starts it: the pieces of the call's
/// [`ToolContext`] ([`ToolContext::for_call`]).
pub(crate) struct CallOrigin {
    pub(crate) request_id: RequestId,
    pub(crate) cancellation: CancellationToken,
    pub(crate) tool_use_id: Option<Arc<str>>,
    pub(crate) progress: ProgressReporter,
    /// Where log messages go (the router's notifier), and from which level.
    pub(crate) log_sink: Option<crate::mcp::Notifier>,
    pub(crate) log_level: Option<LoggingLevel>,
    pub(crate) extension: Option<Arc<dyn Any + Send + Sync>>,
    pub(crate) principal: Option<Arc<str>>,
    pub(crate) client: ClientPeer,
}

impl ToolContext {
    /// A context with no ids, a fresh cancellation token and a no-op progress reporter: what a
    /// unit test of a tool usually wants.
    pub fn new() -> Self {
        Self::default()
    }

    /// The context of one `tools/call`, built whole from what the router knows of it: a
    /// context is some 200 bytes, and each `with_*` setter would move it once more on every
    /// call.
    pub(crate) fn for_call(origin: CallOrigin) -> Self {
        let CallOrigin {
            request_id,
            cancellation,
            tool_use_id,
            progress,
            log_sink,
            log_level,
            extension,
            principal,
            client,
        } = origin;
        Self {
            tool_use_id,
            request_id: Some(request_id),
            cancellation,
            progress,
            logger: CallLogger {
                threshold: log_level,
                sink: log_sink.map(LogTarget::Notifier),
            },
            extension,
            principal,
            client: Some(client),
        }
    }

    /// Sets the Anthropic `tool_use` id (`params._meta["claudecode/toolUseId"]` on the wire).
    pub fn with_tool_use_id(mut self, id: impl Into<Arc<str>>) -> Self {
        self.tool_use_id = Some(id.into());
        self
    }

    /// Sets the JSON-RPC id of the `tools/call` request.
    pub fn with_request_id(mut self, id: RequestId) -> Self {
        self.request_id = Some(id);
        self
    }

    /// Uses `token` as this call's cancellation signal.
    pub fn with_cancellation(mut self, token: CancellationToken) -> Self {
        self.cancellation = token;
        self
    }

    /// Routes progress reports to `reporter`.
    pub fn with_progress(mut self, reporter: ProgressReporter) -> Self {
        self.progress = reporter;
        self
    }

    /// Sends this call's log messages ([`log`](ToolContext::log)) to `sink`, which the router
    /// sets from its notifier (as `notifications/message`). Without a sink, messages are
    /// dropped.
    pub fn with_log_sink(mut self, sink: Arc<LogSink>) -> Self {
        self.logger.sink = Some(LogTarget::Sink(sink));
        self
    }

    /// The least severe level this call sends (`None`: none at all), a value of the call
    /// rather than of the server: the router sets it on every call it starts, from what the
    /// client asked with `logging/setLevel` on the connection (every level when the client
    /// never asked; see [`McpRouter`](crate::mcp::McpRouter)). A revision of MCP that carries
    /// the level in the request itself sets it from there the same way.
    pub fn with_log_level(mut self, level: Option<LoggingLevel>) -> Self {
        self.logger.threshold = level;
        self
    }

    /// The least severe level a [`log`](ToolContext::log) of this call is sent at; `None` when
    /// nothing is sent.
    pub fn log_level(&self) -> Option<LoggingLevel> {
        self.logger.threshold
    }

    /// Whether a message at `level` would reach the client: check it before building costly
    /// log data.
    pub fn logs(&self, level: LoggingLevel) -> bool {
        self.logger.enabled(level)
    }

    /// Logs `data` (any `Serialize` value: a string, a struct with details) to the client, as
    /// an MCP `notifications/message` at `level`, when `level` is at or above the call's
    /// [`log_level`](ToolContext::log_level); otherwise, in a unit test, or where the
    /// transport cannot reach the client, the message is dropped. Over Streamable HTTP the
    /// messages travel on the call's own response stream (when the client accepts
    /// `text/event-stream`), over stdio with the call's other output, always before its result.
    ///
    /// Log messages are for the client's user or developer, not the model; MCP asks that they
    /// carry no credentials, personal data or internal details that could aid an attack.
    ///
    /// ```
    /// use std::sync::{Arc, Mutex};
    /// use claude_tools::mcp::{LogMessage, LoggingLevel};
    /// use claude_tools::tools::ToolContext;
    /// use serde_json::json;
    ///
    /// let sent = Arc::new(Mutex::new(Vec::new()));
    /// let sink = sent.clone();
    /// let ctx = ToolContext::new()
    ///     .with_log_sink(Arc::new(move |message: LogMessage| sink.lock().unwrap().push(message)))
    ///     .with_log_level(Some(LoggingLevel::Info));
    ///
    /// ctx.log(LoggingLevel::Debug, "not sent: below the level");
    /// ctx.log_info("indexing started");
    /// ctx.log_with(LoggingLevel::Error, "db", json!({"error": "connection refused", "port": 5432}));
    ///
    /// let sent = sent.lock().unwrap();
    /// assert_eq!(sent.len(), 2);
    /// assert_eq!(sent[0].data, json!("indexing started"));
    /// assert_eq!(sent[1].logger.as_deref(), Some("db"));
    /// ```
    pub fn log(&self, level: LoggingLevel, data: impl Serialize) {
        self.logger.log(level, None, &data);
    }

    /// [`log`](ToolContext::log) naming the logger (the part of the server the message comes
    /// from), MCP's `logger`.
    pub fn log_with(&self, level: LoggingLevel, logger: &str, data: impl Serialize) {
        self.logger.log(level, Some(logger), &data);
    }

    /// [`log`](ToolContext::log) at [`LoggingLevel::Debug`].
    pub fn log_debug(&self, data: impl Serialize) {
        self.log(LoggingLevel::Debug, data);
    }

    /// [`log`](ToolContext::log) at [`LoggingLevel::Info`].
    pub fn log_info(&self, data: impl Serialize) {
        self.log(LoggingLevel::Info, data);
    }

    /// [`log`](ToolContext::log) at [`LoggingLevel::Warning`].
    pub fn log_warning(&self, data: impl Serialize) {
        self.log(LoggingLevel::Warning, data);
    }

    /// [`log`](ToolContext::log) at [`LoggingLevel::Error`].
    pub fn log_error(&self, data: impl Serialize) {
        self.log(LoggingLevel::Error, data);
    }

    /// Attaches `value` to the call, for the handler to read with
    /// [`extension`](ToolContext::extension) or the [`Extension`](super::Extension) extractor:
    /// the HTTP transport attaches the caller's identity its auth hook returned. A context holds
    /// one such value; a second call replaces the first.
    pub fn with_extension(mut self, value: Arc<dyn Any + Send + Sync>) -> Self {
        self.extension = Some(value);
        self
    }

    /// Says who is calling: the key a server tells its callers apart by (a user or tenant id).
    /// The router sets it on every call from what the transport's auth found out (over HTTP,
    /// the principal of `AuthDecision::principal`, cargo feature `http`); set it yourself in a
    /// unit test of a tool or layer that reads it.
    pub fn with_principal(mut self, principal: impl Into<Arc<str>>) -> Self {
        self.principal = Some(principal.into());
        self
    }

    /// Who is calling, as the transport's auth found out ([`with_principal`](Self::with_principal)):
    /// over HTTP, the principal the auth hook named; `None` for an anonymous caller, in-process
    /// and over stdio. Unlike the [`extension`](Self::extension) (whatever value the auth hook
    /// attached), it is a plain key, what a per-caller limit or policy compares.
    ///
    /// ```
    /// use claude_tools::tools::ToolContext;
    ///
    /// assert_eq!(ToolContext::new().with_principal("user:42").principal(), Some("user:42"));
    /// assert_eq!(ToolContext::new().principal(), None);
    /// ```
    pub fn principal(&self) -> Option<&str> {
        self.principal.as_deref()
    }

    /// Lets the call ask `client` questions ([`elicit`](ToolContext::elicit),
    /// [`create_message`](ToolContext::create_message), [`list_roots`](ToolContext::list_roots));
    /// the router sets it on every call it starts.
    pub fn with_client(mut self, client: ClientPeer) -> Self {
        self.client = Some(client);
        self
    }

    /// The client this call came from, when it came through an MCP connection.
    pub fn client(&self) -> Option<&ClientPeer> {
        self.client.as_ref()
    }

    /// Asks the user, through the client, for a value of type `T` (MCP elicitation), and waits
    /// for the answer: [`Elicitation::Accepted`](crate::ask::Elicitation::Accepted) with the
    /// form's content read as a `T`, [`Elicitation::Declined`](crate::ask::Elicitation::Declined)
    /// or [`Elicitation::Cancelled`](crate::ask::Elicitation::Cancelled). `T` is any
    /// [`ElicitForm`](crate::ask::ElicitForm) (`Deserialize + JsonSchema`, and `Send`).
    ///
    /// The form (`requestedSchema`) is generated from `T`, which must be a flat struct of
    /// strings, numbers, booleans and unit enums ([`elicitation_schema`](crate::ask::elicitation_schema));
    /// another `T` is an [`AskError::Schema`] from this call, before anything is sent. So is a
    /// client that did not announce `elicitation` ([`AskError::NotSupported`]) and a transport
    /// that cannot carry the question ([`AskError::Unavailable`]: stateless HTTP). An accepted
    /// content that is not a `T` is an [`AskError::InvalidAnswer`]. Cancelling the tool call
    /// withdraws the question (`notifications/cancelled` to the client) and returns
    /// [`AskError::Cancelled`]; a question also gives up after the router's timeout
    /// ([`AskError::TimedOut`]) and when the connection ends ([`AskError::Closed`]).
    ///
    /// On an MCP 2026-07-28 request the question goes out in an `input_required` result and
    /// the handler runs again when the client answers: see [`question`](super::question) for
    /// what a handler must keep safe to repeat.
    ///
    /// ```no_run
    /// use claude_tools::prelude::*;
    /// use claude_tools::mcp::Elicitation;
    ///
    /// #[derive(Deserialize, JsonSchema)]
    /// struct Confirm {
    ///     /// Delete it?
    ///     confirm: bool,
    /// }
    ///
    /// async fn delete_branch(ctx: ToolContext, branch: String) -> Result<String, ToolError> {
    ///     let question = format!("Delete the branch {branch}?");
    ///     match ctx.elicit::<Confirm>(question).await? {
    ///         Elicitation::Accepted(Confirm { confirm: true }) => Ok(format!("deleted {branch}")),
    ///         _ => Ok(format!("kept {branch}: the user said no")),
    ///     }
    /// }
    /// ```
    pub fn elicit<'a, T: crate::ask::ElicitForm + Send + 'static>(
        &'a self,
        message: impl Into<String>,
    ) -> crate::ask::ElicitFuture<'a, T> {
        self.unnamed_question().elicit(message)
    }

    /// Asks the client's model for a message (MCP sampling), and waits for it.
    ///
    /// Fails with [`AskError::NotSupported`] before sending anything when the client did not
    /// announce `sampling`; the other errors are [`elicit`](ToolContext::elicit)'s.
    ///
    /// ```no_run
    /// use claude_tools::prelude::*;
    /// use claude_tools::mcp::{CreateMessageRequest, SamplingMessage};
    ///
    /// async fn name_colour(ctx: ToolContext, hex: String) -> Result<String, ToolError> {
    ///     let request = CreateMessageRequest::new([SamplingMessage::user(format!("Name {hex}"))], 20)
    ///         .system_prompt("Answer with one word.");
    ///     let answer = ctx.create_message(request).await?;
    ///     Ok(answer.text().unwrap_or("(no text)").to_string())
    /// }
    /// ```
    pub async fn create_message(
        &self,
        request: CreateMessageRequest,
    ) -> Result<CreateMessageResult, AskError> {
        self.unnamed_question().create_message(request).await
    }

    /// Asks the client for its roots (MCP `roots/list`), and waits for them.
    ///
    /// Fails with [`AskError::NotSupported`] before sending anything when the client did not
    /// announce `roots`; the other errors are [`elicit`](ToolContext::elicit)'s.
    pub async fn list_roots(&self) -> Result<Vec<Root>, AskError> {
        self.unnamed_question().list_roots().await
    }

    /// The value the transport attached to this call, if there is one and it is a `T`.
    ///
    /// Over HTTP it is the identity the auth hook (`HttpServer::authorize`, cargo feature `http`)
    /// returned with `AuthDecision::allow_with(identity)`: the way a multi-tenant server learns,
    /// inside a tool, who is calling. In-process, over stdio and in unit tests there is none
    /// unless [`with_extension`](ToolContext::with_extension) set one.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use claude_tools::tools::ToolContext;
    ///
    /// struct Tenant(&'static str);
    ///
    /// let ctx = ToolContext::new().with_extension(Arc::new(Tenant("acme")));
    /// assert_eq!(ctx.extension::<Tenant>().map(|tenant| tenant.0), Some("acme"));
    /// assert!(ctx.extension::<String>().is_none());
    /// ```
    pub fn extension<T: Any + Send + Sync>(&self) -> Option<&T> {
        self.extension.as_deref()?.downcast_ref::<T>()
    }

    /// [`extension`](ToolContext::extension) as a shared pointer, to keep past the call.
    pub fn extension_arc<T: Any + Send + Sync>(&self) -> Option<Arc<T>> {
        self.extension.clone()?.downcast::<T>().ok()
    }

    /// The id of the model's `tool_use` block this call answers, when the CLI sent one.
    pub fn tool_use_id(&self) -> Option<&str> {
        self.tool_use_id.as_deref()
    }

    /// The JSON-RPC id of the `tools/call` request, when the call came through MCP.
    pub fn request_id(&self) -> Option<&RequestId> {
        self.request_id.as_ref()
    }

    /// The cancellation token of this call. It fires when the CLI cancels the call
    /// (`notifications/cancelled`, typically on interrupt) or the session shuts down; the call
    /// is answered at once and the handler may run on for up to
    /// [`CANCEL_GRACE`](crate::mcp::CANCEL_GRACE) to clean up, its result discarded.
    pub fn cancellation_token(&self) -> &CancellationToken {
        &self.cancellation
    }

    /// Whether the call has been cancelled. Handlers doing long synchronous loops poll this.
    pub fn is_cancelled(&self) -> bool {
        self.cancellation.is_cancelled()
    }

    /// Completes when the call is cancelled.
    pub async fn cancelled(&self) {
        self.cancellation.cancelled().await
    }

    /// Reports progress on this call (`notifications/progress` with the call's progress token).
    ///
    /// Reports are forwarded to the CLI only when the runtime routing this call supports it; in a
    /// unit test, or when the CLI sent no progress token, they are dropped.
    pub fn report_progress(&self, progress: f64, total: Option<f64>, message: Option<&str>) {
        self.progress.report(progress, total, message);
    }

    /// The call's progress token (`params._meta.progressToken`), when the client sent one:
    /// the client asks for progress with it, and the reports of
    /// [`report_progress`](ToolContext::report_progress) carry it.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use claude_tools::mcp::{ProgressToken, RequestId};
    /// use claude_tools::tools::{ProgressReporter, ToolContext};
    ///
    /// let token = ProgressToken(RequestId::from("upload-7"));
    /// let ctx = ToolContext::new()
    ///     .with_progress(ProgressReporter::new(token.clone(), Arc::new(|_, _, _, _| {})));
    /// assert_eq!(ctx.progress_token(), Some(&token));
    /// assert_eq!(ToolContext::new().progress_token(), None);
    /// ```
    pub fn progress_token(&self) -> Option<&ProgressToken> {
        self.progress.token()
    }
}

impl fmt::Debug for ToolContext {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ToolContext")
            .field("tool_use_id", &self.tool_use_id)
            .field("request_id", &self.request_id)
            .field("cancelled", &self.is_cancelled())
            .field("progress_token", &self.progress_token())
            .field("log_level", &self.log_level())
            .field("extension", &self.extension.is_some())
            .field("principal", &self.principal)
            .finish_non_exhaustive()
    }
}

/// Receives a call's progress reports: `(progress_token, progress, total, message)`.
pub type ProgressSink = dyn Fn(&ProgressToken, f64, Option<f64>, Option<&str>) + Send + Sync;

/// Where a call's progress reports go. The default drops them.
#[derive(Clone, Default)]
pub struct ProgressReporter {
    token: Option<ProgressToken>,
    sink: Option<ProgressTarget>,
}

/// Where a [`ProgressReporter`] sends: a sink of the caller's, or the router's notifier itself
/// (no closure allocated per connection or per call for it).
#[derive(Clone)]
enum ProgressTarget {
    Sink(Arc<ProgressSink>),
    Notifier(crate::mcp::Notifier),
}

impl ProgressReporter {
    /// A reporter that hands every report, with the call's `progressToken`, to `sink`.
    pub fn new(token: ProgressToken, sink: Arc<ProgressSink>) -> Self {
        Self {
            token: Some(token),
            sink: Some(ProgressTarget::Sink(sink)),
        }
    }

    /// A reporter that sends every report to `notifier` as `notifications/progress`.
    pub(crate) fn to_notifier(token: ProgressToken, notifier: crate::mcp::Notifier) -> Self {
        Self {
            token: Some(token),
            sink: Some(ProgressTarget::Notifier(notifier)),
        }
    }

    /// A reporter that knows the call's token but has nowhere to send reports (a transport
    /// without a notifier): the handler can still read the token.
    pub(crate) fn token_only(token: ProgressToken) -> Self {
        Self {
            token: Some(token),
            sink: None,
        }
    }

    /// The call's `progressToken`, when it has one.
    pub fn token(&self) -> Option<&ProgressToken> {
        self.token.as_ref()
    }

    /// A reporter that drops every report.
    pub fn noop() -> Self {
        Self::default()
    }

    /// Sends one report (or drops it when there is nowhere to send it).
    pub fn report(&self, progress: f64, total: Option<f64>, message: Option<&str>) {
        match (&self.token, &self.sink) {
            (Some(token), Some(ProgressTarget::Sink(sink))) => {
                sink(token, progress, total, message);
            }
            (Some(token), Some(ProgressTarget::Notifier(notifier))) => {
                notifier(crate::jsonrpc::ServerNotification::Progress {
                    token: token.clone(),
                    progress,
                    total,
                    message: message.map(String::from),
                });
            }
            _ => {}
        }
    }
}
