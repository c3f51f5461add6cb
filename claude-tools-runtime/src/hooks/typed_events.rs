//! The callbacks typed by their event, for every event with its own input and output beside
//! `PreToolUse` and `PostToolUse` (in `matcher.rs`): each gets its event's input struct and
//! answers with its event's output struct, so an answer meant for another event does not
//! compile. Each fails closed as its event allows: an input that does not fit never reaches the
//! callback, and the answer is the event's refusal (a block, a deny) where the event guards
//! something, else no opinion (the action goes on as if no hook were registered), with a warning.

use super::matcher::{TypedFor, unreadable};
use super::specific::{HookPermissionDecision, HookSpecificOutput};
use super::{
    ContextOutput, HookEvent, HookMatcher, HookOutput, ModelSwitchInput, NotificationInput,
    PermissionDeniedInput, PermissionDeniedOutput, PermissionRequestInput, PermissionRequestOutput,
    PostToolBatchInput, PostToolUseFailureInput, PreSkillShellCommandInput, PreToolUseOutput,
    SessionStartInput, SessionStartOutput, StopInput, SubagentStartInput, SubagentStopInput,
    UserPromptExpansionInput, UserPromptSubmitInput, UserPromptSubmitOutput,
};
use crate::callback::CallbackFuture;

/// The refusal of an event that guards an action by a block (`decision: block`).
fn block(event: &HookEvent, error: &str) -> HookOutput {
    HookOutput::new().block(unreadable(event, error))
}

/// The answer of an event that guards nothing: no opinion.
fn no_opinion(_event: &HookEvent, _error: &str) -> HookOutput {
    HookOutput::new()
}

/// The refusal of an event whose output is a `PreToolUse`-like decision: deny.
fn deny_decision(
    wrap: fn(PreToolUseOutput) -> HookSpecificOutput,
) -> impl Fn(&HookEvent, &str) -> HookOutput {
    move |event, error| {
        HookOutput::new().specific(wrap(
            PreToolUseOutput::default()
                .permission_decision(HookPermissionDecision::Deny)
                .permission_decision_reason(unreadable(event, error)),
        ))
    }
}

/// One typed method per event: `$method: $Event($Input) -> $Output, closed: $refusal`.
macro_rules! typed_callbacks {
    ($(
        $(#[$doc:meta])*
        $method:ident: $event:ident($input:ty) -> $output:ty, closed: $closed:expr;
    )*) => {
        impl HookMatcher {
            $(
                $(#[$doc])*
                ///
                #[doc = concat!(
                    "Register the matcher for [`HookEvent::", stringify!($event),
                    "`] (connect refuses another event)."
                )]
                pub fn $method<F, Fut>(self, callback: F) -> Self
                where
                    F: Fn($input) -> Fut + Send + Sync + 'static,
                    Fut: CallbackFuture<$output> + Send + 'static,
                {
                    self.typed(
                        TypedFor {
                            event: HookEvent::$event,
                            method: stringify!($method),
                        },
                        callback,
                        HookSpecificOutput::$event,
                        $closed,
                    )
                }
            )*
        }
    };
}

