//! The arguments of the controls that take more than a name: what
//! [`Controls::update_settings`](super::Controls::update_settings),
//! [`read_file`](super::Controls::read_file), [`usage`](super::Controls::usage),
//! [`context_usage_with`](super::Controls::context_usage_with),
//! [`reload_plugins_with`](super::Controls::reload_plugins_with),
//! [`set_thinking`](super::Controls::set_thinking) and
//! [`set_mcp_permission_mode_override`](super::Controls::set_mcp_permission_mode_override)
//! send, each a typed value the request is written from (the wire names are the TypeScript SDK
//! 0.3.332's).

use std::path::PathBuf;

use serde::Serialize;
use serde_json::{Map, Value};

use crate::options::{Effort, ThinkingDisplay};

/// Which settings file [`Controls::update_settings`](super::Controls::update_settings) writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum SettingsSource {
    /// The project's `.claude/settings.local.json` (`localSettings`).
    Local,
    /// The user's `~/.claude/settings.json` (`userSettings`).
    User,
}

impl SettingsSource {
    /// The source's wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            SettingsSource::Local => "localSettings",
            SettingsSource::User => "userSettings",
        }
    }
}

/// Settings for [`Controls::update_settings`](super::Controls::update_settings): a settings file
/// and the keys to write into it, through the CLI's own writer (as `/config` writes them).
///
/// The CLI 2.1.332 takes only string values, and per file only the keys it allows:
/// [`output_style`](Self::output_style) in [`SettingsSource::Local`],
/// [`effort_level`](Self::effort_level) in [`SettingsSource::User`]. It refuses anything else
/// with an error, as it refuses a session whose `--setting-sources` leave the file out.
///
/// ```
/// use claude_tools::control::SettingsUpdate;
/// use claude_tools::options::Effort;
///
/// let local = SettingsUpdate::local().output_style("Explanatory");
/// let user = SettingsUpdate::user().effort_level(Effort::High);
/// # let _ = (local, user);
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct SettingsUpdate {
    pub(crate) source: SettingsSource,
    pub(crate) settings: Map<String, Value>,
}

impl SettingsUpdate {
    /// Writes into the project's local settings (`localSettings`).
    pub fn local() -> Self {
        Self::new(SettingsSource::Local)
    }

    /// Writes into the user's settings (`userSettings`).
    pub fn user() -> Self {
        Self::new(SettingsSource::User)
    }

    /// Writes into `source`.
    pub fn new(source: SettingsSource) -> Self {
        Self {
            source,
            settings: Map::new(),
        }
    }

    /// The output style (`outputStyle`), by name: a local setting.
    pub fn output_style(self, name: impl Into<String>) -> Self {
        self.set("outputStyle", name)
    }

    /// The effort level (`effortLevel`), saved for the session's current model as `/effort`
    /// saves it, without changing the running session's level: a user setting.
    pub fn effort_level(self, effort: Effort) -> Self {
        self.set("effortLevel", effort.as_str())
    }

    /// Any other key, with a string value (for a key a later CLI allows).
    pub fn set(mut self, key: impl Into<String>, value: impl Into<String>) -> Self {
        self.settings
            .insert(key.into(), Value::String(value.into()));
        self
    }
}

/// The permission mode an MCP server's tool calls are held to
/// ([`Controls::set_mcp_permission_mode_override`](super::Controls::set_mcp_permission_mode_override)).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum McpPermissionMode {
    /// Every action of the server asks for permission (`default`).
    Default,
    /// The server's actions go through the auto-mode classifier (`auto`).
    Auto,
}

impl McpPermissionMode {
    /// The mode's wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            McpPermissionMode::Default => "default",
            McpPermissionMode::Auto => "auto",
        }
    }
}

/// How [`Controls::read_file`](super::Controls::read_file) reads: at most how many bytes, and
/// as text or base64. The default is the CLI's: up to 1 MB, as UTF-8 text.
///
/// ```
/// use claude_tools::control::ReadFile;
///
/// let image = ReadFile::new().max_bytes(4 << 20).base64();
/// # let _ = image;
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ReadFile {
    pub(crate) max_bytes: Option<u64>,
    pub(crate) base64: bool,
}

impl ReadFile {
    /// The CLI's defaults (1 MB, UTF-8).
    pub fn new() -> Self {
        Self::default()
    }

    /// Reads at most `max_bytes` (`max_bytes`); a longer file comes back
    /// [`truncated`](super::FileContents::truncated).
    pub fn max_bytes(mut self, max_bytes: u64) -> Self {
        self.max_bytes = Some(max_bytes);
        self
    }

    /// Returns the bytes in base64 (`"encoding":"base64"`), for binary files such as images.
    pub fn base64(mut self) -> Self {
        self.base64 = true;
        self
    }
}

/// How [`Controls::context_usage_with`](super::Controls::context_usage_with) counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ContextDetail {
    /// Each category counted with the token-count API (`full`, the default).
    Full,
    /// From the last response's usage and local estimates, with no token-count calls
    /// (`summary`): quicker and free.
    Summary,
}

impl ContextDetail {
    /// The detail's wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            ContextDetail::Full => "full",
            ContextDetail::Summary => "summary",
        }
    }
}

