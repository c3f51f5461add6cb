//! A typed MCP client in the test's own process: [`TestClient`].
//!
//! It talks to a [`ToolServer`] through the same [`McpRouter`] every transport uses, writing
//! each request as the bytes a real client sends and reading the typed answer, so a test
//! exercises what the Claude Code CLI or any MCP client would, with no process, no socket and
//! no JSON plumbing: call a tool, get a prompt, read a resource, complete an argument, list
//! each, answer the tools' questions, and see their progress and log messages, at MCP
//! 2025-11-25 or 2026-07-28.

mod answers;
mod completion;
mod inbox;
mod outcome;
mod rounds;
mod wire;

use std::any::Any;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use claude_tools_core::ask::{
    ClientCapabilities, CreateMessageRequest, CreateMessageResult, ElicitParams, Elicitation,
    RequestsToClient, Root, ServerRequest, ServerRequestParams,
};
use claude_tools_core::complete::Completion;
use claude_tools_core::jsonrpc::{
    Answer, CatalogAnswer, ClientResponse, DiscoverResult, ErrorObject, InitializeResult,
    InputRequiredResult, LoggingLevel, Message, RawParams, Response, ServerNotification,
};
use claude_tools_core::mcp::McpRouter;
use claude_tools_core::prompt::{GetPromptResult, PromptDef};
use claude_tools_core::resource::{ReadResourceResult, ResourceDef, ResourceTemplateDef};
use claude_tools_core::tool::ToolServer;
use serde::Serialize;
use serde_json::Value;
use tokio::sync::OnceCell;

use answers::Answers;
pub use completion::CompletionRequest;
use inbox::Inbox;
pub use outcome::{Progress, TestClientError, ToolOutcome};
use wire::{ElicitResult, Params};

/// How many times a request is sent before the client gives up on a server that keeps
/// answering `input_required` (each round answers every question asked; a handler that asks a
/// new question each run would otherwise never end).
const MAX_ROUNDS: usize = 16;

/// The client's name and version, as it tells the server.
const CLIENT_INFO: wire::ClientInfo = wire::ClientInfo {
    name: "claude-tools-testkit",
    version: env!("CARGO_PKG_VERSION"),
};

/// The MCP revision a [`TestClient`] speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum ProtocolRevision {
    /// MCP 2025-11-25: the client opens the connection with `initialize` (announcing its
    /// capabilities once), and a tool's questions are requests the client answers while the
    /// call runs.
    V2025_11_25,
    /// MCP 2026-07-28 (the default, what the Claude Code CLI negotiates): every request
    /// carries the revision and the client's capabilities in `_meta`, and a tool's questions
    /// come back as an `input_required` result the client retries with its answers.
    #[default]
    V2026_07_28,
}

impl ProtocolRevision {
    /// The revision as MCP names it (`"2026-07-28"`).
    pub fn as_str(self) -> &'static str {
        match self {
            ProtocolRevision::V2025_11_25 => "2025-11-25",
            ProtocolRevision::V2026_07_28 => "2026-07-28",
        }
    }
}

/// A typed MCP client of one [`ToolServer`], in the test's process.
///
/// Each request goes through the server's [`McpRouter`] as the bytes a real client would send,
/// and its answer comes back typed: a [`ToolOutcome`] for a tool, a [`GetPromptResult`], a
/// [`ReadResourceResult`], a [`Completion`]. It speaks MCP 2026-07-28 unless told otherwise
/// ([`TestClient::revision`]); it answers the tools' elicitations with
/// [`TestClient::on_elicitation`] (and, without a handler, tells the server it cannot be
/// asked); it asks for every log message (change it with [`TestClient::log_level`]) and sends
/// a progress token with every call.
///
/// ```
/// use claude_tools::prelude::*;
/// use claude_tools_testkit::TestClient;
///
/// #[tool_server(name = "demo", version = "1.0.0")]
/// pub struct Demo;
///
/// /// Say hello.
/// #[tool(server = Demo)]
/// async fn hello(ctx: ToolContext) -> &'static str {
///     ctx.report_progress(1.0, Some(1.0), Some("done"));
///     "hi"
/// }
///
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// let client = TestClient::new(Demo::server());
/// let outcome = client.call_tool("hello", serde_json::json!({})).await.unwrap();
/// assert_eq!(outcome.text(), "hi");
/// assert_eq!(outcome.progress[0].message.as_deref(), Some("done"));
/// # });
/// ```
pub struct TestClient {
    router: McpRouter,
    inbox: Arc<Inbox>,
    revision: ProtocolRevision,
    log_level: Option<LoggingLevel>,
    /// What the client answers the server's questions with.
    answers: Answers,
    /// Every question the server asked, in order.
    questions: Mutex<Vec<ServerRequestParams>>,
    next_id: AtomicI64,
    /// The `initialize` result of a 2025-11-25 connection, once it is open.
    initialized: OnceCell<InitializeResult>,
}

