//! Per-server MCP settings ([`McpServerSettings`]): the tool-call timeout, `alwaysLoad` and
//! the per-tool permission policy the TypeScript SDK 0.3.332's server configurations carry, for
//! external servers (in their configuration) and in-process ones (their `--mcp-config` entry,
//! and `sdkMcpServerConfigs` in `initialize`).
//!
//! Where the CLI 2.1.332 reads each, and what it ignores, is in [`McpServerSettings`]' docs.

use std::collections::BTreeMap;
use std::time::Duration;

use serde::Serialize;
use serde_json::{Map, Value};

use claude_tools_core::tool::ToolServer;

use super::{ExternalServer, Options};

/// A tool's permission policy, declared by the host for one tool of an in-process server
/// ([`McpServerSettings::tool_policy`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum ToolPermissionPolicy {
    /// Allowed without asking: in the TypeScript SDK's types, but the CLI 2.1.332 applies it to
    /// no server given at the start (it ignores it for in-process servers, and every tool policy
    /// of an external one), so it is refused when the session starts. Allow a tool with
    /// [`Options::allowed_tools`] or `can_use_tool`.
    AlwaysAllow,
    /// The host's `can_use_tool` is asked before each call, even where a rule
    /// ([`Options::allowed_tools`]) allows the tool or the mode bypasses permissions (under
    /// `dontAsk` the call is denied).
    AlwaysAsk,
    /// Every call is denied without asking: the CLI leaves the tool out of the model's tools,
    /// and a call of it anyway is answered "No such tool available".
    AlwaysDeny,
}

/// An organization administrator's ceiling for one tool of a server
/// ([`McpServerSettings::org_max_permission`]): in auto mode an `Ask` ceiling still makes the
/// CLI ask.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum OrgMaxPermission {
    /// The tool may be allowed.
    Allow,
    /// At most asked for.
    Ask,
    /// Never allowed.
    Blocked,
}

/// One entry of a server's `tools` list.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
struct ToolPolicy {
    name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    permission_policy: Option<ToolPermissionPolicy>,
    #[serde(skip_serializing_if = "Option::is_none")]
    org_max_permission: Option<OrgMaxPermission>,
}

/// Settings of one MCP server ([`Options::mcp_server_settings`]).
///
/// What the CLI 2.1.332 applies, each observed through it (the end-to-end tests in
/// `tests/tests/e2e/server_settings.rs`); what it ignores is refused when the session starts
/// ([`Error::InvalidOptions`](crate::Error::InvalidOptions)) rather than passed on:
///
/// | setting | in-process server | external server |
/// |---|---|---|
/// | [`timeout`](Self::timeout) | applied | applied |
/// | [`always_load`](Self::always_load) | applied, read from `--mcp-config` only: refused with [`Options::handshake_manifests`] | applied |
/// | [`AlwaysAsk`](ToolPermissionPolicy::AlwaysAsk), [`AlwaysDeny`](ToolPermissionPolicy::AlwaysDeny) | applied, read from `initialize` only (the server is named there) | ignored: refused |
/// | [`AlwaysAllow`](ToolPermissionPolicy::AlwaysAllow) | ignored: refused | ignored: refused |
///
/// External servers were observed over stdio and Streamable HTTP (SSE ones are configured
/// alike). The CLI takes an external server's tool policies only for servers set with
/// `mcp_set_servers` (scope `dynamic`), not for those it starts with, from `--mcp-config` and
/// `initialize` alike: give such a server its settings with an [`McpServerEntry`] to
/// [`Controls::set_mcp_servers`](crate::control::Controls::set_mcp_servers).
///
/// ```
/// use std::time::Duration;
/// use claude_tools::options::{ExternalServer, McpServerSettings, Options};
///
/// let options = Options::new()
///     .external_mcp_server("issues", ExternalServer::http("https://mcp.example.com/mcp"))
///     .mcp_server_settings(
///         "issues",
///         McpServerSettings::new()
///             .timeout(Duration::from_secs(30))
///             .always_load(true),
///     );
/// # let _ = options;
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct McpServerSettings {
    timeout: Option<Duration>,
    always_load: Option<bool>,
    tools: Vec<ToolPolicy>,
}

impl McpServerSettings {
    /// No setting.
    pub fn new() -> Self {
        Self::default()
    }

