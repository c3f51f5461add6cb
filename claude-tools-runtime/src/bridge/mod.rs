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
//! # Bridging a `Client` session
//!
//! User messages typed on claude.ai go into the session, the session's messages go out through
//! `write`, and `can_use_tool` prompts are forwarded (the guide's chapter "Sessions" has the
//! whole loop):
//!
//! ```no_run
//! # async fn demo(mut client: claude_tools::Client, credentials: claude_tools::bridge::RemoteCredentials)
//! # -> Result<(), Box<dyn std::error::Error>> {
//! use claude_tools::bridge::{AttachBridgeSessionOptions, SessionState, attach_bridge_session};
//! use claude_tools::message::Message;
//!
//! let (inbound_tx, mut inbound) = tokio::sync::mpsc::unbounded_channel();
//! let bridge = attach_bridge_session(
//!     AttachBridgeSessionOptions::new("cse_01abc", credentials.worker_jwt, credentials.api_base_url)
//!         .epoch(credentials.worker_epoch)
//!         .on_inbound_message(move |message| { let _ = inbound_tx.send(message); }),
//! )
//! .await?;
//! while let Some(message) = inbound.recv().await {
//!     let Message::User(user) = message else { continue };
//!     bridge.report_state(SessionState::Running);
//!     client.query(user.text()).await?;
//!     for message in client.receive_response().await? {
//!         bridge.write(&message);
//!     }
//!     bridge.send_result();
//!     bridge.report_state(SessionState::Idle);
//! }
//! bridge.flush().await;
//! bridge.close();
//! # Ok(()) }
//! ```
//!
//! A `can_use_tool` callback of the session's forwards its prompt with
//! [`BridgeSessionHandle::send_control_request`] and waits for the answer that
//! [`AttachBridgeSessionOptions::on_permission_response`] receives (correlated by
//! `request_id`; [`ControlResponse::permission`] reads the decision).
//!
//! Nothing here starts a CLI: the bridge carries messages; what runs the turns is the host's.

mod detail;
mod dispatch;
mod git;
mod handle;
mod http;
mod options;
mod outcome;
mod sessions;
mod shared;
mod sse;
mod transport;
mod types;

pub use git::{BranchDropLogDedup, CodeSessionGitContext};
pub use handle::{BridgeSessionHandle, attach_bridge_session};
pub use options::{AttachBridgeSessionOptions, BoxFuture};
pub use outcome::{
    CreateSessionFailure, CreateSessionFailureReason, CreateSessionOutcome, CredentialsFailure,
    CredentialsFailureReason, CredentialsOutcome, CredentialsRejection, RejectionReason,
    RejectionSource, RemoteCredentials, RemoteMcpConfig,
};
pub use sessions::{CreateCodeSession, create_code_session, fetch_remote_credentials};
pub use types::{
    CanUseTool, CloseCode, ControlRequest, ControlRequestBody, ControlResponse, ControlResult,
    DeliveryStatus, PermissionAnswer, ThinkingDisplay,
};
/// The state [`BridgeSessionHandle::report_state`] reports (the message module's type).
pub use crate::message::SessionState;

/// Why attaching (or re-attaching) failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
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
