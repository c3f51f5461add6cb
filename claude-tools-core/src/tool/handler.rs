//! Typed tools defined at run time: [`ToolFn`], the async fns and closures
//! [`ToolServer::with_typed_tool`](super::ToolServer::with_typed_tool) accepts, and
//! [`ToolFnParam`], what each of their parameters may be.
//!
//! A handler's parameters are taken in order. Each is either an extractor (any [`ToolParam`]:
//! [`State<T>`](super::State), [`ToolContext`](super::ToolContext), [`Input<T>`](super::Input),
//! your own) or an arguments type (`Deserialize + JsonSchema`, usually a struct whose fields are
//! the tool's properties). An arguments type is described and deserialized exactly as `#[tool]`
//! does for an `Input<T>` parameter, through the same code: the same schema (Claude-safe
//! rewrites, field order, serde attributes) and the same argument errors.
//!
//! Also the types every handler comes down to: [`ToolFuture`], what a handler returns, and
//! [`ToolHandler`], a handler with its types erased, as a server keeps it.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use schemars::JsonSchema;
use serde::de::DeserializeOwned;

use super::def::ToolDefBuilder;
use super::error::ToolError;
use super::param::{Input, ToolCall, ToolParam};
use super::result::{IntoToolResult, ToolResult};

/// The name extractors of a run-time tool are handed: a closure's parameters have no names the
/// program can read, so every extractor gets `_`, as a `#[tool]` parameter written as a
/// pattern does.
const UNNAMED: &str = "_";

/// The future a tool handler returns.
pub type ToolFuture = Pin<Box<dyn Future<Output = ToolResult> + Send + 'static>>;

/// A type-erased tool handler.
pub type ToolHandler = Arc<dyn Fn(ToolCall) -> ToolFuture + Send + Sync>;

/// Marker of a [`ToolFnParam`] that is an extractor ([`ToolParam`]).
#[derive(Debug)]
pub enum ViaExtractor {}

/// Marker of a [`ToolFnParam`] that is the model's arguments (`Deserialize + JsonSchema`).
#[derive(Debug)]
pub enum ViaArguments {}

/// A parameter of a [`ToolFn`]: an extractor, or the tool's arguments.
///
/// Implemented for every [`ToolParam`] (marker [`ViaExtractor`]) and for every
/// `DeserializeOwned + JsonSchema` type (marker [`ViaArguments`]); the marker is inferred, so
/// you never name it. A type that is both is ambiguous: wrap it in [`Input<T>`] to take it as
/// the arguments.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a parameter of a run-time tool",
    label = "neither an extractor nor the tool's arguments",
    note = "the tool's arguments are a type implementing serde::Deserialize and schemars::JsonSchema: \
            add #[derive(Deserialize, JsonSchema)] to it",
    note = "anything else must implement claude_tools::ToolParam, like State<T>, ToolContext or Input<T>",
    note = "another crate's type (chrono, uuid, url, rust_decimal...) deserializes and has a schema with \
            claude-tools' feature of that crate's name: `cargo add claude-tools --features uuid`"
)]
pub trait ToolFnParam<M>: Sized + Send + 'static {
    /// Adds what this parameter contributes to the tool's definition.
    fn describe(tool: &mut ToolDefBuilder);

    /// Takes this parameter's value out of one call.
    fn extract(call: &mut ToolCall) -> Result<Self, ToolError>;
}

impl<T: ToolParam> ToolFnParam<ViaExtractor> for T {
    fn describe(tool: &mut ToolDefBuilder) {
        tool.describe_param::<T>(UNNAMED, None);
    }

    fn extract(call: &mut ToolCall) -> Result<Self, ToolError> {
        T::extract(UNNAMED, call)
    }
}

impl<T: DeserializeOwned + JsonSchema + Send + 'static> ToolFnParam<ViaArguments> for T {
    fn describe(tool: &mut ToolDefBuilder) {
        <Input<T> as ToolParam>::describe(UNNAMED, None, tool);
    }

    fn extract(call: &mut ToolCall) -> Result<Self, ToolError> {
        <Input<T> as ToolParam>::extract(UNNAMED, call).map(|Input(arguments)| arguments)
    }
}

