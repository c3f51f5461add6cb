//! The session engine against a scripted CLI (an in-memory transport): every test plays the
//! CLI's side of the wire and asserts the exact JSON the host writes back.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use claude_tools_core::tool::{ToolCall, ToolDefBuilder, ToolError, ToolServer};
use claude_tools_runtime::Error;
use claude_tools_runtime::client::Client;
use claude_tools_runtime::hooks::{HookEvent, HookMatcher, HookOutput};
use claude_tools_runtime::message::Message;
use claude_tools_runtime::options::Options;
use claude_tools_runtime::permission::PermissionDecision;
use claude_tools_runtime::query::query_with;
use claude_tools_runtime::transport::MemoryTransport;
use serde_json::{Value, json};

mod common;

use common::{Cli, Connecting, next_item, result_frame, string_argument, u64_argument};

/// What the tools saw, for assertions.
#[derive(Default)]
struct Log(Mutex<Vec<String>>);

impl Log {
    fn push(&self, entry: impl Into<String>) {
        self.0.lock().unwrap().push(entry.into());
    }
    fn entries(&self) -> Vec<String> {
        self.0.lock().unwrap().clone()
    }
}

fn calc_server(log: Arc<Log>) -> ToolServer {
    let mut add = ToolDefBuilder::new("add");
    add.description("Add two integers").read_only(true);
    add.input()
        .property::<i64>("a", None, true)
        .property::<i64>("b", None, true);
    let mut slow = ToolDefBuilder::new("slow");
    slow.input()
        .property::<u64>("ms", None, true)
        .property::<String>("tag", None, true);
    ToolServer::new("calc", "1.0.0")
        .with_shared_state(log)
        .with_tool(add, |mut call: ToolCall| {
            let a = call.take_argument("a").and_then(|v| v.as_i64());
            let b = call.take_argument("b").and_then(|v| v.as_i64());
            let log = call.state::<Log>();
            let tool_use_id = call.context().tool_use_id().map(String::from);
            async move {
                if let (Some(log), Some(id)) = (log, tool_use_id) {
                    log.push(format!("add {id}"));
                }
                match (a, b) {
                    (Some(a), Some(b)) => Ok((a + b).to_string()),
                    _ => Err(ToolError::new("a and b must be integers")),
                }
            }
        })
        .unwrap()
        .with_tool(slow, |mut call: ToolCall| {
            let ms = u64_argument(&mut call, "ms");
            let tag = string_argument(&mut call, "tag");
            let log = call.state::<Log>().unwrap();
            let context = call.context().clone();
            async move {
                log.push(format!("start {tag}"));
                tokio::select! {
                    _ = tokio::time::sleep(Duration::from_millis(ms)) => {
                        log.push(format!("done {tag}"));
                        format!("slept {ms} ms")
                    }
                    _ = context.cancelled() => {
                        log.push(format!("cancelled {tag}"));
                        "cancelled".to_string()
                    }
                }
            }
        })
        .unwrap()
}

/// The CLI's MCP steps with the `calc` server.
impl Cli {
    async fn mcp(&mut self, request_id: &str, message: Value) -> Value {
        self.send(json!({"type": "control_request", "request_id": request_id,
            "request": {"subtype": "mcp_message", "server_name": "calc", "message": message}}))
            .await;
        let reply = self.recv().await;
        assert_eq!(reply["response"]["request_id"], request_id, "reply {reply}");
        assert_eq!(reply["response"]["subtype"], "success", "reply {reply}");
        reply["response"]["response"]["mcp_response"].clone()
    }

    /// The startup the real CLI performs: the host's initialize, the MCP initialize *before*
    /// the initialize answer, then the answer.
    async fn startup(&mut self) -> Value {
        let initialize = self.recv().await;
        let request_id = initialize["request_id"].as_str().unwrap().to_string();
        let init = self
            .mcp(
                "m-init",
                json!({"method": "initialize", "params": {"protocolVersion": "2025-11-25",
                "capabilities": {}, "clientInfo": {"name": "claude-code", "version": "2.1.330"}},
                "jsonrpc": "2.0", "id": 0}),
            )
            .await;
        assert_eq!(
            init,
            json!({"jsonrpc": "2.0", "id": 0, "result": {"capabilities": {"tools": {"listChanged": false}, "logging": {}},
                "protocolVersion": "2025-11-25", "serverInfo": {"name": "calc", "version": "1.0.0"}}})
        );
        self.send(
            json!({"type": "control_response", "response": {"subtype": "success",
            "request_id": request_id, "response": {"claude_code_version": "2.1.330", "pid": 42}}}),
        )
        .await;
        initialize
    }

    async fn tools_call(
        &mut self,
        request_id: &str,
        id: u64,
        name: &str,
        arguments: Value,
    ) -> Value {
        self.mcp(request_id, json!({"method": "tools/call", "params": {"name": name, "arguments": arguments,
            "_meta": {"claudecode/toolUseId": format!("toolu_{id}"), "progressToken": id}}, "jsonrpc": "2.0", "id": id}))
            .await
    }
}

async fn connect(options: Options) -> (Client, Cli) {
    let (connecting, mut cli) = Connecting::start(options);
    let initialize = cli.startup().await;
    assert_eq!(
        initialize["request"],
        json!({"subtype": "initialize", "hooks": null})
    );
    (connecting.client().await, cli)
}

