//! The messages the CLI streams to the user, typed; and the user messages the host writes.
//!
//! Parsing never fails the stream: [`Message::from_value`] is infallible. An unknown `type`, or
//! a known one whose fields do not fit, is kept whole as [`Message::Other`]; unknown fields of
//! known messages are kept in their `extra` maps, and unknown content blocks as
//! [`ContentBlock::Other`].

use serde::{Deserialize, Deserializer, Serialize};
use serde_json::{Map, Value, json};

/// One message from the CLI.
#[derive(Debug, Clone, PartialEq)]
pub enum Message {
    /// `system`: session init, status, and other notices.
    System(SystemMessage),
    /// `assistant`: the model's output (one frame per content block).
    Assistant(AssistantMessage),
    /// `user`: prompts and tool results, as the CLI records them.
    User(UserMessage),
    /// `result`: the end of a turn, with cost and usage.
    Result(ResultMessage),
    /// `stream_event`: a raw streaming event (with `include_partial_messages`).
    StreamEvent(StreamEvent),
    /// Anything else, kept as it came.
    Other(Value),
}

impl Message {
    /// Types a message; never fails (see the module docs).
    pub fn from_value(value: Value) -> Message {
        fn typed<'a, T: Deserialize<'a>>(
            value: &'a Value,
            wrap: fn(T) -> Message,
        ) -> Option<Message> {
            match T::deserialize(value) {
                Ok(message) => Some(wrap(message)),
                Err(error) => {
                    tracing::debug!(%error, "a message did not fit its type; passing it through untyped");
                    None
                }
            }
        }
        let parsed = match value.get("type").and_then(Value::as_str) {
            Some("system") => typed(&value, Message::System),
            Some("assistant") => typed(&value, Message::Assistant),
            Some("user") => typed(&value, Message::User),
            Some("result") => typed(&value, Message::Result),
            Some("stream_event") => typed(&value, Message::StreamEvent),
            _ => None,
        };
        parsed.unwrap_or(Message::Other(value))
    }

    /// The session id the message carries, if any.
    pub fn session_id(&self) -> Option<&str> {
        match self {
            Message::System(m) => m.session_id.as_deref(),
            Message::Assistant(m) => m.session_id.as_deref(),
            Message::User(m) => m.session_id.as_deref(),
            Message::Result(m) => Some(&m.session_id),
            Message::StreamEvent(m) => m.session_id.as_deref(),
            Message::Other(v) => v.get("session_id").and_then(Value::as_str),
        }
    }

    /// Whether this is a `result`.
    pub fn is_result(&self) -> bool {
        matches!(self, Message::Result(_))
    }
}

/// A `system` message.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SystemMessage {
    /// `init`, `status`, `api_retry`, `compact_boundary`, `task_started`…
    pub subtype: String,
    /// The session id.
    #[serde(default)]
    pub session_id: Option<String>,
    /// The message uuid.
    #[serde(default)]
    pub uuid: Option<String>,
    /// Every other field.
    #[serde(flatten)]
    pub data: Map<String, Value>,
}

impl SystemMessage {
    /// The `init` message's fields, when this is one.
    pub fn init(&self) -> Option<SystemInit> {
        if self.subtype != "init" {
            return None;
        }
        SystemInit::deserialize(Value::Object(self.data.clone())).ok()
    }
}

/// The fields of `system/init`: what the session starts with.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SystemInit {
    /// The model.
    #[serde(default)]
    pub model: Option<String>,
    /// The working directory.
    #[serde(default)]
    pub cwd: Option<String>,
    /// Every tool the model may use (built-in and `mcp__…`).
    #[serde(default)]
    pub tools: Vec<String>,
    /// The MCP servers and their status.
    #[serde(default)]
    pub mcp_servers: Vec<McpServerStatus>,
    /// The permission mode.
    #[serde(default, rename = "permissionMode")]
    pub permission_mode: Option<String>,
    /// The CLI version.
    #[serde(default)]
    pub claude_code_version: Option<String>,
    /// Where the API key came from.
    #[serde(default, rename = "apiKeySource")]
    pub api_key_source: Option<String>,
    /// The slash commands.
    #[serde(default)]
    pub slash_commands: Vec<String>,
    /// Every other field.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// One MCP server in `system/init`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct McpServerStatus {
    /// The server's key.
    pub name: String,
    /// `connected`, `failed`, `pending`…
    pub status: String,
    /// Every other field.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// An `assistant` message.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AssistantMessage {
    /// The API message (usually one content block per frame).
    pub message: AssistantBody,
    /// Set when a subagent produced it.
    #[serde(default)]
    pub parent_tool_use_id: Option<String>,
    /// The session id.
    #[serde(default)]
    pub session_id: Option<String>,
    /// The message uuid.
    #[serde(default)]
    pub uuid: Option<String>,
    /// An API error class, when the turn failed.
    #[serde(default)]
    pub error: Option<String>,
    /// Every other field.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl AssistantMessage {
    /// The text blocks, joined.
    pub fn text(&self) -> String {
        self.message
            .content
            .iter()
            .filter_map(ContentBlock::as_text)
            .collect::<Vec<_>>()
            .join("")
    }

    /// The tool_use blocks: `(id, name, input)`.
    pub fn tool_uses(&self) -> impl Iterator<Item = (&str, &str, &Value)> {
        self.message.content.iter().filter_map(|block| match block {
            ContentBlock::ToolUse { id, name, input } => Some((id.as_str(), name.as_str(), input)),
            _ => None,
        })
    }
}

