//! Live tool lists: the tools of a served [`ToolServer`] changed while a client is connected.

use std::collections::BTreeSet;
use std::sync::{Arc, RwLock, RwLockReadGuard, RwLockWriteGuard};

use super::Notifier;
use crate::jsonrpc::ServerNotification;
use crate::tool::{
    HandlerFuture, IntoToolResult, ServerBuildError, ToolCall, ToolDefBuilder, ToolFn, ToolServer,
};

/// The tool set one router serves, shared with every [`ToolServerHandle`] to it.
pub(crate) struct LiveTools {
    state: RwLock<LiveState>,
    /// Who subscribed to which resource, over every connection to this tool set.
    pub(crate) subscribers: Arc<super::subscriptions::Subscribers>,
    /// The per-process codec of `requestState`, drawn when first needed, for a server that set
    /// none; or why it could not be made.
    pub(crate) default_codec:
        std::sync::OnceLock<Result<Arc<crate::request_state::RequestStateCodec>, String>>,
    /// The listen streams open on this tool set (MCP 2026-07-28), over every connection.
    pub(crate) listeners: Arc<super::listen::Listeners>,
    /// The tasks of this tool set (the tasks extension), made when first needed.
    pub(crate) tasks: std::sync::OnceLock<Arc<super::tasks::TaskHost>>,
}

struct LiveState {
    /// Every tool, enabled or not.
    all: ToolServer,
    /// Names of tools of `all` that are hidden from `tools/list` and refused by `tools/call`.
    disabled: BTreeSet<String>,
    /// `all` without `disabled`: what the router serves.
    active: ToolServer,
}

impl LiveTools {
    pub(crate) fn new(server: ToolServer) -> Self {
        Self {
            state: RwLock::new(LiveState {
                active: server.clone(),
                all: server,
                disabled: BTreeSet::new(),
            }),
            subscribers: Arc::default(),
            default_codec: std::sync::OnceLock::new(),
            listeners: Arc::default(),
            tasks: std::sync::OnceLock::new(),
        }
    }

    /// The tools served now: a cheap snapshot (one `Arc`), unaffected by later changes, so a
    /// call resolves its tool once and keeps it.
    pub(crate) fn active(&self) -> ToolServer {
        self.read().active.clone()
    }

    /// Runs `f` on the tools served now without taking a snapshot: for the per-call path,
    /// where `f` (resolving the tool and building its future) keeps nothing borrowed.
    pub(crate) fn with_active<R>(&self, f: impl FnOnce(&ToolServer) -> R) -> R {
        f(&self.read().active)
    }

