//! [`ToolServer`]: the tools of one MCP server, its application state, and calling them.

use std::any::TypeId;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use serde_json::{Map, Value};

use super::context::ToolContext;
use super::def::{ToolDef, ToolDefBuilder};
use super::param::ToolCall;
use super::registry::{ServerDefinition, ToolRegistration};
use super::result::ToolResult;
use super::state::{MissingState, StateMap, StateRequirement};
use crate::catch_unwind::CatchUnwind;
use crate::schema::SchemaError;

/// The future a tool handler returns.
pub type ToolFuture = Pin<Box<dyn Future<Output = ToolResult> + Send + 'static>>;

/// A type-erased tool handler.
pub type ToolHandler = Arc<dyn Fn(ToolCall) -> ToolFuture + Send + Sync>;

/// One tool of a server: its definition and its handler.
#[derive(Clone)]
pub struct Tool {
    name: Arc<str>,
    def: ToolDef,
    handler: ToolHandler,
    required_state: Vec<StateRequirement>,
    /// The input schema says `additionalProperties: false`: calls with other arguments fail.
    deny_unknown_arguments: bool,
    /// The handler reports the problems found before it ran together with its own (a
    /// `#[tool]`'s does); any other handler is not called when there are some.
    reports_argument_errors: bool,
}

impl Tool {
    /// The tool's definition.
    pub fn def(&self) -> &ToolDef {
        &self.def
    }

    /// The tool's name.
    pub fn name(&self) -> &str {
        &self.name
    }
}

impl std::fmt::Debug for Tool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tool")
            .field("def", &self.def)
            .finish_non_exhaustive()
    }
}

/// Why a server could not be built.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum ServerBuildError {
    /// A tool's schema cannot be made Claude-safe.
    #[error("tool `{tool}` of server `{server}`: {error}")]
    Schema {
        /// The server's name.
        server: String,
        /// The tool's name.
        tool: String,
        /// What is wrong with the schema.
        error: SchemaError,
    },
    /// Two tools share a name.
    #[error(
        "server `{server}` has two tools named `{tool}`: tool names must be unique in a server"
    )]
    DuplicateTool {
        /// The server's name.
        server: String,
        /// The duplicated name.
        tool: String,
    },
    /// A name the CLI or the Anthropic API would refuse.
    #[error("{0}")]
    InvalidName(String),
}

/// An MCP server of in-process tools, with the application state its tools share.
///
/// Build one from a `#[tool_server]` type (`MyServer::server()`), or by hand with
/// [`ToolServer::new`] and [`ToolServer::with_tool`]. It is cheap to clone and can be shared by
/// any number of sessions. With no CLI at all, [`ToolServer::list_tools`] and
/// [`ToolServer::call`] let you unit-test tools:
///
/// ```
/// use claude_tools_runtime::tool::{ToolContext, ToolDefBuilder, ToolServer};
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
    inner: Arc<ServerInner>,
}

#[derive(Clone)]
struct ServerInner {
    name: String,
    version: String,
    instructions: Option<String>,
    /// Sorted by name, so `tools/list` is stable and lookup is a binary search.
    tools: Vec<Tool>,
    state: Arc<StateMap>,
}

impl ToolServer {
    /// An empty server; add tools with [`ToolServer::with_tool`].
    pub fn new(name: impl Into<String>, version: impl Into<String>) -> Self {
        Self {
            inner: Arc::new(ServerInner {
                name: name.into(),
                version: version.into(),
                instructions: None,
                tools: Vec::new(),
                state: Arc::default(),
            }),
        }
    }

    /// The server of a `#[tool_server]` type, with every `#[tool(server = S)]` of the program.
    pub fn from_definition<S: ServerDefinition>() -> Result<Self, ServerBuildError> {
        let mut server = Self::new(S::NAME, S::VERSION);
        if let Some(instructions) = S::INSTRUCTIONS {
            server = server.with_instructions(instructions);
        }
        let server_type = TypeId::of::<S>();
        let mut tools = Vec::new();
        for registration in inventory::iter::<ToolRegistration> {
            if registration.belongs_to(server_type) {
                let handler = registration.handler();
                tools.push((registration.describe(), Arc::new(handler) as ToolHandler));
            }
        }
        let inner = Arc::make_mut(&mut server.inner);
        for (builder, handler) in tools {
            inner.add_tool(builder, handler, true)?;
        }
        Ok(server)
    }

    /// Adds a tool defined by hand.
    pub fn with_tool<F, Fut, R>(
        mut self,
        def: ToolDefBuilder,
        handler: F,
    ) -> Result<Self, ServerBuildError>
    where
        F: Fn(ToolCall) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = R> + Send + 'static,
        R: super::IntoToolResult,
    {
        let handler: ToolHandler = Arc::new(move |call| {
            let future = handler(call);
            Box::pin(async move { future.await.into_tool_result() })
        });
        Arc::make_mut(&mut self.inner).add(def, handler)?;
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
        &self.inner.name
    }