/// Connects a client with no in-process server: the CLI answers `initialize` right away.
/// Returns the host's `initialize` request too.
async fn connect_without_servers(options: Options) -> (Client, Cli, Value) {
    let (connecting, mut cli) = Connecting::start(options);
    let initialize = cli.recv().await;
    cli.answer(&initialize, json!({})).await;
    (connecting.client().await, cli, initialize)
}

#[tokio::test]
async fn startup_serves_mcp_before_initialize_is_answered_and_passes_the_flags() {
    let log = Arc::new(Log::default());
    let (transport, cli) = MemoryTransport::pair();
    let mut cli = Cli(cli);
    let options = Options::new()
        .mcp_server(calc_server(log))
        .allowed_tools(["mcp__calc__add"]);
    let client = tokio::spawn(Client::connect_with(options, transport));
    let initialize = cli.startup().await;
    assert_eq!(initialize["type"], "control_request");
    let client = client.await.unwrap().unwrap();
    assert_eq!(
        client.server_info(),
        &json!({"claude_code_version": "2.1.330", "pid": 42})
    );

    let launch = cli.0.launch_spec().unwrap();
    assert_eq!(
        launch.args,
        [
            "--output-format",
            "stream-json",
            "--verbose",
            "--system-prompt",
            "",
            "--allowedTools",
            "mcp__calc__add",
            "--mcp-config",
            r#"{"mcpServers":{"calc":{"type":"sdk","name":"calc"}}}"#,
            "--input-format",
            "stream-json",
        ]
    );
    assert!(
        launch
            .env
            .contains(&("CLAUDE_CODE_ENTRYPOINT".into(), "sdk-cli".into()))
    );
    assert!(
        launch
            .env
            .contains(&("CLAUDE_CODE_SDK_READS_SESSION_STATE".into(), "1".into()))
    );
}

#[tokio::test]
async fn full_handshake_and_a_tool_call_with_state() {
    let log = Arc::new(Log::default());
    let (mut client, mut cli) = connect(Options::new().mcp_server(calc_server(log.clone()))).await;
    client.query("add 2 and 3").await.unwrap();
    assert_eq!(
        cli.recv().await,
        json!({"type": "user", "session_id": "default", "message": {"role": "user", "content": "add 2 and 3"},
            "parent_tool_use_id": null})
    );
    let ack = cli
        .mcp(
            "m-note",
            json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        )
        .await;
    assert_eq!(ack, json!({"jsonrpc": "2.0", "result": {}}));
    let list = cli
        .mcp(
            "m-list",
            json!({"method": "tools/list", "jsonrpc": "2.0", "id": 1}),
        )
        .await;
    assert_eq!(list["id"], 1);
    let names: Vec<&str> = list["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["add", "slow"]);
    let result = cli
        .tools_call("m-call", 2, "add", json!({"a": 2, "b": 3}))
        .await;
    assert_eq!(
        result,
        json!({"jsonrpc": "2.0", "id": 2, "result": {"content": [{"type": "text", "text": "5"}], "isError": false}})
    );
    assert_eq!(log.entries(), ["add toolu_2"]);

    cli.send(json!({"type": "assistant", "message": {"id": "msg_1", "role": "assistant", "model": "m",
        "content": [{"type": "text", "text": "It is 5."}]}, "parent_tool_use_id": null, "session_id": "s1"}))
        .await;
    cli.send(result_frame()).await;
    let messages = client.receive_response().await.unwrap();
    assert_eq!(messages.len(), 2);
    assert!(matches!(messages[0], Message::Assistant(_)));
    assert!(matches!(messages[1], Message::Result(_)));
}

#[tokio::test]
async fn a_slow_call_does_not_delay_a_fast_one() {
    let log = Arc::new(Log::default());
    let (_client, mut cli) = connect(Options::new().mcp_server(calc_server(log.clone()))).await;
    let slow = json!({"type": "control_request", "request_id": "m-slow", "request": {"subtype": "mcp_message",
        "server_name": "calc", "message": {"method": "tools/call", "params": {"name": "slow",
        "arguments": {"ms": 400, "tag": "first"}}, "jsonrpc": "2.0", "id": 2}}});
    let fast = json!({"type": "control_request", "request_id": "m-fast", "request": {"subtype": "mcp_message",
        "server_name": "calc", "message": {"method": "tools/call", "params": {"name": "add",
        "arguments": {"a": 1, "b": 1}}, "jsonrpc": "2.0", "id": 3}}});
    cli.send(slow).await;
    cli.send(fast).await;
    let first = cli.recv().await;
    let second = cli.recv().await;
    assert_eq!(first["response"]["request_id"], "m-fast");
    assert_eq!(
        first["response"]["response"]["mcp_response"]["result"]["content"][0]["text"],
        "2"
    );
    assert_eq!(second["response"]["request_id"], "m-slow");
    assert_eq!(
        second["response"]["response"]["mcp_response"]["result"]["content"][0]["text"],
        "slept 400 ms"
    );
    assert_eq!(log.entries(), ["start first", "done first"]);
}

#[tokio::test]
async fn notifications_cancelled_stops_a_running_tool_which_answers_32800() {
    let log = Arc::new(Log::default());
    let (_client, mut cli) = connect(Options::new().mcp_server(calc_server(log.clone()))).await;
    cli.send(json!({"type": "control_request", "request_id": "m-slow", "request": {"subtype": "mcp_message",
        "server_name": "calc", "message": {"method": "tools/call", "params": {"name": "slow",
        "arguments": {"ms": 10000, "tag": "long"}}, "jsonrpc": "2.0", "id": 7}}}))
        .await;
    tokio::time::sleep(Duration::from_millis(100)).await;
    let ack = cli
        .mcp(
            "m-cancel",
            json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
            "params": {"requestId": 7, "reason": "AbortError: remote-cancel"}}),
        )
        .await;
    assert_eq!(ack, json!({"jsonrpc": "2.0", "result": {}}));
    let answer = cli.recv().await;
    assert_eq!(
        answer,
        json!({"type": "control_response", "response": {"subtype": "success", "request_id": "m-slow",
            "response": {"mcp_response": {"jsonrpc": "2.0", "id": 7,
                "error": {"code": -32800, "message": "Request cancelled"}}}}})
    );
    assert_eq!(
        log.entries(),
        ["start long", "cancelled long"],
        "the handler saw the cancellation"
    );
}