    fn read(&self) -> RwLockReadGuard<'_, LiveState> {
        // Every write replaces whole values after all checks passed: a panic cannot leave the
        // state half changed, so a poisoned lock is still good.
        self.state
            .read()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    fn write(&self) -> RwLockWriteGuard<'_, LiveState> {
        self.state
            .write()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

/// Why a change to a live tool set was refused. Nothing changed and nothing was sent.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum LiveToolError {
    /// The server has no tool of that name (enabled or disabled).
    #[error("server `{server}` has no tool named `{tool}`; its tools are: {}", known.join(", "))]
    UnknownTool {
        /// The server's name.
        server: String,
        /// The name asked for.
        tool: String,
        /// The names of the server's tools, enabled or not, sorted.
        known: Vec<String>,
    },
    /// The session has no in-process server of that name.
    #[error("no in-process server named `{server}`; the session's servers are: {}", known.join(", "))]
    UnknownServer {
        /// The name asked for.
        server: String,
        /// The names of the session's in-process servers, sorted.
        known: Vec<String>,
    },
    /// The server has no prompt of that name.
    #[error("server `{server}` has no prompt named `{prompt}`")]
    UnknownPrompt {
        /// The server's name.
        server: String,
        /// The name asked for.
        prompt: String,
    },
    /// The server has no resource or resource template written so.
    #[error("server `{server}` has no resource at `{uri}`")]
    UnknownResource {
        /// The server's name.
        server: String,
        /// The URI or URI template asked for.
        uri: String,
    },
    /// The server has no skill of that name.
    #[error("server `{server}` has no skill named `{skill}`")]
    UnknownSkill {
        /// The server's name.
        server: String,
        /// The name asked for.
        skill: String,
    },
    /// The session already has an in-process server of that name.
    #[error("the session already has an in-process server named `{server}`")]
    DuplicateServer {
        /// The name asked for.
        server: String,
    },
    /// The new tool cannot be added (a duplicate name, an invalid name or schema).
    #[error(transparent)]
    Build(#[from] ServerBuildError),
}

/// A handle to the tools of an in-process server while a session serves it: add, remove,
/// enable and disable tools, and the client (the Claude Code CLI) is told with
/// `notifications/tools/list_changed`, and the CLI fetches `tools/list` again before its next
/// turn (what the model is then offered: `claude_tools::Client::tool_server`).
///
/// Get one with `claude_tools::Client::tool_server` (or
/// [`McpRouter::tool_server_handle`](super::McpRouter::tool_server_handle)). It is cheap to
/// clone and `Send + Sync`; changes from any thread are applied one at a time, each completely.
/// A change does not touch calls in flight: a `tools/call` resolves its tool when it starts and
/// runs on with it even if that tool is removed or disabled meanwhile; calls that start after
/// the change see the new set.
///
/// Every successful change that alters the list sends one notification; a change that leaves
/// the list as it was (disabling a disabled tool) sends none. A refused change (unknown name,
/// duplicate) returns a [`LiveToolError`] and changes nothing.
///
/// ```no_run
/// use claude_tools::{Client, ToolServer};
/// use claude_tools::options::Options;
///
/// # async fn run() -> Result<(), Box<dyn std::error::Error>> {
/// let server = ToolServer::new("shop", "1.0.0")
///     .with_typed_tool("search", || async { "mugs" })?
///     .with_typed_tool("refund", || async { "refunded" })?;
/// let mut client = Client::connect(Options::new().mcp_server(server)).await?;
///
/// let shop = client.tool_server("shop")?;
/// shop.disable_tool("refund")?; // hidden from the model until enabled again
/// shop.add_typed_tool("checkout", || async { "paid" })?;
/// client.query("Buy a mug").await?; // this turn's model request lists search and checkout
/// # Ok(())
/// # }
/// ```
#[derive(Clone)]
pub struct ToolServerHandle {
    pub(super) tools: Arc<LiveTools>,
    pub(super) notifier: Option<Notifier>,
}

impl ToolServerHandle {
    pub(crate) fn new(tools: Arc<LiveTools>, notifier: Option<Notifier>) -> Self {
        Self { tools, notifier }
    }

    /// The server's name.
    pub fn name(&self) -> String {
        self.tools.read().all.name().to_string()
    }

    /// The tools served now (enabled ones), with their state: what `tools/list` answers.
    pub fn server(&self) -> ToolServer {
        self.tools.active()
    }

    /// The names of the enabled tools, sorted.
    pub fn enabled_tools(&self) -> Vec<String> {
        tool_names(&self.tools.read().active)
    }

    /// The names of the disabled tools, sorted.
    pub fn disabled_tools(&self) -> Vec<String> {
        self.tools.read().disabled.iter().cloned().collect()
    }

    /// Adds a tool defined by hand, as [`ToolServer::with_tool`] does (same checks, the
    /// server's state), and sends `notifications/tools/list_changed`. A name already taken,
    /// by an enabled or a disabled tool, is [`ServerBuildError::DuplicateTool`].
    pub fn add_tool<F, Fut, R>(
        &self,
        def: impl Into<ToolDefBuilder>,
        handler: F,
    ) -> Result<(), LiveToolError>
    where
        F: Fn(ToolCall) -> Fut + Send + Sync + 'static,
        Fut: HandlerFuture<Output = R> + Send + 'static,
        R: IntoToolResult,
    {
        self.update(|tools| tools.add_tool(def, handler))
    }

