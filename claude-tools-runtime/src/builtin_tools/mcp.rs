//! The CLI's tools over its MCP servers: `ListMcpResourcesTool`, `ReadMcpResourceTool`,
//! `ReadMcpResourceDirTool` and `RefreshMcpTools`. (An MCP server's own tools, `mcp__…`, have
//! the server's schemas and read as [`BuiltinToolInput::Other`](super::BuiltinToolInput::Other).)

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// `ListMcpResourcesTool`'s input.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ListMcpResourcesInput {
    /// Only this server's resources.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server: Option<String>,
    /// Fields this library does not know, kept as they came.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// One resource of `ListMcpResourcesTool`'s answer (a list of these).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct McpResourceListing {
    /// The resource's URI.
    pub uri: String,
    /// Its name.
    pub name: String,
    /// Its MIME type.
    #[serde(rename = "mimeType", default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// Its description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The server serving it.
    pub server: String,
    /// Fields this library does not know, kept as they came.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `RefreshMcpTools`'s input.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct RefreshMcpToolsInput {
    /// Only this server (default: every connected server).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server: Option<String>,
    /// Fields this library does not know, kept as they came.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// One server of `RefreshMcpTools`' answer (a list of these).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct McpToolsRefresh {
    /// The server.
    pub server: String,
    /// `refreshed`, `error` (the old tools were kept) or `not_connected`.
    pub status: String,
    /// How many tools it now has.
    #[serde(rename = "toolCount", default, skip_serializing_if = "Option::is_none")]
    pub tool_count: Option<u64>,
    /// Tools added.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub added: Option<Vec<String>>,
    /// Tools removed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub removed: Option<Vec<String>>,
    /// Why it failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Fields this library does not know, kept as they came.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `ReadMcpResourceDirTool`'s input.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ReadMcpResourceDirInput {
    /// The server.
    pub server: String,
    /// The directory resource's URI.
    pub uri: String,
    /// Fields this library does not know, kept as they came.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `ReadMcpResourceDirTool`'s answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ReadMcpResourceDirOutput {
    /// The directory's direct children (a subdirectory has MIME type `inode/directory`).
    pub resources: Vec<McpResourceEntry>,
    /// Why the server could not list it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Fields this library does not know, kept as they came.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// One child of a [`ReadMcpResourceDirOutput`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct McpResourceEntry {
    /// Its URI.
    pub uri: String,
    /// Its name.
    pub name: String,
    /// Its MIME type.
    #[serde(rename = "mimeType", default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// Fields this library does not know, kept as they came.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `ReadMcpResourceTool`'s input.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ReadMcpResourceInput {
    /// The server.
    pub server: String,
    /// The resource's URI.
    pub uri: String,
    /// Fields this library does not know, kept as they came.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `ReadMcpResourceTool`'s answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ReadMcpResourceOutput {
    /// The resource's contents.
    pub contents: Vec<McpResourceContent>,
    /// Why the server could not read it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Fields this library does not know, kept as they came.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// One content of a [`ReadMcpResourceOutput`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct McpResourceContent {
    /// Its URI.
    pub uri: String,
    /// Its MIME type.
    #[serde(rename = "mimeType", default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// Its text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// Where a binary content was saved.
    #[serde(
        rename = "blobSavedTo",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub blob_saved_to: Option<String>,
    /// Fields this library does not know, kept as they came.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}
