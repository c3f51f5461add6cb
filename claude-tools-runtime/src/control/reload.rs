//! The controls that reload what the session offers (plugins, skills, output styles), and the
//! answers of those controls, of reading an MCP resource and of background tasks.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::arguments::ReloadPlugins;
use super::files::OutputStyles;
use super::init::{AgentInfo, SlashCommand};
use super::null_default;
use crate::error::Result;
use crate::message::McpServerStatus;
use crate::protocol::HostRequest;

/// The answer to `reload_plugins`: what the session offers after the plugins were read again.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ReloadPluginsResult {
    /// The slash commands and skills now offered.
    #[serde(default, deserialize_with = "null_default")]
    pub commands: Vec<SlashCommand>,
    /// The subagents now offered.
    #[serde(default, deserialize_with = "null_default")]
    pub agents: Vec<AgentInfo>,
    /// The plugins loaded.
    #[serde(default, deserialize_with = "null_default")]
    pub plugins: Vec<PluginInfo>,
    /// Every MCP server and its state (`mcpServers`), as
    /// [`Controls::mcp_status`](crate::control::Controls::mcp_status) lists them.
    #[serde(rename = "mcpServers", default, deserialize_with = "null_default")]
    pub mcp_servers: Vec<McpServerStatus>,
    /// How many plugins failed to load.
    #[serde(default)]
    pub error_count: u64,
    /// Only when the reload was asked to
    /// [hold on cache impact](crate::control::ReloadPlugins::hold_on_cache_impact):
    /// `Some(true)` when nothing was applied (the lists above are the session as it still is,
    /// and [`cache_impact`](Self::cache_impact) says what applying would change), `Some(false)`
    /// when the check found no impact and the reload was applied. `None` from a CLI that
    /// predates the option (it applied the reload unchecked).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub held: Option<bool>,
    /// What applying a held reload would change in the session's tools.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_impact: Option<CacheImpact>,
    /// Every other field.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// What a held reload ([`ReloadPluginsResult::held`]) would change in the session's tools.
/// The names are the plugins' own (`plugin:<plugin>:<server>`): validate them before showing
/// them.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct CacheImpact {
    /// The plugin MCP servers it would register.
    #[serde(default, deserialize_with = "null_default")]
    pub mcp_servers_added: Vec<String>,
    /// The plugin MCP servers it would drop.
    #[serde(default, deserialize_with = "null_default")]
    pub mcp_servers_removed: Vec<String>,
    /// Whether it would add or remove the LSP tool (`adds`, `may-add`, `removes`,
    /// `may-remove`; the `may-` forms when the preview could not see every pending plugin).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lsp_tool_change: Option<String>,
    /// Every other field.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// A plugin of [`ReloadPluginsResult`].
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct PluginInfo {
    /// Its name.
    pub name: String,
    /// Where it was loaded from (`builtin` for the CLI's own).
    #[serde(default)]
    pub path: String,
    /// Its source (`name@marketplace`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    /// Its version, as its manifest declares it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    /// Every other field.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The answer to `reload_skills`: the skills after they were read again from disk.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ReloadSkillsResult {
    /// The skills, as slash commands.
    #[serde(default, deserialize_with = "null_default")]
    pub skills: Vec<SlashCommand>,
    /// Every other field.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The answer to `mcp_read_resource`: the server's `resources/read` result.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct McpResource {
    /// The resource's contents (one item or more).
    #[serde(default, deserialize_with = "null_default")]
    pub contents: Vec<McpResourceContent>,
    /// Every other field.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// One item of an [`McpResource`]: text, or a binary blob in base64.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct McpResourceContent {
    /// The item's URI.
    pub uri: String,
    /// Its MIME type.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// Its text, for a text item.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// Its bytes in base64, for a binary item.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub blob: Option<String>,
    /// Its `_meta`, as the server sent it.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Map<String, Value>>,
    /// Every other field.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The answer to `background_tasks`: `{}` when every foreground task was asked to go to the
/// background, `{"backgrounded": false}` when the one named matched none.
#[derive(Debug, Clone, Default, Deserialize)]
pub(crate) struct BackgroundTasksReceipt {
    #[serde(default)]
    pub(crate) backgrounded: Option<bool>,
}

impl super::handle::Controls {
    /// Reads the plugins again from disk and returns what the session now offers: commands,
    /// subagents, plugins and MCP servers.
    ///
    /// ```no_run
    /// # use claude_tools::Client;
    /// # async fn run(client: &Client) -> claude_tools::Result<()> {
    /// let reloaded = client.reload_plugins().await?;
    /// for plugin in &reloaded.plugins {
    ///     println!("{} from {}", plugin.name, plugin.path);
    /// }
    /// # Ok(())
    /// # }
    /// ```
    pub async fn reload_plugins(&self) -> Result<ReloadPluginsResult> {
        self.reload_plugins_with(ReloadPlugins::new()).await
    }

    /// Reads the plugins again as [`Controls::reload_plugins`](Self::reload_plugins) does, with
    /// options: hold the reload when it would change the tools the prompt cache depends on, load
    /// more plugins, or refuse while the session is busy ([`ReloadPlugins`]).
    ///
    /// ```no_run
    /// # use claude_tools::Client;
    /// use claude_tools::control::ReloadPlugins;
    /// # async fn run(client: &Client) -> claude_tools::Result<()> {
    /// let reloaded = client
    ///     .reload_plugins_with(ReloadPlugins::new().hold_on_cache_impact())
    ///     .await?;
    /// if reloaded.held == Some(true) {
    ///     println!("held: it would change {:?}", reloaded.cache_impact);
    /// }
    /// # Ok(())
    /// # }
    /// ```
    pub async fn reload_plugins_with(&self, reload: ReloadPlugins) -> Result<ReloadPluginsResult> {
        self.shared
            .control(HostRequest::ReloadPlugins {
                hold_on_cache_impact: reload.hold_on_cache_impact,
                add_plugins: &reload.add_plugins,
                refuse_if_busy: reload.refuse_if_busy,
            })
            .await
    }

    /// Reads the skills again from disk and returns them.
    ///
    /// ```no_run
    /// # use claude_tools::Client;
    /// # async fn run(client: &Client) -> claude_tools::Result<()> {
    /// let skills = client.reload_skills().await?;
    /// println!("{} skills", skills.skills.len());
    /// # Ok(())
    /// # }
    /// ```
    pub async fn reload_skills(&self) -> Result<ReloadSkillsResult> {
        self.shared.control(HostRequest::ReloadSkills).await
    }

    /// Reads the output-style directories again (a style written while the session runs is
    /// otherwise unseen until the next session) and returns the styles' names.
    ///
    /// ```no_run
    /// # use claude_tools::Client;
    /// # async fn run(client: &Client) -> claude_tools::Result<()> {
    /// let styles = client.reload_output_styles().await?;
    /// println!("{:?}", styles.available_output_styles);
    /// # Ok(())
    /// # }
    /// ```
    pub async fn reload_output_styles(&self) -> Result<OutputStyles> {
        self.shared.control(HostRequest::ReloadOutputStyles).await
    }
}