    /// Adds a typed tool, as [`ToolServer::with_typed_tool`] does (same schema, checks and
    /// state), and sends `notifications/tools/list_changed`. A name already taken, by an
    /// enabled or a disabled tool, is [`ServerBuildError::DuplicateTool`].
    pub fn add_typed_tool<M, H: ToolFn<M>>(
        &self,
        def: impl Into<ToolDefBuilder>,
        handler: H,
    ) -> Result<(), LiveToolError> {
        self.update(|tools| tools.add_typed_tool(def, handler))
    }

    /// Removes tool `name` (enabled or disabled) and sends `notifications/tools/list_changed`.
    pub fn remove_tool(&self, name: &str) -> Result<(), LiveToolError> {
        self.update(|tools| tools.remove_tool(name))
    }

    /// Hides tool `name` from `tools/list` and refuses new calls to it (an `isError` result
    /// naming the tool), until [`enable_tool`](Self::enable_tool). Sends
    /// `notifications/tools/list_changed` when the tool was enabled.
    pub fn disable_tool(&self, name: &str) -> Result<(), LiveToolError> {
        self.update(|tools| tools.disable_tool(name))
    }

    /// Serves a disabled tool again. Sends `notifications/tools/list_changed` when the tool was
    /// disabled.
    pub fn enable_tool(&self, name: &str) -> Result<(), LiveToolError> {
        self.update(|tools| tools.enable_tool(name))
    }

    /// Applies several changes at once: all or none (the first error undoes the others), seen
    /// together by calls that start afterwards, and told to the client with one notification
    /// (so the CLI fetches `tools/list` once).
    ///
    /// ```
    /// use claude_tools::ToolServer;
    /// use claude_tools::mcp::McpRouter;
    ///
    /// let server = ToolServer::new("shop", "1.0.0")
    ///     .with_typed_tool("search", || async { "" }).unwrap()
    ///     .with_typed_tool("refund", || async { "" }).unwrap();
    /// let shop = McpRouter::new(server).tool_server_handle();
    /// shop.update(|tools| {
    ///     tools.add_typed_tool("checkout", || async { "paid" })?;
    ///     tools.disable_tool("refund")
    /// })
    /// .unwrap();
    /// assert_eq!(shop.enabled_tools(), ["checkout", "search"]);
    ///
    /// // All or none: the unknown name undoes the removal before it.
    /// let refused = shop.update(|tools| {
    ///     tools.remove_tool("search")?;
    ///     tools.enable_tool("nope")
    /// });
    /// assert!(refused.is_err());
    /// assert_eq!(shop.enabled_tools(), ["checkout", "search"]);
    /// ```
    pub fn update(
        &self,
        edit: impl FnOnce(&mut ToolSetEdit) -> Result<(), LiveToolError>,
    ) -> Result<(), LiveToolError> {
        let (changed, catalog) = {
            let mut state = self.tools.write();
            let mut draft = ToolSetEdit {
                all: state.all.clone(),
                disabled: state.disabled.clone(),
                changed: false,
                catalog: CatalogChanges::default(),
            };
            edit(&mut draft)?;
            if draft.changed || draft.catalog.any() {
                state.active = draft.all.without_tools(&draft.disabled);
                state.all = draft.all;
                state.disabled = draft.disabled;
            }
            (draft.changed, draft.catalog)
        };
        // After the lock is released and the set republished, so that the client's
        // `tools/list` sees the change.
        if changed {
            self.notify_list_changed();
        }
        self.notify_catalog_changes(catalog);
        Ok(())
    }

