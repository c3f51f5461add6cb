//! [`ToolServer`]: the tools of one MCP server, its application state, and calling them.

use std::any::TypeId;
use std::sync::Arc;

use serde_json::Value;

use super::arguments::Arguments;
use super::build_error::{ServerBuildError, check_names};
use super::call_future::{CallFuture, PanicDetail};
use super::context::ToolContext;
use super::def::{BuiltTool, ToolDefBuilder};
use super::handler::{HandlerFuture, ToolFn, ToolHandler};
use super::param::{CallKind, ToolCall};
use super::registry::{ServerDefinition, ToolRegistration};
use super::result::ToolResult;
use super::server_tool::Tool;
use super::state::{MissingState, StateMap};
use crate::catch_unwind::CatchUnwind;
use crate::jsonrpc::{CacheHint, CacheableMethod, Implementation};
use crate::layer::ToolRequest;
use crate::request_state::RequestStateCodec;

/// An MCP server of in-process tools, with the application state its tools share.
///
/// Build one from a `#[tool_server]` type (`MyServer::server()`), or at run time with
/// [`ToolServer::new`] and [`ToolServer::with_typed_tool`] (typed arguments and extractors, as
/// a `#[tool]` fn has) or [`ToolServer::with_tool`] (the raw call, for schemas built by hand);
/// a server of a type can be given run-time tools too. It is cheap to clone and can be shared by
/// any number of sessions. With no CLI at all, [`ToolServer::list_tools`] and
/// [`ToolServer::call`] let you unit-test tools:
///
/// ```
/// use claude_tools::tools::{ToolContext, ToolDefBuilder, ToolServer};
/// use serde_json::json;
///
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// let mut def = ToolDefBuilder::new("shout");
/// def.input().property::<String>("text", None, true);
/// let server = ToolServer::new("demo", "1.0.0")
///     .with_tool(def, |mut call| async move {
///         let text = call.take_argument("text").unwrap_or_default();
///         text.as_str().unwrap_or_default().to_uppercase()
///     })
///     .unwrap();
/// let result = server.call("shout", json!({"text": "hi"}), ToolContext::new()).await;
/// assert_eq!(result.text_content(), "HI");
/// # });
/// ```
#[derive(Clone)]
pub struct ToolServer {
    pub(crate) inner: Arc<ServerInner>,
}

#[derive(Clone)]
pub(crate) struct ServerInner {
    /// The name and version, shared with every 2026-07-28 result's `serverInfo`.
    info: Arc<Implementation>,
    instructions: Option<String>,
    /// Sorted by name, so `tools/list` is stable and lookup is a binary search.
    pub(crate) tools: Vec<Tool>,
    state: Arc<StateMap>,
    /// The `alwaysLoad` of tools that do not set it: `true`, or the `#[tool_server]`'s.
    always_load: bool,
    /// The server's prompts and resources.
    pub(crate) catalog: crate::catalog::Catalog,
    /// The cache hints of its MCP 2026-07-28 results, by [`CacheableMethod::index`].
    pub(crate) cache_hints: [CacheHint; CacheableMethod::ALL.len()],
    /// What seals the `requestState` of its MCP 2026-07-28 questions; `None`: a per-process
    /// random key.
    pub(crate) request_state: Option<Arc<RequestStateCodec>>,
    /// The skills it serves (MCP's skills extension), sorted by name.
    pub(crate) skills: Vec<crate::skill::Skill>,
    /// Where its tasks are kept; `None`: a [`MemoryTaskStore`](crate::task::MemoryTaskStore)
    /// per router's tool set.
    pub(crate) task_store: Option<Arc<dyn crate::task::TaskStore>>,
    pub(crate) task_settings: crate::task::TaskSettings,
    /// The layers around its tool calls ([`ToolServer::layer`]); `None`: the handler is called
    /// directly, with nothing around it.
    pub(crate) tool_layers: Option<crate::layer::ToolService>,
    /// The layers around every MCP request of its routers ([`ToolServer::request_layer`]).
    pub(crate) request_layers: Option<Arc<crate::layer::McpService>>,
}

