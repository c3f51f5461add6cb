//! The control protocol's wire shapes: classifying what the CLI writes, and building what the
//! host writes back. Every line is parsed once, into a `serde_json::Value`, and taken apart by
//! moving out of it.

use serde_json::{Map, Value, json};

/// One line from the CLI's stdout, classified.
#[derive(Debug)]
pub(crate) enum Incoming {
    /// A request the host must answer (`can_use_tool`, `mcp_message`, `hook_callback`…).
    Request {
        request_id: String,
        subtype: String,
        request: Map<String, Value>,
    },
    /// The answer to a request the host sent.
    Response {
        request_id: String,
        outcome: Result<Value, ControlFailure>,
    },
    /// The CLI withdraws a request it sent; nothing is written back.
    Cancel { request_id: String },
    /// A heartbeat.
    KeepAlive,
    /// A frame for the host only (`sdk_host_only: true`), such as `session_state_changed`.
    HostOnly(Map<String, Value>),
    /// A message for the user.
    Message(Value),
}

/// A `control_response` with `subtype: "error"`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ControlFailure {
    pub(crate) message: String,
    pub(crate) code: Option<String>,
}

impl Incoming {
    /// Classifies one parsed line. Malformed control frames become [`Incoming::Message`] only
    /// when they cannot be recognised at all; a recognisable but broken one is an error string.
    pub(crate) fn classify(value: Value) -> Result<Self, String> {
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
                    .ok_or("control_request without a string request_id")?;
                let Some(Value::Object(request)) = frame.remove("request") else {
                    return Err(format!(
                        "control_request {request_id} without a request object"
                    ));
                };
                let subtype = request
                    .get("subtype")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_string();
                Ok(Incoming::Request {
                    request_id,
                    subtype,
                    request,
                })
            }
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
            "control_cancel_request" => {
                let request_id = take_string(&mut frame, "request_id")
                    .ok_or("control_cancel_request without a string request_id")?;
                Ok(Incoming::Cancel { request_id })
            }
            "keep_alive" => Ok(Incoming::KeepAlive),
            _ if frame.get("sdk_host_only") == Some(&Value::Bool(true)) => {
                Ok(Incoming::HostOnly(frame))
            }
            _ => Ok(Incoming::Message(Value::Object(frame))),
        }
    }
}

fn take_string(map: &mut Map<String, Value>, key: &str) -> Option<String> {
    match map.remove(key) {
        Some(Value::String(s)) => Some(s),
        _ => None,
    }
}

/// Serialises a frame as one NDJSON line (with its newline).
pub(crate) fn line(frame: &Value) -> Vec<u8> {
    let mut bytes = Vec::with_capacity(256);
    // Serialising a `Value` cannot fail: its keys are strings.
    let _ = serde_json::to_writer(&mut bytes, frame);
    bytes.push(b'\n');
    bytes
}

/// `{"type":"control_response","response":{"subtype":"success","request_id":…,"response":…}}`
pub(crate) fn success(request_id: &str, payload: Value) -> Value {
    json!({
        "type": "control_response",
        "response": {"subtype": "success", "request_id": request_id, "response": payload},
    })
}

/// `{"type":"control_response","response":{"subtype":"error","request_id":…,"error":…}}`
pub(crate) fn error(request_id: &str, message: &str) -> Value {
    json!({
        "type": "control_response",
        "response": {"subtype": "error", "request_id": request_id, "error": message},
    })
}

/// `{"type":"control_request","request_id":…,"request":{"subtype":…,…}}`
pub(crate) fn request(request_id: &str, body: Value) -> Value {
    json!({"type": "control_request", "request_id": request_id, "request": body})
}

/// `{"type":"control_cancel_request","request_id":…}`
pub(crate) fn cancel(request_id: &str) -> Value {
    json!({"type": "control_cancel_request", "request_id": request_id})
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classifies_every_frame_kind() {
        let request = Incoming::classify(json!({
            "type": "control_request", "request_id": "r1",
            "request": {"subtype": "mcp_message", "server_name": "calc", "message": {}}
        }));
        assert!(
            matches!(request, Ok(Incoming::Request { ref request_id, ref subtype, .. })
            if request_id == "r1" && subtype == "mcp_message")
        );

        let ok = Incoming::classify(json!({
            "type": "control_response",
            "response": {"subtype": "success", "request_id": "req_1", "response": {"a": 1}}
        }));
        assert!(
            matches!(ok, Ok(Incoming::Response { outcome: Ok(ref v), .. }) if v == &json!({"a": 1}))
        );

        let failed = Incoming::classify(json!({
            "type": "control_response",
            "response": {"subtype": "error", "request_id": "req_2", "error": "nope", "error_code": "bad"}
        }));
        assert!(
            matches!(failed, Ok(Incoming::Response { outcome: Err(ControlFailure { ref message, code: Some(ref code) }), .. })
            if message == "nope" && code == "bad")
        );

        let cancel =
            Incoming::classify(json!({"type": "control_cancel_request", "request_id": "r9"}));
        assert!(matches!(cancel, Ok(Incoming::Cancel { ref request_id }) if request_id == "r9"));
        assert!(matches!(
            Incoming::classify(json!({"type": "keep_alive"})),
            Ok(Incoming::KeepAlive)
        ));
        let host_only = Incoming::classify(json!({
            "type": "system", "subtype": "session_state_changed", "state": "idle", "sdk_host_only": true
        }));
        assert!(matches!(host_only, Ok(Incoming::HostOnly(_))));
        assert!(matches!(
            Incoming::classify(json!({"type": "assistant"})),
            Ok(Incoming::Message(_))
        ));
        assert!(Incoming::classify(json!({"type": "control_request", "request": {}})).is_err());
    }

    #[test]
    fn builds_exact_envelopes() {
        assert_eq!(
            String::from_utf8(line(&success("r1", json!({"x": 1})))).unwrap(),
            "{\"response\":{\"request_id\":\"r1\",\"response\":{\"x\":1},\"subtype\":\"success\"},\"type\":\"control_response\"}\n"
        );
        assert_eq!(
            error("r2", "boom"),
            json!({"type": "control_response", "response": {"subtype": "error", "request_id": "r2", "error": "boom"}})
        );
        assert_eq!(
            cancel("r3"),
            json!({"type": "control_cancel_request", "request_id": "r3"})
        );
    }
}
