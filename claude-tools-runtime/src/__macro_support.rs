//! What `#[tool]` and `#[tool_server]` expand to. Not a public API: reached only through the
//! facade's hidden `__private` module, and free to change in any release.
//!
//! Parameters are classified by trait, never by a type's name: the macro writes
//! `(&&&Slot::<T>::NEW).__ct_describe(..)` for every parameter and method resolution picks the
//! first of three impls whose bounds hold (autoref specialisation):
//!
//! 1. `&&Slot<T>` where `T: ToolParam` — an extractor (`State<T>`, `ToolContext`, `Input<T>`…);
//! 2. `&Slot<Option<T>>` where `T: Deserialize + JsonSchema` — an optional model argument;
//! 3. `Slot<T>` — a required model argument; its methods demand `T: ModelArgument`, so a type
//!    that is neither gets that trait's diagnostic, spanned on the parameter's type.

use std::future::Future;
use std::marker::PhantomData;

use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde_json::Value;

pub use std::any::TypeId;

pub use crate::tool::{
    ArgumentError, IntoToolResult, ServerBuildError, ServerDefinition, ToolCall, ToolDefBuilder,
    ToolError, ToolFuture, ToolParam, ToolRegistration, ToolResult, ToolServer,
};

use crate::schema::SchemaError;

/// A model argument: what a parameter that is not a [`ToolParam`] must be.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a tool parameter",
    label = "the model cannot send a `{Self}`",
    note = "a parameter the model fills in must implement serde::Deserialize and schemars::JsonSchema: \
            add #[derive(Deserialize, JsonSchema)] to the type",
    note = "a parameter the model does not fill in must implement claude_tools::ToolParam, like State<T>, \
            ToolContext or Input<T>"
)]
pub trait ModelArgument: DeserializeOwned + JsonSchema {}

impl<T: DeserializeOwned + JsonSchema> ModelArgument for T {}

/// A zero-sized stand-in for a parameter of type `T`, the receiver of the dispatch traits.
pub struct Slot<T>(PhantomData<fn() -> T>);

impl<T> Slot<T> {
    /// The slot of `T`.
    pub const NEW: Self = Slot(PhantomData);
}

/// What one parameter contributes to a tool, chosen once per parameter by the dispatch above (so
/// a parameter type that fits nothing is reported once, not once per use).
pub struct Param<T> {
    describe: fn(&'static str, Option<&'static str>, &mut ToolDefBuilder),
    extract: fn(&'static str, &mut ToolCall) -> Result<T, ToolError>,
}

impl<T> Param<T> {
    /// Adds the parameter to the tool's definition.
    pub fn describe(
        &self,
        name: &'static str,
        doc: Option<&'static str>,
        tool: &mut ToolDefBuilder,
    ) {
        (self.describe)(name, doc, tool);
    }

    /// Extracts the parameter from a call.
    pub fn extract(&self, name: &'static str, call: &mut ToolCall) -> Result<T, ToolError> {
        (self.extract)(name, call)
    }
}

/// Never implemented: demanded of a parameter written as a pattern (`State(db): State<Db>`) that
/// turns out to be a model argument, which needs a plain name to be a property of the input.
#[diagnostic::on_unimplemented(
    message = "a tool parameter of type `{Self}` needs a plain name",
    label = "the model fills in this parameter, so it needs a name",
    note = "write `name: Type`; the name becomes the property of the input schema",
    note = "patterns like `State(db): State<Db>` or `Input(req): Input<Req>` are only for extractors (types implementing claude_tools::ToolParam)"
)]
pub trait NamedParameter {}

/// Level 1: extractors.
pub trait ViaToolParam<T> {
    fn __ct_describe(
        &self,
        name: &'static str,
        doc: Option<&'static str>,
        tool: &mut ToolDefBuilder,
    );
    fn __ct_extract(&self, name: &'static str, call: &mut ToolCall) -> Result<T, ToolError>;
    fn __ct_param(&self) -> Param<T>;
    fn __ct_pattern_param(&self) -> Param<T>;
}

impl<T: ToolParam> ViaToolParam<T> for &&Slot<T> {
    fn __ct_param(&self) -> Param<T> {
        Param {
            describe: T::describe,
            extract: T::extract,
        }
    }

