//! The `can_use_tool` permission callback: the CLI asks the host before a tool runs.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use tokio_util::sync::CancellationToken;

use crate::builtin_tools::{BuiltinInput, BuiltinToolInput, ToolInputError};

mod update;

pub use update::{
    PermissionBehavior, PermissionRule, PermissionUpdate, PermissionUpdateDestination,
};

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
    /// The prompt sentence the CLI would show (e.g. "Claude wants to read foo.txt"): the text
    /// to ask a person with, when present.
    pub title: Option<String>,
    /// A short noun phrase for the action (e.g. "Read file"), for a button or a compact line.
    pub display_name: Option<String>,
    /// A subtitle saying what allowing grants.
    pub description: Option<String>,
    /// Why the CLI asks (e.g. which rule or check sent the call here).
    pub decision_reason: Option<String>,
    /// The file path that made the CLI ask, when one did (e.g. a path outside the allowed
    /// directories).
    pub blocked_path: Option<String>,
    /// For an `mcp__*` tool, the server that serves it and where its definition came from.
    pub mcp_server: Option<McpServerRef>,
    /// The subagent asking, when a subagent runs the tool.
    pub agent_id: Option<String>,
    /// The question must not be approvable by one stray keystroke: open it on "decline".
    pub default_to_no: bool,
    /// The question must not offer "don't ask again" (its rule would grant more than this call).
    pub suppress_always_allow_rule: bool,
    /// The `ask` rule that forced this question, when one did (`matched_ask_rule`): a person
    /// asked to be asked, so a host that approves calls by itself should leave this one to a
    /// person.
    pub matched_ask_rule: Option<MatchedAskRule>,
    /// Every field of the request, including those not typed here.
    pub raw: Map<String, Value>,
    /// The control request's id (TypeScript's `requestId`): what an answer given later through
    /// [`Controls::answer_permission`](crate::control::Controls::answer_permission) names, after
    /// the callback returned [`PermissionDecision::Later`]. `None` in a request built by
    /// [`PermissionRequest::new`].
    pub request_id: Option<String>,
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
            title: None,
            display_name: None,
            description: None,
            decision_reason: None,
            blocked_path: None,
            mcp_server: None,
            agent_id: None,
            default_to_no: false,
            suppress_always_allow_rule: false,
            matched_ask_rule: None,
            raw: Map::new(),
            request_id: None,
            cancellation: CancellationToken::new(),
        }
    }

    /// The same request, under the control request's id.
    pub(crate) fn with_request_id(mut self, request_id: &str) -> Self {
        self.request_id = Some(request_id.to_string());
        self
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
        let text = |key: &str| request.get(key).and_then(Value::as_str).map(String::from);
        let flag = |key: &str| request.get(key).and_then(Value::as_bool).unwrap_or(false);
        Self {
            tool_name,
            input,
            suggestions,
            tool_use_id: text("tool_use_id"),
            title: text("title"),
            display_name: text("display_name"),
            description: text("description"),
            decision_reason: text("decision_reason"),
            blocked_path: text("blocked_path"),
            mcp_server: request
                .get("mcp_server")
                .and_then(|server| serde_json::from_value(server.clone()).ok()),
            agent_id: text("agent_id"),
            default_to_no: flag("default_to_no"),
            suppress_always_allow_rule: flag("suppress_always_allow_rule"),
            // One that does not fit stays readable in `raw`.
            matched_ask_rule: request
                .get("matched_ask_rule")
                .and_then(|rule| serde_json::from_value(rule.clone()).ok()),
            raw: request,
            request_id: None,
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

    /// The input, typed by the tool's name: [`BuiltinToolInput::Bash`] for `Bash`…, and
    /// [`BuiltinToolInput::Other`] for an `mcp__…` tool or a tool this library does not know.
    /// An input that does not fit its tool's type is an error naming the field; [`input`](Self::input)
    /// still holds it as it came. See [`builtin_tools`](crate::builtin_tools) for a policy.
    ///
    /// ```
    /// use claude_tools::PermissionRequest;
    /// use claude_tools::builtin_tools::BuiltinToolInput;
    ///
    /// let request = PermissionRequest::new("Edit", serde_json::json!({
    ///     "file_path": "/etc/passwd", "old_string": "root", "new_string": "toor",
    /// }));
    /// let Ok(BuiltinToolInput::Edit(edit)) = request.builtin_input() else { panic!() };
    /// assert_eq!(edit.file_path, "/etc/passwd");
    /// ```
    pub fn builtin_input(&self) -> Result<BuiltinToolInput, ToolInputError> {
        BuiltinToolInput::parse(&self.tool_name, &self.input)
    }

    /// The input as `T`, when this request is about `T`'s tool (`None` for another tool).
    ///
    /// ```
    /// use claude_tools::PermissionRequest;
    /// use claude_tools::builtin_tools::{BashInput, WebFetchInput};
    ///
    /// let request = PermissionRequest::new("Bash", serde_json::json!({"command": "ls"}));
    /// assert_eq!(request.input_as::<BashInput>().unwrap().unwrap().command, "ls");
    /// assert!(request.input_as::<WebFetchInput>().is_none());
    /// ```
    pub fn input_as<T: BuiltinInput>(&self) -> Option<Result<T, ToolInputError>> {
        T::read_if(&self.tool_name, &self.input)
    }
}

/// The MCP server of an `mcp__*` tool a [`PermissionRequest`] is about.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct McpServerRef {
    /// The server's key: for `source` `sdk`, the name this host registered; for any other
    /// source, as authored in a configuration file (untrusted text: escape it before display).
    pub name: String,
    /// Where the server's definition came from: `sdk` (one of this host's in-process servers,
    /// which only the host can register), `plugin`, `user`, `project`, `local`, `dynamic`,
    /// `managed`…: base trust decisions on this, not on the name.
    pub source: String,
}

