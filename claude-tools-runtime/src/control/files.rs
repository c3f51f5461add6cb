//! The answers of the controls about the session's files and settings: `read_file`,
//! `set_mcp_permission_mode_override` and `reload_output_styles`.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::null_default;

/// The answer to `read_file`: a file of the session's filesystem, read by the CLI under the
/// Read tool's permission rules.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct FileContents {
    /// The file's text, or its bytes in base64 when [`encoding`](Self::encoding) says so.
    pub contents: String,
    /// The path the CLI read, absolute (`absPath`).
    #[serde(default)]
    pub abs_path: String,
    /// Whether the file was longer than the bytes read.
    #[serde(default, deserialize_with = "null_default")]
    pub truncated: bool,
    /// `Some("base64")` when [`ReadFile::base64`](super::ReadFile::base64) asked for it and the
    /// CLI honoured it; `None` means UTF-8 text (an older CLI ignores the request's encoding).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub encoding: Option<String>,
    /// For a text answer: whether bytes that were not UTF-8 were replaced with U+FFFD, so
    /// [`contents`](Self::contents) is not the file's own text. `None` from an older CLI, or
    /// for base64 (which is exact).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lossy: Option<bool>,
    /// Every other field.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl FileContents {
    /// Whether [`contents`](Self::contents) is base64 rather than text.
    pub fn is_base64(&self) -> bool {
        self.encoding.as_deref() == Some("base64")
    }
}

/// The answer to `set_mcp_permission_mode_override`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct McpPermissionOverrideReceipt {
    /// Set when the server name matches no MCP server the CLI knows: the override is stored
    /// all the same and applies once a server of that exact name connects (a hint at a typo).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub warning: Option<String>,
    /// Every other field.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The answer to `reload_output_styles`: the output styles after the directories were read
/// again, built-in and custom, in the order `initialize` lists them.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct OutputStyles {
    /// The styles' names (`available_output_styles`).
    #[serde(default, deserialize_with = "null_default")]
    pub available_output_styles: Vec<String>,
    /// Every other field.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}