impl ToolServer {
    /// An empty server; add tools with [`ToolServer::with_typed_tool`] or
    /// [`ToolServer::with_tool`].
    pub fn new(name: impl Into<String>, version: impl Into<String>) -> Self {
        Self {
            inner: Arc::new(ServerInner {
                info: Arc::new(Implementation::new(name, version)),
                instructions: None,
                tools: Vec::new(),
                state: Arc::default(),
                always_load: true,
                catalog: crate::catalog::Catalog::default(),
                cache_hints: [CacheHint::default(); CacheableMethod::ALL.len()],
                request_state: None,
                skills: Vec::new(),
                task_store: None,
                task_settings: crate::task::TaskSettings::default(),
                tool_layers: None,
                request_layers: None,
            }),
        }
    }

    /// The server of a `#[tool_server]` type, with every `#[tool(server = S)]` of the program.
    pub fn from_definition<S: ServerDefinition>() -> Result<Self, ServerBuildError> {
        let mut server = Self::new(S::NAME, S::VERSION);
        if let Some(instructions) = S::INSTRUCTIONS {
            server = server.with_instructions(instructions);
        }
        Arc::make_mut(&mut server.inner).always_load = S::ALWAYS_LOAD;
        let server_type = TypeId::of::<S>();
        let mut tools = Vec::new();
        for registration in inventory::iter::<ToolRegistration> {
            if registration.belongs_to(server_type) {
                let handler = registration.handler();
                tools.push((
                    registration.describe(),
                    Arc::new(handler) as ToolHandler,
                    registration.location(),
                ));
            }
        }
        let inner = Arc::make_mut(&mut server.inner);
        for (builder, handler, location) in tools {
            inner.add_tool(builder, handler, location, true)?;
        }
        crate::catalog::collect_registered(&mut server, server_type)?;
        Ok(server)
    }

    /// Adds a tool defined by hand, whose handler takes the raw [`ToolCall`] and reads its
    /// arguments itself. [`with_typed_tool`](Self::with_typed_tool) is usually what you want:
    /// it derives the schema from an arguments type and deserializes the arguments for you.
    ///
    /// The definition's input schema is whatever `def.input()` was given. A tool that does not
    /// call [`ToolDefBuilder::always_load`] gets `_meta["anthropic/alwaysLoad"]: true`, as a
    /// `#[tool]` fn does (or its `#[tool_server(always_load = ...)]`, for the server of a type).
    pub fn with_tool<F, Fut, R>(
        mut self,
        def: impl Into<ToolDefBuilder>,
        handler: F,
    ) -> Result<Self, ServerBuildError>
    where
        F: Fn(ToolCall) -> Fut + Send + Sync + 'static,
        Fut: HandlerFuture<Output = R> + Send + 'static,
        R: super::IntoToolResult,
    {
        let handler: ToolHandler = Arc::new(move |call| {
            let future = handler(call);
            Box::pin(async move { future.await.into_tool_result() })
        });
        let mut def = def.into();
        def.warn_if_undescribed(&self.inner.info.name);
        // The handler has the raw call, and so the client.
        def.may_ask();
        Arc::make_mut(&mut self.inner).add(def, handler)?;
        Ok(self)
    }

