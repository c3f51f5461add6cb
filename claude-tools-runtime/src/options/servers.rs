//! Per-server MCP settings ([`McpServerSettings`]): the tool-call timeout, `alwaysLoad` and
//! the per-tool permission policy the TypeScript SDK 0.3.332's server configurations carry, for
//! external servers (in their configuration) and in-process ones (`sdkMcpServerConfigs`).

use std::collections::BTreeMap;
use std::time::Duration;

use serde::Serialize;
use serde_json::{Map, Value};

use super::{ExternalServer, Options};

/// A tool's permission policy, declared by the host for one tool of a server
/// ([`McpServerSettings::tool_policy`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum ToolPermissionPolicy {
    /// Allowed without asking (HTTP and SSE servers only; for an in-process server, allow with
    /// [`Options::allowed_tools`] or `can_use_tool`).
    AlwaysAllow,
    /// The host is asked before each call, even where a rule allows the tool or the mode
    /// bypasses permissions (under `dontAsk` the call is denied).
    AlwaysAsk,
    /// Every call is denied.
    AlwaysDeny,
}

/// One entry of a server's `tools` list.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
struct ToolPolicy {
    name: String,
    permission_policy: ToolPermissionPolicy,
}

/// Settings of one MCP server ([`Options::mcp_server_settings`]).
///
/// ```
/// use std::time::Duration;
/// use claude_tools::options::{ExternalServer, McpServerSettings, Options, ToolPermissionPolicy};
///
/// let options = Options::new()
///     .external_mcp_server("issues", ExternalServer::http("https://mcp.example.com/mcp"))
///     .mcp_server_settings(
///         "issues",
///         McpServerSettings::new()
///             .timeout(Duration::from_secs(30))
///             .always_load(true)
///             .tool_policy("delete_issue", ToolPermissionPolicy::AlwaysAsk),
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
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = Some(timeout);
        self
    }

    /// `true`: the server's tools are always in the prompt, never deferred behind tool search
    /// (and the session's start waits for the server, up to the CLI's connect timeout);
    /// `false`: they are always deferred. External servers only.
    pub fn always_load(mut self, on: bool) -> Self {
        self.always_load = Some(on);
        self
    }

    /// Declares a permission policy for the server's tool `tool` (its name on the server, not
    /// the `mcp__` one). Not for stdio servers; in-process servers take only
    /// [`AlwaysAsk`](ToolPermissionPolicy::AlwaysAsk) and
    /// [`AlwaysDeny`](ToolPermissionPolicy::AlwaysDeny).
    pub fn tool_policy(mut self, tool: impl Into<String>, policy: ToolPermissionPolicy) -> Self {
        self.tools.push(ToolPolicy {
            name: tool.into(),
            permission_policy: policy,
        });
        self
    }

    /// The settings as the keys of the server's configuration, added to `config`.
    fn write_into(&self, config: &mut Map<String, Value>) {
        if let Some(timeout) = self.timeout {
            let millis = u64::try_from(timeout.as_millis()).unwrap_or(u64::MAX);
            config.insert("timeout".into(), millis.into());
        }
        if let Some(on) = self.always_load {
            config.insert("alwaysLoad".into(), on.into());
        }
        if !self.tools.is_empty() {
            let tools = self
                .tools
                .iter()
                .map(|tool| serde_json::to_value(tool).unwrap_or(Value::Null));
            config.insert("tools".into(), Value::Array(tools.collect()));
        }
    }
}

/// The per-server settings of [`Options`], by server name.
#[derive(Debug, Clone, Default)]
pub(crate) struct ServerSettings {
    by_name: BTreeMap<String, McpServerSettings>,
}

