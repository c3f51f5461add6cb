//! The `Send` check of an async `#[tool]`, `#[prompt]` or `#[resource]` fn's future, made only
//! when no parameter is already reported for not being shareable.
//!
//! A fn taking `State<T>` of a `T` that is not `Send + Sync` (`State<Cell<u32>>`) is reported at
//! the parameter ([`SharedState`]); its future, which holds that state, is not `Send` either, so
//! an unconditional `Send` check would report the same mistake a second time ("future cannot be
//! sent between threads safely"). The macro hands the gate one witness per parameter, `Shared`
//! or `Unshared` (by autoref dispatch on its type), and the gate checks the future only when
//! every witness is `Shared`. When one is `Unshared`, the build fails at that parameter anyway,
//! so the future is dropped unchecked and nothing of it runs.
//!
//! ```text
//! (&&SendGate((w0, (w1, ())))).__ct_send(the_fn(a, b)).await
//! ```

use std::future::Future;
use std::marker::PhantomData;

use super::SharedState;
use crate::tool::State;

/// What a handler returns: `ToolFuture`, `PromptFuture` or `ResourceFuture`.
pub type BoxedCall<T> = std::pin::Pin<Box<dyn Future<Output = T> + Send>>;

/// A parameter that is not a `State<T>` of an unshareable `T`.
pub struct Shared;

/// A `State<T>` parameter whose `T` is not `Send + Sync`: already an error at the parameter.
pub struct Unshared;

/// Parameter type `P`, dispatched on to get its witness:
/// `(&&&ShareCheck::<P>::NEW).__ct_shared()`.
pub struct ShareCheck<P>(PhantomData<fn() -> P>);

impl<P> ShareCheck<P> {
    /// The value the macro dispatches on.
    pub const NEW: Self = Self(PhantomData);
}

/// `State<T>` with a shareable `T`.
pub trait ViaSharedState {
    /// [`Shared`].
    fn __ct_shared(&self) -> Shared {
        Shared
    }
}

impl<T: SharedState> ViaSharedState for &&ShareCheck<State<T>> {}

/// `State<T>` with a `T` that is not `Send + Sync`.
pub trait ViaUnsharedState {
    /// [`Unshared`].
    fn __ct_shared(&self) -> Unshared {
        Unshared
    }
}

impl<T> ViaUnsharedState for &ShareCheck<State<T>> {}

/// Any other parameter: its own dispatch reports what is wrong with it, if anything.
pub trait ViaNotState {
    /// [`Shared`].
    fn __ct_shared(&self) -> Shared {
        Shared
    }
}

impl<P> ViaNotState for ShareCheck<P> {}

/// A list of witnesses, `(w0, (w1, ()))`, all [`Shared`].
pub trait AllShared {}

impl AllShared for () {}

impl<L: AllShared> AllShared for (Shared, L) {}

/// The witnesses of a fn's parameters, in order.
pub struct SendGate<L>(pub L);

/// Every parameter is shareable: the future must be `Send`.
pub trait ViaAllShared {
    /// The fn's future, checked to be `Send` on its own, where the fn is: a call runs on any
    /// thread of the runtime, so what the fn holds across an `.await` must be `Send`. rustc
    /// names the local held and the `.await`; the bound's line says what to do, since its note
    /// shows that line. The `Send` in the return type makes the call's own future `Send`
    /// whatever `F` is, so that an `F` that is not is reported once, here, rather than again at
    /// the attribute.
    fn __ct_send<F>(&self, future: F) -> impl Future<Output = F::Output> + Send
    where
        F: Future + Send, // across an .await: std MutexGuard -> tokio::sync::Mutex, or drop it before; Rc -> Arc
    {
        future
    }

    /// The call future of a `#[tool]`, `#[prompt]` or `#[resource]` fn (its parameters already
    /// extracted, so it holds their values), boxed. Its `Send` is checked here rather than at
    /// the handler's box, so that an unshareable state is reported only at its parameter.
    fn __ct_box<F>(&self, future: F) -> BoxedCall<F::Output>
    where
        F: Future + Send + 'static,
    {
        Box::pin(future)
    }
}

impl<L: AllShared> ViaAllShared for &SendGate<L> {}

/// A parameter is a `State<T>` of an unshareable `T`, already reported: the future is not
/// checked (it is dropped, and the build fails at the parameter).
pub trait ViaSomeUnshared {
    /// A future that never completes, in place of one that can never be built into a server.
    fn __ct_send<F: Future>(&self, future: F) -> std::future::Pending<F::Output> {
        drop(future);
        std::future::pending()
    }

    /// The call future (its parameters already extracted), boxed without a `Send` bound: it
    /// holds the unshareable state, already reported at the parameter, and is never built into
    /// a server.
    fn __ct_box<F>(&self, future: F) -> BoxedCall<F::Output>
    where
        F: Future,
        F::Output: 'static,
    {
        drop(future);
        Box::pin(std::future::pending())
    }
}

impl<L> ViaSomeUnshared for SendGate<L> {}
