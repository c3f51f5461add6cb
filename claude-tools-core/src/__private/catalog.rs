//! What `#[prompt]` and `#[resource]` expand to: the registration, the classification of a
//! prompt's parameters (required or `Option`), and the checks whose diagnostics are the
//! compile errors of a bad parameter or return type.

use std::future::Future;
use std::marker::PhantomData;

use schemars::JsonSchema;
use serde::de::DeserializeOwned;

use super::diagnostics::{
    NamedArgument, PromptParameter, SharedState, SharedThroughState, TextSchema,
    UriVariableOrExtractor, UriVariableSchema, UriVariableText, WholeInputOfATool,
};
use crate::tool::{Input, State, ToolParam};

pub use crate::catalog::{CatalogEntry, CatalogRegistration};
pub use crate::complete::{ArgumentCompletion, CompletionContext, ContextCompleter};
pub use crate::prompt::{
    GetPromptResult, IntoPromptResult, Prompt, PromptArguments, PromptError, PromptFuture,
};
pub use crate::resource::{
    IntoResourceContents, Resource, ResourceContents, ResourceError, ResourceFuture,
    ResourceRequest,
};

/// A type a prompt argument or a URI variable may have: parsed from a string, and described by
/// a schema (an enum's names are its completions).
pub trait TextArgument: DeserializeOwned + JsonSchema {}

impl<T: DeserializeOwned + JsonSchema> TextArgument for T {}

// The parameters of a `#[prompt]` fn are classified by trait as a `#[tool]` fn's are (see
// `dispatch`), with the same trait for extractors, `ToolParam`: for every parameter the macro
// writes `(&&&&PromptSlot::<T>::NEW).__ct_prompt_param()`, and method resolution picks the first
// of these whose impl applies:
//
// 0. `&&&PromptSlot<Input<T>>`: an error (a prompt has no JSON input for `Input<T>` to read);
// 1. `&&PromptSlot<T>` where `T: ToolParam`: an extractor (`State<T>`, `ToolContext`,
//    `Extension<T>`, your own), filled from the request and the server;
// 2. `&PromptSlot<Option<T>>` where `T: Deserialize + JsonSchema`: an optional argument;
// 3. `PromptSlot<T>` by reference: first the inherent methods of the known mistakes
//    (`State<T>` whose `T` is not `Send + Sync`, `Arc<T>`), then, for a `T: Deserialize`, a
//    required argument whose bound demands the schema;
// 4. `PromptSlot<T>` by value: anything else, an error at its type.
//
// Each error comes from exactly one bound, so a bad parameter is reported once.

/// A stand-in for a prompt parameter of type `T` (see above).
pub struct PromptSlot<T>(PhantomData<fn() -> T>);

impl<T> Clone for PromptSlot<T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T> Copy for PromptSlot<T> {}

impl<T> PromptSlot<T> {
    /// The slot of `T`.
    pub const NEW: Self = PromptSlot(PhantomData);
}

/// How one prompt parameter is described and extracted.
pub struct PromptParam<T> {
    describe: fn(Prompt, &'static str, Option<&str>) -> Prompt,
    extract: fn(&mut PromptArguments, &'static str, &'static str) -> Result<T, PromptError>,
}

impl<T> PromptParam<T> {
    /// Adds the parameter to `prompt`: an argument (with its enum's names as completions), or
    /// what an extractor needs of the server.
    pub fn describe(&self, prompt: Prompt, name: &'static str, doc: Option<&str>) -> Prompt {
        (self.describe)(prompt, name, doc)
    }

    /// Extracts the parameter from the request of prompt `prompt`.
    pub fn extract(
        &self,
        arguments: &mut PromptArguments,
        prompt: &'static str,
        name: &'static str,
    ) -> Result<T, PromptError> {
        (self.extract)(arguments, prompt, name)
    }
}

/// An argument the client sends, described with its completions.
fn describe_argument<T: JsonSchema>(
    prompt: Prompt,
    name: &'static str,
    doc: Option<&str>,
    required: bool,
) -> Prompt {
    let prompt = prompt.argument(name, argument_description::<T>(doc), required);
    match crate::complete::enum_choices::<T>() {
        Some(choices) => prompt.complete_from(name, choices),
        None => prompt,
    }
}

/// A prompt argument's description: its doc, and, for a type that is read as JSON (a struct, a
/// list, a map), what the client must send, since nothing else tells its user that the text is
/// parsed as JSON.
fn argument_description<T: JsonSchema>(doc: Option<&str>) -> String {
    let doc = doc.unwrap_or_default();
    let Some(kind) = json_kind::<T>() else {
        return doc.to_string();
    };
    let hint = format!("(JSON text: {kind})");
    if doc.is_empty() {
        hint
    } else {
        format!("{doc} {hint}")
    }
}

/// What a type's text must be when it is parsed as JSON: `Some("an object")` for a struct or
/// a map, `Some("an array")` for a list; `None` for a type read from its plain text (a string,
/// a number, a boolean, an enum's names).
fn json_kind<T: JsonSchema>() -> Option<&'static str> {
    let schema = schemars::SchemaGenerator::default().into_root_schema_for::<T>();
    let schema = schema.as_value();
    let types: Vec<&str> = match schema.get("type") {
        Some(serde_json::Value::String(one)) => vec![one.as_str()],
        Some(serde_json::Value::Array(many)) => {
            many.iter().filter_map(serde_json::Value::as_str).collect()
        }
        _ => Vec::new(),
    };
    if types.contains(&"object") {
        Some("an object, e.g. {\"field\": \"value\"}")
    } else if types.contains(&"array") {
        Some("an array, e.g. [\"a\", \"b\"]")
    } else {
        None
    }
}

