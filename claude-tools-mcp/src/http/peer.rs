//! The accepted connection's side of a request: TCP keepalive on the socket (so that a peer
//! that vanished without a word is found out by the kernel), and the peer's address attached to
//! each request as axum's [`ConnectInfo`], as `axum::serve`'s
//! `into_make_service_with_connect_info::<SocketAddr>()` attaches it to a mounted router.

use std::net::{IpAddr, SocketAddr};
use std::time::Duration;

use axum::extract::ConnectInfo;
use axum::http::{Extensions, Request};
use tokio::net::TcpStream;

/// The interval between TCP keepalive probes, where the system lets it be set.
const TCP_KEEPALIVE_INTERVAL: Duration = Duration::from_secs(15);

/// The peer address of the request's connection, if the server knows it.
pub(super) fn peer_ip(extensions: &Extensions) -> Option<IpAddr> {
    extensions
        .get::<ConnectInfo<SocketAddr>>()
        .map(|ConnectInfo(peer)| peer.ip())
}

/// Turns TCP keepalive on for `stream` after `keepalive` of silence (`None`: off), and wraps
/// `service` so that each of the connection's requests carries the peer's address.
pub(super) fn accepted<S>(
    stream: &TcpStream,
    peer: SocketAddr,
    keepalive: Option<Duration>,
    service: S,
) -> WithPeer<S> {
    if let Some(idle) = keepalive {
        let keepalive = socket2::TcpKeepalive::new().with_time(idle);
        #[cfg(any(target_os = "linux", target_os = "macos", windows))]
        let keepalive = keepalive.with_interval(TCP_KEEPALIVE_INTERVAL);
        #[cfg(not(any(target_os = "linux", target_os = "macos", windows)))]
        let _ = TCP_KEEPALIVE_INTERVAL;
        if let Err(error) = socket2::SockRef::from(stream).set_tcp_keepalive(&keepalive) {
            tracing::debug!(%error, %peer, "MCP HTTP: TCP keepalive could not be turned on");
        }
    }
    WithPeer { service, peer }
}

/// A connection's service, attaching `ConnectInfo(peer)` to each request.
#[derive(Clone)]
pub(super) struct WithPeer<S> {
    service: S,
    peer: SocketAddr,
}

impl<S, B> hyper::service::Service<Request<B>> for WithPeer<S>
where
    S: hyper::service::Service<Request<B>>,
{
    type Response = S::Response;
    type Error = S::Error;
    type Future = S::Future;

    fn call(&self, mut request: Request<B>) -> Self::Future {
        request.extensions_mut().insert(ConnectInfo(self.peer));
        self.service.call(request)
    }
}