    fn __ct_pattern_param(&self) -> Param<T> {
        self.__ct_param()
    }

    fn __ct_describe(
        &self,
        name: &'static str,
        doc: Option<&'static str>,
        tool: &mut ToolDefBuilder,
    ) {
        T::describe(name, doc, tool);
    }

    fn __ct_extract(&self, name: &'static str, call: &mut ToolCall) -> Result<T, ToolError> {
        T::extract(name, call)
    }
}

/// Level 2: optional model arguments (absent or `null` is `None`).
pub trait ViaOptionalArgument<T> {
    fn __ct_describe(
        &self,
        name: &'static str,
        doc: Option<&'static str>,
        tool: &mut ToolDefBuilder,
    );
    fn __ct_extract(&self, name: &'static str, call: &mut ToolCall) -> Result<T, ToolError>;
    fn __ct_param(&self) -> Param<T>;
    fn __ct_pattern_param(&self) -> Param<T>
    where
        T: NamedParameter;
}

impl<T: DeserializeOwned + JsonSchema> ViaOptionalArgument<Option<T>> for &Slot<Option<T>> {
    fn __ct_param(&self) -> Param<Option<T>> {
        Param {
            describe: |name, doc, tool| {
                ViaOptionalArgument::__ct_describe(&&Slot::<Option<T>>::NEW, name, doc, tool)
            },
            extract: |name, call| {
                ViaOptionalArgument::__ct_extract(&&Slot::<Option<T>>::NEW, name, call)
            },
        }
    }

    fn __ct_pattern_param(&self) -> Param<Option<T>>
    where
        Option<T>: NamedParameter,
    {
        self.__ct_param()
    }

    fn __ct_describe(
        &self,
        name: &'static str,
        doc: Option<&'static str>,
        tool: &mut ToolDefBuilder,
    ) {
        tool.input().property::<Option<T>>(name, doc, false);
    }

    fn __ct_extract(
        &self,
        name: &'static str,
        call: &mut ToolCall,
    ) -> Result<Option<T>, ToolError> {
        match call.take_argument(name) {
            None | Some(Value::Null) => Ok(None),
            Some(value) => deserialize_argument(name, value, call).map(Some),
        }
    }
}

/// Level 3: required model arguments.
pub trait ViaRequiredArgument<T> {
    fn __ct_describe(
        &self,
        name: &'static str,
        doc: Option<&'static str>,
        tool: &mut ToolDefBuilder,
    ) where
        T: ModelArgument;
    fn __ct_extract(&self, name: &'static str, call: &mut ToolCall) -> Result<T, ToolError>
    where
        T: ModelArgument;
    fn __ct_param(&self) -> Param<T>
    where
        T: ModelArgument;
    fn __ct_pattern_param(&self) -> Param<T>
    where
        T: NamedParameter;
}

impl<T> ViaRequiredArgument<T> for Slot<T> {
    fn __ct_param(&self) -> Param<T>
    where
        T: ModelArgument,
    {
        Param {
            describe: |name, doc, tool| {
                ViaRequiredArgument::__ct_describe(&Slot::<T>::NEW, name, doc, tool)
            },
            extract: |name, call| ViaRequiredArgument::__ct_extract(&Slot::<T>::NEW, name, call),
        }
    }

    fn __ct_pattern_param(&self) -> Param<T>
    where
        T: NamedParameter,
    {
        unreachable!("NamedParameter has no implementations")
    }

    fn __ct_describe(
        &self,
        name: &'static str,
        doc: Option<&'static str>,
        tool: &mut ToolDefBuilder,
    ) where
        T: ModelArgument,
    {
        tool.input().property::<T>(name, doc, true);
    }

