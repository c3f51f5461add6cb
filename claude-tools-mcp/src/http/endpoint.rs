//! The service of each connection [`HttpServer::serve`](super::HttpServer::serve) accepts: a
//! `POST` to the endpoint's path goes straight to its handler ([`post::handle`](super::post)),
//! with the marks the CORS layer adds ([`Mark`]); every other request (a preflight, `GET`,
//! `DELETE`, `HEAD`, another path) goes through the axum router of
//! [`HttpServer::into_router`](super::HttpServer::into_router), which answers it as it always
//! has. The `POST` is what clients send on every call, and axum's routing (the route cloned and
//! boxed, the method router, the layer's future) cost it about a tenth of the server's
//! instructions (issue 28's profile); its answer is the same either way, and a test holds the
//! two paths to the same bytes.

use std::cell::Cell;
use std::convert::Infallible;
use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;

use axum::body::Body;
use axum::extract::ConnectInfo;
use axum::http::{HeaderValue, Method, header};
use axum::response::Response;
use hyper::body::Incoming;

use super::Shared;
use super::cors::Mark;
use super::limits::Holding;
use super::origin::check_host;

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
        hosts: &KnownHost,
    ) -> impl Future<Output = Result<Response, Infallible>> + Send + use<H> {
        let route = if request.method() == Method::POST && request.uri().path() == self.shared.path
        {
            // The `Host` first, as `admit` would check it: a connection's requests name the same
            // host, so a value allowed once is known by its bytes on the next one.
            let host = request.headers().get(header::HOST);
            if !hosts.is(host) {
                if let Some(refusal) = check_host(&self.shared, host) {
                    return Route::Refused(refusal).into_future(held, peer);
                }
                hosts.remember(host);
            }
            // The peer goes to the handler as it is: attaching it as an extension costs every
            // call an allocated map, and nothing on this path reads it there.
            let mark = Mark::of(&self.shared, request.headers());
            Route::Post(self.shared.clone(), mark, request.map(Body::new))
        } else {
            request.extensions_mut().insert(ConnectInfo(peer));
            Route::Router(hyper::service::Service::call(&self.router, request))
        };
        route.into_future(held, peer)
    }
}

impl<F: Future<Output = Result<Response, Infallible>> + Send> Route<F> {
    /// The answer of the route, its body holding `held` until it is sent or dropped. Not an
    /// `async fn`: one would keep its `self` twice in its state (the argument and its local),
    /// and every request's future is copied with it.
    #[allow(clippy::manual_async_fn)]
    fn into_future<H: Send + Unpin + 'static>(
        self,
        held: H,
        peer: SocketAddr,
    ) -> impl Future<Output = Result<Response, Infallible>> + Send + use<F, H> {
        async move {
            match self {
                Route::Post(shared, mark, request) => {
                    let mut response = super::post::answer_holding(
                        shared,
                        request,
                        Some(peer.ip()),
                        held,
                        HostChecked::Yes,
                    )
                    .await;
                    mark.apply(&mut response);
                    Ok(response)
                }
                Route::Router(answer) => {
                    let response = answer.await?;
                    Ok(response.map(|body| Body::new(Holding::new(body, held))))
                }
                Route::Refused(refusal) => {
                    Ok(refusal.map(|body| Body::new(Holding::new(body, held))))
                }
            }
        }
    }
}

/// The `Host` a connection's requests were last allowed with ([`Endpoint::answer`]). One per
/// connection: a server's allowed hosts do not change while it serves.
#[derive(Default)]
pub(super) struct KnownHost(Cell<Option<HeaderValue>>);

impl KnownHost {
    /// Whether `host` is the one allowed last.
    fn is(&self, host: Option<&HeaderValue>) -> bool {
        let known = self.0.take();
        let is = matches!((&known, host), (Some(known), Some(host)) if known.as_bytes() == host.as_bytes());
        self.0.set(known);
        is
    }

    /// Remembers `host` as allowed (a copy: the request's value shares its connection's read
    /// buffer).
    fn remember(&self, host: Option<&HeaderValue>) {
        if let Some(host) = host
            && let Ok(copy) = HeaderValue::from_bytes(host.as_bytes())
        {
            self.0.set(Some(copy));
        }
    }
}

/// Where a request goes. Held only until the answer's future starts (whose state is larger
/// still): boxing the request would cost every `POST` an allocation for nothing.
#[allow(clippy::large_enum_variant)]
enum Route<F> {
    Post(Arc<Shared>, Mark, axum::extract::Request),
    Router(F),
    /// Refused before it went anywhere (its `Host`).
    Refused(Response),
}

/// Whether a request's `Host` was checked before it reached [`post::answer_holding`](super::post::answer_holding).
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum HostChecked {
    Yes,
    No,
}
