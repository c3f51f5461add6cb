//! [`PromptArguments`]: the string arguments of a `prompts/get`, parsed into typed values.

use std::collections::BTreeMap;
use std::sync::Arc;

use serde::de::DeserializeOwned;

use super::{PromptError, parse_text};
use crate::tool::StateMap;

/// The arguments of one `prompts/get`, as the client sent them: MCP prompt arguments are
/// strings. [`required`](Self::required) and [`optional`](Self::optional) parse one into any
/// `Deserialize` type: the text itself for strings, enums (a variant's name) and other types
/// read from a string (dates, UUIDs…), else the text read as JSON (numbers, booleans).
///
/// ```
/// use claude_tools::prompts::PromptArguments;
///
/// let mut args = PromptArguments::from_iter([("count", "3"), ("unit", "km")]);
/// assert_eq!(args.required::<u32>("count").unwrap(), 3);
/// assert_eq!(args.optional::<String>("unit").unwrap().as_deref(), Some("km"));
/// assert_eq!(args.optional::<bool>("verbose").unwrap(), None);
/// assert_eq!(
///     args.required::<u32>("missing").unwrap_err().to_string(),
///     "argument `missing`: missing required argument"
/// );
/// ```
#[derive(Debug, Clone, Default)]
pub struct PromptArguments {
    values: BTreeMap<String, String>,
    context: crate::tool::ToolContext,
    /// The server's application state, for the prompt's extractors (`State<T>`); the router
    /// sets it from the server serving the request.
    state: Arc<StateMap>,
}

/// Arguments are equal when their values are (their contexts are not compared).
impl PartialEq for PromptArguments {
    fn eq(&self, other: &Self) -> bool {
        self.values == other.values
    }
}

impl PromptArguments {
    /// The arguments of a request.
    pub fn new(values: BTreeMap<String, String>) -> Self {
        Self {
            values,
            context: crate::tool::ToolContext::new(),
            state: Arc::default(),
        }
    }

    /// The same arguments, with the application state of `server` (what a `State<T>`
    /// parameter of a `#[prompt]` fn reads). The router sets it on every `prompts/get`;
    /// [`ToolServer::get_prompt`](crate::tool::ToolServer::get_prompt) does too.
    pub fn with_state_of(mut self, server: &crate::tool::ToolServer) -> Self {
        self.state = server.state_map();
        self
    }

    /// The same arguments, with the state `state`.
    pub(crate) fn with_state(mut self, state: Arc<StateMap>) -> Self {
        self.state = state;
        self
    }

    /// The call a `#[prompt]` fn's extractors read: no arguments, this request's context and
    /// the server's state. Macro support.
    #[doc(hidden)]
    pub fn extractor_call(&self, prompt: &str) -> crate::tool::ToolCall {
        crate::tool::ToolCall::for_request(
            crate::tool::CallKind::Prompt,
            prompt,
            self.context.clone(),
            self.state.clone(),
        )
    }

    /// The same arguments, in the context `context` (the router sets one with the request's
    /// client).
    pub fn with_context(mut self, context: crate::tool::ToolContext) -> Self {
        self.context = context;
        self
    }

    /// The request's context: to ask the client a question while the prompt is built
    /// ([`ToolContext::elicit`](crate::tool::ToolContext::elicit), [`ToolContext::question`](crate::tool::ToolContext::question)),
    /// as a tool does, on every MCP revision.
    pub fn context(&self) -> &crate::tool::ToolContext {
        &self.context
    }

    /// The text of argument `name`, if given.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.values.get(name).map(String::as_str)
    }

    /// Every argument, by name.
    pub fn values(&self) -> &BTreeMap<String, String> {
        &self.values
    }

    /// Argument `name` parsed as a `T`; an error naming it when it is missing or does not
    /// parse.
    pub fn required<T: DeserializeOwned>(&mut self, name: &str) -> Result<T, PromptError> {
        match self.values.remove(name) {
            Some(text) => {
                parse_text(&text).map_err(|problem| PromptError::invalid_argument(name, problem))
            }
            None => Err(PromptError::invalid_argument(
                name,
                "missing required argument",
            )),
        }
    }

    /// Argument `name` parsed as a `T`, `None` when it is missing; an error naming it when it
    /// does not parse.
    pub fn optional<T: DeserializeOwned>(&mut self, name: &str) -> Result<Option<T>, PromptError> {
        match self.values.remove(name) {
            Some(text) => parse_text(&text)
                .map(Some)
                .map_err(|problem| PromptError::invalid_argument(name, problem)),
            None => Ok(None),
        }
    }

    /// The names of arguments not taken by [`required`](Self::required) or
    /// [`optional`](Self::optional) yet.
    pub fn remaining(&self) -> impl Iterator<Item = &str> {
        self.values.keys().map(String::as_str)
    }
}

impl<K: Into<String>, V: Into<String>> FromIterator<(K, V)> for PromptArguments {
    fn from_iter<I: IntoIterator<Item = (K, V)>>(iter: I) -> Self {
        Self::new(
            iter.into_iter()
                .map(|(name, value)| (name.into(), value.into()))
                .collect(),
        )
    }
}
