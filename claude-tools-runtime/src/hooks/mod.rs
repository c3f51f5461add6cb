//! Hooks: host callbacks the CLI calls at points of its loop (`PreToolUse`, `PostToolUse`…),
//! registered in `initialize` and answered through `hook_callback` requests.
//!
//! A callback gets a [`HookInput`]: the raw input, and [`HookInput::typed`], the input typed by
//! its event ([`TypedHookInput`], one struct per event family). It answers with a
//! [`HookOutput`]: the common fields (`decision`, `continue`, `systemMessage`…) by builder
//! methods, and the event's `hookSpecificOutput` typed ([`HookOutput::specific`] with a
//! [`HookSpecificOutput`]) or by the shortcuts ([`HookOutput::deny_tool`],
//! [`HookOutput::additional_context`]…).
//!
//! ```
//! use claude_tools::hooks::{
//!     HookEvent, HookMatcher, HookOutput, HookSpecificOutput, PreToolUseOutput,
//!     HookPermissionDecision, TypedHookInput,
//! };
//! use claude_tools::Options;
//!
//! let options = Options::new().hook(
//!     HookEvent::PreToolUse,
//!     HookMatcher::new("Bash").callback(|input| async move {
//!         let TypedHookInput::PreToolUse(call) = input.typed() else {
//!             return HookOutput::new();
//!         };
//!         if call.tool_input["command"].as_str().is_some_and(|c| c.contains("rm -rf")) {
//!             return HookOutput::new().specific(HookSpecificOutput::PreToolUse(
//!                 PreToolUseOutput::default()
//!                     .permission_decision(HookPermissionDecision::Deny)
//!                     .permission_decision_reason("not on this machine"),
//!             ));
//!         }
//!         HookOutput::new()
//!     }),
//! );
//! # let _ = options;
//! ```

mod env_inputs;
mod event;
mod input;
mod matcher;
mod output;
mod session_inputs;
mod specific;
mod tool_inputs;
mod typed_input;

pub use env_inputs::{
    ConfigChangeInput, ConfigSource, CwdChangedInput, DirectoryAddedInput, DirectorySource,
    ElicitationAction, ElicitationInput, ElicitationMode, ElicitationResultInput, FileChangedInput,
    FileEvent, InstructionsLoadedInput, LoadReason, TaskInput, TeammateIdleInput,
    WorktreeCreateInput, WorktreeRemoveInput,
};
pub use event::HookEvent;
pub use input::HookInput;
pub(crate) use matcher::HookCallback;
pub use matcher::{HookMatcher, OnFailure};
pub use output::HookOutput;
pub use session_inputs::{
    BackgroundTaskSummary, ExitReason, ExpansionType, MessageDisplayInput, ModelSwitchInput,
    NotificationInput, PostCompactInput, PreCompactInput, PromptSource, SessionEndInput,
    SessionStartInput, SessionStartSource, SetupInput, SetupTrigger, StopFailureInput, StopInput,
    SubagentStartInput, SubagentStopInput, UserPromptExpansionInput, UserPromptSubmitInput,
};
pub use specific::{
    ContextOutput, ElicitationOutput, HookPermissionDecision, HookSpecificOutput,
    MessageDisplayOutput, PermissionDeniedOutput, PermissionRequestDecision,
    PermissionRequestOutput, PostToolUseOutput, PreToolUseOutput, SessionStartOutput,
    UserPromptSubmitOutput, WatchPathsOutput, WorktreeCreateOutput,
};
pub use tool_inputs::{
    BatchToolCall, InvokedBy, PermissionDeniedInput, PermissionRequestInput, PostToolBatchInput,
    PostToolUseFailureInput, PostToolUseInput, PreSkillShellCommandInput, PreToolUseInput,
    ShellCommand,
};
pub use typed_input::{Effort, HookBase, TypedHookInput};
