//! What `#[tool]` and `#[tool_server]` expand to. Not a public API: reached only through the
//! facade's hidden `__private` module, and free to change in any release.
//!
//! Parameters are classified by trait, never by a type's name: for every parameter the macro
//! writes `(&&&&Slot::<T>::NEW).__ct_param()` (once, in a fn of its own) and method resolution
//! picks the first of these methods whose impl's bounds hold (autoref specialisation):
//!
//! 1. `&&&Slot<T>` where `T: ToolParam` — an extractor (`State<T>`, `ToolContext`, `Input<T>`…);
//! 2. `&&Slot<Option<T>>` where `T: Deserialize + JsonSchema` — an optional model argument;
//! 3. `&Slot<T>` where `T: Deserialize + JsonSchema` — a required model argument;
//! 4. errors, each with its own diagnostic in its method's bound: first inherent methods of
//!    `Slot<X>` for the known mistakes (`Vec<T>`, `Option<T>`, `HashMap<K, V>`, `BTreeMap<K, V>`
//!    of a deserializable type without a schema; `State<T>` whose `T` is not `Send + Sync`;
//!    `Arc<T>`, which should be `State<T>`), then `Slot<T>` where `T: Deserialize` (a type that
//!    forgot `JsonSchema`);
//! 5. `Slot<T>` by value — anything else; its method demands `T: ModelArgument` (`Deserialize`),
//!    so a type that is neither an extractor nor a model argument gets one diagnostic, at its
//!    type.
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

use crate::tool::State;

pub use crate::tool::{
    ArgumentError, IntoToolResult, ServerBuildError, ServerDefinition, ToolCall, ToolDefBuilder,
    ToolError, ToolFuture, ToolParam, ToolRegistration, ToolResult, ToolServer,
};

use crate::schema::SchemaError;
pub use crate::schema::doc_description;

/// What claude-tools' `#[derive(JsonSchema)]` calls with the `(rust name, wire name)` of a
/// struct's renamed fields: they ride in its schema while a tool's input schema is built, so
/// that a call sending a Rust name is refused by name (see `InputSchemaBuilder::rust_name`).
pub fn record_rust_names(
    generator: &schemars::SchemaGenerator,
    schema: &mut schemars::Schema,
    pairs: &[(&str, &str)],
) {
    crate::schema::record_rust_names(generator, schema, pairs);
}

// What the marker type of a tool's name (`ToolRef`) expands to.
pub use crate::tool::ToolRef;
pub use crate::tool::names::{qualified_name_bytes, qualified_name_str};

/// What a parameter that is not a [`ToolParam`] must be first: deserializable.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a tool parameter",
    label = "the model cannot send a `{Self}`",
    note = "a parameter the model fills in must implement serde::Deserialize and schemars::JsonSchema: \
            add #[derive(Deserialize, JsonSchema)] to the type (both derives are in claude_tools::prelude)",
    note = "a parameter the model does not fill in must implement claude_tools::ToolParam, like State<T>, \
            ToolContext or Input<T>",
    note = "another crate's type (chrono, uuid, url, rust_decimal...) deserializes and has a schema with \
            claude-tools' feature of that crate's name: `cargo add claude-tools --features uuid`"
)]
#[doc(hidden)]
pub trait ModelArgument: DeserializeOwned {}

impl<T: DeserializeOwned> ModelArgument for T {}

/// The schema of a deserializable type inside a container parameter (`Vec<T>`, `Option<T>`, a
/// map's values), whose error names the container and the type at fault.
#[diagnostic::on_unimplemented(
    message = "`{Container}` cannot be a tool parameter: the `{Self}` in it has no JSON Schema",
    label = "the model needs a schema to fill in the `{Self}`s of a `{Container}`",
    note = "add #[derive(JsonSchema)] (claude_tools::JsonSchema) next to #[derive(Deserialize)] on `{Self}`",
    note = "a type that derives JsonSchema and still gets this error derives another schemars major \
            version's (a schemars 0.8 dependency?): derive claude_tools::JsonSchema instead",
    note = "another crate's type (chrono, uuid, url, rust_decimal...) has a schema with claude-tools' \
            feature of that crate's name: `cargo add claude-tools --features uuid`"
)]
pub trait SchemaIn<Container: ?Sized>: JsonSchema {}

impl<T: JsonSchema, Container: ?Sized> SchemaIn<Container> for T {}

