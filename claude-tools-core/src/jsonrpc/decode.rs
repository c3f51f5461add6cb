//! The one decoder: `Message`'s `Deserialize`, one borrowed pass over the envelope that applies
//! the rules of [`Message`]'s table.
//!
//! A `tools/call`'s params are read typed in the same pass (the arguments as entries, not a
//! map), and so are a `prompts/get`'s and a `resources/read`'s (`catalog_params`); when
//! `params` comes before `method`, they are kept raw and read once the method is known. Other
//! methods' params stay raw JSON until their handler reads them. Only JSON syntax
//! (and what serde_json cannot hold: a number past a float's range, nesting past 128 levels, in
//! what is read) fails the pass; every shape problem becomes the message's answer.

use std::fmt;

use serde::Deserialize;
use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::value::RawValue;

use super::catalog_params::{GetPromptSeed, ReadResourceSeed};
use super::message::{
    Call, ClientResponse, GetPrompt, InitializeParams, Invalid, Message, Notification, RawParams,
    ReadResource, Request, ToolCall,
};
use super::request_meta::claim_of_raw;
use super::tool_call_params::{ToolCallSeed, no_name};
use super::{ErrorObject, IdError, MetaClaim, RequestId};
use crate::json_str::{JsonStr, StrOrOther};

impl<'de> Deserialize<'de> for Message {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(MessageVisitor)
    }
}

struct MessageVisitor;

/// The params as the envelope pass read them.
enum Params<'de> {
    /// A `tools/call`'s, read typed because the method came first.
    ToolCall((Result<ToolCall, ErrorObject>, MetaClaim)),
    /// A `prompts/get`'s, read typed because the method came first.
    GetPrompt((Result<GetPrompt, ErrorObject>, MetaClaim)),
    /// A `resources/read`'s, read typed because the method came first.
    ReadResource((Result<ReadResource, ErrorObject>, MetaClaim)),
    Raw(&'de RawValue),
}

fn not_an_object(reason: &str) -> Message {
    Message::Invalid(Invalid {
        id: None,
        error: ErrorObject::invalid_request(reason),
    })
}

const NOT_AN_OBJECT: &str = "a JSON-RPC message must be a JSON object";

impl<'de> Visitor<'de> for MessageVisitor {
    type Value = Message;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON-RPC message")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Message, A::Error> {
        let mut e = Envelope::default();
        while let Some(key) = map.next_key::<JsonStr<'de>>()? {
            let slot = match &*key {
                "jsonrpc" => Slot::Jsonrpc,
                "id" => Slot::Id,
                "method" => Slot::Method,
                "params" => Slot::Params,
                "result" | "error" => Slot::Answer,
                _ => {
                    map.next_value::<IgnoredAny>()?;
                    continue;
                }
            };
            let seen = match slot {
                Slot::Jsonrpc => e.jsonrpc.is_some(),
                Slot::Id => e.id.is_some(),
                Slot::Method => e.method_seen,
                Slot::Params => e.params.is_some(),
                // `result` and `error` together are as wrong as either twice.
                Slot::Answer => e.answer.is_some(),
            };
            if seen {
                e.repeated.get_or_insert(match slot {
                    Slot::Jsonrpc => "jsonrpc",
                    Slot::Id => "id",
                    Slot::Method => "method",
                    Slot::Params => "params",
                    Slot::Answer if &*key == "result" => "result",
                    Slot::Answer => "error",
                });
                map.next_value::<IgnoredAny>()?;
                continue;
            }
            match slot {
                Slot::Jsonrpc => e.jsonrpc = Some(map.next_value::<StrOrOther<'de>>()?.0),
                Slot::Id => e.id = Some(map.next_value()?),
                Slot::Method => {
                    // A string method borrowed from the line (owned only with escapes).
                    e.method = map.next_value::<StrOrOther<'de>>()?.0;
                    e.method_seen = true;
                }
                // The CLI writes `method` first, so a `tools/call`'s params are read typed here.
                Slot::Params => {
                    e.params = Some(match e.method.as_deref() {
                        Some("tools/call") => Params::ToolCall(map.next_value_seed(ToolCallSeed)?),
                        Some("prompts/get") => {
                            Params::GetPrompt(map.next_value_seed(GetPromptSeed)?)
                        }
                        Some("resources/read") => {
                            Params::ReadResource(map.next_value_seed(ReadResourceSeed)?)
                        }
                        _ => Params::Raw(map.next_value()?),
                    });
                }
                Slot::Answer => {
                    let value: &'de RawValue = map.next_value()?;
                    e.answer = Some(if &*key == "result" {
                        Answered::Result(value)
                    } else {
                        Answered::Error(value)
                    });
                }
            }
        }
        Ok(e.classify())
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Message, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(not_an_object(
            "a JSON-RPC batch (an array) is not supported: MCP removed batches in 2025-06-18; \
             send one message at a time",
        ))
    }

    fn visit_str<E: de::Error>(self, _: &str) -> Result<Message, E> {
        Ok(not_an_object(NOT_AN_OBJECT))
    }

    fn visit_bool<E: de::Error>(self, _: bool) -> Result<Message, E> {
        Ok(not_an_object(NOT_AN_OBJECT))
    }

    fn visit_i64<E: de::Error>(self, _: i64) -> Result<Message, E> {
        Ok(not_an_object(NOT_AN_OBJECT))
    }

    fn visit_u64<E: de::Error>(self, _: u64) -> Result<Message, E> {
        Ok(not_an_object(NOT_AN_OBJECT))
    }

    fn visit_f64<E: de::Error>(self, _: f64) -> Result<Message, E> {
        Ok(not_an_object(NOT_AN_OBJECT))
    }

    fn visit_unit<E: de::Error>(self) -> Result<Message, E> {
        Ok(not_an_object(NOT_AN_OBJECT))
    }
}