/// What the servers room adds to the `initialize` request: the in-process servers' settings
/// when those servers are named there (with handshake manifests).
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
    /// External servers carry them in their configuration. In-process ones carry them in their
    /// `--mcp-config` entry, or, with [`handshake_manifests`](Self::handshake_manifests), where
    /// the TypeScript SDK sends them: `sdkMcpServerConfigs` in the `initialize` request.
    ///
    /// Refused with [`Error::InvalidOptions`](crate::Error::InvalidOptions) when the session
    /// starts: a name that is no server given here, a timeout under one second, tool policies
    /// for a stdio server, `always_load` or [`AlwaysAllow`](ToolPermissionPolicy::AlwaysAllow)
    /// for an in-process one (the CLI ignores them there).
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
    /// let config = r#"{"mcpServers":{"shop":{"type":"sdk","name":"shop","timeout":5000,"tools":[{"name":"buy","permission_policy":"always_ask"}]}}}"#;
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

    /// An in-process server's `--mcp-config` entry, with its settings.
    pub(crate) fn sdk_server_json(&self, name: &str) -> Value {
        let mut config = Map::new();
        config.insert("type".into(), "sdk".into());
        config.insert("name".into(), name.into());
        if let Some(settings) = self.server_settings.by_name.get(name) {
            settings.write_into(&mut config);
        }
        Value::Object(config)
    }

    /// The `initialize` fields: the in-process servers' settings when `initialize` names those
    /// servers (`sdkMcpServers`, with handshake manifests); otherwise they are in
    /// `--mcp-config`.
    pub(crate) fn servers_initialize(&self) -> ServersInitialize {
        let configs: Map<String, Value> = if self.handshake_manifests {
            self.sdk_server_settings()
                .into_iter()
                .map(|(name, config)| (name, Value::Object(config)))
                .collect()
        } else {
            Map::new()
        };
        ServersInitialize {
            sdk_mcp_server_configs: (!configs.is_empty()).then_some(configs),
        }
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

    /// Each server's settings must name a server given here and fit its kind.
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
                    if settings.always_load.is_some() {
                        return invalid("always_load is for external servers only");
                    }
                    if settings
                        .tools
                        .iter()
                        .any(|t| t.permission_policy == ToolPermissionPolicy::AlwaysAllow)
                    {
                        return invalid(
                            "an in-process server's tools cannot be AlwaysAllow (the CLI ignores \
                             it): allow them with Options::allowed_tools or can_use_tool",
                        );
                    }
                }
                (false, Some((_, ExternalServer::Stdio { .. }))) if !settings.tools.is_empty() => {
                    return invalid("a stdio server takes no tool policies");
                }
                (false, Some(_)) => {}
                (false, None) => return invalid("no MCP server of that name is given here"),
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use serde_json::json;

    use crate::options::*;
    use claude_tools_core::tool::ToolServer;

    fn settings() -> McpServerSettings {
        McpServerSettings::new()
            .timeout(Duration::from_millis(2500))
            .always_load(true)
            .tool_policy("delete", ToolPermissionPolicy::AlwaysAsk)
            .tool_policy("purge", ToolPermissionPolicy::AlwaysDeny)
            .tool_policy("read", ToolPermissionPolicy::AlwaysAllow)
    }

    #[test]
    fn external_servers_carry_their_settings_in_the_sdk_types_shape() {
        let options = Options::new()
            .external_mcp_server(
                "remote",
                ExternalServer::http("https://mcp.example.com/mcp").header("A", "b"),
            )
            .external_mcp_server("local", ExternalServer::stdio("local-mcp", ["-q"]))
            .mcp_server_settings("remote", settings())
            .mcp_server_settings(
                "local",
                McpServerSettings::new()
                    .timeout(Duration::from_secs(60))
                    .always_load(false),
            );
        options.validate().unwrap();
        assert_eq!(
            options
                .initialize_mcp_servers()
                .map(serde_json::Value::Object),
            Some(json!({
                "remote": {"type": "http", "url": "https://mcp.example.com/mcp",
                    "headers": {"A": "b"}, "timeout": 2500, "alwaysLoad": true,
                    "tools": [
                        {"name": "delete", "permission_policy": "always_ask"},
                        {"name": "purge", "permission_policy": "always_deny"},
                        {"name": "read", "permission_policy": "always_allow"},
                    ]},
                "local": {"type": "stdio", "command": "local-mcp", "args": ["-q"],
                    "timeout": 60000, "alwaysLoad": false},
            }))
        );
        // On the command line the same.
        let args = options
            .config_delivery(ConfigDelivery::Argv)
            .launch_spec()
            .args;
        let at = args.iter().position(|arg| arg == "--mcp-config").unwrap();
        assert_eq!(
            args[at + 1],
            r#"{"mcpServers":{"remote":{"type":"http","url":"https://mcp.example.com/mcp","headers":{"A":"b"},"timeout":2500,"alwaysLoad":true,"tools":[{"name":"delete","permission_policy":"always_ask"},{"name":"purge","permission_policy":"always_deny"},{"name":"read","permission_policy":"always_allow"}]},"local":{"type":"stdio","command":"local-mcp","args":["-q"],"timeout":60000,"alwaysLoad":false}}}"#
        );
    }

    #[test]
    fn in_process_servers_carry_theirs_in_mcp_config_or_in_initialize_with_manifests() {
        let in_process = McpServerSettings::new()
            .timeout(Duration::from_secs(5))
            .tool_policy("buy", ToolPermissionPolicy::AlwaysAsk);
        let options = Options::new()
            .mcp_server(ToolServer::new("shop", "1.0.0"))
            .mcp_server(ToolServer::new("plain", "1.0.0"))
            .mcp_server_settings("shop", in_process);
        options.validate().unwrap();
        let args = options.launch_spec().args;
        let at = args.iter().position(|arg| arg == "--mcp-config").unwrap();
        assert_eq!(
            args[at + 1],
            r#"{"mcpServers":{"shop":{"type":"sdk","name":"shop","timeout":5000,"tools":[{"name":"buy","permission_policy":"always_ask"}]},"plain":{"type":"sdk","name":"plain"}}}"#
        );
        assert_eq!(
            serde_json::to_string(&options.servers_initialize()).unwrap(),
            "{}"
        );
        // With manifests the servers are named in initialize, and their settings with them.
        let manifests = options.handshake_manifests(true);
        assert_eq!(
            serde_json::to_string(&manifests.servers_initialize()).unwrap(),
            r#"{"sdkMcpServerConfigs":{"shop":{"timeout":5000,"tools":[{"name":"buy","permission_policy":"always_ask"}]}}}"#
        );
    }

    #[test]
    fn settings_that_fit_no_server_are_refused_by_name() {
        let cases = [
            (
                Options::new().mcp_server_settings("ghost", McpServerSettings::new()),
                "(\"ghost\"): no MCP server of that name",
            ),
            (
                Options::new()
                    .external_mcp_server("e", ExternalServer::http("http://127.0.0.1:1"))
                    .mcp_server_settings(
                        "e",
                        McpServerSettings::new().timeout(Duration::from_millis(500)),
                    ),
                "timeout under one second",
            ),
            (
                Options::new()
                    .external_mcp_server("s", ExternalServer::stdio("x", ["y"]))
                    .mcp_server_settings(
                        "s",
                        McpServerSettings::new().tool_policy("t", ToolPermissionPolicy::AlwaysAsk),
                    ),
                "a stdio server takes no tool policies",
            ),
            (
                Options::new()
                    .mcp_server(ToolServer::new("p", "1.0.0"))
                    .mcp_server_settings("p", McpServerSettings::new().always_load(true)),
                "always_load is for external servers only",
            ),
            (
                Options::new()
                    .mcp_server(ToolServer::new("p", "1.0.0"))
                    .mcp_server_settings(
                        "p",
                        McpServerSettings::new()
                            .tool_policy("t", ToolPermissionPolicy::AlwaysAllow),
                    ),
                "cannot be AlwaysAllow",
            ),
        ];
        for (options, expected) in cases {
            let error = options.validate().unwrap_err().to_string();
            assert!(error.contains(expected), "{expected}: {error}");
        }
    }
}
