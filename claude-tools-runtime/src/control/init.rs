//! The CLI's answer to the host's `initialize`, typed: what the session offers (slash commands,
//! models, subagents, output styles) and who it runs as.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::null_default;
use crate::options::PermissionMode;

/// The CLI's answer to `initialize`, which it sends once the session is up: its commands,
/// models, subagents, account, version and process id.
///
/// Read it with [`Client::initialize_info`](crate::client::Client::initialize_info) (or
/// [`MessageStream::initialize_info`](crate::stream::MessageStream::initialize_info)); the
/// answer as JSON is [`Client::server_info`](crate::client::Client::server_info). Fields the
/// CLI leaves out are `None` or empty; every field not typed here is in
/// [`extra`](Self::extra).
///
/// ```no_run
/// # use claude_tools::Client;
/// # fn run(client: &Client) {
/// let info = client.initialize_info();
/// println!("CLI {:?}, pid {:?}", info.claude_code_version, info.pid);
/// for model in &info.models {
///     println!("{}: {}", model.value, model.display_name);
/// }
/// # }
/// ```
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct InitializeInfo {
    /// The slash commands and skills the session offers (`commands`).
    #[serde(default, deserialize_with = "null_default")]
    pub commands: Vec<SlashCommand>,
    /// The subagents the session can start (`agents`): the CLI's own and those of the options.
    #[serde(default, deserialize_with = "null_default")]
    pub agents: Vec<AgentInfo>,
    /// The models the session can switch to (`models`).
    #[serde(default, deserialize_with = "null_default")]
    pub models: Vec<ModelInfo>,
    /// Who the session runs as (`account`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub account: Option<AccountInfo>,
    /// The CLI's process id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pid: Option<u64>,
    /// The CLI's version (`2.1.332`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub claude_code_version: Option<String>,
    /// The output style in force (`default`, `Concise`…).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_style: Option<String>,
    /// The output styles the session can switch to.
    #[serde(default, deserialize_with = "null_default")]
    pub available_output_styles: Vec<String>,
    /// The permission mode in force at the start, by its wire name; typed by
    /// [`permission_mode`](Self::permission_mode).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub current_permission_mode: Option<String>,
    /// What the CLI can do beyond the base protocol (`reload_plugins_refuse_if_busy_v1`…).
    #[serde(default, deserialize_with = "null_default")]
    pub capabilities: Vec<String>,
    /// Every other field (`session_state`, `fast_mode_state`, `hooks_applied`,
    /// `sdk_mcp_manifests_parked`…).
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl InitializeInfo {
    /// The permission mode in force at the start; the CLI's `manual` reads as
    /// [`PermissionMode::Default`] (as the TypeScript SDK reads it). `None` when the CLI did not
    /// say, or named a mode this crate does not know.
    pub fn permission_mode(&self) -> Option<PermissionMode> {
        self.current_permission_mode
            .as_deref()
            .and_then(PermissionMode::from_wire)
    }

    /// Whether the CLI advertises `capability` (e.g. `interrupt_receipt_v1`).
    pub fn has_capability(&self, capability: &str) -> bool {
        self.capabilities.iter().any(|c| c == capability)
    }
}

/// A slash command or skill the session offers.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct SlashCommand {
    /// Its name, without the leading slash.
    pub name: String,
    /// What it does.
    #[serde(default)]
    pub description: String,
    /// A hint for its arguments (`<file>`; empty when it takes none).
    #[serde(default)]
    pub argument_hint: String,
    /// Other names that run it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub aliases: Option<Vec<String>>,
    /// Whether it is the CLI's own (absent for a user's, project's, plugin's or MCP server's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub builtin: Option<bool>,
    /// Every other field.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// A model the session can use ([`Controls::set_model`](crate::control::Controls::set_model) takes
/// its [`value`](Self::value)).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ModelInfo {
    /// The name to ask for (`default`, `sonnet`, a model id…).
    pub value: String,
    /// The model id it stands for now.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resolved_model: Option<String>,
    /// Its name for people.
    #[serde(default)]
    pub display_name: String,
    /// What it is good at, and its price.
    #[serde(default)]
    pub description: String,
    /// Whether it takes an effort level.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub supports_effort: Option<bool>,
    /// The effort levels it takes (`low`…`max`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub supported_effort_levels: Option<Vec<String>>,
    /// Whether it decides by itself when and how much to think.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub supports_adaptive_thinking: Option<bool>,
    /// Whether it has a fast mode.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub supports_fast_mode: Option<bool>,
    /// Whether it runs in the `auto` permission mode.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub supports_auto_mode: Option<bool>,
    /// Every other field.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// A subagent the session can start.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct AgentInfo {
    /// Its name (`Explore`…).
    pub name: String,
    /// When to use it.
    #[serde(default)]
    pub description: String,
    /// Its model (an alias, an id, or `inherit`), when it has its own.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// Every other field.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// Who the session runs as. With an API key, only where the key came from and the provider are
/// known; a claude.ai login adds the email, organization and subscription.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct AccountInfo {
    /// The account's email.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub email: Option<String>,
    /// Its organization.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub organization: Option<String>,
    /// Its subscription.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subscription_type: Option<String>,
    /// Where the OAuth token came from (`none` without one).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token_source: Option<String>,
    /// Where the API key came from (`ANTHROPIC_API_KEY`, `apiKeyHelper`, `none`…).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub api_key_source: Option<String>,
    /// The API backend (`firstParty`, `bedrock`, `vertex`…).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub api_provider: Option<String>,
    /// Every other field.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}