    /// Adds a typed tool defined at run time: an async fn or closure whose parameters are
    /// extractors ([`State<T>`](super::State), [`ToolContext`], any
    /// [`ToolParam`](super::ToolParam)) and the tool's arguments, a type implementing
    /// `Deserialize + JsonSchema`. It is the run-time twin of a `#[tool]` fn taking
    /// [`Input<T>`](super::Input), built by the same code:
    ///
    /// - the input schema is the arguments type's, with the same Claude-safe rewrites and
    ///   errors as a `#[tool]`'s (a tool without an arguments type takes no arguments);
    /// - arguments that do not fit end the call with an `isError` result naming the field, and
    ///   the handler does not run;
    /// - the future may output anything a `#[tool]` fn may return
    ///   ([`IntoToolResult`](super::IntoToolResult)), and a [`Json<T>`](super::Json) output
    ///   sets the output schema;
    /// - `_meta["anthropic/alwaysLoad"]` is `true` unless `def` says otherwise.
    ///
    /// `def` is a [`ToolDefBuilder`] (or a setter chain on one, or just the tool's name); its
    /// description, title, annotations and `_meta` are kept. The handler must be async (see
    /// [`ToolFn`] for what it may be); write its parameter types out.
    ///
    /// ```
    /// use claude_tools::prelude::*;
    /// use claude_tools::ToolDefBuilder;
    /// use serde_json::json;
    ///
    /// struct Catalogue(Vec<&'static str>);
    ///
    /// #[derive(Deserialize, JsonSchema)]
    /// struct SearchArgs {
    ///     /// Words to look for
    ///     query: String,
    ///     /// At most this many hits
    ///     limit: Option<usize>,
    /// }
    ///
    /// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
    /// let server = ToolServer::new("shop", "1.0.0")
    ///     .with_state(Catalogue(vec!["red mug", "blue mug", "red hat"]))
    ///     .with_typed_tool(
    ///         ToolDefBuilder::new("search").description("Search the catalogue").read_only(true),
    ///         |State(catalogue): State<Catalogue>, args: SearchArgs| async move {
    ///             let hits = catalogue.0.iter().filter(|item| item.contains(&*args.query));
    ///             hits.take(args.limit.unwrap_or(10)).copied().collect::<Vec<_>>().join(", ")
    ///         },
    ///     )
    ///     .unwrap();
    ///
    /// let search = server.tool("search").unwrap().def();
    /// assert_eq!(search.input_schema["required"], json!(["query"]));
    /// assert_eq!(search.meta["anthropic/alwaysLoad"], json!(true));
    ///
    /// let result = server.call("search", json!({"query": "red"}), ToolContext::new()).await;
    /// assert_eq!(result.text_content(), "red mug, red hat");
    /// let result = server.call("search", json!({"limit": 1}), ToolContext::new()).await;
    /// assert!(result.is_error);
    /// # });
    /// ```
    pub fn with_typed_tool<M, H: ToolFn<M>>(
        mut self,
        def: impl Into<ToolDefBuilder>,
        handler: H,
    ) -> Result<Self, ServerBuildError> {
        let mut def = def.into();
        def.warn_if_undescribed(&self.inner.info.name);
        H::describe(&mut def);
        let handler: ToolHandler = Arc::new(move |call| handler.clone().call(call));
        // The handler extracts every parameter and reports their problems together with those
        // found before it ran (unknown arguments), as a `#[tool]`'s does.
        Arc::make_mut(&mut self.inner).add_tool(def, handler, None, true)?;
        Ok(self)
    }

