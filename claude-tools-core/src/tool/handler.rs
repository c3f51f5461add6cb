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

use std::future::Future;

use schemars::JsonSchema;
use serde::de::DeserializeOwned;

use super::def::ToolDefBuilder;
use super::error::ToolError;
use super::param::{Input, ToolCall, ToolParam};
use super::result::IntoToolResult;
use super::server::ToolFuture;

/// The name extractors of a run-time tool are handed: a closure's parameters have no names the
/// program can read, so every extractor gets `_`, as a `#[tool]` parameter written as a
/// pattern does.
const UNNAMED: &str = "_";

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
        T::describe(UNNAMED, None, tool);
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
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be the handler of a run-time tool",
    label = "not an async fn or closure of extractors and arguments",
    note = "a closure that returns its result directly is not accepted: make it async, \
            `|args: MyArgs| async move {{ ... }}` (or pass an `async fn`)",
    note = "each parameter is an extractor (State<T>, ToolContext, Input<T>, any claude_tools::ToolParam; \
            for shared state take State<T>, not Arc<T>) or the tool's arguments (a type with \
            Deserialize + JsonSchema), with its type written out",
    note = "the future's output implements claude_tools::IntoToolResult (String, Json<T>, Result<T, E>, ...)"
)]
pub trait ToolFn<M>: Clone + Send + Sync + 'static {
    /// Adds the parameters' contributions and the output schema to the tool's definition.
    fn describe(tool: &mut ToolDefBuilder);

    /// Runs one call: extracts every parameter, then calls the handler and converts its output.
    fn call(self, call: ToolCall) -> ToolFuture;
}

/// Describes the output of a handler returning `R`, as `#[tool]` does.
fn describe_output<R: IntoToolResult>(tool: &mut ToolDefBuilder) {
    if let Some(schema) = R::output_schema() {
        tool.output_schema(schema);
    }
}

/// How a call whose arguments are wrong is answered: the same code as `#[tool]`'s.
mod failure {
    pub(super) use crate::__macro_support::{call_is_clean, failed_call};
}

macro_rules! impl_tool_fn {
    ($($param:ident $marker:ident),*) => {
        impl<F, Fut, R, $($param, $marker,)*> ToolFn<($($marker,)* $($param,)*)> for F
        where
            F: FnOnce($($param),*) -> Fut + Clone + Send + Sync + 'static,
            Fut: Future<Output = R> + Send + 'static,
            R: IntoToolResult,
            $($param: ToolFnParam<$marker>,)*
        {
            fn describe(tool: &mut ToolDefBuilder) {
                $(<$param as ToolFnParam<$marker>>::describe(tool);)*
                describe_output::<R>(tool);
            }

            #[allow(non_snake_case, unused_mut)]
            fn call(self, mut call: ToolCall) -> ToolFuture {
                Box::pin(async move {
                    // Every parameter is extracted before the call can fail, as `#[tool]` does,
                    // so that the model reads every argument problem in one result.
                    $(let $param = <$param as ToolFnParam<$marker>>::extract(&mut call);)*
                    match ($($param,)*) {
                        ($(Ok($param),)*) if failure::call_is_clean(&call) => {
                            drop(call);
                            self($($param),*).await.into_tool_result()
                        }
                        ($($param,)*) => failure::failed_call(call, [$($param.err(),)*]),
                    }
                })
            }
        }
    };
}

impl_tool_fn!();
impl_tool_fn!(P1 M1);
impl_tool_fn!(P1 M1, P2 M2);
impl_tool_fn!(P1 M1, P2 M2, P3 M3);
impl_tool_fn!(P1 M1, P2 M2, P3 M3, P4 M4);
impl_tool_fn!(P1 M1, P2 M2, P3 M3, P4 M4, P5 M5);
impl_tool_fn!(P1 M1, P2 M2, P3 M3, P4 M4, P5 M5, P6 M6);
impl_tool_fn!(P1 M1, P2 M2, P3 M3, P4 M4, P5 M5, P6 M6, P7 M7);
impl_tool_fn!(P1 M1, P2 M2, P3 M3, P4 M4, P5 M5, P6 M6, P7 M7, P8 M8);
impl_tool_fn!(P1 M1, P2 M2, P3 M3, P4 M4, P5 M5, P6 M6, P7 M7, P8 M8, P9 M9);
impl_tool_fn!(P1 M1, P2 M2, P3 M3, P4 M4, P5 M5, P6 M6, P7 M7, P8 M8, P9 M9, P10 M10);
impl_tool_fn!(P1 M1, P2 M2, P3 M3, P4 M4, P5 M5, P6 M6, P7 M7, P8 M8, P9 M9, P10 M10, P11 M11);
impl_tool_fn!(
    P1 M1, P2 M2, P3 M3, P4 M4, P5 M5, P6 M6, P7 M7, P8 M8, P9 M9, P10 M10, P11 M11, P12 M12
);
