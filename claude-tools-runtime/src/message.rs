//! The messages the CLI streams to the user, typed; and the user messages the host writes.
//!
//! Parsing never fails the stream: [`Message::from_value`] is infallible. An unknown `type`, or
//! a known one whose fields do not fit, is kept whole as [`Message::Other`] (and logged at debug
//! level); unknown fields of known messages are kept in their `extra` (or `data`) maps, and
//! unknown content blocks as [`ContentBlock::Other`].
//!
//! [`Message::to_value`] (and `Message`'s `Serialize`) gives back exactly the JSON the CLI wrote:
//! a `null`, an empty array or an absent field stays what it was, even where the typed field
//! cannot tell them apart (`api_error_status: None` is both `null` and absent). A message keeps,
//! next to its typed fields, the wire form of each top-level field whose typed value would
//! serialize differently; a field you change is written from its new typed value. (Serializing
//! one of the typed structs on its own writes its typed fields only: go through [`Message`] for
//! the exact line.)

use serde::{Deserialize, Deserializer, Serialize};
use serde_json::{Map, Value, json};

/// One message from the CLI.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
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
    /// Anything else (`rate_limit_event`, `tool_progress`, a future type…), kept as it came.
    Other(Value),
}

impl Message {
    /// Types a message; never fails (see the module docs).
    pub fn from_value(value: Value) -> Message {
        fn typed<T: Typed>(value: &Value, wrap: fn(T) -> Message) -> Option<Message> {
            match T::deserialize(value) {
                Ok(mut message) => {
                    *message.wire_mut() = WireForm::between(value, &mut message);
                    Some(wrap(message))
                }
                Err(error) => {
                    tracing::debug!(
                        %error,
                        r#type = value.get("type").and_then(|t| t.as_str()).unwrap_or_default(),
                        "a message did not fit its type; passing it through untyped"
                    );
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

    /// The message as JSON, `type` included: for a message read from the CLI, exactly the
    /// line it wrote (see the module docs).
    pub fn to_value(&self) -> Value {
        let mut value = match self {
            Message::System(m) => m.wire().apply(m),
            Message::Assistant(m) => m.wire().apply(m),
            Message::User(m) => m.wire().apply(m),
            Message::Result(m) => m.wire().apply(m),
            Message::StreamEvent(m) => m.wire().apply(m),
            Message::Other(value) => return value.clone(),
        };
        if let Value::Object(map) = &mut value {
            map.insert("type".into(), Value::from(self.message_type()));
        }
        value
    }

    /// The wire `type`: `system`, `assistant`, `user`, `result`, `stream_event`, or the unknown
    /// message's own (empty when it has none).
    pub fn message_type(&self) -> &str {
        match self {
            Message::System(_) => "system",
            Message::Assistant(_) => "assistant",
            Message::User(_) => "user",
            Message::Result(_) => "result",
            Message::StreamEvent(_) => "stream_event",
            Message::Other(value) => value
                .get("type")
                .and_then(Value::as_str)
                .unwrap_or_default(),
        }
    }

    /// The session id the message carries, if any (an empty one counts as none).
    pub fn session_id(&self) -> Option<&str> {
        let id = match self {
            Message::System(m) => m.session_id.as_deref(),
            Message::Assistant(m) => m.session_id.as_deref(),
            Message::User(m) => m.session_id.as_deref(),
            Message::Result(m) => Some(m.session_id.as_str()),
            Message::StreamEvent(m) => m.session_id.as_deref(),
            Message::Other(v) => v.get("session_id").and_then(Value::as_str),
        };
        id.filter(|id| !id.is_empty())
    }

    /// The message uuid, if any.
    pub fn uuid(&self) -> Option<&str> {
        match self {
            Message::System(m) => m.uuid.as_deref(),
            Message::Assistant(m) => m.uuid.as_deref(),
            Message::User(m) => m.uuid.as_deref(),
            Message::Result(m) => m.uuid.as_deref(),
            Message::StreamEvent(m) => m.uuid.as_deref(),
            Message::Other(v) => v.get("uuid").and_then(Value::as_str),
        }
    }

    /// Whether this is a `result`.
    pub fn is_result(&self) -> bool {
        matches!(self, Message::Result(_))
    }

    /// The `result`, when this is one.
    pub fn as_result(&self) -> Option<&ResultMessage> {
        match self {
            Message::Result(m) => Some(m),
            _ => None,
        }
    }

    /// The `assistant` message, when this is one.
    pub fn as_assistant(&self) -> Option<&AssistantMessage> {
        match self {
            Message::Assistant(m) => Some(m),
            _ => None,
        }
    }
}

impl Serialize for Message {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.to_value().serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for Message {
    /// Never fails on a JSON value (see [`Message::from_value`]).
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Value::deserialize(deserializer).map(Message::from_value)
    }
}

/// `null` as the default: the CLI sends `null` for some absent lists and strings.
fn null_default<'de, D, T>(deserializer: D) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    T: Default + Deserialize<'de>,
{
    Option::<T>::deserialize(deserializer).map(Option::unwrap_or_default)
}

fn is_false(value: &bool) -> bool {
    !*value
}

/// A typed message that keeps the wire form of the fields its types cannot tell apart.
trait Typed: Serialize + for<'de> Deserialize<'de> {
    fn wire(&self) -> &WireForm;
    fn wire_mut(&mut self) -> &mut WireForm;
    /// The flattened map of the fields the type does not know.
    fn unknown_fields(&mut self) -> &mut Map<String, Value>;
}

macro_rules! typed {
    ($($message:ty { $unknown:ident }),*) => {$(
        impl Typed for $message {
            fn wire(&self) -> &WireForm {
                &self.wire
            }
            fn wire_mut(&mut self) -> &mut WireForm {
                &mut self.wire
            }
            fn unknown_fields(&mut self) -> &mut Map<String, Value> {
                &mut self.$unknown
            }
        }
    )*};
}

typed!(
    SystemMessage { data },
    AssistantMessage { extra },
    UserMessage { extra },
    ResultMessage { extra },
    StreamEvent { extra }
);

/// What a typed message's fields cannot say about the line it was read from: each top-level
/// field whose typed value serializes differently from what the CLI wrote (`null` or absent
/// for a `None`, `[]` for an empty list that is not written, `false` written out…), with both
/// forms. Empty for the usual lines, where the typed form is already exact.
#[derive(Clone, Default, PartialEq)]
struct WireForm {
    fields: Vec<WireField>,
}

#[derive(Clone, PartialEq)]
struct WireField {
    key: String,
    /// What the CLI wrote (`None`: the field was absent).
    wire: Option<Value>,
    /// What the typed value serialized to when read (`None`: not written).
    typed: Option<Value>,
}

impl WireForm {
    /// The fields where `message`, serialized, differs from `wire`, the line it was read from.
    fn between<T: Typed>(wire: &Value, message: &mut T) -> WireForm {
        let Value::Object(wire) = wire else {
            return WireForm::default();
        };
        // Unknown fields are kept as they came: only the known ones need serializing (the
        // unknown ones of a `system/init` are most of it).
        let unknown = std::mem::take(message.unknown_fields());
        let typed = serde_json::to_value(&*message);
        *message.unknown_fields() = unknown;
        let Ok(Value::Object(typed)) = typed else {
            return WireForm::default();
        };
        let unknown = message.unknown_fields();
        let changed = wire
            .iter()
            .filter(|(key, value)| !unknown.contains_key(*key) && typed.get(*key) != Some(*value))
            .map(|(key, value)| WireField {
                key: key.clone(),
                wire: Some(value.clone()),
                typed: typed.get(key).cloned(),
            });
        let added = typed
            .iter()
            .filter(|(key, _)| !wire.contains_key(*key))
            .map(|(key, value)| WireField {
                key: key.clone(),
                wire: None,
                typed: Some(value.clone()),
            });
        let mut fields: Vec<WireField> = changed.chain(added).collect();
        // By key, so that equal messages compare equal whatever order their lines had (with
        // serde_json's preserve_order, maps iterate in the order the keys were written).
        fields.sort_by(|a, b| a.key.cmp(&b.key));
        WireForm { fields }
    }

    /// `message` serialized, with the wire form put back for every field whose typed value is
    /// still what it was when read.
    fn apply<T: Serialize>(&self, message: &T) -> Value {
        // Serializing these types cannot fail: every map key is a string.
        let mut value = serde_json::to_value(message).unwrap_or_else(|_| json!({}));
        if let Value::Object(map) = &mut value {
            for field in &self.fields {
                if map.get(&field.key) != field.typed.as_ref() {
                    continue;
                }
                match &field.wire {
                    Some(wire) => map.insert(field.key.clone(), wire.clone()),
                    None => map.shift_remove(&field.key),
                };
            }
        }
        value
    }
}

/// The keys whose wire form is kept (the values can be large).
impl std::fmt::Debug for WireForm {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list()
            .entries(self.fields.iter().map(|field| &field.key))
            .finish()
    }
}

// ---- system ----

/// A `system` message. Its fields beyond `subtype`, `session_id` and `uuid` are in `data`; typed
/// views: [`init`](Self::init), [`session_state`](Self::session_state),
/// [`status`](Self::status).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SystemMessage {
    /// `init`, `status`, `session_state_changed`, `api_retry`, `compact_boundary`,
    /// `task_started`…
    pub subtype: String,
    /// The session id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_id: Option<String>,
    /// The message uuid.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uuid: Option<String>,
    /// Every other field.
    #[serde(flatten)]
    pub data: Map<String, Value>,
    /// The wire form of the fields the types above cannot tell apart (see the module docs).
    #[serde(skip)]
    wire: WireForm,
}

impl SystemMessage {
    /// The `init` message's fields, when this is one (and they fit).
    pub fn init(&self) -> Option<SystemInit> {
        if self.subtype != "init" {
            return None;
        }
        match SystemInit::deserialize(&Value::Object(self.data.clone())) {
            Ok(init) => Some(init),
            Err(error) => {
                tracing::debug!(%error, "system/init did not fit its type");
                None
            }
        }
    }

    /// The new state, when this is `session_state_changed`.
    pub fn session_state(&self) -> Option<SessionState> {
        if self.subtype != "session_state_changed" {
            return None;
        }
        self.data
            .get("state")
            .and_then(Value::as_str)
            .map(SessionState::from_wire)
    }

    /// The status (`compacting`…, `None` when cleared), when this is `status`.
    pub fn status(&self) -> Option<Option<&str>> {
        if self.subtype != "status" {
            return None;
        }
        Some(self.data.get("status").and_then(Value::as_str))
    }

    /// Whether the CLI meant it for the host library only (`sdk_host_only: true`), as the
    /// `session_state_changed` frames asked for by `CLAUDE_CODE_SDK_READS_SESSION_STATE`.
    pub fn is_host_only(&self) -> bool {
        self.data.get("sdk_host_only").and_then(Value::as_bool) == Some(true)
    }
}

/// The state of a session, from `system/session_state_changed`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum SessionState {
    /// Nothing running: the run has ended.
    Idle,
    /// A turn (or background work) is running.
    Running,
    /// Waiting on the host (a permission prompt, a dialog).
    RequiresAction,
    /// A state this library does not know.
    Other(String),
}

impl SessionState {
    /// Parses the wire value.
    pub fn from_wire(state: &str) -> Self {
        match state {
            "idle" => SessionState::Idle,
            "running" => SessionState::Running,
            "requires_action" => SessionState::RequiresAction,
            other => SessionState::Other(other.to_owned()),
        }
    }

