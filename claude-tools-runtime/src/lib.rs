//! Runtime of [claude-tools](https://docs.rs/claude-tools): drives the Claude Code CLI over its
//! control protocol, serving in-process tool servers (the tool model and MCP router of
//! `claude-tools-core`) to it.
//!
//! Users depend on the `claude-tools` facade, which re-exports this crate (feature `agent`, on by
//! default); the modules here are organised by concern:
//!
//! - [`transport`]: reaching the CLI (spawned process or an in-memory pipe).
//! - [`options`], [`client`], [`query`]: launching the CLI and talking to it — a persistent
//!   [`client::Client`] or a one-shot [`query::query`] ([`spare`]: a CLI started before its
//!   session is known, claimed later), with [`permission`] callbacks and
//!   [`hooks`]; [`builtin_tools`]: the CLI's own tools' inputs and outputs, typed, for those
//!   callbacks and hooks.
//! - [`message`]: what the CLI streams, typed; [`control`]: what it answers the client's
//!   session controls, typed.
//! - [`history`]: the sessions the CLI recorded — listed, read as typed messages, renamed,
//!   tagged, forked, deleted; [`session_store`]: their transcripts mirrored into storage of the
//!   application's and resumed from it on any host.
//! - [`settings`]: the settings the CLI reads, typed, and the policy helpers around them.
//! - [`install`]: installing the Claude Code CLI without npm (feature `install`), and where
//!   such installs live.
//! - `bridge` (feature `bridge`): a host attached to a claude.ai Remote Control session
//!   (the TypeScript SDK's `./bridge` entry point).
//! - [`error`]: the one error type (and [`history::HistoryError`] for session history).

#![warn(missing_docs)]

pub mod bridge;
pub mod builtin_tools;
pub mod callback;
pub mod client;
pub mod control;
pub mod dialog;
pub mod elicitation;
pub mod error;
pub mod history;
pub mod hooks;
pub mod install;
pub mod message;
pub mod options;
pub mod permission;
pub mod query;
pub mod session_store;
pub mod settings;
pub mod spare;
pub mod stream;
pub mod telemetry;
pub mod transport;

mod cli;
mod protocol;
mod redact;
mod session;
mod wire_enum;

pub use error::{Error, RequestRef, Result};

// The envelope parser, reachable by the fuzz targets and property tests only: not compiled
// into a user's build.
#[cfg(any(fuzzing, feature = "test-util"))]
#[doc(hidden)]
pub mod __fuzz;
