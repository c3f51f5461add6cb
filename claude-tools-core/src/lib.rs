//! Core of [claude-tools](https://docs.rs/claude-tools): the tool model the `#[tool]` and
//! `#[tool_server]` macros expand to, the generator of JSON Schemas Claude accepts, and the MCP
//! router that answers JSON-RPC for a tool server. No process, no network: the same server is
//! served in-process to the Claude Code CLI (`claude-tools-runtime`) and to any MCP client over
//! stdio or Streamable HTTP (`claude-tools-mcp`).
//!
//! Users depend on the `claude-tools` facade, which re-exports this crate; a crate of tools with
//! no agent depends on it with `default-features = false` and compiles only this crate and the
//! macros. The modules:
//!
//! - [`tool`]: the tool model — definitions, extractors ([`tool::State`], [`tool::ToolContext`],
//!   [`tool::Input`]), results ([`tool::IntoToolResult`], [`tool::Json`], [`tool::Image`]) and the
//!   [`tool::ToolServer`] that holds them.
//! - [`schema`]: JSON Schemas that Claude accepts (draft 2020-12, inlined, object root).
//! - [`jsonrpc`]: MCP's JSON-RPC, typed: one decoder ([`jsonrpc::Message`]), one writer.
//! - [`mcp`]: the pure MCP router (typed JSON-RPC in, typed JSON-RPC out).
//! - [`ndjson`]: reading one JSON value per line, with a cap on a line's size.
//! - [`prompt`], [`resource`] and [`complete`]: prompts, resources and completions, served
//!   beside the tools by the same router.
//! - [`skill`]: skills a server serves (the MCP skills extension), compiled in or read from
//!   disk.
//! - [`request_state`]: the sealed `requestState` that carries a call across the rounds of an
//!   MCP 2026-07-28 multi-round-trip request.
//! - [`task`]: tools that run as tasks (the `io.modelcontextprotocol/tasks` extension).
//! - [`layer`]: tower middleware around tool calls and MCP requests (limits, timeouts,
//!   policies).

#![warn(missing_docs)]

pub mod ask;
pub mod complete;
pub mod jsonrpc;
pub mod layer;
pub mod mcp;
pub mod ndjson;
pub mod prompt;
pub mod publish;
pub mod request_state;
pub mod resource;
pub mod schema;
pub mod skill;
pub mod task;
pub mod telemetry;
pub mod tool;

mod catalog;

#[doc(hidden)]
pub mod catch_unwind;
#[doc(hidden)]
pub mod json_scan;
#[doc(hidden)]
pub mod json_str;

#[doc(hidden)]
pub mod __private;
