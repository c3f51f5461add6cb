//! Where the [request layers](crate::tool::ToolServer::request_layer) meet the router: a
//! router with them hands each request to them, and their innermost service answers it through
//! a clone of the router without them.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll, Waker};

use super::McpRouter;
use super::calls::{RunningCall, Started};
use crate::jsonrpc::{ErrorObject, Message, Request, Response};
use crate::layer::{McpRequest, McpService};

impl McpRouter {
    /// `request` handed to the request layers `layers`, as a future of its answer.
    pub(super) fn layered(
        &self,
        layers: &McpService,
        request: Request,
    ) -> Pin<Box<dyn Future<Output = Response> + Send>> {
        let mut router = self.clone();
        router.request_layers = None;
        layers.answer(McpRequest::new(request, router))
    }

    /// [`McpRouter::start_call`] through the request layers: polled once, as a call without
    /// them is, so that a quick one is answered at once.
    pub(super) fn start_layered(&self, layers: &McpService, request: Request) -> Started {
        let id = request.id.clone();
        let mut answer = self.layered(layers, request);
        // The waker does not matter: an answer still pending is polled again by
        // `RunningCall::finish`, with the waker of the task that awaits it.
        match answer
            .as_mut()
            .poll(&mut Context::from_waker(Waker::noop()))
        {
            Poll::Ready(response) => Started::Done(response),
            Poll::Pending => Started::Running(RunningCall::layered(id, answer)),
        }
    }

    /// Answers `request` as a router without request layers does: the innermost of those
    /// layers. `self` has none (see [`McpRouter::layered`]).
    pub(crate) async fn answer_unlayered(self, request: Request) -> Response {
        let id = request.id.clone();
        match self.handle(Message::Request(request)).await {
            Some(response) => response,
            // `handle` answers every request; this is never reached.
            None => Response::error(
                Some(id),
                ErrorObject::internal_error("the request was not answered"),
            ),
        }
    }

    /// Who is calling, as the transport's auth found out ([`McpRouter::with_principal`]).
    pub(crate) fn principal(&self) -> Option<&str> {
        self.principal.as_deref()
    }

    /// The value the transport attached to every call ([`McpRouter::with_extension`]).
    pub(crate) fn identity(&self) -> Option<&(dyn std::any::Any + Send + Sync)> {
        self.extension.as_deref()
    }
}

/// The request layers of a router for `server`.
pub(super) fn of(server: &crate::tool::ToolServer) -> Option<Arc<McpService>> {
    server.inner.request_layers.clone()
}
