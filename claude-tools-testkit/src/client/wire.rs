//! What the test client writes: its requests, as the bytes a real MCP client sends (so that the
//! router's one decoder reads them, `_meta` and all, exactly as it reads a transport's), and
//! its answers to the server's questions.
//!
//! The core reads these messages (it is the server side); the client side of their shapes is
//! written here, once.

use std::collections::BTreeMap;

use claude_tools_core::ask::{ClientCapabilities, CreateMessageResult, Elicitation, Root};
use claude_tools_core::jsonrpc::LoggingLevel;
use serde::Serialize;
use serde_json::Value;

/// A JSON-RPC request of the client's.
#[derive(Serialize)]
pub(super) struct OutgoingRequest<'a, P> {
    pub(super) jsonrpc: &'static str,
    pub(super) id: i64,
    pub(super) method: &'a str,
    pub(super) params: P,
}

/// A request's params: the method's own (`body`), the client's `_meta`, and, on the retry of
/// an MCP 2026-07-28 request answered `input_required`, the answers and the state echoed.
#[derive(Serialize)]
pub(super) struct Params<'a, B> {
    #[serde(flatten)]
    pub(super) body: &'a B,
    #[serde(rename = "_meta", skip_serializing_if = "Meta::is_empty")]
    pub(super) meta: Meta,
    #[serde(rename = "inputResponses", skip_serializing_if = "Option::is_none")]
    pub(super) input_responses: Option<BTreeMap<String, QuestionAnswer>>,
    #[serde(rename = "requestState", skip_serializing_if = "Option::is_none")]
    pub(super) request_state: Option<String>,
}

/// `params._meta`.
#[derive(Serialize, Default)]
pub(super) struct Meta {
    #[serde(rename = "progressToken", skip_serializing_if = "Option::is_none")]
    pub(super) progress_token: Option<i64>,
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    pub(super) modern: Option<ModernMeta>,
}

impl Meta {
    fn is_empty(&self) -> bool {
        self.progress_token.is_none() && self.modern.is_none()
    }
}

/// The per-request fields of an MCP 2026-07-28 request.
#[derive(Serialize)]
pub(super) struct ModernMeta {
    #[serde(rename = "io.modelcontextprotocol/protocolVersion")]
    pub(super) protocol_version: &'static str,
    #[serde(rename = "io.modelcontextprotocol/clientCapabilities")]
    pub(super) capabilities: Capabilities,
    #[serde(rename = "io.modelcontextprotocol/clientInfo")]
    pub(super) client_info: ClientInfo,
    #[serde(rename = "io.modelcontextprotocol/logLevel")]
    pub(super) log_level: LoggingLevel,
}

/// A client's name and version (`clientInfo`).
#[derive(Serialize, Clone)]
pub(super) struct ClientInfo {
    pub(super) name: &'static str,
    pub(super) version: &'static str,
}

/// What the client can be asked, as MCP writes it: a key with an empty object per capability.
#[derive(Serialize)]
pub(super) struct Capabilities {
    #[serde(skip_serializing_if = "Option::is_none")]
    elicitation: Option<Empty>,
    #[serde(skip_serializing_if = "Option::is_none")]
    sampling: Option<Empty>,
    #[serde(skip_serializing_if = "Option::is_none")]
    roots: Option<Empty>,
}

impl From<ClientCapabilities> for Capabilities {
    fn from(capabilities: ClientCapabilities) -> Self {
        let has = |on: bool| on.then_some(Empty {});
        Self {
            elicitation: has(capabilities.elicitation),
            sampling: has(capabilities.sampling),
            roots: has(capabilities.roots),
        }
    }
}

/// `{}`.
#[derive(Serialize)]
pub(super) struct Empty {}

/// The params of `initialize`.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct Initialize {
    pub(super) protocol_version: &'static str,
    pub(super) capabilities: Capabilities,
    pub(super) client_info: ClientInfo,
}

/// The params of `logging/setLevel`.
#[derive(Serialize)]
pub(super) struct SetLevel {
    pub(super) level: LoggingLevel,
}

/// The params of `tools/call` (the arguments are the tool's, whose shape is open).
#[derive(Serialize)]
pub(super) struct CallTool<'a> {
    pub(super) name: &'a str,
    pub(super) arguments: Value,
}

/// The params of `prompts/get`.
#[derive(Serialize)]
pub(super) struct GetPrompt<'a> {
    pub(super) name: &'a str,
    pub(super) arguments: &'a BTreeMap<String, String>,
}

/// The params of `resources/read`.
#[derive(Serialize)]
pub(super) struct ReadResource<'a> {
    pub(super) uri: &'a str,
}

