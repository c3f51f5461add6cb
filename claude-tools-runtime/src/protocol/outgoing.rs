//! What the host writes to the CLI: every control request it sends, as a typed value
//! ([`HostRequest`]), the envelopes around them, and the typed payloads of its answers to the
//! CLI's requests. Nothing here is built as a `Value` first: each frame is serialised straight
//! into the line that goes out, in the exact shape (and key order) the official SDKs write.

use std::collections::BTreeSet;

use serde::Serialize;
use serde::ser::{SerializeMap, Serializer};
use serde_json::{Map, Value};

use super::hook_id::HookCallbackId;
use crate::hooks::HookCallback;
use crate::options::{AgentDefinition, Options, PermissionMode};
use crate::permission::{DecisionClassification, PermissionDecision, PermissionUpdate};
use claude_tools_core::mcp::{HandshakeManifest, ServerNotification};

/// A control request of the host: the `request` of a `control_request`,
/// `{"subtype": …, …fields}`.
#[derive(Debug, Serialize)]
#[serde(tag = "subtype", rename_all = "snake_case")]
pub(crate) enum HostRequest<'a> {
    /// The session's start: hooks, agents and (opt-in) the in-process servers' handshakes.
    Initialize(Box<InitializeRequest<'a>>),
    /// Interrupt the current turn.
    Interrupt,
    /// Switch the model (`null`: the default model).
    SetModel { model: Option<&'a str> },
    /// Switch the permission mode.
    SetPermissionMode {
        #[serde(serialize_with = "permission_mode")]
        mode: PermissionMode,
    },
    /// The status of every MCP server.
    McpStatus,
    /// How the context window is used.
    GetContextUsage,
    /// Rewind files to their state at a user message.
    RewindFiles { user_message_id: &'a str },
    /// The in-process servers the CLI is to serve: the whole set, replacing the CLI's.
    McpSetServers { servers: SdkServers<'a> },
    /// A message an in-process server emits on its own (a notification), for the CLI's MCP
    /// client; the CLI merely acknowledges it.
    McpMessage {
        server_name: &'a str,
        message: &'a ServerNotification,
    },
}

impl HostRequest<'_> {
    /// The request's `subtype`, as errors about it name it.
    pub(crate) fn subtype(&self) -> &'static str {
        match self {
            HostRequest::Initialize(_) => "initialize",
            HostRequest::Interrupt => "interrupt",
            HostRequest::SetModel { .. } => "set_model",
            HostRequest::SetPermissionMode { .. } => "set_permission_mode",
            HostRequest::McpStatus => "mcp_status",
            HostRequest::GetContextUsage => "get_context_usage",
            HostRequest::RewindFiles { .. } => "rewind_files",
            HostRequest::McpSetServers { .. } => "mcp_set_servers",
            HostRequest::McpMessage { .. } => "mcp_message",
        }
    }
}

fn permission_mode<S: Serializer>(mode: &PermissionMode, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.serialize_str(mode.as_str())
}

/// The body of the host's `initialize` request: what the options hand over for the session's
/// start, with each hook callback under its [`HookCallbackId`].
#[derive(Debug, Serialize)]
pub(crate) struct InitializeRequest<'a> {
    /// By event, in the options' order (which is also the order of the ids); `null` without
    /// hooks, as the official SDKs write it.
    hooks: Option<Entries<&'a str, Vec<HookMatcherEntry<'a>>>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    agents: Option<Entries<&'a str, &'a AgentDefinition>>,
    /// With handshake manifests, the in-process servers are named here instead of in
    /// `--mcp-config`…
    #[serde(rename = "sdkMcpServers", skip_serializing_if = "Option::is_none")]
    sdk_mcp_servers: Option<Vec<&'a str>>,
    /// …with their MCP `initialize` and `tools/list` results.
    #[serde(
        rename = "sdkMcpServerManifests",
        skip_serializing_if = "Option::is_none"
    )]
    sdk_mcp_server_manifests: Option<Entries<&'a str, HandshakeManifest>>,
    /// The external MCP servers, with their `env` and `headers`, kept off the command line
    /// ([`ConfigDelivery::Initialize`](crate::options::ConfigDelivery::Initialize)).
    #[serde(rename = "mcpServers", skip_serializing_if = "Option::is_none")]
    mcp_servers: Option<Map<String, Value>>,
    /// Inline settings, kept off the command line the same way.
    #[serde(skip_serializing_if = "Option::is_none")]
    settings: Option<Map<String, Value>>,
}