/// A response's `result` or `error`, as it came.
enum Answered<'de> {
    Result(&'de RawValue),
    Error(&'de RawValue),
}

impl Answered<'_> {
    fn outcome(self) -> Result<RawParams, ErrorObject> {
        match self {
            Answered::Result(raw) => Ok(RawParams(raw.to_owned())),
            Answered::Error(raw) => Err(client_error(raw)),
        }
    }
}

/// A client's `error` member as an [`ErrorObject`]; one that is not `{code, message, data?}`
/// is `-32603` saying so, so the waiting request still gets an error to report.
fn client_error(raw: &RawValue) -> ErrorObject {
    #[derive(Deserialize)]
    struct Fields {
        code: i32,
        message: String,
        #[serde(default)]
        data: Option<serde_json::Value>,
    }
    match serde_json::from_str::<Fields>(raw.get()) {
        Ok(fields) => {
            let mut error = ErrorObject::new(super::ErrorCode(fields.code), fields.message);
            error.data = fields.data;
            error
        }
        Err(_) => ErrorObject::internal_error(
            "the client answered with an `error` that is not a JSON-RPC error object",
        ),
    }
}

/// The envelope keys the decoder reads.
#[derive(Clone, Copy)]
enum Slot {
    Jsonrpc,
    Id,
    Method,
    Params,
    /// `result` or `error`.
    Answer,
}

/// The envelope's fields, as the pass read them.
#[derive(Default)]
struct Envelope<'de> {
    /// `jsonrpc`, when present: the string, or `None` for a value of another type.
    jsonrpc: Option<Option<JsonStr<'de>>>,
    id: Option<&'de RawValue>,
    /// `method` when it is a string.
    method: Option<JsonStr<'de>>,
    /// Whether there was a `method` at all.
    method_seen: bool,
    params: Option<Params<'de>>,
    /// A response's `result` or `error`, raw.
    answer: Option<Answered<'de>>,
    /// The first key written twice.
    repeated: Option<&'static str>,
}

impl Envelope<'_> {
    /// The rules of [`Message`]'s table, in their order.
    fn classify(self) -> Message {
        let Envelope {
            jsonrpc,
            id,
            method,
            method_seen,
            params,
            answer,
            repeated,
        } = self;
        let invalid = |id: Option<RequestId>, reason: String| {
            Message::Invalid(Invalid {
                id,
                error: ErrorObject::invalid_request(reason),
            })
        };
        let (id, null_id) = match id.map(|raw| RequestId::from_json(raw.get())) {
            None => (None, false),
            Some(Ok(id)) => (Some(id), false),
            Some(Err(IdError::Null)) => (None, true),
            Some(Err(IdError::WrongType)) => {
                return invalid(None, "`id` must be a string or a number".into());
            }
        };
        if let Some(key) = repeated {
            return invalid(
                id,
                format!("the key `{key}` appears more than once; send each envelope key once"),
            );
        }
        if jsonrpc.flatten().as_deref() != Some("2.0") {
            return invalid(id, "`jsonrpc` must be \"2.0\"".into());
        }
        if !method_seen {
            if let Some(answer) = answer {
                return Message::Response(ClientResponse {
                    id,
                    outcome: answer.outcome(),
                });
            }
            return invalid(id, "a request needs a `method` string".into());
        }
        let Some(method) = method else {
            return invalid(id, "`method` must be a string".into());
        };
        match id {
            Some(id) => {
                let (call, meta) = call(method, params);
                Message::Request(Request { id, call, meta })
            }
            None if null_id => invalid(
                None,
                "a request's `id` must be a string or a number, not null".into(),
            ),
            None => Message::Notification(notification(method, params)),
        }
    }
}