/// An extractor of a prompt: the call it reads has the request's context and the server's
/// state; its error is the prompt's failure (not the client's mistake).
fn extract_for_prompt<T: ToolParam>(
    arguments: &mut PromptArguments,
    prompt: &'static str,
    name: &'static str,
) -> Result<T, PromptError> {
    let mut call = arguments.extractor_call(prompt);
    T::extract(name, &mut call).map_err(|error| PromptError::new(error.message()))
}

/// Level 0: `Input<T>`, which has nothing to read in a prompt.
pub trait ViaPromptInput<T> {
    /// The error.
    fn __ct_prompt_param(&self) -> PromptParam<T>
    where
        T: WholeInputOfATool;
    /// The error.
    fn __ct_prompt_pattern(&self) -> PromptParam<T>
    where
        T: WholeInputOfATool;
}

impl<T> ViaPromptInput<Input<T>> for &&&PromptSlot<Input<T>> {
    fn __ct_prompt_param(&self) -> PromptParam<Input<T>>
    where
        Input<T>: WholeInputOfATool,
    {
        unreachable!("WholeInputOfATool has no implementations")
    }

    fn __ct_prompt_pattern(&self) -> PromptParam<Input<T>>
    where
        Input<T>: WholeInputOfATool,
    {
        unreachable!("WholeInputOfATool has no implementations")
    }
}

/// Level 1: extractors, as a tool's.
pub trait ViaPromptExtractor<T> {
    /// The parameter.
    fn __ct_prompt_param(&self) -> PromptParam<T>;
    /// The parameter, bound by a pattern.
    fn __ct_prompt_pattern(&self) -> PromptParam<T>;
}

impl<T: ToolParam> ViaPromptExtractor<T> for &&PromptSlot<T> {
    fn __ct_prompt_param(&self) -> PromptParam<T> {
        PromptParam {
            describe: |prompt, name, _| prompt.describe_extractor::<T>(name),
            extract: extract_for_prompt::<T>,
        }
    }

    fn __ct_prompt_pattern(&self) -> PromptParam<T> {
        self.__ct_prompt_param()
    }
}

/// Level 2: an `Option<T>` argument, not required.
pub trait ViaOptionalPromptArgument<T> {
    /// The parameter.
    fn __ct_prompt_param(&self) -> PromptParam<T>;
    /// An argument bound by a pattern: an error.
    fn __ct_prompt_pattern(&self) -> PromptParam<T>
    where
        T: NamedArgument;
}

impl<T: TextArgument> ViaOptionalPromptArgument<Option<T>> for &PromptSlot<Option<T>> {
    fn __ct_prompt_param(&self) -> PromptParam<Option<T>> {
        PromptParam {
            describe: |prompt, name, doc| describe_argument::<T>(prompt, name, doc, false),
            extract: |arguments, _, name| arguments.optional(name),
        }
    }

    fn __ct_prompt_pattern(&self) -> PromptParam<Option<T>>
    where
        Option<T>: NamedArgument,
    {
        unreachable!("NamedArgument has no implementations")
    }
}

impl<T> PromptSlot<State<T>> {
    /// A `State<T>` whose `T` is not `Send + Sync`.
    pub fn __ct_prompt_param(&self) -> PromptParam<State<T>>
    where
        T: SharedState,
    {
        unreachable!("a State<T> with T: Send + Sync + 'static is handled by level 1")
    }

    /// `State(value): State<T>` whose `T` is not `Send + Sync`.
    pub fn __ct_prompt_pattern(&self) -> PromptParam<State<T>>
    where
        T: SharedState,
    {
        unreachable!("a State<T> with T: Send + Sync + 'static is handled by level 1")
    }
}

