//! What the CLI writes, classified: one pass over a line into an [`Incoming`].
//!
//! The hot path is a tool call: a `control_request` carrying an `mcp_message`. A line is first
//! read into a borrowed [`Frame`] that builds nothing but the fields it needs — the `request`
//! stays raw JSON until its subtype is known, and only the JSON-RPC `message` inside an
//! `mcp_message` becomes a `Value`. Other lines (the user's messages, `control_response`s) are
//! parsed into a `Value` as before.
//!
//! Only a line that fails both parses pays for more: it is read again with its lone surrogate
//! escapes repaired, and failing that, the caller scans it ([`scan`](super::scan), in
//! `recover`) for what its answer needs, so a request that cannot be parsed is still answered.

use std::borrow::Cow;

use serde::Deserialize;
use serde_json::{Map, Value};

use super::Fault;
use super::recover;
use claude_tools_core::json_str::JsonStr;
use claude_tools_core::mcp::McpMessage;

/// One line from the CLI's stdout, classified.
// `Request` is the large variant (serde_json's `preserve_order` makes a `Map` larger), and
// also the hot one: boxing it would cost an allocation per tool call, for a value that lives on
// the stack for one line.
#[allow(clippy::large_enum_variant)]
#[derive(Debug)]
pub(crate) enum Incoming<'a> {
    /// A request the host must answer.
    Request {
        request_id: Cow<'a, str>,
        body: RequestBody<'a>,
    },
    /// The answer to a request the host sent.
    Response {
        request_id: String,
        outcome: Result<Value, ControlFailure>,
    },
    /// The CLI withdraws a request it sent; nothing is written back.
    Cancel { request_id: Cow<'a, str> },
    /// A heartbeat.
    KeepAlive,
    /// A frame for the host only (`sdk_host_only: true`), such as `session_state_changed`.
    HostOnly(Map<String, Value>),
    /// A message for the user.
    Message(Value),
}

/// What a `control_request` asks.
#[derive(Debug)]
pub(crate) enum RequestBody<'a> {
    /// `mcp_message`: JSON-RPC for an in-process server.
    Mcp {
        server: Cow<'a, str>,
        message: McpMessage,
    },
    /// Any other subtype (`can_use_tool`, `hook_callback`…), with all its fields.
    Other {
        subtype: String,
        fields: Map<String, Value>,
    },
}

impl RequestBody<'_> {
    /// The body with nothing borrowed from its line, to outlive it.
    pub(crate) fn into_owned(self) -> RequestBody<'static> {
        match self {
            RequestBody::Mcp { server, message } => RequestBody::Mcp {
                server: Cow::Owned(server.into_owned()),
                message,
            },
            RequestBody::Other { subtype, fields } => RequestBody::Other { subtype, fields },
        }
    }
}

/// A `control_response` with `subtype: "error"`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ControlFailure {
    pub(crate) message: String,
    pub(crate) code: Option<String>,
}

/// The first, borrowed look at a line: enough to recognise the hot path in one pass.
#[derive(Deserialize)]
struct Frame<'a> {
    #[serde(rename = "type", borrow, default)]
    kind: Option<JsonStr<'a>>,
    #[serde(borrow, default)]
    request_id: Option<JsonStr<'a>>,
    #[serde(borrow, default)]
    request: Option<RequestHead<'a>>,
}

/// A `control_request`'s body as the hot path reads it: for `mcp_message`, the server and the
/// JSON-RPC message, read in the same pass (a `tools/call` typed, anything else as a `Value`).
/// Another subtype whose `message` is not a JSON-RPC message fails this parse and takes the
/// general path.
#[derive(Deserialize)]
struct RequestHead<'a> {
    #[serde(borrow, default)]
    subtype: Option<JsonStr<'a>>,
    #[serde(borrow, default)]
    server_name: Option<JsonStr<'a>>,
    #[serde(default)]
    message: Option<McpMessage>,
}

