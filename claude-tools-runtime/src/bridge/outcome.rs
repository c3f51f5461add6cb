//! What `create_code_session` and `fetch_remote_credentials` answer: the value, a terminal
//! failure (retrying with the same inputs fails again), a rejection of the OAuth bearer
//! (retry only with a new one) or a transient failure (TypeScript's `null`: network error,
//! timeout, 408, 429, 5xx).

use serde::{Deserialize, Serialize};

use crate::wire_enum::wire_enum;

/// A worker's credentials from `POST /v1/code/sessions/{id}/bridge`. Each such call bumps the
/// session's worker epoch: the call *is* the worker's registration, so pass
/// [`worker_epoch`](Self::worker_epoch) to
/// [`AttachBridgeSessionOptions::epoch`](super::AttachBridgeSessionOptions::epoch).
///
/// `Debug` does not show the JWT.
#[derive(Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct RemoteCredentials {
    /// The worker's JWT (`attach_bridge_session`'s `ingress_token`).
    pub worker_jwt: String,
    /// Where the session's worker endpoints live.
    pub api_base_url: String,
    /// Seconds until the JWT expires.
    pub expires_in: f64,
    /// The worker epoch this call registered.
    pub worker_epoch: i64,
    /// An MCP configuration the service attached to the session, when it did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mcp_config: Option<RemoteMcpConfig>,
}

impl std::fmt::Debug for RemoteCredentials {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RemoteCredentials")
            .field("worker_jwt", &"<redacted>")
            .field("api_base_url", &self.api_base_url)
            .field("expires_in", &self.expires_in)
            .field("worker_epoch", &self.worker_epoch)
            .field("mcp_config", &self.mcp_config.is_some())
            .finish()
    }
}

/// The MCP configuration of [`RemoteCredentials::mcp_config`]: its text, as the service sent it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct RemoteMcpConfig {
    /// The configuration's JSON text.
    pub content: String,
}

wire_enum! {
    /// Why [`fetch_remote_credentials`](super::fetch_remote_credentials) failed for good.
    pub enum CredentialsFailureReason {
        /// 403 `untrusted_device`: the trusted-device token is missing or revoked: enroll.
        UntrustedDevice = "untrusted_device",
        /// 403 `session_stale_relogin`: the OAuth session is older than the freshness window:
        /// sign in again.
        SessionStaleRelogin = "session_stale_relogin",
        /// 403 `session_security_tier_below_org_policy`: the session is older than the device
        /// policy it now falls under: create a new one.
        SessionSecurityTierBelowOrgPolicy = "session_security_tier_below_org_policy",
        /// Minted here: the session id is not `^[a-zA-Z0-9_-]+$`; nothing was sent.
        InvalidSessionId = "invalid_session_id",
        /// Any other authoritative 4xx other than 401, 408 and 429.
        RequestRejected = "request_rejected",
        /// A 2xx this client could not read. The mint succeeded server-side (the epoch was
        /// bumped): retrying bumps it again.
        MalformedResponse = "malformed_response",
    }
}

/// Who wrote a 403, from its headers (attribution for telemetry; not a verdict on ownership).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum RejectionSource {
    /// The origin: the answer has a `request-id: req_…`.
    Origin,
    /// A Cloudflare edge before the origin (`cf-ray`, or a `server: cloudflare`).
    NonoriginCf,
    /// A hop that never reached the service.
    NonoriginOther,
}

/// A terminal failure of [`fetch_remote_credentials`](super::fetch_remote_credentials):
/// retrying with the same inputs is bound to fail. TypeScript's `CredentialsFailure`; its
/// `isCredentialsFailure` is `matches!(outcome, CredentialsOutcome::Failure(_))` or
/// [`CredentialsOutcome::is_credentials_failure`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct CredentialsFailure {
    /// Why.
    pub reason: CredentialsFailureReason,
    /// The HTTP status, for `session_security_tier_below_org_policy`, `request_rejected` and
    /// `malformed_response`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<u16>,
    /// `request_rejected` only: this is not a Remote Control session, so reattaching cannot
    /// work.
    #[serde(
        default,
        rename = "sessionNotBridge",
        skip_serializing_if = "std::ops::Not::not"
    )]
    pub session_not_bridge: bool,
    /// `request_rejected` on a 403 only: who wrote the rejection.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<RejectionSource>,
}