    /// The wire value.
    pub fn as_str(&self) -> &str {
        match self {
            SessionState::Idle => "idle",
            SessionState::Running => "running",
            SessionState::RequiresAction => "requires_action",
            SessionState::Other(other) => other,
        }
    }
}

/// The fields of `system/init`: what the session starts with.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct SystemInit {
    /// The model.
    #[serde(default)]
    pub model: Option<String>,
    /// The working directory.
    #[serde(default)]
    pub cwd: Option<String>,
    /// Every tool the model may use (built-in and `mcp__…`).
    #[serde(default, deserialize_with = "null_default")]
    pub tools: Vec<String>,
    /// The MCP servers and their status.
    #[serde(default, deserialize_with = "null_default")]
    pub mcp_servers: Vec<McpServerStatus>,
    /// The permission mode.
    #[serde(default, rename = "permissionMode")]
    pub permission_mode: Option<String>,
    /// The CLI version.
    #[serde(default)]
    pub claude_code_version: Option<String>,
    /// Where the API key came from (`ANTHROPIC_API_KEY`, `none`…).
    #[serde(default, rename = "apiKeySource")]
    pub api_key_source: Option<String>,
    /// The slash commands.
    #[serde(default, deserialize_with = "null_default")]
    pub slash_commands: Vec<String>,
    /// Every other field (`agents`, `skills`, `plugins`, `capabilities`, `output_style`…).
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl SystemInit {
    /// The status of the MCP server `name`, if it is listed.
    pub fn mcp_server(&self, name: &str) -> Option<&McpServerStatus> {
        self.mcp_servers.iter().find(|s| s.name == name)
    }
}

/// One MCP server in `system/init`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct McpServerStatus {
    /// The server's key.
    pub name: String,
    /// `connected`, `failed`, `pending`, `needs-auth`…
    pub status: String,
    /// Every other field (`source`, `error`…).
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl McpServerStatus {
    /// `status == "connected"`.
    pub fn is_connected(&self) -> bool {
        self.status == "connected"
    }
}

// ---- assistant ----

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

// ---- content ----

/// A content block. Known blocks keep their other fields (`cache_control`, `citations`…) in
/// `extra`; unknown block types are kept whole as [`ContentBlock::Other`]. A known field whose
/// wire value its typed field cannot hold (`signature: null`, `is_error: false`,
/// `content: null`) stays in `extra` too, so that [`to_value`](Self::to_value) gives the block
/// back as it came.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum ContentBlock {
    /// Text.
    Text {
        /// The text.
        text: String,
        /// Every other field.
        extra: Map<String, Value>,
    },
    /// Extended thinking.
    Thinking {
        /// The thinking text.
        thinking: String,
        /// Its signature.
        signature: Option<String>,
        /// Every other field.
        extra: Map<String, Value>,
    },
    /// A tool call.
    ToolUse {
        /// The tool_use id.
        id: String,
        /// The tool (e.g. `mcp__calc__add`).
        name: String,
        /// Its input.
        input: Value,
        /// Every other field.
        extra: Map<String, Value>,
    },
    /// A tool's result.
    ToolResult {
        /// The tool_use it answers.
        tool_use_id: String,
        /// A string or a list of content blocks (`None` when absent).
        content: Option<MessageContent>,
        /// Whether the tool failed.
        is_error: bool,
        /// Every other field.
        extra: Map<String, Value>,
    },
    /// Any other block (`image`, `server_tool_use`, `redacted_thinking`…), kept as it came.
    Other(Value),
}

