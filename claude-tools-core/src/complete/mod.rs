//! Completions (`completion/complete`): values a client offers its user while they type a
//! prompt's argument or a resource template's variable.
//!
//! An argument gets completions from a completer fn named in its attribute
//! (`#[prompt(server = S, complete(unit = unit_names))]`, [`Prompt::complete`](crate::prompt::Prompt::complete)),
//! or, when its type is an enum of names, from the enum's variants automatically.
//!
//! A completer gets what the user has typed of the argument (`&str`) and, when it takes a
//! second parameter, the [`CompletionContext`]: the other arguments the user has already filled
//! in, as the client sent them in `params.context.arguments` (MCP 2025-06-18), so that a `city`
//! can be completed knowing the `country`. In an attribute, either shape of fn is accepted
//! ([`IntoCompleter`]); by hand, [`Prompt::complete`](crate::prompt::Prompt::complete) takes the
//! first and [`Prompt::complete_with_context`](crate::prompt::Prompt::complete_with_context) the
//! second (the same on [`Resource`](crate::resource::Resource)).
//!
//! ```
//! use claude_tools::prelude::*;
//! use claude_tools::complete::CompletionContext;
//!
//! #[tool_server(name = "travel")]
//! pub struct Travel;
//!
//! /// The cities of the country already chosen, starting with what was typed.
//! fn cities(typed: &str, context: &CompletionContext) -> Vec<&'static str> {
//!     let cities: &[&str] = match context.get("country") {
//!         Some("France") => &["Lyon", "Paris"],
//!         Some("Japan") => &["Osaka", "Tokyo"],
//!         _ => &["Lyon", "Osaka", "Paris", "Tokyo"],
//!     };
//!     cities.iter().copied().filter(|city| city.starts_with(typed)).collect()
//! }
//!
//! /// Plan a trip.
//! #[prompt(server = Travel, complete(city = cities))]
//! fn trip(country: String, city: String) -> String {
//!     format!("Plan three days in {city}, {country}.")
//! }
//! # fn main() {}
//! ```

use std::collections::BTreeMap;
use std::fmt;
use std::sync::Arc;

use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::tool::{CallKind, StateMap, ToolCall, ToolContext, ToolParam};

mod into_completer;
pub use into_completer::{
    CompleteInContext, CompleteInContextWith, CompleteTyped, Extractors, InContextWith,
    IntoCompleter,
};

/// The most values one `completion/complete` answers (MCP's limit).
pub const MAX_COMPLETION_VALUES: usize = 100;

/// A completer: the values that complete `partial` (what the user has typed so far).
pub type Completer = Arc<dyn Fn(&str) -> Vec<String> + Send + Sync>;

/// A completer that also sees the arguments already filled in: the values that complete
/// `partial`, given the [`CompletionContext`].
pub type ContextCompleter = Arc<dyn Fn(&str, &CompletionContext) -> Vec<String> + Send + Sync>;

/// How one argument is completed.
#[derive(Clone)]
#[non_exhaustive]
pub enum ArgumentCompletion {
    /// By a fn, given what was typed.
    Completer(Completer),
    /// By a fn, given what was typed and the other arguments already filled in.
    WithContext(ContextCompleter),
    /// By the names of an enum: those that start with what was typed.
    Choices(Arc<[String]>),
    /// By a fn that also takes extractors (`State<T>`, `ToolContext`…), which may fail to be
    /// extracted (a state the server lacks): the failure is the completion's error.
    Extracting(ExtractingCompleter),
}

/// A completer taking extractors: the values, or why its extractors could not be extracted.
pub type ExtractingCompleter =
    Arc<dyn Fn(&str, &CompletionContext) -> Result<Vec<String>, String> + Send + Sync>;

impl ArgumentCompletion {
    /// The values completing `partial`, no other argument being known.
    pub fn complete(&self, partial: &str) -> Vec<String> {
        self.complete_in(partial, &CompletionContext::default())
    }