/// The API message inside an `assistant` frame.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AssistantBody {
    /// The API message id.
    #[serde(default)]
    pub id: Option<String>,
    /// The model.
    #[serde(default)]
    pub model: Option<String>,
    /// The content blocks.
    #[serde(default)]
    pub content: Vec<ContentBlock>,
    /// Why the model stopped.
    #[serde(default)]
    pub stop_reason: Option<String>,
    /// Token usage.
    #[serde(default)]
    pub usage: Option<Value>,
    /// Every other field.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// A content block.
#[derive(Debug, Clone, PartialEq)]
pub enum ContentBlock {
    /// Text.
    Text {
        /// The text.
        text: String,
    },
    /// Extended thinking.
    Thinking {
        /// The thinking text.
        thinking: String,
        /// Its signature.
        signature: Option<String>,
    },
    /// A tool call.
    ToolUse {
        /// The tool_use id.
        id: String,
        /// The tool (e.g. `mcp__calc__add`).
        name: String,
        /// Its input.
        input: Value,
    },
    /// A tool's result.
    ToolResult {
        /// The tool_use it answers.
        tool_use_id: String,
        /// A string or a list of content blocks.
        content: Option<Value>,
        /// Whether the tool failed.
        is_error: bool,
    },
    /// Any other block, kept as it came.
    Other(Value),
}

impl ContentBlock {
    /// The text of a text block.
    pub fn as_text(&self) -> Option<&str> {
        match self {
            ContentBlock::Text { text } => Some(text),
            _ => None,
        }
    }

    fn from_value(value: Value) -> ContentBlock {
        let text = |key: &str| value.get(key).and_then(Value::as_str).map(String::from);
        let block = match value.get("type").and_then(Value::as_str) {
            Some("text") => text("text").map(|text| ContentBlock::Text { text }),
            Some("thinking") => text("thinking").map(|thinking| ContentBlock::Thinking {
                thinking,
                signature: text("signature"),
            }),
            Some("tool_use") => match (text("id"), text("name")) {
                (Some(id), Some(name)) => {
                    let input = value.get("input").cloned().unwrap_or_else(|| json!({}));
                    Some(ContentBlock::ToolUse { id, name, input })
                }
                _ => None,
            },
            Some("tool_result") => {
                text("tool_use_id").map(|tool_use_id| ContentBlock::ToolResult {
                    tool_use_id,
                    content: value.get("content").cloned(),
                    is_error: value
                        .get("is_error")
                        .and_then(Value::as_bool)
                        .unwrap_or(false),
                })
            }
            _ => None,
        };
        block.unwrap_or(ContentBlock::Other(value))
    }

    fn to_value(&self) -> Value {
        match self {
            ContentBlock::Text { text } => json!({"type": "text", "text": text}),
            ContentBlock::Thinking {
                thinking,
                signature,
            } => {
                json!({"type": "thinking", "thinking": thinking, "signature": signature})
            }
            ContentBlock::ToolUse { id, name, input } => {
                json!({"type": "tool_use", "id": id, "name": name, "input": input})
            }
            ContentBlock::ToolResult {
                tool_use_id,
                content,
                is_error,
            } => {
                json!({"type": "tool_result", "tool_use_id": tool_use_id, "content": content, "is_error": is_error})
            }
            ContentBlock::Other(value) => value.clone(),
        }
    }
}

impl<'de> Deserialize<'de> for ContentBlock {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Value::deserialize(deserializer).map(ContentBlock::from_value)
    }
}

impl Serialize for ContentBlock {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.to_value().serialize(serializer)
    }
}

