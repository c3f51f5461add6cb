//! [`Prompt`]: a prompt's definition (what `prompts/list` shows) and its handler.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use serde::Serialize;

use super::{GetPromptResult, IntoPromptResult, PromptArguments, PromptError};
use crate::complete::{ArgumentCompletion, CompletionContext, Completions};
use crate::tool::{ElicitedForm, StateRequirement, ToolDefBuilder, ToolParam};

/// Adds the state types extractor `T` requires (what its `describe` records on a tool) to
/// `required`: the extractor describes itself on a scratch definition, as it would on a tool's.
pub(crate) fn record_extractor<T: ToolParam>(
    name: &'static str,
    required: &mut Vec<StateRequirement>,
) {
    let mut scratch = ToolDefBuilder::new(name);
    T::describe(name, None, &mut scratch);
    for requirement in scratch.required_state() {
        if !required.contains(requirement) {
            required.push(*requirement);
        }
    }
}

/// The future of one `prompts/get`.
pub type PromptFuture = Pin<Box<dyn Future<Output = Result<GetPromptResult, PromptError>> + Send>>;

/// A prompt's handler: the arguments in, the messages out.
pub type PromptHandler = Arc<dyn Fn(PromptArguments) -> PromptFuture + Send + Sync>;

/// What `prompts/list` says of a prompt.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct PromptDef {
    /// The name a client gets it by.
    pub name: String,
    /// A name for people.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What it is for.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Its arguments, in order.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub arguments: Vec<PromptArgument>,
}

/// One argument of a prompt.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub struct PromptArgument {
    /// Its name.
    pub name: String,
    /// What it means.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Whether `prompts/get` must give it.
    pub required: bool,
}

/// A prompt: its definition, its handler and how its arguments are completed.
///
/// `#[prompt]` builds one per fn; build one by hand for a prompt defined at run time (added to
/// a server with [`ToolServer::with_prompt`](crate::tool::ToolServer::with_prompt), or to a
/// running one with [`ToolServerHandle::add_prompt`](crate::mcp::ToolServerHandle::add_prompt)).
///
/// ```
/// use claude_tools::prompts::{Prompt, PromptArguments, PromptError, PromptMessage};
///
/// let prompt = Prompt::new("convert", |mut args: PromptArguments| async move {
///     let value: f64 = args.required("value")?;
///     let unit: Option<String> = args.optional("unit")?;
///     Ok::<_, PromptError>(vec![
///         PromptMessage::user(format!("Convert {value} {} to metric.", unit.as_deref().unwrap_or("ft"))),
///     ])
/// })
/// .description("Ask for a conversion")
/// .argument("value", "How much", true)
/// .argument("unit", "From which unit", false)
/// .complete("unit", |typed| ["ft", "in", "mi"].iter().filter(|u| u.starts_with(typed)).map(|u| u.to_string()).collect());
/// assert_eq!(prompt.def().arguments.len(), 2);
/// ```
#[derive(Clone)]
pub struct Prompt {
    pub(crate) def: PromptDef,
    pub(crate) handler: PromptHandler,
    pub(crate) completions: Completions,
    /// `file:line` of a `#[prompt]` fn, for the errors that name it.
    pub(crate) location: Option<String>,
    /// The `State<T>` its extractors take, checked by [`ToolServer::check_state`](crate::tool::ToolServer::check_state).
    pub(crate) required_state: Vec<StateRequirement>,
    /// The forms its handler asks for ([`elicits`](Self::elicits)), checked when it is added to
    /// a server.
    pub(crate) elicited_forms: Vec<ElicitedForm>,
}

impl Prompt {
    /// A prompt called `name` whose messages `handler` makes from the request's arguments.
    pub fn new<F, Fut, R>(name: impl Into<String>, handler: F) -> Self
    where
        F: Fn(PromptArguments) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = R> + Send + 'static,
        R: IntoPromptResult,
    {
        let handler: PromptHandler = Arc::new(move |arguments| {
            let future = handler(arguments);
            Box::pin(async move { future.await.into_prompt_result() })
        });
        Self::from_handler(name, handler)
    }

    /// A prompt of a handler already boxed (what `#[prompt]` builds).
    pub fn from_handler(name: impl Into<String>, handler: PromptHandler) -> Self {
        Self {
            def: PromptDef {
                name: name.into(),
                title: None,
                description: None,
                arguments: Vec::new(),
            },
            handler,
            completions: Completions::new(),
            location: None,
            required_state: Vec::new(),
            elicited_forms: Vec::new(),
        }
    }