impl TestClient {
    /// A client of `server`, speaking MCP 2026-07-28.
    pub fn new(server: ToolServer) -> Self {
        Self::from_router(McpRouter::new(server))
    }

    /// A client of the server behind `router` (one configured beyond the defaults: its panic
    /// detail, an identity…). The client sets the router's notifier and lets it send
    /// requests to the client.
    pub fn from_router(router: McpRouter) -> Self {
        let inbox = Arc::new(Inbox::default());
        let sink = inbox.clone();
        let router = router
            .with_notifier(Arc::new(move |notification| sink.deliver(notification)))
            .with_requests_to_client(RequestsToClient::sent());
        Self {
            router,
            inbox,
            revision: ProtocolRevision::default(),
            log_level: None,
            answers: Answers::default(),
            questions: Mutex::new(Vec::new()),
            next_id: AtomicI64::new(1),
            initialized: OnceCell::new(),
        }
    }

    /// The same client, speaking `revision`. Set it before the first request: a 2025-11-25
    /// connection is opened (`initialize`) by the first request.
    pub fn revision(mut self, revision: ProtocolRevision) -> Self {
        self.revision = revision;
        self
    }

    /// The same client, asking for log messages at `level` and above only (by default every
    /// message is sent): with `logging/setLevel` when a 2025-11-25 connection opens, in each
    /// request's `_meta` at 2026-07-28.
    pub fn log_level(mut self, level: LoggingLevel) -> Self {
        self.log_level = Some(level);
        self
    }

    /// The same client, answering every elicitation of the server's tools with `answer`: it
    /// gets the question (its message and form) and returns the user's answer, typed,
    /// accepted ([`Elicitation::Accepted`] with the form's value), declined or cancelled. The
    /// client then announces the `elicitation` capability; without a handler it does not,
    /// and a tool's `ctx.elicit` fails with `AskError::NotSupported` (2025-11-25) or the call
    /// with `-32021` (2026-07-28), as with a real client that cannot show forms.
    ///
    /// ```
    /// use claude_tools::ToolServer;
    /// use claude_tools::mcp::Elicitation;
    /// use claude_tools_testkit::TestClient;
    ///
    /// #[derive(serde::Serialize)]
    /// struct Confirm {
    ///     confirm: bool,
    /// }
    ///
    /// let client = TestClient::new(ToolServer::new("demo", "1.0.0")).on_elicitation(|question| {
    ///     if question.message.contains("delete") {
    ///         Elicitation::Accepted(Confirm { confirm: true })
    ///     } else {
    ///         Elicitation::Declined
    ///     }
    /// });
    /// # let _ = client;
    /// ```
    pub fn on_elicitation<T, F>(mut self, answer: F) -> Self
    where
        T: Serialize,
        F: Fn(&ElicitParams) -> Elicitation<T> + Send + Sync + 'static,
    {
        self.answers.elicitation =
            Some(Arc::new(move |question| ElicitResult::of(answer(question))));
        self
    }

    /// The same client, answering every sampling request of the server's tools
    /// (`ctx.create_message`) with what `answer` returns for it, as the client's model would;
    /// the client then announces the `sampling` capability.
    ///
    /// ```
    /// use claude_tools::ToolServer;
    /// use claude_tools::mcp::CreateMessageResult;
    /// use claude_tools_testkit::TestClient;
    ///
    /// let client = TestClient::new(ToolServer::new("demo", "1.0.0"))
    ///     .on_create_message(|request| {
    ///         CreateMessageResult::from_text("test-model", format!("{} messages read", request.messages.len()))
    ///     });
    /// # let _ = client;
    /// ```
    pub fn on_create_message<F>(mut self, answer: F) -> Self
    where
        F: Fn(&CreateMessageRequest) -> CreateMessageResult + Send + Sync + 'static,
    {
        self.answers.sampling = Some(Arc::new(answer));
        self
    }

    /// The same client, answering `roots/list` (a tool's `ctx.list_roots()`) with `roots`; the
    /// client then announces the `roots` capability.
    ///
    /// ```
    /// use claude_tools::ToolServer;
    /// use claude_tools::mcp::Root;
    /// use claude_tools_testkit::TestClient;
    ///
    /// let client = TestClient::new(ToolServer::new("demo", "1.0.0"))
    ///     .roots([Root::new("file:///work/repo").named("repo")]);
    /// # let _ = client;
    /// ```
    pub fn roots(mut self, roots: impl IntoIterator<Item = Root>) -> Self {
        self.answers.roots = Some(roots.into_iter().collect());
        self
    }