impl ContentBlock {
    /// A text block.
    pub fn text(text: impl Into<String>) -> Self {
        ContentBlock::Text {
            text: text.into(),
            extra: Map::new(),
        }
    }

    /// The text of a text block.
    pub fn as_text(&self) -> Option<&str> {
        match self {
            ContentBlock::Text { text, .. } => Some(text),
            _ => None,
        }
    }

    /// The block's `type`.
    pub fn block_type(&self) -> &str {
        match self {
            ContentBlock::Text { .. } => "text",
            ContentBlock::Thinking { .. } => "thinking",
            ContentBlock::ToolUse { .. } => "tool_use",
            ContentBlock::ToolResult { .. } => "tool_result",
            ContentBlock::Other(value) => value
                .get("type")
                .and_then(Value::as_str)
                .unwrap_or_default(),
        }
    }

    /// Types a block; a known type whose fields do not fit is kept as [`ContentBlock::Other`].
    pub fn from_value(value: Value) -> ContentBlock {
        let Value::Object(mut map) = value else {
            return ContentBlock::Other(value);
        };
        // Only a string is taken: anything else (a `null` signature) stays in the map, to be
        // written back as it came.
        fn take_str(map: &mut Map<String, Value>, key: &str) -> Option<String> {
            match map.remove(key)? {
                Value::String(s) => Some(s),
                other => {
                    map.insert(key.into(), other);
                    None
                }
            }
        }
        let kind = map.get("type").and_then(Value::as_str).unwrap_or_default();
        let fits = match kind {
            "text" => map.get("text").is_some_and(Value::is_string),
            "thinking" => {
                map.get("thinking").is_some_and(Value::is_string)
                    && map
                        .get("signature")
                        .is_none_or(|s| s.is_string() || s.is_null())
            }
            "tool_use" => {
                map.get("id").is_some_and(Value::is_string)
                    && map.get("name").is_some_and(Value::is_string)
                    && map.contains_key("input")
            }
            "tool_result" => {
                map.get("tool_use_id").is_some_and(Value::is_string)
                    && map
                        .get("is_error")
                        .is_none_or(|e| e.is_boolean() || e.is_null())
                    && map
                        .get("content")
                        .is_none_or(|c| c.is_null() || c.is_string() || c.is_array())
            }
            _ => false,
        };
        if !fits {
            return ContentBlock::Other(Value::Object(map));
        }
        let kind = take_str(&mut map, "type").unwrap_or_default();
        match kind.as_str() {
            "text" => ContentBlock::Text {
                text: take_str(&mut map, "text").unwrap_or_default(),
                extra: map,
            },
            "thinking" => ContentBlock::Thinking {
                thinking: take_str(&mut map, "thinking").unwrap_or_default(),
                signature: take_str(&mut map, "signature"),
                extra: map,
            },
            "tool_use" => ContentBlock::ToolUse {
                id: take_str(&mut map, "id").unwrap_or_default(),
                name: take_str(&mut map, "name").unwrap_or_default(),
                input: map.remove("input").unwrap_or_default(),
                extra: map,
            },
            _ => {
                // Only a string or a list of blocks is typed, and only `is_error: true`: an
                // explicit `false` or `null` stays in `extra`, to be written back as it came.
                let content = match map.remove("content") {
                    Some(Value::String(text)) => Some(MessageContent::Text(text)),
                    Some(Value::Array(blocks)) => Some(MessageContent::Blocks(
                        blocks.into_iter().map(ContentBlock::from_value).collect(),
                    )),
                    Some(null) => {
                        map.insert("content".into(), null);
                        None
                    }
                    None => None,
                };
                let is_error = map.get("is_error") == Some(&Value::Bool(true));
                if is_error {
                    map.remove("is_error");
                }
                ContentBlock::ToolResult {
                    tool_use_id: take_str(&mut map, "tool_use_id").unwrap_or_default(),
                    content,
                    is_error,
                    extra: map,
                }
            }
        }
    }

