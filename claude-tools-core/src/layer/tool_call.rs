//! Layers around tool calls: [`ToolRequest`], what they see of a call, [`ToolService`], the
//! service they wrap, and [`ToolServer::layer`].

use std::any::Any;
use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use serde_json::{Map, Value};
use tokio_util::sync::CancellationToken;
use tower_layer::Layer;
use tower_service::Service;

use super::boxed::{BoxError, BoxFuture, BoxedService};
use crate::catch_unwind::CatchUnwind;
use crate::tool::{
    ToolCall, ToolContext, ToolDef, ToolFuture, ToolHandler, ToolResult, ToolServer,
};

/// One tool call as the layers around it see it ([`ToolServer::layer`]): the tool (its name and
/// definition), the model's arguments, the call's context and who is calling.
///
/// The innermost service runs the tool's handler with it; a layer may answer without passing
/// it on (a policy refusing the call, with [`ToolResult::error`] for the model to read).
pub struct ToolRequest {
    call: ToolCall,
    def: Arc<ToolDef>,
    handler: ToolHandler,
}

impl ToolRequest {
    pub(crate) fn new(call: ToolCall, def: Arc<ToolDef>, handler: ToolHandler) -> Self {
        Self { call, def, handler }
    }

    /// The tool's name, as the client called it.
    pub fn name(&self) -> &str {
        self.call.tool_name()
    }

    /// The tool's definition: its description, schemas, annotations
    /// ([`read_only`](crate::tool::ToolAnnotations::read_only),
    /// [`destructive`](crate::tool::ToolAnnotations::destructive)…) and `_meta`.
    pub fn def(&self) -> &ToolDef {
        &self.def
    }

    /// The arguments the model sent, in its order (built on the first ask, as
    /// [`ToolCall::arguments`] is).
    pub fn arguments(&self) -> &Map<String, Value> {
        self.call.arguments()
    }

    /// The call's context: its ids, its cancellation token, the caller.
    pub fn context(&self) -> &ToolContext {
        self.call.context()
    }

    /// Who is calling, as the transport's auth found out ([`ToolContext::principal`]): over
    /// HTTP, the principal the auth hook named; `None` for an anonymous caller, in-process and
    /// over stdio.
    pub fn principal(&self) -> Option<&str> {
        self.call.context().principal()
    }

    /// The caller's identity, when the transport attached one and it is a `T`
    /// ([`ToolContext::extension`]): over HTTP, the value the auth hook returned.
    pub fn identity<T: Any + Send + Sync>(&self) -> Option<&T> {
        self.call.context().extension::<T>()
    }

    /// The call as the handler will receive it.
    pub fn call(&self) -> &ToolCall {
        &self.call
    }
}

impl fmt::Debug for ToolRequest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ToolRequest")
            .field("name", &self.name())
            .field("principal", &self.principal())
            .field("context", self.context())
            .finish_non_exhaustive()
    }
}

/// The service the layers of a server's tool calls wrap ([`ToolServer::layer`]): a
/// `Service<ToolRequest, Response = ToolResult, Error = BoxError>`, cloneable, `Send + Sync`.
///
/// Innermost it runs the tool's handler; each [`ToolServer::layer`] wraps what was there. Its
/// error is never produced by the handler (a handler's failure is an `isError` result): only
/// the layers fail, and how their errors reach the client is told at
/// [`ToolServer::layer`].
#[derive(Clone)]
pub struct ToolService {
    inner: BoxedService<ToolRequest, ToolResult>,
}

impl ToolService {
    /// The innermost service: runs the handler.
    fn handler() -> Self {
        Self::new(RunHandler)
    }

    fn new<S>(service: S) -> Self
    where
        S: Service<ToolRequest, Response = ToolResult> + Clone + Send + Sync + 'static,
        S::Error: Into<BoxError>,
        S::Future: Send + 'static,
    {
        Self {
            inner: BoxedService::new(service),
        }
    }

    /// Runs `request` through a clone of the stack. An error of a layer becomes the `isError`
    /// result the model reads.
    pub(crate) fn run(&self, request: ToolRequest) -> ToolFuture {
        let service = self.inner.clone();
        let tool: Arc<str> = request.call.tool_arc();
        Box::pin(async move {
            match service.oneshot(request).await {
                Ok(result) => result,
                Err(error) => layer_failure(&tool, &*error),
            }
        })
    }
}