#[tokio::test]
async fn can_use_tool_allows_with_updated_input_denies_and_cancels_silently() {
    let options = Options::new().can_use_tool(|request| async move {
        match request.input["name"].as_str() {
            Some("Mallory") => PermissionDecision::deny("Greeting Mallory is not allowed"),
            Some("Wait") => {
                request.cancellation_token().cancelled().await;
                PermissionDecision::allow()
            }
            Some(name) => {
                PermissionDecision::allow_with_input(json!({"name": format!("{name} (approved)")}))
            }
            None => PermissionDecision::allow(),
        }
    });
    let (_client, mut cli, _) = connect_without_servers(options).await;
    assert!(
        cli.0
            .launch_spec()
            .unwrap()
            .args
            .windows(2)
            .any(|w| w == ["--permission-prompt-tool", "stdio"])
    );

    let ask = |id: &str, name: &str| {
        json!({"type": "control_request", "request_id": id, "request": {"subtype": "can_use_tool",
            "tool_name": "mcp__demo__greet", "input": {"name": name}, "permission_suggestions": [],
            "tool_use_id": format!("toolu_{id}")}})
    };
    cli.send(ask("p1", "Alice")).await;
    assert_eq!(
        cli.recv().await,
        json!({"type": "control_response", "response": {"subtype": "success", "request_id": "p1",
            "response": {"behavior": "allow", "updatedInput": {"name": "Alice (approved)"}}}})
    );
    cli.send(ask("p2", "Mallory")).await;
    assert_eq!(
        cli.recv().await,
        json!({"type": "control_response", "response": {"subtype": "success", "request_id": "p2",
            "response": {"behavior": "deny", "message": "Greeting Mallory is not allowed"}}})
    );
    cli.send(ask("p3", "Wait")).await;
    tokio::time::sleep(Duration::from_millis(50)).await;
    cli.send(json!({"type": "control_cancel_request", "request_id": "p3"}))
        .await;
    cli.silent_for(300).await;
}

#[tokio::test]
async fn hooks_are_registered_in_initialize_and_answered() {
    let options = Options::new().hook(
        HookEvent::PreToolUse,
        HookMatcher::new("mcp__calc__.*").callback(|input| async move {
            if input.tool_input().and_then(|i| i["a"].as_i64()) == Some(13) {
                HookOutput::new().deny_tool("13 is unlucky")
            } else {
                HookOutput::new()
            }
        }),
    );
    let (_client, mut cli, initialize) = connect_without_servers(options).await;
    assert_eq!(
        initialize["request"],
        json!({"subtype": "initialize", "hooks": {"PreToolUse": [{"matcher": "mcp__calc__.*", "hookCallbackIds": ["hook_0"]}]}})
    );
    let call = |id: &str, callback: &str, a: i64| {
        json!({"type": "control_request", "request_id": id, "request": {"subtype": "hook_callback",
            "callback_id": callback, "input": {"hook_event_name": "PreToolUse", "tool_name": "mcp__calc__add",
            "tool_input": {"a": a, "b": 1}, "tool_use_id": "toolu_9"}, "tool_use_id": "toolu_9"}})
    };
    cli.send(call("h1", "hook_0", 13)).await;
    assert_eq!(
        cli.recv().await,
        json!({"type": "control_response", "response": {"subtype": "success", "request_id": "h1",
            "response": {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny",
                "permissionDecisionReason": "13 is unlucky"}}}})
    );
    cli.send(call("h2", "hook_0", 1)).await;
    assert_eq!(
        cli.recv().await,
        json!({"type": "control_response", "response": {"subtype": "success", "request_id": "h2", "response": {}}})
    );
    cli.send(call("h3", "hook_7", 1)).await;
    assert_eq!(
        cli.recv().await,
        json!({"type": "control_response", "response": {"subtype": "error", "request_id": "h3",
            "error": "No hook callback found for ID: hook_7"}})
    );
}