    /// The longest a call to one of the server's tools may take, wall-clock (progress does not
    /// extend it), instead of the CLI's `MCP_TOOL_TIMEOUT`; sent in milliseconds. The CLI ignores
    /// a value under one second, so such a value is refused when the session starts. For an
    /// in-process server it applies when the server is first registered.
    ///
    /// When it runs out, the CLI answers the model's `tool_use` with an error (`MCP server "…"
    /// tool "…" timed out after 1s`: whole seconds, rounded down) and cancels the call: an
    /// in-process tool sees its cancellation token fire (`notifications/cancelled`), and
    /// whatever it returns afterwards is dropped; an HTTP server's request is closed.
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = Some(timeout);
        self
    }

    /// `true`: the server's tools are always in the prompt, never deferred behind tool search
    /// (and the session's start waits for the server, up to the CLI's connect timeout), even
    /// those that do not say `alwaysLoad` themselves; `false`: they are always deferred, even
    /// those that say it.
    ///
    /// For an in-process server the CLI reads it only from the server's `--mcp-config` entry,
    /// so it is refused with [`Options::handshake_manifests`] (which names the server in
    /// `initialize` instead, where the CLI ignores it).
    pub fn always_load(mut self, on: bool) -> Self {
        self.always_load = Some(on);
        self
    }

    /// Declares a permission policy for the server's tool `tool` (its name on the server, not
    /// the `mcp__` one). In-process servers only, and only
    /// [`AlwaysAsk`](ToolPermissionPolicy::AlwaysAsk) and
    /// [`AlwaysDeny`](ToolPermissionPolicy::AlwaysDeny): the CLI 2.1.332 ignores the others,
    /// and every policy of an external server given at the start, so those are refused when the
    /// session starts.
    ///
    /// The CLI reads an in-process server's policies only from the `initialize` request
    /// (`sdkMcpServerConfigs`), not from its `--mcp-config` entry, so a server with policies is
    /// also named there (`sdkMcpServers`), as the TypeScript SDK names every in-process server.
    pub fn tool_policy(mut self, tool: impl Into<String>, policy: ToolPermissionPolicy) -> Self {
        self.tool_entry(tool.into()).permission_policy = Some(policy);
        self
    }

    /// Declares the organization's ceiling for the server's tool `tool`
    /// (`org_max_permission`). The CLI applies it only to a remote (HTTP, SSE) server set while
    /// the session runs ([`McpServerEntry`], with
    /// [`Controls::set_mcp_servers`](crate::control::Controls::set_mcp_servers)); for a server given
    /// at the start it is refused when the session starts, as the CLI would ignore it.
    pub fn org_max_permission(
        mut self,
        tool: impl Into<String>,
        ceiling: OrgMaxPermission,
    ) -> Self {
        self.tool_entry(tool.into()).org_max_permission = Some(ceiling);
        self
    }

    /// The `tools` entry of `name`, added when there is none.
    fn tool_entry(&mut self, name: String) -> &mut ToolPolicy {
        let at = match self.tools.iter().position(|tool| tool.name == name) {
            Some(at) => at,
            None => {
                self.tools.push(ToolPolicy {
                    name,
                    permission_policy: None,
                    org_max_permission: None,
                });
                self.tools.len() - 1
            }
        };
        &mut self.tools[at]
    }

    /// The settings as the keys of the server's configuration, added to `config`.
    fn write_into(&self, config: &mut Map<String, Value>) {
        self.write_timeout(config);
        self.write_always_load(config);
        self.write_tools(config);
    }

    fn write_timeout(&self, config: &mut Map<String, Value>) {
        if let Some(timeout) = self.timeout {
            let millis = u64::try_from(timeout.as_millis()).unwrap_or(u64::MAX);
            config.insert("timeout".into(), millis.into());
        }
    }

    fn write_always_load(&self, config: &mut Map<String, Value>) {
        if let Some(on) = self.always_load {
            config.insert("alwaysLoad".into(), on.into());
        }
    }

    fn write_tools(&self, config: &mut Map<String, Value>) {
        if !self.tools.is_empty() {
            let tools = self
                .tools
                .iter()
                .map(|tool| serde_json::to_value(tool).unwrap_or(Value::Null));
            config.insert("tools".into(), Value::Array(tools.collect()));
        }
    }
}

/// An MCP server set while the session runs, with its settings
/// ([`Controls::set_mcp_servers`](crate::control::Controls::set_mcp_servers)); an [`ExternalServer`]
/// converts into one without settings.
///
/// Unlike a server given at the start, a remote (HTTP, SSE) server set so has its tool
/// policies applied, [`AlwaysAllow`](ToolPermissionPolicy::AlwaysAllow) and
/// [`org_max_permission`](McpServerSettings::org_max_permission) included. A timeout under one
/// second is refused (as [`Error::InvalidOptions`](crate::Error::InvalidOptions)) before
/// anything is sent.
///
/// ```
/// use std::time::Duration;
/// use claude_tools::options::{
///     ExternalServer, McpServerEntry, McpServerSettings, OrgMaxPermission, ToolPermissionPolicy,
/// };
///
/// let docs = McpServerEntry::new(ExternalServer::http("https://mcp.example.com/mcp")).settings(
///     McpServerSettings::new()
///         .timeout(Duration::from_secs(20))
///         .tool_policy("delete_page", ToolPermissionPolicy::AlwaysAsk)
///         .org_max_permission("publish", OrgMaxPermission::Ask),
/// );
/// # let _ = docs;
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct McpServerEntry {
    server: ExternalServer,
    settings: McpServerSettings,
}

