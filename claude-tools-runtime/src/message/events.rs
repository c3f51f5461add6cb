//! The messages beside `system` that have a `type` of their own: `rate_limit_event`,
//! `tool_progress`, `auth_status`, `tool_use_summary`, `prompt_suggestion` and
//! `conversation_reset`.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::wire::{WireForm, typed};
use crate::wire_enum::wire_enum;

wire_enum! {
    /// Whether requests are allowed under a rate limit.
    pub enum RateLimitStatus {
        /// Allowed.
        Allowed = "allowed",
        /// Allowed, but close to the limit.
        AllowedWarning = "allowed_warning",
        /// Refused until the limit resets.
        Rejected = "rejected",
    }
}

wire_enum! {
    /// Which rate limit a [`RateLimitInfo`] is about.
    pub enum RateLimitType {
        /// The five-hour window.
        FiveHour = "five_hour",
        /// The seven-day window.
        SevenDay = "seven_day",
        /// The seven-day window of Opus models.
        SevenDayOpus = "seven_day_opus",
        /// The seven-day window of Sonnet models.
        SevenDaySonnet = "seven_day_sonnet",
        /// The seven-day window, overage included.
        SevenDayOverageIncluded = "seven_day_overage_included",
        /// Overage.
        Overage = "overage",
    }
}

/// The state of the account's rate limits, in [`RateLimitEvent`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct RateLimitInfo {
    /// Whether requests are allowed.
    pub status: RateLimitStatus,
    /// When the limit resets (seconds since the Unix epoch).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resets_at: Option<f64>,
    /// Which limit.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate_limit_type: Option<RateLimitType>,
    /// How much of it is used (0 to 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub utilization: Option<f64>,
    /// Whether overage is allowed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub overage_status: Option<RateLimitStatus>,
    /// Whether requests now use overage.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub is_using_overage: Option<bool>,
    /// Every other field (`overageResetsAt`, `overageDisabledReason`, `surpassedThreshold`…).
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `rate_limit_event`: the account's rate limits changed (from the API's rate-limit headers).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct RateLimitEvent {
    /// The limits.
    pub rate_limit_info: RateLimitInfo,
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

/// `tool_progress`: a tool has been running for a while (a heartbeat while it runs).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ToolProgress {
    /// The call.
    pub tool_use_id: String,
    /// The tool.
    pub tool_name: String,
    /// The subagent's `Task` call this runs under, when it runs in one.
    #[serde(default)]
    pub parent_tool_use_id: Option<String>,
    /// How long it has been running, in seconds.
    pub elapsed_time_seconds: f64,
    /// The background task it belongs to, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task_id: Option<String>,
    /// The session id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_id: Option<String>,
    /// The message uuid.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uuid: Option<String>,
    /// Every other field (`heartbeat`, `subagent_type`, `subagent_retry`…).
    #[serde(flatten)]
    pub extra: Map<String, Value>,
    #[serde(skip)]
    wire: WireForm,
}

/// `auth_status`: the state of a sign-in the CLI runs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct AuthStatus {
    /// Whether it is still running.
    #[serde(rename = "isAuthenticating")]
    pub is_authenticating: bool,
    /// Its output lines.
    #[serde(default)]
    pub output: Vec<String>,
    /// Why it failed, if it did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
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

/// `tool_use_summary`: a short summary of the tool calls before it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ToolUseSummary {
    /// The summary.
    pub summary: String,
    /// The calls it summarizes.
    #[serde(default)]
    pub preceding_tool_use_ids: Vec<String>,
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

/// `prompt_suggestion`: a prompt the user might send next (with `promptSuggestions`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct PromptSuggestion {
    /// The suggested prompt.
    pub suggestion: String,
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

wire_enum! {
    /// What started a new conversation, in [`ConversationReset::trigger`].
    pub enum ResetTrigger {
        /// `/clear`.
        Clear = "clear",
        /// Leaving plan mode with a fresh context.
        PlanModeExit = "plan_mode_exit",
        /// A fresh session.
        FreshSession = "fresh_session",
        /// Onboarding.
        Onboarding = "onboarding",
    }
}

/// `conversation_reset`: the conversation was replaced by a new one (`/clear`…).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ConversationReset {
    /// The new conversation's id.
    pub new_conversation_id: String,
    /// What started it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trigger: Option<ResetTrigger>,
    /// The session id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_id: Option<String>,
    /// The message uuid.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uuid: Option<String>,
    /// Every other field (`user_message_uuid`, `timestamp`…).
    #[serde(flatten)]
    pub extra: Map<String, Value>,
    #[serde(skip)]
    wire: WireForm,
}

typed!(
    RateLimitEvent { extra },
    ToolProgress { extra },
    AuthStatus { extra },
    ToolUseSummary { extra },
    PromptSuggestion { extra },
    ConversationReset { extra }
);