/// The params of `completion/complete`.
#[derive(Serialize)]
pub(super) struct Complete<'a> {
    #[serde(rename = "ref")]
    pub(super) reference: &'a CompletionRef,
    pub(super) argument: CompleteArgument<'a>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) context: Option<CompleteContext<'a>>,
}

/// What a completion is for.
#[derive(Serialize, Debug, Clone, PartialEq)]
#[serde(tag = "type")]
pub(super) enum CompletionRef {
    #[serde(rename = "ref/prompt")]
    Prompt { name: String },
    #[serde(rename = "ref/resource")]
    Resource { uri: String },
}

/// The argument being completed, and what was typed of it.
#[derive(Serialize)]
pub(super) struct CompleteArgument<'a> {
    pub(super) name: &'a str,
    pub(super) value: &'a str,
}

/// The arguments already filled in.
#[derive(Serialize)]
pub(super) struct CompleteContext<'a> {
    pub(super) arguments: &'a BTreeMap<String, String>,
}

/// A client's answer to one of the server's questions, as it writes the result (the same
/// shapes answer an MCP 2026-07-28 question in `inputResponses`).
#[derive(Serialize, Debug, Clone, PartialEq)]
#[serde(untagged)]
pub(super) enum QuestionAnswer {
    /// `elicitation/create`.
    Elicit(ElicitResult),
    /// `sampling/createMessage`.
    Sampled(CreateMessageResult),
    /// `roots/list`.
    Roots(RootsResult),
}

/// The result of `roots/list`.
#[derive(Serialize, Debug, Clone, PartialEq)]
pub(super) struct RootsResult {
    pub(super) roots: Vec<Root>,
}

/// The result of an `elicitation/create`, as a client writes it (the same shape answers an MCP
/// 2026-07-28 question in `inputResponses`).
#[derive(Serialize, Debug, Clone, PartialEq)]
pub(super) struct ElicitResult {
    action: Action,
    #[serde(skip_serializing_if = "Option::is_none")]
    content: Option<Value>,
}

#[derive(Serialize, Debug, Clone, Copy, PartialEq)]
#[serde(rename_all = "lowercase")]
enum Action {
    Accept,
    Decline,
    Cancel,
}

impl ElicitResult {
    /// The result of `answer`; an accepted value is written out as JSON (which fails only for
    /// values JSON cannot hold: a map with non-string keys).
    pub(super) fn of<T: Serialize>(answer: Elicitation<T>) -> Result<Self, serde_json::Error> {
        Ok(match answer {
            Elicitation::Accepted(content) => Self {
                action: Action::Accept,
                content: Some(serde_json::to_value(content)?),
            },
            Elicitation::Declined => Self {
                action: Action::Decline,
                content: None,
            },
            Elicitation::Cancelled => Self {
                action: Action::Cancel,
                content: None,
            },
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_modern_request_carries_its_revision_capabilities_and_progress_token_in_meta() {
        let body = ReadResource { uri: "a://b" };
        let request = OutgoingRequest {
            jsonrpc: "2.0",
            id: 7,
            method: "resources/read",
            params: Params {
                body: &body,
                meta: Meta {
                    progress_token: Some(3),
                    modern: Some(ModernMeta {
                        protocol_version: "2026-07-28",
                        capabilities: ClientCapabilities::NONE.with_elicitation(true).into(),
                        client_info: ClientInfo {
                            name: "t",
                            version: "1",
                        },
                        log_level: LoggingLevel::Info,
                    }),
                },
                input_responses: None,
                request_state: Some("s".into()),
            },
        };
        assert_eq!(
            serde_json::to_value(&request).unwrap(),
            json!({"jsonrpc": "2.0", "id": 7, "method": "resources/read", "params": {
                "uri": "a://b",
                "_meta": {
                    "progressToken": 3,
                    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                    "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}},
                    "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "1"},
                    "io.modelcontextprotocol/logLevel": "info",
                },
                "requestState": "s",
            }})
        );
    }

    #[test]
    fn an_elicitation_answer_is_an_action_with_content_only_when_accepted() {
        let write = |answer| serde_json::to_value(ElicitResult::of(answer).unwrap()).unwrap();
        assert_eq!(
            write(Elicitation::Accepted(json!({"ok": true}))),
            json!({"action": "accept", "content": {"ok": true}})
        );
        assert_eq!(write(Elicitation::Declined), json!({"action": "decline"}));
        assert_eq!(write(Elicitation::Cancelled), json!({"action": "cancel"}));
    }
}