impl McpServerEntry {
    /// The server, with no setting.
    pub fn new(server: ExternalServer) -> Self {
        Self {
            server,
            settings: McpServerSettings::new(),
        }
    }

    /// With these settings.
    pub fn settings(mut self, settings: McpServerSettings) -> Self {
        self.settings = settings;
        self
    }

    /// The configuration `mcp_set_servers` carries for the server `name`: the server's with
    /// its settings' keys; refused when the CLI would ignore a setting.
    pub(crate) fn to_json(&self, name: &str) -> crate::Result<Value> {
        if self
            .settings
            .timeout
            .is_some_and(|t| t < Duration::from_secs(1))
        {
            return Err(crate::Error::InvalidOptions(format!(
                "set_mcp_servers(\"{name}\"): the CLI ignores a timeout under one second"
            )));
        }
        let mut config = self.server.to_json();
        if let Value::Object(config) = &mut config {
            self.settings.write_into(config);
        }
        Ok(config)
    }
}

impl From<ExternalServer> for McpServerEntry {
    fn from(server: ExternalServer) -> Self {
        Self::new(server)
    }
}

/// The per-server settings of [`Options`], by server name.
#[derive(Debug, Clone, Default)]
pub(crate) struct ServerSettings {
    by_name: BTreeMap<String, McpServerSettings>,
}

/// What the servers room adds to the `initialize` request: the settings of the in-process
/// servers named there (all of them with handshake manifests, else those with tool policies).
#[derive(Debug, Serialize)]
pub(crate) struct ServersInitialize {
    #[serde(
        rename = "sdkMcpServerConfigs",
        skip_serializing_if = "Option::is_none"
    )]
    sdk_mcp_server_configs: Option<Map<String, Value>>,
}

impl Options {
    /// Settings for the MCP server named `name`, in-process ([`mcp_server`](Self::mcp_server))
    /// or external ([`external_mcp_server`](Self::external_mcp_server)): a tool-call timeout,
    /// whether its tools are always loaded, and per-tool permission policies. Replaces the
    /// server's earlier settings.
    ///
    /// External servers carry them in their configuration. In-process ones carry `timeout` and
    /// `always_load` in their `--mcp-config` entry, and `timeout` and the tool policies in the
    /// `initialize` request (`sdkMcpServerConfigs`, where the TypeScript SDK sends them), which
    /// then names the server (`sdkMcpServers`); that is where the CLI reads each of them. With
    /// [`handshake_manifests`](Self::handshake_manifests) every in-process server is named in
    /// `initialize` only.
    ///
    /// Refused with [`Error::InvalidOptions`](crate::Error::InvalidOptions) when the session
    /// starts, rather than passed to a CLI that would ignore them (CLI 2.1.332; see the table
    /// in [`McpServerSettings`]): a name that is no server given here, a timeout under
    /// one second, tool policies for an external server,
    /// [`AlwaysAllow`](ToolPermissionPolicy::AlwaysAllow) for an in-process one, and
    /// `always_load` for an in-process one with handshake manifests.
    ///
    /// ```
    /// use std::time::Duration;
    /// use claude_tools::options::{McpServerSettings, Options, ToolPermissionPolicy};
    /// use claude_tools::tools::ToolServer;
    ///
    /// let args = Options::new()
    ///     .mcp_server(ToolServer::new("shop", "1.0.0"))
    ///     .mcp_server_settings(
    ///         "shop",
    ///         McpServerSettings::new()
    ///             .timeout(Duration::from_secs(5))
    ///             .tool_policy("buy", ToolPermissionPolicy::AlwaysAsk),
    ///     )
    ///     .launch_spec()
    ///     .args;
    /// // The timeout in `--mcp-config`; the policy (and the timeout) in `initialize`.
    /// let config = r#"{"mcpServers":{"shop":{"type":"sdk","name":"shop","timeout":5000}}}"#;
    /// assert!(args.windows(2).any(|w| w == ["--mcp-config", config]));
    /// ```
    pub fn mcp_server_settings(
        mut self,
        name: impl Into<String>,
        settings: McpServerSettings,
    ) -> Self {
        self.server_settings.by_name.insert(name.into(), settings);
        self
    }

    /// An external server's configuration, with its settings.
    pub(crate) fn external_server_json(&self, name: &str, server: &ExternalServer) -> Value {
        let mut config = server.to_json();
        if let (Some(settings), Value::Object(config)) =
            (self.server_settings.by_name.get(name), &mut config)
        {
            settings.write_into(config);
        }
        config
    }

