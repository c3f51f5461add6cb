//! The tool-access builder methods of [`Options`] that take a whole server, or none of the
//! built-in tools. The ones whose bounds a user's mistake names (`allow::<T>()`,
//! `tools(...)`) stay in the module root, so that rustc's notes read `Options::allow`.

use claude_tools_core::tool::ToolServer;

use super::Options;

impl Options {
    /// Gives the model no built-in tools at all (`--tools ""`), only those of the MCP servers
    /// configured here; the same as `tools([])`.
    ///
    /// ```
    /// use claude_tools::options::Options;
    ///
    /// let args = Options::new().no_builtin_tools().launch_spec().args;
    /// assert!(args.windows(2).any(|w| w == ["--tools", ""]));
    /// ```
    pub fn no_builtin_tools(self) -> Self {
        self.tools([])
    }

    /// Allows every tool of `server` without asking, with the server-wide rule `mcp__{name}`
    /// (which the CLI matches against every `mcp__{name}__*` tool, including tools the server
    /// gains later). Adds to the list, like [`allow_tool`](Self::allow_tool).
    ///
    /// ```
    /// use claude_tools::Options;
    /// use claude_tools::ToolServer;
    ///
    /// let shop = ToolServer::new("shop", "1.0.0");
    /// let args = Options::new().allow_server(&shop).mcp_server(shop).launch_spec().args;
    /// assert!(args.windows(2).any(|w| w == ["--allowedTools", "mcp__shop"]));
    /// ```
    pub fn allow_server(self, server: &ToolServer) -> Self {
        self.allow_tool(format!("mcp__{}", server.name()))
    }

    /// Allows without asking the tools of `server` annotated read-only (`#[tool(read_only)]`,
    /// `ToolDefBuilder::read_only(true)`), each by its qualified name; the others still go
    /// through the permission mode and `can_use_tool`. Adds to the list, like
    /// [`allow_tool`](Self::allow_tool).
    ///
    /// ```
    /// use claude_tools::Options;
    /// use claude_tools::{ToolDefBuilder, ToolServer};
    ///
    /// let shop = ToolServer::new("shop", "1.0.0")
    ///     .with_typed_tool(ToolDefBuilder::new("search").read_only(true), || async { "" })
    ///     .and_then(|shop| shop.with_typed_tool("buy", || async { "" }))
    ///     .unwrap();
    /// let args = Options::new().allow_read_only_tools(&shop).launch_spec().args;
    /// assert!(args.windows(2).any(|w| w == ["--allowedTools", "mcp__shop__search"]));
    /// ```
    pub fn allow_read_only_tools(mut self, server: &ToolServer) -> Self {
        self.allowed_tools
            .extend(server.read_only_qualified_names());
        self
    }
}