/// An async fn or closure that can be the handler of a run-time tool: its parameters are
/// [`ToolFnParam`]s (extractors and the arguments type), its future's output is anything a
/// `#[tool]` fn may return ([`IntoToolResult`]).
///
/// Like axum's `Handler`, it is implemented for `FnOnce(P1, …, Pn) -> impl Future` (up to 12
/// parameters) that is `Clone + Send + Sync + 'static`: every call runs a clone of the handler,
/// so a `move` closure may hand what it captured (an `Arc`, a client) to its `async move`
/// block. `M` is a marker the compiler infers; you never name it.
///
/// Handlers must be async: a closure that returns its result directly is refused, with a
/// message saying to write `async move`. Write the parameter types on a closure
/// (`|args: SearchArgs| async move { … }`): nothing else tells the compiler what they are.
///
/// It has one implementation, whose conditions are checked one by one, so that a handler that
/// fails one is told which: not a fn or closure (this trait's own message), a parameter that is
/// neither an extractor nor an arguments type ([`ToolFnParam`]), a result that is not a future
/// ([`HandlerFuture`]), a future's output that is no tool result ([`IntoToolResult`]), a
/// handler or future that is not `Send`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be the handler of a run-time tool",
    label = "not an async fn or closure of up to 12 extractors and arguments",
    note = "a handler is an async fn, or a closure `|args: MyArgs| async move {{ ... }}` with its \
            parameter types written out",
    note = "each parameter is an extractor (State<T>, ToolContext, Input<T>, any claude_tools::ToolParam) \
            or the tool's arguments (a type with Deserialize + JsonSchema)"
)]
pub trait ToolFn<M>: Clone + Send + Sync + 'static {
    /// Adds the parameters' contributions and the output schema to the tool's definition.
    fn describe(tool: &mut ToolDefBuilder);

    /// Runs one call: extracts every parameter, then calls the handler and converts its output.
    fn call(self, call: ToolCall) -> ToolFuture;
}

/// What a tool handler returns: a future. (It must also be `Send + 'static`, as it runs on any
/// thread of the runtime after the call that started it has returned; those bounds are asked
/// separately, so that rustc's own diagnostic names the value that is not `Send`.)
///
/// A handler that returns its result directly is told by this trait's message to make it async,
/// wherever the check fails (the implementation is `do_not_recommend`, so that rustc reports
/// this trait rather than `Future`).
#[diagnostic::on_unimplemented(
    message = "the handler of a tool must return a future, not `{Self}`",
    label = "this handler returns `{Self}` directly: make it async",
    note = "write the closure `|args: MyArgs| async move {{ ... }}` (`|call: ToolCall| async move \
            {{ ... }}` for `with_tool`), or pass an `async fn`"
)]
pub trait HandlerFuture: Future {}

#[diagnostic::do_not_recommend]
impl<F: Future> HandlerFuture for F {}

/// A fn or closure of `Args` (a tuple of its parameters), told apart by arity: what lets
/// [`ToolFn`] have one implementation.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be the handler of a run-time tool",
    label = "not an async fn or closure of up to 12 extractors and arguments",
    note = "a handler is an async fn, or a closure `|args: MyArgs| async move {{ ... }}` with its \
            parameter types written out"
)]
pub trait ToolFnArity<Args> {
    /// What it returns.
    type Output;

    /// Calls it with `args`.
    fn call_with(self, args: Args) -> Self::Output;
}

/// The parameters of a [`ToolFn`], as a tuple of [`ToolFnParam`]s (`M` their markers).
#[diagnostic::on_unimplemented(
    message = "the parameters `{Self}` cannot be those of a run-time tool",
    label = "each must be an extractor or the tool's arguments"
)]
pub trait ToolFnParams<M>: Sized + Send + 'static {
    /// Adds the parameters' contributions to the tool's definition.
    fn describe(tool: &mut ToolDefBuilder);

    /// Extracts every parameter before failing, as `#[tool]` does, so that the model reads
    /// every argument problem in one result; a failed call is its result.
    fn extract(call: ToolCall) -> Result<Self, ToolResult>;
}

/// Describes the output of a handler returning `R`, as `#[tool]` does.
fn describe_output<R: IntoToolResult>(tool: &mut ToolDefBuilder) {
    if let Some(schema) = R::output_schema() {
        tool.output_schema(schema);
    }
}

