//! The names the CLI and the model know a server's tools by: `mcp__{server}__{tool}`, for
//! permission rules and `allowed_tools`.

use super::def::ToolDef;
use super::names_rule;
use super::server::ToolServer;

impl ToolServer {
    /// The name the CLI and the model know tool `tool` by, `mcp__{server}__{tool}`, or `None`
    /// when the server has no such tool: a typo is found here, not in a permission rule that
    /// silently matches nothing.
    ///
    /// ```
    /// use claude_tools::ToolServer;
    ///
    /// let server = ToolServer::new("shop", "1.0.0").with_typed_tool("search", || async { "" }).unwrap();
    /// assert_eq!(server.qualified_name("search").as_deref(), Some("mcp__shop__search"));
    /// assert_eq!(server.qualified_name("serch"), None);
    /// ```
    pub fn qualified_name(&self, tool: &str) -> Option<String> {
        self.tool(tool).map(|tool| qualify(self.name(), &tool.name))
    }

    /// The qualified names (`mcp__{server}__{tool}`) of every tool of the server, sorted: what
    /// `claude_tools::Options::allowed_tools` takes.
    pub fn qualified_names(&self) -> Vec<String> {
        self.qualified_names_where(|_| true)
    }

    /// The qualified names of the tools annotated read-only (`#[tool(read_only)]`,
    /// [`ToolDefBuilder::read_only`](super::ToolDefBuilder::read_only)`(true)`), sorted.
    pub fn read_only_qualified_names(&self) -> Vec<String> {
        self.qualified_names_where(|def| def.annotations.read_only == Some(true))
    }

    /// The qualified names of the tools whose definition passes `keep`, sorted.
    pub fn qualified_names_where(&self, keep: impl Fn(&ToolDef) -> bool) -> Vec<String> {
        self.tools()
            .iter()
            .filter(|tool| keep(&tool.def))
            .map(|tool| qualify(self.name(), &tool.name))
            .collect()
    }
}

/// `mcp__{server}__{tool}`.
fn qualify(server: &str, tool: &str) -> String {
    format!(
        "{}{server}{}{tool}",
        names_rule::PREFIX,
        names_rule::SEPARATOR
    )
}
