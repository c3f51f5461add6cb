//! tower middleware around a server's tool calls and MCP requests: rate and concurrency
//! limits, timeouts, load shedding, per-caller policies, your own.
//!
//! A server takes two stacks of ordinary `tower::Layer`s, kept with the server so that they
//! apply wherever it is served (in-process to the Claude Code CLI, over stdio, over Streamable
//! HTTP), at one place in the router rather than once per transport:
//!
//! | stack | set with | wraps | request | response | a layer's `Err` becomes |
//! |---|---|---|---|---|---|
//! | tool calls | [`ToolServer::layer`](crate::tool::ToolServer::layer) | each run of a tool's handler | [`ToolRequest`]: the tool's name and [`ToolDef`](crate::tool::ToolDef), the arguments, the [`ToolContext`](crate::tool::ToolContext), the caller | [`ToolResult`](crate::tool::ToolResult) | an `isError` result the model reads |
//! | MCP requests | [`ToolServer::request_layer`](crate::tool::ToolServer::request_layer) | the router's answer to each request | [`McpRequest`]: the id, the method and its typed params, the caller | [`Response`](crate::jsonrpc::Response) | a `-32603` JSON-RPC error |
//!
//! The caller is the principal the transport's auth found out (over HTTP, the auth hook's
//! `AuthDecision::principal`), read with [`ToolRequest::principal`] / [`McpRequest::principal`],
//! and the identity the hook attached, read with `identity::<T>()`; in-process and over stdio
//! there is neither.
//!
//! Both services' error is [`BoxError`], as tower's middleware's is. tower's `timeout` failing a
//! call, or `load_shed` refusing one, are answered in words (a timed-out tool call's handler is
//! cancelled: its token fires and it gets [`CANCEL_GRACE`](crate::mcp::CANCEL_GRACE)); a
//! policy that refuses a call should rather answer `Ok` with what the client should read
//! ([`ToolResult::error`](crate::tool::ToolResult::error),
//! [`McpRequest::refuse`]). Every call takes its own clone of the stack, so a layer's service
//! must be `Clone + Send + Sync`; tower's `RateLimit`, which is not `Clone`, goes behind
//! `tower::buffer::BufferLayer`.
//!
//! A server without layers pays nothing for them: its handlers are called as before, with no
//! box or `Arc` added (BENCHMARKS.md, "Cost of layers").
//!
//! ```
//! use std::time::Duration;
//! use claude_tools::tools::{ToolContext, ToolServer};
//! use serde_json::json;
//! use tower::ServiceBuilder;
//!
//! # tokio::runtime::Builder::new_current_thread().enable_time().build().unwrap().block_on(async {
//! let server = ToolServer::new("search", "1.0.0")
//!     .with_typed_tool("lookup", || async { "found" })
//!     .unwrap()
//!     // At most 8 calls at once, refusing the ninth rather than queueing it, each given 30 s.
//!     .layer(
//!         ServiceBuilder::new()
//!             .load_shed()
//!             .concurrency_limit(8)
//!             .timeout(Duration::from_secs(30)),
//!     );
//! let result = server.call("lookup", json!({}), ToolContext::new()).await;
//! assert_eq!(result.text_content(), "found");
//! # });
//! ```

mod boxed;
mod mcp_request;
#[cfg(feature = "opentelemetry")]
pub mod metrics;
mod tool_call;

pub use boxed::{BoxError, BoxFuture};
pub use mcp_request::{McpRequest, McpService};
#[cfg(feature = "opentelemetry")]
pub use metrics::OperationMetricsLayer;
pub use tool_call::{ToolRequest, ToolService};
