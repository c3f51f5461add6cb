//! The MCP results a server answers, typed: `initialize` and `tools/list`.

use serde::Serialize;
use serde_json::Value;

/// The result of `initialize`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct InitializeResult {
    /// The protocol version the server speaks on this connection.
    pub protocol_version: String,
    /// What the server offers.
    pub capabilities: ServerCapabilities,
    /// Who the server is.
    pub server_info: Implementation,
    /// How to use the server, for the model.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub instructions: Option<String>,
}

/// The `capabilities` of an `initialize` result.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub struct ServerCapabilities {
    /// The server has tools.
    pub tools: ToolsCapability,
    /// The server has prompts (absent when it has none).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub prompts: Option<ListChangedCapability>,
    /// The server has resources (absent when it has none).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resources: Option<ResourcesCapability>,
    /// The server completes prompt arguments and template variables (absent when it has
    /// neither prompts nor resources).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub completions: Option<CompletionsCapability>,
    /// The server sends log messages (`notifications/message`) and takes `logging/setLevel`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub logging: Option<LoggingCapability>,
}

/// `capabilities.logging`: `{}`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub struct LoggingCapability {}

/// `capabilities.prompts`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ListChangedCapability {
    /// Whether the server sends `notifications/prompts/list_changed`.
    pub list_changed: bool,
}

/// `capabilities.resources`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ResourcesCapability {
    /// Whether a client may subscribe to a resource's changes.
    pub subscribe: bool,
    /// Whether the server sends `notifications/resources/list_changed`.
    pub list_changed: bool,
}

/// `capabilities.completions`: `{}`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub struct CompletionsCapability {}

/// `capabilities.tools`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ToolsCapability {
    /// Whether the server sends `notifications/tools/list_changed`.
    pub list_changed: bool,
}

/// A server's (or a client's) name and version.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub struct Implementation {
    /// The name.
    pub name: String,
    /// The version.
    pub version: String,
}

/// The result of `tools/list`: every tool, in one page.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub struct ToolsList {
    /// The tools' descriptions, as the tool model writes them.
    pub tools: Vec<Value>,
}

impl InitializeResult {
    /// The result a server called `name` at `version` answers for `protocol_version`.
    pub fn new(protocol_version: &str, name: &str, version: &str) -> Self {
        Self {
            protocol_version: protocol_version.to_string(),
            capabilities: ServerCapabilities {
                tools: ToolsCapability {
                    list_changed: false,
                },
                prompts: None,
                resources: None,
                completions: None,
                logging: None,
            },
            server_info: Implementation {
                name: name.to_string(),
                version: version.to_string(),
            },
            instructions: None,
        }
    }
}

impl ToolsList {
    /// The list of `tools`.
    pub fn new(tools: Vec<Value>) -> Self {
        Self { tools }
    }
}
