//! [`Resource`]: a fixed resource or a resource template, its handler, and what
//! `resources/list` and `resources/templates/list` say of it.

use std::collections::BTreeMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use serde::Serialize;
use serde::de::DeserializeOwned;

use super::{IntoResourceContents, ResourceContents, ResourceError, UriTemplate};
use crate::complete::{ArgumentCompletion, CompletionContext, Completions};

/// The future of one `resources/read`.
pub type ResourceFuture =
    Pin<Box<dyn Future<Output = Result<Vec<ResourceContents>, ResourceError>> + Send>>;

/// A resource's handler: the URI read (with the template's variables) in, the contents out.
pub type ResourceHandler = Arc<dyn Fn(ResourceRequest) -> ResourceFuture + Send + Sync>;

/// One `resources/read` of a resource: the URI, and the values of the template's variables.
#[derive(Debug, Clone, Default)]
pub struct ResourceRequest {
    uri: String,
    variables: BTreeMap<String, String>,
    mime_type: Option<String>,
    context: crate::tool::ToolContext,
    /// The server's application state, for the resource's extractors (`State<T>`); the router
    /// sets it from the server serving the request.
    state: Arc<crate::tool::StateMap>,
}

/// Two reads are equal when they read the same URI with the same variables and MIME type
/// (their contexts are not compared).
impl PartialEq for ResourceRequest {
    fn eq(&self, other: &Self) -> bool {
        self.uri == other.uri
            && self.variables == other.variables
            && self.mime_type == other.mime_type
    }
}

impl ResourceRequest {
    /// A read of `uri`, whose template's variables have these values.
    pub fn new(uri: impl Into<String>, variables: BTreeMap<String, String>) -> Self {
        Self {
            uri: uri.into(),
            variables,
            mime_type: None,
            context: crate::tool::ToolContext::new(),
            state: Arc::default(),
        }
    }

    /// The same read, with the application state of `server` (what a `State<T>` parameter of
    /// a `#[resource]` fn reads). The router sets it on every `resources/read`;
    /// [`ToolServer::read_resource`](crate::tool::ToolServer::read_resource) does too.
    pub fn with_state_of(mut self, server: &crate::tool::ToolServer) -> Self {
        self.state = server.state_map();
        self
    }

    /// The same read, with the state `state`.
    pub(crate) fn with_state(mut self, state: Arc<crate::tool::StateMap>) -> Self {
        self.state = state;
        self
    }

    /// The call a `#[resource]` fn's extractors read: no arguments, this request's context
    /// and the server's state, the URI read as its name. Macro support.
    #[doc(hidden)]
    pub fn extractor_call(&self) -> crate::tool::ToolCall {
        crate::tool::ToolCall::for_request(
            crate::tool::CallKind::Resource,
            &self.uri,
            self.context.clone(),
            self.state.clone(),
        )
    }

    /// The same read, in the context `context` (the router sets one with the request's client).
    pub fn with_context(mut self, context: crate::tool::ToolContext) -> Self {
        self.context = context;
        self
    }

    /// The request's context: to ask the client a question while the resource is read
    /// ([`ToolContext::elicit`](crate::tool::ToolContext::elicit), [`ToolContext::question`](crate::tool::ToolContext::question)),
    /// as a tool does, on every MCP revision.
    pub fn context(&self) -> &crate::tool::ToolContext {
        &self.context
    }

    /// The same read, of a resource of this MIME type.
    pub fn with_mime_type(mut self, mime_type: Option<String>) -> Self {
        self.mime_type = mime_type;
        self
    }

    /// The MIME type of the resource read, when it has one.
    pub fn mime_type(&self) -> Option<&str> {
        self.mime_type.as_deref()
    }

    /// The URI read.
    pub fn uri(&self) -> &str {
        &self.uri
    }

    /// The text of variable `name` (percent-decoded), if the template has it.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.variables.get(name).map(String::as_str)
    }

    /// Variable `name` parsed as a `T` (as prompt arguments are: the text, else the text as
    /// JSON); an error naming it (`-32602`) when it does not parse.
    pub fn variable<T: DeserializeOwned>(&self, name: &str) -> Result<T, ResourceError> {
        let text = self
            .get(name)
            .ok_or_else(|| ResourceError::invalid_variable(name, "the URI has no such variable"))?;
        crate::prompt::parse_text(text)
            .map_err(|problem| ResourceError::invalid_variable(name, problem))
    }
}

/// What `resources/list` says of a fixed resource.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ResourceDef {
    /// Its URI.
    pub uri: String,
    /// Its name.
    pub name: String,
    /// A name for people.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What it is.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Its MIME type.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
}

/// What `resources/templates/list` says of a resource template.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ResourceTemplateDef {
    /// Its URI template (RFC 6570, level 1).
    pub uri_template: String,
    /// Its name.
    pub name: String,
    /// A name for people.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What its resources are.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Its resources' MIME type.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
}