    /// The block as JSON.
    pub fn to_value(&self) -> Value {
        let (extra, fields) = match self {
            ContentBlock::Other(value) => return value.clone(),
            ContentBlock::Text { text, extra } => (extra, json!({"type": "text", "text": text})),
            ContentBlock::Thinking {
                thinking,
                signature,
                extra,
            } => {
                let mut fields = json!({"type": "thinking", "thinking": thinking});
                if let Some(signature) = signature {
                    fields["signature"] = json!(signature);
                }
                (extra, fields)
            }
            ContentBlock::ToolUse {
                id,
                name,
                input,
                extra,
            } => (
                extra,
                json!({"type": "tool_use", "id": id, "name": name, "input": input}),
            ),
            ContentBlock::ToolResult {
                tool_use_id,
                content,
                is_error,
                extra,
            } => {
                let mut fields = json!({"type": "tool_result", "tool_use_id": tool_use_id});
                if let Some(content) = content {
                    fields["content"] = content.to_value();
                }
                if *is_error {
                    fields["is_error"] = json!(true);
                }
                (extra, fields)
            }
        };
        let mut map = extra.clone();
        if let Value::Object(fields) = fields {
            map.extend(fields);
        }
        Value::Object(map)
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

/// Message or tool-result content: a string, or content blocks.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
#[non_exhaustive]
pub enum MessageContent {
    /// Plain text.
    Text(String),
    /// Content blocks (text, images, tool results).
    Blocks(Vec<ContentBlock>),
}

/// The content of a user message (the same shape as any [`MessageContent`]).
pub type UserContent = MessageContent;

impl MessageContent {
    /// The text: the string, or the text blocks joined.
    pub fn text(&self) -> String {
        match self {
            MessageContent::Text(text) => text.clone(),
            MessageContent::Blocks(blocks) => {
                blocks.iter().filter_map(ContentBlock::as_text).collect()
            }
        }
    }

    /// The blocks (none for plain text).
    pub fn blocks(&self) -> &[ContentBlock] {
        match self {
            MessageContent::Text(_) => &[],
            MessageContent::Blocks(blocks) => blocks,
        }
    }

    fn to_value(&self) -> Value {
        match self {
            MessageContent::Text(text) => Value::String(text.clone()),
            MessageContent::Blocks(blocks) => {
                Value::Array(blocks.iter().map(ContentBlock::to_value).collect())
            }
        }
    }
}

// ---- user ----

/// A `user` message.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct UserMessage {
    /// The API message.
    pub message: UserBody,
    /// Set when a subagent produced it.
    #[serde(default)]
    pub parent_tool_use_id: Option<String>,
    /// The session id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_id: Option<String>,
    /// The message uuid.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uuid: Option<String>,
    /// For tool results: the tool's result as the CLI recorded it (a string such as
    /// `"Error: …"`, or structured).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_use_result: Option<Value>,
    /// Whether the CLI made it up (e.g. `[Request interrupted by user]`).
    #[serde(
        default,
        rename = "isSynthetic",
        deserialize_with = "null_default",
        skip_serializing_if = "is_false"
    )]
    pub is_synthetic: bool,
    /// Every other field (`tool_result_meta`, `isReplay`, `timestamp`…).
    #[serde(flatten)]
    pub extra: Map<String, Value>,
    /// The wire form of the fields the types above cannot tell apart (see the module docs).
    #[serde(skip)]
    wire: WireForm,
}