impl<T: ?Sized> PromptSlot<std::sync::Arc<T>> {
    /// An `Arc<T>`, which should be a `State<T>`.
    pub fn __ct_prompt_param(&self) -> PromptParam<std::sync::Arc<T>>
    where
        T: SharedThroughState,
    {
        unreachable!("SharedThroughState has no implementations")
    }

    /// An `Arc<T>` bound by a pattern.
    pub fn __ct_prompt_pattern(&self) -> PromptParam<std::sync::Arc<T>>
    where
        T: SharedThroughState,
    {
        unreachable!("SharedThroughState has no implementations")
    }
}

/// Level 3: any other deserializable type, a required argument; the bound demands its schema.
pub trait ViaRequiredPromptArgument<T> {
    /// The parameter.
    fn __ct_prompt_param(&self) -> PromptParam<T>
    where
        T: TextSchema;
    /// An argument bound by a pattern: an error.
    fn __ct_prompt_pattern(&self) -> PromptParam<T>
    where
        T: NamedArgument;
}

impl<T: DeserializeOwned> ViaRequiredPromptArgument<T> for PromptSlot<T> {
    fn __ct_prompt_param(&self) -> PromptParam<T>
    where
        T: TextSchema,
    {
        PromptParam {
            describe: |prompt, name, doc| describe_argument::<T>(prompt, name, doc, true),
            extract: |arguments, _, name| arguments.required(name),
        }
    }

    fn __ct_prompt_pattern(&self) -> PromptParam<T>
    where
        T: NamedArgument,
    {
        unreachable!("NamedArgument has no implementations")
    }
}

/// Level 4, by value: neither an extractor nor parsable; the bound is the diagnostic.
pub trait ViaNoPromptParam<T> {
    /// The error.
    fn __ct_prompt_param(self) -> PromptParam<T>
    where
        T: PromptParameter;
    /// The error.
    fn __ct_prompt_pattern(self) -> PromptParam<T>
    where
        T: PromptParameter;
}

impl<T> ViaNoPromptParam<T> for PromptSlot<T> {
    fn __ct_prompt_param(self) -> PromptParam<T>
    where
        T: PromptParameter,
    {
        unreachable!("every DeserializeOwned type is handled by level 3")
    }

    fn __ct_prompt_pattern(self) -> PromptParam<T>
    where
        T: PromptParameter,
    {
        unreachable!("every DeserializeOwned type is handled by level 3")
    }
}

// A `#[resource]` fn's parameters: one named after a variable of the URI template is that
// variable (`uri_variable`); any other must be an extractor, found by the same trait as a
// tool's: `(&&&ResourceSlot::<T>::NEW).__ct_resource_extractor()` picks
//
// 0. `&&ResourceSlot<Input<T>>`: an error (a resource has no JSON input);
// 1. `&ResourceSlot<T>` where `T: ToolParam`: the extractor;
// 2. `ResourceSlot<T>` by reference: the inherent methods of the known mistakes (`State<T>`
//    whose `T` is not `Send + Sync`, `Arc<T>`), then anything else: an error saying the
//    parameter is neither a variable of the template nor an extractor.

/// A stand-in for a `#[resource]` parameter of type `T` that is not a URI variable.
pub struct ResourceSlot<T>(PhantomData<fn() -> T>);

impl<T> ResourceSlot<T> {
    /// The slot of `T`.
    pub const NEW: Self = ResourceSlot(PhantomData);
}