impl Service<ToolRequest> for ToolService {
    type Response = ToolResult;
    type Error = BoxError;
    type Future = BoxFuture<Result<ToolResult, BoxError>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), BoxError>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: ToolRequest) -> Self::Future {
        self.inner.call(request)
    }
}

impl fmt::Debug for ToolService {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ToolService").finish_non_exhaustive()
    }
}

/// What the model reads when a layer fails a call: the two failures of tower's own middleware
/// said in words, any other error by its message.
fn layer_failure(
    tool: &str,
    error: &(dyn std::error::Error + Send + Sync + 'static),
) -> ToolResult {
    tracing::warn!(%tool, %error, "a layer around a tool call failed it");
    ToolResult::error(if error.is::<tower::timeout::error::Elapsed>() {
        format!("Tool `{tool}` timed out: it was stopped before it finished")
    } else if error.is::<tower::load_shed::error::Overloaded>() {
        format!("Tool `{tool}` was not run: the server is busy; try again later")
    } else {
        format!("Tool `{tool}` failed: {error}")
    })
}

/// The innermost tool service: runs the handler.
#[derive(Clone, Copy)]
struct RunHandler;

impl Service<ToolRequest> for RunHandler {
    type Response = ToolResult;
    type Error = BoxError;
    type Future = HandlerRun;

    fn poll_ready(&mut self, _cx: &mut Context<'_>) -> Poll<Result<(), BoxError>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: ToolRequest) -> HandlerRun {
        let ToolRequest { call, handler, .. } = request;
        let cancellation = call.context().cancellation_token().clone();
        HandlerRun {
            handler: Some(crate::tool::start_handler(&*handler, call)),
            cancellation,
        }
    }
}

/// A handler running under layers. A layer that drops it before it finishes (a timeout
/// elapsed) cancels the call as the one cancellation contract says
/// ([`CANCEL_GRACE`](crate::mcp::CANCEL_GRACE)): the call's token fires, and the handler runs
/// on in a task of its own for the grace, its result discarded.
struct HandlerRun {
    /// `None` once finished (or while being polled).
    handler: Option<ToolFuture>,
    cancellation: CancellationToken,
}

impl Future for HandlerRun {
    type Output = Result<ToolResult, BoxError>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        // Taken out while it is polled: a handler that panics is dropped with the unwinding
        // (the call's panic catcher, outside every layer, answers for it), not handed a grace
        // in which it would be polled again.
        let Some(mut handler) = self.handler.take() else {
            return Poll::Ready(Err("the tool's handler was polled after it ended".into()));
        };
        match handler.as_mut().poll(cx) {
            Poll::Ready(result) => Poll::Ready(Ok(result)),
            Poll::Pending => {
                self.handler = Some(handler);
                Poll::Pending
            }
        }
    }
}

impl Drop for HandlerRun {
    fn drop(&mut self) {
        if let Some(handler) = self.handler.take() {
            self.cancellation.cancel();
            // Outside a tokio runtime (or one shutting down) the handler is dropped now.
            if let Ok(runtime) = tokio::runtime::Handle::try_current() {
                runtime.spawn(crate::mcp::run_out_grace(CatchUnwind::pinned(handler)));
            }
        }
    }
}