    /// The values completing `partial`, given the arguments already filled in (which only a
    /// [`WithContext`](Self::WithContext) completer reads).
    ///
    /// An [`Extracting`](Self::Extracting) completer whose extractors fail gives no values here;
    /// [`try_complete_in`](Self::try_complete_in) says why.
    pub fn complete_in(&self, partial: &str, context: &CompletionContext) -> Vec<String> {
        self.try_complete_in(partial, context).unwrap_or_default()
    }

    /// The values completing `partial`, or why the completer's extractors could not be
    /// extracted (what `completion/complete` answers `-32603`).
    pub fn try_complete_in(
        &self,
        partial: &str,
        context: &CompletionContext,
    ) -> Result<Vec<String>, String> {
        Ok(match self {
            ArgumentCompletion::Completer(completer) => completer(partial),
            ArgumentCompletion::WithContext(completer) => completer(partial, context),
            ArgumentCompletion::Choices(choices) => choices
                .iter()
                .filter(|choice| choice.starts_with(partial))
                .cloned()
                .collect(),
            ArgumentCompletion::Extracting(completer) => return completer(partial, context),
        })
    }
}

impl fmt::Debug for ArgumentCompletion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ArgumentCompletion::Completer(_) => f.write_str("Completer(..)"),
            ArgumentCompletion::WithContext(_) => f.write_str("WithContext(..)"),
            ArgumentCompletion::Choices(choices) => {
                f.debug_tuple("Choices").field(choices).finish()
            }
            ArgumentCompletion::Extracting(_) => f.write_str("Extracting(..)"),
        }
    }
}

/// The arguments a user has already filled in while completing another one: what the client
/// sent as `params.context.arguments` of `completion/complete` (MCP 2025-06-18), by name, each
/// as the string typed. Empty when the client sent none (older clients never do).
///
/// A completer taking it as its second parameter completes one argument knowing the others:
///
/// ```
/// use claude_tools::complete::CompletionContext;
///
/// fn cities(typed: &str, context: &CompletionContext) -> Vec<String> {
///     let cities: &[&str] = match context.get("country") {
///         Some("France") => &["Lyon", "Paris"],
///         Some("Japan") => &["Osaka", "Tokyo"],
///         _ => &["Lyon", "Osaka", "Paris", "Tokyo"],
///     };
///     cities.iter().filter(|city| city.starts_with(typed)).map(|city| city.to_string()).collect()
/// }
///
/// let japan = CompletionContext::from_iter([("country", "Japan")]);
/// assert_eq!(cities("", &japan), ["Osaka", "Tokyo"]);
/// assert_eq!(cities("P", &CompletionContext::default()), ["Paris"]);
///
/// // Typed, as prompt arguments are read: the text, else the text as JSON.
/// let context = CompletionContext::from_iter([("year", "2025"), ("nights", "many")]);
/// assert_eq!(context.parse::<u16>("year"), Some(2025));
/// assert_eq!(context.parse::<u32>("nights"), None); // not a number
/// assert_eq!(context.parse::<u32>("month"), None); // not filled in
/// ```
///
/// It also carries what a completer's extractors read (the request's context and the server's
/// state), so that a completer may take `State<T>` as a `#[tool]` does (see [`IntoCompleter`]).
#[derive(Debug, Clone, Default)]
pub struct CompletionContext {
    arguments: BTreeMap<String, String>,
    /// The request's context (its client, the caller's identity).
    request: ToolContext,
    /// The server's application state.
    state: Arc<StateMap>,
    /// What is completed: a prompt (its name) or a resource template (its URI template).
    target: Option<(CallKind, String)>,
}

/// Contexts are equal when their arguments are (the request and the state are not compared).
impl PartialEq for CompletionContext {
    fn eq(&self, other: &Self) -> bool {
        self.arguments == other.arguments
    }
}

impl Eq for CompletionContext {}

impl CompletionContext {
    /// A context of these arguments (name to the text filled in).
    pub fn new(arguments: BTreeMap<String, String>) -> Self {
        Self {
            arguments,
            ..Self::default()
        }
    }

