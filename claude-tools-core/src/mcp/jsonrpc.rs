//! JSON-RPC 2.0 wire pieces: error codes, reply builders, request ids as map keys, and ids
//! written back exactly as they came.

use serde::{Serialize, Serializer};
use serde_json::value::RawValue;
use serde_json::{Map, Value};

use super::Reply;
use crate::json_scan::RawId;

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

/// The request's `id` exactly as its text wrote it, when the `id` it was parsed into would not
/// be written back the same: a number that is not an `i64` or `u64` is held as a 64-bit float,
/// so `123456789012345678901234567890` would come back as `1.2345678901234568e29` and `1.50` as
/// `1.5`. `None` (nothing to look up) for the usual ids, strings and integers. `find` reads the
/// id from the text (only called for such a number).
///
/// The id's own reader (the router, a tool's `ToolContext::request_id`) still sees the float;
/// only the reply is written with the id as it came ([`EchoedId`]), so a client that sent a
/// huge integer finds its request.
#[doc(hidden)]
pub fn verbatim_id(
    id: Option<&Value>,
    find: impl FnOnce() -> Option<RawId>,
) -> Option<Box<RawValue>> {
    match id {
        Some(Value::Number(n)) if n.is_f64() => find()?.to_raw_value(),
        _ => None,
    }
}

/// `reply`, with its `id` written as `id` when there is one (see [`verbatim_id`]).
#[doc(hidden)]
pub struct EchoedId<'a> {
    /// The reply.
    pub reply: &'a Reply,
    /// The request's id as it came, to write in place of the reply's.
    pub id: Option<&'a RawValue>,
}

impl Serialize for EchoedId<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let Some(raw) = self.id else {
            return self.reply.serialize(serializer);
        };
        match self.reply {
            Reply::ToolResult {
                id: Value::Number(_),
                result,
            } => {
                let mut reply = serializer.serialize_map(Some(3))?;
                reply.serialize_entry("jsonrpc", "2.0")?;
                reply.serialize_entry("id", raw)?;
                reply.serialize_entry("result", result)?;
                reply.end()
            }
            // Only a reply that echoes a number: one whose id is `null` (the request's id was
            // refused) stays as it is.
            Reply::Json(Value::Object(fields))
                if matches!(fields.get("id"), Some(Value::Number(_))) =>
            {
                let mut reply = serializer.serialize_map(Some(fields.len()))?;
                for (key, value) in fields {
                    if key == "id" {
                        reply.serialize_entry(key, raw)?;
                    } else {
                        reply.serialize_entry(key, value)?;
                    }
                }
                reply.end()
            }
            reply => reply.serialize(serializer),
        }
    }
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
    fn an_echoed_id_replaces_only_a_numeric_reply_id() {
        let written = |reply: &Reply, text: &str| {
            let id = verbatim_id(reply_id(reply).as_ref(), || {
                crate::json_scan::message_id(format!(r#"{{"id":{text}}}"#).as_bytes())
            });
            serde_json::to_string(&EchoedId {
                reply,
                id: id.as_deref(),
            })
            .unwrap()
        };
        let big: Value = serde_json::from_str("123456789012345678901234567890").unwrap();
        let result = Reply::ToolResult {
            id: big.clone(),
            result: crate::tool::ToolResult::text("x"),
        };
        assert_eq!(
            written(&result, "123456789012345678901234567890"),
            r#"{"jsonrpc":"2.0","id":123456789012345678901234567890,"result":{"content":[{"type":"text","text":"x"}],"isError":false}}"#
        );
        let ping = Reply::Json(success(big, json!({})));
        assert_eq!(
            written(&ping, "123456789012345678901234567890"),
            r#"{"jsonrpc":"2.0","id":123456789012345678901234567890,"result":{}}"#
        );
        // Integers and strings need nothing; a refusal's `null` stays.
        let plain = Reply::Json(success(json!(7), json!({})));
        assert_eq!(
            written(&plain, "7"),
            r#"{"jsonrpc":"2.0","id":7,"result":{}}"#
        );
        let refused = Reply::Json(error(Value::Null, INVALID_REQUEST, "Invalid Request", None));
        let raw = RawValue::from_string("1.50".into()).unwrap();
        assert_eq!(
            serde_json::to_string(&EchoedId {
                reply: &refused,
                id: Some(&raw),
            })
            .unwrap(),
            r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request"}}"#
        );
    }

    fn reply_id(reply: &Reply) -> Option<Value> {
        match reply {
            Reply::ToolResult { id, .. } => Some(id.clone()),
            Reply::Json(value) => value.get("id").cloned(),
        }
    }

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
