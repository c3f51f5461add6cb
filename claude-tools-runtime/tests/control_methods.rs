//! The session controls (issue 21) against a scripted CLI: the exact line each method writes,
//! and the typed reading of the answers the real CLI 2.1.332 gave to the same requests
//! (`fixtures/cli-2.1.332-control-answers.json`, recorded offline). Also the typed `initialize`
//! answer, the controls of a one-shot query's stream, and the abort handle's frames.

use claude_tools_core::tool::ToolServer;
use claude_tools_runtime::Error;
use claude_tools_runtime::client::Client;
use claude_tools_runtime::control::{ContextUsage, InitializeInfo};
use claude_tools_runtime::options::{ExternalServer, Options, PermissionMode};
use claude_tools_runtime::query::query_with;
use claude_tools_runtime::transport::MemoryTransport;
use serde_json::{Value, json};

mod common;

use common::{Cli, Connecting, WAIT, connect_answering_initialize, result_frame};

/// The recorded exchanges: `[{"request": …, "answer": {"subtype": …, "response"?, "error"?}}]`.
fn exchanges() -> Vec<Value> {
    let fixture: Value =
        serde_json::from_str(include_str!("fixtures/cli-2.1.332-control-answers.json"))
            .expect("the fixture is JSON");
    fixture["exchanges"].as_array().expect("exchanges").to_vec()
}

/// The real CLI's answer to `request` (the body of its control_response, without the id).
fn recorded(request: Value) -> Value {
    exchanges()
        .into_iter()
        .find(|exchange| exchange["request"] == request)
        .map(|exchange| exchange["answer"].clone())
        .unwrap_or_else(|| panic!("no recorded answer to {request}"))
}

