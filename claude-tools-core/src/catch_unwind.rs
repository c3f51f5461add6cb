//! A future wrapper that turns a panic into a value, so a panicking tool or callback still
//! produces exactly one answer instead of killing its task silently.

use std::any::Any;
use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::pin::Pin;
use std::task::{Context, Poll};

/// Polls `F`, catching a panic as `Err(message)`. `F` may be unsized (a boxed `dyn Future`,
/// as a tool handler's is).
#[doc(hidden)]
pub struct CatchUnwind<F: ?Sized> {
    inner: Pin<Box<F>>,
}

impl<F: Future> CatchUnwind<F> {
    #[doc(hidden)]
    pub fn new(future: F) -> Self {
        Self::pinned(Box::pin(future))
    }
}

impl<F: Future + ?Sized> CatchUnwind<F> {
    /// Wraps a future that is already boxed.
    #[doc(hidden)]
    pub fn pinned(inner: Pin<Box<F>>) -> Self {
        Self { inner }
    }
}

impl<F: Future + ?Sized> Future for CatchUnwind<F> {
    type Output = Result<F::Output, String>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let inner = self.inner.as_mut();
        match std::panic::catch_unwind(AssertUnwindSafe(|| inner.poll(cx))) {
            Ok(Poll::Ready(value)) => Poll::Ready(Ok(value)),
            Ok(Poll::Pending) => Poll::Pending,
            Err(payload) => Poll::Ready(Err(panic_message(&*payload).to_string())),
        }
    }
}

/// The message of a panic payload.
#[doc(hidden)]
pub fn panic_message(payload: &(dyn Any + Send)) -> &str {
    if let Some(message) = payload.downcast_ref::<&'static str>() {
        message
    } else if let Some(message) = payload.downcast_ref::<String>() {
        message
    } else {
        "a non-string panic payload"
    }
}