/// The `hook_callback` request the CLI 2.1.332 wrote for a `PreSkillShellCommand` hook: a
/// project command `/stamp` whose text runs `` !`touch ran.txt && echo stamped` ``.
const PRE_SKILL_SHELL_COMMAND_REQUEST: &str = r#"{"type":"control_request","request_id":"fc826cfe-bc2a-43d9-ae9c-60135f3de9cf","request":{"subtype":"hook_callback","callback_id":"hook_0","input":{"session_id":"95d284fd-cb7d-45ff-a822-f2f3f608d53c","transcript_path":"/tmp/ctk-e2e-b449d7a62cea/.claude/projects/-tmp-ctk-e2e-b449d7a62cea-work/95d284fd-cb7d-45ff-a822-f2f3f608d53c.jsonl","cwd":"/tmp/ctk-e2e-b449d7a62cea/work","prompt_id":"255776c7-c89b-49a0-9807-385e1c3cd6c2","permission_mode":"default","effort":{"level":"medium"},"hook_event_name":"PreSkillShellCommand","tool_name":"Bash","tool_input":{"command":"touch ran.txt && echo stamped"},"tool_use_id":"e5499741-c991-4b6d-a9bf-1af2c902f708:inner:preamble-0","command_name":"stamp","command_source":"projectSettings","invoked_by":"user"},"tool_use_id":"e5499741-c991-4b6d-a9bf-1af2c902f708:inner:preamble-0"}}"#;

#[tokio::test]
async fn a_pre_skill_shell_command_hook_is_registered_and_answers_the_cli_2_1_332_request() {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let seen_in_hook = seen.clone();
    let options = Options::new().hook(
        HookEvent::PreSkillShellCommand,
        HookMatcher::any().callback(move |input| {
            seen_in_hook.lock().unwrap().push((
                input.event_name().map(String::from),
                input.tool_name().map(String::from),
                input.tool_input().cloned(),
                input.raw["command_name"].clone(),
                input.tool_use_id.clone(),
            ));
            async { HookOutput::new().deny_tool("no shell in commands") }
        }),
    );
    let (_client, mut cli, initialize) = connect_without_servers(options).await;
    assert_eq!(
        initialize["request"],
        json!({"subtype": "initialize", "hooks": {"PreSkillShellCommand": [{"matcher": null, "hookCallbackIds": ["hook_0"]}]}})
    );
    cli.send(serde_json::from_str(PRE_SKILL_SHELL_COMMAND_REQUEST).unwrap())
        .await;
    assert_eq!(
        cli.recv().await,
        json!({"type": "control_response", "response": {"subtype": "success",
            "request_id": "fc826cfe-bc2a-43d9-ae9c-60135f3de9cf",
            "response": {"hookSpecificOutput": {"hookEventName": "PreSkillShellCommand",
                "permissionDecision": "deny", "permissionDecisionReason": "no shell in commands"}}}})
    );
    let id = "e5499741-c991-4b6d-a9bf-1af2c902f708:inner:preamble-0";
    assert_eq!(
        *seen.lock().unwrap(),
        [(
            Some("PreSkillShellCommand".to_string()),
            Some("Bash".to_string()),
            Some(json!({"command": "touch ran.txt && echo stamped"})),
            json!("stamp"),
            Some(id.to_string()),
        )]
    );
}

#[tokio::test]
async fn unknown_subtypes_unknown_servers_and_a_missing_permission_callback_get_errors() {
    let (_client, mut cli) = connect(Options::new().mcp_server(calc_server(Arc::default()))).await;
    cli.send(
        json!({"type": "control_request", "request_id": "u1", "request": {"subtype": "teleport"}}),
    )
    .await;
    assert_eq!(
        cli.recv().await,
        json!({"type": "control_response", "response": {"subtype": "error", "request_id": "u1",
            "error": "Unsupported control request subtype: teleport"}})
    );
    cli.send(
        json!({"type": "control_request", "request_id": "u2", "request": {"subtype": "mcp_message",
        "server_name": "nope", "message": {"method": "tools/list", "jsonrpc": "2.0", "id": 4}}}),
    )
    .await;
    assert_eq!(
        cli.recv().await,
        json!({"type": "control_response", "response": {"subtype": "success", "request_id": "u2",
            "response": {"mcp_response": {"jsonrpc": "2.0", "id": 4,
                "error": {"code": -32601, "message": "Server 'nope' not found"}}}}})
    );
    cli.send(
        json!({"type": "control_request", "request_id": "u3", "request": {"subtype": "can_use_tool",
        "tool_name": "Bash", "input": {}}}),
    )
    .await;
    assert_eq!(
        cli.recv().await,
        json!({"type": "control_response", "response": {"subtype": "error", "request_id": "u3",
            "error": "canUseTool callback is not provided"}})
    );
}

#[tokio::test]
async fn interrupt_set_model_and_control_errors() {
    let (client, mut cli) = connect(Options::new().mcp_server(calc_server(Arc::default()))).await;
    let client = Arc::new(client);
    let interrupt = tokio::spawn({
        let client = client.clone();
        async move { client.interrupt().await }
    });
    let request = cli.recv().await;
    assert_eq!(request["request"], json!({"subtype": "interrupt"}));
    let id = request["request_id"].as_str().unwrap().to_string();
    assert!(id.starts_with("req_"), "{id}");
    cli.send(
        json!({"type": "control_response", "response": {"subtype": "success", "request_id": id,
        "response": {"still_queued": ["u-2"]}}}),
    )
    .await;
    assert_eq!(interrupt.await.unwrap().unwrap().still_queued, ["u-2"]);

    let set_model = tokio::spawn({
        let client = client.clone();
        async move { client.set_model(Some("claude-haiku-4-5")).await }
    });
    let request = cli.recv().await;
    assert_eq!(
        request["request"],
        json!({"subtype": "set_model", "model": "claude-haiku-4-5"})
    );
    cli.send(json!({"type": "control_response", "response": {"subtype": "error", "request_id": request["request_id"],
        "error": "unknown model", "error_code": "bad_model"}}))
        .await;
    match set_model.await.unwrap() {
        Err(Error::Control {
            subtype,
            message,
            code,
        }) => {
            assert_eq!(
                (subtype.as_str(), message.as_str(), code.as_deref()),
                ("set_model", "unknown model", Some("bad_model"))
            );
        }
        other => panic!("expected a control error, got {other:?}"),
    }
}

