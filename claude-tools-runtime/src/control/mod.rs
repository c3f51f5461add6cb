//! The session controls and what the CLI answers them, typed: [`Controls`] (which
//! [`Client`](crate::client::Client) and the one-shot
//! [`MessageStream`](crate::stream::MessageStream) both dereference to), the arguments of its
//! methods, their results, the CLI's answer to `initialize` ([`InitializeInfo`]), and the
//! [`AbortHandle`] that ends a session from another task.
//!
//! Each receipt types the fields the CLI is known to send and keeps every other field in its
//! `extra` map (as the messages do), so a field a later CLI adds is never lost. A field the CLI
//! leaves out is `None` or empty, except where the answer means nothing without it
//! ([`ContextUsage::total_tokens`], [`RewindFilesResult::can_rewind`]). An answer that does not
//! fit its type fails the call with [`Error::Protocol`] naming the
//! request; [`Controls::control_request`](crate::control::Controls::control_request) returns any
//! answer as JSON.

use std::collections::BTreeMap;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::{Map, Value};

use crate::error::{Error, Result};
pub use crate::message::{McpServerInfo, McpServerStatus, McpToolAnnotations, McpToolInfo};
use crate::options::PermissionMode;

pub(crate) mod abort;
mod arguments;
mod files;
mod handle;
mod init;
mod mcp_servers;
mod reload;
mod usage;

pub use abort::AbortHandle;
pub(crate) use arguments::PluginToAdd;
pub use arguments::{
    ContextDetail, McpPermissionMode, ReadFile, ReloadPlugins, SettingsSource, SettingsUpdate,
    ThinkingChange, UsageQuery,
};
pub use files::{FileContents, McpPermissionOverrideReceipt, OutputStyles};
pub use handle::Controls;
pub(crate) use handle::reinitialize_body;
pub use init::{AccountInfo, AgentInfo, InitializeInfo, ModelInfo, SlashCommand};
pub(crate) use reload::BackgroundTasksReceipt;
pub use reload::{
    CacheImpact, McpResource, McpResourceContent, PluginInfo, ReloadPluginsResult,
    ReloadSkillsResult,
};
pub use usage::{RateLimitWindow, RateLimits, SessionUsage, UsageReport};

/// The answer to `interrupt` (`{"still_queued": […]}`, and `"cancelled": […]` when the interrupt
/// also cancelled the queued prompts).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct InterruptReceipt {
    /// The uuids of the prompts still queued after the interrupt (they run next).
    #[serde(default, deserialize_with = "null_default")]
    pub still_queued: Vec<String>,
    /// The uuids of queued prompts the interrupt cancelled, when the CLI reports any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cancelled: Option<Vec<String>>,
    /// Every other field.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The answer to `set_model` (`{"model": …}` from CLI 2.1.330 on; `{}` from older ones).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ModelReceipt {
    /// The model the next turns use, as the CLI resolved it (the default model's id for
    /// `set_model(None)`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// Every other field.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The answer to `set_permission_mode` (`{"mode": …}` from CLI 2.1.330 on; `{}` from older
/// ones).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct PermissionModeReceipt {
    /// The permission mode now in force, by its wire name (`acceptEdits`…); typed by
    /// [`permission_mode`](Self::permission_mode).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<String>,
    /// Every other field.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl PermissionModeReceipt {
    /// The permission mode now in force (it can differ from the one asked for); the CLI's
    /// `manual` reads as [`PermissionMode::Default`], as the TypeScript SDK reads it. `None`
    /// when the CLI did not say (before 2.1.330), or named a mode this crate does not know.
    pub fn permission_mode(&self) -> Option<PermissionMode> {
        self.mode.as_deref().and_then(PermissionMode::from_wire)
    }
}

/// The answer to `mcp_status`: every MCP server of the session and its state. The CLI lists its
/// in-process (`sdk`) servers only once the first turn has started.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct McpStatus {
    /// The servers (`mcpServers`).
    #[serde(rename = "mcpServers", default, deserialize_with = "null_default")]
    pub servers: Vec<McpServerStatus>,
    /// Every other field.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl McpStatus {
    /// The status of the server `name`, if it is listed.
    pub fn server(&self, name: &str) -> Option<&McpServerStatus> {
        self.servers.iter().find(|server| server.name == name)
    }
}

