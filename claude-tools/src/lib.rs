//! # claude-tools
//!
//! Typed, compile-time checked tools for Claude Code agents, running inside your own process.
//! Write an ordinary `async fn`, mark it [`#[tool]`](macro@tool), and the Claude Code CLI can
//! call it: its parameters and doc comments become the tool's JSON Schema, your application's
//! state reaches it through extractors, and mistakes are compile errors.
//!
#![doc = include_str!("../docs/getting-started.md")]
#![warn(missing_docs)]

pub mod guide;

pub use claude_tools_core::tool::ToolRef;
pub use claude_tools_macros::{include_skill, prompt, resource, tool, tool_server};

/// The version of claude-tools, as in its `Cargo.toml` (for logs and bug reports).
///
/// ```
/// assert!(claude_tools::VERSION.starts_with("0."));
/// ```
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// The schemars release the tools speak (every item of schemars 1), with one change: its
/// `JsonSchema` derive is claude-tools' own ([`JsonSchema`](derive@JsonSchema)), which needs no
/// schemars dependency in the deriving crate. A type described by a schema implements
/// [`JsonSchema`](trait@JsonSchema) of this crate.
///
/// rustc suggests `use claude_tools::schemars::JsonSchema` to a crate that derives
/// `JsonSchema` without a schemars dependency: this module makes that the right derive
/// (schemars' own would name a `schemars` crate the deriving crate does not have).
///
/// ```
/// use claude_tools::Deserialize;
/// use claude_tools::schemars::JsonSchema;
///
/// #[derive(Deserialize, JsonSchema)]
/// struct Search {
///     query: String,
/// }
///
/// let schema = claude_tools::schemars::schema_for!(Search);
/// assert_eq!(schema.get("type").and_then(|t| t.as_str()), Some("object"));
/// ```
pub mod schemars {
    // The glob brings every item of schemars (its `JsonSchema` trait and derive among them);
    // the named import shadows the derive alone (macro namespace) with claude-tools'.
    #[doc(no_inline)]
    pub use ::schemars::*;
    #[doc(inline)]
    pub use claude_tools_macros::JsonSchema;
}
/// serde's derives and traits. The derives name the `serde` crate, so a crate that uses them
/// depends on serde 1 itself (as any serde user does).
pub use serde::{Deserialize, Serialize};

// `JsonSchema` is schemars' trait (type namespace) and claude-tools' derive (macro namespace),
// one name re-exported once, so that the docs list each once and the derive's entry is
// claude-tools' own. In `json_schema`, the glob brings schemars' trait and derive, and the named
// import shadows the derive alone with claude-tools' (which needs no schemars dependency in the
// deriving crate); the crate root then takes both through one named import.
mod json_schema {
    mod schemars_items {
        pub use schemars::JsonSchema;
    }
    pub use claude_tools_macros::JsonSchema;
    pub use schemars_items::*;
}
pub use claude_tools_core::tool::{
    Audio, CancellationToken, Content, Image, Input, IntoToolResult, Json, ProgressReporter,
    ServerBuildError, State, ToolCall, ToolContext, ToolDef, ToolDefBuilder, ToolError, ToolParam,
    ToolResult, ToolServer,
};
pub use claude_tools_core::{
    complete, layer, prompt as prompts, publish, resource as resources, schema, skill as skills,
    task as tasks, tool as tools,
};
#[doc(inline)]
pub use json_schema::JsonSchema;

/// The MCP side of a tool server: the router that answers JSON-RPC for it (always), and serving
/// it to any MCP client over stdio or Streamable HTTP (feature `mcp`, on by default; `http`
/// opt-in).
pub mod mcp {
    #[doc(inline)]
    pub use claude_tools_core::mcp::*;
    #[doc(inline)]
    pub use claude_tools_core::request_state;
    #[cfg(feature = "http")]
    #[doc(inline)]
    pub use claude_tools_mcp::http;
    #[cfg(feature = "http")]
    #[doc(inline)]
    pub use claude_tools_mcp::shutdown_signal;
    #[cfg(feature = "mcp")]
    #[doc(inline)]
    pub use claude_tools_mcp::stdio::{Serve, serve};
    #[cfg(all(feature = "mcp", feature = "postgres"))]
    #[doc(inline)]
    pub use claude_tools_mcp::tasks::PostgresTaskStore;
    #[cfg(feature = "mcp")]
    #[doc(inline)]
    pub use claude_tools_mcp::{ServeExt, stdio};
}
pub use claude_tools_core::mcp::{LiveToolError, ProgressToken, ToolServerHandle};
#[cfg(feature = "mcp")]
pub use claude_tools_mcp::ServeExt;

