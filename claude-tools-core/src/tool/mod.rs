//! The tool model: what a tool is, what it may extract from a call, what it may return, and the
//! server that collects tools and application state.
//!
//! # Blocking work
//!
//! A tool's future runs on the tokio runtime, and its first poll happens where the session read
//! the request. Keep the thread free: a tool that blocks it (CPU-bound work, `std::fs`, a
//! blocking client, `std::thread::sleep`) holds a runtime thread for as long as it blocks. The
//! session survives it on a multi-thread runtime (after a few milliseconds it reads on in a new
//! task, so other calls are still answered), but not on a current-thread one, and every blocked
//! thread is one worker fewer. Run such work with `tokio::task::spawn_blocking` and await it:
//!
//! ```
//! use claude_tools::tools::{ToolCall, ToolDefBuilder, ToolError, ToolServer};
//!
//! let server = ToolServer::new("math", "1.0.0").with_tool(
//!     ToolDefBuilder::new("primes_below_a_million"),
//!     |_call: ToolCall| async {
//!         let count = tokio::task::spawn_blocking(|| {
//!             (2u32..1_000_000).filter(|n| (2..).take_while(|d| d * d <= *n).all(|d| n % d != 0)).count()
//!         })
//!         .await
//!         .map_err(|e| ToolError::new(format!("the computation failed: {e}")))?;
//!         Ok::<_, ToolError>(count.to_string())
//!     },
//! );
//! assert!(server.is_ok());
//! ```

mod arguments;
mod build_error;
mod call_future;
mod context;
mod def;
mod error;
mod handler;
pub mod header_params;
mod log;
pub(crate) mod names;
pub(crate) mod names_rule;
mod param;
mod qualified_names;
pub mod question;
mod registry;
mod result;
mod server;
mod server_modern;
mod server_tool;
mod state;

pub use arguments::Arguments;
pub use build_error::ServerBuildError;
pub(crate) use context::CallOrigin;
pub use context::{ProgressReporter, ProgressSink, RequestId, ToolContext};
pub(crate) use def::ElicitedForm;
pub use def::{ToolAnnotations, ToolDef, ToolDefBuilder};
pub use error::{ArgumentError, ToolError};
pub(crate) use handler::start_handler;
pub use handler::{
    HandlerFuture, ToolFn, ToolFnArity, ToolFnParam, ToolFnParams, ToolFuture, ToolHandler,
    ViaArguments, ViaExtractor,
};
pub use header_params::{HeaderParam, HeaderParamKind};
pub use log::LogSink;
pub use names::{MAX_QUALIFIED_TOOL_NAME, ToolRef};
pub use param::{CallKind, Extension, Input, ToolCall, ToolParam};
pub use question::Question;
pub use registry::{ServerDefinition, ToolRegistration};
pub use result::{Audio, Content, Image, IntoToolResult, Json, ToolResult};
pub(crate) use server::CallRefused;
pub use server::ToolServer;
pub use server_tool::Tool;
pub use state::{MissingState, State};
pub(crate) use state::{StateMap, StateRequirement};
/// The token a tool's [`ToolContext::cancellation_token`] is: tokio-util's, re-exported so that a
/// tool author needs no tokio-util dependency to name it.
pub use tokio_util::sync::CancellationToken;

pub(crate) use call_future::CallFuture;
pub use call_future::PanicDetail;
pub(crate) use call_future::incident_id;
pub(crate) use error::render_argument_errors;
pub(crate) use result::base64_encode;
