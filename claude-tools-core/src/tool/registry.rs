//! Compile-time registration: server types and the `inventory` entries `#[tool]` submits.

use std::any::TypeId;

use super::def::ToolDefBuilder;
use super::handler::ToolFuture;
use super::param::ToolCall;

/// A type marked `#[tool_server(...)]`: the constants tools and the server builder read.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a tool server",
    label = "expected a type marked #[tool_server]",
    note = "add #[tool_server(name = \"...\")] to the struct `{Self}`, or name an existing server in `server = ...`"
)]
pub trait ServerDefinition: 'static {
    /// The server name, also the key under which the CLI knows it (`mcp__{NAME}__{tool}`).
    const NAME: &'static str;
    /// The version reported in `serverInfo`.
    const VERSION: &'static str;
    /// Whether its tools carry `_meta["anthropic/alwaysLoad"]` unless they say otherwise.
    const ALWAYS_LOAD: bool;
    /// Instructions reported in the MCP `initialize` result.
    const INSTRUCTIONS: Option<&'static str>;
    /// Whether its tools reject unknown arguments unless they say otherwise
    /// (`#[tool_server(deny_unknown_arguments)]`).
    const DENY_UNKNOWN_ARGUMENTS: bool = false;
}

/// One `#[tool]`, as submitted to `inventory` by the macro. Macro support, not public API.
#[doc(hidden)]
#[derive(Debug)]
pub struct ToolRegistration {
    server: fn() -> TypeId,
    describe: fn() -> ToolDefBuilder,
    handler: fn(ToolCall) -> ToolFuture,
    /// `file:line` of the tool's fn, for the errors that name it.
    location: Option<(&'static str, u32)>,
}

impl ToolRegistration {
    /// What `#[tool]` submits: the server's `TypeId` getter, the definition, the handler.
    pub const fn new(
        server: fn() -> TypeId,
        describe: fn() -> ToolDefBuilder,
        handler: fn(ToolCall) -> ToolFuture,
    ) -> Self {
        Self {
            server,
            describe,
            handler,
            location: None,
        }
    }

    /// Records where the tool's fn is (`file!()`, `line!()`), so that a server build error
    /// about it (two tools with one name, maybe in two crates) can say where to look.
    pub const fn at(mut self, file: &'static str, line: u32) -> Self {
        self.location = Some((file, line));
        self
    }

    /// `file:line` of the tool's fn, when recorded.
    pub(crate) fn location(&self) -> Option<String> {
        self.location.map(|(file, line)| format!("{file}:{line}"))
    }

    pub(crate) fn belongs_to(&self, server: TypeId) -> bool {
        (self.server)() == server
    }

    pub(crate) fn describe(&self) -> ToolDefBuilder {
        (self.describe)()
    }

    pub(crate) fn handler(&self) -> fn(ToolCall) -> ToolFuture {
        self.handler
    }
}

inventory::collect!(ToolRegistration);