/// What a deserializable parameter must also be: described by a JSON Schema.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a tool parameter: it has no JSON Schema",
    label = "the model needs a schema to fill in a `{Self}`",
    note = "add #[derive(JsonSchema)] (claude_tools::JsonSchema) next to #[derive(Deserialize)] on the type",
    note = "a type that derives JsonSchema and still gets this error derives another schemars major \
            version's (a schemars 0.8 dependency?): derive claude_tools::JsonSchema instead",
    note = "another crate's type (chrono, uuid, url, rust_decimal...) has a schema with claude-tools' \
            feature of that crate's name: `cargo add claude-tools --features uuid`"
)]
#[doc(hidden)]
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
#[doc(hidden)]
pub trait NamedParameter {}

/// Demanded of `T` in a `State<T>` parameter that is not an extractor, which happens only when
/// `T` is not `Send + Sync + 'static`.
#[diagnostic::on_unimplemented(
    message = "`State<{Self}>` cannot be a tool parameter: `{Self}` is not `Send + Sync`",
    label = "the server shares one `{Self}` with every call, on any thread",
    note = "use thread-safe types in the state (`Mutex<T>` or `RwLock<T>` around what the tools \
            change, `AtomicU32` instead of `Cell<u32>`, `Arc` instead of `Rc`)"
)]
pub trait SharedState {}

impl<T: Send + Sync + 'static> SharedState for T {}

/// Never implemented: demanded of `T` in an `Arc<T>` parameter that the model cannot send.
#[diagnostic::on_unimplemented(
    message = "`Arc<{Self}>` cannot be a tool parameter: take shared state as `State<{Self}>`",
    label = "the model cannot send an `Arc<{Self}>`, and it is not an extractor",
    note = "register the value on the server with `.with_state(value)`, or `.with_shared_state(arc)` \
            to share an `Arc` you keep, and take `State<{Self}>`, which derefs to `{Self}`"
)]
pub trait SharedThroughState {}

/// A zero-sized stand-in for a parameter of type `T`, the receiver of the dispatch traits. `Copy`,
/// so that level 5 can take it by value.
///
/// `H` is [`NoHint`], or the claude-tools feature `#[tool]` guesses the type needs (see
/// `feature_hints`): levels 1 to 3 take any `H`, and a hinted slot's error (its levels 4 and
/// 5) names the feature.
pub struct Slot<T, H = NoHint>(PhantomData<fn() -> (T, H)>);

impl<T, H> Clone for Slot<T, H> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T, H> Copy for Slot<T, H> {}

impl<T> Slot<T> {
    /// The slot of `T`.
    pub const NEW: Self = Slot(PhantomData);
}

/// The `H` of a [`Slot`] whose type `#[tool]` connects to no feature.
pub enum NoHint {}

mod feature_hints;
pub use feature_hints::*;

// Two known mistakes get their own diagnostic instead of level 4's "not a model argument". An
// inherent method is found at the same step as level 4 (receiver `&Slot<_>`) and wins over it,
// while levels 1 to 3 are still tried first: a `State<T>` that is an extractor, or an `Arc<T>`
// the model can send (serde's `rc` feature), never gets here.

// A container of a deserializable type without a schema: the error names the container and that
// type. When
// the bounds hold, the container is a model argument, handled by level 2 or 3 (these methods
// then delegate to them, never reached).

impl<T: DeserializeOwned> Slot<Vec<T>> {
    /// A `Vec<T>` whose `T` has no schema.
    pub fn __ct_param(&self) -> Param<Vec<T>>
    where
        T: SchemaIn<Vec<T>>,
    {
        ViaRequiredArgument::__ct_param(&&Slot::<Vec<T>>::NEW)
    }
}

impl<T: DeserializeOwned> Slot<Option<T>> {
    /// An `Option<T>` whose `T` has no schema.
    pub fn __ct_param(&self) -> Param<Option<T>>
    where
        T: SchemaIn<Option<T>>,
    {
        ViaOptionalArgument::__ct_param(&&&Slot::<Option<T>>::NEW)
    }
}

impl<K, V, S> Slot<std::collections::HashMap<K, V, S>>
where
    K: DeserializeOwned + JsonSchema + Eq + std::hash::Hash,
    V: DeserializeOwned,
    S: std::hash::BuildHasher + Default,
{
    /// A `HashMap<K, V>` whose `V` has no schema.
    pub fn __ct_param(&self) -> Param<std::collections::HashMap<K, V, S>>
    where
        V: SchemaIn<std::collections::HashMap<K, V, S>>,
    {
        ViaRequiredArgument::__ct_param(&&Slot::<std::collections::HashMap<K, V, S>>::NEW)
    }
}

