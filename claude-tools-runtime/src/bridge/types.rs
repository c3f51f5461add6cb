//! The small typed values of an attached session: its state, delivery statuses, close codes,
//! and the control messages a host forwards.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

/// A delivery status a host reports for an inbound event
/// ([`BridgeSessionHandle::report_delivery`](super::BridgeSessionHandle::report_delivery));
/// `received` is reported by the bridge itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum DeliveryStatus {
    /// The turn it started is running.
    Processing,
    /// The turn it started ended.
    Processed,
}

impl DeliveryStatus {
    /// The wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            DeliveryStatus::Processing => "processing",
            DeliveryStatus::Processed => "processed",
        }
    }
}

/// Why the transport died for good ([`AttachBridgeSessionOptions::on_close`](super::AttachBridgeSessionOptions::on_close)).
/// Transient disconnects (503, network blips) are retried inside and never close. After a
/// close the handle keeps the writes it could not deliver:
/// [`reconnect_transport`](super::BridgeSessionHandle::reconnect_transport) hands them to the
/// new transport, [`close`](super::BridgeSessionHandle::close) drops them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum CloseCode {
    /// 401: the worker JWT expired: re-attach with a fresh one.
    Unauthorized,
    /// 403: the read stream was refused for good.
    Forbidden,
    /// 404: the session is gone.
    NotFound,
    /// 4090: the epoch was superseded (another worker registered); pass a fresh epoch from a
    /// new `/bridge` call to reconnect.
    EpochSuperseded,
    /// 4091: the worker's initialisation (`PUT /worker`) failed.
    InitFailed,
    /// 4092: the transport closed with no code (a defensive fallback: cause unknown).
    Codeless,
    /// 4093: heartbeats kept failing while the read stream stayed healthy.
    HeartbeatsLost,
    /// 4094: the worker credential was rejected on the request path (writes and heartbeats):
    /// re-attach with a fresh one, as for 401.
    CredentialRejected,
    /// A code this library does not know.
    Other(u16),
}

impl CloseCode {
    /// The numeric code.
    pub fn code(self) -> u16 {
        match self {
            CloseCode::Unauthorized => 401,
            CloseCode::Forbidden => 403,
            CloseCode::NotFound => 404,
            CloseCode::EpochSuperseded => 4090,
            CloseCode::InitFailed => 4091,
            CloseCode::Codeless => 4092,
            CloseCode::HeartbeatsLost => 4093,
            CloseCode::CredentialRejected => 4094,
            CloseCode::Other(code) => code,
        }
    }

    /// The code for a number; one this library does not know is kept as `Other`.
    pub fn from_code(code: u16) -> CloseCode {
        match code {
            401 => CloseCode::Unauthorized,
            403 => CloseCode::Forbidden,
            404 => CloseCode::NotFound,
            4090 => CloseCode::EpochSuperseded,
            4091 => CloseCode::InitFailed,
            4092 => CloseCode::Codeless,
            4093 => CloseCode::HeartbeatsLost,
            4094 => CloseCode::CredentialRejected,
            other => CloseCode::Other(other),
        }
    }
}

/// How thinking is shown (`set_max_thinking_tokens`'s `thinking_display`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ThinkingDisplay {
    /// Summarised.
    Summarized,
    /// Left out.
    Omitted,
    /// Highlights only.
    Highlights,
}

impl ThinkingDisplay {
    pub(crate) fn from_wire(name: &str) -> Option<ThinkingDisplay> {
        Some(match name {
            "summarized" => ThinkingDisplay::Summarized,
            "omitted" => ThinkingDisplay::Omitted,
            "highlights" => ThinkingDisplay::Highlights,
            _ => return None,
        })
    }
}

/// A control request a host forwards to claude.ai
/// ([`BridgeSessionHandle::send_control_request`](super::BridgeSessionHandle::send_control_request)):
/// a `can_use_tool` prompt the user answers there, or another subtype.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct ControlRequest {
    /// Correlates the answer ([`ControlResponse::request_id`]).
    pub request_id: String,
    /// The request.
    pub request: ControlRequestBody,
}

