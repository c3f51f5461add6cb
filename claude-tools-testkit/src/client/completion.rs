//! What a `completion/complete` asks: [`CompletionRequest`].

use std::collections::BTreeMap;

use super::wire;

/// What a completion is asked for: a prompt's argument or a resource template's variable, what
/// was typed of it, and the arguments already filled in.
///
/// ```
/// use claude_tools_testkit::CompletionRequest;
///
/// let request = CompletionRequest::prompt("trip", "city", "Par").with_context("country", "FR");
/// # let _ = request;
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct CompletionRequest {
    pub(super) reference: wire::CompletionRef,
    pub(super) argument: String,
    pub(super) value: String,
    pub(super) context: BTreeMap<String, String>,
}

impl CompletionRequest {
    /// Completes the argument `argument` of the prompt `prompt`, of which `typed` was typed.
    pub fn prompt(
        prompt: impl Into<String>,
        argument: impl Into<String>,
        typed: impl Into<String>,
    ) -> Self {
        Self::new(
            wire::CompletionRef::Prompt {
                name: prompt.into(),
            },
            argument,
            typed,
        )
    }

    /// Completes the variable `variable` of the resource template `uri_template` (as the
    /// template is written: `"shop://products/{sku}"`), of which `typed` was typed.
    pub fn resource(
        uri_template: impl Into<String>,
        variable: impl Into<String>,
        typed: impl Into<String>,
    ) -> Self {
        Self::new(
            wire::CompletionRef::Resource {
                uri: uri_template.into(),
            },
            variable,
            typed,
        )
    }

    fn new(
        reference: wire::CompletionRef,
        argument: impl Into<String>,
        typed: impl Into<String>,
    ) -> Self {
        Self {
            reference,
            argument: argument.into(),
            value: typed.into(),
            context: BTreeMap::new(),
        }
    }

    /// The same request, saying the argument `name` was already filled in with `value` (the
    /// completer reads it in its `CompletionContext`).
    pub fn with_context(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.context.insert(name.into(), value.into());
        self
    }
}