/// The answer to `get_context_usage`: how the context window is used, as the CLI's `/context`
/// shows it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ContextUsage {
    /// Tokens in the context window now.
    pub total_tokens: u64,
    /// The most the window holds before the CLI compacts it (the model's window less the
    /// autocompact buffer).
    pub max_tokens: u64,
    /// The model's own window size.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub raw_max_tokens: Option<u64>,
    /// How full the window is, in percent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub percentage: Option<f64>,
    /// The model the figures are for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// Whether the CLI compacts the conversation on its own.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub is_auto_compact_enabled: Option<bool>,
    /// The token count at which it does.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub auto_compact_threshold: Option<u64>,
    /// The tokens by category (system prompt, tools, messages, free space…).
    #[serde(default, deserialize_with = "null_default")]
    pub categories: Vec<ContextCategory>,
    /// Every other field (`memoryFiles`, `mcpTools`, `agents`, `gridRows`, `messageBreakdown`,
    /// `apiUsage`…).
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// One category of [`ContextUsage`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ContextCategory {
    /// The category (`System prompt`, `MCP tools`, `Messages`…).
    pub name: String,
    /// Its tokens.
    pub tokens: u64,
    /// The colour `/context` draws it in.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub color: Option<String>,
    /// Whether its tokens are deferred (tools loaded on demand), not in the window yet.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub is_deferred: Option<bool>,
    /// Every other field.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The answer to `rewind_files`. Rewinding needs file checkpointing
/// ([`Options::enable_file_checkpointing`](crate::options::Options::enable_file_checkpointing)).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct RewindFilesResult {
    /// Whether the files could be rewound (`false`, with [`error`](Self::error), when a file
    /// failed to restore and none changed).
    pub can_rewind: bool,
    /// Why not, when it could not.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// The files that changed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub files_changed: Option<Vec<String>>,
    /// Lines inserted by the rewind.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub insertions: Option<u64>,
    /// Lines deleted by the rewind.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deletions: Option<u64>,
    /// Every other field.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The answer to `mcp_set_servers`, which [`Controls::set_mcp_servers`] and
/// [`Client::remove_server`] send: the servers the CLI added and removed, and the ones it could
/// not connect (`{"errors": {"ext": "Connection closed"}}`).
///
/// [`Controls::set_mcp_servers`]: crate::control::Controls::set_mcp_servers
/// [`Client::remove_server`]: crate::client::Client::remove_server
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct McpSetServersResult {
    /// The servers the CLI added.
    #[serde(default, deserialize_with = "null_default")]
    pub added: Vec<String>,
    /// The servers the CLI removed.
    #[serde(default, deserialize_with = "null_default")]
    pub removed: Vec<String>,
    /// Why a server could not be connected, by name (it is added all the same, and
    /// [`Controls::mcp_status`](crate::control::Controls::mcp_status) lists it as `failed`).
    #[serde(default, deserialize_with = "null_default")]
    pub errors: BTreeMap<String, String>,
    /// Every other field.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `null` as the default: the CLI sends `null` for some absent lists.
pub(crate) fn null_default<'de, D, T>(deserializer: D) -> std::result::Result<T, D::Error>
where
    D: Deserializer<'de>,
    T: Default + Deserialize<'de>,
{
    Option::<T>::deserialize(deserializer).map(Option::unwrap_or_default)
}

/// The CLI's answer to `subtype`, typed as `T`; an answer that does not fit is a protocol
/// error naming the request and what did not fit.
pub(crate) fn receipt<T: DeserializeOwned>(subtype: &str, answer: Value) -> Result<T> {
    serde_json::from_value(answer).map_err(|error| Error::Protocol {
        message: format!(
            "the CLI's answer to `{subtype}` does not fit {}: {error} \
             (Controls::control_request returns any answer as JSON)",
            short_type_name::<T>()
        ),
        request: None,
    })
}

/// `McpStatus` for `claude_tools_runtime::control::McpStatus`.
fn short_type_name<T>() -> &'static str {
    let name = std::any::type_name::<T>();
    name.rsplit("::").next().unwrap_or(name)
}
