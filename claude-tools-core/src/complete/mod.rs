//! Completions (`completion/complete`): values a client offers its user while they type a
//! prompt's argument or a resource template's variable.
//!
//! An argument gets completions from a completer fn named in its attribute
//! (`#[prompt(server = S, complete(unit = unit_names))]`, [`Prompt::complete`](crate::prompt::Prompt::complete)),
//! or, when its type is an enum of names, from the enum's variants automatically.

use std::collections::BTreeMap;
use std::fmt;
use std::sync::Arc;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The most values one `completion/complete` answers (MCP's limit).
pub const MAX_COMPLETION_VALUES: usize = 100;

/// A completer: the values that complete `partial` (what the user has typed so far).
pub type Completer = Arc<dyn Fn(&str) -> Vec<String> + Send + Sync>;

/// How one argument is completed.
#[derive(Clone)]
pub enum ArgumentCompletion {
    /// By a fn, given what was typed.
    Completer(Completer),
    /// By the names of an enum: those that start with what was typed.
    Choices(Arc<[String]>),
}

impl ArgumentCompletion {
    /// The values completing `partial`.
    pub fn complete(&self, partial: &str) -> Vec<String> {
        match self {
            ArgumentCompletion::Completer(completer) => completer(partial),
            ArgumentCompletion::Choices(choices) => choices
                .iter()
                .filter(|choice| choice.starts_with(partial))
                .cloned()
                .collect(),
        }
    }
}

impl fmt::Debug for ArgumentCompletion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ArgumentCompletion::Completer(_) => f.write_str("Completer(..)"),
            ArgumentCompletion::Choices(choices) => {
                f.debug_tuple("Choices").field(choices).finish()
            }
        }
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
    fn choices_are_read_from_enum_and_one_of_schemas() {
        let value =
            serde_json::json!({"oneOf": [{"const": "a", "description": "A"}, {"enum": ["b"]}]});
        assert_eq!(choices_of(&value), Some(vec!["a".into(), "b".into()]));
        assert_eq!(choices_of(&serde_json::json!({"type": "string"})), None);
    }
}
