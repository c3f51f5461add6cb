//! [`HookMatcher`]: the callbacks registered for one event, and what the CLI does when they fail.

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use serde::Serialize;

use super::specific::{HookPermissionDecision, HookSpecificOutput};
use super::typed_input::read_fields;
use super::{HookEvent, HookInput, HookOutput, PostToolUseInput, PostToolUseOutput};
use super::{PreToolUseInput, PreToolUseOutput};
use crate::callback::CallbackFuture;

type HookFuture = Pin<Box<dyn Future<Output = HookOutput> + Send>>;

/// One hook callback.
#[derive(Clone)]
pub(crate) struct HookCallback(Arc<dyn Fn(HookInput) -> HookFuture + Send + Sync>);

impl HookCallback {
    /// Wraps an async closure.
    pub(crate) fn new<F, Fut>(callback: F) -> Self
    where
        F: Fn(HookInput) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = HookOutput> + Send + 'static,
    {
        HookCallback(Arc::new(move |input| Box::pin(callback(input))))
    }

    pub(crate) fn call(&self, input: HookInput) -> HookFuture {
        (self.0)(input)
    }
}

impl fmt::Debug for HookCallback {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("HookCallback(..)")
    }
}

/// Callbacks for one event, filtered by a tool-name matcher (a regex the CLI applies, e.g.
/// `mcp__tickets__.*`; `None` matches everything).
#[derive(Debug, Clone, Default)]
pub struct HookMatcher {
    pub(crate) matcher: Option<String>,
    pub(crate) callbacks: Vec<HookCallback>,
    pub(crate) timeout_secs: Option<f64>,
    pub(crate) on_failure: Option<OnFailure>,
    /// The event of each typed callback ([`HookMatcher::pre_tool_use`]…): the matcher must be
    /// registered for that event ([`Options::hook`](crate::options::Options::hook) checks it
    /// at connect).
    pub(crate) typed_for: Vec<TypedFor>,
}

/// The event a typed callback was written for, and the method that added it.
#[derive(Debug, Clone)]
pub(crate) struct TypedFor {
    pub(crate) event: HookEvent,
    pub(crate) method: &'static str,
}

/// What a failure of a matcher's callbacks does ([`HookMatcher::on_failure`]): a callback
/// that panics, or answers with output the CLI refuses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum OnFailure {
    /// The failure is reported in a warning and the action goes ahead (the CLI's default).
    Continue,
    /// The failure counts as a block: the action the event guards (a tool call, a permission
    /// request, a prompt) does not happen. Ignored on `Stop`, `SubagentStop`, `TaskCompleted`
    /// and `TeammateIdle`.
    Block,
}

impl HookMatcher {
    /// Callbacks for tools matching `pattern`.
    pub fn new(pattern: impl Into<String>) -> Self {
        Self {
            matcher: Some(pattern.into()),
            ..Self::default()
        }
    }

    /// Callbacks for every occurrence of the event.
    pub fn any() -> Self {
        Self::default()
    }

    /// Adds a callback, for any event: it reads its input with [`HookInput::typed`] and
    /// answers with any [`HookOutput`], which the session checks against the event
    /// ([`HookOutput::check`]) before sending it. For an event with its own output, the
    /// callback typed by that event ([`pre_tool_use`](Self::pre_tool_use),
    /// [`user_prompt_submit`](Self::user_prompt_submit),
    /// [`permission_request`](Self::permission_request)…) makes those checks at compile time.
    pub fn callback<F, Fut>(mut self, callback: F) -> Self
    where
        F: Fn(HookInput) -> Fut + Send + Sync + 'static,
        Fut: CallbackFuture<HookOutput> + Send + 'static,
    {
        self.callbacks.push(HookCallback::new(callback));
        self
    }

    /// Adds a `PreToolUse` callback typed by its event: it gets the call's fields and answers
    /// with the decision, so an answer of another event does not compile. It fails closed: an
    /// input whose fields do not fit `PreToolUse` never reaches it, and the call is denied
    /// (the reason says why). Register the matcher for [`HookEvent::PreToolUse`] (connect
    /// refuses another event).
    ///
    /// ```
    /// use claude_tools::hooks::{HookMatcher, HookPermissionDecision, PreToolUseOutput};
    /// use claude_tools::{HookEvent, Options};
    ///
    /// let options = Options::new().hook(
    ///     HookEvent::PreToolUse,
    ///     HookMatcher::new("Bash").pre_tool_use(|call| async move {
    ///         let command = call.tool_input["command"].as_str().unwrap_or_default();
    ///         if command.contains("rm -rf") {
    ///             return PreToolUseOutput::default()
    ///                 .permission_decision(HookPermissionDecision::Deny)
    ///                 .permission_decision_reason("not on this machine");
    ///         }
    ///         PreToolUseOutput::default() // no opinion: the permission rules decide
    ///     }),
    /// );
    /// # let _ = options;
    /// ```
    pub fn pre_tool_use<F, Fut>(self, callback: F) -> Self
    where
        F: Fn(PreToolUseInput) -> Fut + Send + Sync + 'static,
        Fut: CallbackFuture<PreToolUseOutput> + Send + 'static,
    {
        self.typed(
            TypedFor {
                event: HookEvent::PreToolUse,
                method: "pre_tool_use",
            },
            callback,
            HookSpecificOutput::PreToolUse,
            |event, error| {
                HookOutput::new().specific(HookSpecificOutput::PreToolUse(
                    PreToolUseOutput::default()
                        .permission_decision(HookPermissionDecision::Deny)
                        .permission_decision_reason(unreadable(event, error)),
                ))
            },
        )
    }

