//! What a handler receives: the [`ToolCall`], and the [`ToolParam`] trait that turns it into
//! non-model parameters ([`State<T>`], [`ToolContext`], [`Input<T>`], or your own extractors).

use std::sync::{Arc, OnceLock};

use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use super::arguments::Entries;
use super::context::ToolContext;
use super::def::ToolDefBuilder;
use super::error::{ArgumentError, ToolError};
use super::state::{State, StateMap};

/// One call of a tool: its arguments, its context and its server's state.
///
/// A `#[prompt]` or `#[resource]` fn's extractors read a call too, with no arguments: the
/// request's context and the server's state, the prompt's name or the resource's URI as its
/// name, and its [`kind`](ToolCall::kind) saying which (so that an extractor's error names a
/// prompt as a prompt).
#[derive(Debug)]
pub struct ToolCall {
    tool: Arc<str>,
    kind: CallKind,
    /// The arguments not taken yet, read without building a `Map` (see [`Entries`]).
    arguments: Entries,
    /// The `Map` [`ToolCall::arguments`] hands out, built on the first ask and dropped when an
    /// argument is taken. Boxed: one word in every call, which seldom needs it.
    arguments_map: OnceLock<Box<Map<String, Value>>>,
    context: ToolContext,
    state: Arc<StateMap>,
    /// Problems found before the handler ran (unknown arguments), reported together with the
    /// handler's own extraction errors. `None` for a good call: boxed, so that it adds one
    /// word to every call's future, not three.
    #[allow(clippy::box_collection, reason = "one word in every call, not three")]
    argument_errors: Option<Box<Vec<ArgumentError>>>,
}

impl ToolCall {
    pub(crate) fn new(
        tool: Arc<str>,
        arguments: Entries,
        context: ToolContext,
        state: Arc<StateMap>,
    ) -> Self {
        Self {
            tool,
            kind: CallKind::Tool,
            arguments,
            arguments_map: OnceLock::new(),
            context,
            state,
            argument_errors: None,
        }
    }

    /// The call an extractor of a `#[prompt]` or `#[resource]` fn reads: no arguments, the
    /// request's context and the server's state; `name` is the prompt's name or the URI read.
    pub(crate) fn for_request(
        kind: CallKind,
        name: &str,
        context: ToolContext,
        state: Arc<StateMap>,
    ) -> Self {
        let mut call = Self::new(Arc::from(name), Entries::default(), context, state);
        call.kind = kind;
        call
    }

    /// The name of the tool being called (of a prompt's extractors, the prompt's name; of a
    /// resource's, the URI read).
    pub fn tool_name(&self) -> &str {
        &self.tool
    }

    /// [`tool_name`](ToolCall::tool_name) as the shared string the call holds.
    pub(crate) fn tool_arc(&self) -> Arc<str> {
        self.tool.clone()
    }

    /// What is being served: a tool call, or the `prompts/get` or `resources/read` whose
    /// extractors read this call.
    pub fn kind(&self) -> CallKind {
        self.kind
    }

    /// `tool `add``, `prompt `reply``, `resource `desk://hours``: what an extractor's error
    /// names.
    pub fn subject(&self) -> String {
        format!("{} `{}`", self.kind, self.tool)
    }

    /// The arguments the model sent (less those taken out), in the order it sent them.
    ///
    /// The map is built on the first call (the arguments are held in a cheaper form until a
    /// handler asks for them), and again after [`take_argument`](ToolCall::take_argument).
    pub fn arguments(&self) -> &Map<String, Value> {
        self.arguments_map
            .get_or_init(|| Box::new(self.arguments.to_map()))
    }

    /// Takes one argument out of the call (so it is deserialized without a copy). The other
    /// arguments keep their order.
    pub fn take_argument(&mut self, name: &str) -> Option<Value> {
        let taken = self.arguments.take(name)?;
        self.arguments_map.take();
        Some(taken)
    }

    /// The call's context.
    pub fn context(&self) -> &ToolContext {
        &self.context
    }

