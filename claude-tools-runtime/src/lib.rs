//! Runtime of [claude-tools](https://docs.rs/claude-tools): everything the `#[tool]` and
//! `#[tool_server]` macros expand to, the Claude-safe schema generator, the MCP router that answers
//! the Claude Code CLI's JSON-RPC, and the control-protocol runtime that drives the CLI.
//!
//! Users depend on the `claude-tools` facade, which re-exports this crate; the modules here are
//! organised by concern:
//!
//! - [`tool`]: the tool model — definitions, extractors ([`tool::State`], [`tool::ToolContext`],
//!   [`tool::Input`]), results ([`tool::IntoToolResult`], [`tool::Json`], [`tool::Image`]) and the
//!   [`tool::ToolServer`] that holds them.
//! - [`schema`]: JSON Schemas that Claude accepts (draft 2020-12, inlined, object root).
//! - [`mcp`]: the pure MCP router (JSON-RPC in, JSON-RPC out).
//! - [`transport`]: reaching the CLI (spawned process or an in-memory pipe).
//! - [`options`], [`client`], [`query`]: launching the CLI and talking to it — a persistent
//!   [`client::Client`] or a one-shot [`query::query`], with [`permission`] callbacks and
//!   [`hooks`].
//! - [`error`]: the one error type.

#![warn(missing_docs)]

pub mod client;
pub mod error;
pub mod hooks;
pub mod mcp;
pub mod message;
pub mod options;
pub mod permission;
pub mod query;
pub mod schema;
pub mod stream;
pub mod tool;
pub mod transport;

mod catch_unwind;
mod json_str;
mod protocol;
mod redact;
mod session;

pub use error::{Error, RequestRef, Result};

#[doc(hidden)]
pub mod __macro_support;

// The envelope parser, reachable by the fuzz targets and property tests only.
#[doc(hidden)]
pub mod __fuzz;
