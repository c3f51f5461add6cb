//! [`TypedHookInput`]: a hook's input read by its `hook_event_name` into the fields of that
//! event ([`HookInput::typed`]), and [`HookBase`], the fields every event has.

use serde::{Deserialize, Serialize};
use serde_json::Value;

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
use super::{HookEvent, HookInput};

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

/// A hook's input, typed by its event ([`HookInput::typed`]). An input of a known event whose
/// fields do not fit that event reads as [`TypedHookInput::Malformed`], never as another
/// event; an event this library does not know reads as [`TypedHookInput::Other`]. The raw
/// input is still in [`HookInput::raw`].
///
/// A guard matches its own event and refuses everything else, so that an input it cannot
/// read is denied rather than let through (or use a callback typed by its event,
/// [`HookMatcher::pre_tool_use`](super::HookMatcher::pre_tool_use), which does this for you):
///
/// ```
/// use claude_tools::hooks::{HookMatcher, HookOutput, TypedHookInput};
///
/// let guard = HookMatcher::new("Bash").callback(|input| async move {
///     match input.typed() {
///         TypedHookInput::PreToolUse(call)
///             if call.tool_input["command"].as_str().is_some_and(|c| !c.contains("rm -rf")) =>
///         {
///             HookOutput::new()
///         }
///         TypedHookInput::PreToolUse(_) => HookOutput::new().deny_tool("not on this machine"),
///         TypedHookInput::Malformed { event, error } => {
///             HookOutput::new().deny_tool(format!("unreadable {event} input: {error}"))
///         }
///         _ => HookOutput::new().deny_tool("not a tool call"),
///     }
/// });
/// # let _ = guard;
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
    /// An input of a known event whose fields do not fit that event (a required field
    /// missing, a field of the wrong type): read [`HookInput::raw`], and treat it as the
    /// event's worst case (a guard denies).
    Malformed {
        /// The event the input names (`hook_event_name`).
        event: HookEvent,
        /// Why its fields do not fit (serde's message, which names the field: "missing field
        /// `tool_use_id`").
        error: String,
    },
    /// An event this library does not know (from a newer CLI), or an input with no
    /// `hook_event_name`: read [`HookInput::raw`].
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
            match read_fields(input) {
                Ok(fields) => wrap(fields),
                Err(error) => {
                    let event = HookEvent::from(input.event_name().unwrap_or_default());
                    tracing::warn!(%error, %event, "a hook input did not fit its event");
                    TypedHookInput::Malformed { event, error }
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

/// Reads an input's fields as `T`, or says which field does not fit and why (serde's message
/// names the field: "missing field `tool_use_id`").
pub(super) fn read_fields<T: for<'de> Deserialize<'de>>(input: &HookInput) -> Result<T, String> {
    T::deserialize(&Value::Object(input.raw.clone())).map_err(|error| error.to_string())
}