/// How a call whose arguments are wrong is answered: the same code as `#[tool]`'s.
mod failure {
    pub(super) use crate::__private::{call_is_clean, failed_call};
}

impl<H, Args, Markers> ToolFn<(Args, Markers)> for H
where
    H: ToolFnArity<Args> + Clone + Send + Sync + 'static,
    Args: ToolFnParams<Markers>,
    H::Output: HandlerFuture + Send + 'static,
    <H::Output as Future>::Output: IntoToolResult,
{
    fn describe(tool: &mut ToolDefBuilder) {
        Args::describe(tool);
        describe_output::<<H::Output as Future>::Output>(tool);
    }

    fn call(self, call: ToolCall) -> ToolFuture {
        Box::pin(async move {
            match Args::extract(call) {
                Ok(args) => self.call_with(args).await.into_tool_result(),
                Err(failed) => failed,
            }
        })
    }
}

macro_rules! impl_arity {
    ($($param:ident $marker:ident),*) => {
        impl<F, Fut, $($param,)*> ToolFnArity<($($param,)*)> for F
        where
            F: FnOnce($($param),*) -> Fut,
        {
            type Output = Fut;

            #[allow(non_snake_case, clippy::unused_unit)]
            fn call_with(self, ($($param,)*): ($($param,)*)) -> Fut {
                self($($param),*)
            }
        }

        impl<$($param: ToolFnParam<$marker>, $marker,)*> ToolFnParams<($($marker,)*)>
            for ($($param,)*)
        {
            fn describe(tool: &mut ToolDefBuilder) {
                let _ = &tool;
                $(<$param as ToolFnParam<$marker>>::describe(tool);)*
            }

            #[allow(non_snake_case, unused_mut)]
            fn extract(mut call: ToolCall) -> Result<Self, ToolResult> {
                $(let $param = <$param as ToolFnParam<$marker>>::extract(&mut call);)*
                match ($($param,)*) {
                    ($(Ok($param),)*) if failure::call_is_clean(&call) => Ok(($($param,)*)),
                    ($($param,)*) => Err(failure::failed_call(call, [$($param.err(),)*])),
                }
            }
        }
    };
}

impl_arity!();
impl_arity!(P1 M1);
impl_arity!(P1 M1, P2 M2);
impl_arity!(P1 M1, P2 M2, P3 M3);
impl_arity!(P1 M1, P2 M2, P3 M3, P4 M4);
impl_arity!(P1 M1, P2 M2, P3 M3, P4 M4, P5 M5);
impl_arity!(P1 M1, P2 M2, P3 M3, P4 M4, P5 M5, P6 M6);
impl_arity!(P1 M1, P2 M2, P3 M3, P4 M4, P5 M5, P6 M6, P7 M7);
impl_arity!(P1 M1, P2 M2, P3 M3, P4 M4, P5 M5, P6 M6, P7 M7, P8 M8);
impl_arity!(P1 M1, P2 M2, P3 M3, P4 M4, P5 M5, P6 M6, P7 M7, P8 M8, P9 M9);
impl_arity!(P1 M1, P2 M2, P3 M3, P4 M4, P5 M5, P6 M6, P7 M7, P8 M8, P9 M9, P10 M10);
impl_arity!(P1 M1, P2 M2, P3 M3, P4 M4, P5 M5, P6 M6, P7 M7, P8 M8, P9 M9, P10 M10, P11 M11);
impl_arity!(
    P1 M1, P2 M2, P3 M3, P4 M4, P5 M5, P6 M6, P7 M7, P8 M8, P9 M9, P10 M10, P11 M11, P12 M12
);

/// Calls `handler`, catching a panic of its synchronous part (a `#[tool]` fn's parameters are
/// extracted there, and a run-time tool's closure runs there): the panic is raised again when
/// the returned future is first polled, where the call's panic catcher answers for it as for
/// any panic of the handler, instead of unwinding through the router.
pub(crate) fn start_handler(
    handler: &(dyn Fn(ToolCall) -> ToolFuture + Send + Sync),
    call: ToolCall,
) -> ToolFuture {
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| handler(call))) {
        Ok(future) => future,
        Err(panic) => Box::pin(async move { std::panic::resume_unwind(panic) }),
    }
}