    /// The same context, in the request `request` to the server `server`, completing an
    /// argument of `kind` `name` (a prompt's name, a resource template's URI): what the
    /// completer's extractors read. The router sets it on every `completion/complete`.
    pub(crate) fn in_request(
        mut self,
        request: ToolContext,
        state: Arc<StateMap>,
        kind: CallKind,
        name: &str,
    ) -> Self {
        self.request = request;
        self.state = state;
        self.target = Some((kind, name.to_string()));
        self
    }

    /// The context of the `completion/complete` request: its client, and the value the
    /// transport attached (over HTTP, the caller's identity; see
    /// [`ToolContext::extension`]).
    pub fn request(&self) -> &ToolContext {
        &self.request
    }

    /// Extractor `E` of a completer, read as a prompt's or resource's are.
    fn extract<E: ToolParam>(&self, name: &'static str) -> Result<E, String> {
        let (kind, target) = match &self.target {
            Some((kind, target)) => (*kind, target.as_str()),
            None => (CallKind::Prompt, ""),
        };
        let mut call =
            ToolCall::for_request(kind, target, self.request.clone(), self.state.clone());
        E::extract(name, &mut call).map_err(|error| error.message().to_string())
    }

    /// The text of argument `name`, if the user has filled it in.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.arguments.get(name).map(String::as_str)
    }

    /// Argument `name` parsed as a `T`, read as a prompt's arguments are (the text, else the
    /// text as JSON: `"42"` is a number, `"[1, 2]"` a list); `None` when it is not filled in or
    /// does not parse (use [`get`](Self::get) to tell the two apart).
    pub fn parse<T: DeserializeOwned>(&self, name: &str) -> Option<T> {
        crate::prompt::parse_text(self.get(name)?).ok()
    }

    /// Every argument filled in, by name.
    pub fn arguments(&self) -> &BTreeMap<String, String> {
        &self.arguments
    }

    /// Whether no argument is filled in.
    pub fn is_empty(&self) -> bool {
        self.arguments.is_empty()
    }

    /// The context of a `completion/complete`'s `params.context.arguments`: absent or `null`
    /// for none, else an object whose values are strings (a `null` one is left out, as in
    /// `prompts/get`); the problem otherwise, naming the argument.
    pub(crate) fn from_params(arguments: Option<Value>) -> Result<Self, String> {
        let object = match arguments {
            None | Some(Value::Null) => return Ok(Self::default()),
            Some(Value::Object(object)) => object,
            Some(_) => {
                return Err(
                    "`params.context.arguments` must be an object of strings (the arguments \
                     already filled in, by name)"
                        .to_string(),
                );
            }
        };
        let mut arguments = BTreeMap::new();
        for (name, value) in object {
            match value {
                Value::String(text) => {
                    arguments.insert(name, text);
                }
                Value::Null => {}
                other => {
                    return Err(format!(
                        "`params.context.arguments`: argument `{}`: arguments are strings, got {}",
                        crate::jsonrpc::echo(&name),
                        crate::jsonrpc::echo(&other.to_string())
                    ));
                }
            }
        }
        Ok(Self::new(arguments))
    }
}

impl<K: Into<String>, V: Into<String>> FromIterator<(K, V)> for CompletionContext {
    fn from_iter<I: IntoIterator<Item = (K, V)>>(arguments: I) -> Self {
        Self::new(
            arguments
                .into_iter()
                .map(|(name, text)| (name.into(), text.into()))
                .collect(),
        )
    }
}

/// The completions of a definition's arguments, by argument name.
pub(crate) type Completions = BTreeMap<String, ArgumentCompletion>;

/// The names of `T` when its JSON Schema is an enum of strings (a Rust enum of unit variants,
/// with its serde names), for completing an argument of type `T`; `None` for any other type.
///
/// ```
/// use claude_tools::prelude::*;
/// use claude_tools::complete::enum_choices;
///
/// #[derive(Deserialize, JsonSchema)]
/// #[serde(rename_all = "lowercase")]
/// enum Unit { Km, Mile }
///
/// assert_eq!(enum_choices::<Unit>(), Some(vec!["km".to_string(), "mile".to_string()]));
/// assert_eq!(enum_choices::<String>(), None);
/// ```
pub fn enum_choices<T: JsonSchema + ?Sized>() -> Option<Vec<String>> {
    let schema = schemars::SchemaGenerator::default().into_root_schema_for::<T>();
    choices_of(schema.as_value())
}

