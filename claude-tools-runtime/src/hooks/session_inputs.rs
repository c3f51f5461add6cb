//! The typed inputs of the events of a session's life and turns: `SessionStart`,
//! `SessionEnd`, `Setup`, `UserPromptSubmit`, `UserPromptExpansion`, `Stop`, `StopFailure`,
//! `SubagentStart`, `SubagentStop`, `PreCompact`, `PostCompact`, `PreModelSwitch`,
//! `PostModelSwitch`, `Notification` and `MessageDisplay`.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::typed_input::HookBase;
use crate::message::{ApiErrorKind, Trigger};
use crate::wire_enum::wire_enum;

wire_enum! {
    /// Why a session started, in [`SessionStartInput::source`].
    pub enum SessionStartSource {
        /// A new session.
        Startup = "startup",
        /// A resumed session.
        Resume = "resume",
        /// After `/clear`.
        Clear = "clear",
        /// After a compaction.
        Compact = "compact",
        /// A forked session.
        Fork = "fork",
    }
}

/// `SessionStart`: a session starts (its `additionalContext` reaches the model).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct SessionStartInput {
    /// The fields every event has.
    #[serde(flatten)]
    pub base: HookBase,
    /// Why it started.
    pub source: SessionStartSource,
    /// The model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// The session's title.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_title: Option<String>,
    /// On resume or fork: seconds since the transcript's last answer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seconds_since_last_response: Option<f64>,
    /// On resume or fork: the tokens the first request re-sends.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context_tokens: Option<u64>,
    /// On resume or fork: whether the prompt cache has likely expired.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt_cache_likely_expired: Option<bool>,
    /// On resume or fork: what re-caching the context would cost, in US dollars.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub estimated_cache_write_usd: Option<f64>,
}

wire_enum! {
    /// Why a session ended, in [`SessionEndInput::reason`].
    pub enum ExitReason {
        /// `/clear`.
        Clear = "clear",
        /// Another session was resumed.
        Resume = "resume",
        /// The user logged out.
        Logout = "logout",
        /// The user left the prompt.
        PromptInputExit = "prompt_input_exit",
        /// Anything else (the end of a headless run…).
        Unknown = "other",
    }
}

/// `SessionEnd`: a session ends.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct SessionEndInput {
    /// The fields every event has.
    #[serde(flatten)]
    pub base: HookBase,
    /// Why.
    pub reason: ExitReason,
}

wire_enum! {
    /// What ran the setup, in [`SetupInput::trigger`].
    pub enum SetupTrigger {
        /// `--init`.
        Init = "init",
        /// `--maintenance`.
        Maintenance = "maintenance",
    }
}

/// `Setup`: the CLI runs its setup.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct SetupInput {
    /// The fields every event has.
    #[serde(flatten)]
    pub base: HookBase,
    /// What ran it.
    pub trigger: SetupTrigger,
}

wire_enum! {
    /// Who sent a prompt, in [`UserPromptSubmitInput::source`].
    pub enum PromptSource {
        /// The interactive composer.
        User = "user",
        /// A headless run (`-p`, an SDK).
        Sdk = "sdk",
        /// Another machine-injected turn.
        System = "system",
        /// A `/loop` wake-up.
        LoopWakeup = "loop_wakeup",
        /// A scheduled task.
        ScheduleWakeup = "schedule_wakeup",
        /// The poll-event channel.
        PollEvent = "poll_event",
    }
}

/// `UserPromptSubmit`: a prompt was submitted.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct UserPromptSubmitInput {
    /// The fields every event has.
    #[serde(flatten)]
    pub base: HookBase,
    /// The prompt.
    pub prompt: String,
    /// Who sent it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<PromptSource>,
    /// The session's title.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_title: Option<String>,
}

wire_enum! {
    /// What was expanded, in [`UserPromptExpansionInput::expansion_type`].
    pub enum ExpansionType {
        /// A slash command or skill.
        SlashCommand = "slash_command",
        /// An MCP prompt.
        McpPrompt = "mcp_prompt",
    }
}

/// `UserPromptExpansion`: a slash command, skill or MCP prompt was expanded into its text.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct UserPromptExpansionInput {
    /// The fields every event has.
    #[serde(flatten)]
    pub base: HookBase,
    /// What was expanded.
    pub expansion_type: ExpansionType,
    /// The command's name.
    pub command_name: String,
    /// Its arguments.
    #[serde(default)]
    pub command_args: String,
    /// Where it comes from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub command_source: Option<String>,
    /// The expanded text.
    pub prompt: String,
}