/// The body of a [`ControlRequest`].
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum ControlRequestBody {
    /// A permission prompt for a tool call.
    CanUseTool(CanUseTool),
    /// Another subtype (`request_user_dialog`…): its `subtype` and fields as sent.
    Other(Map<String, Value>),
}

/// A `can_use_tool` prompt.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct CanUseTool {
    /// The tool.
    pub tool_name: String,
    /// Its input (each tool's own shape).
    pub input: Value,
    /// The `tool_use` block's id.
    pub tool_use_id: String,
    /// Any other field of the prompt (`permission_suggestions`, `blocked_path`,
    /// `decision_reason`, `agent_id`…), as sent.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl ControlRequest {
    /// A `can_use_tool` prompt.
    pub fn can_use_tool(
        request_id: impl Into<String>,
        tool_name: impl Into<String>,
        input: Value,
        tool_use_id: impl Into<String>,
    ) -> ControlRequest {
        ControlRequest {
            request_id: request_id.into(),
            request: ControlRequestBody::CanUseTool(CanUseTool {
                tool_name: tool_name.into(),
                input,
                tool_use_id: tool_use_id.into(),
                extra: Map::new(),
            }),
        }
    }

    /// The request's subtype.
    pub fn subtype(&self) -> &str {
        match &self.request {
            ControlRequestBody::CanUseTool(_) => "can_use_tool",
            ControlRequestBody::Other(fields) => {
                fields.get("subtype").and_then(Value::as_str).unwrap_or("")
            }
        }
    }

    /// The wire frame (`type: control_request`).
    pub fn to_value(&self) -> Value {
        let request = match &self.request {
            ControlRequestBody::CanUseTool(prompt) => {
                let mut value = serde_json::to_value(prompt).unwrap_or_else(|_| json!({}));
                if let Value::Object(map) = &mut value {
                    map.insert("subtype".into(), Value::from("can_use_tool"));
                }
                // `subtype` first, as the other SDKs write it.
                reorder_first(value, "subtype")
            }
            ControlRequestBody::Other(fields) => Value::Object(fields.clone()),
        };
        json!({"type": "control_request", "request_id": self.request_id, "request": request})
    }
}

fn reorder_first(value: Value, key: &str) -> Value {
    let Value::Object(map) = value else {
        return value;
    };
    let mut out = Map::new();
    if let Some(first) = map.get(key) {
        out.insert(key.to_owned(), first.clone());
    }
    for (k, v) in map {
        if k != key {
            out.insert(k, v);
        }
    }
    Value::Object(out)
}

/// A `control_response`: claude.ai's answer to a forwarded prompt
/// ([`AttachBridgeSessionOptions::on_permission_response`](super::AttachBridgeSessionOptions::on_permission_response)),
/// or a host's own answer ([`BridgeSessionHandle::send_control_response`](super::BridgeSessionHandle::send_control_response)).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct ControlResponse {
    /// The request answered.
    pub request_id: String,
    /// Success with its payload, or an error.
    pub result: ControlResult,
}

/// The outcome a [`ControlResponse`] carries.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum ControlResult {
    /// Success, with the payload if any (`{"behavior": "allow", "updatedInput": …}` for a
    /// permission prompt).
    Success(Option<Value>),
    /// An error.
    Error {
        /// Its message.
        error: String,
        /// A machine-readable code (`unsupported_request`…), if any.
        error_code: Option<String>,
    },
}

/// A permission decision read from a [`ControlResponse`] ([`ControlResponse::permission`]).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum PermissionAnswer {
    /// Allowed, with the input to run the tool with, if the user changed it.
    Allow {
        /// The updated input.
        updated_input: Option<Value>,
    },
    /// Denied.
    Deny {
        /// Why, as the user or claude.ai gave it.
        message: Option<String>,
    },
}

impl ControlResponse {
    /// A success answer.
    pub fn success(request_id: impl Into<String>, response: Option<Value>) -> ControlResponse {
        ControlResponse {
            request_id: request_id.into(),
            result: ControlResult::Success(response),
        }
    }

