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

use tokio_util::sync::CancellationToken;

use super::{Fault, HookCallbackId};
use crate::dialog::UserDialogRequest;
use crate::elicitation::ElicitationRequest;
use crate::hooks::HookInput;
use crate::permission::PermissionRequest;
use crate::session_store::mirror::MirrorFrame;
use claude_tools_core::json_scan;
use claude_tools_core::json_str::JsonStr;
use claude_tools_core::mcp::Message;

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
        body: CliRequest<'a>,
    },
    /// The answer to a request the host sent.
    Response {
        request_id: String,
        outcome: Result<Value, ControlFailure>,
        /// The CLI's requests still waiting for an answer that an `initialize` answer carries
        /// (`pending_permission_requests`, `pending_user_dialog_requests`), to be served again
        /// after a transport gap: `(request_id, request)`.
        redeliver: Vec<(String, CliRequest<'static>)>,
    },
    /// The CLI withdraws a request it sent; nothing is written back.
    Cancel { request_id: Cow<'a, str> },
    /// A heartbeat.
    KeepAlive,
    /// A frame for the host only (`sdk_host_only: true`), such as `session_state_changed`.
    HostOnly(Map<String, Value>),
    /// Lines the CLI wrote to a transcript (`--session-mirror`), for the session store.
    TranscriptMirror(MirrorFrame),
    /// A message for the user.
    Message(Value),
}

/// A request of the CLI (a `control_request`'s body), classified by its subtype once, where
/// the line is read.
// `Mcp` is the large variant and the hot one (see `Incoming`); the others fit beside it.
#[allow(clippy::large_enum_variant)]
#[derive(Debug)]
pub(crate) enum CliRequest<'a> {
    /// `mcp_message`: JSON-RPC for an in-process server.
    Mcp {
        server: Cow<'a, str>,
        message: Message,
    },
    /// `can_use_tool`: may this tool run? Withdrawing the request fires the request's token.
    CanUseTool(Box<PermissionRequest>),
    /// `hook_callback`: run the hook callback registered under `callback_id`.
    HookCallback {
        /// The id as the CLI wrote it (for the error when it names no callback).
        callback_id: String,
        /// The callback it names, when it is an id the host hands out.
        id: Option<HookCallbackId>,
        /// The hook's input; withdrawing the request fires its token.
        input: HookInput,
    },
    /// `elicitation`: an MCP server asks the user for input. Withdrawing the request fires the
    /// request's token.
    Elicitation(Box<ElicitationRequest>),
    /// `request_user_dialog`: the CLI asks the host to show a dialog. Withdrawing the request
    /// fires the request's token.
    UserDialog(Box<UserDialogRequest>),
    /// Any other subtype, with all its fields.
    Other {
        subtype: String,
        fields: Map<String, Value>,
    },
}