impl UserMessage {
    /// The text: the string content, or the text blocks joined.
    pub fn text(&self) -> String {
        self.message.content.text()
    }

    /// The tool_result blocks: `(tool_use_id, content, is_error)`.
    pub fn tool_results(&self) -> impl Iterator<Item = (&str, Option<&MessageContent>, bool)> {
        self.message
            .content
            .blocks()
            .iter()
            .filter_map(|block| match block {
                ContentBlock::ToolResult {
                    tool_use_id,
                    content,
                    is_error,
                    ..
                } => Some((tool_use_id.as_str(), content.as_ref(), *is_error)),
                _ => None,
            })
    }
}

/// The API message inside a `user` frame.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct UserBody {
    /// `user`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub role: Option<String>,
    /// A string, or content blocks.
    pub content: MessageContent,
    /// Every other field.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

// ---- result ----

/// How a turn ended: the `subtype` of a `result`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ResultSubtype {
    /// `success` (which may still carry `is_error: true`, e.g. for an API error).
    Success,
    /// `error_during_execution` (also an interrupted turn).
    ErrorDuringExecution,
    /// `error_max_turns`.
    ErrorMaxTurns,
    /// `error_max_budget_usd`.
    ErrorMaxBudgetUsd,
    /// `error_max_structured_output_retries`.
    ErrorMaxStructuredOutputRetries,
    /// A subtype this library does not know.
    Other(String),
}