/// One matcher of an event in `initialize`.
#[derive(Debug, Serialize)]
struct HookMatcherEntry<'a> {
    matcher: Option<&'a str>,
    #[serde(rename = "hookCallbackIds")]
    hook_callback_ids: Vec<HookCallbackId>,
    #[serde(skip_serializing_if = "Option::is_none")]
    timeout: Option<f64>,
}

impl<'a> InitializeRequest<'a> {
    /// What the CLI must confirm in its answer it took from this request (`<field>_applied`
    /// true), by the field's name in the request: the fields a CLI that predates them ignores.
    pub(crate) fn fields_to_confirm(&self) -> Vec<(&'static str, &'static str)> {
        let mut fields = Vec::new();
        if self.mcp_servers.is_some() {
            fields.push(("mcpServers", "mcp_servers_applied"));
        }
        if self.settings.is_some() {
            fields.push(("settings", "settings_applied"));
        }
        fields
    }

    /// The `initialize` body for `options`, and the hook callbacks in the order of their ids
    /// (`hook_0` is the first): the session answers `hook_callback` from that list.
    pub(crate) fn new(options: &'a Options) -> (Self, Vec<HookCallback>) {
        let mut callbacks = Vec::new();
        let hooks = (!options.hooks.is_empty()).then(|| {
            let events = options.hooks.iter().map(|(event, matchers)| {
                let entries = matchers
                    .iter()
                    .map(|matcher| HookMatcherEntry {
                        matcher: matcher.matcher.as_deref(),
                        hook_callback_ids: matcher
                            .callbacks
                            .iter()
                            .map(|callback| {
                                callbacks.push(callback.clone());
                                HookCallbackId::new(callbacks.len() - 1)
                            })
                            .collect(),
                        timeout: matcher.timeout_secs,
                    })
                    .collect();
                (event.as_str(), entries)
            });
            Entries(events.collect())
        });
        let agents = (!options.agents.is_empty()).then(|| {
            let agents = options
                .agents
                .iter()
                .map(|(name, agent)| (name.as_str(), agent));
            Entries(agents.collect())
        });
        let manifests = options.handshake_manifests && !options.servers.is_empty();
        let sdk_mcp_servers =
            manifests.then(|| options.servers.iter().map(|server| server.name()).collect());
        let sdk_mcp_server_manifests = manifests.then(|| {
            let manifests = options.servers.iter().map(|server| {
                let manifest = claude_tools_core::mcp::handshake_manifest(server);
                (server.name(), manifest)
            });
            Entries(manifests.collect())
        });
        let request = InitializeRequest {
            hooks,
            agents,
            sdk_mcp_servers,
            sdk_mcp_server_manifests,
            mcp_servers: options.initialize_mcp_servers(),
            settings: options.initialize_settings(),
        };
        (request, callbacks)
    }
}

/// Key–value pairs written as a JSON object, in their order.
#[derive(Debug)]
struct Entries<K, V>(Vec<(K, V)>);

impl<K: Serialize, V: Serialize> Serialize for Entries<K, V> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_map(self.0.iter().map(|(key, value)| (key, value)))
    }
}

/// The in-process servers of `mcp_set_servers`: `{name: {"type": "sdk", "name": name}, …}`.
#[derive(Debug)]
pub(crate) struct SdkServers<'a>(pub(crate) &'a BTreeSet<String>);

impl Serialize for SdkServers<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        #[derive(Serialize)]
        struct SdkServer<'a> {
            #[serde(rename = "type")]
            kind: &'static str,
            name: &'a str,
        }
        let mut map = serializer.serialize_map(Some(self.0.len()))?;
        for name in self.0 {
            map.serialize_entry(name, &SdkServer { kind: "sdk", name })?;
        }
        map.end()
    }
}

/// `{"type":"control_request","request_id":…,"request":…}`
#[derive(Serialize)]
struct ControlRequest<'a, B: ?Sized> {
    #[serde(rename = "type")]
    kind: &'static str,
    request_id: &'a str,
    request: &'a B,
}

/// `{"type":"control_cancel_request","request_id":…}`
#[derive(Serialize)]
struct ControlCancelRequest<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    request_id: &'a str,
}

/// Appends the line `{"type":"control_request","request_id":…,"request":<body>}`: `body` is a
/// [`HostRequest`], or the JSON of `Client::control_request`.
pub(crate) fn request_line<B: Serialize + ?Sized>(out: &mut Vec<u8>, request_id: &str, body: &B) {
    let frame = ControlRequest {
        kind: "control_request",
        request_id,
        request: body,
    };
    super::write_json(out, &frame);
    out.push(b'\n');
}

