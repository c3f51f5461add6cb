//! [`TypedHookInput`]: a hook's input read by its `hook_event_name` into the fields of that
//! event ([`HookInput::typed`]), and [`HookBase`], the fields every event has.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::HookInput;
use super::env_inputs::{
    ConfigChangeInput, CwdChangedInput, DirectoryAddedInput, ElicitationInput,
    ElicitationResultInput, FileChangedInput, InstructionsLoadedInput, TaskInput,
    TeammateIdleInput, WorktreeCreateInput, WorktreeRemoveInput,
};
use super::session_inputs::{
    MessageDisplayInput, ModelSwitchInput, NotificationInput, PostCompactInput, PreCompactInput,
    SessionEndInput, SessionStartInput, SetupInput, StopFailureInput, StopInput,
    SubagentStartInput, SubagentStopInput, UserPromptExpansionInput, UserPromptSubmitInput,
};
use super::tool_inputs::{
    PermissionDeniedInput, PermissionRequestInput, PostToolBatchInput, PostToolUseFailureInput,
    PostToolUseInput, PreSkillShellCommandInput, PreToolUseInput,
};

/// The reasoning effort of the current turn, in [`HookBase::effort`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Effort {
    /// `low`, `medium`, `high`, `xhigh`, `max`…
    pub level: String,
}

/// The fields every hook input has.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct HookBase {
    /// The session.
    #[serde(default)]
    pub session_id: String,
    /// Its transcript file.
    #[serde(default)]
    pub transcript_path: String,
    /// The working directory.
    #[serde(default)]
    pub cwd: String,
    /// The prompt the event belongs to (absent before the first prompt).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt_id: Option<String>,
    /// The permission mode, by its wire name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub permission_mode: Option<String>,
    /// The subagent the event comes from (absent on the main thread).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent_id: Option<String>,
    /// The agent type (a subagent's, or the main thread's with `--agent`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent_type: Option<String>,
    /// The turn's reasoning effort, where the model has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub effort: Option<Effort>,
}

/// A hook's input, typed by its event ([`HookInput::typed`]). An event this library does not
/// know, or an input whose fields do not fit, reads as [`TypedHookInput::Other`]: the raw
/// input is still in [`HookInput::raw`].
///
/// ```
/// use claude_tools::hooks::{HookMatcher, HookOutput, TypedHookInput};
///
/// let matcher = HookMatcher::any().callback(|input| async move {
///     match input.typed() {
///         TypedHookInput::SessionStart(start) => {
///             HookOutput::new().additional_context(format!("started by {}", start.source))
///         }
///         _ => HookOutput::new(),
///     }
/// });
/// # let _ = matcher;
/// ```
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum TypedHookInput {
    /// `PreToolUse`.
    PreToolUse(PreToolUseInput),
    /// `PostToolUse`.
    PostToolUse(PostToolUseInput),
    /// `PostToolUseFailure`.
    PostToolUseFailure(PostToolUseFailureInput),
    /// `PostToolBatch`.
    PostToolBatch(PostToolBatchInput),
    /// `Notification`.
    Notification(NotificationInput),
    /// `UserPromptSubmit`.
    UserPromptSubmit(UserPromptSubmitInput),
    /// `UserPromptExpansion`.
    UserPromptExpansion(UserPromptExpansionInput),
    /// `SessionStart`.
    SessionStart(SessionStartInput),
    /// `SessionEnd`.
    SessionEnd(SessionEndInput),
    /// `Stop`.
    Stop(StopInput),
    /// `StopFailure`.
    StopFailure(StopFailureInput),
    /// `SubagentStart`.
    SubagentStart(SubagentStartInput),
    /// `SubagentStop`.
    SubagentStop(SubagentStopInput),
    /// `PreCompact`.
    PreCompact(PreCompactInput),
    /// `PostCompact`.
    PostCompact(PostCompactInput),
    /// `PreModelSwitch`.
    PreModelSwitch(ModelSwitchInput),
    /// `PostModelSwitch`.
    PostModelSwitch(ModelSwitchInput),
    /// `PermissionRequest`.
    PermissionRequest(PermissionRequestInput),
    /// `PermissionDenied`.
    PermissionDenied(PermissionDeniedInput),
    /// `Setup`.
    Setup(SetupInput),
    /// `TeammateIdle`.
    TeammateIdle(TeammateIdleInput),
    /// `TaskCreated`.
    TaskCreated(TaskInput),
    /// `TaskCompleted`.
    TaskCompleted(TaskInput),
    /// `Elicitation`.
    Elicitation(ElicitationInput),
    /// `ElicitationResult`.
    ElicitationResult(ElicitationResultInput),
    /// `ConfigChange`.
    ConfigChange(ConfigChangeInput),
    /// `WorktreeCreate`.
    WorktreeCreate(WorktreeCreateInput),
    /// `WorktreeRemove`.
    WorktreeRemove(WorktreeRemoveInput),
    /// `InstructionsLoaded`.
    InstructionsLoaded(InstructionsLoadedInput),
    /// `CwdChanged`.
    CwdChanged(CwdChangedInput),
    /// `FileChanged`.
    FileChanged(FileChangedInput),
    /// `DirectoryAdded`.
    DirectoryAdded(DirectoryAddedInput),
    /// `MessageDisplay`.
    MessageDisplay(MessageDisplayInput),
    /// `PreSkillShellCommand`.
    PreSkillShellCommand(PreSkillShellCommandInput),
    /// Another event, or an input whose fields did not fit: read [`HookInput::raw`].
    Other,
}

