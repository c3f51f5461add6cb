//! # claude-tools
//!
//! Typed, compile-time checked tools for Claude Code agents, running inside your own process.
//!
//! ```
//! use claude_tools::prelude::*;
//!
//! #[tool_server(name = "calc", version = "1.0.0")]
//! pub struct Calc;
//!
//! /// Add two integers.
//! #[tool(server = Calc, read_only)]
//! async fn add(
//!     /// The first term
//!     a: i64,
//!     /// The second term
//!     b: i64,
//! ) -> i64 {
//!     a + b
//! }
//!
//! # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
//! let server = Calc::server();
//! let result = server.call("add", serde_json::json!({"a": 2, "b": 3}), ToolContext::new()).await;
//! assert_eq!(result.text_content(), "5");
//! # });
//! ```
//!
//! A session serves the tools to the Claude Code CLI. Errors on its message stream are fatal
//! (the session is over) or survivable (one bad line; keep reading): [`Error::is_fatal`] tells
//! which, and `Error`'s `Debug` is its readable message.
//!
//! ```no_run
//! # use claude_tools::prelude::*;
//! # #[tool_server(name = "calc", version = "1.0.0")]
//! # pub struct Calc;
//! # async fn run() -> Result<(), claude_tools::Error> {
//! let options = Options::new()
//!     .mcp_server(Calc::server())
//!     .allowed_tools(["mcp__calc__*"]);
//! let mut messages = query("What is 2 + 3? Use the add tool.", options).await?;
//! while let Some(item) = messages.next().await {
//!     match item {
//!         Ok(Message::Result(result)) => println!("{}", result.result.unwrap_or_default()),
//!         Ok(_) => {}
//!         Err(error) if error.is_fatal() => return Err(error),
//!         Err(error) => eprintln!("skipped: {error}"),
//!     }
//! }
//! # Ok(())
//! # }
//! ```
//!
//! ## Blocking and CPU-bound tools
//!
//! Tools run on the tokio runtime's threads, and a request is first polled right where the
//! session read it. A tool that blocks its thread (heavy computation, `std::fs`, a blocking
//! client) before its first `.await` holds that thread: on a multi-thread runtime the session
//! notices within a few milliseconds and reads on in another task, so other calls are still
//! answered, but the thread stays lost to everything else until the tool returns (and on a
//! current-thread runtime nothing else runs at all). Move such work off the runtime with
//! `tokio::task::spawn_blocking`:
//!
//! ```
//! use claude_tools::prelude::*;
//!
//! #[tool_server(name = "files", version = "1.0.0")]
//! pub struct Files;
//!
//! /// Count the lines of a file.
//! #[tool(server = Files, read_only)]
//! async fn count_lines(
//!     /// The file's path
//!     path: String,
//! ) -> Result<String, ToolError> {
//!     let counted = tokio::task::spawn_blocking(move || {
//!         std::fs::read_to_string(&path).map(|text| text.lines().count())
//!     })
//!     .await
//!     .map_err(|e| ToolError::new(format!("the count failed: {e}")))?;
//!     let lines = counted.map_err(|e| ToolError::new(format!("cannot read the file: {e}")))?;
//!     Ok(lines.to_string())
//! }
//! # fn main() {}
//! ```
//!
//! ## Memory bounds
//!
//! Messages not yet read by the application and bytes not yet read by the CLI are both bounded
//! ([`Options::message_queue_limit`], [`Options::input_buffer_limit`]); at either bound the
//! session pauses reading the CLI's output until the other side catches up.

pub use claude_tools_macros::{tool, tool_server};

/// The version of claude-tools, as in its `Cargo.toml` (for logs and bug reports).
///
/// ```
/// assert!(claude_tools::VERSION.starts_with("0."));
/// ```
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// The schemars release the tools speak: a type described by a schema implements
/// [`JsonSchema`](trait@JsonSchema) of this crate.
pub use schemars;
/// serde's derives and traits. The derives name the `serde` crate, so a crate that uses them
/// depends on serde 1 itself (as any serde user does).
pub use serde::{Deserialize, Serialize};

// `JsonSchema` is schemars' trait (type namespace) and claude-tools' derive (macro namespace):
// the glob brings schemars' trait and derive, the named import shadows the derive alone with the
// one that needs no schemars dependency in the deriving crate.
mod json_schema_trait {
    pub use schemars::JsonSchema;
}
#[doc(inline)]
pub use claude_tools_macros::JsonSchema;
pub use claude_tools_runtime::tool::{
    CancellationToken, Content, Image, Input, IntoToolResult, Json, ProgressReporter,
    ServerBuildError, State, ToolCall, ToolContext, ToolDef, ToolDefBuilder, ToolError, ToolParam,
    ToolResult, ToolServer,
};
pub use claude_tools_runtime::{
    Error, RequestRef, Result, hooks, mcp, message, options, permission, schema, tool as tools,
    transport,
};
#[doc(inline)]
pub use json_schema_trait::*;

pub use claude_tools_runtime::client::Client;
pub use claude_tools_runtime::hooks::{HookEvent, HookInput, HookMatcher, HookOutput};
pub use claude_tools_runtime::message::{
    AssistantMessage, ContentBlock, Message, ResultMessage, SystemMessage, UserInput, UserMessage,
};
pub use claude_tools_runtime::options::{
    AgentDefinition, ExternalServer, Options, PermissionMode, SettingSource, SystemPrompt,
    ToolNames,
};
pub use claude_tools_runtime::permission::{
    PermissionDecision, PermissionRequest, PermissionUpdate,
};
pub use claude_tools_runtime::query::{Prompt, query, query_with};
pub use claude_tools_runtime::stream::MessageStream;

/// The names most tool code needs: `use claude_tools::prelude::*;`.
pub mod prelude {
    pub use crate::{
        CancellationToken, Client, Content, Deserialize, HookEvent, HookMatcher, HookOutput, Image,
        Input, Json, JsonSchema, Message, Options, PermissionDecision, PermissionRequest,
        ProgressReporter, ResultMessage, Serialize, State, ToolContext, ToolError, ToolResult,
        ToolServer, query, tool, tool_server,
    };
}

/// What the macros expand to. Not public API.
#[doc(hidden)]
pub mod __private {
    pub use claude_tools_runtime::__macro_support::*;
    pub use inventory;
    pub use schemars;
    pub use serde;
    pub use serde_json;
}