impl CredentialsFailure {
    pub(crate) fn new(reason: CredentialsFailureReason) -> CredentialsFailure {
        CredentialsFailure {
            reason,
            status: None,
            session_not_bridge: false,
            source: None,
        }
    }

    pub(crate) fn with_status(mut self, status: u16) -> CredentialsFailure {
        self.status = Some(status);
        self
    }
}

wire_enum! {
    /// Why [`create_code_session`](super::create_code_session) failed for good.
    pub enum CreateSessionFailureReason {
        /// The service refused the `session_grouping_id`: the caller may retry without it.
        GroupingRejected = "grouping_rejected",
        /// Any other authoritative 4xx other than 401, 408 and 429.
        RequestRejected = "request_rejected",
        /// A 2xx with no usable `session.id` (`cse_…`). The session WAS created: a retry
        /// would leave one orphan session per attempt.
        MalformedResponse = "malformed_response",
    }
}

/// A terminal failure of [`create_code_session`](super::create_code_session). TypeScript's
/// `CreateSessionFailure`; its `isCreateSessionFailure` is
/// [`CreateSessionOutcome::is_create_session_failure`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct CreateSessionFailure {
    /// Why.
    pub reason: CreateSessionFailureReason,
    /// The HTTP status.
    pub status: u16,
    /// The service's own message, unchanged and still untrusted, or `None`. It is passed on
    /// only if it is one line of at most 1,024 UTF-16 units, with no control or invisible
    /// characters and no whitespace other than single ASCII spaces.
    pub detail: Option<String>,
}

wire_enum! {
    /// Why a [`CredentialsRejection`] happened.
    pub enum RejectionReason {
        /// 401: the OAuth bearer itself was rejected.
        OauthRejected = "oauth_rejected",
    }
}

/// The OAuth bearer was rejected (401): retrying with the same credential is pointless, a new
/// one (after signing in again) can succeed. Not terminal, unlike the failures. TypeScript's
/// `CredentialsRejection` (`terminal: false`); its `isCredentialsRejection` is
/// `is_credentials_rejection()` on either outcome.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct CredentialsRejection {
    /// Why.
    pub reason: RejectionReason,
}

impl CredentialsRejection {
    pub(crate) fn oauth() -> CredentialsRejection {
        CredentialsRejection {
            reason: RejectionReason::OauthRejected,
        }
    }
}

/// What [`fetch_remote_credentials`](super::fetch_remote_credentials) answers.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum CredentialsOutcome {
    /// The worker's credentials.
    Credentials(RemoteCredentials),
    /// A terminal failure: do not retry.
    Failure(CredentialsFailure),
    /// The OAuth bearer was rejected: retry only with a new one.
    Rejected(CredentialsRejection),
    /// A transient failure (network error, timeout, 408, 429, 5xx): retrying may succeed.
    Transient,
}

impl CredentialsOutcome {
    /// TypeScript's `isCredentialsFailure`.
    pub fn is_credentials_failure(&self) -> bool {
        matches!(self, CredentialsOutcome::Failure(_))
    }

    /// TypeScript's `isCredentialsRejection`.
    pub fn is_credentials_rejection(&self) -> bool {
        matches!(self, CredentialsOutcome::Rejected(_))
    }
}

/// What [`create_code_session`](super::create_code_session) answers.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum CreateSessionOutcome {
    /// The new session's id (`cse_…`).
    Created(String),
    /// A terminal failure: do not retry with the same inputs.
    Failure(CreateSessionFailure),
    /// The OAuth bearer was rejected: retry only with a new one.
    Rejected(CredentialsRejection),
    /// A transient failure (network error, timeout, 408, 429, 5xx): retrying may succeed.
    Transient,
}

impl CreateSessionOutcome {
    /// TypeScript's `isCreateSessionFailure`: a terminal failure only (a
    /// [`CredentialsRejection`] is not one).
    pub fn is_create_session_failure(&self) -> bool {
        matches!(self, CreateSessionOutcome::Failure(_))
    }

    /// TypeScript's `isCredentialsRejection`.
    pub fn is_credentials_rejection(&self) -> bool {
        matches!(self, CreateSessionOutcome::Rejected(_))
    }
}

/// How an HTTP status that is not a success is classified.
pub(crate) enum StatusClass {
    OauthRejected,
    Transient,
    Rejected,
}

pub(crate) fn classify(status: u16) -> StatusClass {
    match status {
        401 => StatusClass::OauthRejected,
        408 | 429 | 500.. => StatusClass::Transient,
        _ => StatusClass::Rejected,
    }
}
