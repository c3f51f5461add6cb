//! The `can_use_tool` permission callback: the CLI asks the host before a tool runs.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use tokio_util::sync::CancellationToken;

/// What the CLI asks: may this tool run with this input?
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct PermissionRequest {
    /// The tool, e.g. `mcp__tickets__create_ticket` or `Bash`.
    pub tool_name: String,
    /// The input the model gave it.
    pub input: Value,
    /// Rules the CLI suggests to remember the answer (`permission_suggestions`).
    pub suggestions: Vec<PermissionUpdate>,
    /// The model's `tool_use` id.
    pub tool_use_id: Option<String>,
    /// Every field of the request, for what is not typed here (`display_name`, `decision_reason`…).
    pub raw: Map<String, Value>,
    cancellation: CancellationToken,
}

impl PermissionRequest {
    /// A request to run `tool_name` with `input`, with no suggestions, no `tool_use` id and a
    /// fresh cancellation token: what a unit test of a permission callback builds.
    ///
    /// ```
    /// use claude_tools::PermissionRequest;
    ///
    /// let request = PermissionRequest::new("mcp__tickets__close_ticket", serde_json::json!({"id": 7}));
    /// assert_eq!(request.tool_name, "mcp__tickets__close_ticket");
    /// ```
    pub fn new(tool_name: impl Into<String>, input: Value) -> Self {
        Self {
            tool_name: tool_name.into(),
            input,
            suggestions: Vec::new(),
            tool_use_id: None,
            raw: Map::new(),
            cancellation: CancellationToken::new(),
        }
    }

    pub(crate) fn from_request(
        request: Map<String, Value>,
        cancellation: CancellationToken,
    ) -> Self {
        let tool_name = request
            .get("tool_name")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string();
        let input = request
            .get("input")
            .cloned()
            .unwrap_or_else(|| Value::Object(Map::new()));
        let suggestions = request
            .get("permission_suggestions")
            .and_then(Value::as_array)
            .map(|items| {
                items
                    .iter()
                    .filter_map(|s| serde_json::from_value(s.clone()).ok())
                    .collect()
            })
            .unwrap_or_default();
        let tool_use_id = request
            .get("tool_use_id")
            .and_then(Value::as_str)
            .map(String::from);
        Self {
            tool_name,
            input,
            suggestions,
            tool_use_id,
            raw: request,
            cancellation,
        }
    }

    /// Fires when the CLI withdraws the question (`control_cancel_request`, e.g. on interrupt)
    /// or the session ends. No answer is sent then; the callback is still polled for up to
    /// [`CANCEL_GRACE`](claude_tools_core::mcp::CANCEL_GRACE) so a branch waiting on this token can clean
    /// up, and is dropped after that (the contract is described there).
    pub fn cancellation_token(&self) -> &CancellationToken {
        &self.cancellation
    }
}

/// The host's answer.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum PermissionDecision {
    /// Let the tool run.
    Allow {
        /// Run it with this input instead of the model's.
        updated_input: Option<Value>,
        /// Rules for the CLI to remember.
        updated_permissions: Vec<PermissionUpdate>,
    },
    /// Refuse: the model reads `message` as the tool's (error) result.
    Deny {
        /// Why, for the model.
        message: String,
        /// Also stop the whole turn.
        interrupt: bool,
    },
}

impl PermissionDecision {
    /// Allow with the model's input.
    pub fn allow() -> Self {
        PermissionDecision::Allow {
            updated_input: None,
            updated_permissions: Vec::new(),
        }
    }

    /// Allow, running the tool with `input` instead.
    pub fn allow_with_input(input: Value) -> Self {
        PermissionDecision::Allow {
            updated_input: Some(input),
            updated_permissions: Vec::new(),
        }
    }

    /// Deny with a message for the model.
    pub fn deny(message: impl Into<String>) -> Self {
        PermissionDecision::Deny {
            message: message.into(),
            interrupt: false,
        }
    }

