//! CORS, so that a web page of an [allowed origin](super::HttpServer::allowed_origins) can call
//! the server from a browser: the preflight `OPTIONS` is answered, and every response to a
//! request from an allowed origin (refusals included, so that the page can read a `401`)
//! carries `Access-Control-Allow-Origin`. A small layer over the endpoint's routes, written
//! here rather than taken from tower-http: it must agree with the origin and host checks the
//! requests themselves pass, and it is a few headers.

use std::convert::Infallible;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use axum::extract::Request;
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::MethodRouter;
use tower_layer::Layer;
use tower_service::Service;

use super::Shared;
use super::origin::{allowed_origin, check_host, check_origin};

/// How long a browser may keep a preflight's answer: 2 hours (the most Chromium keeps).
pub const CORS_MAX_AGE_SECONDS: u32 = 7200;

/// The request headers a page may send: what MCP clients send besides the safelisted ones
/// (MCP 2026-07-28's `mcp-method` and `mcp-name` among them). The `Mcp-Param-*` headers of
/// a tool's header-carried parameters are granted as the preflight names them.
const ALLOW_HEADERS: &str = "content-type, authorization, mcp-protocol-version, mcp-session-id, \
     last-event-id, accept, mcp-method, mcp-name";

/// The response headers a page may read besides the safelisted ones.
const EXPOSE_HEADERS: &str = "mcp-session-id, www-authenticate, retry-after";

/// `route` with CORS: preflights answered, responses to allowed origins marked.
pub(super) fn with_cors(
    route: MethodRouter<Arc<Shared>>,
    shared: &Arc<Shared>,
) -> MethodRouter<Arc<Shared>> {
    route.layer(CorsLayer {
        shared: shared.clone(),
    })
}

/// The CORS layer: a plain tower service rather than `axum::middleware::from_fn`, whose
/// boxed future and extra clone of the inner route per request cost a `tools/call` about 8%
/// of the server's instructions (issue 28's profile), for a request with no `Origin` at all.
#[derive(Clone)]
struct CorsLayer {
    shared: Arc<Shared>,
}

impl<S> Layer<S> for CorsLayer {
    type Service = Cors<S>;

    fn layer(&self, inner: S) -> Cors<S> {
        Cors {
            inner,
            shared: self.shared.clone(),
        }
    }
}

/// The endpoint's routes with CORS (see [`CorsLayer`]).
#[derive(Clone)]
struct Cors<S> {
    inner: S,
    shared: Arc<Shared>,
}

impl<S> Service<Request> for Cors<S>
where
    S: Service<Request, Response = Response, Error = Infallible>,
    S::Future: Unpin,
{
    type Response = Response;
    type Error = Infallible;
    type Future = CorsFuture<S::Future>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: Request) -> Self::Future {
        if request.method() == Method::OPTIONS {
            return CorsFuture {
                state: CorsState::Ready(Some(preflight(&self.shared, request.headers()))),
            };
        }
        let mark = Mark::of(&self.shared, request.headers());
        CorsFuture {
            state: CorsState::Inner {
                answer: self.inner.call(request),
                mark,
            },
        }
    }
}

/// The answer of [`Cors`]: the preflight's, or the route's with the CORS headers added.
/// (axum's route future is `Unpin`: no pinning projection needed.)
struct CorsFuture<F> {
    state: CorsState<F>,
}

enum CorsState<F> {
    Ready(Option<Response>),
    Inner { answer: F, mark: Mark },
}

impl<F> Future for CorsFuture<F>
where
    F: Future<Output = Result<Response, Infallible>> + Unpin,
{
    type Output = Result<Response, Infallible>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        match &mut self.state {
            CorsState::Ready(response) => match response.take() {
                Some(response) => Poll::Ready(Ok(response)),
                None => Poll::Pending,
            },
            CorsState::Inner { answer, mark } => {
                let Ok(mut response) = std::task::ready!(Pin::new(answer).poll(cx));
                std::mem::take(mark).apply(&mut response);
                Poll::Ready(Ok(response))
            }
        }
    }
}