/// A resource: a fixed URI (`units://table`), or a URI template whose variables name one of
/// many (`tickets://{id}`), with the handler that reads it.
///
/// `#[resource]` builds one per fn; build one by hand for a resource defined at run time
/// ([`ToolServer::with_resource`](crate::tool::ToolServer::with_resource),
/// [`ToolServerHandle::add_resource`](crate::mcp::ToolServerHandle::add_resource)).
///
/// ```
/// use claude_tools::resources::{Resource, ResourceError, ResourceRequest};
///
/// let table = Resource::new("units://table", "table", |_read: ResourceRequest| async {
///     "km,mile\n1,0.621371"
/// })
/// .mime_type("text/csv");
/// assert!(table.is_fixed());
///
/// let ticket = Resource::new("tickets://{id}", "ticket", |read: ResourceRequest| async move {
///     let id: u32 = read.variable("id")?;
///     Ok::<_, ResourceError>(format!("ticket {id}"))
/// });
/// assert!(!ticket.is_fixed());
/// ```
#[derive(Clone)]
pub struct Resource {
    /// The URI or URI template as written.
    pub(crate) uri: String,
    /// Its parse; an error is reported when the resource is added to a server.
    pub(crate) template: Result<UriTemplate, String>,
    pub(crate) name: String,
    pub(crate) title: Option<String>,
    pub(crate) description: Option<String>,
    pub(crate) mime_type: Option<String>,
    pub(crate) handler: ResourceHandler,
    pub(crate) completions: Completions,
    pub(crate) location: Option<String>,
    /// The `State<T>` its extractors take, checked by [`ToolServer::check_state`](crate::tool::ToolServer::check_state).
    pub(crate) required_state: Vec<crate::tool::StateRequirement>,
    /// The forms its handler asks for ([`elicits`](Self::elicits)), checked when it is added to
    /// a server.
    pub(crate) elicited_forms: Vec<crate::tool::ElicitedForm>,
}

impl Resource {
    /// A resource at `uri` (a URI template when it has `{variables}`) called `name`, read by
    /// `handler`.
    pub fn new<F, Fut, R>(uri: impl Into<String>, name: impl Into<String>, handler: F) -> Self
    where
        F: Fn(ResourceRequest) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = R> + Send + 'static,
        R: IntoResourceContents,
    {
        let handler: ResourceHandler = Arc::new(move |request: ResourceRequest| {
            let uri = request.uri.clone();
            let mime_type = request.mime_type.clone();
            let future = handler(request);
            Box::pin(async move { future.await.into_contents(&uri, mime_type.as_deref()) })
        });
        Self::from_handler(uri, name, handler)
    }

    /// A resource of a handler already boxed (what `#[resource]` builds). The handler gets
    /// the URI and answers the contents itself.
    pub fn from_handler(
        uri: impl Into<String>,
        name: impl Into<String>,
        handler: ResourceHandler,
    ) -> Self {
        let uri = uri.into();
        Self {
            template: UriTemplate::parse(&uri),
            uri,
            name: name.into(),
            title: None,
            description: None,
            mime_type: None,
            handler,
            completions: Completions::new(),
            location: None,
            required_state: Vec::new(),
            elicited_forms: Vec::new(),
        }
    }