/// Appends the line `{"type":"control_cancel_request","request_id":…}`: the host withdraws a
/// request of its own.
pub(crate) fn cancel_line(out: &mut Vec<u8>, request_id: &str) {
    let frame = ControlCancelRequest {
        kind: "control_cancel_request",
        request_id,
    };
    super::write_json(out, &frame);
    out.push(b'\n');
}

/// The answer to `can_use_tool`, as the official Python SDK writes it: `updatedInput` is always
/// present on allow (the original input when the callback did not change it), and
/// `updatedPermissions` / `interrupt` only when they say something.
#[derive(Debug, Serialize)]
#[serde(tag = "behavior", rename_all = "lowercase")]
pub(crate) enum PermissionAnswer<'a> {
    Allow {
        #[serde(rename = "updatedInput")]
        updated_input: &'a Value,
        #[serde(rename = "updatedPermissions", skip_serializing_if = "no_updates")]
        updated_permissions: &'a [PermissionUpdate],
        #[serde(
            rename = "decisionClassification",
            skip_serializing_if = "Option::is_none"
        )]
        classification: Option<DecisionClassification>,
    },
    Deny {
        message: &'a str,
        #[serde(skip_serializing_if = "is_false")]
        interrupt: bool,
        #[serde(
            rename = "decisionClassification",
            skip_serializing_if = "Option::is_none"
        )]
        classification: Option<DecisionClassification>,
    },
}

fn no_updates(updates: &&[PermissionUpdate]) -> bool {
    updates.is_empty()
}

fn is_false(value: &bool) -> bool {
    !*value
}

