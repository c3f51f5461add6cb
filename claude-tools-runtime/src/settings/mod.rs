//! The settings the Claude Code CLI reads, typed ([`Settings`]), and the helpers around them
//! that the TypeScript SDK 0.3.332 exports: the trust filter on escalating permission modes
//! ([`filter_escalating_default_mode`]), the `deniedModels` check ([`match_denied_models`]),
//! the settings the CLI would read, merged ([`resolve_settings`]),
//! and the built-in tool names ([`BUILTIN_TOOL_NAMES`], [`LEGACY_TOOL_NAME_ALIASES`]).
//!
//! [`Settings`] types the keys a host sets most (permissions, env, hooks, model pins, the
//! sandbox, MCP server policy…) as fields, so a misspelt key is a compile error, and keeps every
//! other key of the CLI's large, growing schema in [`Settings::extra`]. Read back, unknown keys
//! land in `extra` (nothing is dropped) and a value of the wrong type is a [`SettingsError`]
//! naming its path. Give them to a session with
//! [`Options::typed_settings`](crate::options::Options::typed_settings), or while it runs with
//! [`Controls::apply_typed_flag_settings`](crate::control::Controls::apply_typed_flag_settings).

mod hooks;
mod mcp;
mod permissions;
mod policy;
mod resolve;

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::hooks::HookEvent;
use crate::options::SandboxSettings;
use crate::wire_enum::wire_enum;

pub use hooks::{
    CommandHook, HttpHook, McpToolHook, PromptHook, SettingsHook, SettingsHookMatcher,
};
pub use mcp::McpServerRule;
pub use permissions::{DefaultMode, Permissions};
pub use policy::{
    DeniedModelsMatch, PolicyOrigin, ProvenanceEntry, ResolvedSettingSource, ResolvedSettings,
    SourcedSettings, filter_escalating_default_mode, match_denied_models,
};
pub use resolve::{ResolveSettings, ResolveSettingsError, resolve_settings};
// One list of the built-in tools' names, kept with their types; here too, where rules and
// matchers name tools.
pub use crate::builtin_tools::{BUILTIN_TOOL_NAMES, LEGACY_TOOL_NAME_ALIASES, canonical_tool_name};

