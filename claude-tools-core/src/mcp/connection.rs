//! What one connection of a router remembers between messages ([`Connection`]), and the
//! connection state shared by the plain calls of unrelated clients ([`Connection::shared`]).

use std::sync::Arc;
use std::sync::atomic::{AtomicU8, AtomicUsize};

use super::calls::{self, InFlight};
use super::revision::{self, Era};
use super::{live, logging, subscriptions};

/// What one connection remembers between messages.
pub(super) struct Connection {
    /// The running `tools/call`s, by request id.
    pub(super) in_flight: Arc<InFlight>,
    /// 1 + the index in [`SUPPORTED_PROTOCOL_VERSIONS`](super::SUPPORTED_PROTOCOL_VERSIONS) of the negotiated version; 0 before
    /// `initialize`.
    pub(super) protocol_version: AtomicUsize,
    /// The server's own requests to the client, waiting for their answers.
    pub(super) peer: Arc<crate::ask::Peer>,
    /// The resources this connection subscribed to.
    pub(super) subscriptions: subscriptions::Subscriptions,
    /// The level the client set with `logging/setLevel`.
    pub(super) log_level: logging::ConnectionLogLevel,
    /// The era the connection chose ([`Era`]), as a `u8`.
    pub(super) era: AtomicU8,
}

impl Connection {
    /// The state of a new connection to `tools`: nothing in flight, no era chosen.
    pub(super) fn new(tools: &live::LiveTools) -> Arc<Self> {
        Arc::new(Self {
            in_flight: Arc::default(),
            protocol_version: AtomicUsize::new(0),
            subscriptions: subscriptions::Subscriptions::new(tools.subscribers.clone()),
            peer: Arc::default(),
            log_level: logging::ConnectionLogLevel::default(),
            era: AtomicU8::new(Era::Undecided as u8),
        })
    }
}

impl Connection {
    /// A connection that keeps nothing per client, shared by the requests of unrelated
    /// clients ([`McpRouter::for_plain_calls`]): it holds no call by id and never chooses an
    /// era.
    pub(super) fn shared(tools: &live::LiveTools) -> Arc<Self> {
        Arc::new(Self {
            in_flight: Arc::new(calls::InFlight::untracked()),
            protocol_version: AtomicUsize::new(0),
            subscriptions: subscriptions::Subscriptions::new(tools.subscribers.clone()),
            peer: Arc::default(),
            log_level: logging::ConnectionLogLevel::default(),
            era: AtomicU8::new(revision::SHARED_ERA),
        })
    }
}