    /// Sends `notifications/tools/list_changed` (for changes the client cannot see otherwise,
    /// such as a tool whose description depends on state). Nothing is sent without a client.
    pub fn notify_list_changed(&self) {
        self.tools
            .listeners
            .publish(&ServerNotification::ToolsListChanged);
        if let Some(notifier) = &self.notifier {
            notifier(ServerNotification::ToolsListChanged);
        }
    }
}

/// The changes of one [`ToolServerHandle::update`], made on a draft of the tool set.
pub struct ToolSetEdit {
    pub(super) all: ToolServer,
    disabled: BTreeSet<String>,
    /// Whether the served list differs (a no-op, such as disabling a disabled tool, does not).
    changed: bool,
    /// Whether the prompts or the resources changed.
    pub(super) catalog: CatalogChanges,
}

/// Which lists of prompts and resources an update changed.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct CatalogChanges {
    pub(super) prompts: bool,
    pub(super) resources: bool,
}

impl CatalogChanges {
    fn any(self) -> bool {
        self.prompts || self.resources
    }
}

impl ToolSetEdit {
    /// [`ToolServerHandle::add_tool`], within the update.
    pub fn add_tool<F, Fut, R>(
        &mut self,
        def: impl Into<ToolDefBuilder>,
        handler: F,
    ) -> Result<(), LiveToolError>
    where
        F: Fn(ToolCall) -> Fut + Send + Sync + 'static,
        Fut: HandlerFuture<Output = R> + Send + 'static,
        R: IntoToolResult,
    {
        self.all = self.all.clone().with_tool(def, handler)?;
        self.changed = true;
        Ok(())
    }

    /// [`ToolServerHandle::add_typed_tool`], within the update.
    pub fn add_typed_tool<M, H: ToolFn<M>>(
        &mut self,
        def: impl Into<ToolDefBuilder>,
        handler: H,
    ) -> Result<(), LiveToolError> {
        self.all = self.all.clone().with_typed_tool(def, handler)?;
        self.changed = true;
        Ok(())
    }

    /// [`ToolServerHandle::remove_tool`], within the update.
    pub fn remove_tool(&mut self, name: &str) -> Result<(), LiveToolError> {
        if !self.all.remove_tool(name) {
            return Err(unknown_tool(&self.all, name));
        }
        // Removing a disabled tool changes nothing the client sees.
        if !self.disabled.remove(name) {
            self.changed = true;
        }
        Ok(())
    }

    /// [`ToolServerHandle::disable_tool`], within the update.
    pub fn disable_tool(&mut self, name: &str) -> Result<(), LiveToolError> {
        self.check_known(name)?;
        if self.disabled.insert(name.to_string()) {
            self.changed = true;
        }
        Ok(())
    }

    /// [`ToolServerHandle::enable_tool`], within the update.
    pub fn enable_tool(&mut self, name: &str) -> Result<(), LiveToolError> {
        self.check_known(name)?;
        if self.disabled.remove(name) {
            self.changed = true;
        }
        Ok(())
    }

    fn check_known(&self, name: &str) -> Result<(), LiveToolError> {
        match self.all.tool(name) {
            Some(_) => Ok(()),
            None => Err(unknown_tool(&self.all, name)),
        }
    }
}

impl std::fmt::Debug for ToolSetEdit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ToolSetEdit")
            .field("all", &self.all)
            .field("disabled", &self.disabled)
            .finish_non_exhaustive()
    }
}

impl std::fmt::Debug for ToolServerHandle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ToolServerHandle")
            .field("name", &self.name())
            .field("enabled", &self.enabled_tools())
            .field("disabled", &self.disabled_tools())
            .finish_non_exhaustive()
    }
}

fn tool_names(server: &ToolServer) -> Vec<String> {
    server
        .tools()
        .iter()
        .map(|tool| tool.name().to_string())
        .collect()
}

fn unknown_tool(server: &ToolServer, name: &str) -> LiveToolError {
    LiveToolError::UnknownTool {
        server: server.name().to_string(),
        tool: name.to_string(),
        known: tool_names(server),
    }
}
