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

pub use claude_tools_macros::{tool, tool_server};
pub use claude_tools_runtime::tool::ToolRef;

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
pub use json_schema::JsonSchema;

pub use claude_tools_runtime::client::Client;
pub use claude_tools_runtime::hooks::{HookEvent, HookInput, HookMatcher, HookOutput};
pub use claude_tools_runtime::mcp::{LiveToolError, ToolServerHandle};
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
    pub use crate::ToolRef;
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
