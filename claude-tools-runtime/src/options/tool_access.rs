//! Which tools exist and which run without asking: the tool-access builder methods of
//! [`Options`] (`--tools`, `--allowedTools`, `--disallowedTools`).

use claude_tools_core::tool::{ToolRef, ToolServer};

use super::{Options, ToolNames};

impl Options {
    /// Which built-in tools the model has (`--tools`), replacing any earlier list. Without this
    /// call the CLI's default set applies; `["default"]` asks for it explicitly, and an empty
    /// list leaves none (the same as [`no_builtin_tools`](Self::no_builtin_tools)). This
    /// restricts what exists, not what is permitted: for that, see
    /// [`allowed_tools`](Self::allowed_tools). Tools of our own servers are not affected.
    ///
    /// ```
    /// use claude_tools::options::Options;
    ///
    /// let read_only = Options::new().tools(["Read", "Grep"]);
    /// assert!(read_only.launch_spec().args.windows(2).any(|w| w == ["--tools", "Read,Grep"]));
    ///
    /// let none = Options::new().tools([]);
    /// assert!(none.launch_spec().args.windows(2).any(|w| w == ["--tools", ""]));
    /// ```
    pub fn tools(mut self, tools: impl ToolNames) -> Self {
        self.tools = Some(tools.into_names());
        self
    }

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

    /// Sets the tools the model may use without asking (`--allowedTools`), e.g.
    /// `mcp__tickets__*`, replacing any earlier list; [`allow_tool`](Self::allow_tool) adds one
    /// to it instead. A rule here also means `can_use_tool` is not asked about that tool.
    ///
    /// Rules are strings the CLI matches, so a typo would allow nothing. Two checks catch it:
    /// a rule `mcp__{server}__{tool}` for one of the [`mcp_server`](Self::mcp_server)s given
    /// here must name one of its tools (or hold a `*`), or the session refuses to start with an
    /// [`InvalidOptions`](crate::Error::InvalidOptions) error naming the rule; and the typed
    /// forms need no string at all: [`allow`](Self::allow) (a `#[tool]` fn's name, checked by
    /// the compiler), [`allow_server`](Self::allow_server),
    /// [`allow_read_only_tools`](Self::allow_read_only_tools), or the names
    /// [`ToolServer::qualified_names`] returns.
    ///
    /// ```
    /// use claude_tools::options::Options;
    ///
    /// let options = Options::new()
    ///     .allowed_tools(["Read"])
    ///     .allowed_tools(["mcp__tickets__*"]) // replaces ["Read"]
    ///     .allow_tool("mcp__calc__add"); // adds to it
    /// let args = options.launch_spec().args;
    /// assert!(args.windows(2).any(|w| w == ["--allowedTools", "mcp__tickets__*,mcp__calc__add"]));
    /// ```
    pub fn allowed_tools(mut self, tools: impl ToolNames) -> Self {
        self.allowed_tools = tools.into_names();
        self
    }

    /// Adds one tool (or rule, e.g. `Bash(git *)`) to those allowed without asking
    /// (`--allowedTools`); see [`allowed_tools`](Self::allowed_tools).
    pub fn allow_tool(mut self, tool: impl Into<String>) -> Self {
        self.allowed_tools.push(tool.into());
        self
    }

    /// Sets the tools the model may not use (`--disallowedTools`), replacing any earlier list;
    /// [`disallow_tool`](Self::disallow_tool) adds one to it instead.
    ///
    /// ```
    /// use claude_tools::options::Options;
    ///
    /// let options = Options::new().disallowed_tools(["WebFetch"]).disallow_tool("Bash");
    /// let args = options.launch_spec().args;
    /// assert!(args.windows(2).any(|w| w == ["--disallowedTools", "WebFetch,Bash"]));
    /// ```
    pub fn disallowed_tools(mut self, tools: impl ToolNames) -> Self {
        self.disallowed_tools = tools.into_names();
        self
    }

    /// Adds one tool (or rule) to those the model may not use (`--disallowedTools`); see
    /// [`disallowed_tools`](Self::disallowed_tools).
    pub fn disallow_tool(mut self, tool: impl Into<String>) -> Self {
        self.disallowed_tools.push(tool.into());
        self
    }

    /// Allows tool `T` without asking (`--allowedTools`), named by the type `#[tool]` emits
    /// for it, so a misspelt tool is a compile error instead of a rule that matches nothing
    /// (see [`ToolRef`]). Adds to the list, like
    /// [`allow_tool`](Self::allow_tool). The tool's server must be in the session (an
    /// in-process [`mcp_server`](Self::mcp_server) or an external one of its name): connect
    /// refuses a rule for a server the session does not have, which would allow nothing.
    pub fn allow<T: ToolRef>(self) -> Self {
        let mut options = self.allow_tool(T::QUALIFIED);
        options.allowed_by_type.push((T::SERVER, T::QUALIFIED));
        options
    }

    /// Refuses tool `T` (`--disallowedTools`), named by the type `#[tool]` emits for it (see
    /// [`allow`](Self::allow)). Adds to the list, like [`disallow_tool`](Self::disallow_tool).
    pub fn disallow<T: ToolRef>(self) -> Self {
        self.disallow_tool(T::QUALIFIED)
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