typed_callbacks! {
    /// Adds a `UserPromptSubmit` callback typed by its event: it reads the prompt and answers
    /// with context, a session title, or nothing. To refuse the prompt, a guard registers
    /// [`callback`](Self::callback) and answers [`HookOutput::block`]. It fails closed: an
    /// input that does not fit `UserPromptSubmit` never reaches it, and the prompt is blocked.
    ///
    /// ```
    /// use claude_tools::hooks::{HookMatcher, UserPromptSubmitOutput};
    /// use claude_tools::{HookEvent, Options};
    ///
    /// let options = Options::new().hook(
    ///     HookEvent::UserPromptSubmit,
    ///     HookMatcher::any().user_prompt_submit(|submit| async move {
    ///         if submit.prompt.contains("deploy") {
    ///             return UserPromptSubmitOutput::default()
    ///                 .additional_context("The deploy freeze is on until Monday.");
    ///         }
    ///         UserPromptSubmitOutput::default()
    ///     }),
    /// );
    /// # let _ = options;
    /// ```
    user_prompt_submit: UserPromptSubmit(UserPromptSubmitInput) -> UserPromptSubmitOutput,
        closed: block;
    /// Adds a `UserPromptExpansion` callback typed by its event (a slash command or skill
    /// expanded into its text): it answers with context. It fails closed: an input that does
    /// not fit never reaches it, and the expansion is blocked.
    user_prompt_expansion: UserPromptExpansion(UserPromptExpansionInput) -> UserPromptSubmitOutput,
        closed: block;
    /// Adds a `PermissionRequest` callback typed by its event: it answers the permission
    /// request instead of the user, with [`PermissionRequestOutput::allow`] or
    /// [`deny`](PermissionRequestOutput::deny). It fails closed: an input that does not fit
    /// `PermissionRequest` never reaches it, and the request is denied.
    ///
    /// ```
    /// use claude_tools::hooks::{HookMatcher, PermissionRequestOutput};
    /// use claude_tools::{HookEvent, Options};
    ///
    /// let options = Options::new().hook(
    ///     HookEvent::PermissionRequest,
    ///     HookMatcher::new("Read").permission_request(|request| async move {
    ///         match request.tool_input["file_path"].as_str() {
    ///             Some(path) if path.starts_with("/srv/docs/") => PermissionRequestOutput::allow(),
    ///             _ => PermissionRequestOutput::deny("only /srv/docs is readable", false),
    ///         }
    ///     }),
    /// );
    /// # let _ = options;
    /// ```
    permission_request: PermissionRequest(PermissionRequestInput) -> PermissionRequestOutput,
        closed: |event: &HookEvent, error: &str| {
            HookOutput::new().specific(HookSpecificOutput::PermissionRequest(
                PermissionRequestOutput::deny(unreadable(event, error), false),
            ))
        };
    /// Adds a `PermissionDenied` callback typed by its event: it answers whether the model may
    /// retry the refused call. An input that does not fit never reaches it; the answer then
    /// says nothing (no retry).
    permission_denied: PermissionDenied(PermissionDeniedInput) -> PermissionDeniedOutput,
        closed: no_opinion;
    /// Adds a `PostToolUseFailure` callback typed by its event: it reads the failed call and
    /// answers with context for the model. An input that does not fit never reaches it; the
    /// answer then adds nothing.
    post_tool_use_failure: PostToolUseFailure(PostToolUseFailureInput) -> ContextOutput,
        closed: no_opinion;
    /// Adds a `PostToolBatch` callback typed by its event: it reads every call of a batch once
    /// they resolved, and answers with context for the model. An input that does not fit never
    /// reaches it; the answer then adds nothing.
    post_tool_batch: PostToolBatch(PostToolBatchInput) -> ContextOutput,
        closed: no_opinion;
    /// Adds a `Notification` callback typed by its event: it reads the notification and
    /// answers with context for the model. An input that does not fit never reaches it; the
    /// answer then adds nothing.
    notification: Notification(NotificationInput) -> ContextOutput,
        closed: no_opinion;
    /// Adds a `SessionStart` callback typed by its event: it answers with context for the
    /// session, a first message or a title. (The CLI 2.1.332 calls a host's callback for it
    /// when a compaction starts the session anew, not at startup: see
    /// [`HookEvent::SessionStart`].) An input that does not fit never reaches it; the answer
    /// then adds nothing.
    session_start: SessionStart(SessionStartInput) -> SessionStartOutput,
        closed: no_opinion;
    /// Adds a `SubagentStart` callback typed by its event: it answers with context for the
    /// subagent. An input that does not fit never reaches it; the answer then adds nothing.
    subagent_start: SubagentStart(SubagentStartInput) -> ContextOutput,
        closed: no_opinion;
    /// Adds a `Stop` callback typed by its event: it answers with feedback the agent goes on
    /// with (check [`StopInput::stop_hook_active`] to avoid a loop). An input that does not
    /// fit never reaches it; the answer then adds nothing, and the agent stops.
    stop: Stop(StopInput) -> ContextOutput,
        closed: no_opinion;
    /// Adds a `SubagentStop` callback typed by its event: it answers with feedback the
    /// subagent goes on with. An input that does not fit never reaches it; the answer then
    /// adds nothing, and the subagent stops.
    subagent_stop: SubagentStop(SubagentStopInput) -> ContextOutput,
        closed: no_opinion;
    /// Adds a `PreModelSwitch` callback typed by its event: it allows or denies the switch
    /// (the CLI reads the decision and its reason only). It fails closed: an input that does
    /// not fit never reaches it, and the switch is denied.
    pre_model_switch: PreModelSwitch(ModelSwitchInput) -> PreToolUseOutput,
        closed: deny_decision(HookSpecificOutput::PreModelSwitch);
    /// Adds a `PostModelSwitch` callback typed by its event: it answers with context for the
    /// model. An input that does not fit never reaches it; the answer then adds nothing.
    post_model_switch: PostModelSwitch(ModelSwitchInput) -> ContextOutput,
        closed: no_opinion;
    /// Adds a `PreSkillShellCommand` callback typed by its event: it allows or denies a
    /// skill's shell command (the CLI reads the decision and its reason only). It fails
    /// closed: an input that does not fit never reaches it, and the command is denied.
    pre_skill_shell_command: PreSkillShellCommand(PreSkillShellCommandInput) -> PreToolUseOutput,
        closed: deny_decision(HookSpecificOutput::PreSkillShellCommand);
}