#[tokio::test]
async fn a_cli_that_exits_mid_call_gives_a_typed_error_with_the_stderr_tail() {
    let (mut client, mut cli) =
        connect(Options::new().mcp_server(calc_server(Arc::default()))).await;
    client.query("go").await.unwrap();
    let _user = cli.recv().await;
    cli.send(json!({"type": "control_request", "request_id": "m-slow", "request": {"subtype": "mcp_message",
        "server_name": "calc", "message": {"method": "tools/call", "params": {"name": "slow",
        "arguments": {"ms": 10000, "tag": "orphan"}}, "jsonrpc": "2.0", "id": 2}}}))
        .await;
    cli.0.write_stderr("fatal: out of cheese");
    cli.0.exit(7);
    match next_item(&mut client).await {
        Some(Err(Error::ProcessExited {
            code, stderr_tail, ..
        })) => {
            assert_eq!(code, Some(7));
            assert!(stderr_tail.contains("out of cheese"), "{stderr_tail}");
        }
        other => panic!("expected ProcessExited, got {other:?}"),
    }
    assert!(next_item(&mut client).await.is_none());
}

#[tokio::test]
async fn oversized_and_garbage_lines_are_reported_and_the_session_goes_on() {
    let options = Options::new()
        .mcp_server(calc_server(Arc::default()))
        .max_line_size(1024);
    let (mut client, mut cli) = connect(options).await;
    cli.0
        .write_line("[SandboxDebug] not json at all")
        .await
        .unwrap();
    cli.0
        .write_line(&format!(
            "{{\"type\":\"assistant\",\"pad\":\"{}\"}}",
            "x".repeat(4096)
        ))
        .await
        .unwrap();
    cli.0.write_line("{\"type\": broken").await.unwrap();
    cli.send(result_frame()).await;
    match client.next_message().await {
        Some(Err(Error::LineTooLong { limit, .. })) => assert_eq!(limit, 1024),
        other => panic!("expected LineTooLong, got {other:?}"),
    }
    match client.next_message().await {
        Some(Err(Error::Json { line, .. })) => assert_eq!(line, "{\"type\": broken"),
        other => panic!("expected a JSON error, got {other:?}"),
    }
    assert!(matches!(
        client.next_message().await,
        Some(Ok(Message::Result(_)))
    ));
}

#[tokio::test]
async fn one_shot_query_keeps_stdin_open_for_a_late_tool_call() {
    let log = Arc::new(Log::default());
    let (transport, cli) = MemoryTransport::pair();
    let mut cli = Cli(cli);
    let options = Options::new().mcp_server(calc_server(log.clone()));
    let stream = tokio::spawn(query_with("add after a pause", options, transport));
    cli.startup().await;
    let mut stream = stream.await.unwrap().unwrap();
    assert_eq!(
        cli.recv().await,
        json!({"type": "user", "session_id": "", "message": {"role": "user", "content": "add after a pause"},
            "parent_tool_use_id": null})
    );
    cli.send(json!({"type": "system", "subtype": "session_state_changed", "state": "running", "sdk_host_only": true})).await;
    tokio::time::sleep(Duration::from_secs(2)).await;
    let result = cli
        .tools_call("m-late", 2, "add", json!({"a": 20, "b": 22}))
        .await;
    assert_eq!(result["result"]["content"][0]["text"], "42");
    cli.send(result_frame()).await;
    cli.silent_for(200).await; // still running: stdin stays open
    cli.send(json!({"type": "system", "subtype": "session_state_changed", "state": "idle", "sdk_host_only": true})).await;
    cli.expect_eof().await;
    cli.0.close();
    let mut kinds = Vec::new();
    while let Some(message) = stream.next().await {
        kinds.push(message.unwrap());
    }
    assert_eq!(
        kinds.len(),
        1,
        "host-only frames are not yielded: {kinds:?}"
    );
    assert!(matches!(kinds[0], Message::Result(_)));
    assert_eq!(log.entries(), ["add toolu_2"]);
}

#[tokio::test]
async fn one_shot_query_without_host_callbacks_keeps_stdin_open_for_its_controls() {
    let (transport, cli) = MemoryTransport::pair();
    let mut cli = Cli(cli);
    let stream = tokio::spawn(query_with("hi", Options::new(), transport));
    let initialize = cli.recv().await;
    cli.answer(&initialize, json!({})).await;
    let stream = stream.await.unwrap().unwrap();
    assert_eq!(cli.recv().await["type"], "user");
    // Nothing of the host's can be asked, but the run's controls still reach the CLI.
    cli.send(json!({"type": "system", "subtype": "session_state_changed", "state": "running", "sdk_host_only": true})).await;
    cli.silent_for(200).await;
    let interrupt = tokio::spawn(async move {
        let receipt = stream.interrupt().await;
        (stream, receipt)
    });
    let request = cli.recv_request("interrupt").await;
    cli.answer(&request, json!({})).await;
    let (_stream, receipt) = interrupt.await.unwrap();
    receipt.expect("the interrupt is answered");
    cli.send(result_frame()).await;
    cli.send(json!({"type": "system", "subtype": "session_state_changed", "state": "idle", "sdk_host_only": true})).await;
    cli.expect_eof().await;
}