fn choices_of(schema: &Value) -> Option<Vec<String>> {
    if let Some(names) = schema.get("enum").and_then(Value::as_array) {
        return names
            .iter()
            .map(|name| name.as_str().map(String::from))
            .collect();
    }
    if let Some(name) = schema.get("const").and_then(Value::as_str) {
        return Some(vec![name.to_string()]);
    }
    let variants = schema
        .get("oneOf")
        .or_else(|| schema.get("anyOf"))
        .and_then(Value::as_array)?;
    let mut names = Vec::new();
    for variant in variants {
        names.extend(choices_of(variant)?);
    }
    Some(names)
}

/// The `params` of a `completion/complete`.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub(crate) struct CompleteParams {
    #[serde(rename = "ref")]
    pub(crate) reference: CompletionRef,
    pub(crate) argument: CompleteArgument,
    /// Absent, or `null`, from older clients.
    #[serde(default)]
    pub(crate) context: Option<CompleteContext>,
}

/// What is being completed: a prompt's argument or a resource template's variable.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(tag = "type")]
pub(crate) enum CompletionRef {
    #[serde(rename = "ref/prompt")]
    Prompt { name: String },
    #[serde(rename = "ref/resource")]
    Resource { uri: String },
}

/// The argument and what was typed of it.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub(crate) struct CompleteArgument {
    pub(crate) name: String,
    pub(crate) value: String,
}

/// `params.context` of a `completion/complete` (MCP 2025-06-18): the arguments already filled
/// in, read as sent and checked by [`CompletionContext::from_params`]; any other key is ignored.
#[derive(Debug, Clone, PartialEq, Default, Deserialize)]
pub(crate) struct CompleteContext {
    #[serde(default)]
    pub(crate) arguments: Option<Value>,
}

/// The result of `completion/complete`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CompleteResult {
    /// The completion.
    pub completion: Completion,
}

/// The values completing an argument.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Completion {
    /// At most [`MAX_COMPLETION_VALUES`] values.
    pub values: Vec<String>,
    /// How many values there are in all, when more than were sent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub total: Option<usize>,
    /// Whether there are more values than were sent.
    pub has_more: bool,
}

impl Completion {
    /// The first [`MAX_COMPLETION_VALUES`] of `values`, saying how many there were.
    pub fn from_values(mut values: Vec<String>) -> Self {
        let total = values.len();
        let has_more = total > MAX_COMPLETION_VALUES;
        values.truncate(MAX_COMPLETION_VALUES);
        Self {
            values,
            total: has_more.then_some(total),
            has_more,
        }
    }

