//! [`McpMessage`]: a JSON-RPC message read in one pass, with the hot path — a well-formed
//! `tools/call` — typed as it is read, and anything else kept as a `Value`.

use std::fmt;
use std::sync::Arc;

use serde::de::{self, Deserialize, Deserializer, MapAccess, Visitor};
use serde_json::{Map, Value};

use crate::json_str::JsonStr;
use crate::tool::{Arguments, Token};

/// One JSON-RPC message for an in-process server.
#[derive(Debug, Clone, PartialEq)]
pub enum McpMessage {
    /// A well-formed `tools/call` request.
    ToolCall(ToolCallRequest),
    /// Any other message (or a `tools/call` the general path must judge), as it came.
    Other(Value),
}

/// The parts of a `tools/call` request the router needs.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolCallRequest {
    /// The JSON-RPC id (a number or a string).
    pub id: Value,
    /// The tool.
    pub name: String,
    /// Its arguments, read without building a map (see [`Arguments`]); the default when
    /// absent or `null`.
    pub arguments: Arguments,
    /// `params._meta["claudecode/toolUseId"]`.
    pub tool_use_id: Option<Arc<str>>,
    /// `params._meta.progressToken`.
    pub progress_token: Option<Value>,
}

impl McpMessage {
    /// The JSON-RPC id, if the message has one.
    pub fn id(&self) -> Option<&Value> {
        match self {
            McpMessage::ToolCall(call) => Some(&call.id),
            McpMessage::Other(value) => value.get("id"),
        }
    }
}

impl From<Value> for McpMessage {
    fn from(value: Value) -> Self {
        McpMessage::Other(value)
    }
}

/// `tools/call` params, read typed when the method is already known to be `tools/call`.
#[derive(serde::Deserialize)]
struct CallParams<'a> {
    name: String,
    #[serde(default)]
    arguments: Option<Arguments>,
    #[serde(rename = "_meta", borrow, default)]
    meta: Option<CallMeta<'a>>,
}

#[derive(serde::Deserialize)]
struct CallMeta<'a> {
    #[serde(rename = "claudecode/toolUseId", borrow, default)]
    tool_use_id: Option<JsonStr<'a>>,
    #[serde(rename = "progressToken", default, deserialize_with = "token")]
    progress_token: Option<Token>,
}

/// A `progressToken`, read as a `Value` and held as a [`Token`]: the params are moved several
/// times while they are read, and a `Value` would make them too large to move inline.
fn token<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<Token>, D::Error> {
    Ok(Option::<Value>::deserialize(deserializer)?.map(Token::from))
}

impl CallParams<'_> {
    /// Back to JSON, for a `tools/call` the general path must answer (bad `jsonrpc` or `id`);
    /// those answers do not depend on the params.
    fn into_value(self) -> Value {
        let mut params = Map::new();
        params.insert("name".into(), Value::String(self.name));
        if let Some(arguments) = self.arguments {
            params.insert("arguments".into(), arguments.into_value());
        }
        if let Some(meta) = self.meta {
            let mut fields = Map::new();
            if let Some(id) = meta.tool_use_id {
                fields.insert(
                    super::TOOL_USE_ID_META.into(),
                    Value::String(id.into_owned()),
                );
            }
            if let Some(token) = meta.progress_token {
                fields.insert("progressToken".into(), token.into_value());
            }
            params.insert("_meta".into(), Value::Object(fields));
        }
        Value::Object(params)
    }
}

impl<'de> Deserialize<'de> for McpMessage {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(MessageVisitor)
    }
}

struct MessageVisitor;

impl<'de> Visitor<'de> for MessageVisitor {
    type Value = McpMessage;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON-RPC message")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<McpMessage, A::Error> {
        // The usual fields are held as they are read (strings borrowed from the line); a `Map` is
        // built only for a message that is not a well-formed `tools/call`.
        let mut method: Option<JsonStr<'de>> = None;
        let mut jsonrpc: Option<JsonStr<'de>> = None;
        let mut id: Option<Value> = None;
        let mut call_params: Option<CallParams<'de>> = None;
        let mut other_params: Option<Value> = None;
        let mut extra = Map::new();
        while let Some(key) = map.next_key::<JsonStr<'de>>()? {
            match &*key {
                "method" => method = Some(map.next_value()?),
                "jsonrpc" => jsonrpc = Some(map.next_value()?),
                "id" => id = Some(map.next_value()?),
                // The CLI writes `method` first, so a `tools/call`'s params are read typed.
                "params" if method.as_deref() == Some("tools/call") => {
                    call_params = Some(map.next_value()?);
                }
                "params" => other_params = Some(map.next_value()?),
                _ => {
                    extra.insert(key.into_owned(), map.next_value()?);
                }
            }
        }
        let well_formed = jsonrpc.as_deref() == Some("2.0")
            && matches!(id, Some(Value::Number(_) | Value::String(_)));
        if well_formed && let Some(params) = call_params.take() {
            let (tool_use_id, progress_token) = match params.meta {
                Some(meta) => (
                    meta.tool_use_id.map(|id| Arc::from(&*id)),
                    meta.progress_token.map(Token::into_value),
                ),
                None => (None, None),
            };
            return Ok(McpMessage::ToolCall(ToolCallRequest {
                id: id.unwrap_or(Value::Null),
                name: params.name,
                arguments: params.arguments.unwrap_or_default(),
                tool_use_id,
                progress_token,
            }));
        }
        let mut fields = extra;
        if let Some(method) = method {
            fields.insert("method".into(), Value::String(method.into_owned()));
        }
        if let Some(jsonrpc) = jsonrpc {
            fields.insert("jsonrpc".into(), Value::String(jsonrpc.into_owned()));
        }
        if let Some(id) = id {
            fields.insert("id".into(), id);
        }
        if let Some(params) = call_params.map(CallParams::into_value).or(other_params) {
            fields.insert("params".into(), params);
        }
        Ok(McpMessage::Other(Value::Object(fields)))
    }

    // Anything that is not an object is still a message, for the router to refuse.
    fn visit_seq<A: de::SeqAccess<'de>>(self, seq: A) -> Result<McpMessage, A::Error> {
        Value::deserialize(de::value::SeqAccessDeserializer::new(seq)).map(McpMessage::Other)
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<McpMessage, E> {
        Ok(McpMessage::Other(Value::String(v.into())))
    }

    fn visit_bool<E: de::Error>(self, v: bool) -> Result<McpMessage, E> {
        Ok(McpMessage::Other(Value::Bool(v)))
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<McpMessage, E> {
        Ok(McpMessage::Other(Value::from(v)))
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<McpMessage, E> {
        Ok(McpMessage::Other(Value::from(v)))
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<McpMessage, E> {
        Ok(McpMessage::Other(Value::from(v)))
    }

    fn visit_unit<E: de::Error>(self) -> Result<McpMessage, E> {
        Ok(McpMessage::Other(Value::Null))
    }
}