impl CliRequest<'_> {
    /// The request of `subtype` with these fields (an `mcp_message` is read on its own path),
    /// sent under `request_id`.
    pub(crate) fn classify(
        request_id: &str,
        subtype: String,
        mut fields: Map<String, Value>,
    ) -> CliRequest<'static> {
        match subtype.as_str() {
            "can_use_tool" => CliRequest::CanUseTool(Box::new(
                PermissionRequest::from_request(fields, CancellationToken::new())
                    .with_request_id(request_id),
            )),
            "hook_callback" => {
                let callback_id = fields
                    .get("callback_id")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_string();
                let tool_use_id = fields
                    .get("tool_use_id")
                    .and_then(Value::as_str)
                    .map(String::from);
                let input = match fields.remove("input") {
                    Some(Value::Object(input)) => input,
                    _ => Map::new(),
                };
                CliRequest::HookCallback {
                    id: callback_id.parse().ok(),
                    callback_id,
                    input: HookInput::new(input, tool_use_id, CancellationToken::new()),
                }
            }
            "elicitation" => CliRequest::Elicitation(Box::new(
                ElicitationRequest::from_request(fields).with_request_id(request_id),
            )),
            "request_user_dialog" => CliRequest::UserDialog(Box::new(
                UserDialogRequest::from_request(fields).with_request_id(request_id),
            )),
            _ => CliRequest::Other { subtype, fields },
        }
    }

    /// The request's `subtype`, as the answer to a handler's panic names it (allocated only for
    /// a subtype the host does not know).
    pub(crate) fn subtype(&self) -> Cow<'static, str> {
        Cow::Borrowed(match self {
            CliRequest::Mcp { .. } => "mcp_message",
            CliRequest::CanUseTool(_) => "can_use_tool",
            CliRequest::HookCallback { .. } => "hook_callback",
            CliRequest::Elicitation(_) => "elicitation",
            CliRequest::UserDialog(_) => "request_user_dialog",
            CliRequest::Other { subtype, .. } => return Cow::Owned(subtype.clone()),
        })
    }

    /// The token withdrawing the request fires, for a request answered by the host's callback;
    /// `None` for an `mcp_message` (withdrawn by aborting its task, which starts the tool's own
    /// grace in the router) and for the requests answered at once.
    pub(crate) fn cancellation_token(&self) -> Option<CancellationToken> {
        match self {
            CliRequest::CanUseTool(request) => Some(request.cancellation_token().clone()),
            CliRequest::HookCallback { input, .. } => Some(input.cancellation_token().clone()),
            CliRequest::Elicitation(request) => Some(request.cancellation_token().clone()),
            CliRequest::UserDialog(request) => Some(request.cancellation_token().clone()),
            CliRequest::Mcp { .. } | CliRequest::Other { .. } => None,
        }
    }

    /// The request with nothing borrowed from its line, to outlive it.
    pub(crate) fn into_owned(self) -> CliRequest<'static> {
        match self {
            CliRequest::Mcp { server, message } => CliRequest::Mcp {
                server: Cow::Owned(server.into_owned()),
                message,
            },
            CliRequest::CanUseTool(request) => CliRequest::CanUseTool(request),
            CliRequest::HookCallback {
                callback_id,
                id,
                input,
            } => CliRequest::HookCallback {
                callback_id,
                id,
                input,
            },
            CliRequest::Elicitation(request) => CliRequest::Elicitation(request),
            CliRequest::UserDialog(request) => CliRequest::UserDialog(request),
            CliRequest::Other { subtype, fields } => CliRequest::Other { subtype, fields },
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
    message: Option<Message>,
}

