//! What `#[tool]` and `#[tool_server]` expand to. Not a public API: reached only through the
//! facade's hidden `__private` module, and free to change in any release.
//!
//! Each file is one concern of the expansion, and everything is re-exported here, the one path
//! the generated code names (`::claude_tools::__private::…`):
//!
//! - `dispatch`: classifying a parameter by trait (the [`Slot`] receiver and its five levels);
//! - `param`: what one parameter contributes to a tool ([`Param`]);
//! - `diagnostics`: the never-or-always-implemented traits whose `on_unimplemented` messages are
//!   the compile errors of a bad parameter;
//! - `feature_hints`: the claude-tools feature a parameter type probably needs;
//! - `defaults`: a parameter default's JSON, when its type serializes;
//! - `call`: the futures of one call;
//! - `failed_call`: the result of a call whose parameters could not all be extracted;
//! - `result_fns`: how a handler's return type becomes a result and an output schema;
//! - `server`: what a tool reads of its server, and building the server;
//! - `server_crate` and [`duplicate_tool_name`]: telling apart two tools of one name;
//! - `name_length` and `const_text`: the compile-time check of a tool's full name;
//! - `rust_names`: what claude-tools' `#[derive(JsonSchema)]` calls;
//! - `catalog`: what `#[prompt]` and `#[resource]` expand to.

pub use std::any::TypeId;

pub use crate::tool::{
    ArgumentError, IntoToolResult, ServerBuildError, ServerDefinition, ToolCall, ToolDefBuilder,
    ToolError, ToolFuture, ToolParam, ToolRegistration, ToolResult, ToolServer,
};

pub use crate::schema::doc_description;

// What the marker type of a tool's name (`ToolRef`) expands to.
pub use crate::tool::ToolRef;
pub use crate::tool::names::{qualified_name_bytes, qualified_name_str};

mod call;
mod catalog;
mod const_text;
mod defaults;
mod diagnostics;
mod dispatch;
pub mod duplicate_tool_name;
mod elicited_form;
mod failed_call;
mod feature_hints;
mod name_length;
mod param;
mod result_fns;
mod rust_names;
mod send_gate;
mod server;
mod server_crate;

pub use call::*;
pub use catalog::*;
pub use const_text::*;
pub use defaults::*;
pub use diagnostics::*;
pub use dispatch::*;
pub use elicited_form::*;
pub use failed_call::*;
pub use feature_hints::*;
pub use name_length::*;
pub use param::*;
pub use result_fns::*;
pub use rust_names::*;
pub use send_gate::*;
pub use server::*;
pub use server_crate::*;