impl ResultSubtype {
    /// Parses the wire value.
    pub fn from_wire(subtype: &str) -> Self {
        match subtype {
            "success" => ResultSubtype::Success,
            "error_during_execution" => ResultSubtype::ErrorDuringExecution,
            "error_max_turns" => ResultSubtype::ErrorMaxTurns,
            "error_max_budget_usd" => ResultSubtype::ErrorMaxBudgetUsd,
            "error_max_structured_output_retries" => ResultSubtype::ErrorMaxStructuredOutputRetries,
            other => ResultSubtype::Other(other.to_owned()),
        }
    }

    /// The wire value.
    pub fn as_str(&self) -> &str {
        match self {
            ResultSubtype::Success => "success",
            ResultSubtype::ErrorDuringExecution => "error_during_execution",
            ResultSubtype::ErrorMaxTurns => "error_max_turns",
            ResultSubtype::ErrorMaxBudgetUsd => "error_max_budget_usd",
            ResultSubtype::ErrorMaxStructuredOutputRetries => "error_max_structured_output_retries",
            ResultSubtype::Other(other) => other,
        }
    }
}

impl std::fmt::Display for ResultSubtype {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for ResultSubtype {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for ResultSubtype {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        String::deserialize(deserializer).map(|s| ResultSubtype::from_wire(&s))
    }
}

/// A `result` message: the end of a turn.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ResultMessage {
    /// How the turn ended.
    pub subtype: ResultSubtype,
    /// Whether the turn failed.
    #[serde(default, deserialize_with = "null_default")]
    pub is_error: bool,
    /// Wall time of the turn.
    #[serde(default, deserialize_with = "null_default")]
    pub duration_ms: u64,
    /// Time spent in the API.
    #[serde(default, deserialize_with = "null_default")]
    pub duration_api_ms: u64,
    /// Agent turns taken.
    #[serde(default, deserialize_with = "null_default")]
    pub num_turns: u32,
    /// The session id.
    #[serde(default, deserialize_with = "null_default")]
    pub session_id: String,
    /// The final text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<String>,
    /// Why the model stopped.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop_reason: Option<String>,
    /// Cost in USD (as the CLI computes it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total_cost_usd: Option<f64>,
    /// Token usage.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage: Option<Value>,
    /// Usage per model.
    #[serde(
        default,
        rename = "modelUsage",
        skip_serializing_if = "Option::is_none"
    )]
    pub model_usage: Option<Value>,
    /// Tools the permission system refused (always written, as the CLI does).
    #[serde(default, deserialize_with = "null_default")]
    pub permission_denials: Vec<Value>,
    /// The structured output (with an output schema).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub structured_output: Option<Value>,
    /// Errors, for error subtypes.
    #[serde(
        default,
        deserialize_with = "null_default",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub errors: Vec<Value>,
    /// The HTTP status of a fatal API error (`null` when there was none, as the CLI writes).
    #[serde(default)]
    pub api_error_status: Option<u16>,
    /// Why the run ended (`completed`, `api_error`, `aborted`…).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub terminal_reason: Option<String>,
    /// The message uuid.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uuid: Option<String>,
    /// Every other field (`api_error_type`, `deferred_tool_use`…).
    #[serde(flatten)]
    pub extra: Map<String, Value>,
    /// The wire form of the fields the types above cannot tell apart (see the module docs).
    #[serde(skip)]
    wire: WireForm,
}

impl ResultMessage {
    /// `subtype == success` and not `is_error`.
    pub fn is_success(&self) -> bool {
        self.subtype == ResultSubtype::Success && !self.is_error
    }
}

// ---- stream_event ----

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

// ---- what the host writes ----

/// A user message the host sends: text, or content blocks such as images.
///
/// ```
/// use claude_tools::message::UserInput;
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