impl<'a> Incoming<'a> {
    /// Classifies one line. `Ok(None)` for a line that is not JSON at all is the caller's
    /// business (it checks the first byte); a recognisable but broken frame is an error string.
    pub(crate) fn parse(line: &'a [u8]) -> Result<Self, ParseError> {
        // One UTF-8 check of the whole line; the typed pass then reads it as text, with no
        // check per string or per captured raw value.
        let frame = std::str::from_utf8(line).map(serde_json::from_str::<Frame<'_>>);
        match frame {
            Ok(Ok(Frame {
                kind: Some(kind),
                request_id: Some(request_id),
                request:
                    Some(RequestHead {
                        subtype: Some(subtype),
                        server_name,
                        message: Some(message),
                    }),
            })) if &*kind == "control_request" && &*subtype == "mcp_message" => {
                let server = server_name.map_or(Cow::Borrowed(""), |name| name.0);
                Ok(Incoming::Request {
                    request_id: request_id.0,
                    body: RequestBody::Mcp { server, message },
                })
            }
            Ok(Ok(Frame {
                kind: Some(kind),
                request_id: Some(request_id),
                ..
            })) if &*kind == "control_cancel_request" => Ok(Incoming::Cancel {
                request_id: request_id.0,
            }),
            Ok(Ok(Frame {
                kind: Some(kind), ..
            })) if &*kind == "keep_alive" => Ok(Incoming::KeepAlive),
            // Everything else — messages, answers, other requests, and frames whose fields have
            // unexpected types — is parsed whole.
            _ => Self::parse_whole(line),
        }
    }

    /// Parses a line into a `Value`, then classifies it. A line serde_json refuses is tried
    /// once more with its lone surrogate escapes repaired (what JavaScript writes for a string
    /// cut mid-pair).
    fn parse_whole(line: &[u8]) -> Result<Incoming<'static>, ParseError> {
        let value = match serde_json::from_slice::<Value>(line) {
            Ok(value) => value,
            Err(error) => match recover::replace_lone_surrogates(line)
                .and_then(|fixed| serde_json::from_slice::<Value>(&fixed).ok())
            {
                Some(value) => {
                    tracing::debug!("read a line with lone surrogate escapes as U+FFFD");
                    value
                }
                None => return Err(ParseError::Json(error)),
            },
        };
        Self::classify(value).map_err(ParseError::Protocol)
    }

    /// Classifies a line already parsed into a `Value` (everything but the hot-path frames).
    fn classify(value: Value) -> Result<Incoming<'static>, String> {
        let Value::Object(mut frame) = value else {
            return Ok(Incoming::Message(value));
        };
        let kind = frame
            .get("type")
            .and_then(Value::as_str)
            .unwrap_or_default();
        match kind {
            "control_request" => {
                let request_id = take_string(&mut frame, "request_id")
                    .ok_or("the control_request's request_id is not a string")?;
                let Some(Value::Object(mut fields)) = frame.remove("request") else {
                    return Err(
                        "the control_request's `request` is missing or not an object".into(),
                    );
                };
                let subtype = fields
                    .get("subtype")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_string();
                let body = match fields.remove("message") {
                    Some(message) if subtype == "mcp_message" => {
                        let server = take_string(&mut fields, "server_name").unwrap_or_default();
                        RequestBody::Mcp {
                            server: server.into(),
                            message: McpMessage::Other(message),
                        }
                    }
                    message => {
                        if let Some(message) = message {
                            fields.insert("message".into(), message);
                        }
                        RequestBody::Other { subtype, fields }
                    }
                };
                Ok(Incoming::Request {
                    request_id: request_id.into(),
                    body,
                })
            }
            "control_cancel_request" => {
                let request_id = take_string(&mut frame, "request_id")
                    .ok_or("a control_cancel_request's request_id is not a string")?;
                Ok(Incoming::Cancel {
                    request_id: request_id.into(),
                })
            }
            "keep_alive" => Ok(Incoming::KeepAlive),
            "control_response" => {
                let Some(Value::Object(mut response)) = frame.remove("response") else {
                    return Err("control_response without a response object".into());
                };
                let request_id = take_string(&mut response, "request_id")
                    .ok_or("control_response without a string request_id")?;
                let outcome = match response.get("subtype").and_then(Value::as_str) {
                    Some("error") => Err(ControlFailure {
                        message: take_string(&mut response, "error")
                            .unwrap_or_else(|| "unknown error".into()),
                        code: take_string(&mut response, "error_code"),
                    }),
                    _ => Ok(response
                        .remove("response")
                        .unwrap_or(Value::Object(Map::new()))),
                };
                Ok(Incoming::Response {
                    request_id,
                    outcome,
                })
            }
            _ if frame.get("sdk_host_only") == Some(&Value::Bool(true)) => {
                Ok(Incoming::HostOnly(frame))
            }
            _ => Ok(Incoming::Message(Value::Object(frame))),
        }
    }
}

