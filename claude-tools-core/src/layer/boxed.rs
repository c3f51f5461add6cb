//! [`BoxedService`]: a layered service with its type erased, cloneable and shareable, as a
//! server keeps its stack of layers; and [`oneshot`], one request through a clone of it.
//!
//! tower's own `BoxCloneSyncService` and `ServiceExt::oneshot` do the same, but live behind its
//! `util` feature, which would bring futures-util into a crate that needs neither.

use std::future::{Future, poll_fn};
use std::pin::Pin;
use std::task::{Context, Poll};

use tower_service::Service;

/// The error of a layered service: whatever a layer failed with (tower's own middleware fails
/// with this type too).
pub type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// A boxed future that may move between threads.
pub type BoxFuture<T> = Pin<Box<dyn Future<Output = T> + Send + 'static>>;

/// A `Service` as a trait object can be: its future boxed, its error a [`BoxError`], cloneable
/// through a box.
trait ErasedService<Request, Response>: Send + Sync {
    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), BoxError>>;
    fn call(&mut self, request: Request) -> BoxFuture<Result<Response, BoxError>>;
    fn clone_box(&self) -> Box<dyn ErasedService<Request, Response>>;
}

impl<S, Request, Response> ErasedService<Request, Response> for S
where
    S: Service<Request, Response = Response> + Clone + Send + Sync + 'static,
    S::Error: Into<BoxError>,
    S::Future: Send + 'static,
{
    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), BoxError>> {
        Service::poll_ready(self, cx).map_err(Into::into)
    }

    fn call(&mut self, request: Request) -> BoxFuture<Result<Response, BoxError>> {
        let future = Service::call(self, request);
        Box::pin(async move { future.await.map_err(Into::into) })
    }

    fn clone_box(&self) -> Box<dyn ErasedService<Request, Response>> {
        Box::new(self.clone())
    }
}

/// A service with its type erased: what a stack of layers becomes once a server holds it.
pub(crate) struct BoxedService<Request, Response> {
    inner: Box<dyn ErasedService<Request, Response>>,
}

impl<Request: 'static, Response: 'static> BoxedService<Request, Response> {
    /// Erases `service`'s type.
    pub(crate) fn new<S>(service: S) -> Self
    where
        S: Service<Request, Response = Response> + Clone + Send + Sync + 'static,
        S::Error: Into<BoxError>,
        S::Future: Send + 'static,
    {
        Self {
            inner: Box::new(service),
        }
    }

    /// Waits until the service is ready, then calls it with `request` (tower's
    /// `ServiceExt::oneshot`): one request through a clone of the stack, as every call takes
    /// its own, so that a layer's state (a semaphore, a counter) is that of the stack its
    /// clones share.
    pub(crate) async fn oneshot(mut self, request: Request) -> Result<Response, BoxError> {
        poll_fn(|cx| self.inner.poll_ready(cx)).await?;
        self.inner.call(request).await
    }
}

impl<Request, Response> Clone for BoxedService<Request, Response> {
    fn clone(&self) -> Self {
        Self {
            inner: self.inner.clone_box(),
        }
    }
}

impl<Request, Response> Service<Request> for BoxedService<Request, Response> {
    type Response = Response;
    type Error = BoxError;
    type Future = BoxFuture<Result<Response, BoxError>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), BoxError>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: Request) -> Self::Future {
        self.inner.call(request)
    }
}