impl<'a> PermissionAnswer<'a> {
    /// The answer carrying `decision` about a request whose input was `original_input`.
    pub(crate) fn new(decision: &'a PermissionDecision, original_input: &'a Value) -> Self {
        match decision {
            PermissionDecision::Allow {
                updated_input,
                updated_permissions,
                classification,
            } => PermissionAnswer::Allow {
                updated_input: updated_input.as_ref().unwrap_or(original_input),
                updated_permissions,
                classification: *classification,
            },
            PermissionDecision::Deny {
                message,
                interrupt,
                classification,
            } => PermissionAnswer::Deny {
                message,
                interrupt: *interrupt,
                classification: *classification,
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::hooks::{HookEvent, HookInput, HookMatcher, HookOutput};
    use crate::permission::PermissionRule;
    use claude_tools_core::tool::ToolServer;

    /// The line `request_line` writes for `body` under the request id `req_7_0badcafe`.
    fn line_of<B: Serialize + ?Sized>(body: &B) -> String {
        let mut out = Vec::new();
        request_line(&mut out, "req_7_0badcafe", body);
        String::from_utf8(out).unwrap()
    }

    /// `{"type":"control_request","request_id":"req_7_0badcafe","request":<body>}` and a newline.
    fn envelope(body: &str) -> String {
        format!(r#"{{"type":"control_request","request_id":"req_7_0badcafe","request":{body}}}"#)
            + "\n"
    }

    /// Every request as the session wrote it before the requests were typed, byte for byte
    /// (captured from the `json!` bodies this module replaced).
    #[test]
    fn every_host_request_is_written_byte_for_byte_as_before() {
        let served: BTreeSet<String> = ["notes", "calc", "q\"x"].map(String::from).into();
        let none = BTreeSet::new();
        let progress = ServerNotification::Progress {
            token: claude_tools_core::mcp::ProgressToken(2.into()),
            progress: 0.5,
            total: Some(1.0),
            message: Some("half".into()),
        };
        let cases = [
            (HostRequest::Interrupt, r#"{"subtype":"interrupt"}"#),
            (
                HostRequest::SetModel {
                    model: Some("claude-haiku-4-5"),
                },
                r#"{"subtype":"set_model","model":"claude-haiku-4-5"}"#,
            ),
            (
                HostRequest::SetModel { model: None },
                r#"{"subtype":"set_model","model":null}"#,
            ),
            (HostRequest::McpStatus, r#"{"subtype":"mcp_status"}"#),
            (
                HostRequest::GetContextUsage,
                r#"{"subtype":"get_context_usage"}"#,
            ),
            (
                HostRequest::RewindFiles {
                    user_message_id: "u-\"1\"",
                },
                r#"{"subtype":"rewind_files","user_message_id":"u-\"1\""}"#,
            ),
            (
                HostRequest::McpSetServers {
                    servers: SdkServers(&served),
                },
                concat!(
                    r#"{"subtype":"mcp_set_servers","servers":{"calc":{"type":"sdk","name":"calc"},"#,
                    r#""notes":{"type":"sdk","name":"notes"},"q\"x":{"type":"sdk","name":"q\"x"}}}"#
                ),
            ),
            (
                HostRequest::McpSetServers {
                    servers: SdkServers(&none),
                },
                r#"{"subtype":"mcp_set_servers","servers":{}}"#,
            ),
            (
                HostRequest::McpMessage {
                    server_name: "calc",
                    message: &progress,
                },
                concat!(
                    r#"{"subtype":"mcp_message","server_name":"calc","message":{"jsonrpc":"2.0","#,
                    r#""method":"notifications/progress","params":{"progressToken":2,"progress":0.5,"#,
                    r#""total":1.0,"message":"half"}}}"#
                ),
            ),
        ];
        for (request, body) in cases {
            assert_eq!(line_of(&request), envelope(body));
            let written: Value = serde_json::from_str(body).unwrap();
            assert_eq!(written["subtype"], request.subtype(), "{body}");
        }
        let modes = [
            (PermissionMode::Default, "default"),
            (PermissionMode::AcceptEdits, "acceptEdits"),
            (PermissionMode::Plan, "plan"),
            (PermissionMode::BypassPermissions, "bypassPermissions"),
            (PermissionMode::DontAsk, "dontAsk"),
            (PermissionMode::Auto, "auto"),
        ];
        for (mode, name) in modes {
            let request = HostRequest::SetPermissionMode { mode };
            assert_eq!(request.subtype(), "set_permission_mode");
            assert_eq!(
                line_of(&request),
                envelope(&format!(
                    r#"{{"subtype":"set_permission_mode","mode":"{name}"}}"#
                ))
            );
        }
        // The escape hatch's JSON goes out as it is.
        let raw = json!({"subtype": "stop_task", "task_id": "t-1"});
        assert_eq!(
            line_of(&raw),
            envelope(r#"{"subtype":"stop_task","task_id":"t-1"}"#)
        );
        let mut out = Vec::new();
        cancel_line(&mut out, "req_7_0badcafe");
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "{\"type\":\"control_cancel_request\",\"request_id\":\"req_7_0badcafe\"}\n"
        );
    }

    /// The `initialize` line for `options`, and its hook callbacks.
    fn initialize(options: &Options) -> (String, Vec<HookCallback>) {
        let (request, callbacks) = InitializeRequest::new(options);
        (
            line_of(&HostRequest::Initialize(Box::new(request))),
            callbacks,
        )
    }

    #[test]
    fn initialize_without_hooks_says_null_and_names_no_server() {
        let plain = envelope(r#"{"subtype":"initialize","hooks":null}"#);
        assert_eq!(initialize(&Options::new()).0, plain);
        // Without manifests, in-process servers are named in `--mcp-config`, not here.
        let servers = Options::new().mcp_server(ToolServer::new("notes", "2.0.0"));
        assert_eq!(initialize(&servers).0, plain);
        assert!(initialize(&servers).1.is_empty());
    }

    /// A hook callback that answers `{"systemMessage": <n>}`, to tell the callbacks apart.
    fn numbered(matcher: HookMatcher, n: u32) -> HookMatcher {
        matcher.callback(move |_| async move { HookOutput::new().system_message(n.to_string()) })
    }

    #[tokio::test]
    async fn initialize_names_each_hook_callback_by_its_id_in_the_order_of_the_events() {
        let options = Options::new()
            .hook(
                HookEvent::PreToolUse,
                numbered(HookMatcher::new("Bash"), 2).timeout_secs(5.0),
            )
            .hook(
                HookEvent::PostToolUse,
                numbered(numbered(HookMatcher::any(), 0), 1),
            )
            .hook(
                HookEvent::Other("Zeta".into()),
                HookMatcher::new("x\"y").timeout_secs(0.25),
            )
            .agent(
                "reviewer",
                AgentDefinition::new("Reviews code", "You review.").tools(["Read"]),
            )
            .agent(
                "author",
                AgentDefinition::new("Writes", "You write.").model("haiku"),
            )
            .agent("empty-tools", AgentDefinition::new("d", "p").tools([]));
        let (line, callbacks) = initialize(&options);
        assert_eq!(
            line,
            envelope(concat!(
                r#"{"subtype":"initialize","hooks":{"#,
                r#""PostToolUse":[{"matcher":null,"hookCallbackIds":["hook_0","hook_1"]}],"#,
                r#""PreToolUse":[{"matcher":"Bash","hookCallbackIds":["hook_2"],"timeout":5.0}],"#,
                r#""Zeta":[{"matcher":"x\"y","hookCallbackIds":[],"timeout":0.25}]},"#,
                r#""agents":{"author":{"description":"Writes","prompt":"You write.","model":"haiku"},"#,
                r#""empty-tools":{"description":"d","prompt":"p","tools":[]},"#,
                r#""reviewer":{"description":"Reviews code","prompt":"You review.","tools":["Read"]}}}"#
            ))
        );
        // `hook_N` is the N-th callback of the list the session answers from.
        assert_eq!(callbacks.len(), 3);
        for (n, callback) in callbacks.iter().enumerate() {
            let input = HookInput::new(Default::default(), None, Default::default());
            let output = callback.call(input).await.to_json("PreToolUse");
            assert_eq!(output, json!({"systemMessage": n.to_string()}));
        }
    }

    #[test]
    fn initialize_hands_over_the_handshake_manifests_when_asked() {
        let calc = ToolServer::new("calc", "1.0.0")
            .with_typed_tool("pi", || async { "3.14" })
            .unwrap();
        let notes = ToolServer::new("notes", "2.0.0");
        let manifest = |server: &ToolServer| {
            serde_json::to_string(&claude_tools_core::mcp::handshake_manifest(server)).unwrap()
        };
        let expected = envelope(&format!(
            concat!(
                r#"{{"subtype":"initialize","hooks":null,"sdkMcpServers":["calc","notes"],"#,
                r#""sdkMcpServerManifests":{{"calc":{},"notes":{}}}}}"#
            ),
            manifest(&calc),
            manifest(&notes)
        ));
        let options = Options::new()
            .mcp_server(calc)
            .mcp_server(notes)
            .handshake_manifests(true);
        assert_eq!(initialize(&options).0, expected);
        // The manifest is the router's own answers (pinned where they are built).
        assert!(
            expected.contains(r#""calc":{"initializeResult":{"protocolVersion":"#),
            "{expected}"
        );
        // Manifests asked for, but no in-process server: nothing to hand over.
        assert_eq!(
            initialize(&Options::new().handshake_manifests(true)).0,
            envelope(r#"{"subtype":"initialize","hooks":null}"#)
        );
    }

    fn payload<P: Serialize>(payload: &P) -> String {
        serde_json::to_string(payload).unwrap()
    }

    #[test]
    fn permission_answers_are_written_as_the_python_sdk_writes_them() {
        let input = json!({"name": "Mallory"});
        let answer =
            |decision: &PermissionDecision| payload(&PermissionAnswer::new(decision, &input));
        assert_eq!(
            answer(&PermissionDecision::allow()),
            r#"{"behavior":"allow","updatedInput":{"name":"Mallory"}}"#
        );
        assert_eq!(
            answer(&PermissionDecision::allow_with_input(
                json!({"name": "Mallory (approved)"})
            )),
            r#"{"behavior":"allow","updatedInput":{"name":"Mallory (approved)"}}"#
        );
        let remember = PermissionDecision::Allow {
            updated_input: None,
            updated_permissions: vec![PermissionUpdate::AddRules {
                rules: vec![PermissionRule {
                    tool_name: "Bash".into(),
                    rule_content: Some("git *".into()),
                }],
                behavior: "allow".into(),
                destination: "session".into(),
            }],
            classification: None,
        };
        assert_eq!(
            answer(&remember),
            concat!(
                r#"{"behavior":"allow","updatedInput":{"name":"Mallory"},"updatedPermissions":"#,
                r#"[{"type":"addRules","rules":[{"toolName":"Bash","ruleContent":"git *"}],"#,
                r#""behavior":"allow","destination":"session"}]}"#
            )
        );
        assert_eq!(
            answer(&PermissionDecision::deny("Greeting Mallory is not allowed")),
            r#"{"behavior":"deny","message":"Greeting Mallory is not allowed"}"#
        );
        assert_eq!(
            answer(&PermissionDecision::deny_and_interrupt("stop")),
            r#"{"behavior":"deny","message":"stop","interrupt":true}"#
        );
        // What kind of answer a person gave, as the CLI's schema names it.
        assert_eq!(
            answer(&PermissionDecision::allow().classified(DecisionClassification::UserPermanent)),
            r#"{"behavior":"allow","updatedInput":{"name":"Mallory"},"decisionClassification":"user_permanent"}"#
        );
        assert_eq!(
            answer(&PermissionDecision::deny("no").classified(DecisionClassification::UserReject)),
            r#"{"behavior":"deny","message":"no","decisionClassification":"user_reject"}"#
        );
        assert_eq!(
            answer(&PermissionDecision::allow().classified(DecisionClassification::UserTemporary)),
            r#"{"behavior":"allow","updatedInput":{"name":"Mallory"},"decisionClassification":"user_temporary"}"#
        );
    }
}