#[tokio::test]
async fn a_panicking_callback_still_gets_exactly_one_answer() {
    let options = Options::new().can_use_tool(|request| async move {
        if request.tool_name == "Boom" {
            panic!("callback exploded");
        }
        PermissionDecision::allow()
    });
    let (_client, mut cli, _) = connect_without_servers(options).await;
    cli.send(
        json!({"type": "control_request", "request_id": "b1", "request": {"subtype": "can_use_tool",
        "tool_name": "Boom", "input": {}}}),
    )
    .await;
    assert_eq!(
        cli.recv().await,
        json!({"type": "control_response", "response": {"subtype": "error", "request_id": "b1",
            "error": "the host's `can_use_tool` handler panicked: callback exploded"}})
    );
    cli.silent_for(200).await;
    cli.send(
        json!({"type": "control_request", "request_id": "b2", "request": {"subtype": "can_use_tool",
        "tool_name": "Fine", "input": {"x": 1}}}),
    )
    .await;
    assert_eq!(
        cli.recv().await,
        json!({"type": "control_response", "response": {"subtype": "success", "request_id": "b2",
            "response": {"behavior": "allow", "updatedInput": {"x": 1}}}})
    );
}

/// What a test makes of a control's typed answer (run in the task that awaited it).
type Check = Box<dyn FnOnce(Arc<Client>) -> tokio::task::JoinHandle<()>>;

#[tokio::test]
async fn every_host_request_sends_its_exact_body_and_types_the_answer() {
    use claude_tools_runtime::options::PermissionMode;
    let (client, mut cli) = connect(Options::new().mcp_server(calc_server(Arc::default()))).await;
    let client = Arc::new(client);
    // The answers of CLI 2.1.330 (protocol.md A.3, sdk-parity.md 2.4), each with a field a
    // later CLI might add, which the receipt keeps in `extra`.
    let cases: Vec<(Value, Value, Check)> = vec![
        (
            json!({"subtype": "set_permission_mode", "mode": "acceptEdits"}),
            json!({"mode": "acceptEdits", "later": 1}),
            Box::new(|c| {
                tokio::spawn(async move {
                    let receipt = c
                        .set_permission_mode(PermissionMode::AcceptEdits)
                        .await
                        .unwrap();
                    assert_eq!(receipt.mode.as_deref(), Some("acceptEdits"));
                    assert_eq!(receipt.extra["later"], 1);
                })
            }),
        ),
        (
            json!({"subtype": "set_model", "model": null}),
            json!({"model": "claude-sonnet-4-5"}),
            Box::new(|c| {
                tokio::spawn(async move {
                    let receipt = c.set_model(None).await.unwrap();
                    assert_eq!(receipt.model.as_deref(), Some("claude-sonnet-4-5"));
                })
            }),
        ),
        (
            json!({"subtype": "set_model", "model": "claude-haiku-4-5"}),
            // What CLIs before 2.1.330 answered.
            json!({}),
            Box::new(|c| {
                tokio::spawn(async move {
                    let receipt = c.set_model(Some("claude-haiku-4-5")).await.unwrap();
                    assert_eq!((receipt.model, receipt.extra.len()), (None, 0));
                })
            }),
        ),
        (
            json!({"subtype": "mcp_status"}),
            json!({"mcpServers": [{"name": "calc", "status": "connected",
                "serverInfo": {"name": "calc", "version": "1.0.0"}, "transport": "sdk",
                "scope": "dynamic", "source": "sdk",
                "tools": [{"name": "add", "annotations": {"readOnly": true}}, {"name": "slow", "annotations": {}}]},
                {"name": "docs", "status": "failed", "error": "connection refused", "scope": "project"}]}),
            Box::new(|c| {
                tokio::spawn(async move {
                    let status = c.mcp_status().await.unwrap();
                    let calc = status.server("calc").unwrap();
                    assert!(calc.is_connected());
                    let info = calc.server_info.as_ref().unwrap();
                    assert_eq!(
                        (info.name.as_str(), info.version.as_str()),
                        ("calc", "1.0.0")
                    );
                    assert_eq!(calc.scope.as_deref(), Some("dynamic"));
                    assert_eq!(calc.extra["transport"], "sdk");
                    let tools = calc.tools.as_deref().unwrap();
                    assert_eq!(
                        tools
                            .iter()
                            .map(|t| (
                                t.name.as_str(),
                                t.annotations.as_ref().and_then(|a| a.read_only)
                            ))
                            .collect::<Vec<_>>(),
                        [("add", Some(true)), ("slow", None)]
                    );
                    let docs = status.server("docs").unwrap();
                    assert!(!docs.is_connected());
                    assert_eq!(docs.error.as_deref(), Some("connection refused"));
                    assert_eq!(docs.tools, None);
                })
            }),
        ),
        (
            json!({"subtype": "get_context_usage"}),
            json!({"categories": [
                    {"name": "System prompt", "tokens": 3100, "color": "promptBorder"},
                    {"name": "MCP tools", "tokens": 120, "color": "cyan", "isDeferred": true}],
                "totalTokens": 3220, "maxTokens": 167000, "rawMaxTokens": 200000,
                "percentage": 1.61, "model": "claude-sonnet-4-5", "isAutoCompactEnabled": true,
                "autoCompactThreshold": 167000, "memoryFiles": [], "gridRows": []}),
            Box::new(|c| {
                tokio::spawn(async move {
                    let usage = c.context_usage().await.unwrap();
                    assert_eq!(
                        (usage.total_tokens, usage.max_tokens, usage.raw_max_tokens),
                        (3220, 167000, Some(200000))
                    );
                    assert_eq!(usage.percentage, Some(1.61));
                    assert_eq!(usage.model.as_deref(), Some("claude-sonnet-4-5"));
                    assert_eq!(
                        (usage.is_auto_compact_enabled, usage.auto_compact_threshold),
                        (Some(true), Some(167000))
                    );
                    let categories: Vec<_> = usage
                        .categories
                        .iter()
                        .map(|c| (c.name.as_str(), c.tokens, c.is_deferred))
                        .collect();
                    assert_eq!(
                        categories,
                        [
                            ("System prompt", 3100, None),
                            ("MCP tools", 120, Some(true))
                        ]
                    );
                    assert_eq!(usage.extra["gridRows"], json!([]));
                })
            }),
        ),
        (
            json!({"subtype": "rewind_files", "user_message_id": "u-1"}),
            json!({"canRewind": true, "filesChanged": ["src/a.rs"], "insertions": 3, "deletions": 1}),
            Box::new(|c| {
                tokio::spawn(async move {
                    let result = c.rewind_files("u-1").await.unwrap();
                    assert!(result.can_rewind);
                    assert_eq!(
                        result.files_changed.as_deref(),
                        Some(&["src/a.rs".to_string()][..])
                    );
                    assert_eq!((result.insertions, result.deletions), (Some(3), Some(1)));
                })
            }),
        ),
        (
            json!({"subtype": "interrupt"}),
            json!({"still_queued": [], "cancelled": ["u-7"]}),
            Box::new(|c| {
                tokio::spawn(async move {
                    let receipt = c.interrupt().await.unwrap();
                    assert!(receipt.still_queued.is_empty());
                    assert_eq!(receipt.cancelled, Some(vec!["u-7".to_string()]));
                })
            }),
        ),
        (
            json!({"subtype": "stop_task", "task_id": "t-1"}),
            json!({"stopped": true}),
            Box::new(|c| {
                tokio::spawn(async move {
                    let answer = c
                        .control_request(json!({"subtype": "stop_task", "task_id": "t-1"}))
                        .await
                        .unwrap();
                    assert_eq!(answer, json!({"stopped": true}));
                })
            }),
        ),
    ];
    for (body, answer, check) in cases {
        let pending = check(client.clone());
        let request = cli.recv().await;
        assert_eq!(request["type"], "control_request");
        assert_eq!(request["request"], body);
        cli.send(
            json!({"type": "control_response", "response": {"subtype": "success",
            "request_id": request["request_id"], "response": answer}}),
        )
        .await;
        pending.await.unwrap();
    }
}