/// What a person's answer was, for the CLI's records ([`PermissionDecision::classified`]):
/// a host that asks a person says which it was.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum DecisionClassification {
    /// Allowed once.
    UserTemporary,
    /// Allowed from now on ("always allow", and its later uses).
    UserPermanent,
    /// Refused.
    UserReject,
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
        /// What kind of answer a person gave, when one did.
        classification: Option<DecisionClassification>,
    },
    /// Refuse: the model reads `message` as the tool's (error) result.
    Deny {
        /// Why, for the model.
        message: String,
        /// Also stop the whole turn.
        interrupt: bool,
        /// What kind of answer a person gave, when one did.
        classification: Option<DecisionClassification>,
    },
    /// No answer now: the host answers later, by the request's
    /// [`request_id`](PermissionRequest::request_id), through
    /// [`Controls::answer_permission`](crate::control::Controls::answer_permission) (TypeScript's
    /// `null` result, for hosts that relay the question over another channel). Until then the
    /// tool call waits; the CLI may withdraw the question meanwhile (an interrupt), and then no
    /// answer is taken.
    Later,
}

impl PermissionDecision {
    /// Allow with the model's input.
    pub fn allow() -> Self {
        PermissionDecision::Allow {
            updated_input: None,
            updated_permissions: Vec::new(),
            classification: None,
        }
    }

    /// Allow, running the tool with `input` instead.
    pub fn allow_with_input(input: Value) -> Self {
        PermissionDecision::Allow {
            updated_input: Some(input),
            updated_permissions: Vec::new(),
            classification: None,
        }
    }