fn raw_params(params: Option<Params<'_>>) -> Option<RawParams> {
    match params {
        Some(Params::Raw(raw)) => Some(RawParams(raw.to_owned())),
        // Only the methods read typed have typed params, and only their own arms reach them.
        Some(Params::ToolCall(_) | Params::GetPrompt(_) | Params::ReadResource(_)) | None => None,
    }
}

/// The call a request makes, with what its `_meta` claims of its revision (read typed with the
/// params of the methods read typed, in a small pass of its own for the rest).
fn call(method: JsonStr<'_>, params: Option<Params<'_>>) -> (Call, MetaClaim) {
    match &*method {
        "tools/call" => {
            let (read, claim) = match params {
                Some(Params::ToolCall(read)) => read,
                // `params` came before `method`: read them now.
                Some(Params::Raw(raw)) => {
                    let mut deserializer = serde_json::Deserializer::from_str(raw.get());
                    match ToolCallSeed.deserialize(&mut deserializer) {
                        Ok(read) => read,
                        Err(error) => (
                            Err(ErrorObject::invalid_params(error.to_string())),
                            MetaClaim::Absent,
                        ),
                    }
                }
                Some(Params::GetPrompt(_) | Params::ReadResource(_)) | None => {
                    (Err(no_name()), MetaClaim::Absent)
                }
            };
            let call = match read {
                Ok(call) => Call::ToolsCall(call),
                Err(error) => Call::InvalidParams(error),
            };
            (call, claim)
        }
        "prompts/get" => {
            let (read, claim) = match params {
                Some(Params::GetPrompt(read)) => read,
                Some(Params::Raw(raw)) => read_late(raw, GetPromptSeed),
                _ => (
                    Err(ErrorObject::invalid_params(
                        "prompts/get needs `params.name`, the prompt's name as a string",
                    )),
                    MetaClaim::Absent,
                ),
            };
            (Call::PromptsGet(read), claim)
        }
        "resources/read" => {
            let (read, claim) = match params {
                Some(Params::ReadResource(read)) => read,
                Some(Params::Raw(raw)) => read_late(raw, ReadResourceSeed),
                _ => (
                    Err(ErrorObject::invalid_params(
                        "resources/read needs `params.uri`, the resource's URI as a string",
                    )),
                    MetaClaim::Absent,
                ),
            };
            (Call::ResourcesRead(read), claim)
        }
        _ => {
            let claim = match &params {
                Some(Params::Raw(raw)) => claim_of_raw(raw),
                _ => MetaClaim::Absent,
            };
            (other_call(method, params), claim)
        }
    }
}

/// The call of a method whose params the pass kept raw.
fn other_call(method: JsonStr<'_>, params: Option<Params<'_>>) -> Call {
    match &*method {
        "tools/list" => match list_cursor(params) {
            None => Call::ToolsList,
            // The server lists every tool on one page and never hands out a cursor, so any
            // cursor is one it did not issue (MCP: an invalid cursor is `-32602`).
            Some(cursor) => Call::InvalidParams(ErrorObject::invalid_params(format!(
                "invalid cursor `{}`: this server lists all its tools on one page and issued no cursor; \
                 list again without one",
                super::echo(&cursor)
            ))),
        },
        "ping" => Call::Ping,
        "server/discover" => Call::Discover,
        "initialize" => Call::Initialize(initialize_params(params)),
        _ => Call::Other {
            method: method.into_owned(),
            params: raw_params(params),
        },
    }
}

/// Reads params that came before their `method`, now that it is known.
fn read_late<'de, T>(
    raw: &'de RawValue,
    seed: impl DeserializeSeed<'de, Value = (Result<T, ErrorObject>, MetaClaim)>,
) -> (Result<T, ErrorObject>, MetaClaim) {
    let mut deserializer = serde_json::Deserializer::from_str(raw.get());
    seed.deserialize(&mut deserializer).unwrap_or_else(|error| {
        (
            Err(ErrorObject::invalid_params(error.to_string())),
            MetaClaim::Absent,
        )
    })
}