impl ToolServer {
    /// Wraps every call of this server's tools in `layer`: any `tower::Layer` whose service is a
    /// `Service<`[`ToolRequest`]`, Response = `[`ToolResult`]`>` (tower's `timeout`,
    /// `limit::ConcurrencyLimitLayer`, `load_shed`, or your own), applied in-process, over stdio
    /// and over HTTP alike, since every transport calls tools through the server.
    ///
    /// - **Order.** Each call wraps what was there: the last `layer` is the outermost, as with
    ///   tower's `ServiceBuilder` read bottom to top. A `ServiceBuilder` is one layer.
    /// - **What layers see.** Every call of a tool the server has, once its arguments are an
    ///   object: the tool's name and definition, the arguments, the context, the caller
    ///   ([`ToolRequest::principal`], [`ToolRequest::identity`]). A call of an unknown tool is
    ///   answered before them (`-32602` over MCP). A `#[tool]`'s or typed tool's argument
    ///   errors are found by its handler, inside the layers; a [`with_tool`](Self::with_tool)
    ///   handler's unknown arguments are refused before them.
    /// - **Answers.** A layer's `Ok(result)` is the call's result: a policy refuses a call with
    ///   `Ok(ToolResult::error("…"))`, an `isError` the model reads. A layer's `Err` becomes an
    ///   `isError` result too, never a JSON-RPC error: tower's `Elapsed` (`timeout`) reads
    ///   ``Tool `x` timed out: it was stopped before it finished``, `Overloaded` (`load_shed`)
    ///   ``Tool `x` was not run: the server is busy; try again later``, any other error
    ///   ``Tool `x` failed: <its message>`` (so keep secrets out of your layers' errors).
    /// - **Cancellation.** A layer that drops the handler before it finishes (a timeout) fires
    ///   the call's cancellation token ([`ToolContext::cancelled`]), and the handler runs on for
    ///   [`CANCEL_GRACE`](crate::mcp::CANCEL_GRACE) to clean up, as when the client cancels.
    /// - **State.** Every call runs through its own clone of the stack, so the layer's service
    ///   must be `Clone` (and `Send + Sync`), and state shared by the clones (a
    ///   `ConcurrencyLimit`'s semaphore) is shared by every call. A service that is not
    ///   `Clone` (tower's `RateLimit`) goes behind `tower::buffer::BufferLayer`, built inside a
    ///   tokio runtime.
    /// - **Cost.** A server without layers pays nothing for them; with layers, each call boxes
    ///   the stack's clone and its future.
    ///
    /// A per-caller policy: refuse `delete_all` to anyone but `admin`.
    ///
    /// ```
    /// use claude_tools::layer::{ToolRequest, ToolService};
    /// use claude_tools::tools::{ToolContext, ToolResult, ToolServer};
    /// use serde_json::json;
    /// use std::task::{Context, Poll};
    ///
    /// #[derive(Clone)]
    /// struct AdminOnly<S>(S);
    ///
    /// impl<S: tower::Service<ToolRequest, Response = ToolResult>> tower::Service<ToolRequest>
    ///     for AdminOnly<S>
    /// where
    ///     S::Future: Send + 'static,
    /// {
    ///     type Response = ToolResult;
    ///     type Error = S::Error;
    ///     type Future = std::pin::Pin<
    ///         Box<dyn Future<Output = Result<ToolResult, S::Error>> + Send>,
    ///     >;
    ///
    ///     fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), S::Error>> {
    ///         self.0.poll_ready(cx)
    ///     }
    ///
    ///     fn call(&mut self, call: ToolRequest) -> Self::Future {
    ///         if call.name() == "delete_all" && call.principal() != Some("admin") {
    ///             let refused = ToolResult::error("delete_all is for administrators only");
    ///             return Box::pin(async move { Ok(refused) });
    ///         }
    ///         Box::pin(self.0.call(call))
    ///     }
    /// }
    ///
    /// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
    /// let server = ToolServer::new("ops", "1.0.0")
    ///     .with_typed_tool("delete_all", || async { "deleted" })
    ///     .unwrap()
    ///     .layer(tower::layer::layer_fn(AdminOnly));
    ///
    /// let anyone = server.call("delete_all", json!({}), ToolContext::new()).await;
    /// assert!(anyone.is_error);
    /// let admin = ToolContext::new().with_principal("admin");
    /// assert_eq!(server.call("delete_all", json!({}), admin).await.text_content(), "deleted");
    /// # });
    /// ```
    pub fn layer<L>(mut self, layer: L) -> Self
    where
        L: Layer<ToolService>,
        L::Service: Service<ToolRequest, Response = ToolResult> + Clone + Send + Sync + 'static,
        <L::Service as Service<ToolRequest>>::Error: Into<BoxError>,
        <L::Service as Service<ToolRequest>>::Future: Send + 'static,
    {
        let inner = Arc::make_mut(&mut self.inner);
        let wrapped = inner
            .tool_layers
            .take()
            .unwrap_or_else(ToolService::handler);
        inner.tool_layers = Some(ToolService::new(layer.layer(wrapped)));
        self
    }
}