/// What [`Controls::reload_plugins_with`](super::Controls::reload_plugins_with) asks of the
/// reload. The default is a plain reload, as [`Controls::reload_plugins`](super::Controls::reload_plugins).
///
/// ```
/// use claude_tools::control::ReloadPlugins;
///
/// let reload = ReloadPlugins::new()
///     .hold_on_cache_impact()
///     .add_plugin("/opt/plugins/review")
///     .refuse_if_busy();
/// # let _ = reload;
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ReloadPlugins {
    pub(crate) hold_on_cache_impact: bool,
    pub(crate) add_plugins: Vec<PluginToAdd>,
    pub(crate) refuse_if_busy: bool,
}

/// A plugin directory for the reload to load (`{"type":"local","path":…}`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct PluginToAdd {
    #[serde(rename = "type")]
    kind: &'static str,
    path: PathBuf,
    #[serde(rename = "skipMcpDiscovery", skip_serializing_if = "is_false")]
    skip_mcp_discovery: bool,
}

fn is_false(value: &bool) -> bool {
    !*value
}

impl ReloadPlugins {
    /// A plain reload.
    pub fn new() -> Self {
        Self::default()
    }

    /// Applies nothing when the reload would change the tool list the conversation's prompt
    /// cache depends on (`hold_on_cache_impact`): the answer is then
    /// [`held`](super::ReloadPluginsResult::held), with what it would change in
    /// [`cache_impact`](super::ReloadPluginsResult::cache_impact). Reload again without it to
    /// apply anyway.
    pub fn hold_on_cache_impact(mut self) -> Self {
        self.hold_on_cache_impact = true;
        self
    }

    /// Loads the plugin in directory `dir` too, as
    /// [`Options::plugin`](crate::options::Options::plugin) would have at launch (`add_plugins`;
    /// the CLI wants an absolute path). Adds to the list.
    pub fn add_plugin(mut self, dir: impl Into<PathBuf>) -> Self {
        self.add_plugins.push(PluginToAdd {
            kind: "local",
            path: dir.into(),
            skip_mcp_discovery: false,
        });
        self
    }

    /// Loads the plugin in `dir` but not its MCP servers (`skipMcpDiscovery`), as
    /// [`Options::plugin_without_mcp`](crate::options::Options::plugin_without_mcp).
    pub fn add_plugin_without_mcp(mut self, dir: impl Into<PathBuf>) -> Self {
        self.add_plugins.push(PluginToAdd {
            kind: "local",
            path: dir.into(),
            skip_mcp_discovery: true,
        });
        self
    }

    /// Reloads nothing when the session is busy (a turn running or queued, background agents
    /// at work): the call fails with [`Error::Control`](crate::Error::Control) whose `code` is
    /// `reload_plugins_busy`; ask again once it is idle (`refuse_if_busy`). Only a CLI listing
    /// the capability `reload_plugins_refuse_if_busy_v1` honours it.
    pub fn refuse_if_busy(mut self) -> Self {
        self.refuse_if_busy = true;
        self
    }
}

/// A change of the model's thinking for the rest of the session
/// ([`Controls::set_thinking`](super::Controls::set_thinking)): its token budget, its display,
/// or both. What is not named is left as it is.
///
/// ```
/// use claude_tools::control::ThinkingChange;
/// use claude_tools::options::ThinkingDisplay;
///
/// // A budget of 4096 tokens, the thinking summarised.
/// let change = ThinkingChange::new()
///     .max_tokens(Some(4096))
///     .display(ThinkingDisplay::Summarized);
/// // Back to the CLI's own display handling, the budget left as it is.
/// let reset = ThinkingChange::new().default_display();
/// # let _ = (change, reset);
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ThinkingChange {
    /// `None`: not sent (left as it is); `Some(None)`: `null` (the session's default budget).
    pub(crate) max_tokens: Option<Option<u32>>,
    /// `None`: not sent (the display from the session's start is kept); `Some(None)`: `null`
    /// (the override cleared).
    pub(crate) display: Option<Option<ThinkingDisplay>>,
}

impl ThinkingChange {
    /// A change of nothing yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// The most tokens the model may think with (`max_thinking_tokens`); `None` goes back to
    /// the session's default budget.
    pub fn max_tokens(mut self, max_tokens: Option<u32>) -> Self {
        self.max_tokens = Some(max_tokens);
        self
    }

    /// What is shown of the thinking from now on (`thinking_display`). The CLI refuses
    /// [`ThinkingDisplay::Highlights`] where the API does not offer it (the budget still
    /// applies).
    pub fn display(mut self, display: ThinkingDisplay) -> Self {
        self.display = Some(Some(display));
        self
    }

    /// Clears a display set earlier, so the CLI's default display handling applies again
    /// (`"thinking_display":null`).
    pub fn default_display(mut self) -> Self {
        self.display = Some(None);
        self
    }
}

/// What [`Controls::usage`](super::Controls::usage) reads. The default scans the local
/// transcripts for the answer's `behaviors`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct UsageQuery {
    pub(crate) skip_behaviors: bool,
}

impl UsageQuery {
    /// Everything (the transcripts scanned).
    pub fn new() -> Self {
        Self::default()
    }

    /// Skips the scan of the local transcripts (`skip_behaviors`): for a caller that needs only
    /// the figures and the plan's rate limits.
    pub fn skip_behaviors(mut self) -> Self {
        self.skip_behaviors = true;
        self
    }
}
