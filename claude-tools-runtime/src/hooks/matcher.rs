//! [`HookMatcher`]: the callbacks registered for one event, and what the CLI does when they fail.

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use serde::Serialize;

use super::{HookInput, HookOutput};

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

    /// Adds a callback.
    pub fn callback<F, Fut>(mut self, callback: F) -> Self
    where
        F: Fn(HookInput) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = HookOutput> + Send + 'static,
    {
        self.callbacks.push(HookCallback::new(callback));
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
