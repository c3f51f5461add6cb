//! MCP server policy entries of [`Settings`](super::Settings) (`allowedMcpServers`,
//! `deniedMcpServers`).

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// One entry of an MCP server allowlist or denylist: matches a server by name, by its exact
/// command line (stdio servers) or by a URL pattern (remote servers).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct McpServerRule {
    /// The server's name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server_name: Option<String>,
    /// `[command, args…]`, matched exactly.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server_command: Option<Vec<String>>,
    /// A URL pattern with `*` wildcards (`https://*.example.com/*`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server_url: Option<String>,
    /// Every other key, sent and read back as given.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl McpServerRule {
    /// Matches the server named `name`.
    pub fn name(name: impl Into<String>) -> Self {
        McpServerRule {
            server_name: Some(name.into()),
            ..Self::default()
        }
    }

    /// Matches stdio servers run with exactly this command line.
    pub fn command<I, S>(command: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        McpServerRule {
            server_command: Some(command.into_iter().map(Into::into).collect()),
            ..Self::default()
        }
    }

    /// Matches remote servers whose URL fits `pattern` (`*` wildcards).
    pub fn url(pattern: impl Into<String>) -> Self {
        McpServerRule {
            server_url: Some(pattern.into()),
            ..Self::default()
        }
    }
}
