//! What `#[tool]` and `#[tool_server]` expand to. Not a public API: reached only through the
//! facade's hidden `__private` module, and free to change in any release.
//!
//! Parameters are classified by trait, never by a type's name: for every parameter the macro
//! writes `(&&&&Slot::<T>::NEW).__ct_param()` (once, in a fn of its own) and method resolution
//! picks the first of four impls whose bounds hold (autoref specialisation):
//!
//! 1. `&&&Slot<T>` where `T: ToolParam` — an extractor (`State<T>`, `ToolContext`, `Input<T>`…);
//! 2. `&&Slot<Option<T>>` where `T: Deserialize + JsonSchema` — an optional model argument;
//! 3. `&Slot<T>` where `T: Deserialize` — a required model argument; its method demands
//!    `T: ArgumentSchema`, so a type that forgot `JsonSchema` gets that trait's diagnostic;
//! 4. `Slot<T>` — anything else; its method demands `T: ModelArgument` (`Deserialize`), so a type
//!    that is neither an extractor nor a model argument gets one diagnostic, at its type.
//!
//! The result is a [`Param<T>`] of fn pointers that `describe` and `call` both use, so a bad
//! parameter type is reported once. Parameters written as patterns call `__ct_pattern_param`
//! instead, which accepts only extractors (a model argument needs a name).

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

/// What a parameter that is not a [`ToolParam`] must be first: deserializable.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a tool parameter",
    label = "the model cannot send a `{Self}`",
    note = "a parameter the model fills in must implement serde::Deserialize and schemars::JsonSchema: \
            add #[derive(Deserialize, JsonSchema)] to the type",
    note = "a parameter the model does not fill in must implement claude_tools::ToolParam, like State<T>, \
            ToolContext or Input<T>"
)]
pub trait ModelArgument: DeserializeOwned {}

impl<T: DeserializeOwned> ModelArgument for T {}

/// What a deserializable parameter must also be: described by a JSON Schema.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a tool parameter: it has no JSON Schema",
    label = "the model needs a schema to fill in a `{Self}`",
    note = "add #[derive(JsonSchema)] (from schemars) next to #[derive(Deserialize)] on the type"
)]
pub trait ArgumentSchema: JsonSchema {}

impl<T: JsonSchema> ArgumentSchema for T {}

/// Never implemented: demanded of a parameter written as a pattern (`State(db): State<Db>`) that
/// is not an extractor, since a model argument needs a plain name to be a property of the input.
#[diagnostic::on_unimplemented(
    message = "a tool parameter of type `{Self}` needs a plain name",
    label = "not an extractor, so the model fills it in, and it needs a name",
    note = "write `name: Type`; the name becomes the property of the input schema",
    note = "patterns like `State(db): State<Db>` or `Input(req): Input<Req>` are only for extractors \
            (types implementing claude_tools::ToolParam)"
)]
pub trait NamedParameter {}

/// A zero-sized stand-in for a parameter of type `T`, the receiver of the dispatch traits.
pub struct Slot<T>(PhantomData<fn() -> T>);

impl<T> Slot<T> {
    /// The slot of `T`.
    pub const NEW: Self = Slot(PhantomData);
}

/// What one parameter contributes to a tool: how it is described, how it is extracted.
pub struct Param<T> {
    describe: fn(&'static str, Option<&'static str>, &mut ToolDefBuilder),
    extract: fn(&'static str, &mut ToolCall) -> Result<T, ToolError>,
    /// For a model argument with a default (`#[arg(default)]`, `#[serde(default)]`): added as
    /// an optional property carrying `default`.
    describe_defaulted: fn(&'static str, Option<&'static str>, Option<Value>, &mut ToolDefBuilder),
    /// For a model argument with a default: `None` when the model left it out.
    extract_present: fn(&'static str, &mut ToolCall) -> Option<Result<T, ToolError>>,
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

    /// Adds the parameter, which has a default, to the tool's definition: not required, and
    /// with `"default": default` when the default value serializes.
    pub fn describe_defaulted(
        &self,
        name: &'static str,
        doc: Option<&'static str>,
        default: Option<Value>,
        tool: &mut ToolDefBuilder,
    ) {
        (self.describe_defaulted)(name, doc, default, tool);
    }

    /// Extracts the parameter, which has a default: `None` when the call leaves it out.
    pub fn extract_present(
        &self,
        name: &'static str,
        call: &mut ToolCall,
    ) -> Option<Result<T, ToolError>> {
        (self.extract_present)(name, call)
    }
}

/// Never implemented: demanded of an extractor parameter that carries `#[arg(...)]` or
/// `#[serde(...)]`, which only mean something for an argument the model fills in.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not filled in by the model, so it takes no default and no rename",
    label = "an extractor: the server provides it, not the model",
    note = "#[arg(default = ..)], #[arg(rename = \"..\")] and #[serde(default | rename)] apply only to \
            parameters the model fills in (types implementing Deserialize and JsonSchema)",
    note = "remove the attribute from this parameter"
)]
pub trait ModelFilled {}

