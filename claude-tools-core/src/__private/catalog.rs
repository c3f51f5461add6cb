//! What `#[prompt]` and `#[resource]` expand to: the registration, the classification of a
//! prompt's parameters (required or `Option`), and the checks whose diagnostics are the
//! compile errors of a bad parameter or return type.

use std::future::Future;
use std::marker::PhantomData;

use schemars::JsonSchema;
use serde::de::DeserializeOwned;

pub use crate::catalog::{CatalogEntry, CatalogRegistration};
pub use crate::complete::{CompletionContext, ContextCompleter};
pub use crate::prompt::{
    GetPromptResult, IntoPromptResult, Prompt, PromptArguments, PromptError, PromptFuture,
};
pub use crate::resource::{
    IntoResourceContents, Resource, ResourceContents, ResourceError, ResourceFuture,
    ResourceRequest,
};

/// A type a prompt argument or a URI variable may have: parsed from a string.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be parsed from a prompt argument or a URI variable",
    label = "not `Deserialize + JsonSchema`",
    note = "prompt arguments and URI template variables are strings on the wire, parsed into the parameter's type: it must implement `Deserialize` and `JsonSchema` (derive both from `claude_tools::prelude`); take an owned type (`String`, not `&str`)"
)]
pub trait TextArgument: DeserializeOwned + JsonSchema {}

impl<T: DeserializeOwned + JsonSchema> TextArgument for T {}

/// A stand-in for a prompt parameter of type `T`: `(&&PromptSlot::<T>::NEW).__ct_prompt_argument()`
/// finds the optional form for an `Option<T>`, else the required one.
pub struct PromptSlot<T>(PhantomData<fn() -> T>);

impl<T> PromptSlot<T> {
    /// The slot of `T`.
    pub const NEW: Self = PromptSlot(PhantomData);
}

/// How one prompt parameter is described and extracted.
pub struct PromptParam<T> {
    required: bool,
    choices: fn() -> Option<Vec<String>>,
    extract: fn(&mut PromptArguments, &str) -> Result<T, PromptError>,
}

impl<T> PromptParam<T> {
    /// Adds the argument to `prompt`, with its enum's names as completions.
    pub fn describe(&self, prompt: Prompt, name: &str, doc: Option<&str>) -> Prompt {
        let prompt = prompt.argument(name, doc.unwrap_or_default(), self.required);
        match (self.choices)() {
            Some(choices) => prompt.complete_from(name, choices),
            None => prompt,
        }
    }

    /// Extracts the argument from the request.
    pub fn extract(&self, arguments: &mut PromptArguments, name: &str) -> Result<T, PromptError> {
        (self.extract)(arguments, name)
    }
}

/// Level 1: an `Option<T>` argument, not required.
pub trait ViaOptionalPromptArgument<T> {
    /// The parameter.
    fn __ct_prompt_argument(&self) -> PromptParam<T>;
}

impl<T: TextArgument> ViaOptionalPromptArgument<Option<T>> for &PromptSlot<Option<T>> {
    fn __ct_prompt_argument(&self) -> PromptParam<Option<T>> {
        PromptParam {
            required: false,
            choices: crate::complete::enum_choices::<T>,
            extract: |arguments, name| arguments.optional(name),
        }
    }
}

/// Level 2: any other type, a required argument; the bound carries the diagnostic.
pub trait ViaRequiredPromptArgument<T> {
    /// The parameter.
    fn __ct_prompt_argument(&self) -> PromptParam<T>
    where
        T: TextArgument;
}

impl<T> ViaRequiredPromptArgument<T> for PromptSlot<T> {
    fn __ct_prompt_argument(&self) -> PromptParam<T>
    where
        T: TextArgument,
    {
        PromptParam {
            required: true,
            choices: crate::complete::enum_choices::<T>,
            extract: |arguments, name| arguments.required(name),
        }
    }
}

/// The future of a prompt whose arguments did not all fit: every problem, in one `-32602`.
pub fn prompt_arguments_failed<const N: usize>(errors: [Option<PromptError>; N]) -> PromptFuture {
    let problems: Vec<String> = errors
        .into_iter()
        .flatten()
        .map(|error| error.message().to_string())
        .collect();
    let message = match problems.as_slice() {
        [one] => one.clone(),
        many => format!(
            "({} problems):\n{}",
            many.len(),
            many.iter()
                .map(|problem| format!("- {problem}"))
                .collect::<Vec<_>>()
                .join("\n")
        ),
    };
    Box::pin(std::future::ready(Err(PromptError::invalid_arguments(
        message,
    ))))
}

/// A prompt fn's result as a prompt's; the bound is the return type's diagnostic.
pub fn prompt_output<T: IntoPromptResult>(output: T) -> Result<GetPromptResult, PromptError> {
    output.into_prompt_result()
}

/// Boxes the future of one `prompts/get`.
pub fn prompt_future<F>(future: F) -> PromptFuture
where
    F: Future<Output = Result<GetPromptResult, PromptError>> + Send + 'static,
{
    Box::pin(future)
}

/// A URI variable parsed as a `T`; the bound is the parameter's diagnostic.
pub fn uri_variable<T: TextArgument>(
    request: &ResourceRequest,
    name: &str,
) -> Result<T, ResourceError> {
    request.variable(name)
}

/// The names of an enum-typed URI variable, for its completions.
pub fn variable_choices<T: TextArgument>() -> Option<Vec<String>> {
    crate::complete::enum_choices::<T>()
}

/// A resource fn's result as contents; the bound is the return type's diagnostic.
pub fn resource_output<T: IntoResourceContents>(
    output: T,
    uri: &str,
    mime_type: Option<&str>,
) -> Result<Vec<ResourceContents>, ResourceError> {
    output.into_contents(uri, mime_type)
}

/// Boxes the future of one `resources/read`.
pub fn resource_future<F>(future: F) -> ResourceFuture
where
    F: Future<Output = Result<Vec<ResourceContents>, ResourceError>> + Send + 'static,
{
    Box::pin(future)
}

/// The completer named in `complete(arg = f)`, of either shape (`fn(&str)`, or
/// `fn(&str, &CompletionContext)`), returning any list of strings. Its type is concrete, so
/// that a fn of neither shape is one error, at the fn's name.
pub fn completer<M>(completer: impl crate::complete::IntoCompleter<M>) -> ContextCompleter {
    completer.into_completer()
}

/// The future of a resource whose URI variables did not all parse: every problem, in one
/// `-32602`.
pub fn resource_variables_failed<const N: usize>(
    errors: [Option<ResourceError>; N],
) -> ResourceFuture {
    let problems: Vec<String> = errors
        .into_iter()
        .flatten()
        .map(|error| error.message().to_string())
        .collect();
    let error = ResourceError::invalid_params(problems.join("; "));
    Box::pin(std::future::ready(Err(error)))
}
