//! Shell tools: `Bash`, `Monitor` and `TaskStop` (which stops a background command).

use serde::{Deserialize, Serialize};
use serde_json::{Map, Number, Value};

/// `Bash`'s input: a shell command.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct BashInput {
    /// The command to run.
    pub command: String,
    /// A time limit in milliseconds (at most 600,000 in the foreground; in the background, how
    /// long it may run before it is stopped).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout: Option<u64>,
    /// What the command does, in a few words, for the user.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Run it in the background.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run_in_background: Option<bool>,
    /// Run it outside the sandbox.
    #[serde(
        rename = "dangerouslyDisableSandbox",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub dangerously_disable_sandbox: Option<bool>,
    /// Fields this library does not know, kept as they came.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `Bash`'s answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct BashOutput {
    /// The command's standard output.
    pub stdout: String,
    /// Its standard error.
    pub stderr: String,
    /// Whether it was interrupted.
    pub interrupted: bool,
    /// The raw output file of a large output.
    #[serde(
        rename = "rawOutputPath",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub raw_output_path: Option<String>,
    /// Whether `stdout` holds image data.
    #[serde(rename = "isImage", default, skip_serializing_if = "Option::is_none")]
    pub is_image: Option<bool>,
    /// The background task running the command, when it runs in the background.
    #[serde(
        rename = "backgroundTaskId",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub background_task_id: Option<String>,
    /// Whether the user sent it to the background (Ctrl+B).
    #[serde(
        rename = "backgroundedByUser",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub backgrounded_by_user: Option<bool>,
    /// The time limit, in milliseconds, after which it was sent to the background.
    #[serde(
        rename = "timedOutAfterMs",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub timed_out_after_ms: Option<Number>,
    /// A note for the model: a backgrounded `cd` did not change the session's directory.
    #[serde(
        rename = "backgroundCwdHint",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub background_cwd_hint: Option<String>,
    /// The backgrounded command ends with its caller's final answer.
    #[serde(
        rename = "backgroundEndsWithFinalResponse",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub background_ends_with_final_response: Option<bool>,
    /// The subagent owning the backgrounded command waits for its end.
    #[serde(
        rename = "backgroundWakesOwner",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub background_wakes_owner: Option<bool>,
    /// Whether the sandbox was overridden.
    #[serde(
        rename = "dangerouslyDisableSandbox",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub dangerously_disable_sandbox: Option<bool>,
    /// What a non-zero exit code with a special meaning means.
    #[serde(
        rename = "returnCodeInterpretation",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub return_code_interpretation: Option<String>,
    /// Whether the command is expected to print nothing on success.
    #[serde(
        rename = "noOutputExpected",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub no_output_expected: Option<bool>,
    /// Structured content blocks.
    #[serde(
        rename = "structuredContent",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub structured_content: Option<Vec<Value>>,
    /// Where the full output was saved, when it was too large to give inline.
    #[serde(
        rename = "persistedOutputPath",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub persisted_output_path: Option<String>,
    /// The size in bytes of that output.
    #[serde(
        rename = "persistedOutputSize",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub persisted_output_size: Option<u64>,
    /// A note for the model listing files the command changed after they were read.
    #[serde(
        rename = "staleReadFileStateHint",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub stale_read_file_state_hint: Option<String>,
    /// A note for the model about a GitHub rate limit.
    #[serde(
        rename = "ghRateLimitHint",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub gh_rate_limit_hint: Option<String>,
    /// The git or GitHub operations the command did (commit, push, merge, pull request).
    #[serde(
        rename = "gitOperation",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub git_operation: Option<GitOperation>,
    /// Fields this library does not know, kept as they came.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The git and GitHub operations a [`BashOutput`]'s command did.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct GitOperation {
    /// A commit.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub commit: Option<GitCommit>,
    /// A push.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub push: Option<GitPush>,
    /// A merge or rebase.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub branch: Option<GitBranchOperation>,
    /// A pull request action.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pr: Option<GitPullRequest>,
    /// Fields this library does not know, kept as they came.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// A commit of a [`GitOperation`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct GitCommit {
    /// The commit.
    pub sha: String,
    /// `committed`, `amended` or `cherry-picked`.
    pub kind: String,
    /// The branch.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub branch: Option<String>,
    /// Fields this library does not know, kept as they came.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// A push of a [`GitOperation`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct GitPush {
    /// The branch pushed.
    pub branch: String,
    /// Fields this library does not know, kept as they came.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// A merge or rebase of a [`GitOperation`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct GitBranchOperation {
    /// The ref.
    #[serde(rename = "ref")]
    pub reference: String,
    /// `merged` or `rebased`.
    pub action: String,
    /// Fields this library does not know, kept as they came.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// A pull request action of a [`GitOperation`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct GitPullRequest {
    /// The pull request's number.
    pub number: u64,
    /// Its URL.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// `created`, `edited`, `merged`, `commented`, `closed`, `reopened`, `ready`, `draft`,
    /// `auto-merge-enabled` or `auto-merge-disabled`.
    pub action: String,
    /// Fields this library does not know, kept as they came.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `TaskStop`'s input (formerly `KillShell`): the background task to stop.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct TaskStopInput {
    /// The task (a background command, a teammate or a named background agent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task_id: Option<String>,
    /// The task, by its deprecated name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shell_id: Option<String>,
    /// Fields this library does not know, kept as they came.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `TaskStop`'s answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct TaskStopOutput {
    /// What happened.
    pub message: String,
    /// The task stopped.
    pub task_id: String,
    /// Its type.
    pub task_type: String,
    /// Its command or description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub command: Option<String>,
    /// Fields this library does not know, kept as they came.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `Monitor`'s input: watch a command's output lines, or a WebSocket's frames, in the
/// background.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct MonitorInput {
    /// What is watched, for notifications.
    pub description: String,
    /// When to stop watching, in milliseconds (capped at 1,800,000).
    pub timeout_ms: u64,
    /// The command whose output lines are the events.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub command: Option<String>,
    /// The WebSocket whose text frames are the events.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ws: Option<MonitorSocket>,
    /// Fields this library does not know, kept as they came.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The WebSocket of a [`MonitorInput`].
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct MonitorSocket {
    /// Its URL.
    pub url: String,
    /// The subprotocols to offer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub protocols: Option<Vec<String>>,
    /// Fields this library does not know, kept as they came.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `Monitor`'s answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct MonitorOutput {
    /// The background task watching.
    #[serde(rename = "taskId")]
    pub task_id: String,
    /// Its deadline in milliseconds (0 when it has none).
    #[serde(rename = "timeoutMs")]
    pub timeout_ms: Number,
    /// It runs until stopped or the session ends.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub persistent: Option<bool>,
    /// The command runs in the sandbox only because its permission check relied on it.
    #[serde(
        rename = "keptInSandboxByCheck",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub kept_in_sandbox_by_check: Option<bool>,
    /// Fields this library does not know, kept as they came.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}