impl<K, V> Slot<std::collections::BTreeMap<K, V>>
where
    K: DeserializeOwned + JsonSchema + Ord,
    V: DeserializeOwned,
{
    /// A `BTreeMap<K, V>` whose `V` has no schema.
    pub fn __ct_param(&self) -> Param<std::collections::BTreeMap<K, V>>
    where
        V: SchemaIn<std::collections::BTreeMap<K, V>>,
    {
        ViaRequiredArgument::__ct_param(&&Slot::<std::collections::BTreeMap<K, V>>::NEW)
    }
}

impl<T> Slot<State<T>> {
    /// A `State<T>` whose `T` is not `Send + Sync`.
    pub fn __ct_param(&self) -> Param<State<T>>
    where
        T: SharedState,
    {
        unreachable!("a State<T> with T: Send + Sync + 'static is handled by level 1")
    }

    /// `State(value): State<T>` whose `T` is not `Send + Sync`.
    pub fn __ct_pattern_param(&self) -> Param<State<T>>
    where
        T: SharedState,
    {
        unreachable!("a State<T> with T: Send + Sync + 'static is handled by level 1")
    }
}

impl<T: ?Sized> Slot<std::sync::Arc<T>> {
    /// An `Arc<T>` the model cannot send.
    pub fn __ct_param(&self) -> Param<std::sync::Arc<T>>
    where
        T: SharedThroughState,
    {
        unreachable!("SharedThroughState has no implementations")
    }

