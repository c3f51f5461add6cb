//! The Remote Control bridge (feature `bridge`): a host process attached to a claude.ai Remote
//! Control session, so that the session can be watched and driven from claude.ai. The
//! TypeScript SDK's `./bridge` entry point (alpha there too: it is versioned apart from the
//! rest of the SDK, and so may change here without notice).
//!
//! Three steps, each a thin HTTP call with the caller's own credentials (nothing implicit):
//!
//! 1. [`create_code_session`] (`POST /v1/code/sessions`, with an OAuth access token): a new
//!    session's id (`cse_…`).
//! 2. [`fetch_remote_credentials`] (`POST /v1/code/sessions/{id}/bridge`): a worker JWT and
//!    epoch for it. The call registers the worker.
//! 3. [`attach_bridge_session`]: the [`BridgeSessionHandle`] through which the host writes its
//!    messages (`write`, `send_result`, `send_control_request` for `can_use_tool` prompts),
//!    reports its state, and hears claude.ai (user messages, permission answers, interrupts,
//!    model changes… through the callbacks of [`AttachBridgeSessionOptions`]).
//!
//! The outcomes are typed: [`CreateSessionOutcome`] and [`CredentialsOutcome`] tell a value
//! from a terminal failure (do not retry), an OAuth rejection (retry with a new token) and a
//! transient failure (retry). TypeScript's type guards are their `is_*` methods
//! (`isCredentialsFailure` → [`CredentialsOutcome::is_credentials_failure`], …) or a
//! `matches!` on the variant.
//!
//! Nothing here starts a CLI: the bridge carries messages; what runs the turns is the host's.
//!
//! The items are here with the `bridge` feature (`claude-tools`' `bridge`).
//!
//! The feature turns on reqwest's rustls **without** a default crypto provider (the bridge gives
//! its own client a rustls config on ring, to keep aws-lc-rs and its C build out of the tree).
//! Cargo unifies that into every reqwest of the build: a reqwest client built elsewhere in the
//! same binary with no TLS feature of its own (a plain-HTTP client) then panics when it is
//! built, unless a process-wide rustls provider is installed first, for example
//! `rustls::crypto::ring::default_provider().install_default()` at the start of `main`.
#![cfg_attr(feature = "bridge", doc = include_str!("example.md"))]
#![cfg_attr(not(feature = "bridge"), allow(rustdoc::broken_intra_doc_links))]

#[cfg(feature = "bridge")]
mod detail;
#[cfg(feature = "bridge")]
mod dispatch;
#[cfg(feature = "bridge")]
mod git;
#[cfg(feature = "bridge")]
mod handle;
#[cfg(feature = "bridge")]
mod http;
#[cfg(feature = "bridge")]
mod options;
#[cfg(feature = "bridge")]
mod outcome;
#[cfg(feature = "bridge")]
mod sessions;
#[cfg(feature = "bridge")]
mod shared;
#[cfg(feature = "bridge")]
mod sse;
#[cfg(feature = "bridge")]
mod transport;
#[cfg(feature = "bridge")]
mod types;

/// The state [`BridgeSessionHandle::report_state`] reports (the message module's type).
#[cfg(feature = "bridge")]
pub use crate::message::SessionState;
#[cfg(feature = "bridge")]
pub use git::{BranchDropLogDedup, CodeSessionGitContext};
#[cfg(feature = "bridge")]
pub use handle::{BridgeSessionHandle, attach_bridge_session};
#[cfg(feature = "bridge")]
pub use options::{AttachBridgeSessionOptions, BoxFuture};
#[cfg(feature = "bridge")]
pub use outcome::{
    CreateSessionFailure, CreateSessionFailureReason, CreateSessionOutcome, CredentialsFailure,
    CredentialsFailureReason, CredentialsOutcome, CredentialsRejection, RejectionReason,
    RejectionSource, RemoteCredentials, RemoteMcpConfig,
};
#[cfg(feature = "bridge")]
pub use sessions::{CreateCodeSession, create_code_session, fetch_remote_credentials};
#[cfg(feature = "bridge")]
pub use types::{
    CanUseTool, CloseCode, ControlRequest, ControlRequestBody, ControlResponse, ControlResult,
    DeliveryStatus, PermissionAnswer, ThinkingDisplay,
};

/// Why attaching (or re-attaching) failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
#[cfg(feature = "bridge")]
pub enum BridgeError {
    /// The session id is not `^[a-zA-Z0-9_-]+$`; nothing was sent.
    #[error("invalid session id {0:?}: it must match ^[a-zA-Z0-9_-]+$")]
    InvalidSessionId(String),
    /// The HTTP client could not be built (the system's trust store could not be read…).
    #[error("the bridge's HTTP client: {0}")]
    Client(String),
    /// `POST …/worker/register` failed.
    #[error("registering the worker failed{}: {message}", .status.map(|s| format!(" (HTTP {s})")).unwrap_or_default())]
    Register {
        /// The HTTP status, when the service answered.
        status: Option<u16>,
        /// What went wrong.
        message: String,
    },
}