fn notification(method: JsonStr<'_>, params: Option<Params<'_>>) -> Notification {
    match &*method {
        "notifications/initialized" => Notification::Initialized,
        "notifications/cancelled" => {
            #[derive(Deserialize)]
            struct Cancelled<'a> {
                #[serde(rename = "requestId", borrow, default)]
                request_id: Option<&'a RawValue>,
                #[serde(default)]
                reason: Option<String>,
            }
            let read = match &params {
                Some(Params::Raw(raw)) => serde_json::from_str::<Cancelled<'_>>(raw.get()).ok(),
                _ => None,
            };
            let (request_id, reason) = match read {
                Some(read) => (
                    read.request_id
                        .and_then(|raw| RequestId::from_json(raw.get()).ok()),
                    read.reason,
                ),
                None => (None, None),
            };
            Notification::Cancelled { request_id, reason }
        }
        _ => Notification::Other {
            method: method.into_owned(),
            params: raw_params(params),
        },
    }
}

/// The `cursor` of a `tools/list`'s params, when there is one (a `null` is none; a value of
/// another type than string is shown as JSON).
fn list_cursor(params: Option<Params<'_>>) -> Option<String> {
    #[derive(Deserialize)]
    struct Fields {
        #[serde(default)]
        cursor: Option<serde_json::Value>,
    }
    let Some(Params::Raw(raw)) = params else {
        return None;
    };
    match serde_json::from_str::<Fields>(raw.get()).ok()?.cursor? {
        serde_json::Value::Null => None,
        serde_json::Value::String(cursor) => Some(cursor),
        other => Some(other.to_string()),
    }
}