impl HookInput {
    /// The input's fields, typed by its `hook_event_name` (see [`TypedHookInput`]). Each
    /// call reads them anew from [`raw`](Self::raw).
    pub fn typed(&self) -> TypedHookInput {
        fn read<T: for<'de> Deserialize<'de>>(
            input: &HookInput,
            wrap: fn(T) -> TypedHookInput,
        ) -> TypedHookInput {
            match T::deserialize(&Value::Object(input.raw.clone())) {
                Ok(fields) => wrap(fields),
                Err(error) => {
                    tracing::debug!(%error, event = input.event_name().unwrap_or_default(),
                        "a hook input did not fit its type");
                    TypedHookInput::Other
                }
            }
        }
        use TypedHookInput as T;
        match self.event_name().unwrap_or_default() {
            "PreToolUse" => read(self, T::PreToolUse),
            "PostToolUse" => read(self, T::PostToolUse),
            "PostToolUseFailure" => read(self, T::PostToolUseFailure),
            "PostToolBatch" => read(self, T::PostToolBatch),
            "Notification" => read(self, T::Notification),
            "UserPromptSubmit" => read(self, T::UserPromptSubmit),
            "UserPromptExpansion" => read(self, T::UserPromptExpansion),
            "SessionStart" => read(self, T::SessionStart),
            "SessionEnd" => read(self, T::SessionEnd),
            "Stop" => read(self, T::Stop),
            "StopFailure" => read(self, T::StopFailure),
            "SubagentStart" => read(self, T::SubagentStart),
            "SubagentStop" => read(self, T::SubagentStop),
            "PreCompact" => read(self, T::PreCompact),
            "PostCompact" => read(self, T::PostCompact),
            "PreModelSwitch" => read(self, T::PreModelSwitch),
            "PostModelSwitch" => read(self, T::PostModelSwitch),
            "PermissionRequest" => read(self, T::PermissionRequest),
            "PermissionDenied" => read(self, T::PermissionDenied),
            "Setup" => read(self, T::Setup),
            "TeammateIdle" => read(self, T::TeammateIdle),
            "TaskCreated" => read(self, T::TaskCreated),
            "TaskCompleted" => read(self, T::TaskCompleted),
            "Elicitation" => read(self, T::Elicitation),
            "ElicitationResult" => read(self, T::ElicitationResult),
            "ConfigChange" => read(self, T::ConfigChange),
            "WorktreeCreate" => read(self, T::WorktreeCreate),
            "WorktreeRemove" => read(self, T::WorktreeRemove),
            "InstructionsLoaded" => read(self, T::InstructionsLoaded),
            "CwdChanged" => read(self, T::CwdChanged),
            "FileChanged" => read(self, T::FileChanged),
            "DirectoryAdded" => read(self, T::DirectoryAdded),
            "MessageDisplay" => read(self, T::MessageDisplay),
            "PreSkillShellCommand" => read(self, T::PreSkillShellCommand),
            _ => T::Other,
        }
    }
}