/// How an extractor of a resource is described and extracted.
pub struct ResourceExtractor<T> {
    describe: fn(Resource, &'static str) -> Resource,
    extract: fn(&ResourceRequest, &'static str) -> Result<T, ResourceError>,
}

impl<T> ResourceExtractor<T> {
    /// Records what the extractor needs of the server.
    pub fn describe(&self, resource: Resource, name: &'static str) -> Resource {
        (self.describe)(resource, name)
    }

    /// Extracts it from the request.
    pub fn extract(
        &self,
        request: &ResourceRequest,
        name: &'static str,
    ) -> Result<T, ResourceError> {
        (self.extract)(request, name)
    }
}

/// Level 0: `Input<T>`, which has nothing to read in a resource.
pub trait ViaResourceInput<T> {
    /// The error.
    fn __ct_resource_extractor(&self) -> ResourceExtractor<T>
    where
        T: WholeInputOfATool;
}

impl<T> ViaResourceInput<Input<T>> for &&ResourceSlot<Input<T>> {
    fn __ct_resource_extractor(&self) -> ResourceExtractor<Input<T>>
    where
        Input<T>: WholeInputOfATool,
    {
        unreachable!("WholeInputOfATool has no implementations")
    }
}

/// Level 1: extractors, as a tool's.
pub trait ViaResourceExtractor<T> {
    /// The extractor.
    fn __ct_resource_extractor(&self) -> ResourceExtractor<T>;
}

impl<T: ToolParam> ViaResourceExtractor<T> for &ResourceSlot<T> {
    fn __ct_resource_extractor(&self) -> ResourceExtractor<T> {
        ResourceExtractor {
            describe: |resource, name| resource.describe_extractor::<T>(name),
            extract: |request, name| {
                let mut call = request.extractor_call();
                T::extract(name, &mut call).map_err(|error| ResourceError::new(error.message()))
            },
        }
    }
}

impl<T> ResourceSlot<State<T>> {
    /// A `State<T>` whose `T` is not `Send + Sync`.
    pub fn __ct_resource_extractor(&self) -> ResourceExtractor<State<T>>
    where
        T: SharedState,
    {
        unreachable!("a State<T> with T: Send + Sync + 'static is handled by level 1")
    }
}

impl<T: ?Sized> ResourceSlot<std::sync::Arc<T>> {
    /// An `Arc<T>`, which should be a `State<T>`.
    pub fn __ct_resource_extractor(&self) -> ResourceExtractor<std::sync::Arc<T>>
    where
        T: SharedThroughState,
    {
        unreachable!("SharedThroughState has no implementations")
    }
}

/// Level 2: anything else, an error; the bound is the diagnostic.
pub trait ViaNotAVariable<T> {
    /// The error.
    fn __ct_resource_extractor(&self) -> ResourceExtractor<T>
    where
        T: UriVariableOrExtractor;
}

impl<T> ViaNotAVariable<T> for ResourceSlot<T> {
    fn __ct_resource_extractor(&self) -> ResourceExtractor<T>
    where
        T: UriVariableOrExtractor,
    {
        unreachable!("UriVariableOrExtractor has no implementations")
    }
}

/// The future of a prompt whose arguments did not all fit: every problem, in one `-32602`.
///
/// An extractor's failure (a state the server lacks) is the server's, not the client's: it is
/// answered alone, as the prompt's failure.
pub fn prompt_arguments_failed<const N: usize>(errors: [Option<PromptError>; N]) -> PromptFuture {
    let (arguments, failures): (Vec<PromptError>, Vec<PromptError>) = errors
        .into_iter()
        .flatten()
        .partition(PromptError::is_invalid_arguments);
    if let Some(failure) = failures.into_iter().next() {
        return Box::pin(std::future::ready(Err(failure)));
    }
    let problems: Vec<String> = arguments
        .iter()
        .map(|error| error.message().to_string())
        .collect();
    Box::pin(std::future::ready(Err(PromptError::argument_problems(
        &problems,
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

/// A URI variable: how it is described and parsed, for a `T` the bound admits.
pub struct UriVariable<T> {
    choices: fn() -> Option<Vec<String>>,
    parse: fn(&ResourceRequest, &str) -> Result<T, ResourceError>,
}

impl<T> UriVariable<T> {
    /// The names of an enum-typed variable, for its completions.
    pub fn choices(&self) -> Option<Vec<String>> {
        (self.choices)()
    }

    /// The variable `name` of the URI read, parsed.
    pub fn parse(&self, request: &ResourceRequest, name: &str) -> Result<T, ResourceError> {
        (self.parse)(request, name)
    }
}

/// A URI variable of type `T` (the parameter named after it); each bound is its own
/// diagnostic (`Deserialize`, the schema), so a type that forgot one gets one error.
pub fn uri_variable<T>() -> UriVariable<T>
where
    T: UriVariableText + UriVariableSchema,
{
    UriVariable {
        choices: crate::complete::enum_choices::<T>,
        parse: |request, name| request.variable(name),
    }
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
pub fn completer<M>(
    completer: impl crate::complete::IntoCompleter<M>,
) -> crate::complete::ArgumentCompletion {
    completer.into_argument_completion()
}

/// The future of a resource whose URI variables did not all parse: every problem, in one
/// `-32602`.
pub fn resource_variables_failed<const N: usize>(
    errors: [Option<ResourceError>; N],
) -> ResourceFuture {
    let (variables, failures): (Vec<ResourceError>, Vec<ResourceError>) = errors
        .into_iter()
        .flatten()
        .partition(|error| error.kind() == crate::resource::ErrorKind::InvalidParams);
    // An extractor's failure (a state the server lacks) is the server's: answered alone.
    if let Some(failure) = failures.into_iter().next() {
        return Box::pin(std::future::ready(Err(failure)));
    }
    let problems: Vec<String> = variables
        .iter()
        .map(|error| error.message().to_string())
        .collect();
    let error = ResourceError::invalid_params(problems.join("; "));
    Box::pin(std::future::ready(Err(error)))
}
