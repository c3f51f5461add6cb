//! Hooks: host callbacks the CLI calls at points of its loop (`PreToolUse`, `PostToolUse`…),
//! registered in `initialize` and answered through `hook_callback` requests.
//!
//! A callback typed by its event ([`HookMatcher::pre_tool_use`],
//! [`HookMatcher::post_tool_use`]) gets that event's fields and answers with that event's
//! output, so an answer of another event does not compile; an input that does not fit its event
//! never reaches it, and the library refuses (a `PreToolUse` call is denied). This is the form
//! for a guard:
//!
//! ```
//! use claude_tools::hooks::{HookMatcher, HookPermissionDecision, PreToolUseOutput};
//! use claude_tools::{HookEvent, Options};
//!
//! let options = Options::new().hook(
//!     HookEvent::PreToolUse,
//!     HookMatcher::new("Bash").pre_tool_use(|call| async move {
//!         if call.tool_input["command"].as_str().is_none_or(|c| c.contains("rm -rf")) {
//!             return PreToolUseOutput::default()
//!                 .permission_decision(HookPermissionDecision::Deny)
//!                 .permission_decision_reason("not on this machine");
//!         }
//!         PreToolUseOutput::default()
//!     }),
//! );
//! # let _ = options;
//! ```
//!
//! Any other event takes [`HookMatcher::callback`]: it gets a [`HookInput`], the raw input and
//! [`HookInput::typed`], the input typed by its event ([`TypedHookInput`], one struct per event
//! family, and [`TypedHookInput::Malformed`] for an input whose fields do not fit its event). It
//! answers with a [`HookOutput`]: the common fields (`decision`, `continue`, `systemMessage`…)
//! by builder methods, and the event's `hookSpecificOutput` typed ([`HookOutput::specific`] with
//! a [`HookSpecificOutput`]) or by the shortcuts ([`HookOutput::deny_tool`],
//! [`HookOutput::additional_context`]…). The session checks the answer against the event
//! ([`HookOutput::check`]): one meant for another event is not sent (a `PreToolUse` call is
//! denied, other events get an error answer).
//! Match the event you guard and refuse the rest, so that an input you cannot read is refused:
//!
//! ```
//! use claude_tools::hooks::{HookMatcher, HookOutput, TypedHookInput};
//!
//! let on_prompt = HookMatcher::any().callback(|input| async move {
//!     match input.typed() {
//!         TypedHookInput::UserPromptSubmit(submit) if !submit.prompt.contains("password") => {
//!             HookOutput::new()
//!         }
//!         _ => HookOutput::new().block("this prompt is not sent"),
//!     }
//! });
//! # let _ = on_prompt;
//! ```

mod env_inputs;
mod event;
mod input;
mod matcher;
mod output;
mod session_inputs;
mod specific;
mod tool_inputs;
mod typed_events;
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
pub use output::{HookOutput, MismatchedHookOutput};
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
