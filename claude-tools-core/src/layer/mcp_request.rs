//! Layers around MCP requests: [`McpRequest`], what they see of a request, [`McpService`], the
//! service they wrap, and [`ToolServer::request_layer`].

use std::any::Any;
use std::fmt;
use std::sync::Arc;
use std::task::{Context, Poll};

use tower_layer::Layer;
use tower_service::Service;

use super::boxed::{BoxError, BoxFuture, BoxedService};
use crate::jsonrpc::{Call, ErrorCode, ErrorObject, Request, RequestId, Response};
use crate::mcp::McpRouter;
use crate::tool::ToolServer;

/// One MCP request as the layers around requests see it ([`ToolServer::request_layer`]): its
/// id, its method and params (typed as the router reads them), and who is calling.
///
/// The innermost service answers it as the router does without layers; a layer may answer
/// without passing it on, with a [`Response`] for the request's [`id`](McpRequest::id).
pub struct McpRequest {
    request: Request,
    /// The connection's router, without its request layers: what answers the request once
    /// every layer has passed it on.
    router: McpRouter,
}

impl McpRequest {
    pub(crate) fn new(request: Request, router: McpRouter) -> Self {
        Self { request, router }
    }

    /// The request's JSON-RPC id: the id its answer must carry.
    pub fn id(&self) -> &RequestId {
        &self.request.id
    }

    /// The request's method (`tools/call`, `tools/list`, `initialize`…).
    pub fn method(&self) -> &str {
        self.request.method()
    }

    /// What the request asks for, as the router read it.
    pub fn call(&self) -> &Call {
        &self.request.call
    }

    /// The name of the tool a `tools/call` calls; `None` for another method.
    pub fn tool_name(&self) -> Option<&str> {
        match &self.request.call {
            Call::ToolsCall(call) => Some(&call.name),
            _ => None,
        }
    }

    /// The whole request: id, call and its MCP 2026-07-28 `_meta` claim.
    pub fn request(&self) -> &Request {
        &self.request
    }

    /// Who is calling, as the transport's auth found out: over HTTP, the principal the auth
    /// hook named; `None` for an anonymous caller, in-process and over stdio.
    pub fn principal(&self) -> Option<&str> {
        self.router.principal()
    }

    /// The caller's identity, when the transport attached one and it is a `T`: over HTTP, the
    /// value the auth hook returned (what a tool reads with
    /// [`ToolContext::extension`](crate::tool::ToolContext::extension)).
    pub fn identity<T: Any + Send + Sync>(&self) -> Option<&T> {
        self.router.identity()?.downcast_ref::<T>()
    }

    /// An error answer to this request (its id, `error`): what a layer that refuses a request
    /// returns.
    pub fn refuse(&self, error: ErrorObject) -> Response {
        Response::error(Some(self.request.id.clone()), error)
    }
}

impl fmt::Debug for McpRequest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("McpRequest")
            .field("id", self.id())
            .field("method", &self.method())
            .field("principal", &self.principal())
            .finish_non_exhaustive()
    }
}

/// The service the layers around a server's MCP requests wrap ([`ToolServer::request_layer`]):
/// a `Service<McpRequest, Response = Response, Error = BoxError>`, cloneable, `Send + Sync`.
///
/// Innermost it answers the request as the router does without layers (and a `tools/call`
/// then runs through the [tool-call layers](ToolServer::layer)); each `request_layer` wraps
/// what was there. Its error is never produced by the router (every request is answered): only
/// the layers fail, and how their errors reach the client is told at
/// [`ToolServer::request_layer`].
#[derive(Clone)]
pub struct McpService {
    inner: BoxedService<McpRequest, Response>,
}

impl McpService {
    /// The innermost service: the router's own answer.
    fn router() -> Self {
        Self::new(Unlayered)
    }

    fn new<S>(service: S) -> Self
    where
        S: Service<McpRequest, Response = Response> + Clone + Send + Sync + 'static,
        S::Error: Into<BoxError>,
        S::Future: Send + 'static,
    {
        Self {
            inner: BoxedService::new(service),
        }
    }

    /// Answers `request` through a clone of the stack. An error of a layer becomes a JSON-RPC
    /// error for the request's id.
    pub(crate) fn answer(&self, request: McpRequest) -> BoxFuture<Response> {
        let service = self.inner.clone();
        let id = request.id().clone();
        let method = request.method().to_string();
        Box::pin(async move {
            match service.oneshot(request).await {
                Ok(response) => response,
                Err(error) => Response::error(Some(id), layer_failure(&method, &*error)),
            }
        })
    }
}

impl Service<McpRequest> for McpService {
    type Response = Response;
    type Error = BoxError;
    type Future = BoxFuture<Result<Response, BoxError>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), BoxError>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: McpRequest) -> Self::Future {
        self.inner.call(request)
    }
}

impl fmt::Debug for McpService {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("McpService").finish_non_exhaustive()
    }
}