/// Level 1: extractors.
pub trait ViaToolParam<T> {
    fn __ct_param(&self) -> Param<T>;
    fn __ct_pattern_param(&self) -> Param<T>;
    fn __ct_argument(&self) -> Param<T>
    where
        T: ModelFilled;
}

impl<T: ToolParam> ViaToolParam<T> for &&&Slot<T> {
    fn __ct_param(&self) -> Param<T> {
        Param {
            describe: T::describe,
            extract: T::extract,
            describe_defaulted: |name, doc, _, tool| T::describe(name, doc, tool),
            extract_present: |name, call| Some(T::extract(name, call)),
        }
    }

    fn __ct_pattern_param(&self) -> Param<T> {
        self.__ct_param()
    }

    fn __ct_argument(&self) -> Param<T>
    where
        T: ModelFilled,
    {
        unreachable!("ModelFilled has no implementations")
    }
}

/// Level 2: optional model arguments (absent or `null` is `None`).
pub trait ViaOptionalArgument<T> {
    fn __ct_param(&self) -> Param<T>;
    fn __ct_pattern_param(&self) -> Param<T>
    where
        T: NamedParameter;
    fn __ct_argument(&self) -> Param<T>;
}

impl<T: DeserializeOwned + JsonSchema> ViaOptionalArgument<Option<T>> for &&Slot<Option<T>> {
    fn __ct_param(&self) -> Param<Option<T>> {
        Param {
            describe: |name, doc, tool| {
                tool.input().property::<Option<T>>(name, doc, false);
            },
            extract: |name, call| match call.take_argument(name) {
                None | Some(Value::Null) => Ok(None),
                Some(value) => deserialize_argument(name, value, call).map(Some),
            },
            describe_defaulted: |name, doc, default, tool| {
                tool.input()
                    .property_with_default::<Option<T>>(name, doc, default);
            },
            // As serde's `#[serde(default)]`: absent is the default, `null` is `None`.
            extract_present: |name, call| {
                call.take_argument(name).map(|value| match value {
                    Value::Null => Ok(None),
                    value => deserialize_argument(name, value, call).map(Some),
                })
            },
        }
    }

    fn __ct_pattern_param(&self) -> Param<Option<T>>
    where
        Option<T>: NamedParameter,
    {
        self.__ct_param()
    }

    fn __ct_argument(&self) -> Param<Option<T>> {
        self.__ct_param()
    }
}

/// Level 3: deserializable types, which must also have a schema to be required model arguments.
pub trait ViaRequiredArgument<T> {
    fn __ct_param(&self) -> Param<T>
    where
        T: ArgumentSchema;
    fn __ct_pattern_param(&self) -> Param<T>
    where
        T: NamedParameter;
    fn __ct_argument(&self) -> Param<T>
    where
        T: ArgumentSchema;
}

impl<T: DeserializeOwned> ViaRequiredArgument<T> for &Slot<T> {
    fn __ct_param(&self) -> Param<T>
    where
        T: ArgumentSchema,
    {
        Param {
            describe: |name, doc, tool| {
                tool.input().property::<T>(name, doc, true);
            },
            extract: |name, call| match call.take_argument(name) {
                Some(value) => deserialize_argument(name, value, call),
                None => Err(call.invalid_arguments(&ArgumentError::missing(name))),
            },
            describe_defaulted: |name, doc, default, tool| {
                tool.input().property_with_default::<T>(name, doc, default);
            },
            extract_present: |name, call| {
                call.take_argument(name)
                    .map(|value| deserialize_argument(name, value, call))
            },
        }
    }