/// Claude Code settings: the keys of `settings.json` (and of `--settings`), as the TypeScript
/// SDK 0.3.332's `Settings` names them. Typed fields for the keys most hosts set; every other
/// key in [`extra`](Self::extra), sent and read back as it is.
///
/// ```
/// use claude_tools::hooks::HookEvent;
/// use claude_tools::settings::{CommandHook, Permissions, Settings, SettingsHookMatcher};
///
/// let settings = Settings::new()
///     .model("claude-sonnet-4-5")
///     .permissions(Permissions::new().deny(["WebFetch", "Bash(curl *)"]))
///     .env("LOG_LEVEL", "debug")
///     .hook(
///         HookEvent::PreToolUse,
///         SettingsHookMatcher::new("Bash").command(CommandHook::new("./audit.sh")),
///     );
/// assert_eq!(
///     settings.to_json(),
///     r#"{"env":{"LOG_LEVEL":"debug"},"permissions":{"deny":["WebFetch","Bash(curl *)"]},"model":"claude-sonnet-4-5","hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"./audit.sh"}]}]}}"#
/// );
///
/// // Read back: unknown keys are kept, a wrong type names its path.
/// let read = Settings::from_json(r#"{"model":"opus","spinnerTipsEnabled":false}"#).unwrap();
/// assert_eq!(read.extra["spinnerTipsEnabled"], false);
/// let error = Settings::from_json(r#"{"permissions":{"allow":"Bash"}}"#).unwrap_err();
/// assert_eq!(error.path, "permissions.allow");
/// ```
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Settings {
    /// The JSON Schema reference (`$schema`).
    #[serde(rename = "$schema", default, skip_serializing_if = "Option::is_none")]
    pub schema: Option<String>,
    /// A script that prints the API key to use.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub api_key_helper: Option<String>,
    /// Environment variables for the session.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub env: Option<BTreeMap<String, String>>,
    /// Permission rules and the default mode.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub permissions: Option<Permissions>,
    /// The model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// Models tried in order when the model is overloaded or unavailable.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fallback_model: Option<Vec<String>>,
    /// The models users may pick (managed settings); unset allows all.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub available_models: Option<Vec<String>>,
    /// Models users may not pick, even when allowed (managed settings only); see
    /// [`match_denied_models`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub denied_models: Option<Vec<String>>,
    /// Anthropic model id → the provider's model id (a Bedrock inference profile ARN…).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model_overrides: Option<BTreeMap<String, String>>,
    /// The reasoning effort.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub effort_level: Option<EffortLevel>,
    /// Whether thinking is on by default.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub always_thinking_enabled: Option<bool>,
    /// Command, prompt, agent, HTTP and MCP-tool hooks, by event name (`PreToolUse`…); set
    /// them with [`hook`](Self::hook).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hooks: Option<BTreeMap<String, Vec<SettingsHookMatcher>>>,
    /// Turns every hook off.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub disable_all_hooks: Option<bool>,
    /// The sandbox of the agent's shell commands.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sandbox: Option<SandboxSettings>,
    /// Approve every MCP server of the project's `.mcp.json`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub enable_all_project_mcp_servers: Option<bool>,
    /// The `.mcp.json` servers approved.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub enabled_mcpjson_servers: Option<Vec<String>>,
    /// The `.mcp.json` servers refused.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub disabled_mcpjson_servers: Option<Vec<String>>,
    /// The MCP servers users may use (an enterprise allowlist); unset allows all.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub allowed_mcp_servers: Option<Vec<McpServerRule>>,
    /// The MCP servers blocked everywhere (wins over the allowlist).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub denied_mcp_servers: Option<Vec<McpServerRule>>,
    /// Whether commits and PRs get the co-authored-by line (deprecated by `attribution`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub include_co_authored_by: Option<bool>,
    /// Whether the system prompt has the built-in commit and PR instructions.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub include_git_instructions: Option<bool>,
    /// Days a session transcript is kept.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cleanup_period_days: Option<u32>,
    /// The output style.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_style: Option<String>,
    /// The language Claude answers in.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub language: Option<String>,
    /// The agent the main thread runs as.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent: Option<String>,
    /// How users must sign in.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub force_login_method: Option<LoginMethod>,
    /// Messages shown at startup.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub company_announcements: Option<Vec<String>>,
    /// Every other settings key, sent and read back as given.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

wire_enum! {
    /// A reasoning effort in settings (`effortLevel`).
    pub enum EffortLevel {
        /// `low`.
        Low = "low",
        /// `medium`.
        Medium = "medium",
        /// `high`.
        High = "high",
        /// `xhigh`.
        XHigh = "xhigh",
    }
}

wire_enum! {
    /// How users must sign in (`forceLoginMethod`).
    pub enum LoginMethod {
        /// `claudeai`: a Claude.ai account.
        ClaudeAi = "claudeai",
        /// `console`: an Anthropic Console account.
        Console = "console",
        /// `gateway`.
        Gateway = "gateway",
    }
}

/// Settings that could not be read: not JSON, or a value of the wrong type at
/// [`path`](Self::path).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("settings: `{path}`: {reason}")]
#[non_exhaustive]
pub struct SettingsError {
    /// Where the value that did not fit is (`permissions.allow`, `hooks.PreToolUse[0].hooks`);
    /// `.` for the whole document.
    pub path: String,
    /// What was wrong with it.
    pub reason: String,
}

impl Settings {
    /// No setting.
    pub fn new() -> Self {
        Self::default()
    }

    /// Reads settings JSON (a `settings.json` file's text). Unknown keys are kept in
    /// [`extra`](Self::extra); a value of the wrong type is a [`SettingsError`] naming its path.
    pub fn from_json(json: &str) -> Result<Settings, SettingsError> {
        let mut reader = serde_json::Deserializer::from_str(json);
        let settings = serde_path_to_error::deserialize(&mut reader).map_err(settings_error)?;
        reader.end().map_err(|error| SettingsError {
            path: ".".into(),
            reason: error.to_string(),
        })?;
        Ok(settings)
    }

    /// Reads settings from a JSON value, as [`from_json`](Self::from_json).
    pub fn from_value(value: &Value) -> Result<Settings, SettingsError> {
        serde_path_to_error::deserialize(value).map_err(settings_error)
    }

    /// The settings as a JSON object.
    pub fn to_value(&self) -> Value {
        // Serializing cannot fail: every map key is a string.
        serde_json::to_value(self).unwrap_or_else(|_| Value::Object(Map::new()))
    }

    /// The settings as JSON text (what `--settings` takes).
    pub fn to_json(&self) -> String {
        self.to_value().to_string()
    }

    /// Sets [`model`](Self::model).
    pub fn model(mut self, model: impl Into<String>) -> Self {
        self.model = Some(model.into());
        self
    }

    /// Sets [`permissions`](Self::permissions).
    pub fn permissions(mut self, permissions: Permissions) -> Self {
        self.permissions = Some(permissions);
        self
    }

    /// Adds an environment variable to [`env`](Self::env).
    pub fn env(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.env
            .get_or_insert_with(BTreeMap::new)
            .insert(name.into(), value.into());
        self
    }

    /// Adds a hook matcher for `event` to [`hooks`](Self::hooks).
    pub fn hook(mut self, event: HookEvent, matcher: SettingsHookMatcher) -> Self {
        self.hooks
            .get_or_insert_with(BTreeMap::new)
            .entry(event.as_str().to_owned())
            .or_default()
            .push(matcher);
        self
    }

    /// Sets [`sandbox`](Self::sandbox).
    pub fn sandbox(mut self, sandbox: SandboxSettings) -> Self {
        self.sandbox = Some(sandbox);
        self
    }

    /// Sets another settings key ([`extra`](Self::extra)).
    pub fn setting(mut self, key: impl Into<String>, value: Value) -> Self {
        self.extra.insert(key.into(), value);
        self
    }
}

fn settings_error(error: serde_path_to_error::Error<serde_json::Error>) -> SettingsError {
    SettingsError {
        path: error.path().to_string(),
        reason: error.into_inner().to_string(),
    }
}