    /// No values (an argument without completions).
    pub fn empty() -> Self {
        Self::from_values(Vec::new())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_list_is_cut_to_the_limit_and_says_so() {
        let values = (0..150).map(|n| n.to_string()).collect();
        let completion = Completion::from_values(values);
        assert_eq!(completion.values.len(), MAX_COMPLETION_VALUES);
        assert_eq!(completion.total, Some(150));
        assert!(completion.has_more);
        let short = Completion::from_values(vec!["a".into()]);
        assert_eq!((short.total, short.has_more), (None, false));
    }

    #[test]
    fn the_context_is_read_from_absent_null_or_an_object_of_strings() {
        assert!(CompletionContext::from_params(None).unwrap().is_empty());
        assert!(
            CompletionContext::from_params(Some(Value::Null))
                .unwrap()
                .is_empty()
        );
        let context = CompletionContext::from_params(Some(serde_json::json!({
            "country": "Japan",
            "year": "2025",
            "note": null,
        })))
        .unwrap();
        assert_eq!(context.get("country"), Some("Japan"));
        assert_eq!(context.get("note"), None, "a null argument is left out");
        assert_eq!(context.parse::<u16>("year"), Some(2025));
        assert_eq!(context.parse::<u16>("country"), None);
        assert_eq!(context.parse::<u16>("month"), None);
        assert_eq!(context.arguments().len(), 2);
    }

    #[test]
    fn a_context_argument_that_is_not_a_string_is_named() {
        let problem = CompletionContext::from_params(Some(
            serde_json::json!({"country": "Japan", "year": 2025}),
        ))
        .unwrap_err();
        assert_eq!(
            problem,
            "`params.context.arguments`: argument `year`: arguments are strings, got 2025"
        );
        let problem =
            CompletionContext::from_params(Some(serde_json::json!(["Japan"]))).unwrap_err();
        assert!(
            problem.contains("must be an object of strings"),
            "{problem}"
        );
    }

    #[test]
    fn the_context_of_the_params_is_optional_and_its_other_keys_ignored() {
        let read = |params: Value| serde_json::from_value::<CompleteParams>(params).unwrap();
        let plain = read(serde_json::json!({
            "ref": {"type": "ref/prompt", "name": "trip"},
            "argument": {"name": "city", "value": "P"},
        }));
        assert_eq!(plain.context, None);
        let null = read(serde_json::json!({
            "ref": {"type": "ref/prompt", "name": "trip"},
            "argument": {"name": "city", "value": "P"},
            "context": null,
        }));
        assert_eq!(null.context, None);
        let full = read(serde_json::json!({
            "ref": {"type": "ref/prompt", "name": "trip"},
            "argument": {"name": "city", "value": "P"},
            "context": {"arguments": {"country": "France"}, "later": true},
        }));
        assert_eq!(
            full.context.unwrap().arguments,
            Some(serde_json::json!({"country": "France"}))
        );
    }

    fn cities(typed: &str, context: &CompletionContext) -> Vec<&'static str> {
        let cities: &[&'static str] = match context.get("country") {
            Some("France") => &["Lyon", "Paris"],
            Some("Japan") => &["Osaka", "Tokyo"],
            _ => &["Lyon", "Osaka", "Paris", "Tokyo"],
        };
        cities
            .iter()
            .copied()
            .filter(|city| city.starts_with(typed))
            .collect()
    }

    // Returns an iterator borrowing what was typed: accepted as the attribute accepted it
    // before completers could take the context.
    fn units(typed: &str) -> impl Iterator<Item = &str> {
        ["ft", "in", "mi"]
            .into_iter()
            .filter(move |unit| unit.starts_with(typed))
    }

    #[test]
    fn a_completer_of_either_shape_sees_what_it_takes() {
        let france = CompletionContext::from_iter([("country", "France")]);
        let none = CompletionContext::default();
        let in_context = ArgumentCompletion::WithContext(cities.into_completer());
        assert_eq!(in_context.complete_in("", &france), ["Lyon", "Paris"]);
        assert_eq!(in_context.complete_in("O", &none), ["Osaka"]);
        assert_eq!(in_context.complete("T"), ["Tokyo"]);
        let typed = ArgumentCompletion::WithContext(units.into_completer());
        assert_eq!(typed.complete_in("m", &france), ["mi"]);
        let plain: Completer = Arc::new(|typed| vec![typed.to_uppercase()]);
        let plain = ArgumentCompletion::Completer(plain);
        assert_eq!(plain.complete_in("ft", &france), ["FT"]);
        let choices = ArgumentCompletion::Choices(["km", "mile"].map(String::from).into());
        assert_eq!(choices.complete_in("m", &france), ["mile"]);
    }

    #[test]
    fn choices_are_read_from_enum_and_one_of_schemas() {
        let value =
            serde_json::json!({"oneOf": [{"const": "a", "description": "A"}, {"enum": ["b"]}]});
        assert_eq!(choices_of(&value), Some(vec!["a".into(), "b".into()]));
        assert_eq!(choices_of(&serde_json::json!({"type": "string"})), None);
    }
}