    /// The same client, calling as `identity`: every call's `ToolContext::extension` (and a
    /// tool's `Extension<T>` parameter) gets it, as the HTTP server's auth hook attaches the
    /// caller's identity (`AuthDecision::allow_with`).
    pub fn identity<T: Any + Send + Sync>(mut self, identity: T) -> Self {
        self.router = self.router.with_extension(Some(Arc::new(identity)));
        self
    }

    /// The router the client talks to (to change the tool set through its
    /// `tool_server_handle`, say).
    pub fn router(&self) -> &McpRouter {
        &self.router
    }

    /// What the client tells the server it can be asked.
    fn capabilities(&self) -> ClientCapabilities {
        self.answers.capabilities()
    }

    /// Opens a 2025-11-25 connection (`initialize`, `notifications/initialized`, and
    /// `logging/setLevel` if a level was set) and returns what the server said of itself; the
    /// first request of a 2025-11-25 client does it. At 2026-07-28 there is no `initialize`:
    /// a `-32601` [`TestClientError::Server`] (use [`discover`](TestClient::discover)).
    pub async fn initialize(&self) -> Result<InitializeResult, TestClientError> {
        if self.revision == ProtocolRevision::V2025_11_25 {
            return self.opened().await.cloned();
        }
        let body = wire::Initialize {
            protocol_version: self.revision.as_str(),
            capabilities: self.capabilities().into(),
            client_info: CLIENT_INFO,
        };
        match self.send("initialize", &body, None, None).await? {
            Answer::Initialize(result) => Ok(result),
            answer => Err(unexpected("initialize", answer)),
        }
    }

    /// The 2025-11-25 connection's `initialize` result, opening it on the first call.
    async fn opened(&self) -> Result<&InitializeResult, TestClientError> {
        self.initialized.get_or_try_init(|| self.open()).await
    }

    /// The 2025-11-25 handshake.
    async fn open(&self) -> Result<InitializeResult, TestClientError> {
        let body = wire::Initialize {
            protocol_version: ProtocolRevision::V2025_11_25.as_str(),
            capabilities: self.capabilities().into(),
            client_info: CLIENT_INFO,
        };
        let result = match self.send("initialize", &body, None, None).await? {
            Answer::Initialize(result) => result,
            answer => return Err(unexpected("initialize", answer)),
        };
        let initialized = br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
        self.router.handle(Message::decode(initialized)).await;
        if let Some(level) = self.log_level {
            self.send("logging/setLevel", &wire::SetLevel { level }, None, None)
                .await?;
        }
        Ok(result)
    }

    /// `server/discover` (MCP 2026-07-28): the revisions the server speaks and what it offers.
    pub async fn discover(&self) -> Result<DiscoverResult, TestClientError> {
        match self
            .request("server/discover", &wire::Empty {}, None)
            .await?
        {
            (Answer::Discover(result), _) => Ok(result),
            (answer, _) => Err(unexpected("server/discover", answer)),
        }
    }

    /// `ping` (MCP 2025-11-25; 2026-07-28 removed it, so a client of that revision gets a
    /// `-32601` [`TestClientError::Server`]).
    pub async fn ping(&self) -> Result<(), TestClientError> {
        self.request("ping", &wire::Empty {}, None).await.map(drop)
    }

    /// Calls the tool `name` with `arguments` (anything that serialises to the tool's input:
    /// a `serde_json::json!` object, or a struct of the tool's parameters).
    ///
    /// A tool that fails (its `Err`, bad arguments, a panic) is an `Ok` outcome whose
    /// [`is_error`](ToolOutcome::is_error) is true, as the model would read it; an `Err` is a
    /// protocol error (an unknown tool is `-32602`).
    pub async fn call_tool(
        &self,
        name: &str,
        arguments: impl Serialize,
    ) -> Result<ToolOutcome, TestClientError> {
        let arguments =
            serde_json::to_value(arguments).map_err(|error| TestClientError::NotJson {
                what: "the arguments of tools/call",
                error,
            })?;
        let body = wire::CallTool { name, arguments };
        let token = self.next_id.fetch_add(1, Ordering::Relaxed);
        let mark = self.inbox.mark();
        let questions = self.lock_questions().len();
        let (answer, rounds) = self.request("tools/call", &body, Some(token)).await?;
        let Answer::Tool(result) = answer else {
            return Err(unexpected("tools/call", answer));
        };
        let (progress, logs) = outcome::progress_and_logs(self.inbox.since(mark), token);
        let questions = self
            .lock_questions()
            .get(questions..)
            .unwrap_or_default()
            .to_vec();
        Ok(ToolOutcome {
            result,
            progress,
            logs,
            questions,
            rounds,
        })
    }

    /// `tools/list`: each tool's description as the model reads it (name, description,
    /// `inputSchema`, annotations…), in the server's order.
    pub async fn list_tools(&self) -> Result<Vec<Value>, TestClientError> {
        match self.request("tools/list", &wire::Empty {}, None).await? {
            (Answer::ToolsList(list), _) => Ok(list.tools),
            (answer, _) => Err(unexpected("tools/list", answer)),
        }
    }