    fn __ct_pattern_param(&self) -> Param<T>
    where
        T: NamedParameter,
    {
        unreachable!("NamedParameter has no implementations")
    }

    fn __ct_argument(&self) -> Param<T>
    where
        T: ArgumentSchema,
    {
        self.__ct_param()
    }
}

/// Level 4: everything else, which is an error: the methods' bounds carry the diagnostics.
pub trait ViaAnything<T> {
    fn __ct_param(&self) -> Param<T>
    where
        T: ModelArgument;
    fn __ct_pattern_param(&self) -> Param<T>
    where
        T: NamedParameter;
    fn __ct_argument(&self) -> Param<T>
    where
        T: ModelArgument;
}

impl<T> ViaAnything<T> for Slot<T> {
    fn __ct_param(&self) -> Param<T>
    where
        T: ModelArgument,
    {
        unreachable!("every DeserializeOwned type is handled by level 3")
    }

    fn __ct_pattern_param(&self) -> Param<T>
    where
        T: NamedParameter,
    {
        unreachable!("NamedParameter has no implementations")
    }

    fn __ct_argument(&self) -> Param<T>
    where
        T: ModelArgument,
    {
        unreachable!("every DeserializeOwned type is handled by level 3")
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

/// A parameter's default value, the receiver of the two [`DefaultJson`] impls: the schema gets
/// `"default"` only when the value's type is `Serialize` (autoref specialisation again).
pub struct DefaultValue<'a, T>(pub &'a T);

/// The JSON of a default value, or `None` when it has none.
pub trait DefaultJson {
    fn __ct_default_json(&self) -> Option<Value>;
}

impl<T: serde::Serialize> DefaultJson for &DefaultValue<'_, T> {
    fn __ct_default_json(&self) -> Option<Value> {
        serde_json::to_value(self.0).ok()
    }
}

/// Fallback: a default whose type does not serialize is left out of the schema.
pub trait NoDefaultJson {
    fn __ct_default_json(&self) -> Option<Value>;
}

impl<T> NoDefaultJson for DefaultValue<'_, T> {
    fn __ct_default_json(&self) -> Option<Value> {
        None
    }
}

/// The result of a call whose parameters could not all be extracted: every argument problem
/// (the parameters' in their order, then those found before the handler ran, such as unknown
/// arguments) in one message; any other extraction error (a missing `State<T>`) comes first.
pub fn failed_call<const N: usize>(
    mut call: ToolCall,
    errors: [Option<ToolError>; N],
) -> ToolResult {
    let mut found: Vec<ArgumentError> = Vec::new();
    let mut others: Vec<String> = Vec::new();
    for error in errors.into_iter().flatten() {
        match error.into_argument_errors() {
            Ok(problems) => found.extend(problems),
            Err(other) => others.push(other.to_string()),
        }
    }
    found.extend(call.take_argument_errors());
    // The same problem reported twice (a whole-input struct and a parameter naming the same
    // missing property) is listed once.
    let mut arguments: Vec<ArgumentError> = Vec::with_capacity(found.len());
    for problem in found {
        if !arguments.contains(&problem) {
            arguments.push(problem);
        }
    }
    if !arguments.is_empty() {
        others.push(crate::tool::render_argument_errors(
            call.tool_name(),
            &arguments,
        ));
    }
    ToolResult::error(others.join("\n"))
}

/// Whether the call can go ahead: nothing was found wrong with it before the handler ran.
pub fn call_is_clean(call: &ToolCall) -> bool {
    !call.has_argument_errors()
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
    /// `ServerDefinition::DENY_UNKNOWN_ARGUMENTS`.
    pub deny_unknown_arguments: bool,
}

impl ServerInfo {
    /// The constants of server `S`.
    pub const fn of<S: ServerDefinition>() -> Self {
        Self {
            name: S::NAME,
            always_load: S::ALWAYS_LOAD,
            deny_unknown_arguments: S::DENY_UNKNOWN_ARGUMENTS,
        }
    }
}

/// How a handler's return type becomes a result, read through one bound so that a return type
/// that is not [`IntoToolResult`] is reported once, at the return type.
pub struct ResultFns<R> {
    convert: fn(R) -> ToolResult,
    output_schema: fn() -> Option<OutputSchema>,
}

/// An output schema, or why it cannot be made Claude-safe.
type OutputSchema = Result<serde_json::Map<String, Value>, SchemaError>;

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