    /// The server's version.
    pub fn version(&self) -> &str {
        &self.inner.version
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

    /// Checks that every `State<T>` a tool takes has been registered.
    pub fn check_state(&self) -> Result<(), MissingState> {
        for tool in &self.inner.tools {
            for requirement in &tool.required_state {
                if !self.inner.state.contains(requirement.type_id) {
                    return Err(MissingState {
                        server: self.inner.name.clone(),
                        tool: tool.name.to_string(),
                        type_name: requirement.type_name,
                    });
                }
            }
        }
        Ok(())
    }

    /// Calls a tool. Every failure is a result the model can read: an unknown tool, arguments
    /// that are not an object or do not fit the parameters, a handler error, a handler panic.
    pub async fn call(&self, name: &str, arguments: Value, context: ToolContext) -> ToolResult {
        match self.start_call(name, arguments, context) {
            Ok(future) => future.await,
            Err(result) => result,
        }
    }

    /// Starts a call: the future to await, or the immediate result when it cannot start.
    pub(crate) fn start_call(
        &self,
        name: &str,
        arguments: Value,
        context: ToolContext,
    ) -> Result<CallFuture, ToolResult> {
        let Some(tool) = self.tool(name) else {
            return Err(ToolResult::error(format!(
                "Tool `{name}` not found on server `{}`",
                self.inner.name
            )));
        };
        let arguments = match arguments {
            Value::Object(map) => map,
            Value::Null => Map::new(),
            other => {
                return Err(ToolResult::error(format!(
                    "Invalid arguments for tool `{name}`: expected a JSON object, got {}",
                    json_kind(&other)
                )));
            }
        };
        let mut call = ToolCall::new(
            tool.name.clone(),
            arguments,
            context,
            self.inner.state.clone(),
        );
        if tool.deny_unknown_arguments {
            let properties = tool.def.input_schema.get("properties");
            call.reject_unknown_arguments(properties.and_then(Value::as_object));
            if !tool.reports_argument_errors && call.has_argument_errors() {
                let errors = call.take_argument_errors();
                return Err(ToolResult::error(super::render_argument_errors(
                    name, &errors,
                )));
            }
        }
        Ok(CallFuture {
            tool: tool.name.clone(),
            inner: CatchUnwind::pinned((tool.handler)(call)),
        })
    }
}

impl std::fmt::Debug for ToolServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ToolServer")
            .field("name", &self.inner.name)
            .field("version", &self.inner.version)
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
        self.add_tool(builder, handler, false)
    }

    fn add_tool(
        &mut self,
        builder: ToolDefBuilder,
        handler: ToolHandler,
        reports_argument_errors: bool,
    ) -> Result<(), ServerBuildError> {
        let tool = builder.name().to_string();
        check_names(&self.name, &tool)?;
        let (def, required_state) =
            builder
                .build_parts()
                .map_err(|error| ServerBuildError::Schema {
                    server: self.name.clone(),
                    tool: tool.clone(),
                    error,
                })?;
        match self
            .tools
            .binary_search_by(|existing| (*existing.name).cmp(&tool))
        {
            Ok(_) => Err(ServerBuildError::DuplicateTool {
                server: self.name.clone(),
                tool,
            }),
            Err(position) => {
                let name: Arc<str> = tool.into();
                self.tools.insert(
                    position,
                    Tool {
                        name,
                        deny_unknown_arguments: def.input_schema.get("additionalProperties")
                            == Some(&Value::Bool(false)),
                        def,
                        handler,
                        required_state,
                        reports_argument_errors,
                    },
                );
                Ok(())
            }
        }
    }
}

/// The longest `mcp__{server}__{tool}` name the Claude Code CLI accepts.
pub const MAX_QUALIFIED_TOOL_NAME: usize = 64;

/// Checks the names the Anthropic API and the CLI impose: `[A-Za-z0-9_-]+` for both, and
/// `mcp__{server}__{tool}` at most 64 characters.
fn check_names(server: &str, tool: &str) -> Result<(), ServerBuildError> {
    let valid = |name: &str| {
        !name.is_empty()
            && name
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
    };
    if !valid(server) {
        return Err(ServerBuildError::InvalidName(format!(
            "server name `{server}` must be non-empty and use only ASCII letters, digits, `_` and `-`"
        )));
    }
    if !valid(tool) {
        return Err(ServerBuildError::InvalidName(format!(
            "tool name `{tool}` must be non-empty and use only ASCII letters, digits, `_` and `-`"
        )));
    }
    let qualified = "mcp__".len() + server.len() + "__".len() + tool.len();
    if qualified > MAX_QUALIFIED_TOOL_NAME {
        return Err(ServerBuildError::InvalidName(format!(
            "`mcp__{server}__{tool}` is {qualified} characters; the Claude Code CLI accepts at most \
             {MAX_QUALIFIED_TOOL_NAME}: shorten the server or the tool name"
        )));
    }
    Ok(())
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

/// A running tool call that turns a handler panic into an `isError` result.
pub(crate) struct CallFuture {
    tool: Arc<str>,
    inner: CatchUnwind<dyn Future<Output = ToolResult> + Send + 'static>,
}

impl Future for CallFuture {
    type Output = ToolResult;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<ToolResult> {
        let this = &mut *self;
        match Pin::new(&mut this.inner).poll(cx) {
            Poll::Ready(Ok(result)) => Poll::Ready(result),
            Poll::Ready(Err(panic)) => Poll::Ready(ToolResult::error(format!(
                "tool `{}` panicked: {panic}",
                this.tool
            ))),
            Poll::Pending => Poll::Pending,
        }
    }
}