    /// An error answer.
    pub fn error(request_id: impl Into<String>, error: impl Into<String>) -> ControlResponse {
        ControlResponse {
            request_id: request_id.into(),
            result: ControlResult::Error {
                error: error.into(),
                error_code: None,
            },
        }
    }

    /// The permission decision a success answer to `can_use_tool` carries (`behavior`
    /// `allow` or `deny`), or `None`.
    pub fn permission(&self) -> Option<PermissionAnswer> {
        let ControlResult::Success(Some(payload)) = &self.result else {
            return None;
        };
        match payload.get("behavior")?.as_str()? {
            "allow" => Some(PermissionAnswer::Allow {
                updated_input: payload.get("updatedInput").cloned(),
            }),
            "deny" => Some(PermissionAnswer::Deny {
                message: payload
                    .get("message")
                    .and_then(Value::as_str)
                    .map(str::to_owned),
            }),
            _ => None,
        }
    }

    /// Reads a `control_response` frame (`request_id` or `requestId`); `None` when it is not
    /// one.
    pub fn from_value(frame: &Value) -> Option<ControlResponse> {
        let response = frame.get("response")?;
        let request_id = response
            .get("request_id")
            .or_else(|| response.get("requestId"))?
            .as_str()?
            .to_owned();
        let result = match response.get("subtype").and_then(Value::as_str) {
            Some("error") => ControlResult::Error {
                error: response
                    .get("error")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_owned(),
                error_code: response
                    .get("error_code")
                    .and_then(Value::as_str)
                    .map(str::to_owned),
            },
            _ => ControlResult::Success(response.get("response").cloned()),
        };
        Some(ControlResponse { request_id, result })
    }

    /// The wire frame (`type: control_response`).
    pub fn to_value(&self) -> Value {
        let mut response = Map::new();
        match &self.result {
            ControlResult::Success(payload) => {
                response.insert("subtype".into(), Value::from("success"));
                response.insert("request_id".into(), Value::from(self.request_id.as_str()));
                if let Some(payload) = payload {
                    response.insert("response".into(), payload.clone());
                }
            }
            ControlResult::Error { error, error_code } => {
                response.insert("subtype".into(), Value::from("error"));
                response.insert("request_id".into(), Value::from(self.request_id.as_str()));
                response.insert("error".into(), Value::from(error.as_str()));
                if let Some(code) = error_code {
                    response.insert("error_code".into(), Value::from(code.as_str()));
                }
            }
        }
        json!({"type": "control_response", "response": response})
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn close_codes_round_trip_and_keep_unknown_ones() {
        for code in [401, 403, 404, 4090, 4091, 4092, 4093, 4094, 4999] {
            assert_eq!(CloseCode::from_code(code).code(), code);
        }
        assert_eq!(CloseCode::from_code(4999), CloseCode::Other(4999));
    }

    #[test]
    fn a_permission_answer_is_read_from_the_wire() {
        let frame = json!({"type": "control_response", "response": {"subtype": "success",
            "requestId": "r1", "response": {"behavior": "allow", "updatedInput": {"a": 1}}}});
        let response = ControlResponse::from_value(&frame).unwrap();
        assert_eq!(response.request_id, "r1");
        assert_eq!(
            response.permission(),
            Some(PermissionAnswer::Allow {
                updated_input: Some(json!({"a": 1}))
            })
        );
        assert_eq!(
            ControlResponse::from_value(&response.to_value()).unwrap(),
            response
        );
        assert!(ControlResponse::from_value(&json!({"type": "control_response"})).is_none());
    }

    #[test]
    fn a_prompt_is_written_with_its_subtype() {
        let request = ControlRequest::can_use_tool("r", "Bash", json!({"command": "ls"}), "tu");
        assert_eq!(
            request.to_value(),
            json!({"type": "control_request", "request_id": "r", "request": {"subtype":
                "can_use_tool", "tool_name": "Bash", "input": {"command": "ls"}, "tool_use_id": "tu"}})
        );
    }
}