    /// Allow, running the tool with a typed built-in input instead: usually the request's own,
    /// changed (`BashInput { command, ..bash }`), which keeps every field the model sent,
    /// those this library has no type for included.
    ///
    /// ```
    /// use claude_tools::PermissionDecision;
    /// use claude_tools::builtin_tools::BashInput;
    ///
    /// let decision = PermissionDecision::allow_with(BashInput {
    ///     command: "cargo test --offline".into(),
    ///     ..Default::default()
    /// });
    /// # let _ = decision;
    /// ```
    ///
    /// Should the input fail to serialize (the types here cannot, unless a value was put in
    /// `extra` that JSON cannot hold), the decision is a deny saying so: a rewrite that cannot
    /// be sent never lets the model's original input run.
    pub fn allow_with(input: impl Into<BuiltinToolInput>) -> Self {
        let input = input.into();
        match input.to_value() {
            Ok(value) => Self::allow_with_input(value),
            Err(error) => Self::deny(format!(
                "the {} input the host rewrote could not be serialized: {error}",
                input.tool_name()
            )),
        }
    }

    /// Answer later, through [`Controls::answer_permission`](crate::control::Controls::answer_permission)
    /// ([`PermissionDecision::Later`]).
    ///
    /// ```no_run
    /// use claude_tools::PermissionDecision;
    /// use claude_tools::options::Options;
    ///
    /// let (to_reviewer, _reviewer) = tokio::sync::mpsc::unbounded_channel();
    /// let options = Options::new().can_use_tool(move |request| {
    ///     // The reviewer's service answers with `answer_permission(request_id, …)`.
    ///     let _ = to_reviewer.send((request.request_id.clone(), request.tool_name.clone()));
    ///     async { PermissionDecision::later() }
    /// });
    /// # let _ = options;
    /// ```
    pub fn later() -> Self {
        PermissionDecision::Later
    }

    /// Deny with a message for the model.
    pub fn deny(message: impl Into<String>) -> Self {
        PermissionDecision::Deny {
            message: message.into(),
            interrupt: false,
            classification: None,
        }
    }

    /// Deny and interrupt the turn.
    pub fn deny_and_interrupt(message: impl Into<String>) -> Self {
        PermissionDecision::Deny {
            message: message.into(),
            interrupt: true,
            classification: None,
        }
    }

    /// The same decision, saying what kind of answer a person gave (sent as
    /// `decisionClassification`; the CLI records it, e.g. whether an allow was permanent).
    ///
    /// ```
    /// use claude_tools::{DecisionClassification, PermissionDecision};
    ///
    /// let once = PermissionDecision::allow().classified(DecisionClassification::UserTemporary);
    /// # let _ = once;
    /// ```
    pub fn classified(mut self, classification: DecisionClassification) -> Self {
        match &mut self {
            PermissionDecision::Allow {
                classification: slot,
                ..
            }
            | PermissionDecision::Deny {
                classification: slot,
                ..
            } => *slot = Some(classification),
            // Nothing is sent now; the answer given later says it.
            PermissionDecision::Later => {}
        }
        self
    }
}