#[tokio::test]
async fn an_answer_that_does_not_fit_its_receipt_is_a_protocol_error_naming_the_request() {
    let (client, mut cli) = connect(Options::new().mcp_server(calc_server(Arc::default()))).await;
    let client = Arc::new(client);
    type Call =
        Box<dyn FnOnce(Arc<Client>) -> tokio::task::JoinHandle<claude_tools_runtime::Result<()>>>;
    let cases: Vec<(Value, Call, &str)> = vec![
        (
            json!({"mcpServers": 7}),
            Box::new(|c| tokio::spawn(async move { c.mcp_status().await.map(drop) })),
            "protocol error: the CLI's answer to `mcp_status` does not fit McpStatus: invalid \
             type: integer `7`, expected a sequence (Controls::control_request returns any answer \
             as JSON)",
        ),
        (
            json!({}),
            Box::new(|c| tokio::spawn(async move { c.rewind_files("u-1").await.map(drop) })),
            "protocol error: the CLI's answer to `rewind_files` does not fit RewindFilesResult: \
             missing field `canRewind` (Controls::control_request returns any answer as JSON)",
        ),
        (
            json!({"totalTokens": "many", "maxTokens": 1}),
            Box::new(|c| tokio::spawn(async move { c.context_usage().await.map(drop) })),
            "protocol error: the CLI's answer to `get_context_usage` does not fit ContextUsage: \
             invalid type: string \"many\", expected u64 (Controls::control_request returns any \
             answer as JSON)",
        ),
    ];
    for (answer, call, expected) in cases {
        let pending = call(client.clone());
        let request = cli.recv().await;
        cli.send(
            json!({"type": "control_response", "response": {"subtype": "success",
            "request_id": request["request_id"], "response": answer}}),
        )
        .await;
        let error = pending.await.unwrap().unwrap_err();
        assert!(
            matches!(error, Error::Protocol { request: None, .. }) && !error.is_fatal(),
            "{error:?}"
        );
        assert_eq!(error.to_string(), expected);
    }
    // The session goes on: the escape hatch reads the same answer as it came.
    let raw = tokio::spawn({
        let client = client.clone();
        async move {
            client
                .control_request(json!({"subtype": "mcp_status"}))
                .await
        }
    });
    let request = cli.recv().await;
    cli.send(
        json!({"type": "control_response", "response": {"subtype": "success",
        "request_id": request["request_id"], "response": {"mcpServers": 7}}}),
    )
    .await;
    assert_eq!(raw.await.unwrap().unwrap(), json!({"mcpServers": 7}));
}