/// Why a line could not be classified. What its answer needs is read from the line by
/// [`scan`](super::scan), by whoever holds it.
#[derive(Debug)]
pub(crate) enum ParseError {
    /// Not valid JSON.
    Json(serde_json::Error),
    /// Valid JSON, broken frame.
    Protocol(String),
}

impl ParseError {
    /// The error as a [`Fault`], to describe in an answer.
    pub(crate) fn fault(&self) -> Fault<'_> {
        match self {
            ParseError::Json(error) => Fault::Json(error),
            ParseError::Protocol(problem) => Fault::Protocol(problem),
        }
    }
}

fn take_string(map: &mut Map<String, Value>, key: &str) -> Option<String> {
    match map.remove(key) {
        Some(Value::String(s)) => Some(s),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::protocol::scan;

    fn parse(frame: Value) -> Result<Incoming<'static>, ParseError> {
        // The tests keep what they parse: the line lives as long as the test.
        Incoming::parse(frame.to_string().into_bytes().leak())
    }

    #[test]
    fn classifies_every_frame_kind() {
        let mcp = parse(json!({
            "type": "control_request", "request_id": "r1",
            "request": {"subtype": "mcp_message", "server_name": "calc", "message": {"jsonrpc": "2.0", "id": 3}}
        }));
        assert!(
            matches!(mcp, Ok(Incoming::Request { ref request_id, body: RequestBody::Mcp { ref server, ref message } })
                if request_id == "r1" && server == "calc" && message == &McpMessage::Other(json!({"jsonrpc": "2.0", "id": 3})))
        );
        let call = parse(json!({
            "type": "control_request", "request_id": "r5",
            "request": {"subtype": "mcp_message", "server_name": "calc", "message": {"method": "tools/call",
                "params": {"name": "add", "arguments": {"a": 1}, "_meta": {"claudecode/toolUseId": "toolu_1", "progressToken": 2}},
                "jsonrpc": "2.0", "id": 2}}
        }));
        let Ok(Incoming::Request {
            body:
                RequestBody::Mcp {
                    message: McpMessage::ToolCall(call),
                    ..
                },
            ..
        }) = call
        else {
            panic!("a tools/call is read typed: {call:?}");
        };
        assert_eq!(
            (
                call.id,
                call.name.as_str(),
                call.arguments.into_value(),
                call.tool_use_id.as_deref(),
                call.progress_token
            ),
            (
                json!(2),
                "add",
                json!({"a": 1}),
                Some("toolu_1"),
                Some(json!(2))
            )
        );
        // params before method, or a bad jsonrpc: still a message, for the general path.
        for message in [
            json!({"method": "tools/call", "params": {"name": "add"}, "jsonrpc": "1.0", "id": 4}),
            json!({"method": "tools/call", "params": {"name": 7}, "jsonrpc": "2.0", "id": 5}),
        ] {
            let parsed = parse(json!({"type": "control_request", "request_id": "r6",
                "request": {"subtype": "mcp_message", "server_name": "calc", "message": message}}));
            assert!(
                matches!(
                    parsed,
                    Ok(Incoming::Request {
                        body: RequestBody::Mcp {
                            message: McpMessage::Other(_),
                            ..
                        },
                        ..
                    })
                ),
                "{parsed:?}"
            );
        }
        let params_first = Incoming::parse(
            br#"{"type":"control_request","request_id":"r7","request":{"subtype":"mcp_message","server_name":"calc","message":{"params":{"name":"add"},"method":"tools/call","jsonrpc":"2.0","id":3}}}"#,
        );
        assert!(
            matches!(
                params_first,
                Ok(Incoming::Request {
                    body: RequestBody::Mcp {
                        message: McpMessage::Other(_),
                        ..
                    },
                    ..
                })
            ),
            "{params_first:?}"
        );
        let other = parse(json!({
            "type": "control_request", "request_id": "r2",
            "request": {"subtype": "can_use_tool", "tool_name": "Bash", "input": {}}
        }));
        assert!(
            matches!(other, Ok(Incoming::Request { body: RequestBody::Other { ref subtype, ref fields }, .. })
                if subtype == "can_use_tool" && fields["tool_name"] == "Bash")
        );

        let ok = parse(json!({
            "type": "control_response",
            "response": {"subtype": "success", "request_id": "req_1", "response": {"a": 1}}
        }));
        assert!(
            matches!(ok, Ok(Incoming::Response { outcome: Ok(ref v), .. }) if v == &json!({"a": 1}))
        );
        let failed = parse(json!({
            "type": "control_response",
            "response": {"subtype": "error", "request_id": "req_2", "error": "nope", "error_code": "bad"}
        }));
        assert!(
            matches!(failed, Ok(Incoming::Response { outcome: Err(ControlFailure { ref message, code: Some(ref code) }), .. })
            if message == "nope" && code == "bad")
        );

        let cancel = parse(json!({"type": "control_cancel_request", "request_id": "r9"}));
        assert!(matches!(cancel, Ok(Incoming::Cancel { ref request_id }) if request_id == "r9"));
        assert!(matches!(
            parse(json!({"type": "keep_alive"})),
            Ok(Incoming::KeepAlive)
        ));
        let host_only = parse(json!({
            "type": "system", "subtype": "session_state_changed", "state": "idle", "sdk_host_only": true
        }));
        assert!(matches!(host_only, Ok(Incoming::HostOnly(_))));
        assert!(matches!(
            parse(json!({"type": "assistant"})),
            Ok(Incoming::Message(_))
        ));
        assert!(matches!(parse(json!([1, 2])), Ok(Incoming::Message(_))));
        assert!(matches!(
            parse(json!({"type": 7, "x": 1})),
            Ok(Incoming::Message(_))
        ));
        assert!(matches!(
            parse(json!({"type": "control_request", "request": {}})),
            Err(ParseError::Protocol(_))
        ));
        assert!(matches!(
            parse(json!({"type": "control_request", "request_id": "r3", "request": 7})),
            Err(ParseError::Protocol(_))
        ));
        assert!(matches!(
            Incoming::parse(b"{\"type\": broken"),
            Err(ParseError::Json(_))
        ));
    }

    #[test]
    fn lone_surrogates_are_read_as_replacement_characters() {
        let line = br#"{"type":"control_request","request_id":"r1","request":{"subtype":"mcp_message","server_name":"calc","message":{"method":"tools/call","params":{"name":"echo","arguments":{"text":"a\ud800b\udc00c\ud83d\ude00"}},"jsonrpc":"2.0","id":4}}}"#;
        let Ok(Incoming::Request {
            request_id,
            body: RequestBody::Mcp { server, message },
        }) = Incoming::parse(line)
        else {
            panic!("read");
        };
        assert_eq!((&*request_id, &*server), ("r1", "calc"));
        assert_eq!(
            message,
            McpMessage::Other(json!({"method": "tools/call", "jsonrpc": "2.0", "id": 4,
                "params": {"name": "echo", "arguments": {"text": "a\u{fffd}b\u{fffd}c\u{1f600}"}}}))
        );
        let message = br#"{"type":"assistant","text":"\udc00"}"#;
        assert!(
            matches!(Incoming::parse(message), Ok(Incoming::Message(v)) if v["text"] == "\u{fffd}")
        );
    }

    #[test]
    fn a_failed_line_still_shows_what_its_answer_needs() {
        let line =
            br#"{"type":"control_request","request_id":7,"request":{"subtype":"can_use_tool"}}"#;
        let Err(ParseError::Protocol(problem)) = Incoming::parse(line) else {
            panic!("a numeric request_id is refused");
        };
        assert_eq!(problem, "the control_request's request_id is not a string");
        assert_eq!(
            scan(line).request(),
            Some(crate::error::RequestRef::new(
                "7",
                Some("can_use_tool".into())
            ))
        );
        let line = br#"{"type":"control_request","request_id":"r2","request":{"subtype":"mcp_message","message":{"method":"tools/call","params":{"name":"add","arguments":{"a":1e400}},"jsonrpc":"2.0","id":9}}}"#;
        let Err(ParseError::Json(error)) = Incoming::parse(line) else {
            panic!("an out-of-range number is refused");
        };
        let found = scan(line);
        assert!(
            error.to_string().starts_with("number out of range"),
            "{error}"
        );
        assert_eq!(
            (
                found.rpc_id.map(|id| id.json().to_string()),
                found.tool.as_deref()
            ),
            (Some("9".to_string()), Some("add"))
        );
    }
}
