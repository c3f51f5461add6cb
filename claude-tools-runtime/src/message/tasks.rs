//! The `system` notices about background work: `task_started`, `task_progress`,
//! `task_updated`, `task_notification` (the edges of one task's run) and
//! `background_tasks_changed` (the whole set, after each change).

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::wire_enum::wire_enum;

/// `system/task_started`: a task (a subagent, a background shell, a monitor, a workflow)
/// began.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct TaskStarted {
    /// The task's id (the same on every `task_*` notice of it).
    pub task_id: String,
    /// The id of this run of the task (a resumed task keeps its `task_id` and gets a new one).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run_id: Option<String>,
    /// The tool call that launched it, if one did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_use_id: Option<String>,
    /// What it does.
    pub description: String,
    /// The agent type of a subagent task (`general-purpose`, a custom agent's name).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subagent_type: Option<String>,
    /// Whether it runs in the background.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub is_backgrounded: Option<bool>,
    /// How deep in the tree of agents it was launched.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spawn_depth: Option<u32>,
    /// The task whose agent launched this one, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent_task_id: Option<String>,
    /// The kind of task (`local_bash`, `local_agent`…).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task_type: Option<String>,
    /// The workflow's name, for a workflow task.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub workflow_name: Option<String>,
    /// The prompt a subagent was given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt: Option<String>,
    /// Every other field (`skip_transcript`, `ambient`…).
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// Tokens, tool uses and time a task has used so far.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct TaskUsage {
    /// Tokens used.
    #[serde(default)]
    pub total_tokens: u64,
    /// Tool calls made.
    #[serde(default)]
    pub tool_uses: u64,
    /// Time spent, in milliseconds.
    #[serde(default)]
    pub duration_ms: u64,
    /// Every other field.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `system/task_progress`: a running task's progress (with `agentProgressSummaries`, a
/// summary of what it does).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct TaskProgress {
    /// The task's id.
    pub task_id: String,
    /// The id of this run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run_id: Option<String>,
    /// The tool call that launched it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_use_id: Option<String>,
    /// What it does.
    pub description: String,
    /// The agent type of a subagent task.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subagent_type: Option<String>,
    /// What it has used so far.
    pub usage: TaskUsage,
    /// The tool it called last.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_tool_name: Option<String>,
    /// A summary of its progress.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub summary: Option<String>,
    /// Every other field.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

wire_enum! {
    /// The status of a task, in [`TaskPatch::status`].
    pub enum TaskStatus {
        /// Not started yet.
        Pending = "pending",
        /// Running.
        Running = "running",
        /// Finished.
        Completed = "completed",
        /// Failed.
        Failed = "failed",
        /// Stopped (`stop_task`, or the session ending).
        Killed = "killed",
        /// Paused.
        Paused = "paused",
    }
}

/// The fields of a task that changed, in [`TaskUpdated`].
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct TaskPatch {
    /// Its new status.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<TaskStatus>,
    /// Its new description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// When it ended (milliseconds since the Unix epoch).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub end_time: Option<f64>,
    /// How long it was paused, in milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total_paused_ms: Option<f64>,
    /// Why it failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Whether it now runs in the background.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub is_backgrounded: Option<bool>,
    /// Every other field.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `system/task_updated`: some fields of a task changed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct TaskUpdated {
    /// The task's id.
    pub task_id: String,
    /// The id of this run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run_id: Option<String>,
    /// What changed.
    pub patch: TaskPatch,
    /// Every other field.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl TaskStatus {
    /// Whether the task has ended (`completed`, `failed` or `killed`): a host tracking running
    /// tasks drops it then (the Python SDK's `TERMINAL_TASK_STATUSES`; a [`TaskEndStatus`] is
    /// always terminal). A status this library does not know is not taken for an end.
    ///
    /// ```
    /// use claude_tools::message::TaskStatus;
    ///
    /// assert!(TaskStatus::Killed.is_terminal());
    /// assert!(!TaskStatus::Paused.is_terminal());
    /// ```
    pub fn is_terminal(&self) -> bool {
        matches!(self, Self::Completed | Self::Failed | Self::Killed)
    }
}

wire_enum! {
    /// How a task ended, in [`TaskNotification::status`].
    pub enum TaskEndStatus {
        /// It finished.
        Completed = "completed",
        /// It failed.
        Failed = "failed",
        /// It was stopped.
        Stopped = "stopped",
    }
}

/// `system/task_notification`: a task ended.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct TaskNotification {
    /// The task's id.
    pub task_id: String,
    /// The id of this run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run_id: Option<String>,
    /// The tool call that launched it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_use_id: Option<String>,
    /// How it ended.
    pub status: TaskEndStatus,
    /// The file its output was written to.
    #[serde(default)]
    pub output_file: String,
    /// A summary of its outcome.
    #[serde(default)]
    pub summary: String,
    /// What it used.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage: Option<TaskUsage>,
    /// Every other field (`reason`, `resource_links`, `skip_transcript`, `ambient`…).
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// One live background task, in [`BackgroundTasksChanged::tasks`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct BackgroundTask {
    /// The task's id.
    pub task_id: String,
    /// The id of its current run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run_id: Option<String>,
    /// The kind of task (`local_bash`, `local_agent`…).
    pub task_type: String,
    /// The agent type, for a subagent task.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subagent_type: Option<String>,
    /// What it does.
    #[serde(default)]
    pub description: String,
    /// The subagent task that launched it, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent_task_id: Option<String>,
    /// `true` for tasks that are not activity (watchers…): leave them out of a busy
    /// indicator.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ambient: Option<bool>,
    /// Every other field.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `system/background_tasks_changed`: every live background task after a change. Replace
/// your set with it (do not pair it with the `task_*` edges).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct BackgroundTasksChanged {
    /// The live background tasks.
    pub tasks: Vec<BackgroundTask>,
    /// Every other field.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

#[cfg(test)]
mod tests {
    use super::TaskStatus;

    #[test]
    fn only_the_statuses_of_an_ended_task_are_terminal() {
        let terminal: Vec<&str> = [
            "pending",
            "running",
            "completed",
            "failed",
            "killed",
            "paused",
            "later",
        ]
        .into_iter()
        .filter(|wire| TaskStatus::from_wire(wire).is_terminal())
        .collect();
        assert_eq!(terminal, ["completed", "failed", "killed"]);
    }
}
