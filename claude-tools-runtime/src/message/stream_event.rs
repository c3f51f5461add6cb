//! `stream_event` messages: raw streaming events (with `include_partial_messages`).

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::wire::{WireForm, typed};

/// A `stream_event` message (with `include_partial_messages`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StreamEvent {
    /// The raw Anthropic streaming event (`content_block_delta`…).
    pub event: Value,
    /// The session id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_id: Option<String>,
    /// The message uuid.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uuid: Option<String>,
    /// Set when a subagent produced it.
    #[serde(default)]
    pub parent_tool_use_id: Option<String>,
    /// Every other field.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
    /// The wire form of the fields the types above cannot tell apart (see the module docs).
    #[serde(skip)]
    wire: WireForm,
}

impl StreamEvent {
    /// The event's `type` (`message_start`, `content_block_delta`…).
    pub fn event_type(&self) -> Option<&str> {
        self.event.get("type").and_then(Value::as_str)
    }
}

typed!(StreamEvent { extra });