    /// Registers application state: every tool taking `State<T>` gets this value.
    pub fn with_state<T: Send + Sync + 'static>(self, value: T) -> Self {
        self.with_shared_state(Arc::new(value))
    }

    /// Registers application state the rest of the application already holds an `Arc` to.
    pub fn with_shared_state<T: Send + Sync + 'static>(mut self, value: Arc<T>) -> Self {
        let inner = Arc::make_mut(&mut self.inner);
        Arc::make_mut(&mut inner.state).insert(value);
        self
    }

    /// Sets the instructions reported in the MCP `initialize` result.
    pub fn with_instructions(mut self, instructions: impl Into<String>) -> Self {
        Arc::make_mut(&mut self.inner).instructions = Some(instructions.into());
        self
    }

    /// The server's name (the CLI's `mcp__{name}__` prefix).
    pub fn name(&self) -> &str {
        &self.inner.info.name
    }

    /// The server's version.
    pub fn version(&self) -> &str {
        &self.inner.info.version
    }

    /// The server's name and version as MCP's `Implementation`, shared by every 2026-07-28
    /// result's `serverInfo` (clone the `Arc`, not the strings).
    pub fn info(&self) -> &Arc<Implementation> {
        &self.inner.info
    }

    /// The server's instructions, if any.
    pub fn instructions(&self) -> Option<&str> {
        self.inner.instructions.as_deref()
    }

    /// The server's tools, sorted by name.
    pub fn tools(&self) -> &[Tool] {
        &self.inner.tools
    }

    /// The tool called `name`.
    pub fn tool(&self, name: &str) -> Option<&Tool> {
        let tools = &self.inner.tools;
        tools
            .binary_search_by(|tool| (*tool.name).cmp(name))
            .ok()
            .map(|index| &tools[index])
    }

    /// The `tools` array of a `tools/list` result.
    pub fn list_tools(&self) -> Vec<Value> {
        self.inner
            .tools
            .iter()
            .map(|tool| tool.def.to_json())
            .collect()
    }

    /// Checks that every `State<T>` a tool, a prompt or a resource takes has been registered.
    pub fn check_state(&self) -> Result<(), MissingState> {
        let tools = self
            .inner
            .tools
            .iter()
            .map(|tool| (CallKind::Tool, &*tool.name, tool.required_state.as_slice()));
        let prompts = self.prompts().iter().map(|prompt| {
            (
                CallKind::Prompt,
                prompt.name(),
                prompt.required_state.as_slice(),
            )
        });
        let resources = self.resources().map(|resource| {
            (
                CallKind::Resource,
                resource.uri(),
                resource.required_state.as_slice(),
            )
        });
        for (kind, name, required) in tools.chain(prompts).chain(resources) {
            for requirement in required {
                if !self.inner.state.contains(requirement.type_id) {
                    return Err(MissingState {
                        server: self.inner.info.name.clone(),
                        kind,
                        name: name.to_string(),
                        type_name: requirement.type_name,
                    });
                }
            }
        }
        Ok(())
    }

    /// The server's application state, for the extractors of its prompts and resources.
    pub(crate) fn state_map(&self) -> Arc<StateMap> {
        self.inner.state.clone()
    }

    /// Calls a tool. Every failure is a result the model can read: an unknown tool, arguments
    /// that are not an object or do not fit the parameters, a handler error, a handler panic.
    pub async fn call(&self, name: &str, arguments: Value, context: ToolContext) -> ToolResult {
        match self.start_call(name, Arguments::from(arguments), context) {
            Ok(future) => future.await,
            Err(refused) => refused.into_result(),
        }
    }

    /// Starts a call: the future to await, or the immediate result when it cannot start.
    pub(crate) fn start_call(
        &self,
        name: &str,
        arguments: Arguments,
        context: ToolContext,
    ) -> Result<CallFuture, CallRefused> {
        let Some(tool) = self.tool(name) else {
            return Err(CallRefused::UnknownTool(format!(
                "Tool `{}` not found on server `{}`",
                crate::jsonrpc::echo(name),
                self.inner.info.name
            )));
        };
        let arguments = match arguments.into_entries() {
            Ok(entries) => entries,
            Err(other) => {
                return Err(CallRefused::Result(ToolResult::error(format!(
                    "Invalid arguments for tool `{name}`: expected a JSON object, got {}",
                    json_kind(&other)
                ))));
            }
        };
        let mut call = ToolCall::new(
            tool.name.clone(),
            arguments,
            context,
            self.inner.state.clone(),
        );
        if !tool.rust_names.is_empty() {
            call.reject_rust_names(&tool.rust_names);
        }
        if tool.deny_unknown_arguments {
            let properties = tool.def.input_schema.get("properties");
            call.reject_unknown_arguments(properties.and_then(Value::as_object));
        }
        if !tool.reports_argument_errors && call.has_argument_errors() {
            let errors = call.take_argument_errors();
            return Err(CallRefused::Result(ToolResult::error(
                super::render_argument_errors(name, &errors),
            )));
        }
        let handler = match &self.inner.tool_layers {
            None => super::handler::start_handler(&*tool.handler, call),
            Some(layers) => layers.run(ToolRequest::new(
                call,
                tool.def.clone(),
                tool.handler.clone(),
            )),
        };
        Ok(CallFuture {
            tool: tool.name.clone(),
            inner: CatchUnwind::pinned(handler),
            panic_detail: PanicDetail::default(),
            panicked: false,
            span: tracing::Span::none(),
        })
    }
}

impl ToolServer {
    /// Takes tool `name` out; `false` when there is none.
    pub(crate) fn remove_tool(&mut self, name: &str) -> bool {
        match self
            .inner
            .tools
            .binary_search_by(|tool| (*tool.name).cmp(name))
        {
            Ok(index) => {
                Arc::make_mut(&mut self.inner).tools.remove(index);
                true
            }
            Err(_) => false,
        }
    }

