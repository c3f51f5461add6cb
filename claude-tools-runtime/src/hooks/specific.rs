//! [`HookSpecificOutput`]: the typed `hookSpecificOutput` of each event that has one, for
//! [`HookOutput::specific`](super::HookOutput::specific).

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::env_inputs::ElicitationAction;
use crate::permission::PermissionUpdate;
use crate::wire_enum::wire_enum;

/// Chainable setters for the optional fields of an output struct.
macro_rules! setters {
    ($ty:ty { $($(#[$meta:meta])* $field:ident: $arg:ty),* $(,)? }) => {
        impl $ty {
            $(
                $(#[$meta])*
                pub fn $field(mut self, value: impl Into<$arg>) -> Self {
                    self.$field = Some(value.into());
                    self
                }
            )*
        }
    };
}

wire_enum! {
    /// A hook's decision about a tool call (`permissionDecision`).
    pub enum HookPermissionDecision {
        /// Run it without asking.
        Allow = "allow",
        /// Refuse it; the model reads the reason.
        Deny = "deny",
        /// Ask the user (or the permission callback).
        Ask = "ask",
        /// Pause the turn: the result ends with `terminal_reason: tool_deferred` and the call
        /// as `deferred_tool_use`, to be resumed later.
        Defer = "defer",
    }
}

/// `PreToolUse` (also `PreSkillShellCommand` and `PreModelSwitch`, which read the decision and
/// its reason only): the decision about the call.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct PreToolUseOutput {
    /// The decision.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub permission_decision: Option<HookPermissionDecision>,
    /// Why (the model reads it on a deny).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub permission_decision_reason: Option<String>,
    /// Run the tool with this input instead (`PreSkillShellCommand`: never applied, and any
    /// value keeps the command from running).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub updated_input: Option<Value>,
    /// Context for the model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub additional_context: Option<String>,
}

setters!(PreToolUseOutput {
    /// Sets the decision.
    permission_decision: HookPermissionDecision,
    /// Sets the reason.
    permission_decision_reason: String,
    /// Sets the input to run the tool with.
    updated_input: Value,
    /// Sets context for the model.
    additional_context: String,
});

/// `PostToolUse`: context for the model, and the tool's output replaced.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct PostToolUseOutput {
    /// Context for the model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub additional_context: Option<String>,
    /// Replaces the tool's output before the model sees it (any tool).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub updated_tool_output: Option<Value>,
    /// Replaces an MCP tool's output before the model sees it, in the shape of the input's
    /// [`tool_response`](super::PostToolUseInput::tool_response): its content blocks
    /// (`[{"type": "text", "text": "…"}]`; other JSON reaches the model as its text).
    #[serde(
        default,
        rename = "updatedMCPToolOutput",
        skip_serializing_if = "Option::is_none"
    )]
    pub updated_mcp_tool_output: Option<Value>,
    /// Context for the auto-mode permission classifier (genuine user statements only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub classifier_context: Option<String>,
}

setters!(PostToolUseOutput {
    /// Sets context for the model.
    additional_context: String,
    /// Sets the output the model sees instead of the tool's.
    updated_tool_output: Value,
    /// Sets the MCP tool output the model sees instead of the tool's.
    updated_mcp_tool_output: Value,
    /// Sets context for the permission classifier.
    classifier_context: String,
});

/// The events whose output is context for the model only: `PostToolUseFailure`,
/// `PostToolBatch`, `Notification`, `Setup`, `SubagentStart`, `Stop` and `SubagentStop`
/// (feedback the agent goes on with), `PostModelSwitch`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ContextOutput {
    /// Context for the model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub additional_context: Option<String>,
}

setters!(ContextOutput {
    /// Sets context for the model.
    additional_context: String,
});

/// `UserPromptSubmit` (and `UserPromptExpansion`, which has no `sessionTitle`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct UserPromptSubmitOutput {
    /// Context for the model, with the prompt.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub additional_context: Option<String>,
    /// A title for the session.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_title: Option<String>,
    /// On a block: leave the prompt out of the block message.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub suppress_original_prompt: Option<bool>,
}

setters!(UserPromptSubmitOutput {
    /// Sets context for the model.
    additional_context: String,
    /// Sets the session's title.
    session_title: String,
    /// Sets whether a block message leaves the prompt out.
    suppress_original_prompt: bool,
});

/// `SessionStart`: context and a first message for the session.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct SessionStartOutput {
    /// Context for the model, for the whole session.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub additional_context: Option<String>,
    /// A user message to start with.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub initial_user_message: Option<String>,
    /// A title for the session.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_title: Option<String>,
    /// Files to watch (`FileChanged` fires for them).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub watch_paths: Option<Vec<String>>,
    /// Re-scan skills and commands after the SessionStart hooks (for skills a hook installed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reload_skills: Option<bool>,
}

setters!(SessionStartOutput {
    /// Sets context for the model.
    additional_context: String,
    /// Sets a first user message.
    initial_user_message: String,
    /// Sets the session's title.
    session_title: String,
    /// Sets the files to watch.
    watch_paths: Vec<String>,
    /// Sets whether skills are re-scanned.
    reload_skills: bool,
});

/// A `PermissionRequest` hook's decision, in [`PermissionRequestOutput`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "behavior", rename_all = "camelCase")]
#[non_exhaustive]
pub enum PermissionRequestDecision {
    /// Allow the call.
    #[serde(rename_all = "camelCase")]
    Allow {
        /// Run the tool with this input instead.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        updated_input: Option<Value>,
        /// Rules for the CLI to remember.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        updated_permissions: Vec<PermissionUpdate>,
    },
    /// Refuse the call.
    Deny {
        /// Why, for the model.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        message: Option<String>,
        /// Also stop the turn.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        interrupt: bool,
    },
}