/// A background task still in flight, in [`StopInput::background_tasks`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct BackgroundTaskSummary {
    /// The task's id.
    pub id: String,
    /// Its kind (`shell`, `subagent`, `monitor`, `workflow`…).
    #[serde(rename = "type")]
    pub kind: String,
    /// Its status.
    pub status: String,
    /// What it does.
    #[serde(default)]
    pub description: String,
    /// Every other field (`command`, `agent_type`, `server`, `tool`, `name`).
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `Stop`: the agent is about to stop.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct StopInput {
    /// The fields every event has.
    #[serde(flatten)]
    pub base: HookBase,
    /// Whether a Stop hook already made it go on once (guard against loops).
    pub stop_hook_active: bool,
    /// The text of its last answer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_assistant_message: Option<String>,
    /// Background work still in flight.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub background_tasks: Vec<BackgroundTaskSummary>,
    /// Scheduled wake-ups of the session (as the CLI writes them).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub session_crons: Vec<Value>,
}

/// `StopFailure`: a turn ended on an API error instead of a normal stop.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct StopFailureInput {
    /// The fields every event has.
    #[serde(flatten)]
    pub base: HookBase,
    /// The error's class.
    pub error: ApiErrorKind,
    /// Its details.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error_details: Option<String>,
    /// The text of the last answer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_assistant_message: Option<String>,
}

/// `SubagentStart`: a subagent starts (its id and type are in
/// [`base`](HookBase::agent_id)).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct SubagentStartInput {
    /// The fields every event has, with the subagent's `agent_id` and `agent_type`.
    #[serde(flatten)]
    pub base: HookBase,
}

/// `SubagentStop`: a subagent is about to stop (its id and type are in
/// [`base`](HookBase::agent_id)).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct SubagentStopInput {
    /// The fields every event has, with the subagent's `agent_id` and `agent_type`.
    #[serde(flatten)]
    pub base: HookBase,
    /// Whether a SubagentStop hook already made it go on once.
    pub stop_hook_active: bool,
    /// The subagent's transcript.
    #[serde(default)]
    pub agent_transcript_path: String,
    /// The text of its last answer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_assistant_message: Option<String>,
    /// Background work still in flight.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub background_tasks: Vec<BackgroundTaskSummary>,
    /// Scheduled wake-ups of the session (as the CLI writes them).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub session_crons: Vec<Value>,
}

/// `PreCompact`: the conversation is about to be compacted.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct PreCompactInput {
    /// The fields every event has.
    #[serde(flatten)]
    pub base: HookBase,
    /// Who asked for it.
    pub trigger: Trigger,
    /// The instructions given to `/compact`.
    #[serde(default)]
    pub custom_instructions: Option<String>,
}

/// `PostCompact`: the conversation was compacted.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct PostCompactInput {
    /// The fields every event has.
    #[serde(flatten)]
    pub base: HookBase,
    /// Who asked for it.
    pub trigger: Trigger,
    /// The summary it made.
    pub compact_summary: String,
}

/// `PreModelSwitch` and `PostModelSwitch`: the session's model is (about to be) switched.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ModelSwitchInput {
    /// The fields every event has.
    #[serde(flatten)]
    pub base: HookBase,
    /// The model before.
    pub from_model: String,
    /// The model after.
    pub to_model: String,
    /// What was asked for (an alias, an id; `None` for the default).
    #[serde(default)]
    pub requested_model: Option<String>,
    /// What asked (`command`, `picker`, `sdk`, `auto`, `resume`).
    pub source: String,
    /// The tokens the next request re-sends.
    #[serde(default)]
    pub context_tokens: u64,
    /// Whether the prompt cache is likely still warm (a switch forfeits it).
    #[serde(default)]
    pub prompt_cache_warm: bool,
    /// The cache's time to live (`5m`, `1h`).
    #[serde(default)]
    pub cache_ttl: String,
    /// What re-caching the context on the new model costs, in US dollars.
    #[serde(default)]
    pub estimated_cache_write_usd: f64,
    /// How that was priced (`configured`, `catalog`, `default`).
    #[serde(default)]
    pub pricing: String,
}

/// `Notification`: the CLI shows a notification.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct NotificationInput {
    /// The fields every event has.
    #[serde(flatten)]
    pub base: HookBase,
    /// Its text.
    pub message: String,
    /// Its title.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Its kind (`permission_prompt`, `idle_prompt`…).
    #[serde(default)]
    pub notification_type: String,
}

/// `MessageDisplay`: newly completed lines of an assistant message, as it streams.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct MessageDisplayInput {
    /// The fields every event has.
    #[serde(flatten)]
    pub base: HookBase,
    /// The turn.
    pub turn_id: String,
    /// The message (the same on each of its flushes).
    pub message_id: String,
    /// Which flush this is, from 0.
    pub index: u64,
    /// Whether it is the message's last.
    #[serde(rename = "final")]
    pub is_final: bool,
    /// The new lines.
    pub delta: String,
}