impl<'a> Incoming<'a> {
    /// Classifies one line. `Ok(None)` for a line that is not JSON at all is the caller's
    /// business (it checks the first byte); a recognisable but broken frame is an error string.
    // Kept out of its caller, the reader's loop: inlined there, it made the loop's code larger
    // and each tool call dearer (callgrind, ct-bench-claude-tools against the fake CLI).
    #[inline(never)]
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
                    body: CliRequest::Mcp { server, message },
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
            // The lines stay as the CLI wrote them, byte for byte.
            Ok(Ok(Frame {
                kind: Some(kind), ..
            })) if &*kind == "transcript_mirror" => serde_json::from_slice::<MirrorFrame>(line)
                .map(Incoming::TranscriptMirror)
                .map_err(|error| {
                    ParseError::Protocol(format!(
                        "a transcript_mirror frame that cannot be read: {error}"
                    ))
                }),
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
            Err(error) => match json_scan::replace_lone_surrogates(line)
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
                        // Read again by the one decoder, as the hot path reads it (this path is
                        // rare: a line the borrowed pass could not take).
                        let bytes = serde_json::to_vec(&message).unwrap_or_default();
                        CliRequest::Mcp {
                            server: server.into(),
                            message: Message::decode(&bytes),
                        }
                    }
                    message => {
                        if let Some(message) = message {
                            fields.insert("message".into(), message);
                        }
                        CliRequest::classify(&request_id, subtype, fields)
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
            // Only a frame with lone surrogates gets here: its lines as repaired.
            "transcript_mirror" => serde_json::to_string(&frame)
                .ok()
                .and_then(|text| serde_json::from_str::<MirrorFrame>(&text).ok())
                .map(Incoming::TranscriptMirror)
                .ok_or_else(|| "a transcript_mirror frame that cannot be read".to_string()),
            "control_response" => {
                let Some(Value::Object(mut response)) = frame.remove("response") else {
                    return Err("control_response without a response object".into());
                };
                let request_id = take_string(&mut response, "request_id")
                    .ok_or("control_response without a string request_id")?;
                let redeliver = match response.get("subtype").and_then(Value::as_str) {
                    Some("error") => Vec::new(),
                    _ => pending_requests(&mut response),
                };
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
                    redeliver,
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

/// The requests an `initialize` answer says the CLI still waits on, as the TypeScript SDK
/// serves them again: the `can_use_tool`s of `pending_permission_requests` (without
/// `server_policy_ask_only`, which only holds for the first delivery) and the
/// `request_user_dialog`s of `pending_user_dialog_requests`; anything else in those lists is
/// left alone.
fn pending_requests(response: &mut Map<String, Value>) -> Vec<(String, CliRequest<'static>)> {
    let lists = [
        ("pending_permission_requests", "can_use_tool"),
        ("pending_user_dialog_requests", "request_user_dialog"),
    ];
    let mut pending = Vec::new();
    for (list, wanted) in lists {
        let Some(Value::Array(frames)) = response.remove(list) else {
            continue;
        };
        for frame in frames {
            let Value::Object(mut frame) = frame else {
                continue;
            };
            let (Some(request_id), Some(Value::Object(mut fields))) = (
                take_string(&mut frame, "request_id"),
                frame.remove("request"),
            ) else {
                continue;
            };
            if fields.get("subtype").and_then(Value::as_str) != Some(wanted) {
                continue;
            }
            fields.remove("server_policy_ask_only");
            let request = CliRequest::classify(&request_id, wanted.to_string(), fields);
            pending.push((request_id, request));
        }
    }
    pending
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
    use claude_tools_core::mcp::{Call, ProgressToken, Request, RequestId};

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
            matches!(mcp, Ok(Incoming::Request { ref request_id, body: CliRequest::Mcp { ref server, ref message } })
                if request_id == "r1" && server == "calc" && matches!(message, Message::Invalid(_)))
        );
        let call = parse(json!({
            "type": "control_request", "request_id": "r5",
            "request": {"subtype": "mcp_message", "server_name": "calc", "message": {"method": "tools/call",
                "params": {"name": "add", "arguments": {"a": 1}, "_meta": {"claudecode/toolUseId": "toolu_1", "progressToken": 2}},
                "jsonrpc": "2.0", "id": 2}}
        }));
        let Ok(Incoming::Request {
            body:
                CliRequest::Mcp {
                    message:
                        Message::Request(Request {
                            id,
                            call: Call::ToolsCall(call),
                            ..
                        }),
                    ..
                },
            ..
        }) = call
        else {
            panic!("a tools/call is read typed: {call:?}");
        };
        assert_eq!(
            (
                id,
                call.name.as_str(),
                call.arguments.into_value(),
                call.tool_use_id.as_deref(),
                call.progress_token
            ),
            (
                RequestId::from(2),
                "add",
                json!({"a": 1}),
                Some("toolu_1"),
                Some(ProgressToken(RequestId::from(2)))
            )
        );
        // A bad jsonrpc, or params of the wrong shape: still a message, answered by the router.
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
                        body: CliRequest::Mcp {
                            message: Message::Invalid(_)
                                | Message::Request(Request {
                                    call: Call::InvalidParams(_),
                                    ..
                                }),
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
                    body: CliRequest::Mcp {
                        message: Message::Request(Request {
                            call: Call::ToolsCall(_),
                            ..
                        }),
                        ..
                    },
                    ..
                })
            ),
            "params before the method are still read typed: {params_first:?}"
        );
        let permission = parse(json!({
            "type": "control_request", "request_id": "r2",
            "request": {"subtype": "can_use_tool", "tool_name": "Bash", "input": {}}
        }));
        assert!(
            matches!(permission, Ok(Incoming::Request { body: CliRequest::CanUseTool(ref request), .. })
                if request.tool_name == "Bash" && request.raw["subtype"] == "can_use_tool")
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

    /// The body of the request a `control_request` line carries.
    fn request_of(request: Value) -> CliRequest<'static> {
        match parse(json!({"type": "control_request", "request_id": "r1", "request": request})) {
            Ok(Incoming::Request { body, .. }) => body,
            other => panic!("not a request: {other:?}"),
        }
    }

    #[test]
    fn every_request_of_the_cli_is_classified_by_its_subtype_once() {
        // The observed `can_use_tool` (protocol.md A.4), typed for the callback.
        let CliRequest::CanUseTool(permission) = request_of(json!({"subtype": "can_use_tool",
            "tool_name": "mcp__calc__secret", "mcp_server": {"name": "calc", "source": "sdk"},
            "display_name": "Secret", "input": {"x": 1},
            "permission_suggestions": [{"type": "addRules", "rules": [{"toolName": "mcp__calc__secret"}],
                "behavior": "allow", "destination": "localSettings"}],
            "server_policy_ask_only": true, "tool_use_id": "toolu_0000secr"}))
        else {
            panic!("can_use_tool");
        };
        assert_eq!(
            (
                permission.tool_name.as_str(),
                &permission.input,
                permission.suggestions.len(),
                permission.tool_use_id.as_deref(),
                &permission.raw["display_name"]
            ),
            (
                "mcp__calc__secret",
                &json!({"x": 1}),
                1,
                Some("toolu_0000secr"),
                &json!("Secret")
            )
        );
        // The observed `hook_callback`: the id typed, the input and tool_use_id handed over.
        let hook = request_of(json!({"subtype": "hook_callback", "callback_id": "hook_3",
            "input": {"session_id": "s", "hook_event_name": "PreToolUse", "tool_name": "mcp__calc__echo",
                "tool_input": {"text": "hello"}, "tool_use_id": "toolu_0000echo"},
            "tool_use_id": "toolu_0000echo"}));
        let CliRequest::HookCallback {
            callback_id,
            id,
            input,
        } = hook
        else {
            panic!("hook_callback");
        };
        assert_eq!(
            (callback_id.as_str(), id.map(HookCallbackId::index)),
            ("hook_3", Some(3))
        );
        assert_eq!(
            (
                input.event_name(),
                input.tool_name(),
                input.tool_use_id.as_deref()
            ),
            (
                Some("PreToolUse"),
                Some("mcp__calc__echo"),
                Some("toolu_0000echo")
            )
        );
        // An id the host never hands out, or none at all, is kept as written for the error.
        for (request, written) in [
            (
                json!({"subtype": "hook_callback", "callback_id": "hook_x"}),
                "hook_x",
            ),
            (json!({"subtype": "hook_callback", "callback_id": 3}), ""),
            (json!({"subtype": "hook_callback"}), ""),
        ] {
            let CliRequest::HookCallback {
                callback_id,
                id: None,
                input,
            } = request_of(request)
            else {
                panic!("an unknown hook id is still a hook_callback");
            };
            assert_eq!(callback_id, written);
            assert!(input.raw.is_empty());
        }
        let elicitation = request_of(json!({"subtype": "elicitation", "mcp_server_name": "calc",
            "message": "Your name?"}));
        assert!(
            matches!(elicitation, CliRequest::Elicitation(ref request) if request.message == "Your name?"),
            "{elicitation:?}"
        );
        let dialog = request_of(json!({"subtype": "request_user_dialog", "dialog_kind": "x"}));
        assert!(
            matches!(dialog, CliRequest::UserDialog(ref request)
                if request.kind == crate::dialog::DialogKind::Other("x".into())),
            "{dialog:?}"
        );
        let other = request_of(json!({"subtype": "oauth_token_refresh"}));
        assert!(
            matches!(other, CliRequest::Other { ref subtype, .. } if subtype == "oauth_token_refresh"),
            "{other:?}"
        );
        // An `mcp_message` without a message is no JSON-RPC: another request, answered as such.
        let empty = request_of(json!({"subtype": "mcp_message", "server_name": "calc"}));
        assert!(
            matches!(empty, CliRequest::Other { ref subtype, .. } if subtype == "mcp_message"),
            "{empty:?}"
        );
        assert_eq!(
            [
                request_of(json!({"subtype": "can_use_tool"})).subtype(),
                request_of(json!({"subtype": "hook_callback"})).subtype(),
                request_of(json!({"subtype": "elicitation"})).subtype(),
                request_of(json!({"subtype": "stop_task"})).subtype(),
                request_of(json!({"subtype": "mcp_message", "message": {}})).subtype(),
            ],
            [
                "can_use_tool",
                "hook_callback",
                "elicitation",
                "stop_task",
                "mcp_message"
            ]
        );
    }

    #[test]
    fn lone_surrogates_are_read_as_replacement_characters() {
        let line = br#"{"type":"control_request","request_id":"r1","request":{"subtype":"mcp_message","server_name":"calc","message":{"method":"tools/call","params":{"name":"echo","arguments":{"text":"a\ud800b\udc00c\ud83d\ude00"}},"jsonrpc":"2.0","id":4}}}"#;
        let Ok(Incoming::Request {
            request_id,
            body: CliRequest::Mcp { server, message },
        }) = Incoming::parse(line)
        else {
            panic!("read");
        };
        assert_eq!((&*request_id, &*server), ("r1", "calc"));
        let Message::Request(Request {
            call: Call::ToolsCall(call),
            ..
        }) = message
        else {
            panic!("{message:?}");
        };
        assert_eq!(
            call.arguments.into_value(),
            json!({"text": "a\u{fffd}b\u{fffd}c\u{1f600}"})
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
