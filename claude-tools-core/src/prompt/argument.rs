//! [`PromptArguments`]: the string arguments of a `prompts/get`, parsed into typed values.

use std::collections::BTreeMap;

use serde::de::value::StrDeserializer;
use serde::de::{DeserializeOwned, IntoDeserializer};

use super::PromptError;

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
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PromptArguments {
    values: BTreeMap<String, String>,
}

impl PromptArguments {
    /// The arguments of a request.
    pub fn new(values: BTreeMap<String, String>) -> Self {
        Self { values }
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

/// Parses a string argument (a prompt's, a URI template's variable) into a `T`: first as the
/// string itself (strings, enum variants, types read from a string), then as JSON text
/// (numbers, booleans). The error is the one that says most: the JSON reading's when the text
/// is JSON, else the string reading's.
pub(crate) fn parse_text<T: DeserializeOwned>(text: &str) -> Result<T, String> {
    let as_str: StrDeserializer<'_, serde_json::Error> = text.into_deserializer();
    let first = match T::deserialize(as_str) {
        Ok(value) => return Ok(value),
        Err(error) => error,
    };
    // Through a `Value`, so that the error has no line and column: the text is one argument.
    match serde_json::from_str::<serde_json::Value>(text) {
        Ok(value) => serde_json::from_value(value).map_err(|error| error.to_string()),
        Err(_) => Err(first.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, PartialEq, serde::Deserialize)]
    #[serde(rename_all = "lowercase")]
    enum Unit {
        Km,
        Mile,
    }

    #[test]
    fn strings_numbers_booleans_and_enums_parse_from_text() {
        assert_eq!(parse_text::<String>("42").unwrap(), "42");
        assert_eq!(parse_text::<String>("\"q\"").unwrap(), "\"q\"");
        assert_eq!(parse_text::<u32>("42").unwrap(), 42);
        assert_eq!(parse_text::<f64>("1.5").unwrap(), 1.5);
        assert!(parse_text::<bool>("true").unwrap());
        assert_eq!(parse_text::<Unit>("mile").unwrap(), Unit::Mile);
        assert_eq!(parse_text::<Unit>("km").unwrap(), Unit::Km);
    }

    #[test]
    fn errors_say_what_was_expected() {
        assert_eq!(
            parse_text::<u32>("abc").unwrap_err(),
            "invalid type: string \"abc\", expected u32"
        );
        assert_eq!(
            parse_text::<u32>("-1").unwrap_err(),
            "invalid value: integer `-1`, expected u32"
        );
        assert_eq!(
            parse_text::<Unit>("parsec").unwrap_err(),
            "unknown variant `parsec`, expected `km` or `mile`"
        );
    }
}
