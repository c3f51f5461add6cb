//! The tool model: what a tool is, what it may extract from a call, what it may return, and the
//! server that collects tools and application state.

mod context;
mod def;
mod error;
mod param;
mod registry;
mod result;
mod server;
mod state;

pub use context::{ProgressReporter, ProgressSink, RequestId, ToolContext};
pub use def::{ToolAnnotations, ToolDef, ToolDefBuilder};
pub use error::{ArgumentError, ToolError};
pub use param::{Input, ToolCall, ToolParam};
pub use registry::{ServerDefinition, ToolRegistration};
pub use result::{Content, Image, IntoToolResult, Json, ToolResult};
pub use server::{
    MAX_QUALIFIED_TOOL_NAME, ServerBuildError, Tool, ToolFuture, ToolHandler, ToolServer,
};
pub use state::{MissingState, State};

pub(crate) use server::CallFuture;
