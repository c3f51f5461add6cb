//! The `system` notices about the CLI's own state and progress: `status`, `thinking_tokens`,
//! `control_request_progress`, `plugin_install`, `local_command_output`,
//! `session_writes_lost` and `worker_shutting_down`; and the `active_goal` message.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::wire::{WireForm, typed};
use crate::wire_enum::wire_enum;

wire_enum! {
    /// What the CLI is busy with, in [`StatusUpdate::status`].
    pub enum CliStatus {
        /// Compacting the conversation.
        Compacting = "compacting",
        /// Waiting on the API.
        Requesting = "requesting",
    }
}

wire_enum! {
    /// How a compaction ended, in [`StatusUpdate::compact_result`].
    pub enum CompactResult {
        /// It succeeded.
        Success = "success",
        /// It failed ([`StatusUpdate::compact_error`] says why).
        Failed = "failed",
    }
}

/// `system/status`: the CLI's status changed (or its permission mode did, or a compaction
/// ended).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct StatusUpdate {
    /// What it is busy with now (`None`: nothing, the status was cleared).
    #[serde(default)]
    pub status: Option<CliStatus>,
    /// The permission mode, by its wire name, when it changed; typed by
    /// [`permission_mode`](StatusUpdate::permission_mode) (method).
    #[serde(
        default,
        rename = "permissionMode",
        skip_serializing_if = "Option::is_none"
    )]
    pub permission_mode: Option<String>,
    /// How the compaction that just ended went.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub compact_result: Option<CompactResult>,
    /// Why it failed, when it did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub compact_error: Option<String>,
    /// Every other field.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl StatusUpdate {
    /// The permission mode, typed, when the notice carries one (see
    /// [`PermissionMode::from_wire`](crate::options::PermissionMode::from_wire)).
    pub fn permission_mode(&self) -> Option<crate::options::PermissionMode> {
        self.permission_mode
            .as_deref()
            .and_then(crate::options::PermissionMode::from_wire)
    }
}

/// `system/thinking_tokens`: how many tokens the model has spent thinking so far in this turn
/// (an estimate, while it thinks).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ThinkingTokens {
    /// The estimate so far.
    pub estimated_tokens: u64,
    /// The change since the last notice.
    pub estimated_tokens_delta: i64,
    /// The uuid of the user message the turn answers
    /// ([`UserInput::with_uuid`](super::UserInput::with_uuid)), when the CLI knows it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub user_message_uuid: Option<String>,
    /// Every other field.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

wire_enum! {
    /// What a [`ControlRequestProgress`] reports.
    pub enum ControlProgressStatus {
        /// The request started.
        Started = "started",
        /// Its API call is retried ([`ControlRequestProgress::attempt`]…).
        ApiRetry = "api_retry",
    }
}

/// `system/control_request_progress`: a control request the host sent, still running (one that
/// calls the API, such as generating a title).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ControlRequestProgress {
    /// The `request_id` of the control request.
    pub request_id: String,
    /// What happened.
    pub status: ControlProgressStatus,
    /// Which retry this is (from 1), on a retry.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub attempt: Option<u32>,
    /// How many retries are allowed, on a retry.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_retries: Option<u32>,
    /// How long the CLI waits before it, in milliseconds, on a retry.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retry_delay_ms: Option<u64>,
    /// The HTTP status of the failed call (`None` for a connection error, or no retry).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error_status: Option<u16>,
    /// Every other field.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

wire_enum! {
    /// The stage of a [`PluginInstall`].
    pub enum PluginInstallStatus {
        /// Installing started.
        Started = "started",
        /// One plugin ([`PluginInstall::name`]) was installed.
        Installed = "installed",
        /// One failed ([`PluginInstall::error`] says why).
        Failed = "failed",
        /// Every install is done.
        Completed = "completed",
    }
}

/// `system/plugin_install`: the CLI installs the plugins the settings ask for.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct PluginInstall {
    /// The stage.
    pub status: PluginInstallStatus,
    /// The plugin, for one plugin's stage.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Why it failed, when it did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Every other field.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `system/local_command_output`: the output of a slash command the CLI ran itself (no model
/// turn), such as `/cost`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct LocalCommandOutput {
    /// The output.
    pub content: String,
    /// Every other field.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

wire_enum! {
    /// Why writes were lost, in [`SessionWritesLost::error_code`].
    pub enum WriteErrorCode {
        /// The disk was full (`ENOSPC`).
        DiskFull = "ENOSPC",
        /// The disk quota was used up (`EDQUOT`).
        QuotaExceeded = "EDQUOT",
    }
}

wire_enum! {
    /// What was not saved, in [`SessionWritesLost::lost`].
    pub enum LostWrite {
        /// Lines of a session transcript: resuming a session of
        /// [`transcript_session_ids`](SessionWritesLost::transcript_session_ids) may miss part of
        /// its conversation.
        Transcript = "transcript",
        /// Changes this run made to `~/.claude.json`.
        GlobalConfig = "global_config",
    }
}

/// `system/session_writes_lost`: the CLI could not save what it writes to disk. A host that
/// resumes sessions should say so: the transcript is incomplete.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct SessionWritesLost {
    /// Why.
    pub error_code: WriteErrorCode,
    /// What was lost (never empty).
    pub lost: Vec<LostWrite>,
    /// The sessions whose transcripts lost lines, in the order each first lost one (with
    /// [`LostWrite::Transcript`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub transcript_session_ids: Vec<String>,
    /// Every other field.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl SessionWritesLost {
    /// Whether transcript lines were lost (so resuming may miss part of a conversation).
    pub fn lost_transcript(&self) -> bool {
        self.lost.contains(&LostWrite::Transcript)
    }
}

/// `system/worker_shutting_down`: a remote worker running the session is going away (sent
/// only on a graceful teardown that gave a reason; its absence says nothing).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct WorkerShuttingDown {
    /// Why, in the CLI's `snake_case` words (`host_exit`, `remote_control_disabled`…).
    pub reason: String,
    /// Every other field.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The goal of `/goal`, in [`ActiveGoal::value`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Goal {
    /// The condition that meets it.
    pub condition: String,
    /// How many times it was checked and found not met.
    pub iterations: u64,
    /// When it was set (a timestamp in milliseconds, as the CLI wrote it).
    pub set_at: u64,
    /// The session's token count when it was set.
    pub tokens_at_start: u64,
    /// Why it was last found not met.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_reason: Option<String>,
    /// Every other field.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `active_goal`: the `/goal` condition was checked: still not met (`value` with its
/// iterations bumped), or met (`value` is `None`, the goal is cleared).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ActiveGoal {
    /// The goal, or `None` once it is met and cleared.
    #[serde(default)]
    pub value: Option<Goal>,
    /// The session id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_id: Option<String>,
    /// The message uuid.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uuid: Option<String>,
    /// Every other field.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
    #[serde(skip)]
    wire: WireForm,
}

typed!(ActiveGoal { extra });