/// The `ask` rule behind a [`PermissionRequest`] ([`matched_ask_rule`](PermissionRequest::matched_ask_rule)).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct MatchedAskRule {
    /// Where the rule was set (`userSettings`, `projectSettings`, `cliArg`…).
    pub source: String,
    /// The tool it names.
    pub tool_name: String,
    /// Its content (e.g. a command pattern), if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
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

    #[test]
    fn an_update_reads_its_behavior_and_destination_typed_and_keeps_new_values() {
        let known: PermissionUpdate = serde_json::from_value(json!({"type": "replaceRules",
            "rules": [{"toolName": "Bash", "ruleContent": "rm *"}],
            "behavior": "deny", "destination": "projectSettings"}))
        .unwrap();
        let PermissionUpdate::ReplaceRules {
            behavior,
            destination,
            ..
        } = &known
        else {
            unreachable!("{known:?}")
        };
        assert_eq!(behavior, &PermissionBehavior::Deny);
        assert_eq!(destination, &PermissionUpdateDestination::ProjectSettings);

        // A newer CLI's values parse, and are written back as they came.
        let newer = json!({"type": "addDirectories", "directories": ["/srv"],
            "destination": "organizationSettings"});
        let read: PermissionUpdate = serde_json::from_value(newer.clone()).unwrap();
        assert_eq!(
            read,
            PermissionUpdate::AddDirectories {
                directories: vec!["/srv".into()],
                destination: PermissionUpdateDestination::Other("organizationSettings".into()),
            }
        );
        assert_eq!(serde_json::to_value(&read).unwrap(), newer);
        let behavior: PermissionBehavior = serde_json::from_value(json!("allowOnce")).unwrap();
        assert_eq!(behavior, PermissionBehavior::Other("allowOnce".into()));
        assert_eq!(serde_json::to_value(&behavior).unwrap(), json!("allowOnce"));
    }

    #[test]
    fn a_request_reads_every_field_the_cli_sends() {
        // The fields of a CLI 2.1.332 `can_use_tool` (names as the TypeScript SDK reads them).
        let request = json!({
            "subtype": "can_use_tool",
            "tool_name": "mcp__demo__greet",
            "input": {"name": "Mallory"},
            "tool_use_id": "toolu_01",
            "mcp_server": {"name": "demo", "source": "sdk"},
            "display_name": "Greet",
            "title": "Claude wants to greet Mallory",
            "description": "Sends a greeting",
            "decision_reason": "no allow rule matches",
            "blocked_path": "/etc/shadow",
            "agent_id": "agent-7",
            "default_to_no": true,
            "suppress_always_allow_rule": true,
            "permission_suggestions": [{"type": "addRules", "rules": [{"toolName": "mcp__demo__greet"}],
                "behavior": "allow", "destination": "localSettings"}],
            "server_policy_ask_only": true,
            "matched_ask_rule": {"source": "projectSettings", "tool_name": "mcp__demo__greet",
                "rule_content": "Mallory"},
        });
        let Value::Object(request) = request else {
            unreachable!()
        };
        let read = PermissionRequest::from_request(request, CancellationToken::new());
        assert_eq!(read.tool_name, "mcp__demo__greet");
        assert_eq!(read.input, json!({"name": "Mallory"}));
        assert_eq!(read.tool_use_id.as_deref(), Some("toolu_01"));
        assert_eq!(
            read.mcp_server,
            Some(McpServerRef {
                name: "demo".into(),
                source: "sdk".into()
            })
        );
        assert_eq!(read.display_name.as_deref(), Some("Greet"));
        assert_eq!(read.title.as_deref(), Some("Claude wants to greet Mallory"));
        assert_eq!(read.description.as_deref(), Some("Sends a greeting"));
        assert_eq!(
            read.decision_reason.as_deref(),
            Some("no allow rule matches")
        );
        assert_eq!(read.blocked_path.as_deref(), Some("/etc/shadow"));
        assert_eq!(read.agent_id.as_deref(), Some("agent-7"));
        assert!(read.default_to_no);
        assert!(read.suppress_always_allow_rule);
        assert_eq!(read.suggestions.len(), 1);
        assert_eq!(
            read.matched_ask_rule,
            Some(MatchedAskRule {
                source: "projectSettings".into(),
                tool_name: "mcp__demo__greet".into(),
                rule_content: Some("Mallory".into()),
            })
        );
        // What is not typed stays readable.
        assert_eq!(read.raw["server_policy_ask_only"], true);
    }

    #[test]
    fn a_request_without_the_optional_fields_reads_as_absent() {
        let Value::Object(request) = json!({"tool_name": "Bash", "input": {"command": "ls"}})
        else {
            unreachable!()
        };
        let read = PermissionRequest::from_request(request, CancellationToken::new());
        assert_eq!(read.title, None);
        assert_eq!(read.mcp_server, None);
        assert!(!read.default_to_no);
        assert!(!read.suppress_always_allow_rule);
        assert_eq!(read.matched_ask_rule, None);
    }
}