    /// Gets the prompt `name` with `arguments` (MCP prompt arguments are strings).
    pub async fn get_prompt<K, V>(
        &self,
        name: &str,
        arguments: impl IntoIterator<Item = (K, V)>,
    ) -> Result<GetPromptResult, TestClientError>
    where
        K: Into<String>,
        V: Into<String>,
    {
        let arguments: BTreeMap<String, String> = arguments
            .into_iter()
            .map(|(name, value)| (name.into(), value.into()))
            .collect();
        let body = wire::GetPrompt {
            name,
            arguments: &arguments,
        };
        match self.request("prompts/get", &body, None).await? {
            (Answer::Catalog(CatalogAnswer::Prompt(result)), _) => Ok(result),
            (answer, _) => Err(unexpected("prompts/get", answer)),
        }
    }

    /// `prompts/list`.
    pub async fn list_prompts(&self) -> Result<Vec<PromptDef>, TestClientError> {
        match self.request("prompts/list", &wire::Empty {}, None).await? {
            (Answer::Catalog(CatalogAnswer::PromptsList { prompts }), _) => Ok(prompts),
            (answer, _) => Err(unexpected("prompts/list", answer)),
        }
    }

    /// Reads the resource at `uri` (a fixed resource's, or one a template matches).
    pub async fn read_resource(&self, uri: &str) -> Result<ReadResourceResult, TestClientError> {
        match self
            .request("resources/read", &wire::ReadResource { uri }, None)
            .await?
        {
            (Answer::Catalog(CatalogAnswer::Resource(result)), _) => Ok(result),
            (answer, _) => Err(unexpected("resources/read", answer)),
        }
    }

    /// `resources/list`: the fixed resources.
    pub async fn list_resources(&self) -> Result<Vec<ResourceDef>, TestClientError> {
        match self
            .request("resources/list", &wire::Empty {}, None)
            .await?
        {
            (Answer::Catalog(CatalogAnswer::ResourcesList { resources }), _) => Ok(resources),
            (answer, _) => Err(unexpected("resources/list", answer)),
        }
    }

    /// `resources/templates/list`: the resource templates.
    pub async fn list_resource_templates(
        &self,
    ) -> Result<Vec<ResourceTemplateDef>, TestClientError> {
        match self
            .request("resources/templates/list", &wire::Empty {}, None)
            .await?
        {
            (Answer::Catalog(CatalogAnswer::ResourceTemplatesList { resource_templates }), _) => {
                Ok(resource_templates)
            }
            (answer, _) => Err(unexpected("resources/templates/list", answer)),
        }
    }

    /// `completion/complete`: the values the server suggests for what was typed.
    pub async fn complete(
        &self,
        request: &CompletionRequest,
    ) -> Result<Completion, TestClientError> {
        let body = wire::Complete {
            reference: &request.reference,
            argument: wire::CompleteArgument {
                name: &request.argument,
                value: &request.value,
            },
            context: (!request.context.is_empty()).then_some(wire::CompleteContext {
                arguments: &request.context,
            }),
        };
        match self.request("completion/complete", &body, None).await? {
            (Answer::Catalog(CatalogAnswer::Complete(result)), _) => Ok(result.completion),
            (answer, _) => Err(unexpected("completion/complete", answer)),
        }
    }

    /// Every notification the server has sent this client so far (progress, log messages,
    /// list changes…), in order; the server's questions are in
    /// [`questions`](TestClient::questions).
    pub fn notifications(&self) -> Vec<ServerNotification> {
        self.inbox.since(0)
    }

    /// Every question the server has asked this client so far, in order.
    pub fn questions(&self) -> Vec<ServerRequestParams> {
        self.lock_questions().clone()
    }
}

impl std::fmt::Debug for TestClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TestClient")
            .field("router", &self.router)
            .field("revision", &self.revision)
            .field("log_level", &self.log_level)
            .field("answers", &self.answers)
            .finish()
    }
}

fn unexpected(method: &'static str, answer: Answer) -> TestClientError {
    TestClientError::UnexpectedAnswer {
        method,
        answer: Box::new(answer),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_client_is_shared_across_tasks_and_its_calls_spawn() {
        fn assert_send_sync<T: Send + Sync>(_: &T) {}
        fn assert_send<T: Send>(_: &T) {}
        let client = TestClient::new(ToolServer::new("s", "1"));
        assert_send_sync(&client);
        assert_send(&client.call_tool("t", ()));
        assert_send(&client.get_prompt("p", [("a", "b")]));
        assert_send(&client.read_resource("r://x"));
        assert_send(&client.complete(&CompletionRequest::prompt("p", "a", "")));
    }
}
