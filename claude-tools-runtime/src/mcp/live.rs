//! Live tool lists: the tools of a served [`ToolServer`] changed while a client is connected.

use std::collections::BTreeSet;
use std::future::Future;
use std::sync::{Arc, RwLock, RwLockReadGuard, RwLockWriteGuard};

use serde_json::{Map, Value};

use super::Notifier;
use crate::tool::{IntoToolResult, ServerBuildError, ToolCall, ToolDefBuilder, ToolFn, ToolServer};

/// The `method` of the notification that tells an MCP client to fetch `tools/list` again.
pub const TOOLS_LIST_CHANGED: &str = "notifications/tools/list_changed";

/// The tool set one router serves, shared with every [`ToolServerHandle`] to it.
pub(crate) struct LiveTools {
    state: RwLock<LiveState>,
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
        }
    }

    /// The tools served now: a cheap snapshot (one `Arc`), unaffected by later changes, so a
    /// call resolves its tool once and keeps it.
    pub(crate) fn active(&self) -> ToolServer {
        self.read().active.clone()
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
/// `notifications/tools/list_changed`, so the model's next request carries the new list.
///
/// Get one with [`Client::tool_server`](crate::client::Client::tool_server) (or
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
    tools: Arc<LiveTools>,
    notifier: Option<Notifier>,
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
        Fut: Future<Output = R> + Send + 'static,
        R: IntoToolResult,
    {
        self.change(|state| {
            state.all = state.all.clone().with_tool(def, handler)?;
            Ok(true)
        })
    }

    /// Adds a typed tool, as [`ToolServer::with_typed_tool`] does (same schema, checks and
    /// state), and sends `notifications/tools/list_changed`. A name already taken, by an
    /// enabled or a disabled tool, is [`ServerBuildError::DuplicateTool`].
    pub fn add_typed_tool<M, H: ToolFn<M>>(
        &self,
        def: impl Into<ToolDefBuilder>,
        handler: H,
    ) -> Result<(), LiveToolError> {
        self.change(|state| {
            state.all = state.all.clone().with_typed_tool(def, handler)?;
            Ok(true)
        })
    }

    /// Removes tool `name` (enabled or disabled) and sends `notifications/tools/list_changed`.
    pub fn remove_tool(&self, name: &str) -> Result<(), LiveToolError> {
        self.change(|state| {
            let mut all = state.all.clone();
            if !all.remove_tool(name) {
                return Err(unknown_tool(&state.all, name));
            }
            state.all = all;
            let was_enabled = !state.disabled.remove(name);
            Ok(was_enabled)
        })
    }

    /// Hides tool `name` from `tools/list` and refuses new calls to it (an `isError` result
    /// naming the tool), until [`enable_tool`](Self::enable_tool). Sends
    /// `notifications/tools/list_changed` when the tool was enabled.
    pub fn disable_tool(&self, name: &str) -> Result<(), LiveToolError> {
        self.change(|state| {
            if state.all.tool(name).is_none() {
                return Err(unknown_tool(&state.all, name));
            }
            Ok(state.disabled.insert(name.to_string()))
        })
    }

    /// Serves a disabled tool again. Sends `notifications/tools/list_changed` when the tool was
    /// disabled.
    pub fn enable_tool(&self, name: &str) -> Result<(), LiveToolError> {
        self.change(|state| {
            if state.all.tool(name).is_none() {
                return Err(unknown_tool(&state.all, name));
            }
            Ok(state.disabled.remove(name))
        })
    }

    /// Sends `notifications/tools/list_changed` (for changes the client cannot see otherwise,
    /// such as a tool whose description depends on state). Nothing is sent without a client.
    pub fn notify_list_changed(&self) {
        if let Some(notifier) = &self.notifier {
            notifier(list_changed_notification());
        }
    }

    /// Applies `edit` under the write lock; `Ok(true)` means the list changed: the served set
    /// is republished, then the client told (after, so that its `tools/list` sees the change).
    fn change(
        &self,
        edit: impl FnOnce(&mut LiveState) -> Result<bool, LiveToolError>,
    ) -> Result<(), LiveToolError> {
        let changed = {
            let mut state = self.tools.write();
            let changed = edit(&mut state)?;
            if changed {
                state.active = state.all.without_tools(&state.disabled);
            }
            changed
        };
        if changed {
            self.notify_list_changed();
        }
        Ok(())
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

/// `{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}`.
pub(crate) fn list_changed_notification() -> Value {
    let mut notification = Map::new();
    notification.insert("jsonrpc".into(), Value::String("2.0".into()));
    notification.insert("method".into(), Value::String(TOOLS_LIST_CHANGED.into()));
    Value::Object(notification)
}