fn initialize_params(params: Option<Params<'_>>) -> InitializeParams {
    #[derive(Deserialize)]
    struct Fields<'a> {
        #[serde(rename = "protocolVersion", default)]
        protocol_version: Option<serde_json::Value>,
        #[serde(borrow, default)]
        capabilities: Option<&'a RawValue>,
    }
    let Some(Params::Raw(raw)) = params else {
        return InitializeParams::default();
    };
    let Ok(fields) = serde_json::from_str::<Fields<'_>>(raw.get()) else {
        return InitializeParams::default();
    };
    InitializeParams {
        protocol_version: match fields.protocol_version {
            Some(serde_json::Value::String(version)) => Some(version),
            _ => None,
        },
        capabilities: fields
            .capabilities
            .map(|raw| crate::ask::ClientCapabilities::read(raw.get()))
            .unwrap_or_default(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::jsonrpc::ErrorCode;
    use crate::jsonrpc::ProgressToken;

    fn decode(text: &str) -> Message {
        Message::decode(text.as_bytes())
    }

    fn invalid(text: &str) -> (Option<RequestId>, ErrorCode) {
        match decode(text) {
            Message::Invalid(Invalid { id, error }) => (id, error.code),
            Message::Unreadable(unreadable) => {
                let code = unreadable.response().error_code().expect("not a tool call");
                (unreadable.id, code)
            }
            other => panic!("{text} decoded as {other:?}"),
        }
    }

    #[test]
    fn a_tool_call_is_typed_in_either_key_order() {
        for text in [
            r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"add","arguments":{"a":1},"_meta":{"claudecode/toolUseId":"toolu_1","progressToken":"p"}}}"#,
            r#"{"params":{"_meta":{"progressToken":"p","claudecode/toolUseId":"toolu_1"},"arguments":{"a":1},"name":"add"},"id":3,"method":"tools/call","jsonrpc":"2.0"}"#,
        ] {
            let Message::Request(Request {
                id,
                call: Call::ToolsCall(call),
                ..
            }) = decode(text)
            else {
                panic!("{text}");
            };
            assert_eq!(id, RequestId::from(3));
            assert_eq!(call.name, "add");
            assert_eq!(call.arguments.into_value(), serde_json::json!({"a": 1}));
            assert_eq!(call.tool_use_id.as_deref(), Some("toolu_1"));
            assert_eq!(
                call.progress_token,
                Some(ProgressToken(RequestId::from("p")))
            );
        }
    }

    #[test]
    fn tool_call_params_of_the_wrong_shape_are_invalid_params() {
        for params in [
            "",
            r#","params":[1]"#,
            r#","params":"x""#,
            r#","params":{"name":5}"#,
            r#","params":{}"#,
            r#","params":{"name":"a","name":"b"}"#,
        ] {
            let text = format!(r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call"{params}}}"#);
            let Message::Request(Request {
                call: Call::InvalidParams(error),
                ..
            }) = decode(&text)
            else {
                panic!("{text}");
            };
            assert_eq!(error.code, ErrorCode::INVALID_PARAMS, "{text}");
        }
    }

    #[test]
    fn the_kind_is_decided_by_the_envelope() {
        assert!(matches!(
            decode(r#"{"jsonrpc":"2.0","method":"tools/call","params":{"name":"x"}}"#),
            Message::Notification(Notification::Other { .. })
        ));
        assert!(matches!(
            decode(r#"{"jsonrpc":"2.0","id":5,"method":"notifications/initialized"}"#),
            Message::Request(Request {
                call: Call::Other { .. },
                ..
            })
        ));
        assert_eq!(
            decode(
                r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"r","reason":"bye"}}"#
            ),
            Message::Notification(Notification::Cancelled {
                request_id: Some(RequestId::from("r")),
                reason: Some("bye".into())
            })
        );
        assert!(matches!(
            decode(r#"{"jsonrpc":"2.0","id":9,"result":{}}"#),
            Message::Response(ClientResponse {
                id: Some(_),
                outcome: Ok(_)
            })
        ));
        let Message::Response(answer) =
            decode(r#"{"jsonrpc":"2.0","id":"s1","error":{"code":-1,"message":"no","data":[1]}}"#)
        else {
            panic!("not a response");
        };
        assert_eq!(answer.id, Some(RequestId::from("s1")));
        let error = answer.outcome.unwrap_err();
        assert_eq!((error.code, &*error.message), (ErrorCode(-1), "no"));
        assert_eq!(error.data, Some(serde_json::json!([1])));
        let Message::Response(odd) = decode(r#"{"jsonrpc":"2.0","id":2,"error":"no"}"#) else {
            panic!("not a response");
        };
        assert_eq!(odd.outcome.unwrap_err().code, ErrorCode::INTERNAL_ERROR);
        assert_eq!(
            decode(
                r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18"}}"#
            ),
            Message::Request(Request {
                id: RequestId::from(1),
                call: Call::Initialize(InitializeParams {
                    protocol_version: Some("2025-06-18".into()),
                    ..InitializeParams::default()
                }),
                meta: MetaClaim::Absent,
            })
        );
    }

    #[test]
    fn what_is_not_a_message_is_invalid_with_the_id_when_it_can_be_read() {
        let code = ErrorCode::INVALID_REQUEST;
        assert_eq!(invalid("[]"), (None, code));
        assert_eq!(
            invalid(r#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#),
            (None, code)
        );
        assert_eq!(invalid("7"), (None, code));
        assert_eq!(
            invalid(r#"{"jsonrpc":"2.0","id":{},"method":"ping"}"#),
            (None, code)
        );
        assert_eq!(
            invalid(r#"{"jsonrpc":"2.0","id":null,"method":"ping"}"#),
            (None, code)
        );
        assert_eq!(
            invalid(r#"{"jsonrpc":"1.0","id":4,"method":"ping"}"#),
            (Some(RequestId::from(4)), code)
        );
        assert_eq!(
            invalid(r#"{"jsonrpc":"1.0","method":"notifications/initialized"}"#),
            (None, code)
        );
        assert_eq!(
            invalid(r#"{"id":4,"method":"ping"}"#),
            (Some(RequestId::from(4)), code)
        );
        assert_eq!(
            invalid(r#"{"jsonrpc":"2.0","id":4,"method":7}"#),
            (Some(RequestId::from(4)), code)
        );
        assert_eq!(
            invalid(r#"{"jsonrpc":"2.0","id":4,"method":"tools/call","method":"tools/list"}"#),
            (Some(RequestId::from(4)), code)
        );
        assert_eq!(
            invalid(r#"{"jsonrpc":"2.0","id":4}"#),
            (Some(RequestId::from(4)), code)
        );
        assert_eq!(
            invalid(r#"{"jsonrpc":"2.0","id":4,"method":"ping""#),
            (Some(RequestId::from(4)), ErrorCode::PARSE_ERROR)
        );
        assert_eq!(invalid("\u{0}"), (None, ErrorCode::PARSE_ERROR));
    }

    #[test]
    fn ids_past_a_float_are_read_as_written() {
        let Message::Request(request) = decode(r#"{"jsonrpc":"2.0","id":1e400,"method":"ping"}"#)
        else {
            panic!();
        };
        assert_eq!(request.id.to_string(), "1e400");
    }
}
