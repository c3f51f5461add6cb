//! The service of each connection [`HttpServer::serve`](super::HttpServer::serve) accepts: a
//! `POST` to the endpoint's path goes straight to its handler ([`post::handle`](super::post)),
//! with the marks the CORS layer adds ([`Mark`]); every other request (a preflight, `GET`,
//! `DELETE`, `HEAD`, another path) goes through the axum router of
//! [`HttpServer::into_router`](super::HttpServer::into_router), which answers it as it always
//! has. The `POST` is what clients send on every call, and axum's routing (the route cloned and
//! boxed, the method router, the layer's future) cost it about a tenth of the server's
//! instructions (issue 28's profile); its answer is the same either way, and a test holds the
//! two paths to the same bytes.

use std::convert::Infallible;
use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;

use axum::body::Body;
use axum::extract::ConnectInfo;
use axum::http::Method;
use axum::response::Response;
use hyper::body::Incoming;

use super::Shared;
use super::cors::Mark;
use super::limits::Holding;

/// A connection's service (see the [module docs](self)).
#[derive(Clone)]
pub(super) struct Endpoint {
    router: hyper_util::service::TowerToHyperService<axum::Router>,
    shared: Arc<Shared>,
}

impl Endpoint {
    /// The endpoint of `shared`, with `router` (the [`router_of`](super::serve) it) for the
    /// requests that are not a `POST` to the path.
    pub(super) fn new(shared: Arc<Shared>, router: axum::Router) -> Self {
        Self {
            router: hyper_util::service::TowerToHyperService::new(router),
            shared,
        }
    }

    /// The answer to `request`, which came from `peer` (attached as axum's [`ConnectInfo`], as
    /// `axum::serve`'s `into_make_service_with_connect_info` would); its body holds `held`
    /// until it is sent or dropped.
    ///
    /// The caller awaits this future as it is: wrapping it in a future of its own would keep
    /// two copies of its kilobytes of state in the wrapper (rustc does not overlap a future
    /// with the one it was moved into), and every request's future is copied on its way into
    /// hyper's slot.
    pub(super) fn answer<H: Send + Unpin + 'static>(
        &self,
        mut request: hyper::Request<Incoming>,
        peer: SocketAddr,
        held: H,
    ) -> impl Future<Output = Result<Response, Infallible>> + Send + use<H> {
        let route = if request.method() == Method::POST && request.uri().path() == self.shared.path
        {
            // The peer goes to the handler as it is: attaching it as an extension costs every
            // call an allocated map, and nothing on this path reads it there.
            let mark = Mark::of(&self.shared, request.headers());
            Route::Post(self.shared.clone(), mark, request.map(Body::new))
        } else {
            request.extensions_mut().insert(ConnectInfo(peer));
            Route::Router(hyper::service::Service::call(&self.router, request))
        };
        async move {
            match route {
                Route::Post(shared, mark, request) => {
                    let mut response =
                        super::post::answer_holding(shared, request, Some(peer.ip()), held).await;
                    mark.apply(&mut response);
                    Ok(response)
                }
                Route::Router(answer) => {
                    let response = answer.await?;
                    Ok(response.map(|body| Body::new(Holding::new(body, held))))
                }
            }
        }
    }
}

/// Where a request goes. Held only until the answer's future starts (whose state is larger
/// still): boxing the request would cost every `POST` an allocation for nothing.
#[allow(clippy::large_enum_variant)]
enum Route<F> {
    Post(Arc<Shared>, Mark, axum::extract::Request),
    Router(F),
}
