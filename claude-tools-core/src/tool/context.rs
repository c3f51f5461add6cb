//! The call context: what a handler may know about the call besides its arguments.

use std::any::Any;
use std::fmt;
use std::sync::Arc;

use tokio_util::sync::CancellationToken;

use crate::jsonrpc::ProgressToken;
pub use crate::jsonrpc::RequestId;

/// Everything about one tool call that is not model input.
///
/// Take it as a parameter of a `#[tool]` fn to read the `tool_use_id` of the call, wait for
/// cancellation, or report progress. It is cheap to clone.
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
    /// A value the transport attached to the call (over HTTP, the caller's identity from the
    /// auth hook); `None`, and free, when nothing did.
    extension: Option<Arc<dyn Any + Send + Sync>>,
}

impl ToolContext {
    /// A context with no ids, a fresh cancellation token and a no-op progress reporter: what a
    /// unit test of a tool usually wants.
    pub fn new() -> Self {
        Self::default()
    }

    /// The context of one `tools/call`: its JSON-RPC id and cancellation token (built whole, so
    /// no default token is made just to be replaced).
    pub(crate) fn for_call(request_id: RequestId, cancellation: CancellationToken) -> Self {
        Self {
            tool_use_id: None,
            request_id: Some(request_id),
            cancellation,
            progress: ProgressReporter::default(),
            extension: None,
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

    /// Attaches `value` to the call, for the handler to read with
    /// [`extension`](ToolContext::extension) or the [`Extension`](super::Extension) extractor:
    /// the HTTP transport attaches the caller's identity its auth hook returned. A context holds
    /// one such value; a second call replaces the first.
    pub fn with_extension(mut self, value: Arc<dyn Any + Send + Sync>) -> Self {
        self.extension = Some(value);
        self
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
}

impl fmt::Debug for ToolContext {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ToolContext")
            .field("tool_use_id", &self.tool_use_id)
            .field("request_id", &self.request_id)
            .field("cancelled", &self.is_cancelled())
            .field("extension", &self.extension.is_some())
            .finish_non_exhaustive()
    }
}

/// Receives a call's progress reports: `(progress_token, progress, total, message)`.
pub type ProgressSink = dyn Fn(&ProgressToken, f64, Option<f64>, Option<&str>) + Send + Sync;

/// Where a call's progress reports go. The default drops them.
#[derive(Clone, Default)]
pub struct ProgressReporter {
    target: Option<(ProgressToken, Arc<ProgressSink>)>,
}

impl ProgressReporter {
    /// A reporter that hands every report, with the call's `progressToken`, to `sink`.
    pub fn new(token: ProgressToken, sink: Arc<ProgressSink>) -> Self {
        Self {
            target: Some((token, sink)),
        }
    }

    /// A reporter that drops every report.
    pub fn noop() -> Self {
        Self::default()
    }

    /// Sends one report (or drops it when there is nowhere to send it).
    pub fn report(&self, progress: f64, total: Option<f64>, message: Option<&str>) {
        if let Some((token, sink)) = &self.target {
            sink(token, progress, total, message);
        }
    }
}