    /// An `Arc<T>` bound by a pattern.
    pub fn __ct_pattern_param(&self) -> Param<std::sync::Arc<T>>
    where
        T: SharedThroughState,
    {
        unreachable!("SharedThroughState has no implementations")
    }
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
#[doc(hidden)]
pub trait ViaToolParam<T> {
    fn __ct_param(&self) -> Param<T>;
    fn __ct_pattern_param(&self) -> Param<T>;
    fn __ct_argument(&self) -> Param<T>
    where
        T: ModelFilled;
}

impl<T: ToolParam, H> ViaToolParam<T> for &&&Slot<T, H> {
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
#[doc(hidden)]
pub trait ViaOptionalArgument<T> {
    fn __ct_param(&self) -> Param<T>;
    fn __ct_pattern_param(&self) -> Param<T>
    where
        T: NamedParameter;
    fn __ct_argument(&self) -> Param<T>;
}

impl<T: DeserializeOwned + JsonSchema, H> ViaOptionalArgument<Option<T>> for &&Slot<Option<T>, H> {
    fn __ct_param(&self) -> Param<Option<T>> {
        Param {
            describe: |name, doc, tool| {
                tool.input()
                    .variant_order_of::<T>()
                    .property::<Option<T>>(name, doc, false);
            },
            extract: |name, call| match call.take_argument(name) {
                None | Some(Value::Null) => Ok(None),
                Some(value) => deserialize_argument(name, value, call).map(Some),
            },
            describe_defaulted: |name, doc, default, tool| {
                tool.input()
                    .variant_order_of::<T>()
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

/// Level 3: required model arguments (deserializable, with a schema).
#[doc(hidden)]
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

impl<T: DeserializeOwned + JsonSchema, H> ViaRequiredArgument<T> for &Slot<T, H> {
    fn __ct_param(&self) -> Param<T>
    where
        T: ArgumentSchema,
    {
        Param {
            describe: |name, doc, tool| {
                tool.input()
                    .variant_order_of::<T>()
                    .property::<T>(name, doc, true);
            },
            extract: |name, call| match call.take_argument(name) {
                Some(value) => deserialize_argument(name, value, call),
                None => Err(call.invalid_arguments(&ArgumentError::missing(name))),
            },
            describe_defaulted: |name, doc, default, tool| {
                tool.input()
                    .variant_order_of::<T>()
                    .property_with_default::<T>(name, doc, default);
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

/// Level 4: a deserializable type without a schema, which is an error: the method's bound
/// carries the diagnostic. (The containers, `State<T>` and `Arc<T>` have inherent methods at
/// this step, which win over it.)
pub trait ViaDeserializeOnly<T> {
    fn __ct_param(&self) -> Param<T>
    where
        T: ArgumentSchema;
}

impl<T: DeserializeOwned> ViaDeserializeOnly<T> for Slot<T> {
    fn __ct_param(&self) -> Param<T>
    where
        T: ArgumentSchema,
    {
        unreachable!("every DeserializeOwned + JsonSchema type is handled by level 3")
    }
}

/// Level 5, taking the slot by value so that it comes after every `&self` method of level 4:
/// everything else, which is an error: the methods' bounds carry the diagnostics.
pub trait ViaAnything<T> {
    fn __ct_param(self) -> Param<T>
    where
        T: ModelArgument;
    fn __ct_pattern_param(self) -> Param<T>
    where
        T: NamedParameter;
    fn __ct_argument(&self) -> Param<T>
    where
        T: ModelArgument;
}

impl<T> ViaAnything<T> for Slot<T> {
    fn __ct_param(self) -> Param<T>
    where
        T: ModelArgument,
    {
        unreachable!("every DeserializeOwned type is handled by level 4")
    }

    fn __ct_pattern_param(self) -> Param<T>
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

pub mod duplicate_tool_name;

/// What a tool's expansion reads as `<Server>::__CT_SERVER_CRATE`: `false` wherever the
/// `pub(crate)` inherent constant `#[tool_server]` defines (`true`) is not visible, that is in
/// every crate but the server's (method probing skips an inherent item that is not accessible).
pub trait NotTheServerCrate {
    /// `false`: this crate cannot see the server's own constant.
    const __CT_SERVER_CRATE: bool = false;
}

impl<T: ?Sized> NotTheServerCrate for T {}

/// A type-level `if`: `<Pick<{c}> as Choose<A, B>>::Out` is `A` when `c`, else `B`.
pub struct Pick<const CONDITION: bool>;

/// See [`Pick`].
pub trait Choose<A: ?Sized, B: ?Sized> {
    /// The chosen type.
    type Out: ?Sized;
}

impl<A: ?Sized, B: ?Sized> Choose<A, B> for Pick<true> {
    type Out = A;
}

impl<A: ?Sized, B: ?Sized> Choose<A, B> for Pick<false> {
    type Out = B;
}

/// The length of `mcp__{server}__{tool}`, evaluated at compile time.
pub const fn qualified_name_len(server: &str, tool: &str) -> usize {
    "mcp__".len() + server.len() + "__".len() + tool.len()
}

/// The longest `mcp__{server}__{tool}` the Claude Code CLI accepts.
pub const MAX_QUALIFIED_NAME_LEN: usize = crate::tool::MAX_QUALIFIED_TOOL_NAME;

/// Text built at compile time, for a const assertion's message (a const panic can print a
/// `&str` but not format one). Longer text is cut.
pub struct ConstText {
    bytes: [u8; 512],
    len: usize,
}

impl ConstText {
    /// `text` followed by `more`.
    pub const fn then(mut self, more: &str) -> Self {
        let more = more.as_bytes();
        let mut i = 0;
        while i < more.len() && self.len < self.bytes.len() {
            self.bytes[self.len] = more[i];
            self.len += 1;
            i += 1;
        }
        self
    }

    /// The text followed by `number` in decimal.
    pub const fn then_number(mut self, number: usize) -> Self {
        let mut digits = [0u8; 20];
        let mut count = 0;
        let mut rest = number;
        loop {
            digits[count] = b'0' + (rest % 10) as u8;
            count += 1;
            rest /= 10;
            if rest == 0 {
                break;
            }
        }
        while count > 0 && self.len < self.bytes.len() {
            count -= 1;
            self.bytes[self.len] = digits[count];
            self.len += 1;
        }
        self
    }

    /// The text (cut at a character boundary, should the buffer have been too short).
    pub const fn as_str(&self) -> &str {
        let mut len = self.len;
        loop {
            match core::str::from_utf8(self.bytes.split_at(len).0) {
                Ok(text) => return text,
                Err(_) => len -= 1,
            }
        }
    }
}

/// What `#[tool]` reports when `mcp__{server}__{tool}` is too long: the full name, its length
/// and what to do.
pub const fn name_too_long(server: &str, tool: &str) -> ConstText {
    ConstText {
        bytes: [0; 512],
        len: 0,
    }
    .then("the tool's full name `mcp__")
    .then(server)
    .then("__")
    .then(tool)
    .then("` is ")
    .then_number(qualified_name_len(server, tool))
    .then(" characters, longer than the ")
    .then_number(MAX_QUALIFIED_NAME_LEN)
    .then(
        " the Claude Code CLI accepts: shorten the tool's name with #[tool(name = \"...\")] \
         or the server's name in #[tool_server(name = \"...\")]",
    )
}

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

/// What keeps the warning about a `'static` lifetime in a parameter's type off extractors (see
/// `static_lifetime` in the macros): for a `ToolParam`, this method is found before the
/// deprecated one of the parameter's own trait.
pub trait StaticExtractor {
    /// Nothing: an extractor's lifetime is its own business.
    fn __ct_static_lifetime(&self) {}
}

impl<T: ToolParam, H> StaticExtractor for &Slot<T, H> {}

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
