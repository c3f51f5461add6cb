//! The traits whose `#[diagnostic::on_unimplemented]` messages are the compile errors of a bad
//! tool parameter. Each is demanded by the bound of a dispatch method (see `dispatch`): some are
//! implemented for every type that qualifies, some never, so that the bound fails exactly on
//! the mistake it names.

use schemars::JsonSchema;
use serde::de::DeserializeOwned;

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