    /// The server's state of type `T`, if it has one.
    pub fn state<T: Send + Sync + 'static>(&self) -> Option<Arc<T>> {
        self.state.get::<T>()
    }

    /// Formats an argument problem the way the model reads it.
    ///
    /// The error keeps `error` too: when a `#[tool]` fn has several parameters, the problems of
    /// all of them reach the model in one result.
    pub fn invalid_arguments(&self, error: &ArgumentError) -> ToolError {
        ToolError::invalid_arguments(&self.tool, vec![error.clone()])
    }

    /// Takes every argument that is not one of `properties` (the input schema's) out of the
    /// call, and records them as one problem naming each of them and the accepted ones.
    pub(crate) fn reject_unknown_arguments(&mut self, properties: Option<&Map<String, Value>>) {
        let is_known = |name: &str| properties.is_some_and(|known| known.contains_key(name));
        if self.arguments.names().all(is_known) {
            return;
        }
        let unknown = self.arguments.take_unless(is_known);
        self.arguments_map.take();
        self.argument_errors
            .get_or_insert_with(Box::default)
            .push(unknown_arguments(&unknown, properties));
    }

    /// Takes out every argument named by the Rust name of a renamed one (`(rust name,
    /// property)` pairs), recording one problem for each that points at the property.
    pub(crate) fn reject_rust_names(&mut self, rust_names: &[(Box<str>, Box<str>)]) {
        for (rust, property) in rust_names {
            if self.arguments.take(rust).is_some() {
                self.arguments_map.take();
                self.argument_errors
                    .get_or_insert_with(Box::default)
                    .push(ArgumentError::whole(format!(
                        "unknown argument `{rust}`: did you mean `{property}`?"
                    )));
            }
        }
    }

    /// Whether a problem was found before the handler ran.
    pub(crate) fn has_argument_errors(&self) -> bool {
        self.argument_errors.is_some()
    }

    /// The problems found before the handler ran.
    pub(crate) fn take_argument_errors(&mut self) -> Vec<ArgumentError> {
        self.argument_errors
            .take()
            .map_or_else(Vec::new, |errors| *errors)
    }
}

/// What a [`ToolCall`] serves: a tool's call, or the request of a prompt or a resource whose
/// extractors read it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum CallKind {
    /// A `tools/call`.
    Tool,
    /// A `prompts/get`: the call has no arguments (a prompt's arguments are its other
    /// parameters).
    Prompt,
    /// A `resources/read`: the call has no arguments (the URI's variables are the fn's other
    /// parameters).
    Resource,
}

impl std::fmt::Display for CallKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            CallKind::Tool => "tool",
            CallKind::Prompt => "prompt",
            CallKind::Resource => "resource",
        })
    }
}