/// The CORS headers an answer gets, read from its request: `Vary: origin` for a request with
/// an `Origin` (only browsers send one), and the grant when that origin is allowed.
#[derive(Default)]
pub(super) struct Mark(Option<Option<HeaderValue>>);

impl Mark {
    /// The mark of a request with `headers`.
    pub(super) fn of(shared: &Shared, headers: &HeaderMap) -> Self {
        Self(
            headers
                .contains_key(header::ORIGIN)
                .then(|| allowed_origin(shared, headers).and_then(|o| o.parse().ok())),
        )
    }

    /// Adds the headers to `response`.
    pub(super) fn apply(self, response: &mut Response) {
        let Some(origin) = self.0 else { return };
        let headers = response.headers_mut();
        headers.append(header::VARY, HeaderValue::from_static("origin"));
        if let Some(origin) = origin {
            headers.insert(header::ACCESS_CONTROL_ALLOW_ORIGIN, origin);
            headers.insert(
                header::ACCESS_CONTROL_EXPOSE_HEADERS,
                HeaderValue::from_static(EXPOSE_HEADERS),
            );
        }
    }
}

/// [`ALLOW_HEADERS`], with the `Mcp-Param-*` headers the preflight asks for
/// (`Access-Control-Request-Headers`): their names are the tools', so no fixed list has them.
fn allow_headers(headers: &HeaderMap) -> HeaderValue {
    let mut allowed = ALLOW_HEADERS.to_string();
    for requested in headers.get_all(header::ACCESS_CONTROL_REQUEST_HEADERS) {
        let Ok(requested) = requested.to_str() else {
            continue;
        };
        for name in requested.split(',').map(str::trim) {
            let is_param = name
                .get(..10)
                .is_some_and(|prefix| prefix.eq_ignore_ascii_case("mcp-param-"));
            // A token of the header grammar only: nothing a browser could not have sent.
            let is_token = !name.is_empty()
                && name
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b));
            if is_param && is_token && allowed.len() < 8 * 1024 {
                allowed.push_str(", ");
                allowed.push_str(&name.to_ascii_lowercase());
            }
        }
    }
    HeaderValue::from_str(&allowed).unwrap_or(HeaderValue::from_static(ALLOW_HEADERS))
}

/// `OPTIONS`: `204` with the CORS grant for an allowed origin, `403` without one for another;
/// without an `Origin` (not a browser's preflight), `204` with `Allow`.
fn preflight(shared: &Shared, headers: &HeaderMap) -> Response {
    let (host, origin) = (headers.get(header::HOST), headers.get(header::ORIGIN));
    if let Some(refusal) = check_host(shared, host).or_else(|| check_origin(shared, origin)) {
        return refusal;
    }
    let methods = shared.sessions.served_methods();
    let mut response = StatusCode::NO_CONTENT.into_response();
    let grant = response.headers_mut();
    let Some(origin) = allowed_origin(shared, headers).and_then(|o| o.parse().ok()) else {
        grant.insert(
            header::ALLOW,
            HeaderValue::from_str(&format!("OPTIONS, {methods}"))
                .unwrap_or(HeaderValue::from_static("OPTIONS, POST")),
        );
        return response;
    };
    grant.insert(header::ACCESS_CONTROL_ALLOW_ORIGIN, origin);
    grant.insert(
        header::ACCESS_CONTROL_ALLOW_METHODS,
        HeaderValue::from_static(methods),
    );
    grant.insert(header::ACCESS_CONTROL_ALLOW_HEADERS, allow_headers(headers));
    grant.insert(
        header::ACCESS_CONTROL_MAX_AGE,
        HeaderValue::from(CORS_MAX_AGE_SECONDS),
    );
    grant.insert(header::VARY, HeaderValue::from_static("origin"));
    response
}
