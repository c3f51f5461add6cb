//! What a handler receives: the [`ToolCall`], and the [`ToolParam`] trait that turns it into
//! non-model parameters ([`State<T>`], [`ToolContext`], [`Input<T>`], or your own extractors).

use std::sync::Arc;

use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use super::context::ToolContext;
use super::def::ToolDefBuilder;
use super::error::{ArgumentError, ToolError};
use super::state::{State, StateMap};

/// One call of a tool: its arguments, its context and its server's state.
#[derive(Debug)]
pub struct ToolCall {
    tool: Arc<str>,
    arguments: Map<String, Value>,
    context: ToolContext,
    state: Arc<StateMap>,
}

impl ToolCall {
    pub(crate) fn new(
        tool: Arc<str>,
        arguments: Map<String, Value>,
        context: ToolContext,
        state: Arc<StateMap>,
    ) -> Self {
        Self {
            tool,
            arguments,
            context,
            state,
        }
    }

    /// The name of the tool being called.
    pub fn tool_name(&self) -> &str {
        &self.tool
    }

    /// The arguments the model sent.
    pub fn arguments(&self) -> &Map<String, Value> {
        &self.arguments
    }

    /// Takes one argument out of the call (so it is deserialized without a copy).
    pub fn take_argument(&mut self, name: &str) -> Option<Value> {
        self.arguments.remove(name)
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
    pub fn invalid_arguments(&self, error: &ArgumentError) -> ToolError {
        ToolError::new(format!(
            "Invalid arguments for tool `{}`: {error}",
            self.tool
        ))
    }
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
    /// Adds what this parameter contributes to the tool's definition: nothing by default.
    fn describe(name: &'static str, description: Option<&'static str>, tool: &mut ToolDefBuilder) {
        let _ = (name, description, tool);
    }

    /// Extracts the parameter's value for one call. An `Err` ends the call with an `isError`
    /// result carrying its message.
    fn extract(name: &'static str, call: &mut ToolCall) -> Result<Self, ToolError>;
}

impl<T: Send + Sync + 'static> ToolParam for State<T> {
    fn describe(_: &'static str, _: Option<&'static str>, tool: &mut ToolDefBuilder) {
        tool.requires_state::<T>();
    }

    fn extract(_: &'static str, call: &mut ToolCall) -> Result<Self, ToolError> {
        call.state::<T>().map(State).ok_or_else(|| {
            ToolError::new(format!(
                "tool `{}` needs State<{}>, which its server does not have",
                call.tool_name(),
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

/// The whole tool input as one struct: its fields are the input schema's properties.
///
/// ```
/// use claude_tools::tools::Input;
/// use schemars::JsonSchema;
/// use serde::Deserialize;
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
    fn describe(_: &'static str, _: Option<&'static str>, tool: &mut ToolDefBuilder) {
        tool.input().variant_order_of::<T>().flatten::<T>();
    }

    fn extract(_: &'static str, call: &mut ToolCall) -> Result<Self, ToolError> {
        // Borrowed: named parameters next to the struct may still take their arguments.
        let arguments = Value::Object(call.arguments.clone());
        serde_path_to_error::deserialize::<_, T>(arguments)
            .map(Input)
            .map_err(|error| {
                let path = error.path().to_string();
                let argument_error = if path == "." {
                    ArgumentError::whole(error.into_inner().to_string())
                } else {
                    ArgumentError::for_argument(path, error.into_inner().to_string())
                };
                call.invalid_arguments(&argument_error)
            })
    }
}