/// `unknown arguments `a`, `b`: the tool accepts only `x`, `y``.
fn unknown_arguments(unknown: &[String], properties: Option<&Map<String, Value>>) -> ArgumentError {
    let quoted = |names: &mut dyn Iterator<Item = &String>| {
        names
            .map(|name| format!("`{name}`"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let what = if unknown.len() == 1 {
        "unknown argument"
    } else {
        "unknown arguments"
    };
    let accepted = match properties {
        Some(known) if !known.is_empty() => {
            format!("the tool accepts only {}", quoted(&mut known.keys()))
        }
        _ => "the tool takes no arguments".to_string(),
    };
    ArgumentError::whole(format!(
        "{what} {}: {accepted}",
        quoted(&mut unknown.iter())
    ))
}

/// A handler parameter that is not a model argument: it is extracted from the [`ToolCall`]
/// instead of being deserialized from the arguments, and adds nothing (or, for [`Input<T>`],
/// everything) to the input schema.
///
/// `#[tool]` decides by this trait, not by a type's name: any parameter type implementing
/// `ToolParam` is an extractor; every other parameter is a model argument and must implement
/// `Deserialize` and `JsonSchema`. Implement it for your own extractors.
///
/// ```
/// use claude_tools::tools::{ToolCall, ToolError, ToolParam};
///
/// /// The tool_use id, or "local" outside the CLI.
/// struct CallId(String);
///
/// impl ToolParam for CallId {
///     fn extract(_name: &'static str, call: &mut ToolCall) -> Result<Self, ToolError> {
///         Ok(CallId(call.context().tool_use_id().unwrap_or("local").to_string()))
///     }
/// }
/// ```
pub trait ToolParam: Sized + Send + 'static {
    /// Whether a handler can reach the client through this parameter: ask it something
    /// (elicitation, sampling, roots) or send it something before the result (progress, log
    /// messages). A [`ToolContext`] can. `true` unless a type says otherwise; [`State`],
    /// [`Extension`], [`Input`] and a `CancellationToken` cannot. A tool none of whose
    /// parameters can is answered without the machinery of questions and streams (at MCP
    /// 2026-07-28 no round to bind, nothing to seal; over HTTP a plain JSON answer, even to a
    /// client that gave a progress token), which makes its calls cheaper. A type that holds a
    /// [`ToolContext`] must keep the default.
    const MAY_ASK: bool = true;

    /// Adds what this parameter contributes to the tool's definition: nothing by default.
    fn describe(name: &'static str, description: Option<&'static str>, tool: &mut ToolDefBuilder) {
        let _ = (name, description, tool);
    }

    /// Extracts the parameter's value for one call. An `Err` ends the call with an `isError`
    /// result carrying its message. Every parameter of a `#[tool]` is extracted before the call
    /// fails, and an error made with [`ToolCall::invalid_arguments`] is listed with the other
    /// parameters' argument problems in one message.
    fn extract(name: &'static str, call: &mut ToolCall) -> Result<Self, ToolError>;
}

impl<T: Send + Sync + 'static> ToolParam for State<T> {
    const MAY_ASK: bool = false;

    fn describe(_: &'static str, _: Option<&'static str>, tool: &mut ToolDefBuilder) {
        tool.requires_state::<T>();
    }

    fn extract(_: &'static str, call: &mut ToolCall) -> Result<Self, ToolError> {
        call.state::<T>().map(State).ok_or_else(|| {
            ToolError::new(format!(
                "{} needs State<{}>, which its server does not have",
                call.subject(),
                std::any::type_name::<T>()
            ))
        })
    }
}

impl ToolParam for ToolContext {
    fn extract(_: &'static str, call: &mut ToolCall) -> Result<Self, ToolError> {
        Ok(call.context.clone())
    }
}

/// The call's cancellation token (the same as [`ToolContext::cancellation_token`]): it fires
/// when the client withdraws the request, for a handler that only needs to stop early.
impl ToolParam for tokio_util::sync::CancellationToken {
    const MAY_ASK: bool = false;

    fn extract(_: &'static str, call: &mut ToolCall) -> Result<Self, ToolError> {
        Ok(call.context.cancellation_token().clone())
    }
}

/// The value the transport attached to the call (see [`ToolContext::extension`]), as a
/// `#[tool]` parameter: over HTTP, the caller's identity the auth hook returned with
/// `AuthDecision::allow_with`. It derefs to `T`. A call without a `T` attached (no hook, a hook
/// that answered plain `Allow` or attached another type, or in-process and stdio calls) ends
/// with an `isError` result naming the missing type; take `ToolContext` and call
/// [`ToolContext::extension`] instead where a tool also serves such calls.
///
/// ```
/// use claude_tools::tools::Extension;
///
/// struct Tenant {
///     id: u64,
/// }
///
/// // #[tool] async fn list_tickets(tenant: Extension<Tenant>) -> String { ... }
/// async fn list_tickets(tenant: Extension<Tenant>) -> String {
///     format!("SELECT * FROM tickets WHERE tenant_id = {}", tenant.id)
/// }
/// ```
pub struct Extension<T: ?Sized>(pub Arc<T>);

impl<T: ?Sized> std::ops::Deref for Extension<T> {
    type Target = T;

    fn deref(&self) -> &T {
        &self.0
    }
}

impl<T: ?Sized> Clone for Extension<T> {
    fn clone(&self) -> Self {
        Extension(self.0.clone())
    }
}

impl<T: ?Sized + std::fmt::Debug> std::fmt::Debug for Extension<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("Extension").field(&&*self.0).finish()
    }
}

