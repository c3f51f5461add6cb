//! The other `system` notices with a shape of their own: compaction, API retries, denied
//! permissions, model refusals, notifications, persisted files, command and memory changes,
//! MCP elicitations and session-store mirroring.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::control::SlashCommand;
use crate::wire_enum::wire_enum;

wire_enum! {
    /// What started a compaction (and a few other actions): the user or the CLI itself.
    pub enum Trigger {
        /// The user (`/compact`, a control request).
        Manual = "manual",
        /// The CLI, as the context filled up.
        Auto = "auto",
    }
}

/// The messages a partial compaction kept, in [`CompactMetadata`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct PreservedMessages {
    /// The message the kept ones hang from.
    pub anchor_uuid: String,
    /// The kept messages, in order.
    #[serde(default)]
    pub uuids: Vec<String>,
    /// Every other field.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// What a compaction did, in [`CompactBoundary::compact_metadata`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct CompactMetadata {
    /// Who asked for it.
    pub trigger: Trigger,
    /// Tokens in the context before.
    pub pre_tokens: u64,
    /// Tokens in the context after.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub post_tokens: Option<u64>,
    /// How long it took, in milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duration_ms: Option<u64>,
    /// The messages it kept, when it kept some.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub preserved_messages: Option<PreservedMessages>,
    /// Every other field (`preserved_segment`…).
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `system/compact_boundary`: the conversation was compacted here.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct CompactBoundary {
    /// What the compaction did.
    pub compact_metadata: CompactMetadata,
    /// Every other field.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

wire_enum! {
    /// The class of an API error (the TypeScript SDK's `SDKAssistantMessageError`).
    pub enum ApiErrorKind {
        /// The credentials were refused.
        AuthenticationFailed = "authentication_failed",
        /// The organization may not use this OAuth client.
        OauthOrgNotAllowed = "oauth_org_not_allowed",
        /// The account is on hold.
        AccountOnHold = "account_on_hold",
        /// The account needs verifying.
        VerificationRequired = "verification_required",
        /// A billing problem.
        BillingError = "billing_error",
        /// Rate limited (429).
        RateLimit = "rate_limit",
        /// The API is overloaded (529).
        Overloaded = "overloaded",
        /// The request was invalid (400).
        InvalidRequest = "invalid_request",
        /// The model does not exist.
        ModelNotFound = "model_not_found",
        /// A server error (5xx).
        ServerError = "server_error",
        /// Anything else.
        Unknown = "unknown",
        /// The answer hit its output token limit.
        MaxOutputTokens = "max_output_tokens",
        /// The cloud provider's credentials failed.
        CloudCredentialError = "cloud_credential_error",
    }
}

/// `system/api_retry`: an API request failed with a retryable error and is retried after a
/// delay.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ApiRetry {
    /// Which retry this is (from 1).
    pub attempt: u32,
    /// How many retries are allowed.
    pub max_retries: u32,
    /// How long the CLI waits before it, in milliseconds.
    pub retry_delay_ms: u64,
    /// The HTTP status (`None` for a connection error with no response).
    #[serde(default)]
    pub error_status: Option<u16>,
    /// The error's class.
    pub error: ApiErrorKind,
    /// Every other field (`no_response`…).
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `system/permission_denied`: a tool call was refused (by a rule, the mode, the host's
/// callback or a hook).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct PermissionDenied {
    /// The tool.
    pub tool_name: String,
    /// The refused call.
    pub tool_use_id: String,
    /// The subagent that made the call, if one did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent_id: Option<String>,
    /// What kind of reason refused it (`rule`, `mode`, `hook`…).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub decision_reason_type: Option<String>,
    /// The reason, when there is one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub decision_reason: Option<String>,
    /// What the model was told.
    pub message: String,
    /// Every other field.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

wire_enum! {
    /// What a refusal fallback does, in [`ModelRefusalFallback::direction`].
    pub enum RefusalDirection {
        /// The refused request is retried on the fallback model.
        Retry = "retry",
        /// The session goes back to the original model.
        Revert = "revert",
        /// The session stays on the fallback model.
        Sticky = "sticky",
    }
}

/// `system/model_refusal_fallback`: the model refused, and the CLI switched to the fallback
/// model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ModelRefusalFallback {
    /// What happens next.
    pub direction: RefusalDirection,
    /// The model that refused.
    pub original_model: String,
    /// The model used instead.
    pub fallback_model: String,
    /// The refused API request's id.
    #[serde(default)]
    pub request_id: Option<String>,
    /// The API's refusal category.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub api_refusal_category: Option<String>,
    /// The API's explanation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub api_refusal_explanation: Option<String>,
    /// The notice's text.
    pub content: String,
    /// Every other field (`trigger`, `scope`, `retracted_message_uuids`…).
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `system/model_refusal_no_fallback`: the model refused, and there is no fallback model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ModelRefusalNoFallback {
    /// The model that refused.
    pub original_model: String,
    /// The refused API request's id.
    #[serde(default)]
    pub request_id: Option<String>,
    /// The API's refusal category.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub api_refusal_category: Option<String>,
    /// The API's explanation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub api_refusal_explanation: Option<String>,
    /// The notice's text.
    pub content: String,
    /// Every other field (`refused_user_message_uuid`…).
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

wire_enum! {
    /// How urgent a [`Notification`] is.
    pub enum NotificationPriority {
        /// Low.
        Low = "low",
        /// Medium.
        Medium = "medium",
        /// High.
        High = "high",
        /// Show it now.
        Immediate = "immediate",
    }
}

/// `system/notification`: a notice the CLI would show in its interface.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Notification {
    /// What it is about (a later one with the same key replaces it).
    pub key: String,
    /// Its text.
    pub text: String,
    /// How urgent it is.
    pub priority: NotificationPriority,
    /// Every other field (`color`, `timeout_ms`…).
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

wire_enum! {
    /// The level of an [`Informational`] notice.
    pub enum InformationalLevel {
        /// Information.
        Info = "info",
        /// Worth noticing.
        Notice = "notice",
        /// A suggestion.
        Suggestion = "suggestion",
        /// A warning.
        Warning = "warning",
    }
}

/// `system/informational`: a line of information for the user.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Informational {
    /// The text.
    pub content: String,
    /// Its level.
    pub level: InformationalLevel,
    /// The tool call it is about, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_use_id: Option<String>,
    /// Every other field (`prevent_continuation`, `tag`…).
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// A file uploaded by the CLI, in [`FilesPersisted::files`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct PersistedFile {
    /// The file's name.
    pub filename: String,
    /// Its id in the Files API.
    pub file_id: String,
    /// Every other field.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// A file the CLI failed to upload, in [`FilesPersisted::failed`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct UnpersistedFile {
    /// The file's name.
    pub filename: String,
    /// Why it failed.
    pub error: String,
    /// Every other field.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `system/files_persisted`: files the session wrote were uploaded.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct FilesPersisted {
    /// The uploaded files.
    #[serde(default)]
    pub files: Vec<PersistedFile>,
    /// The files that failed.
    #[serde(default)]
    pub failed: Vec<UnpersistedFile>,
    /// When (an ISO 8601 time).
    pub processed_at: String,
    /// Every other field.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `system/commands_changed`: the full list of slash commands after a change. Replace your
/// list with it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct CommandsChanged {
    /// Every command the session offers now.
    pub commands: Vec<SlashCommand>,
    /// Every other field.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

wire_enum! {
    /// How memories were recalled, in [`MemoryRecall::mode`].
    pub enum MemoryRecallMode {
        /// Chosen among.
        Select = "select",
        /// Summarized together.
        Synthesize = "synthesize",
    }
}

wire_enum! {
    /// Whose memory a [`Memory`] is.
    pub enum MemoryScope {
        /// The user's own.
        Personal = "personal",
        /// The team's.
        Team = "team",
        /// The organization's.
        Organization = "organization",
    }
}

/// One recalled memory, in [`MemoryRecall::memories`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Memory {
    /// Its file.
    pub path: String,
    /// Whose it is.
    pub scope: MemoryScope,
    /// Its text, when sent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<String>,
    /// Every other field.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `system/memory_recall`: memories were recalled into the context.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct MemoryRecall {
    /// How.
    pub mode: MemoryRecallMode,
    /// Which.
    #[serde(default)]
    pub memories: Vec<Memory>,
    /// Every other field.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `system/elicitation_complete`: an MCP server says a URL elicitation was completed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ElicitationComplete {
    /// The server.
    pub mcp_server_name: String,
    /// The elicitation.
    pub elicitation_id: String,
    /// Every other field.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The transcript a [`MirrorError`] is about.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct MirrorKey {
    /// The store's project key.
    pub project_key: String,
    /// The session.
    pub session_id: String,
    /// A subagent transcript's sub-path (`None` for the main transcript).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subpath: Option<String>,
    /// Every other field.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `system/mirror_error`: a transcript could not be mirrored to the session store.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct MirrorError {
    /// What went wrong.
    pub error: String,
    /// The transcript.
    pub key: MirrorKey,
    /// Every other field.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}