    /// An in-process server's `--mcp-config` entry, with the settings the CLI reads there
    /// (`timeout`, `alwaysLoad`; not the tool policies, which it ignores there).
    pub(crate) fn sdk_server_json(&self, name: &str) -> Value {
        let mut config = Map::new();
        config.insert("type".into(), "sdk".into());
        config.insert("name".into(), name.into());
        if let Some(settings) = self.server_settings.by_name.get(name) {
            settings.write_timeout(&mut config);
            settings.write_always_load(&mut config);
        }
        Value::Object(config)
    }

    /// The `initialize` fields: the settings the CLI reads there (`timeout`, the tool
    /// policies; not `alwaysLoad`, which it ignores there) of the in-process servers
    /// `initialize` names ([`sdk_servers_named_in_initialize`](Self::sdk_servers_named_in_initialize)).
    pub(crate) fn servers_initialize(&self) -> ServersInitialize {
        let named = self.sdk_servers_named_in_initialize();
        let configs: Map<String, Value> = named
            .into_iter()
            .filter_map(|name| {
                let settings = self.server_settings.by_name.get(name)?;
                let mut config = Map::new();
                settings.write_timeout(&mut config);
                settings.write_tools(&mut config);
                (!config.is_empty()).then(|| (name.to_string(), Value::Object(config)))
            })
            .collect();
        ServersInitialize {
            sdk_mcp_server_configs: (!configs.is_empty()).then_some(configs),
        }
    }

    /// The in-process servers the `initialize` request names (`sdkMcpServers`): all of them
    /// with handshake manifests (and none goes in `--mcp-config`); otherwise those with tool
    /// policies, which the CLI reads only there (`sdkMcpServerConfigs`), not from their
    /// `--mcp-config` entry. A server in both is connected once: the CLI registers it from
    /// `--mcp-config` and takes the policies of `initialize` for it.
    pub(crate) fn sdk_servers_named_in_initialize(&self) -> Vec<&str> {
        self.servers
            .iter()
            .map(ToolServer::name)
            .filter(|name| {
                self.handshake_manifests
                    || self
                        .server_settings
                        .by_name
                        .get(*name)
                        .is_some_and(|settings| !settings.tools.is_empty())
            })
            .collect()
    }

    /// The in-process servers' settings as their configuration keys, by server name, for the
    /// session to re-send with them on every `mcp_set_servers` (which replaces what the CLI
    /// holds).
    pub(crate) fn sdk_server_settings(&self) -> BTreeMap<String, Map<String, Value>> {
        self.servers
            .iter()
            .filter_map(|server| {
                let settings = self.server_settings.by_name.get(server.name())?;
                let mut config = Map::new();
                settings.write_into(&mut config);
                Some((server.name().to_string(), config))
            })
            .collect()
    }

    /// Each server's settings must name a server given here and be ones the CLI applies to a
    /// server of its kind delivered as this one is (CLI 2.1.332; see [`McpServerSettings`]).
    pub(crate) fn validate_server_settings(&self) -> crate::Result<()> {
        for (name, settings) in &self.server_settings.by_name {
            let invalid = |why: &str| {
                Err(crate::Error::InvalidOptions(format!(
                    "Options::mcp_server_settings(\"{name}\"): {why}"
                )))
            };
            if settings.timeout.is_some_and(|t| t < Duration::from_secs(1)) {
                return invalid("the CLI ignores a timeout under one second");
            }
            let in_process = self.servers.iter().any(|server| server.name() == name);
            let external = self.external_servers.iter().find(|(n, _)| n == name);
            match (in_process, external) {
                (true, _) => {
                    if settings.always_load.is_some() && self.handshake_manifests {
                        return invalid(
                            "the CLI ignores always_load for an in-process server named in \
                             initialize, as handshake_manifests(true) names them: it reads it \
                             only from the server's --mcp-config entry",
                        );
                    }
                    if settings
                        .tools
                        .iter()
                        .any(|t| t.org_max_permission.is_some())
                    {
                        return invalid(
                            "the CLI ignores org_max_permission for an in-process server",
                        );
                    }
                    if settings
                        .tools
                        .iter()
                        .any(|t| t.permission_policy == Some(ToolPermissionPolicy::AlwaysAllow))
                    {
                        return invalid(
                            "an in-process server's tools cannot be AlwaysAllow (the CLI ignores \
                             it): allow them with Options::allowed_tools or can_use_tool",
                        );
                    }
                }
                (false, Some(_)) if !settings.tools.is_empty() => {
                    return invalid(
                        "the CLI ignores the tool policies of an external server it is started \
                         with (from --mcp-config or initialize alike): deny its tools with \
                         Options::disallowed_tools, or leave them out of allowed_tools for \
                         can_use_tool to be asked",
                    );
                }
                (false, Some(_)) => {}
                (false, None) => return invalid("no MCP server of that name is given here"),
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests;
