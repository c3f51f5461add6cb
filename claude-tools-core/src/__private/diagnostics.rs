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
    message = "`State<{Self}>` cannot be a parameter: `{Self}` is not `Send + Sync`",
    label = "the server shares one `{Self}` with every call, on any thread",
    note = "use thread-safe types in the state (`Mutex<T>` or `RwLock<T>` around what the tools, \
            prompts and resources change, `AtomicU32` instead of `Cell<u32>`, `Arc` instead of `Rc`)"
)]
pub trait SharedState {}

impl<T: Send + Sync + 'static> SharedState for T {}

/// Never implemented: demanded of `T` in an `Arc<T>` parameter that the model cannot send.
#[diagnostic::on_unimplemented(
    message = "`Arc<{Self}>` cannot be a parameter: take shared state as `State<{Self}>`",
    label = "no client can send an `Arc<{Self}>`, and it is not an extractor",
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

// The compile errors of a bad `#[prompt]` or `#[resource]` parameter (see `catalog`).

/// What a prompt parameter that is not an extractor must be first: deserializable (from the
/// string the client sends).
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a prompt parameter",
    label = "neither an extractor nor an argument the client can send",
    note = "a prompt argument is a string the client sends, parsed into the parameter's type: it must \
            implement serde::Deserialize and schemars::JsonSchema (add #[derive(Deserialize, JsonSchema)], \
            both in claude_tools::prelude), and own its data (`String`, not `&str`)",
    note = "a parameter the client does not fill in is an extractor, implementing claude_tools::ToolParam \
            as a tool's are: State<T> (the server's state), ToolContext (the request's context), \
            Extension<T> (the caller's identity over HTTP)"
)]
#[doc(hidden)]
pub trait PromptParameter: DeserializeOwned {}

impl<T: DeserializeOwned> PromptParameter for T {}

/// What a deserializable prompt argument must also be: described by a schema.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a prompt argument: it has no JSON Schema",
    label = "the argument's completions and description come from its schema",
    note = "add #[derive(JsonSchema)] (claude_tools::JsonSchema) next to #[derive(Deserialize)] on the type",
    note = "a parameter the client does not fill in is an extractor, implementing claude_tools::ToolParam \
            (State<T>, ToolContext, Extension<T>)"
)]
#[doc(hidden)]
pub trait TextSchema: JsonSchema {}

impl<T: JsonSchema> TextSchema for T {}

/// Never implemented: demanded of a prompt argument written as a pattern.
#[diagnostic::on_unimplemented(
    message = "a prompt argument of type `{Self}` needs a plain name",
    label = "not an extractor, so the client fills it in, and it needs a name",
    note = "write `name: Type`; the name is the prompt argument's",
    note = "patterns like `State(db): State<Db>` are only for extractors (types implementing \
            claude_tools::ToolParam)"
)]
#[doc(hidden)]
pub trait NamedArgument {}

/// What a `#[resource]` parameter named after a variable of the URI template must be first:
/// deserializable (from the variable's text).
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be parsed from a URI variable",
    label = "this parameter is named after a variable of the URI template, so it is parsed from the URI",
    note = "a URI variable's type must implement serde::Deserialize and schemars::JsonSchema (add \
            #[derive(Deserialize, JsonSchema)], both in claude_tools::prelude), and own its data \
            (`String`, not `&str`)",
    note = "to take an extractor (State<T>, ToolContext, Extension<T>) instead, give the parameter a \
            name that is not a variable of `uri`"
)]
#[doc(hidden)]
pub trait UriVariableText: DeserializeOwned {}

impl<T: DeserializeOwned> UriVariableText for T {}

/// What a deserializable URI variable must also be: described by a schema.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a URI variable: it has no JSON Schema",
    label = "the variable's completions come from its schema",
    note = "add #[derive(JsonSchema)] (claude_tools::JsonSchema) next to #[derive(Deserialize)] on the type"
)]
#[doc(hidden)]
pub trait UriVariableSchema: JsonSchema {}

impl<T: JsonSchema> UriVariableSchema for T {}

/// Never implemented: demanded of a `#[resource]` parameter that is not named after a variable of
/// the URI template and is not an extractor.
#[diagnostic::on_unimplemented(
    message = "this `{Self}` parameter is neither a variable of the URI template nor an extractor",
    label = "its name is not a variable of `uri`, and `{Self}` is not an extractor",
    note = "a #[resource] parameter is either a variable of its URI template, named as in the template \
            (`uri = \"tickets://{{id}}\"` and `id: u32`), or an extractor the server fills in, \
            implementing claude_tools::ToolParam as a tool's are: State<T> (the server's state), \
            ToolContext (the request's context), Extension<T> (the caller's identity over HTTP)",
    note = "add the variable to `uri`, name the parameter after a variable, or remove it"
)]
#[doc(hidden)]
pub trait UriVariableOrExtractor {}

/// Never implemented: demanded of an `Input<T>` parameter of a prompt or a resource.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is a tool's whole input: a prompt or a resource has none",
    label = "there is no JSON input for it to read",
    note = "a prompt's arguments are its other parameters, each a string the client sends; a resource's \
            are the variables of its URI template: take each as its own parameter"
)]
#[doc(hidden)]
pub trait WholeInputOfATool {}