/// A `user` message.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct UserMessage {
    /// The API message.
    pub message: UserBody,
    /// Set when a subagent produced it.
    #[serde(default)]
    pub parent_tool_use_id: Option<String>,
    /// The session id.
    #[serde(default)]
    pub session_id: Option<String>,
    /// The message uuid.
    #[serde(default)]
    pub uuid: Option<String>,
    /// For tool results: the tool's result as the CLI recorded it.
    #[serde(default)]
    pub tool_use_result: Option<Value>,
    /// Every other field.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The API message inside a `user` frame.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct UserBody {
    /// A string, or content blocks.
    pub content: UserContent,
    /// Every other field.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The content of a user message.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum UserContent {
    /// Plain text.
    Text(String),
    /// Content blocks (text, images, tool results).
    Blocks(Vec<ContentBlock>),
}

/// A `result` message: the end of a turn.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ResultMessage {
    /// `success`, `error_during_execution`, `error_max_turns`, `error_max_budget_usd`…
    pub subtype: String,
    /// Whether the turn failed.
    #[serde(default)]
    pub is_error: bool,
    /// Wall time of the turn.
    #[serde(default)]
    pub duration_ms: u64,
    /// Time spent in the API.
    #[serde(default)]
    pub duration_api_ms: u64,
    /// Agent turns taken.
    #[serde(default)]
    pub num_turns: u32,
    /// The session id.
    #[serde(default)]
    pub session_id: String,
    /// The final text.
    #[serde(default)]
    pub result: Option<String>,
    /// Why the model stopped.
    #[serde(default)]
    pub stop_reason: Option<String>,
    /// Cost in USD (as the CLI computes it).
    #[serde(default)]
    pub total_cost_usd: Option<f64>,
    /// Token usage.
    #[serde(default)]
    pub usage: Option<Value>,
    /// Usage per model.
    #[serde(default, rename = "modelUsage")]
    pub model_usage: Option<Value>,
    /// Tools the permission system refused.
    #[serde(default)]
    pub permission_denials: Vec<Value>,
    /// The structured output (with an output schema).
    #[serde(default)]
    pub structured_output: Option<Value>,
    /// Errors, for error subtypes.
    #[serde(default)]
    pub errors: Vec<Value>,
    /// The HTTP status of a fatal API error.
    #[serde(default)]
    pub api_error_status: Option<u16>,
    /// Why the run ended (`api_error`…).
    #[serde(default)]
    pub terminal_reason: Option<String>,
    /// The message uuid.
    #[serde(default)]
    pub uuid: Option<String>,
    /// Every other field.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl ResultMessage {
    /// `subtype == "success"` and not `is_error`.
    pub fn is_success(&self) -> bool {
        self.subtype == "success" && !self.is_error
    }
}

/// A `stream_event` message (with `include_partial_messages`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StreamEvent {
    /// The raw Anthropic streaming event.
    pub event: Value,
    /// The session id.
    #[serde(default)]
    pub session_id: Option<String>,
    /// The message uuid.
    #[serde(default)]
    pub uuid: Option<String>,
    /// Set when a subagent produced it.
    #[serde(default)]
    pub parent_tool_use_id: Option<String>,
    /// Every other field.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// A user message the host sends: text, or content blocks such as images.
///
/// ```
/// use claude_tools_runtime::message::UserInput;
///
/// let input = UserInput::text("What is in this picture?").with_image("image/png", "iVBORw0KGgo=");
/// assert_eq!(input.to_message("")["message"]["content"][1]["source"]["media_type"], "image/png");
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct UserInput {
    content: Vec<Value>,
    plain: Option<String>,
    uuid: Option<String>,
}

impl UserInput {
    /// A text prompt.
    pub fn text(text: impl Into<String>) -> Self {
        let text = text.into();
        Self {
            content: vec![json!({"type": "text", "text": text})],
            plain: Some(text),
            uuid: None,
        }
    }

    /// A message of content blocks (Anthropic API shapes).
    pub fn blocks(blocks: Vec<Value>) -> Self {
        Self {
            content: blocks,
            plain: None,
            uuid: None,
        }
    }

    /// Adds a base64 image block.
    pub fn with_image(mut self, media_type: &str, base64_data: &str) -> Self {
        self.plain = None;
        self.content.push(json!({"type": "image", "source": {"type": "base64", "media_type": media_type, "data": base64_data}}));
        self
    }

    /// Adds a text block.
    pub fn with_text(mut self, text: impl Into<String>) -> Self {
        self.plain = None;
        self.content
            .push(json!({"type": "text", "text": text.into()}));
        self
    }

    /// Sets the message uuid (the CLI echoes it as `user_message_uuid`).
    pub fn with_uuid(mut self, uuid: impl Into<String>) -> Self {
        self.uuid = Some(uuid.into());
        self
    }

