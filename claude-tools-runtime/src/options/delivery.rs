//! Where the launch's secrets travel: the external MCP servers (their `env` and `headers`: API
//! keys, bearer tokens) and inline settings JSON go to the CLI in the `initialize` request, over
//! its stdin, or on its command line, which any local user can read (`ps`,
//! `/proc/<pid>/cmdline`).

use serde_json::{Map, Value};

use super::Options;

/// How the external MCP servers and inline [settings](Options::settings) reach the CLI; see
/// [`Options::config_delivery`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum ConfigDelivery {
    /// In the `initialize` request, over the CLI's stdin (the CLI is launched with
    /// `--await-initialize` and reads them before it starts anything). The default.
    #[default]
    Initialize,
    /// On the command line (`--mcp-config`, `--settings`), where every local user can read them:
    /// only for a CLI that predates reading them from `initialize`.
    Argv,
}

impl Options {
    /// How the external MCP servers ([`Options::external_mcp_server`], with their `env` and
    /// `headers`) and inline settings JSON ([`Options::settings`] given an object, not a path)
    /// reach the CLI (default [`ConfigDelivery::Initialize`]: over stdin, never on the command
    /// line, as the TypeScript SDK's `mcpServersDelivery: 'initialize'` and
    /// `settingsDelivery: 'initialize'`).
    ///
    /// The CLI confirms in its `initialize` answer that it took them (`mcp_servers_applied`,
    /// `settings_applied`); when it does not (a CLI that predates them, or a wrapper that drops
    /// flags), connecting fails with
    /// [`Error::InitializeNotApplied`](crate::Error::InitializeNotApplied) before any prompt is
    /// sent, rather than running the session without its servers or settings.
    ///
    /// ```
    /// use claude_tools::options::{ExternalServer, Options};
    ///
    /// let options = Options::new().external_mcp_server(
    ///     "issues",
    ///     ExternalServer::http("https://mcp.example.com/mcp").header("Authorization", "Bearer s3cret"),
    /// );
    /// // Nothing of the server, let alone its token, is on the command line.
    /// assert!(!options.launch_spec().args.iter().any(|arg| arg.contains("s3cret")));
    /// ```
    pub fn config_delivery(mut self, delivery: ConfigDelivery) -> Self {
        self.config_delivery = delivery;
        self
    }

    /// Whether the external servers go in `initialize` (and so not on the command line).
    pub(crate) fn mcp_servers_in_initialize(&self) -> bool {
        self.config_delivery == ConfigDelivery::Initialize && !self.external_servers.is_empty()
    }

    /// The external servers for `initialize`'s `mcpServers`, when they go there.
    pub(crate) fn initialize_mcp_servers(&self) -> Option<Map<String, Value>> {
        if !self.mcp_servers_in_initialize() {
            return None;
        }
        Some(
            self.external_servers
                .iter()
                .map(|(name, server)| (name.clone(), self.external_server_json(name, server)))
                .collect(),
        )
    }

    /// The inline settings object for `initialize`'s `settings`, when it goes there. A path to
    /// a settings file (or text that is not a JSON object) stays on the command line: a path
    /// holds no secret, and the CLI reports a file it cannot read in its own words.
    pub(crate) fn initialize_settings(&self) -> Option<Map<String, Value>> {
        if self.config_delivery != ConfigDelivery::Initialize {
            return None;
        }
        // With the sandbox merged in (`sandbox`), which lives in the settings.
        match serde_json::from_str(self.effective_settings()?.trim()) {
            Ok(Value::Object(settings)) => Some(settings),
            _ => None,
        }
    }
}
