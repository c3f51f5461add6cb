//! `assistant` messages: the model's output.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::content::ContentBlock;
use super::wire::{WireForm, null_default, typed};

/// An `assistant` message.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AssistantMessage {
    /// The API message (usually one content block per frame).
    pub message: AssistantBody,
    /// Set when a subagent produced it.
    #[serde(default)]
    pub parent_tool_use_id: Option<String>,
    /// The session id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_id: Option<String>,
    /// The message uuid.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uuid: Option<String>,
    /// An API error class when the turn failed (`authentication_failed`, `billing_error`,
    /// `rate_limit`, `invalid_request`, `server_error`, `unknown`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Every other field (`tool_use_meta`, `request_id`…).
    #[serde(flatten)]
    pub extra: Map<String, Value>,
    /// The wire form of the fields the types above cannot tell apart (see the module docs).
    #[serde(skip)]
    wire: WireForm,
}

impl AssistantMessage {
    /// The text blocks, joined.
    pub fn text(&self) -> String {
        self.message
            .content
            .iter()
            .filter_map(ContentBlock::as_text)
            .collect()
    }

    /// The tool_use blocks: `(id, name, input)`.
    pub fn tool_uses(&self) -> impl Iterator<Item = (&str, &str, &Value)> {
        self.message.content.iter().filter_map(|block| match block {
            ContentBlock::ToolUse {
                id, name, input, ..
            } => Some((id.as_str(), name.as_str(), input)),
            _ => None,
        })
    }
}

/// The API message inside an `assistant` frame.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AssistantBody {
    /// The API message id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// The model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// `assistant`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub role: Option<String>,
    /// The content blocks.
    #[serde(default, deserialize_with = "null_default")]
    pub content: Vec<ContentBlock>,
    /// Why the model stopped (`end_turn`, `tool_use`…).
    #[serde(default)]
    pub stop_reason: Option<String>,
    /// Token usage.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage: Option<Value>,
    /// Every other field.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

typed!(AssistantMessage { extra });
