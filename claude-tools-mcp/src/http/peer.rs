//! The accepted connection's side of a request: TCP keepalive on the socket (so that a peer
//! that vanished without a word is found out by the kernel), and the peer's address, which
//! [`Endpoint`](super::endpoint::Endpoint) attaches to each request as axum's [`ConnectInfo`]
//! (as `axum::serve`'s `into_make_service_with_connect_info::<SocketAddr>()` attaches it to a
//! mounted router).

use std::net::{IpAddr, SocketAddr};
use std::time::Duration;

use axum::extract::ConnectInfo;
use axum::http::Extensions;
use tokio::net::TcpStream;

/// The interval between TCP keepalive probes, where the system lets it be set.
const TCP_KEEPALIVE_INTERVAL: Duration = Duration::from_secs(15);

/// The peer address of the request's connection, if the server knows it.
pub(super) fn peer_ip(extensions: &Extensions) -> Option<IpAddr> {
    extensions
        .get::<ConnectInfo<SocketAddr>>()
        .map(|ConnectInfo(peer)| peer.ip())
}

/// Turns TCP keepalive on for `stream` after `keepalive` of silence (`None`: off).
pub(super) fn keep_alive(stream: &TcpStream, peer: SocketAddr, keepalive: Option<Duration>) {
    let Some(idle) = keepalive else { return };
    let keepalive = socket2::TcpKeepalive::new().with_time(idle);
    #[cfg(any(target_os = "linux", target_os = "macos", windows))]
    let keepalive = keepalive.with_interval(TCP_KEEPALIVE_INTERVAL);
    #[cfg(not(any(target_os = "linux", target_os = "macos", windows)))]
    let _ = TCP_KEEPALIVE_INTERVAL;
    if let Err(error) = socket2::SockRef::from(stream).set_tcp_keepalive(&keepalive) {
        tracing::debug!(%error, %peer, "MCP HTTP: TCP keepalive could not be turned on");
    }
}