    /// Adds a `PostToolUse` callback typed by its event: it gets the call and the tool's
    /// output, and answers with context or a replaced output, so an answer of another event
    /// (a [`deny_tool`](HookOutput::deny_tool)) does not compile. It fails closed: an input
    /// whose fields do not fit `PostToolUse` never reaches it, and the answer blocks (the
    /// model is told the output could not be checked). Register the matcher for
    /// [`HookEvent::PostToolUse`].
    ///
    /// ```
    /// use claude_tools::hooks::{HookMatcher, PostToolUseOutput};
    /// use claude_tools::{HookEvent, Options};
    /// use serde_json::json;
    ///
    /// let options = Options::new().hook(
    ///     HookEvent::PostToolUse,
    ///     HookMatcher::new("mcp__crm__.*").post_tool_use(|done| async move {
    ///         if done.tool_response.to_string().contains("password") {
    ///             return PostToolUseOutput::default()
    ///                 .updated_mcp_tool_output(json!([{"type": "text", "text": "[redacted]"}]));
    ///         }
    ///         PostToolUseOutput::default()
    ///     }),
    /// );
    /// # let _ = options;
    /// ```
    pub fn post_tool_use<F, Fut>(self, callback: F) -> Self
    where
        F: Fn(PostToolUseInput) -> Fut + Send + Sync + 'static,
        Fut: CallbackFuture<PostToolUseOutput> + Send + 'static,
    {
        self.typed(
            TypedFor {
                event: HookEvent::PostToolUse,
                method: "post_tool_use",
            },
            callback,
            HookSpecificOutput::PostToolUse,
            |event, error| HookOutput::new().block(unreadable(event, error)),
        )
    }

    /// Adds a callback typed by `event`: its input read as `I` (else `closed`, the event's
    /// refusal, is the answer and the callback is not called), its answer `O` wrapped as the
    /// event's `hookSpecificOutput`.
    pub(super) fn typed<I, O: 'static, F, Fut, C>(
        mut self,
        typed_for: TypedFor,
        callback: F,
        wrap: fn(O) -> HookSpecificOutput,
        closed: C,
    ) -> Self
    where
        C: Fn(&HookEvent, &str) -> HookOutput + Send + Sync + 'static,
        I: for<'de> serde::Deserialize<'de>,
        F: Fn(I) -> Fut + Send + Sync + 'static,
        Fut: CallbackFuture<O> + Send + 'static,
    {
        let for_event = typed_for.event.clone();
        self.callbacks
            .push(HookCallback::new(move |input: HookInput| {
                let answer = match input.event_name() {
                    Some(name) if name == for_event.as_str() => read_fields::<I>(&input),
                    name => Err(format!("its hook_event_name is {name:?}")),
                };
                let answer = answer.map(&callback).map_err(|error| {
                    tracing::warn!(
                        %error,
                        event = %for_event,
                        "a hook input did not fit its typed callback's event: refused"
                    );
                    closed(&for_event, &error)
                });
                async move {
                    match answer {
                        Ok(future) => HookOutput::new().specific(wrap(future.await)),
                        Err(refusal) => refusal,
                    }
                }
            }));
        self.typed_for.push(typed_for);
        self
    }

    /// What a failure of these callbacks does (`onFailure`; the CLI's default is
    /// [`OnFailure::Continue`]). With [`OnFailure::Block`] the session refuses to start on a CLI
    /// that does not confirm it honours the option (`hook_on_failure_supported` in its
    /// `initialize` answer), as the TypeScript SDK does: an older CLI would let the action run.
    ///
    /// ```
    /// use claude_tools::hooks::{HookMatcher, HookOutput, OnFailure};
    ///
    /// // If the policy check itself fails, no Bash command runs.
    /// let guard = HookMatcher::new("Bash")
    ///     .on_failure(OnFailure::Block)
    ///     .callback(|_input| async { HookOutput::new() });
    /// # let _ = guard;
    /// ```
    pub fn on_failure(mut self, on_failure: OnFailure) -> Self {
        self.on_failure = Some(on_failure);
        self
    }

    /// How long the CLI waits for these callbacks, in seconds.
    pub fn timeout_secs(mut self, seconds: f64) -> Self {
        self.timeout_secs = Some(seconds);
        self
    }
}

/// The reason a typed callback's refusal gives when its input did not fit its event.
pub(super) fn unreadable(event: &HookEvent, error: &str) -> String {
    format!("claude-tools could not read this {event} hook input ({error}), so it was refused")
}
