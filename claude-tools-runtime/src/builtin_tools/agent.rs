//! `Agent` (formerly `Task`): starting a subagent, and what it answers.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Number, Value};

use crate::wire_enum::wire_enum;

wire_enum! {
    /// A reasoning effort (`Agent.effort`, `ReportFindings.level`).
    pub enum EffortLevel {
        /// `low`.
        Low = "low",
        /// `medium`.
        Medium = "medium",
        /// `high`.
        High = "high",
        /// `xhigh`.
        XHigh = "xhigh",
        /// `max`.
        Max = "max",
    }
}

/// `Agent`'s input: a task for a subagent.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct AgentInput {
    /// A short (3–5 word) description of the task.
    pub description: String,
    /// The task.
    pub prompt: String,
    /// The kind of agent (an agent definition's name, or `fork`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subagent_type: Option<String>,
    /// A model for it: `sonnet`, `opus`, `haiku` or `fable`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// Its reasoning effort.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub effort: Option<EffortLevel>,
    /// Run it in the background (the default) or wait for it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run_in_background: Option<bool>,
    /// A name to address it by while it runs (`SendMessage`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Deprecated; ignored by the CLI.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub team_name: Option<String>,
    /// Deprecated; ignored by the CLI (a subagent inherits the permission mode).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<String>,
    /// `worktree` (a temporary git worktree) or `remote` (a cloud environment).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub isolation: Option<String>,
    /// Fields this library does not know, kept as they came.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `Agent`'s answer, by its `status`.
// Not boxed: one value is read per call, and matched.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "status")]
#[non_exhaustive]
pub enum AgentOutput {
    /// `completed`: the subagent ran in the foreground and finished.
    #[serde(rename = "completed")]
    Completed(AgentCompleted),
    /// `async_launched`: it runs in the background.
    #[serde(rename = "async_launched")]
    AsyncLaunched(AgentLaunched),
    /// `remote_launched`: it runs in a cloud session.
    #[serde(rename = "remote_launched")]
    RemoteLaunched(AgentRemoteLaunched),
}

/// An [`AgentOutput::Completed`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct AgentCompleted {
    /// The subagent.
    #[serde(rename = "agentId")]
    pub agent_id: String,
    /// Its kind.
    #[serde(rename = "agentType", default, skip_serializing_if = "Option::is_none")]
    pub agent_type: Option<String>,
    /// Its final answer: text blocks (`type`, `text`, `citations`).
    pub content: Vec<Value>,
    /// The model it ran on.
    #[serde(
        rename = "resolvedModel",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub resolved_model: Option<String>,
    /// The models it used, in order.
    #[serde(
        rename = "modelsUsed",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub models_used: Option<Vec<String>>,
    /// How many tool calls it made.
    #[serde(rename = "totalToolUseCount")]
    pub total_tool_use_count: u64,
    /// How long it ran, in milliseconds.
    #[serde(rename = "totalDurationMs")]
    pub total_duration_ms: Number,
    /// How many tokens it used.
    #[serde(rename = "totalTokens")]
    pub total_tokens: u64,
    /// Its token usage.
    pub usage: AgentUsage,
    /// The tools it used.
    #[serde(rename = "toolsUsed", default, skip_serializing_if = "Option::is_none")]
    pub tools_used: Option<Vec<String>>,
    /// Counts of what its tools did (`readCount`, `linesAdded`…).
    #[serde(rename = "toolStats", default, skip_serializing_if = "Option::is_none")]
    pub tool_stats: Option<Map<String, Value>>,
    /// The task it was given.
    pub prompt: String,
    /// The worktree it ran in, with `isolation: "worktree"`.
    #[serde(
        rename = "worktreePath",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub worktree_path: Option<String>,
    /// That worktree's branch.
    #[serde(
        rename = "worktreeBranch",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub worktree_branch: Option<String>,
    /// Fields this library does not know, kept as they came.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The token usage of an [`AgentCompleted`] (the Messages API's `usage`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct AgentUsage {
    /// Input tokens.
    pub input_tokens: u64,
    /// Output tokens.
    pub output_tokens: u64,
    /// Input tokens written to the cache (`null` when not reported).
    #[serde(default)]
    pub cache_creation_input_tokens: Option<u64>,
    /// Input tokens read from the cache.
    #[serde(default)]
    pub cache_read_input_tokens: Option<u64>,
    /// The service tier.
    #[serde(default)]
    pub service_tier: Option<String>,
    /// The other fields (`server_tool_use`, `cache_creation`, `speed`…), as they came.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// An [`AgentOutput::AsyncLaunched`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct AgentLaunched {
    /// The subagent.
    #[serde(rename = "agentId")]
    pub agent_id: String,
    /// Its task's description.
    pub description: String,
    /// The task it was given.
    pub prompt: String,
    /// The file its progress is written to.
    #[serde(rename = "outputFile")]
    pub output_file: String,
    /// Always `true` when present.
    #[serde(rename = "isAsync", default, skip_serializing_if = "Option::is_none")]
    pub is_async: Option<bool>,
    /// The model it runs on.
    #[serde(
        rename = "resolvedModel",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub resolved_model: Option<String>,
    /// The models it used before it went to the background.
    #[serde(
        rename = "modelsUsed",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub models_used: Option<Vec<String>>,
    /// Whether the caller can read the output file.
    #[serde(
        rename = "canReadOutputFile",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub can_read_output_file: Option<bool>,
    /// Fields this library does not know, kept as they came.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// An [`AgentOutput::RemoteLaunched`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct AgentRemoteLaunched {
    /// The remote task.
    #[serde(rename = "taskId")]
    pub task_id: String,
    /// The cloud session's URL.
    #[serde(rename = "sessionUrl")]
    pub session_url: String,
    /// The task's description.
    pub description: String,
    /// The task it was given.
    pub prompt: String,
    /// The file its progress is written to.
    #[serde(rename = "outputFile")]
    pub output_file: String,
    /// Fields this library does not know, kept as they came.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}