/// `PermissionRequest`: answer the permission request instead of the user.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct PermissionRequestOutput {
    /// The decision.
    pub decision: PermissionRequestDecision,
}

impl PermissionRequestOutput {
    /// Allow the call as the model asked for it.
    pub fn allow() -> Self {
        Self::allow_with(None, Vec::new())
    }

    /// Allow the call, with another input or rules to remember.
    pub fn allow_with(
        updated_input: Option<Value>,
        updated_permissions: Vec<PermissionUpdate>,
    ) -> Self {
        Self {
            decision: PermissionRequestDecision::Allow {
                updated_input,
                updated_permissions,
            },
        }
    }

    /// Refuse the call; `interrupt` also stops the turn.
    pub fn deny(message: impl Into<String>, interrupt: bool) -> Self {
        Self {
            decision: PermissionRequestDecision::Deny {
                message: Some(message.into()),
                interrupt,
            },
        }
    }
}

/// `PermissionDenied`: whether the model may retry the call.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct PermissionDeniedOutput {
    /// Tell the model it may retry.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retry: Option<bool>,
}

setters!(PermissionDeniedOutput {
    /// Sets whether the model may retry.
    retry: bool,
});

/// `Elicitation` (answer an MCP server's request instead of the user) and
/// `ElicitationResult` (change the user's answer), as a command hook writes them. The CLI
/// 2.1.332 does not read these fields from a host callback's answer, only a block
/// ([`HookOutput::block`](super::HookOutput::block)), which declines.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ElicitationOutput {
    /// The answer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub action: Option<ElicitationAction>,
    /// The form's content, with `accept`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<Map<String, Value>>,
}

setters!(ElicitationOutput {
    /// Sets the answer.
    action: ElicitationAction,
    /// Sets the form's content.
    content: Map<String, Value>,
});

/// `CwdChanged` and `FileChanged`: the files to watch from now on, as a command hook writes
/// them. The CLI 2.1.332 does not read them from a host callback's answer.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct WatchPathsOutput {
    /// The files.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub watch_paths: Option<Vec<String>>,
}

setters!(WatchPathsOutput {
    /// Sets the files to watch.
    watch_paths: Vec<String>,
});

/// `WorktreeCreate`: the worktree the hook created.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct WorktreeCreateOutput {
    /// Its absolute path.
    pub worktree_path: String,
}

impl WorktreeCreateOutput {
    /// The worktree at `path`.
    pub fn new(path: impl Into<String>) -> Self {
        Self {
            worktree_path: path.into(),
        }
    }
}

/// `MessageDisplay`: what to show in place of the delta (display only).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct MessageDisplayOutput {
    /// The text to show.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub display_content: Option<String>,
}

setters!(MessageDisplayOutput {
    /// Sets the text to show.
    display_content: String,
});

/// A typed `hookSpecificOutput`, tagged with its event (`hookEventName`). Give it to
/// [`HookOutput::specific`](super::HookOutput::specific).
///
/// ```
/// use claude_tools::hooks::{HookOutput, HookSpecificOutput, SessionStartOutput};
///
/// let output = HookOutput::new().specific(HookSpecificOutput::SessionStart(
///     SessionStartOutput::default().additional_context("The deploy freeze is on."),
/// ));
/// assert_eq!(
///     output.to_json("SessionStart"),
///     serde_json::json!({"hookSpecificOutput": {"hookEventName": "SessionStart",
///         "additionalContext": "The deploy freeze is on."}})
/// );
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "hookEventName")]
#[non_exhaustive]
pub enum HookSpecificOutput {
    /// `PreToolUse`.
    PreToolUse(PreToolUseOutput),
    /// `PreSkillShellCommand`.
    PreSkillShellCommand(PreToolUseOutput),
    /// `PreModelSwitch`.
    PreModelSwitch(PreToolUseOutput),
    /// `PostToolUse`.
    PostToolUse(PostToolUseOutput),
    /// `PostToolUseFailure`.
    PostToolUseFailure(ContextOutput),
    /// `PostToolBatch`.
    PostToolBatch(ContextOutput),
    /// `Notification`.
    Notification(ContextOutput),
    /// `Setup`.
    Setup(ContextOutput),
    /// `SubagentStart`.
    SubagentStart(ContextOutput),
    /// `Stop`: feedback the agent goes on with.
    Stop(ContextOutput),
    /// `SubagentStop`: feedback the subagent goes on with.
    SubagentStop(ContextOutput),
    /// `PostModelSwitch`.
    PostModelSwitch(ContextOutput),
    /// `UserPromptSubmit`.
    UserPromptSubmit(UserPromptSubmitOutput),
    /// `UserPromptExpansion` (its `session_title` is not read).
    UserPromptExpansion(UserPromptSubmitOutput),
    /// `SessionStart`.
    SessionStart(SessionStartOutput),
    /// `PermissionRequest`.
    PermissionRequest(PermissionRequestOutput),
    /// `PermissionDenied`.
    PermissionDenied(PermissionDeniedOutput),
    /// `Elicitation`.
    Elicitation(ElicitationOutput),
    /// `ElicitationResult`.
    ElicitationResult(ElicitationOutput),
    /// `CwdChanged`.
    CwdChanged(WatchPathsOutput),
    /// `FileChanged`.
    FileChanged(WatchPathsOutput),
    /// `WorktreeCreate`.
    WorktreeCreate(WorktreeCreateOutput),
    /// `MessageDisplay`.
    MessageDisplay(MessageDisplayOutput),
}
