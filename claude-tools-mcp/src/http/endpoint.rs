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
use axum::extract::{ConnectInfo, State};
use axum::http::Method;
use axum::response::Response;
use hyper::body::Incoming;

use super::Shared;
use super::cors::Mark;

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
    /// `axum::serve`'s `into_make_service_with_connect_info` would).
    pub(super) fn answer(
        &self,
        mut request: hyper::Request<Incoming>,
        peer: SocketAddr,
    ) -> impl Future<Output = Result<Response, Infallible>> + Send + use<> {
        request.extensions_mut().insert(ConnectInfo(peer));
        let route = if request.method() == Method::POST && request.uri().path() == self.shared.path
        {
            let mark = Mark::of(&self.shared, request.headers());
            Route::Post(self.shared.clone(), mark, request.map(Body::new))
        } else {
            Route::Router(hyper::service::Service::call(&self.router, request))
        };
        async move {
            match route {
                Route::Post(shared, mark, request) => {
                    let mut response = super::post::handle(State(shared), request).await;
                    mark.apply(&mut response);
                    Ok(response)
                }
                Route::Router(answer) => answer.await,
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