impl Cli {
    /// Reads the host's next line, asserts it is exactly the control request `body` (byte for
    /// byte, key order included), and answers with `answer` (a recorded control_response body).
    async fn expect_request(&mut self, body: &str, answer: Value) {
        let line = self.recv_line().await;
        let frame: Value = serde_json::from_str(&line).expect("a JSON line");
        let id = frame["request_id"]
            .as_str()
            .expect("a request id")
            .to_string();
        assert_eq!(
            line.trim_end(),
            format!(r#"{{"type":"control_request","request_id":"{id}","request":{body}}}"#)
        );
        let mut response = answer;
        response["request_id"] = json!(id);
        self.send(json!({"type": "control_response", "response": response}))
            .await;
    }

    /// [`Cli::expect_request`] answered with the real CLI's answer to the same body.
    async fn expect_recorded(&mut self, body: &str) {
        let request: Value = serde_json::from_str(body).expect("a JSON body");
        self.expect_request(body, recorded(request)).await;
    }
}

/// A success answer carrying `response`.
fn ok(response: Value) -> Value {
    json!({"subtype": "success", "response": response})
}

fn calc() -> ToolServer {
    ToolServer::new("calc", "1.0.0")
        .with_typed_tool("pi", || async { "3.14159" })
        .expect("a tool")
}

macro_rules! within {
    ($future:expr) => {
        tokio::time::timeout(WAIT, $future)
            .await
            .expect("answered in time")
    };
}

#[tokio::test]
async fn every_control_method_writes_its_exact_frame_and_types_the_real_answer() {
    let (client, mut cli) = connect_answering_initialize(Options::new().mcp_server(calc())).await;

    let (receipt, ()) = within!(async {
        tokio::join!(
            client.interrupt(),
            cli.expect_recorded(r#"{"subtype":"interrupt"}"#)
        )
    });
    let receipt = receipt.unwrap();
    assert!(receipt.still_queued.is_empty());
    assert_eq!(receipt.cancelled, None);

    let (receipt, ()) = within!(async {
        tokio::join!(
            client.interrupt_all(),
            cli.expect_recorded(r#"{"subtype":"interrupt","cancel_queued":true}"#)
        )
    });
    assert_eq!(receipt.unwrap().cancelled, Some(vec![]));

    let (receipt, ()) = within!(async {
        tokio::join!(
            client.set_permission_mode(PermissionMode::Plan),
            cli.expect_recorded(r#"{"subtype":"set_permission_mode","mode":"plan"}"#)
        )
    });
    assert_eq!(
        receipt.unwrap().permission_mode(),
        Some(PermissionMode::Plan)
    );

    // The CLI's `manual` is the default mode (as the TypeScript SDK reads it).
    let (receipt, ()) = within!(async {
        tokio::join!(
            client.set_permission_mode(PermissionMode::Default),
            cli.expect_request(
                r#"{"subtype":"set_permission_mode","mode":"default"}"#,
                ok(json!({"mode": "manual"}))
            )
        )
    });
    let receipt = receipt.unwrap();
    assert_eq!(receipt.mode.as_deref(), Some("manual"));
    assert_eq!(receipt.permission_mode(), Some(PermissionMode::Default));

    let (done, ()) = within!(async {
        tokio::join!(
            client.set_max_thinking_tokens(Some(1024)),
            cli.expect_recorded(
                r#"{"subtype":"set_max_thinking_tokens","max_thinking_tokens":1024}"#
            )
        )
    });
    done.unwrap();
    let (done, ()) = within!(async {
        tokio::join!(
            client.set_max_thinking_tokens(None),
            cli.expect_recorded(
                r#"{"subtype":"set_max_thinking_tokens","max_thinking_tokens":null}"#
            )
        )
    });
    done.unwrap();

    let (done, ()) = within!(async {
        tokio::join!(
            client.toggle_mcp_server("calc", false),
            cli.expect_recorded(r#"{"subtype":"mcp_toggle","serverName":"calc","enabled":false}"#)
        )
    });
    done.unwrap();
    let (done, ()) = within!(async {
        tokio::join!(
            client.toggle_mcp_server("calc", true),
            cli.expect_recorded(r#"{"subtype":"mcp_toggle","serverName":"calc","enabled":true}"#)
        )
    });
    done.unwrap();

    // The CLI refuses: `Error::Control` with its words.
    let (refused, ()) = within!(async {
        tokio::join!(
            client.toggle_mcp_server("nope", false),
            cli.expect_recorded(r#"{"subtype":"mcp_toggle","serverName":"nope","enabled":false}"#)
        )
    });
    match refused {
        Err(Error::Control {
            subtype, message, ..
        }) => {
            assert_eq!(subtype, "mcp_toggle");
            assert_eq!(message, "Server not found: nope");
        }
        other => panic!("expected the CLI's refusal, got {other:?}"),
    }
    let (refused, ()) = within!(async {
        tokio::join!(
            client.reconnect_mcp_server("calc"),
            cli.expect_recorded(r#"{"subtype":"mcp_reconnect","serverName":"calc"}"#)
        )
    });
    assert!(
        matches!(&refused, Err(Error::Control { subtype, message, .. })
            if subtype == "mcp_reconnect" && message == "SDK servers should be handled in print.ts"),
        "{refused:?}"
    );
    let (refused, ()) = within!(async {
        tokio::join!(
            client.read_mcp_resource("calc", "ui://x"),
            cli.expect_recorded(
                r#"{"subtype":"mcp_read_resource","serverName":"calc","uri":"ui://x"}"#
            )
        )
    });
    assert!(
        matches!(&refused, Err(Error::Control { subtype, .. }) if subtype == "mcp_read_resource"),
        "{refused:?}"
    );
    // A resource read (shape of the TypeScript SDK's type: no server to record it from here).
    let (resource, ()) =
        within!(async {
            tokio::join!(
            client.read_mcp_resource("docs", "ui://widget/chart"),
            cli.expect_request(
                r#"{"subtype":"mcp_read_resource","serverName":"docs","uri":"ui://widget/chart"}"#,
                ok(json!({"contents": [{"uri": "ui://widget/chart", "mimeType": "text/html",
                    "text": "<p>chart</p>", "_meta": {"ui": {"csp": {}}}}]}))
            )
        )
        });
    let resource = resource.unwrap();
    assert_eq!(resource.contents[0].mime_type.as_deref(), Some("text/html"));
    assert_eq!(resource.contents[0].text.as_deref(), Some("<p>chart</p>"));
    assert_eq!(
        resource.contents[0].meta,
        json!({"ui": {"csp": {}}}).as_object().cloned()
    );

    let (done, ()) = within!(async {
        tokio::join!(
            client.stop_task("t-1"),
            cli.expect_recorded(r#"{"subtype":"stop_task","task_id":"t-1"}"#)
        )
    });
    done.unwrap();

    // `{}`: every foreground task went to the background; `backgrounded: false`: none matched.
    let (all, ()) = within!(async {
        tokio::join!(
            client.background_tasks(None),
            cli.expect_recorded(r#"{"subtype":"background_tasks"}"#)
        )
    });
    assert!(all.unwrap());
    let (one, ()) = within!(async {
        tokio::join!(
            client.background_tasks(Some("toolu_x")),
            cli.expect_recorded(r#"{"subtype":"background_tasks","tool_use_id":"toolu_x"}"#)
        )
    });
    assert!(!one.unwrap());

    let (plugins, ()) = within!(async {
        tokio::join!(
            client.reload_plugins(),
            cli.expect_recorded(r#"{"subtype":"reload_plugins"}"#)
        )
    });
    let plugins = plugins.unwrap();
    assert_eq!(plugins.commands[0].name, "deep-research");
    assert_eq!(plugins.commands[0].builtin, Some(true));
    assert!(plugins.agents.iter().any(|agent| agent.name == "Explore"));
    assert_eq!(plugins.plugins[0].path, "builtin");
    assert_eq!(plugins.mcp_servers[0].name, "calc");
    assert!(plugins.mcp_servers[0].is_connected());
    assert_eq!(plugins.error_count, 0);

    let (skills, ()) = within!(async {
        tokio::join!(
            client.reload_skills(),
            cli.expect_recorded(r#"{"subtype":"reload_skills"}"#)
        )
    });
    assert_eq!(skills.unwrap().skills[0].name, "dataviz");

    let (done, ()) = within!(async {
        tokio::join!(
            client.apply_flag_settings(json!({"model": "claude-haiku-4-5"})),
            cli.expect_recorded(
                r#"{"subtype":"apply_flag_settings","settings":{"model":"claude-haiku-4-5"}}"#
            )
        )
    });
    done.unwrap();
    let (refused, ()) = within!(async {
        tokio::join!(
            client.apply_flag_settings(json!("x")),
            cli.expect_recorded(r#"{"subtype":"apply_flag_settings","settings":"x"}"#)
        )
    });
    assert!(
        matches!(&refused, Err(Error::Control { message, .. })
            if message == "apply_flag_settings requires `settings` to be an object, got string"),
        "{refused:?}"
    );

    let (rewind, ()) = within!(async {
        tokio::join!(
            client.rewind_files_dry_run("u-1"),
            cli.expect_recorded(
                r#"{"subtype":"rewind_files","user_message_id":"u-1","dry_run":true}"#
            )
        )
    });
    let rewind = rewind.unwrap();
    assert!(!rewind.can_rewind);
    assert_eq!(
        rewind.error.as_deref(),
        Some("File rewinding is not enabled.")
    );

    let (usage, ()) = within!(async {
        tokio::join!(
            client.context_usage(),
            cli.expect_recorded(r#"{"subtype":"get_context_usage"}"#)
        )
    });
    let usage: ContextUsage = usage.unwrap();
    assert!(usage.total_tokens > 0 && usage.max_tokens > 0);
    assert_eq!(usage.categories[0].name, "System prompt");
}

#[tokio::test]
async fn set_mcp_servers_sends_external_servers_with_the_in_process_ones_and_keeps_them() {
    let (client, mut cli) = connect_answering_initialize(Options::new().mcp_server(calc())).await;
    let ext = ExternalServer::stdio("/bin/false", Vec::<String>::new());
    let (receipt, ()) = within!(async {
        tokio::join!(
            client.set_mcp_servers([("ext", ext)]),
            cli.expect_recorded(concat!(
                r#"{"subtype":"mcp_set_servers","servers":{"ext":{"type":"stdio","command":"/bin/false","args":[]},"#,
                r#""calc":{"type":"sdk","name":"calc"}}}"#
            ))
        )
    });
    let receipt = receipt.unwrap();
    assert_eq!(receipt.added, ["ext"]);
    assert!(receipt.removed.is_empty());
    assert_eq!(receipt.errors["ext"], "Connection closed");

    // Adding an in-process server names the external one too (the request replaces the set).
    let (added, ()) = within!(async {
        tokio::join!(
            client.add_server(ToolServer::new("notes", "1.0.0")),
            cli.expect_request(
                concat!(
                    r#"{"subtype":"mcp_set_servers","servers":{"ext":{"type":"stdio","command":"/bin/false","args":[]},"#,
                    r#""calc":{"type":"sdk","name":"calc"},"notes":{"type":"sdk","name":"notes"}}}"#
                ),
                ok(json!({"added": ["notes"], "removed": [], "errors": {}}))
            )
        )
    });
    added.unwrap();

    // A name of an in-process server is refused before anything is sent.
    let clash = client
        .set_mcp_servers([("calc", ExternalServer::http("http://127.0.0.1:1/mcp"))])
        .await;
    assert!(matches!(clash, Err(Error::Live(_))), "{clash:?}");

    // An empty set removes the external servers set before, and only them.
    let (receipt, ()) = within!(async {
        tokio::join!(
            client.set_mcp_servers(Vec::<(String, ExternalServer)>::new()),
            cli.expect_request(
                concat!(
                    r#"{"subtype":"mcp_set_servers","servers":{"calc":{"type":"sdk","name":"calc"},"#,
                    r#""notes":{"type":"sdk","name":"notes"}}}"#
                ),
                recorded(json!({"subtype": "mcp_set_servers",
                    "servers": {"calc": {"type": "sdk", "name": "calc"}}}))
            )
        )
    });
    assert_eq!(receipt.unwrap().removed, ["ext"]);
    let (removed, ()) = within!(async {
        tokio::join!(
            client.remove_server("notes"),
            cli.expect_request(
                r#"{"subtype":"mcp_set_servers","servers":{"calc":{"type":"sdk","name":"calc"}}}"#,
                ok(json!({"added": [], "removed": ["notes"], "errors": {}}))
            )
        )
    });
    assert_eq!(removed.unwrap().removed, ["notes"]);
}

#[tokio::test]
async fn an_answer_that_does_not_fit_is_a_protocol_error_naming_the_request() {
    let (client, mut cli) = connect_answering_initialize(Options::new()).await;
    let (unfit, ()) = within!(async {
        tokio::join!(
            client.reload_plugins(),
            cli.expect_request(
                r#"{"subtype":"reload_plugins"}"#,
                ok(json!({"commands": "all"}))
            )
        )
    });
    match unfit {
        Err(Error::Protocol { message, .. }) => {
            assert!(message.contains("`reload_plugins`"), "{message}");
            assert!(message.contains("ReloadPluginsResult"), "{message}");
        }
        other => panic!("expected a protocol error, got {other:?}"),
    }
    let (unfit, ()) = within!(async {
        tokio::join!(
            client.background_tasks(None),
            cli.expect_request(
                r#"{"subtype":"background_tasks"}"#,
                ok(json!({"backgrounded": "yes"}))
            )
        )
    });
    assert!(
        matches!(&unfit, Err(Error::Protocol { message, .. }) if message.contains("`background_tasks`")),
        "{unfit:?}"
    );
}

#[tokio::test]
async fn the_initialize_answer_is_typed() {
    let answer = recorded(json!({"subtype": "initialize", "hooks": null}));
    let (connecting, mut cli) = Connecting::start(Options::new());
    let initialize = cli.recv().await;
    cli.answer(&initialize, answer["response"].clone()).await;
    let client = connecting.client().await;

    let info: &InitializeInfo = client.initialize_info();
    assert_eq!(info.claude_code_version.as_deref(), Some("2.1.332"));
    assert_eq!(info.pid, Some(4242));
    assert_eq!(info.output_style.as_deref(), Some("default"));
    assert!(info.available_output_styles.iter().any(|s| s == "Concise"));
    assert_eq!(info.permission_mode(), Some(PermissionMode::Default));
    assert!(info.has_capability("reload_plugins_refuse_if_busy_v1"));
    assert_eq!(info.extra["session_state"], "idle");

    let commands = client.supported_commands();
    assert_eq!(commands[0].name, "deep-research");
    assert_eq!(commands[1].argument_hint, "consent | revoke");
    let models = client.supported_models();
    assert_eq!(models[0].value, "default");
    assert_eq!(models[0].resolved_model.as_deref(), Some("claude-opus-5-5"));
    assert_eq!(models[0].supports_effort, Some(true));
    assert!(models.iter().all(|model| !model.display_name.is_empty()));
    let agents = client.supported_agents();
    assert!(agents.iter().any(|agent| agent.name == "Explore"));
    let account = client.account_info().expect("the account");
    assert_eq!(account.api_key_source.as_deref(), Some("ANTHROPIC_API_KEY"));
    assert_eq!(account.api_provider.as_deref(), Some("firstParty"));
    assert_eq!(account.email, None);
    // The JSON as it came is still there.
    assert_eq!(client.server_info(), &answer["response"]);
    assert_eq!(client.cli_version(), Some("2.1.332"));
}

#[tokio::test]
async fn the_cli_reporting_manual_is_the_default_mode_and_an_unfit_initialize_fails_the_connect() {
    let (connecting, mut cli) = Connecting::start(Options::new());
    let initialize = cli.recv().await;
    cli.answer(&initialize, json!({"current_permission_mode": "manual"}))
        .await;
    let client = connecting.client().await;
    assert_eq!(
        client.initialize_info().permission_mode(),
        Some(PermissionMode::Default)
    );

    let (transport, cli) = MemoryTransport::pair();
    let mut cli = Cli(cli);
    let connecting = tokio::spawn(Client::connect_with(Options::new(), transport));
    let initialize = cli.recv().await;
    cli.answer(&initialize, json!({"models": [{"value": 7}]}))
        .await;
    match within!(connecting).unwrap() {
        Err(Error::Protocol { message, .. }) => {
            assert!(message.contains("`initialize`"), "{message}");
        }
        other => panic!("expected a protocol error, got {other:?}"),
    }
}

/// A one-shot query with an in-process server (so its stdin stays open for the run), over a
/// scripted CLI whose `initialize` is answered with the recorded answer.
async fn one_shot() -> (claude_tools_runtime::stream::MessageStream, Cli) {
    let (transport, cli) = MemoryTransport::pair();
    let mut cli = Cli(cli);
    let options = Options::new().mcp_server(calc());
    let stream = tokio::spawn(query_with("Count to a million", options, transport));
    let initialize = cli.recv().await;
    let answer = recorded(json!({"subtype": "initialize", "hooks": null}));
    cli.answer(&initialize, answer["response"].clone()).await;
    let stream = within!(stream).unwrap().expect("the query started");
    let prompt = cli.recv().await;
    assert_eq!(prompt["type"], "user");
    (stream, cli)
}

#[tokio::test]
async fn a_one_shot_query_can_be_interrupted_and_controlled() {
    let (mut stream, mut cli) = one_shot().await;
    assert_eq!(stream.initialize_info().models[0].value, "default");
    let (receipt, ()) = within!(async {
        tokio::join!(
            stream.interrupt(),
            cli.expect_recorded(r#"{"subtype":"interrupt"}"#)
        )
    });
    assert!(receipt.unwrap().still_queued.is_empty());
    let (mode, ()) = within!(async {
        tokio::join!(
            stream.set_permission_mode(PermissionMode::Plan),
            cli.expect_recorded(r#"{"subtype":"set_permission_mode","mode":"plan"}"#)
        )
    });
    assert_eq!(mode.unwrap().permission_mode(), Some(PermissionMode::Plan));
    let (done, ()) = within!(async {
        tokio::join!(
            stream.background_tasks(Some("toolu_x")),
            cli.expect_recorded(r#"{"subtype":"background_tasks","tool_use_id":"toolu_x"}"#)
        )
    });
    assert!(!done.unwrap());
    // The interrupted turn's result ends the run: the stream delivers it, stdin is closed.
    cli.send(result_frame()).await;
    cli.send(json!({"type": "system", "subtype": "session_state_changed", "state": "idle"}))
        .await;
    let result = within!(stream.next()).expect("the result").unwrap();
    assert!(result.is_result());
    cli.expect_eof().await;
}

#[tokio::test]
async fn the_abort_handle_interrupts_then_closes_stdin_from_another_task() {
    let (mut stream, mut cli) = one_shot().await;
    let abort = stream.abort_handle();
    assert!(!abort.is_finished());
    let aborting = tokio::spawn({
        let abort = abort.clone();
        async move { abort.abort().await }
    });
    // Interrupt everything, queued prompts included; then stdin is closed.
    cli.expect_recorded(r#"{"subtype":"interrupt","cancel_queued":true}"#)
        .await;
    cli.send(result_frame()).await;
    cli.expect_eof().await;
    // The CLI exits on its own: no kill.
    assert!(!cli.0.is_killed());
    cli.0.exit(0);
    let exit = within!(aborting).unwrap();
    assert!(exit.success(), "{exit:?}");
    assert!(abort.is_finished());
    // The stream delivered the interrupted turn's result, then ended.
    assert!(within!(stream.next()).unwrap().unwrap().is_result());
    assert!(within!(stream.next()).is_none());
    // Aborting again returns at once.
    assert!(within!(abort.abort()).success());
}

#[tokio::test]
async fn the_abort_handle_of_a_client_kills_a_cli_that_does_not_answer_nor_exit() {
    tokio::time::pause();
    let (client, mut cli) = connect_answering_initialize(Options::new()).await;
    let abort = client.abort_handle();
    let aborting = tokio::spawn(async move { abort.abort().await });
    let interrupt = cli.recv_request("interrupt").await;
    assert_eq!(interrupt["request"]["cancel_queued"], true);
    // No answer, no exit: 5 s for the interrupt, 10 s for the exit, then the CLI is killed.
    let started = tokio::time::Instant::now();
    cli.expect_eof().await;
    assert_eq!(started.elapsed().as_secs(), 5);
    tokio::time::timeout(std::time::Duration::from_secs(30), cli.0.killed())
        .await
        .expect("killed");
    assert_eq!(started.elapsed().as_secs(), 15);
    let exit = within!(aborting).unwrap();
    assert!(!exit.success(), "{exit:?}");
    drop(client);
}

#[tokio::test]
async fn concurrent_changes_of_the_server_set_go_out_one_after_the_other() {
    let (client, mut cli) = connect_answering_initialize(Options::new().mcp_server(calc())).await;
    let ext = ExternalServer::stdio("/bin/false", Vec::<String>::new());
    let changes = async {
        tokio::join!(
            client.set_mcp_servers([("ext", ext)]),
            client.add_server(ToolServer::new("notes", "1.0.0"))
        )
    };
    let cli_side = async {
        let first = cli.recv_request("mcp_set_servers").await;
        let names = |request: &Value| -> Vec<String> {
            request["request"]["servers"]
                .as_object()
                .expect("servers")
                .keys()
                .cloned()
                .collect()
        };
        assert_eq!(names(&first), ["ext", "calc"]);
        // The second change waits for the CLI's answer to the first…
        cli.silent_for(200).await;
        cli.answer(
            &first,
            json!({"added": ["ext"], "removed": [], "errors": {}}),
        )
        .await;
        // …and names the set the first left.
        let second = cli.recv_request("mcp_set_servers").await;
        assert_eq!(names(&second), ["ext", "calc", "notes"]);
        cli.answer(
            &second,
            json!({"added": ["notes"], "removed": [], "errors": {}}),
        )
        .await;
    };
    let ((set, added), ()) = within!(async { tokio::join!(changes, cli_side) });
    assert_eq!(set.unwrap().added, ["ext"]);
    added.unwrap();
}