impl<T: Send + Sync + 'static> ToolParam for Extension<T> {
    const MAY_ASK: bool = false;

    fn extract(_: &'static str, call: &mut ToolCall) -> Result<Self, ToolError> {
        call.context
            .extension_arc::<T>()
            .map(Extension)
            .ok_or_else(|| {
                ToolError::new(format!(
                    "{} needs Extension<{}>, which this call does not carry (over HTTP, the \
                 auth hook attaches it with AuthDecision::allow_with)",
                    call.subject(),
                    std::any::type_name::<T>()
                ))
            })
    }
}

/// The whole tool input as one struct: its fields are the input schema's properties.
///
/// ```
/// use claude_tools::prelude::*;
///
/// #[derive(Deserialize, JsonSchema)]
/// struct Search {
///     /// What to look for
///     query: String,
///     /// At most this many hits
///     limit: Option<u32>,
/// }
///
/// async fn search(Input(search): Input<Search>) -> String {
///     format!("{} (limit {:?})", search.query, search.limit)
/// }
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Input<T>(pub T);

impl<T: DeserializeOwned + JsonSchema + Send + 'static> ToolParam for Input<T> {
    const MAY_ASK: bool = false;

    fn describe(_: &'static str, _: Option<&'static str>, tool: &mut ToolDefBuilder) {
        tool.input().variant_order_of::<T>().flatten::<T>();
    }

    fn extract(_: &'static str, call: &mut ToolCall) -> Result<Self, ToolError> {
        // Borrowed: named parameters next to the struct may still take their arguments. Read
        // straight from the arguments when that works; otherwise (an error to report, or a
        // type that is not read as a map) from a `Map` of them, whose errors the model reads.
        if let Ok(input) = call.arguments.deserialize::<T>() {
            return Ok(Input(input));
        }
        serde_path_to_error::deserialize::<_, T>(Value::Object(call.arguments.to_map()))
            .map(Input)
            .map_err(|error| {
                let errors = whole_input_errors::<T>(&call.arguments, error);
                ToolError::invalid_arguments(&call.tool, errors)
            })
    }
}

/// Every problem of a whole-input struct that serde can be made to tell: serde stops at its
/// first error, so each required property (of the schema the model was given) that is absent is
/// listed first, then serde's own error with its path, unless it only repeats a missing one.
fn whole_input_errors<T: JsonSchema>(
    arguments: &Entries,
    error: serde_path_to_error::Error<serde_json::Error>,
) -> Vec<ArgumentError> {
    let mut errors: Vec<ArgumentError> = required_properties::<T>()
        .into_iter()
        .filter(|name| !arguments.contains(name))
        .map(|name| ArgumentError::missing(&name))
        .collect();
    let path = error.path().to_string();
    let message = error.into_inner().to_string();
    let serde_error = if path == "." {
        match missing_field(&message) {
            Some(name) => ArgumentError::missing(name),
            None => ArgumentError::whole(message),
        }
    } else {
        ArgumentError::for_argument(path.replace(".[", "["), message)
    };
    if !errors.contains(&serde_error) {
        errors.push(serde_error);
    }
    errors
}

/// The `required` list of `T`'s input schema (built again: this runs only for a failed call).
fn required_properties<T: JsonSchema>() -> Vec<String> {
    let mut builder = crate::schema::InputSchemaBuilder::new();
    builder.flatten::<T>();
    match builder
        .finish()
        .ok()
        .and_then(|mut schema| schema.remove("required"))
    {
        Some(Value::Array(names)) => names
            .into_iter()
            .filter_map(|name| match name {
                Value::String(name) => Some(name),
                _ => None,
            })
            .collect(),
        _ => Vec::new(),
    }
}

/// `x` of serde_json's "missing field `x`" (at the root; the message carries no position then).
fn missing_field(message: &str) -> Option<&str> {
    message.strip_prefix("missing field `")?.strip_suffix('`')
}
