//! [`CallFuture`]: a running tool call, which turns a handler panic into an `isError` result.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use super::result::ToolResult;
use crate::catch_unwind::CatchUnwind;

/// A running tool call that turns a handler panic into an `isError` result.
pub(crate) struct CallFuture {
    pub(super) tool: Arc<str>,
    pub(super) inner: CatchUnwind<dyn Future<Output = ToolResult> + Send + 'static>,
}

impl Future for CallFuture {
    type Output = ToolResult;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<ToolResult> {
        let this = &mut *self;
        match Pin::new(&mut this.inner).poll(cx) {
            Poll::Ready(Ok(result)) => Poll::Ready(result),
            Poll::Ready(Err(panic)) => Poll::Ready(ToolResult::error(format!(
                "tool `{}` panicked: {panic}",
                this.tool
            ))),
            Poll::Pending => Poll::Pending,
        }
    }
}