/// The JSON-RPC error a request gets when a layer fails it: `-32603` whatever the failure,
/// with a message saying which (tower's timeout and load shedding named; any other error's
/// message as the data).
fn layer_failure(
    method: &str,
    error: &(dyn std::error::Error + Send + Sync + 'static),
) -> ErrorObject {
    tracing::warn!(method = %crate::jsonrpc::echo(method), %error, "a layer around an MCP request failed it");
    if error.is::<tower::timeout::error::Elapsed>() {
        ErrorObject::new(ErrorCode::INTERNAL_ERROR, "Request timed out")
            .with_data("a time limit of the server's ran out before the request was answered")
    } else if error.is::<tower::load_shed::error::Overloaded>() {
        ErrorObject::new(ErrorCode::INTERNAL_ERROR, "Server overloaded")
            .with_data("the server is busy and did not take the request; try again later")
    } else {
        ErrorObject::internal_error(error.to_string())
    }
}

/// The innermost request service: the router's own answer.
#[derive(Clone, Copy)]
struct Unlayered;

impl Service<McpRequest> for Unlayered {
    type Response = Response;
    type Error = BoxError;
    type Future = BoxFuture<Result<Response, BoxError>>;

    fn poll_ready(&mut self, _cx: &mut Context<'_>) -> Poll<Result<(), BoxError>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: McpRequest) -> Self::Future {
        let McpRequest { request, router } = request;
        Box::pin(async move { Ok(router.answer_unlayered(request).await) })
    }
}

impl ToolServer {
    /// Wraps every MCP request of this server's routers in `layer`: any `tower::Layer` whose
    /// service is a `Service<`[`McpRequest`]`, Response = `[`Response`]`>` (tower's `timeout`,
    /// `limit`, `load_shed`, or your own), applied in-process, over stdio and over HTTP alike,
    /// since every transport answers through an [`McpRouter`] of the server.
    ///
    /// - **Order.** Each call wraps what was there: the last `request_layer` is the outermost.
    ///   Request layers are outside the [tool-call layers](ToolServer::layer): a `tools/call`
    ///   goes through the request layers, then the tool-call layers, then the handler.
    /// - **What layers see.** Every request (a message with a method and an id), whatever its
    ///   method or revision, with its caller ([`McpRequest::principal`],
    ///   [`McpRequest::identity`]). Notifications, the client's responses and messages that
    ///   are not JSON-RPC are handled without them. A `notifications/cancelled` finds a
    ///   `tools/call` once the layers have passed it on, not while one of them holds it.
    /// - **Answers.** A layer's `Ok(response)` is the answer; a layer refusing a request answers
    ///   [`McpRequest::refuse`] (the request's id and an error). A layer's `Err` becomes a
    ///   `-32603` error for the request's id: tower's `Elapsed` (`timeout`) with the message
    ///   `Request timed out`, `Overloaded` (`load_shed`) `Server overloaded`, any other error
    ///   `Internal error` with its message as the data (so keep secrets out of your layers'
    ///   errors). A timeout that drops a running `tools/call` cancels it (its token fires, its
    ///   handler gets [`CANCEL_GRACE`](crate::mcp::CANCEL_GRACE)).
    /// - **State.** Every request runs through its own clone of the stack, shared by every
    ///   router and connection of the server; see [`ToolServer::layer`].
    /// - **Cost.** A server without request layers pays nothing for them; with them, each
    ///   request boxes the stack's clone and its future, and clones its router.
    ///
    /// ```
    /// use std::time::Duration;
    /// use claude_tools::mcp::{McpRouter, Message};
    /// use claude_tools::tools::ToolServer;
    ///
    /// # tokio::runtime::Builder::new_current_thread().enable_time().build().unwrap().block_on(async {
    /// let server = ToolServer::new("demo", "1.0.0")
    ///     .with_typed_tool("slow", || async {
    ///         tokio::time::sleep(Duration::from_secs(60)).await;
    ///         "done"
    ///     })
    ///     .unwrap()
    ///     .request_layer(tower::timeout::TimeoutLayer::new(Duration::from_millis(10)));
    ///
    /// let call = br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"slow"}}"#;
    /// let answer = McpRouter::new(server).handle(Message::decode(call)).await.unwrap();
    /// assert_eq!(answer.to_value()["error"]["message"], "Request timed out");
    /// # });
    /// ```
    pub fn request_layer<L>(mut self, layer: L) -> Self
    where
        L: Layer<McpService>,
        L::Service: Service<McpRequest, Response = Response> + Clone + Send + Sync + 'static,
        <L::Service as Service<McpRequest>>::Error: Into<BoxError>,
        <L::Service as Service<McpRequest>>::Future: Send + 'static,
    {
        let inner = Arc::make_mut(&mut self.inner);
        let wrapped = match inner.request_layers.take() {
            Some(layers) => Arc::unwrap_or_clone(layers),
            None => McpService::router(),
        };
        inner.request_layers = Some(Arc::new(McpService::new(layer.layer(wrapped))));
        self
    }
}