#[tokio::test]
async fn a_request_without_an_answer_times_out_and_is_withdrawn() {
    let options = Options::new().control_timeout(Duration::from_millis(200));
    let (client, mut cli, _) = connect_without_servers(options).await;
    let client = Arc::new(client);
    let pending = tokio::spawn({
        let client = client.clone();
        async move { client.mcp_status().await }
    });
    let request = cli.recv().await;
    match pending.await.unwrap() {
        Err(Error::Timeout { subtype, .. }) => assert_eq!(subtype, "mcp_status"),
        other => panic!("expected a timeout, got {other:?}"),
    }
    assert_eq!(
        cli.recv().await,
        json!({"type": "control_cancel_request", "request_id": request["request_id"]})
    );
}

#[tokio::test]
async fn elicitation_is_declined_and_keep_alives_are_ignored() {
    let (mut client, mut cli, _) = connect_without_servers(Options::new()).await;
    cli.send(json!({"type": "keep_alive"})).await;
    cli.send(
        json!({"type": "control_request", "request_id": "e1", "request": {"subtype": "elicitation",
        "mcp_server_name": "x", "message": "Your name?"}}),
    )
    .await;
    assert_eq!(
        cli.recv().await,
        json!({"type": "control_response", "response": {"subtype": "success", "request_id": "e1",
            "response": {"action": "decline"}}})
    );
    cli.send(result_frame()).await;
    assert!(
        matches!(client.next_message().await, Some(Ok(Message::Result(_)))),
        "keep_alive is not a message"
    );
}

/// User messages fed one at a time, as a `Stream`.
struct Feed(tokio::sync::mpsc::UnboundedReceiver<claude_tools_runtime::message::UserInput>);

impl futures_core::Stream for Feed {
    type Item = claude_tools_runtime::message::UserInput;

    fn poll_next(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Option<Self::Item>> {
        self.0.poll_recv(cx)
    }
}

#[tokio::test]
async fn a_streamed_prompt_writes_each_message_and_ends_after_the_last_answer() {
    use claude_tools_runtime::message::UserInput;
    use claude_tools_runtime::query::Prompt;
    let (feed, messages) = tokio::sync::mpsc::unbounded_channel();
    let (transport, cli) = MemoryTransport::pair();
    let mut cli = Cli(cli);
    let options = Options::new().mcp_server(calc_server(Arc::default()));
    let stream = tokio::spawn(query_with(
        Prompt::stream(Feed(messages)),
        options,
        transport,
    ));
    cli.startup().await;
    let _stream = stream.await.unwrap().unwrap();

    feed.send(UserInput::text("What is in this picture?").with_image("image/png", "iVBORw0KGgo="))
        .unwrap();
    assert_eq!(
        cli.recv().await,
        json!({"type": "user", "session_id": "", "parent_tool_use_id": null, "message": {"role": "user", "content": [
            {"type": "text", "text": "What is in this picture?"},
            {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="}}]}})
    );
    cli.send(result_frame()).await;
    cli.silent_for(200).await; // the stream has not ended: stdin stays open
    feed.send(UserInput::text("And now?")).unwrap();
    assert_eq!(cli.recv().await["message"]["content"], "And now?");
    drop(feed);
    cli.silent_for(200).await; // the second prompt is not answered yet
    cli.send(result_frame()).await;
    cli.expect_eof().await;
}

#[tokio::test]
async fn a_message_that_starts_no_turn_is_sent_with_its_fields_and_waited_for_like_any() {
    use claude_tools_runtime::message::{QueuePriority, UserInput};
    use claude_tools_runtime::query::Prompt;
    let (feed, messages) = tokio::sync::mpsc::unbounded_channel();
    let (transport, cli) = MemoryTransport::pair();
    let mut cli = Cli(cli);
    let options = Options::new().mcp_server(calc_server(Arc::default()));
    let stream = tokio::spawn(query_with(
        Prompt::stream(Feed(messages)),
        options,
        transport,
    ));
    cli.startup().await;
    let _stream = stream.await.unwrap().unwrap();

    feed.send(
        UserInput::text("The user is on the staging branch.")
            .without_turn()
            .with_priority(QueuePriority::Later),
    )
    .unwrap();
    assert_eq!(
        cli.recv().await,
        json!({"type": "user", "session_id": "", "parent_tool_use_id": null,
            "message": {"role": "user", "content": "The user is on the staging branch."},
            "priority": "later", "shouldQuery": false})
    );
    feed.send(UserInput::text("Deploy it.")).unwrap();
    assert_eq!(cli.recv().await["message"]["content"], "Deploy it.");
    drop(feed);
    // The CLI 2.1.332 answers the note with a result of its own (no turn), then the prompt:
    // the run ends on the second.
    cli.send(result_frame()).await;
    cli.silent_for(200).await;
    cli.send(result_frame()).await;
    cli.expect_eof().await;
}