    /// Records that the prompt's handler asks for a `T` form
    /// ([`ToolContext::elicit::<T>`](crate::tool::ToolContext::elicit)), so that a `T` that
    /// cannot be a form (a nested struct, a list of structs, a map) is a
    /// [`ServerBuildError::PromptElicitationForm`](crate::tool::ServerBuildError::PromptElicitationForm)
    /// when the prompt is added to a server, instead of an error when it first asks.
    /// `#[prompt]` records every `elicit::<T>()` of its body; a prompt built by hand records
    /// its own.
    ///
    /// ```
    /// use claude_tools::prelude::*;
    /// use claude_tools::prompts::{Prompt, PromptArguments, PromptMessage};
    /// use claude_tools::tools::ServerBuildError;
    ///
    /// #[derive(Deserialize, JsonSchema)]
    /// struct Address { street: String }
    ///
    /// #[derive(Deserialize, JsonSchema)]
    /// struct Shipping { address: Address }
    ///
    /// let prompt = Prompt::new("ship", |_args: PromptArguments| async {
    ///     vec![PromptMessage::user("Ship it.")]
    /// })
    /// .elicits::<Shipping>();
    /// let error = ToolServer::new("shop", "1.0.0").with_prompt(prompt).unwrap_err();
    /// assert!(matches!(error, ServerBuildError::PromptElicitationForm { .. }));
    /// assert!(error.to_string().contains("field `address` is an object"), "{error}");
    /// ```
    pub fn elicits<T: crate::ask::ElicitForm + 'static>(mut self) -> Self {
        ElicitedForm::of::<T>().add_to(&mut self.elicited_forms);
        self
    }

    /// Records what extractor `T` of a `#[prompt]` fn needs of the server (the state types of
    /// its `State<T>`), so that a missing state is found when the server starts. Macro support.
    #[doc(hidden)]
    pub fn describe_extractor<T: ToolParam>(mut self, name: &'static str) -> Self {
        record_extractor::<T>(name, &mut self.required_state);
        self
    }

    /// Sets the description.
    pub fn description(mut self, description: impl Into<String>) -> Self {
        self.def.description = Some(description.into());
        self
    }

    /// Sets the title.
    pub fn title(mut self, title: impl Into<String>) -> Self {
        self.def.title = Some(title.into());
        self
    }

    /// Adds an argument (listed in the order added).
    pub fn argument(
        mut self,
        name: impl Into<String>,
        description: impl Into<String>,
        required: bool,
    ) -> Self {
        let description = description.into();
        self.def.arguments.push(PromptArgument {
            name: name.into(),
            description: (!description.is_empty()).then_some(description),
            required,
        });
        self
    }

    /// Completes argument `argument` with `completer`, given what the user has typed.
    ///
    /// For a completer that also reads the other arguments already filled in, see
    /// [`complete_with_context`](Self::complete_with_context).
    pub fn complete(
        mut self,
        argument: impl Into<String>,
        completer: impl Fn(&str) -> Vec<String> + Send + Sync + 'static,
    ) -> Self {
        self.completions.insert(
            argument.into(),
            ArgumentCompletion::Completer(Arc::new(completer)),
        );
        self
    }

    /// Completes argument `argument` with `completer`, given what was typed and the
    /// [`CompletionContext`]: the other arguments the user has already filled in (those the
    /// client sent as `params.context.arguments`; none from a client that sends no context).
    ///
    /// ```
    /// use claude_tools::complete::CompletionContext;
    /// use claude_tools::prompts::{Prompt, PromptArguments, PromptError, PromptMessage};
    ///
    /// let trip = Prompt::new("trip", |mut args: PromptArguments| async move {
    ///     let country: String = args.required("country")?;
    ///     let city: String = args.required("city")?;
    ///     Ok::<_, PromptError>(vec![PromptMessage::user(format!("Plan a trip to {city}, {country}."))])
    /// })
    /// .argument("country", "Where", true)
    /// .argument("city", "Which city of it", true)
    /// .complete_from("country", ["France", "Japan"])
    /// .complete_with_context("city", |typed: &str, context: &CompletionContext| {
    ///     let cities: &[&str] = match context.get("country") {
    ///         Some("France") => &["Lyon", "Paris"],
    ///         Some("Japan") => &["Osaka", "Tokyo"],
    ///         _ => &[],
    ///     };
    ///     cities.iter().filter(|city| city.starts_with(typed)).map(|city| city.to_string()).collect()
    /// });
    /// # let _ = trip;
    /// ```
    pub fn complete_with_context(
        mut self,
        argument: impl Into<String>,
        completer: impl Fn(&str, &CompletionContext) -> Vec<String> + Send + Sync + 'static,
    ) -> Self {
        self.completions.insert(
            argument.into(),
            ArgumentCompletion::WithContext(Arc::new(completer)),
        );
        self
    }

    /// Completes argument `argument` with those of `choices` that start with what was typed.
    pub fn complete_from(
        mut self,
        argument: impl Into<String>,
        choices: impl IntoIterator<Item = impl Into<String>>,
    ) -> Self {
        let choices: Arc<[String]> = choices.into_iter().map(Into::into).collect();
        self.completions
            .insert(argument.into(), ArgumentCompletion::Choices(choices));
        self
    }

    /// Completes `argument` as `completion` says (what `complete(argument = f)` of the attribute
    /// builds). Macro support.
    #[doc(hidden)]
    pub fn complete_by(
        mut self,
        argument: impl Into<String>,
        completion: ArgumentCompletion,
    ) -> Self {
        self.completions.insert(argument.into(), completion);
        self
    }

    /// Records where the prompt's fn is (`file:line`), for build errors.
    #[doc(hidden)]
    pub fn at(mut self, file: &str, line: u32) -> Self {
        self.location = Some(format!("{file}:{line}"));
        self
    }

    /// The definition `prompts/list` shows.
    pub fn def(&self) -> &PromptDef {
        &self.def
    }

    /// The prompt's name.
    pub fn name(&self) -> &str {
        &self.def.name
    }

    /// Renders the prompt for `arguments` (what `prompts/get` answers).
    pub async fn get(&self, arguments: PromptArguments) -> Result<GetPromptResult, PromptError> {
        (self.handler)(arguments).await
    }

    pub(crate) fn completion(&self, argument: &str) -> Option<&ArgumentCompletion> {
        self.completions.get(argument)
    }
}

impl std::fmt::Debug for Prompt {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Prompt")
            .field("def", &self.def)
            .field("completions", &self.completions)
            .finish_non_exhaustive()
    }
}