#[cfg(feature = "agent")]
pub use claude_tools_runtime::{
    Error, RequestRef, Result, bridge, builtin_tools, callback, control, dialog, elicitation,
    hooks, install, message, options, permission, settings, spare, transport,
};

/// Telemetry glue (feature `opentelemetry`; the guide's "Running in production" chapter): the
/// span exporter wrapper that counts what a collector that is down cost
/// ([`CountingExporter`](telemetry::CountingExporter)), and, with `agent`, the host's trace
/// context as the CLI gets it. The per-tool metrics layer is
/// [`layer::OperationMetricsLayer`].
#[cfg(feature = "opentelemetry")]
pub mod telemetry {
    #[doc(inline)]
    pub use claude_tools_core::telemetry::{CountingExporter, DroppedSpans};
    #[cfg(feature = "agent")]
    #[doc(inline)]
    pub use claude_tools_runtime::telemetry::current_trace_context;
}

// Session history, under the name the official SDKs' users look for (`listSessions`…).
#[cfg(feature = "agent")]
#[doc(inline)]
pub use claude_tools_runtime::history as sessions;

// Session stores: transcripts mirrored into the application's storage, resumed on any host.
#[cfg(feature = "agent")]
#[doc(inline)]
pub use claude_tools_runtime::session_store;

#[cfg(feature = "agent")]
pub use claude_tools_runtime::client::Client;
#[cfg(feature = "agent")]
pub use claude_tools_runtime::hooks::{HookEvent, HookInput, HookMatcher, HookOutput};
#[cfg(feature = "agent")]
pub use claude_tools_runtime::message::{
    AssistantMessage, ContentBlock, Message, ResultMessage, SystemMessage, UserInput, UserMessage,
};
#[cfg(feature = "agent")]
pub use claude_tools_runtime::options::{
    AgentDefinition, ExternalServer, Options, PermissionMode, SettingSource, SystemPrompt,
    ToolNames,
};
#[cfg(feature = "agent")]
pub use claude_tools_runtime::permission::{
    DecisionClassification, McpServerRef, PermissionDecision, PermissionRequest, PermissionUpdate,
};
#[cfg(feature = "agent")]
pub use claude_tools_runtime::query::{
    Prompt, WarmQuery, query, query_with, startup, startup_with,
};
#[cfg(feature = "agent")]
pub use claude_tools_runtime::spare::{SpareProcess, prewarm, prewarm_with};
#[cfg(feature = "agent")]
pub use claude_tools_runtime::stream::MessageStream;

/// The names most tool code needs: `use claude_tools::prelude::*;`.
pub mod prelude {
    #[cfg(feature = "mcp")]
    pub use crate::ServeExt;
    pub use crate::ToolRef;
    pub use crate::complete::CompletionContext;
    pub use crate::mcp::LoggingLevel;
    pub use crate::prompts::{PromptError, PromptMessage};
    pub use crate::resources::{Blob, ResourceError};
    pub use crate::{
        Audio, CancellationToken, Content, Deserialize, Image, Input, Json, JsonSchema,
        ProgressReporter, ProgressToken, Serialize, State, ToolContext, ToolError, ToolResult,
        ToolServer, tool, tool_server,
    };
    #[cfg(feature = "agent")]
    pub use crate::{
        Client, HookEvent, HookMatcher, HookOutput, Message, Options, PermissionDecision,
        PermissionRequest, ResultMessage, query,
    };
    pub use crate::{prompt, resource};
}

/// What the macros expand to. Not public API.
#[doc(hidden)]
pub mod __private {
    pub use claude_tools_core::__private::*;
    pub use inventory;
    pub use schemars;
    pub use serde;
    pub use serde_json;
}
