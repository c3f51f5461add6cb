//! The exact frames of every host request and answer, byte for byte.

use serde_json::json;

use super::*;
use crate::hooks::{HookEvent, HookInput, HookMatcher, HookOutput, OnFailure};
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
    format!(r#"{{"type":"control_request","request_id":"req_7_0badcafe","request":{body}}}"#) + "\n"
}

/// Every request, byte for byte: those the session wrote before the requests were typed as it
/// wrote them then (captured from the `json!` bodies this module replaced); the controls added
/// since (issue 21) with the TypeScript SDK's field names, which the CLI 2.1.332 answered
/// (`tests/fixtures/cli-2.1.332-control-answers.json`).
#[test]
fn every_host_request_is_written_byte_for_byte_as_before() {
    let served: BTreeSet<String> = ["notes", "calc", "q\"x"].map(String::from).into();
    let none = BTreeSet::new();
    let no_external = BTreeMap::new();
    // The settings of an in-process server, re-sent with it every time.
    let sdk_settings: BTreeMap<String, Map<String, Value>> = BTreeMap::from([(
        "calc".to_string(),
        Map::from_iter([("timeout".to_string(), json!(5000))]),
    )]);
    let external: BTreeMap<String, Value> = [
        (
            "ext".to_string(),
            json!({"type": "stdio", "command": "/bin/false", "args": []}),
        ),
        (
            "docs".to_string(),
            json!({"type": "http", "url": "http://127.0.0.1:1/mcp"}),
        ),
        // An in-process server's name wins: it is written once, as `sdk`.
        ("calc".to_string(), json!({"type": "stdio", "command": "x"})),
    ]
    .into();
    let flag_settings =
        json!({"model": "claude-haiku-4-5", "permissions": {"allow": ["Bash(ls)"]}});
    let progress = ServerNotification::Progress {
        token: claude_tools_core::mcp::ProgressToken(2.into()),
        progress: 0.5,
        total: Some(1.0),
        message: Some("half".into()),
    };
    let cases = [
        (
            HostRequest::Interrupt {
                cancel_queued: false,
            },
            r#"{"subtype":"interrupt"}"#,
        ),
        (
            HostRequest::Interrupt {
                cancel_queued: true,
            },
            r#"{"subtype":"interrupt","cancel_queued":true}"#,
        ),
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
            HostRequest::GetContextUsage { detail: None },
            r#"{"subtype":"get_context_usage"}"#,
        ),
        (
            HostRequest::RewindFiles {
                user_message_id: "u-\"1\"",
                dry_run: false,
            },
            r#"{"subtype":"rewind_files","user_message_id":"u-\"1\""}"#,
        ),
        (
            HostRequest::RewindFiles {
                user_message_id: "u-1",
                dry_run: true,
            },
            r#"{"subtype":"rewind_files","user_message_id":"u-1","dry_run":true}"#,
        ),
        (
            HostRequest::SetMaxThinkingTokens {
                max_thinking_tokens: Some(Some(1024)),
                thinking_display: None,
            },
            r#"{"subtype":"set_max_thinking_tokens","max_thinking_tokens":1024}"#,
        ),
        (
            HostRequest::SetMaxThinkingTokens {
                max_thinking_tokens: Some(None),
                thinking_display: None,
            },
            r#"{"subtype":"set_max_thinking_tokens","max_thinking_tokens":null}"#,
        ),
        (
            HostRequest::McpReconnect {
                server_name: "docs",
            },
            r#"{"subtype":"mcp_reconnect","serverName":"docs"}"#,
        ),
        (
            HostRequest::McpToggle {
                server_name: "calc",
                enabled: false,
            },
            r#"{"subtype":"mcp_toggle","serverName":"calc","enabled":false}"#,
        ),
        (
            HostRequest::McpToggle {
                server_name: "calc",
                enabled: true,
            },
            r#"{"subtype":"mcp_toggle","serverName":"calc","enabled":true}"#,
        ),
        (
            HostRequest::McpReadResource {
                server_name: "docs",
                uri: "ui://widget/chart",
            },
            r#"{"subtype":"mcp_read_resource","serverName":"docs","uri":"ui://widget/chart"}"#,
        ),
        (
            HostRequest::StopTask { task_id: "t-1" },
            r#"{"subtype":"stop_task","task_id":"t-1"}"#,
        ),
        (
            HostRequest::BackgroundTasks { tool_use_id: None },
            r#"{"subtype":"background_tasks"}"#,
        ),
        (
            HostRequest::BackgroundTasks {
                tool_use_id: Some("toolu_01"),
            },
            r#"{"subtype":"background_tasks","tool_use_id":"toolu_01"}"#,
        ),
        (
            HostRequest::ReloadPlugins {
                hold_on_cache_impact: false,
                add_plugins: &[],
                refuse_if_busy: false,
            },
            r#"{"subtype":"reload_plugins"}"#,
        ),
        (HostRequest::ReloadSkills, r#"{"subtype":"reload_skills"}"#),
        (
            HostRequest::ApplyFlagSettings {
                settings: &flag_settings,
            },
            r#"{"subtype":"apply_flag_settings","settings":{"model":"claude-haiku-4-5","permissions":{"allow":["Bash(ls)"]}}}"#,
        ),
        (
            HostRequest::McpSetServers {
                servers: SdkServers {
                    external: &external,
                    sdk: &served,
                    sdk_settings: &sdk_settings,
                },
            },
            concat!(
                r#"{"subtype":"mcp_set_servers","servers":{"#,
                r#""docs":{"type":"http","url":"http://127.0.0.1:1/mcp"},"#,
                r#""ext":{"type":"stdio","command":"/bin/false","args":[]},"#,
                r#""calc":{"type":"sdk","name":"calc","timeout":5000},"#,
                r#""notes":{"type":"sdk","name":"notes"},"q\"x":{"type":"sdk","name":"q\"x"}}}"#
            ),
        ),
        (
            HostRequest::McpSetServers {
                servers: SdkServers {
                    external: &no_external,
                    sdk: &served,
                    sdk_settings: &sdk_settings,
                },
            },
            concat!(
                r#"{"subtype":"mcp_set_servers","servers":{"calc":{"type":"sdk","name":"calc","timeout":5000},"#,
                r#""notes":{"type":"sdk","name":"notes"},"q\"x":{"type":"sdk","name":"q\"x"}}}"#
            ),
        ),
        (
            HostRequest::McpSetServers {
                servers: SdkServers {
                    external: &no_external,
                    sdk: &none,
                    sdk_settings: &BTreeMap::new(),
                },
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

/// `onFailure` goes with its matcher, as the TypeScript SDK writes it; a `block` one asks the
/// CLI to confirm it honours the option (`hook_on_failure_supported`), a `continue` one does not.
#[test]
fn initialize_sends_each_matchers_on_failure_and_a_block_needs_the_clis_confirmation() {
    let options = Options::new()
        .hook(
            HookEvent::PreToolUse,
            numbered(HookMatcher::new("Bash"), 0).on_failure(OnFailure::Block),
        )
        .hook(
            HookEvent::Stop,
            numbered(HookMatcher::any(), 1).on_failure(OnFailure::Continue),
        );
    let (line, _) = initialize(&options);
    assert_eq!(
        line,
        envelope(concat!(
            r#"{"subtype":"initialize","hooks":{"#,
            r#""PreToolUse":[{"matcher":"Bash","hookCallbackIds":["hook_0"],"onFailure":"block"}],"#,
            r#""Stop":[{"matcher":null,"hookCallbackIds":["hook_1"],"onFailure":"continue"}]}}"#
        ))
    );
    let (request, _) = InitializeRequest::new(&options);
    assert_eq!(
        request.fields_to_confirm(),
        [("onFailure", "hook_on_failure_supported")]
    );
    let lenient = Options::new().hook(
        HookEvent::Stop,
        numbered(HookMatcher::any(), 0).on_failure(OnFailure::Continue),
    );
    assert!(
        InitializeRequest::new(&lenient)
            .0
            .fields_to_confirm()
            .is_empty()
    );
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

#[test]
fn initialize_carries_skills_managed_settings_the_sandbox_and_sdk_server_settings() {
    use crate::options::{
        ManagedPermissions, ManagedSettings, McpServerSettings, SandboxSettings, Skills,
        ToolPermissionPolicy,
    };
    let options = Options::new()
        .skills(Skills::only(["pdf"]))
        .managed_settings(
            ManagedSettings::new().permissions(ManagedPermissions::new().deny(["WebFetch"])),
        )
        .sandbox(SandboxSettings::new().enabled(true))
        .mcp_server(ToolServer::new("notes", "2.0.0"))
        .mcp_server_settings(
            "notes",
            McpServerSettings::new()
                .timeout(std::time::Duration::from_secs(90))
                .tool_policy("erase", ToolPermissionPolicy::AlwaysDeny),
        )
        .handshake_manifests(true);
    let (request, _) = InitializeRequest::new(&options);
    assert_eq!(
        request.fields_to_confirm(),
        [
            ("settings", "settings_applied"),
            ("managedSettings", "managed_settings_applied")
        ]
    );
    let line = line_of(&HostRequest::Initialize(Box::new(request)));
    let manifest = serde_json::to_string(&claude_tools_core::mcp::handshake_manifest(
        &ToolServer::new("notes", "2.0.0"),
    ))
    .unwrap();
    // The keys of the TypeScript SDK's `initialize`, each where this request writes it.
    assert_eq!(
        line,
        envelope(&format!(
            concat!(
                r#"{{"subtype":"initialize","hooks":null,"sdkMcpServers":["notes"],"#,
                r#""sdkMcpServerManifests":{{"notes":{}}},"#,
                r#""settings":{{"sandbox":{{"enabled":true,"failIfUnavailable":true}}}},"#,
                r#""skills":["pdf"],"#,
                r#""managedSettings":{{"permissions":{{"deny":["WebFetch"]}}}},"#,
                r#""sdkMcpServerConfigs":{{"notes":{{"timeout":90000,"tools":[{{"name":"erase","permission_policy":"always_deny"}}]}}}}}}"#
            ),
            manifest
        ))
    );
}

#[test]
fn without_manifests_initialize_names_the_in_process_servers_with_tool_policies() {
    use crate::options::{McpServerSettings, ToolPermissionPolicy};
    // The CLI reads an in-process server's tool policies only from `initialize`; the server
    // stays in `--mcp-config` (with its timeout), and no manifest is sent.
    let options = Options::new()
        .mcp_server(ToolServer::new("notes", "2.0.0"))
        .mcp_server(ToolServer::new("plain", "1.0.0"))
        .mcp_server_settings(
            "notes",
            McpServerSettings::new()
                .timeout(std::time::Duration::from_secs(90))
                .tool_policy("erase", ToolPermissionPolicy::AlwaysDeny),
        );
    assert_eq!(
        initialize(&options).0,
        envelope(concat!(
            r#"{"subtype":"initialize","hooks":null,"sdkMcpServers":["notes"],"#,
            r#""sdkMcpServerConfigs":{"notes":{"timeout":90000,"#,
            r#""tools":[{"name":"erase","permission_policy":"always_deny"}]}}}"#
        ))
    );
}

fn payload<P: Serialize>(payload: &P) -> String {
    serde_json::to_string(payload).unwrap()
}

#[test]
fn permission_answers_are_written_as_the_python_sdk_writes_them() {
    let input = json!({"name": "Mallory"});
    let answer = |decision: &PermissionDecision| {
        payload(&PermissionAnswer::new(decision, &input).expect("an answer now"))
    };
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
    // A decision deferred to later has no answer now.
    assert!(PermissionAnswer::new(&PermissionDecision::later(), &input).is_none());
    assert_eq!(
        payload(&DialogAnswer::Completed {
            result: &json!({"choice": "retry"})
        }),
        r#"{"behavior":"completed","result":{"choice":"retry"}}"#
    );
    assert_eq!(
        payload(&DialogAnswer::Cancelled),
        r#"{"behavior":"cancelled"}"#
    );
}