    fn __ct_extract(&self, name: &'static str, call: &mut ToolCall) -> Result<T, ToolError>
    where
        T: ModelArgument,
    {
        match call.take_argument(name) {
            Some(value) => deserialize_argument(name, value, call),
            None => Err(call.invalid_arguments(&ArgumentError::missing(name))),
        }
    }
}

fn deserialize_argument<T: DeserializeOwned>(
    name: &str,
    value: Value,
    call: &ToolCall,
) -> Result<T, ToolError> {
    serde_path_to_error::deserialize::<_, T>(value).map_err(|error| {
        let path = error.path().to_string();
        let argument = if path == "." {
            name.to_string()
        } else {
            format!("{name}.{path}")
        };
        let argument = argument.replace(".[", "[");
        call.invalid_arguments(&ArgumentError::for_argument(
            argument,
            error.into_inner().to_string(),
        ))
    })
}

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

/// Implemented once per (server, tool name): a second tool with the same name in one server makes
/// two impls of the same trait for the same type, which rustc reports as E0119 at both tools.
pub trait UniqueToolName<const NAME_HASH: u64> {}

/// FNV-1a of a tool name, evaluated at compile time.
pub const fn tool_name_hash(name: &str) -> u64 {
    let bytes = name.as_bytes();
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    let mut i = 0;
    while i < bytes.len() {
        hash ^= bytes[i] as u64;
        hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
        i += 1;
    }
    hash
}

/// The length of `mcp__{server}__{tool}`, evaluated at compile time.
pub const fn qualified_name_len(server: &str, tool: &str) -> usize {
    "mcp__".len() + server.len() + "__".len() + tool.len()
}

/// The longest `mcp__{server}__{tool}` the Claude Code CLI accepts.
pub const MAX_QUALIFIED_NAME_LEN: usize = crate::tool::MAX_QUALIFIED_TOOL_NAME;

/// What `MyServer::server()` calls: builds the server or panics with the reason. A server that
/// cannot be built is a programming error (a schema Claude would refuse), found the first time
/// the program builds it; `MyServer::try_server()` returns the error instead.
pub fn build_server<S: ServerDefinition>() -> ToolServer {
    match ToolServer::from_definition::<S>() {
        Ok(server) => server,
        Err(error) => panic!(
            "claude-tools: cannot build tool server `{}`: {error}",
            S::NAME
        ),
    }
}

/// What `#[tool]` knows about its server, read through one bound so that a `server = X` naming a
/// type that is not a `#[tool_server]` is reported once.
#[derive(Debug, Clone, Copy)]
pub struct ServerInfo {
    /// `ServerDefinition::NAME`.
    pub name: &'static str,
    /// `ServerDefinition::ALWAYS_LOAD`.
    pub always_load: bool,
}

impl ServerInfo {
    /// The constants of server `S`.
    pub const fn of<S: ServerDefinition>() -> Self {
        Self {
            name: S::NAME,
            always_load: S::ALWAYS_LOAD,
        }
    }
}

/// How a handler's return type becomes a result, read through one bound so that a return type
/// that is not [`IntoToolResult`] is reported once, at the return type.
pub struct ResultFns<R> {
    convert: fn(R) -> ToolResult,
    output_schema: fn() -> Option<Result<serde_json::Map<String, Value>, SchemaError>>,
}

/// The [`ResultFns`] of return type `R`.
pub const fn result_fns<R: IntoToolResult>() -> ResultFns<R> {
    ResultFns {
        convert: R::into_tool_result,
        output_schema: R::output_schema,
    }
}

impl<R> ResultFns<R> {
    /// Converts the handler's return value.
    pub fn convert(&self, value: R) -> ToolResult {
        (self.convert)(value)
    }

    /// Sets the tool's output schema, when the return type has one.
    pub fn describe(&self, tool: &mut ToolDefBuilder) {
        if let Some(schema) = (self.output_schema)() {
            tool.output_schema(schema);
        }
    }
}

/// The `isError` result of a parameter that could not be extracted.
pub fn failed(error: ToolError) -> ToolResult {
    ToolResult::error(error.to_string())
}

/// Boxes the future of one call (extraction, handler, conversion).
pub fn call_future<F>(future: F) -> ToolFuture
where
    F: Future<Output = ToolResult> + Send + 'static,
{
    Box::pin(future)
}
