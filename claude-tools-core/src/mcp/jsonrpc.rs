//! JSON-RPC 2.0 wire pieces: error codes, reply builders and request ids as map keys.

use serde_json::{Map, Value};

/// The message is not valid JSON.
pub const PARSE_ERROR: i64 = -32700;
/// The message is not a valid JSON-RPC request (not an object, no `method`, bad `jsonrpc`…).
pub const INVALID_REQUEST: i64 = -32600;
/// The server has no such method.
pub const METHOD_NOT_FOUND: i64 = -32601;
/// The method's parameters are invalid (for example `tools/call` without a `name`).
pub const INVALID_PARAMS: i64 = -32602;
/// The server failed internally.
pub const INTERNAL_ERROR: i64 = -32603;
/// MCP: the request was cancelled by a `notifications/cancelled`.
pub const REQUEST_CANCELLED: i64 = -32800;

/// `{"jsonrpc":"2.0","id":<id>,"result":<result>}`.
pub fn success(id: Value, result: Value) -> Value {
    let mut reply = Map::new();
    reply.insert("jsonrpc".into(), Value::String("2.0".into()));
    reply.insert("id".into(), id);
    reply.insert("result".into(), result);
    Value::Object(reply)
}

/// `{"jsonrpc":"2.0","id":<id>,"error":{"code","message"(,"data")}}`.
pub fn error(id: Value, code: i64, message: &str, data: Option<Value>) -> Value {
    let mut error = Map::new();
    error.insert("code".into(), Value::from(code));
    error.insert("message".into(), Value::String(message.into()));
    if let Some(data) = data {
        error.insert("data".into(), data);
    }
    let mut reply = Map::new();
    reply.insert("jsonrpc".into(), Value::String("2.0".into()));
    reply.insert("id".into(), id);
    reply.insert("error".into(), Value::Object(error));
    Value::Object(reply)
}

/// The placeholder answer to a notification: `{"jsonrpc":"2.0","result":{}}`. JSON-RPC answers
/// no notification, but the Claude Code CLI awaits an `mcp_response` for every `mcp_message`
/// and fails the server after 60 s without one.
pub fn notification_ack() -> Value {
    let mut reply = Map::new();
    reply.insert("jsonrpc".into(), Value::String("2.0".into()));
    reply.insert("result".into(), Value::Object(Map::new()));
    Value::Object(reply)
}

/// A request id (an integer or a string) usable as a map key without allocating for integers.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) enum IdKey {
    Int(i64),
    Uint(u64),
    /// A string id, or the text of a non-integer number.
    Text(Box<str>),
}

impl IdKey {
    /// The key of `id`, when it is a valid request id (a string or a number).
    pub(crate) fn of(id: &Value) -> Option<IdKey> {
        match id {
            Value::Number(n) => Some(if let Some(i) = n.as_i64() {
                IdKey::Int(i)
            } else if let Some(u) = n.as_u64() {
                IdKey::Uint(u)
            } else {
                IdKey::Text(format!("#{n}").into())
            }),
            Value::String(s) => Some(IdKey::Text(s.as_str().into())),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn ids_of_different_kinds_do_not_collide() {
        assert_eq!(IdKey::of(&json!(3)), Some(IdKey::Int(3)));
        assert_eq!(IdKey::of(&json!(u64::MAX)), Some(IdKey::Uint(u64::MAX)));
        assert_eq!(IdKey::of(&json!("3")), Some(IdKey::Text("3".into())));
        assert_ne!(IdKey::of(&json!(1.5)), IdKey::of(&json!("1.5")));
        assert_eq!(IdKey::of(&json!(null)), None);
        assert_eq!(IdKey::of(&json!({"a": 1})), None);
    }
}