    /// Records that the resource's handler asks for a `T` form
    /// ([`ToolContext::elicit::<T>`](crate::tool::ToolContext::elicit)), so that a `T` that
    /// cannot be a form (a nested struct, a list of structs, a map) is a
    /// [`ServerBuildError::ResourceElicitationForm`](crate::tool::ServerBuildError::ResourceElicitationForm)
    /// when the resource is added to a server, instead of an error when it first asks.
    /// `#[resource]` records every `elicit::<T>()` of its body; a resource built by hand
    /// records its own.
    ///
    /// ```
    /// use claude_tools::prelude::*;
    /// use claude_tools::resources::{Resource, ResourceRequest};
    /// use claude_tools::tools::ServerBuildError;
    ///
    /// #[derive(Deserialize, JsonSchema)]
    /// struct Tags { tags: Vec<String> }
    ///
    /// let resource = Resource::new("notes://today", "today", |_request: ResourceRequest| async {
    ///     "nothing yet"
    /// })
    /// .elicits::<Tags>();
    /// let error = ToolServer::new("notes", "1.0.0").with_resource(resource).unwrap_err();
    /// assert!(matches!(error, ServerBuildError::ResourceElicitationForm { .. }));
    /// ```
    pub fn elicits<T: crate::ask::ElicitForm + 'static>(mut self) -> Self {
        crate::tool::ElicitedForm::of::<T>().add_to(&mut self.elicited_forms);
        self
    }

    /// Records what extractor `T` of a `#[resource]` fn needs of the server (the state types
    /// of its `State<T>`), so that a missing state is found when the server starts. Macro
    /// support.
    #[doc(hidden)]
    pub fn describe_extractor<T: crate::tool::ToolParam>(mut self, name: &'static str) -> Self {
        crate::prompt::record_extractor::<T>(name, &mut self.required_state);
        self
    }

    /// Sets the description.
    pub fn description(mut self, description: impl Into<String>) -> Self {
        self.description = Some(description.into());
        self
    }

    /// Sets the title.
    pub fn title(mut self, title: impl Into<String>) -> Self {
        self.title = Some(title.into());
        self
    }

    /// Sets the MIME type (listed, and given to the text or blob a handler returns).
    pub fn mime_type(mut self, mime_type: impl Into<String>) -> Self {
        self.mime_type = Some(mime_type.into());
        self
    }

    /// Completes template variable `variable` with `completer`, given what was typed.
    ///
    /// For a completer that also reads the other template variables already filled in, see
    /// [`complete_with_context`](Self::complete_with_context).
    pub fn complete(
        mut self,
        variable: impl Into<String>,
        completer: impl Fn(&str) -> Vec<String> + Send + Sync + 'static,
    ) -> Self {
        self.completions.insert(
            variable.into(),
            ArgumentCompletion::Completer(Arc::new(completer)),
        );
        self
    }

    /// Completes template variable `variable` with `completer`, given what was typed and the
    /// [`CompletionContext`]: the other template variables the user has already filled in (those the
    /// client sent as `params.context.arguments`; none from a client that sends no context).
    ///
    /// ```
    /// use claude_tools::complete::CompletionContext;
    /// use claude_tools::resources::{Resource, ResourceRequest};
    ///
    /// let file = Resource::new("repo://{project}/{file}", "file", |read: ResourceRequest| async move {
    ///     format!("{} of {}", read.get("file").unwrap_or(""), read.get("project").unwrap_or(""))
    /// })
    /// .complete_from("project", ["api", "web"])
    /// .complete_with_context("file", |typed: &str, context: &CompletionContext| {
    ///     let files: &[&str] = match context.get("project") {
    ///         Some("api") => &["main.rs", "routes.rs"],
    ///         Some("web") => &["index.html", "main.js"],
    ///         _ => &[],
    ///     };
    ///     files.iter().filter(|file| file.starts_with(typed)).map(|file| file.to_string()).collect()
    /// });
    /// # let _ = file;
    /// ```
    pub fn complete_with_context(
        mut self,
        variable: impl Into<String>,
        completer: impl Fn(&str, &CompletionContext) -> Vec<String> + Send + Sync + 'static,
    ) -> Self {
        self.completions.insert(
            variable.into(),
            ArgumentCompletion::WithContext(Arc::new(completer)),
        );
        self
    }

    /// Completes template variable `variable` with those of `choices` that start with what
    /// was typed.
    pub fn complete_from(
        mut self,
        variable: impl Into<String>,
        choices: impl IntoIterator<Item = impl Into<String>>,
    ) -> Self {
        let choices: Arc<[String]> = choices.into_iter().map(Into::into).collect();
        self.completions
            .insert(variable.into(), ArgumentCompletion::Choices(choices));
        self
    }

    /// Completes `variable` as `completion` says (what `complete(variable = f)` of the attribute
    /// builds). Macro support.
    #[doc(hidden)]
    pub fn complete_by(
        mut self,
        variable: impl Into<String>,
        completion: ArgumentCompletion,
    ) -> Self {
        self.completions.insert(variable.into(), completion);
        self
    }

    /// Records where the resource's fn is (`file:line`), for build errors.
    #[doc(hidden)]
    pub fn at(mut self, file: &str, line: u32) -> Self {
        self.location = Some(format!("{file}:{line}"));
        self
    }

    /// The URI, or URI template, as written.
    pub fn uri(&self) -> &str {
        &self.uri
    }

    /// The resource's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Whether the URI has no variable (listed by `resources/list`; a template is listed by
    /// `resources/templates/list`).
    pub fn is_fixed(&self) -> bool {
        self.template.as_ref().is_ok_and(UriTemplate::is_fixed)
    }

    /// What `resources/list` says of it.
    pub fn def(&self) -> ResourceDef {
        ResourceDef {
            uri: self.uri.clone(),
            name: self.name.clone(),
            title: self.title.clone(),
            description: self.description.clone(),
            mime_type: self.mime_type.clone(),
        }
    }

    /// What `resources/templates/list` says of it.
    pub fn template_def(&self) -> ResourceTemplateDef {
        ResourceTemplateDef {
            uri_template: self.uri.clone(),
            name: self.name.clone(),
            title: self.title.clone(),
            description: self.description.clone(),
            mime_type: self.mime_type.clone(),
        }
    }

    /// The template's variable values if `uri` is this resource's.
    pub(crate) fn matches(&self, uri: &str) -> Option<BTreeMap<String, String>> {
        let template = self.template.as_ref().ok()?;
        if template.is_fixed() {
            return (self.uri == uri).then(BTreeMap::new);
        }
        template.matches(uri)
    }

    /// Reads the resource at `uri` (what `resources/read` answers).
    pub fn read(&self, request: ResourceRequest) -> ResourceFuture {
        (self.handler)(request)
    }

    pub(crate) fn completion(&self, variable: &str) -> Option<&ArgumentCompletion> {
        self.completions.get(variable)
    }
}

impl std::fmt::Debug for Resource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Resource")
            .field("uri", &self.uri)
            .field("name", &self.name)
            .field("mime_type", &self.mime_type)
            .field("completions", &self.completions)
            .finish_non_exhaustive()
    }
}
