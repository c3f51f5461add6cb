//! The futures of one call, and the result of a parameter that could not be extracted.

use std::future::Future;

use crate::tool::{IntoToolResult, ToolError, ToolFuture, ToolResult};

/// Boxes a handler's future, converting its output into a [`ToolResult`].
pub fn boxed<F>(future: F) -> ToolFuture
where
    F: Future + Send + 'static,
    F::Output: IntoToolResult,
{
    Box::pin(async move { IntoToolResult::into_tool_result(future.await) })
}

/// A future that is already done: the result of a sync handler, or a failed extraction.
pub fn ready(result: ToolResult) -> ToolFuture {
    Box::pin(std::future::ready(result))
}

/// The result of a failed parameter extraction.
pub fn extraction_failed(error: ToolError) -> ToolFuture {
    ready(ToolResult::error(error.to_string()))
}

/// The `isError` result of a parameter that could not be extracted.
pub fn failed(error: ToolError) -> ToolResult {
    ToolResult::error(error.to_string())
}

/// The future of a `#[tool]` async fn, checked to be `Send` on its own, where the fn is: a tool's
/// call runs on any thread of the runtime, so what the fn holds across an `.await` must be
/// `Send`. rustc names the local held and the `.await`; the bound's line says what to do, since
/// its note shows that line. The `Send` in the return type makes the call's own future `Send`
/// whatever `F` is, so that a `F` that is not is reported once, here, rather than again at the
/// `#[tool]` attribute.
pub fn tool_future_is_send<F>(future: F) -> impl Future<Output = F::Output> + Send
where
    F: Future + Send, // across an .await: std MutexGuard -> tokio::sync::Mutex, or drop it before; Rc -> Arc
{
    future
}

/// Boxes the future of one call (extraction, handler, conversion).
pub fn call_future<F>(future: F) -> ToolFuture
where
    F: Future<Output = ToolResult> + Send + 'static,
{
    Box::pin(future)
}