    /// This server without the tools `hide` names (same state, name, version, instructions).
    pub(crate) fn without_tools(&self, hide: &std::collections::BTreeSet<String>) -> ToolServer {
        if hide.is_empty() {
            return self.clone();
        }
        let mut inner = (*self.inner).clone();
        inner.tools.retain(|tool| !hide.contains(&*tool.name));
        ToolServer {
            inner: Arc::new(inner),
        }
    }
}

impl std::fmt::Debug for ToolServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ToolServer")
            .field("name", &self.inner.info.name)
            .field("version", &self.inner.info.version)
            .field(
                "tools",
                &self
                    .inner
                    .tools
                    .iter()
                    .map(|t| &*t.name)
                    .collect::<Vec<_>>(),
            )
            .finish_non_exhaustive()
    }
}

impl ServerInner {
    fn add(
        &mut self,
        builder: ToolDefBuilder,
        handler: ToolHandler,
    ) -> Result<(), ServerBuildError> {
        self.add_tool(builder, handler, None, false)
    }

    /// Adds a tool whose fn is at `location` (`file:line`), when known.
    fn add_tool(
        &mut self,
        mut builder: ToolDefBuilder,
        handler: ToolHandler,
        location: Option<String>,
        reports_argument_errors: bool,
    ) -> Result<(), ServerBuildError> {
        builder.default_always_load(self.always_load);
        let tool = builder.name().to_string();
        check_names(&self.info.name, &tool)?;
        super::def::ElicitedForm::check_all(builder.elicited_forms()).map_err(
            |(form, reason)| ServerBuildError::ElicitationForm {
                server: self.info.name.clone(),
                tool: tool.clone(),
                form,
                reason,
            },
        )?;
        let BuiltTool {
            def,
            required_state,
            rust_names,
            task_support,
            task_start,
            may_ask,
        } = builder
            .build_parts()
            .map_err(|error| ServerBuildError::Schema {
                server: self.info.name.clone(),
                tool: tool.clone(),
                error,
            })?;
        let header_params =
            super::header_params::header_params(&def.input_schema).map_err(|message| {
                ServerBuildError::Schema {
                    server: self.info.name.clone(),
                    tool: tool.clone(),
                    error: crate::schema::SchemaError::new(message),
                }
            })?;
        match self
            .tools
            .binary_search_by(|existing| (*existing.name).cmp(&tool))
        {
            Ok(existing) => {
                // In a stable order: the registration order is the linker's.
                let mut locations = [self.tools[existing].location.clone(), location];
                locations.sort();
                let [first, second] = locations;
                Err(ServerBuildError::DuplicateTool {
                    server: self.info.name.clone(),
                    tool,
                    first,
                    second,
                })
            }
            Err(position) => {
                let name: Arc<str> = tool.into();
                self.tools.insert(
                    position,
                    Tool {
                        name,
                        deny_unknown_arguments: def.input_schema.get("additionalProperties")
                            == Some(&Value::Bool(false)),
                        rust_names: rust_names
                            .into_iter()
                            .map(|(rust, property)| (rust.into(), property.into()))
                            .collect(),
                        def: Arc::new(def),
                        handler,
                        required_state,
                        location,
                        reports_argument_errors,
                        header_params: header_params.into(),
                        task_support,
                        task_start,
                        may_ask,
                    },
                );
                Ok(())
            }
        }
    }
}

fn json_kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// Why a call did not start.
#[derive(Debug)]
pub(crate) enum CallRefused {
    /// No tool has the name: a protocol error on the wire (MCP lists unknown tools among them,
    /// `-32602`), a readable result to a direct [`ToolServer::call`].
    UnknownTool(String),
    /// The arguments do not fit: a result the model reads.
    Result(ToolResult),
}

impl CallRefused {
    /// The refusal as the result a direct caller gets.
    pub(crate) fn into_result(self) -> ToolResult {
        match self {
            CallRefused::UnknownTool(message) => ToolResult::error(message),
            CallRefused::Result(result) => result,
        }
    }
}
