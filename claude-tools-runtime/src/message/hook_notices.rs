//! The `system` notices about hooks that ran (`hook_started`, `hook_progress`,
//! `hook_response`): streamed with `includeHookEvents`, for every hook (command hooks of the
//! settings and the host's callbacks alike).

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::wire_enum::wire_enum;

/// `system/hook_started`: a hook began.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct HookStarted {
    /// The id of this run of the hook (the same on its progress and response).
    pub hook_id: String,
    /// The hook's name (`SessionStart:startup`, `PreToolUse:Bash`…).
    pub hook_name: String,
    /// The event (`SessionStart`, `PreToolUse`…).
    pub hook_event: String,
    /// Every other field.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `system/hook_progress`: a running hook's output so far.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct HookProgress {
    /// The id of this run of the hook.
    pub hook_id: String,
    /// The hook's name.
    pub hook_name: String,
    /// The event.
    pub hook_event: String,
    /// Its standard output so far.
    #[serde(default)]
    pub stdout: String,
    /// Its standard error so far.
    #[serde(default)]
    pub stderr: String,
    /// Both, interleaved.
    #[serde(default)]
    pub output: String,
    /// Every other field.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

wire_enum! {
    /// How a hook ended, in [`HookResponse::outcome`].
    pub enum HookOutcome {
        /// It ran to its end (whatever it decided).
        Success = "success",
        /// It failed (a non-zero exit, an error answer, output that fails validation).
        Error = "error",
        /// It was cancelled.
        Cancelled = "cancelled",
    }
}

/// `system/hook_response`: a hook ended.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct HookResponse {
    /// The id of this run of the hook.
    pub hook_id: String,
    /// The hook's name.
    pub hook_name: String,
    /// The event.
    pub hook_event: String,
    /// Its output (stdout and stderr interleaved).
    #[serde(default)]
    pub output: String,
    /// Its standard output.
    #[serde(default)]
    pub stdout: String,
    /// Its standard error.
    #[serde(default)]
    pub stderr: String,
    /// A command hook's exit code.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exit_code: Option<i32>,
    /// How it ended.
    pub outcome: HookOutcome,
    /// Every other field.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}