    /// The stream-json frame: a lone text is sent as a plain string, as the official Python
    /// SDK does.
    pub fn to_message(&self, session_id: &str) -> Value {
        let content = match &self.plain {
            Some(text) => Value::String(text.clone()),
            None => Value::Array(self.content.clone()),
        };
        let mut frame = json!({
            "type": "user",
            "session_id": session_id,
            "message": {"role": "user", "content": content},
            "parent_tool_use_id": null,
        });
        if let Some(uuid) = &self.uuid {
            frame["uuid"] = json!(uuid);
        }
        frame
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn types_the_observed_frames() {
        let init = Message::from_value(
            json!({"type": "system", "subtype": "init", "session_id": "s",
            "tools": ["mcp__demo__greet"], "mcp_servers": [{"name": "demo", "status": "connected", "source": "sdk"}],
            "model": "claude-opus-5-5", "permissionMode": "default", "claude_code_version": "2.1.330", "cwd": "/w"}),
        );
        let Message::System(system) = &init else {
            panic!("{init:?}")
        };
        let data = system.init().unwrap();
        assert_eq!(data.tools, ["mcp__demo__greet"]);
        assert_eq!(data.mcp_servers[0].status, "connected");
        assert_eq!(data.mcp_servers[0].extra["source"], "sdk");
        assert_eq!(init.session_id(), Some("s"));

        let tool_use = Message::from_value(
            json!({"type": "assistant", "message": {"id": "msg_1", "model": "m",
            "role": "assistant", "content": [{"type": "tool_use", "id": "toolu_1", "name": "mcp__demo__greet",
            "input": {"name": "Alice"}}]}, "parent_tool_use_id": null, "session_id": "s",
            "tool_use_meta": [{"id": "toolu_1"}]}),
        );
        let Message::Assistant(assistant) = &tool_use else {
            panic!("{tool_use:?}")
        };
        assert_eq!(
            assistant.tool_uses().collect::<Vec<_>>(),
            [("toolu_1", "mcp__demo__greet", &json!({"name": "Alice"}))]
        );
        assert_eq!(assistant.extra["tool_use_meta"][0]["id"], "toolu_1");

        let result = Message::from_value(
            json!({"type": "user", "message": {"role": "user", "content": [
            {"type": "tool_result", "content": "explode failed: disk on fire", "is_error": true, "tool_use_id": "toolu_2"}]},
            "tool_use_result": "Error: explode failed: disk on fire", "session_id": "s"}),
        );
        let Message::User(user) = &result else {
            panic!("{result:?}")
        };
        let UserContent::Blocks(blocks) = &user.message.content else {
            panic!()
        };
        assert_eq!(
            blocks[0],
            ContentBlock::ToolResult {
                tool_use_id: "toolu_2".into(),
                content: Some(json!("explode failed: disk on fire")),
                is_error: true
            }
        );

        let done = Message::from_value(
            json!({"type": "result", "subtype": "error_during_execution", "is_error": true,
            "duration_ms": 10, "num_turns": 1, "session_id": "s", "stop_reason": "tool_use", "modelUsage": {"m": {}},
            "terminal_reason": "aborted"}),
        );
        let Message::Result(done) = done else {
            panic!()
        };
        assert!(!done.is_success());
        assert_eq!(done.model_usage, Some(json!({"m": {}})));
        assert_eq!(done.terminal_reason.as_deref(), Some("aborted"));
    }

    #[test]
    fn unknown_and_broken_messages_pass_through_whole() {
        let unknown = json!({"type": "rate_limit_event", "rate_limit_info": {}});
        assert_eq!(
            Message::from_value(unknown.clone()),
            Message::Other(unknown)
        );
        let broken = json!({"type": "result", "subtype": 7});
        assert_eq!(Message::from_value(broken.clone()), Message::Other(broken));
        let block = Message::from_value(
            json!({"type": "assistant", "message": {"content": [{"type": "server_tool_use", "id": "x"}]}}),
        );
        let Message::Assistant(assistant) = block else {
            panic!()
        };
        assert_eq!(
            assistant.message.content[0],
            ContentBlock::Other(json!({"type": "server_tool_use", "id": "x"}))
        );
    }

    #[test]
    fn user_input_frames_match_the_official_sdks() {
        assert_eq!(
            UserInput::text("hi").to_message("default"),
            json!({"type": "user", "session_id": "default", "message": {"role": "user", "content": "hi"}, "parent_tool_use_id": null})
        );
        assert_eq!(
            UserInput::text("look")
                .with_image("image/png", "AAAA")
                .to_message("")["message"]["content"],
            json!([{"type": "text", "text": "look"}, {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "AAAA"}}])
        );
    }
}