    /// Deny and interrupt the turn.
    pub fn deny_and_interrupt(message: impl Into<String>) -> Self {
        PermissionDecision::Deny {
            message: message.into(),
            interrupt: true,
        }
    }
}

/// A permission rule change, as the CLI suggests and accepts them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "camelCase")]
#[non_exhaustive]
pub enum PermissionUpdate {
    /// Add rules.
    AddRules {
        /// The rules.
        rules: Vec<PermissionRule>,
        /// `allow`, `deny` or `ask`.
        behavior: String,
        /// Where to store them.
        destination: String,
    },
    /// Replace rules.
    ReplaceRules {
        /// The rules.
        rules: Vec<PermissionRule>,
        /// `allow`, `deny` or `ask`.
        behavior: String,
        /// Where to store them.
        destination: String,
    },
    /// Remove rules.
    RemoveRules {
        /// The rules.
        rules: Vec<PermissionRule>,
        /// `allow`, `deny` or `ask`.
        behavior: String,
        /// Where to store them.
        destination: String,
    },
    /// Switch the permission mode.
    SetMode {
        /// The mode.
        mode: String,
        /// Where to store it.
        destination: String,
    },
    /// Add working directories.
    AddDirectories {
        /// The directories.
        directories: Vec<String>,
        /// Where to store them.
        destination: String,
    },
    /// Remove working directories.
    RemoveDirectories {
        /// The directories.
        directories: Vec<String>,
        /// Where to store them.
        destination: String,
    },
}

/// One permission rule.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PermissionRule {
    /// The tool the rule is about.
    #[serde(rename = "toolName")]
    pub tool_name: String,
    /// The rule's content (e.g. a command pattern), if any.
    #[serde(
        rename = "ruleContent",
        skip_serializing_if = "Option::is_none",
        default
    )]
    pub rule_content: Option<String>,
}

type PermissionFuture = Pin<Box<dyn Future<Output = PermissionDecision> + Send>>;

/// A `can_use_tool` callback (see [`Options::can_use_tool`](crate::options::Options::can_use_tool)).
#[derive(Clone)]
pub(crate) struct CanUseTool(Arc<dyn Fn(PermissionRequest) -> PermissionFuture + Send + Sync>);

impl CanUseTool {
    /// Wraps an async closure.
    pub(crate) fn new<F, Fut>(callback: F) -> Self
    where
        F: Fn(PermissionRequest) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = PermissionDecision> + Send + 'static,
    {
        CanUseTool(Arc::new(move |request| Box::pin(callback(request))))
    }

    pub(crate) fn call(&self, request: PermissionRequest) -> PermissionFuture {
        (self.0)(request)
    }
}

impl std::fmt::Debug for CanUseTool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("CanUseTool(..)")
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn parses_the_observed_request() {
        let request = json!({"subtype":"can_use_tool","tool_name":"mcp__calc__secret",
            "mcp_server":{"name":"calc","source":"sdk"},"display_name":"Secret","input":{},
            "permission_suggestions":[{"type":"addRules","rules":[{"toolName":"mcp__calc__secret"}],"behavior":"allow","destination":"localSettings"}],
            "server_policy_ask_only":true,"tool_use_id":"toolu_0000secr"});
        let Value::Object(request) = request else {
            unreachable!()
        };
        let parsed = PermissionRequest::from_request(request, CancellationToken::new());
        assert_eq!(parsed.tool_name, "mcp__calc__secret");
        assert_eq!(parsed.tool_use_id.as_deref(), Some("toolu_0000secr"));
        assert_eq!(
            parsed.suggestions,
            vec![PermissionUpdate::AddRules {
                rules: vec![PermissionRule {
                    tool_name: "mcp__calc__secret".into(),
                    rule_content: None
                }],
                behavior: "allow".into(),
                destination: "localSettings".into(),
            }]
        );
        assert_eq!(parsed.raw["display_name"], "Secret");
    }
}
