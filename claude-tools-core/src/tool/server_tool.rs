//! [`Tool`]: one tool of a server, as the server keeps it.

use std::sync::Arc;

use super::def::ToolDef;
use super::handler::ToolHandler;
use super::state::StateRequirement;

/// One tool of a server: its definition and its handler.
#[derive(Clone)]
pub struct Tool {
    pub(super) name: Arc<str>,
    /// Shared, so that a call run through layers hands it to them without a copy.
    pub(super) def: Arc<ToolDef>,
    pub(super) handler: ToolHandler,
    pub(super) required_state: Vec<StateRequirement>,
    /// `file:line` of a `#[tool]` fn; `None` for a tool added by hand.
    pub(super) location: Option<String>,
    /// The input schema says `additionalProperties: false`: calls with other arguments fail.
    pub(super) deny_unknown_arguments: bool,
    /// `(rust name, property)` of renamed arguments: a call sending the Rust name fails
    /// (`InputSchemaBuilder::rust_name`).
    pub(super) rust_names: Box<[(Box<str>, Box<str>)]>,
    /// The handler reports the problems found before it ran together with its own (a
    /// `#[tool]`'s does); any other handler is not called when there are some.
    pub(super) reports_argument_errors: bool,
    /// Its header-carried parameters (`x-mcp-header`), checked when the server was built.
    pub(super) header_params: Box<[super::HeaderParam]>,
    /// Whether, and from when, its calls run as tasks ([`crate::task`]).
    pub(super) task_support: crate::task::TaskSupport,
    pub(super) task_start: crate::task::TaskStart,
    /// Its handler can ask the client something ([`ToolDefBuilder::may_ask`](super::ToolDefBuilder::may_ask)).
    pub(super) may_ask: bool,
}

impl Tool {
    /// Whether its calls may run as tasks ([`crate::task`]).
    pub fn task_support(&self) -> crate::task::TaskSupport {
        self.task_support
    }

    /// When a call of it becomes a task ([`crate::task::TaskStart`]).
    pub fn task_start(&self) -> crate::task::TaskStart {
        self.task_start
    }

    /// Whether its handler can reach the client: ask it something (elicitation, sampling,
    /// roots) or send it progress or log messages, through a parameter that can
    /// ([`ToolParam::MAY_ASK`](super::ToolParam::MAY_ASK)), or because it takes the raw call. A
    /// call of a tool that cannot is answered without the machinery of questions and streams.
    pub fn may_ask(&self) -> bool {
        self.may_ask
    }

    /// The tool's definition.
    pub fn def(&self) -> &ToolDef {
        &self.def
    }

    /// The tool's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Its name, shared (a clone costs no allocation).
    pub fn shared_name(&self) -> Arc<str> {
        self.name.clone()
    }

    /// The parameters that travel in `Mcp-Param-*` headers over Streamable HTTP at MCP
    /// 2026-07-28 (see [`header_params`](super::header_params)).
    pub fn header_params(&self) -> &[super::HeaderParam] {
        &self.header_params
    }
}

impl std::fmt::Debug for Tool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tool")
            .field("def", &self.def)
            .finish_non_exhaustive()
    }
}
