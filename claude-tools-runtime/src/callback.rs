//! [`CallbackFuture`]: what a host callback returns (a hook, the permission callback, the
//! elicitation handler), with a library message for a closure that returns its answer directly.

use std::future::Future;

/// A future whose output is `T`: what [`HookMatcher::callback`](crate::hooks::HookMatcher::callback),
/// [`Options::can_use_tool`](crate::options::Options::can_use_tool),
/// [`Options::on_elicitation`](crate::options::Options::on_elicitation) and the typed hook
/// callbacks want their closure to return. Every future of `T` is one.
///
/// A sync closure (`|input| HookOutput::new()`) is told by this trait's message to make it
/// async, instead of rustc's "`HookOutput` is not a future" (the implementation is
/// `do_not_recommend`, so that rustc reports this trait rather than `Future`).
///
/// ```
/// use claude_tools::hooks::{HookMatcher, HookOutput};
///
/// let matcher = HookMatcher::any().callback(|_input| async { HookOutput::new() });
/// # let _ = matcher;
/// ```
#[diagnostic::on_unimplemented(
    message = "a callback must return a future of `{T}`, not `{Self}`",
    label = "this callback returns `{Self}`, not a future of `{T}`",
    note = "a closure that returns its answer directly must be async: write \
            `|input| async move {{ ... }}`, or pass an `async fn`",
    note = "an async closure must answer with `{T}`"
)]
pub trait CallbackFuture<T>: Future<Output = T> {}

#[diagnostic::do_not_recommend]
impl<T, F: Future<Output = T>> CallbackFuture<T> for F {}
