//! The session controls (issue 21) through the real CLI and the scripted model: interrupting a
//! one-shot `query`, the abort handle ending a running session from another task, the typed
//! `initialize` answer, and the controls the CLI acts on offline (thinking tokens, flag
//! settings, toggling an in-process server, stopping and backgrounding a running shell command,
//! MCP servers set at run time…).

use std::time::{Duration, Instant};

use claude_tools_runtime::Error;
use claude_tools_runtime::client::Client;
use claude_tools_runtime::message::Message;
use claude_tools_runtime::options::{ExternalServer, PermissionMode};
use claude_tools_runtime::query::query;
use claude_tools_testkit::model_server::{Script, Turn};
use serde_json::json;

use crate::harness::{dump, raw, result_of, success_text, within, world};
use crate::tools;

/// The model asks for a tool that waits 50 s unless cancelled.
fn slow_tool_script() -> Script {
    Script::new().turn(Turn::tool_use(
        "toolu_e2e_wait",
        "mcp__e2e__wait_for_cancel",
        json!({"secs": 50}),
    ))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn interrupt_on_a_one_shot_query_cancels_the_slow_tool_and_ends_the_run() {
    let Some(w) = world("query_interrupt", slow_tool_script()).await else {
        return;
    };
    let (server, lab) = tools::server(0);
    let options = w
        .options()
        .mcp_server(server)
        .allowed_tools(["mcp__e2e__wait_for_cancel"]);
    within("interrupting a one-shot query", async {
        let mut stream = query("start the long job", options)
            .await
            .expect("query starts");
        lab.wait_until("the slow tool to start", |calls| !calls.is_empty())
            .await;
        let receipt = stream.interrupt().await.expect("interrupt is answered");
        assert!(receipt.still_queued.is_empty(), "{receipt:?}");
        let mut messages = Vec::new();
        while let Some(item) = stream.next().await {
            messages.push(item.expect("no error on the stream"));
        }
        let result = result_of(&messages);
        assert_eq!(result["subtype"], "error_during_execution", "{result:#}");
        lab.wait_until("the handler to see the cancellation", |calls| {
            calls[0].end.is_some()
        })
        .await;
        assert!(lab.calls()[0].cancelled, "{:#?}", lab.calls());
        // The run ended on its own after the interrupted turn: the CLI exited by itself (with
        // 1, as after any failed turn), not by a signal.
        let exit = stream.exit_status().await;
        assert_eq!((exit.code, exit.signal), (Some(1), None), "{exit:?}");
    })
    .await;
    assert_eq!(w.turns().len(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_abort_handle_ends_a_running_session_from_another_task_gracefully() {
    let Some(w) = world("abort_handle", slow_tool_script()).await else {
        return;
    };
    let (server, lab) = tools::server(0);
    let options = w
        .options()
        .mcp_server(server)
        .allowed_tools(["mcp__e2e__wait_for_cancel"]);
    within("aborting a client", async {
        let mut client = Client::connect(options).await.expect("connect");
        client.query("start the long job").await.unwrap();
        let abort = client.abort_handle();
        let watcher = lab.clone();
        let aborting = tokio::spawn(async move {
            watcher
                .wait_until("the slow tool to start", |calls| !calls.is_empty())
                .await;
            let started = Instant::now();
            let exit = abort.abort().await;
            (exit, started.elapsed(), abort.is_finished())
        });
        // This task only reads: the stream delivers the interrupted turn's result, then ends.
        let mut messages = Vec::new();
        while let Some(item) = client.next_message().await {
            messages.push(item.expect("no error on the stream"));
        }
        let (exit, took, finished) = aborting.await.expect("the aborting task");
        // Ended by itself once its input closed (with 1, as after any failed turn), well before
        // the kill after 10 s.
        assert_eq!((exit.code, exit.signal), (Some(1), None), "{exit:?}");
        assert!(took < Duration::from_secs(10), "{took:?}");
        assert!(finished);
        let result = result_of(&messages);
        assert_eq!(result["subtype"], "error_during_execution", "{result:#}");
        lab.wait_until("the handler to see the cancellation", |calls| {
            calls[0].end.is_some()
        })
        .await;
        assert!(lab.calls()[0].cancelled, "{:#?}", lab.calls());
        // The session is over.
        assert!(client.query("anyone there?").await.is_err());
    })
    .await;
    assert_eq!(w.turns().len(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_cli_answers_the_controls_offline_and_acts_on_them() {
    let script = Script::new()
        .turn(Turn::tool_use(
            "toolu_e2e_greet",
            "mcp__e2e__greet",
            json!({"name": "Ann"}),
        ))
        .turn(Turn::text("Done: {{tool_result}}"));
    let Some(w) = world("offline_controls", script).await else {
        return;
    };
    let (server, _lab) = tools::server(0);
    let options = w
        .options()
        .mcp_server(server)
        .allowed_tools(["mcp__e2e__greet"]);
    within("the offline controls", async {
        let mut client = Client::connect(options).await.expect("connect");

        // From the initialize answer, typed.
        let info = client.initialize_info();
        assert!(info.claude_code_version.is_some(), "{info:?}");
        assert!(info.pid.is_some(), "{info:?}");
        assert!(
            client
                .supported_models()
                .iter()
                .any(|m| m.value == "default"),
            "{:?}",
            client.supported_models()
        );
        assert!(
            client
                .supported_commands()
                .iter()
                .any(|c| !c.name.is_empty()),
            "{:?}",
            client.supported_commands()
        );
        assert!(
            client
                .supported_agents()
                .iter()
                .any(|a| a.name == "Explore"),
            "{:?}",
            client.supported_agents()
        );
        let account = client.account_info().expect("the account");
        assert!(account.api_key_source.is_some(), "{account:?}");
        assert_eq!(
            client.initialize_info().permission_mode(),
            Some(PermissionMode::Default)
        );

        // Turned off, the in-process server is listed as disabled; turned on again, it serves
        // the next turn.
        client
            .toggle_mcp_server("e2e", false)
            .await
            .expect("toggle off");
        let status = client.mcp_status().await.expect("status");
        assert_eq!(
            status.server("e2e").map(|s| s.status.as_str()),
            Some("disabled")
        );
        client
            .toggle_mcp_server("e2e", true)
            .await
            .expect("toggle on");
        // The CLI reconnects only the servers it runs itself.
        match client.reconnect_mcp_server("e2e").await {
            Err(Error::Control { subtype, .. }) => assert_eq!(subtype, "mcp_reconnect"),
            other => panic!("expected the CLI's refusal, got {other:?}"),
        }
        match client.toggle_mcp_server("nope", false).await {
            Err(Error::Control { message, .. }) => assert!(message.contains("nope"), "{message}"),
            other => panic!("expected the CLI's refusal, got {other:?}"),
        }

        client
            .set_max_thinking_tokens(Some(2048))
            .await
            .expect("thinking tokens");
        client
            .apply_flag_settings(json!({"model": "claude-haiku-4-5"}))
            .await
            .expect("flag settings");
        assert!(matches!(
            client
                .apply_flag_settings(json!(["not", "an", "object"]))
                .await,
            Err(Error::Control { .. })
        ));
        // No foreground task: backgrounding all is fine; one that is not there matched none.
        assert!(client.background_tasks(None).await.expect("background all"));
        assert!(
            !client
                .background_tasks(Some("toolu_nothing"))
                .await
                .expect("background one")
        );
        client.stop_task("no-such-task").await.expect("stop task");
        let skills = client.reload_skills().await.expect("reload skills");
        let _ = skills.skills;
        let plugins = client.reload_plugins().await.expect("reload plugins");
        assert!(!plugins.commands.is_empty(), "{plugins:?}");
        let rewind = client
            .rewind_files_dry_run("00000000-0000-0000-0000-000000000000")
            .await
            .expect("rewind dry run");
        assert!(!rewind.can_rewind, "{rewind:?}");
        let mode = client
            .set_permission_mode(PermissionMode::AcceptEdits)
            .await
            .expect("permission mode");
        assert_eq!(mode.permission_mode(), Some(PermissionMode::AcceptEdits));

        client.query("greet Ann").await.unwrap();
        let messages = client.receive_response().await.expect("the response");
        assert_eq!(
            success_text(&messages),
            "Done: Hello, Ann!",
            "{messages:#?}"
        );
        client.disconnect().await.expect("disconnect");
    })
    .await;
    // The CLI acted on the settings and the thinking budget: every model request of the turn
    // carries them.
    let turns = w.turns();
    assert_eq!(turns.len(), 2);
    for turn in &turns {
        let body = turn.body.as_ref().expect("a JSON body");
        assert_eq!(body["model"], "claude-haiku-4-5", "{body:#}");
        assert_eq!(body["thinking"]["type"], "enabled", "{body:#}");
        assert_eq!(body["thinking"]["budget_tokens"], 2048, "{body:#}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_external_server_set_at_run_time_serves_the_next_turn_and_goes_again() {
    let script = Script::new()
        .turn(Turn::tool_use(
            "toolu_run_time",
            "mcp__units__to_fahrenheit",
            json!({"celsius": 100}),
        ))
        .turn(Turn::text("{{tool_result}}"));
    let Some(w) = world("set_mcp_servers", script).await else {
        return;
    };
    let command =
        tokio::task::spawn_blocking(|| claude_tools_tests::example_binary("stdio_server"))
            .await
            .expect("the build task");
    let (server, _lab) = tools::server(0);
    let options = w
        .options()
        .mcp_server(server)
        .allowed_tools(["mcp__units__to_fahrenheit"]);
    within("a server set at run time", async {
        let mut client = Client::connect(options).await.expect("connect");
        let units = ExternalServer::stdio(command.display().to_string(), Vec::<String>::new());
        let receipt = client
            .set_mcp_servers([("units", units)])
            .await
            .expect("set servers");
        assert_eq!(receipt.added, ["units"], "{receipt:?}");
        assert!(receipt.errors.is_empty(), "{receipt:?}");
        let status = client.mcp_status().await.expect("status");
        assert!(
            status.server("units").is_some_and(|s| s.is_connected()),
            "{status:?}"
        );

        // The CLI reconnects a server it runs itself.
        client
            .reconnect_mcp_server("units")
            .await
            .expect("reconnect");
        let status = client.mcp_status().await.expect("status");
        assert!(
            status.server("units").is_some_and(|s| s.is_connected()),
            "{status:?}"
        );

        client.query("convert 100 °C").await.unwrap();
        let messages = client.receive_response().await.expect("the response");
        assert_eq!(success_text(&messages), "100 °C is 212 °F", "{messages:#?}");

        let receipt = client
            .set_mcp_servers(Vec::<(String, ExternalServer)>::new())
            .await
            .expect("set no servers");
        assert_eq!(receipt.removed, ["units"], "{receipt:?}");
        let status = client.mcp_status().await.expect("status");
        assert!(status.server("units").is_none(), "{status:?}");
        assert!(
            messages.iter().any(|m| matches!(m, Message::Result(_))),
            "{messages:#?}"
        );
        client.disconnect().await.expect("disconnect");
    })
    .await;
}

/// The model runs a 40 s shell command in the foreground (not a bare `sleep`, which the CLI
/// refuses), then says what it returned.
fn long_shell_script() -> Script {
    Script::new()
        .turn(Turn::tool_use(
            "toolu_e2e_shell",
            "Bash",
            json!({"command": "timeout 40 tail -f /dev/null; echo woke", "description": "Wait a while"}),
        ))
        .turn(Turn::text("Result: {{tool_result}}"))
}

/// Reads the client's messages up to the `task_started` of the shell command, and returns its
/// task id.
async fn shell_task_started(client: &mut Client, seen: &mut Vec<Message>) -> String {
    while let Some(item) = client.next_message().await {
        let message = item.expect("no error on the stream");
        let raw = raw(&message);
        seen.push(message);
        if raw["subtype"] == "task_started" {
            assert_eq!(raw["tool_use_id"], "toolu_e2e_shell", "{raw:#}");
            return raw["task_id"].as_str().expect("a task id").to_string();
        }
    }
    panic!(
        "the stream ended before the task started: {:#?}",
        dump(seen)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stop_task_stops_a_running_shell_command() {
    let Some(w) = world("stop_task", long_shell_script()).await else {
        return;
    };
    let options = w.options().allowed_tools(["Bash"]);
    within("stopping a task", async {
        let mut client = Client::connect(options).await.expect("connect");
        let started = Instant::now();
        client.query("wait a while").await.unwrap();
        let mut messages = Vec::new();
        let task_id = shell_task_started(&mut client, &mut messages).await;
        client.stop_task(&task_id).await.expect("stop_task");
        messages.extend(client.receive_response().await.expect("the response"));
        let stopped = messages
            .iter()
            .map(raw)
            .find(|m| m["subtype"] == "task_notification")
            .unwrap_or_else(|| panic!("no task_notification: {:#?}", dump(&messages)));
        assert_eq!(stopped["task_id"], task_id.as_str(), "{stopped:#}");
        assert_eq!(stopped["status"], "stopped", "{stopped:#}");
        // The command was killed: the model got its failure long before the 40 s were up.
        let text = success_text(&messages);
        assert!(text.starts_with("Result: Exit code 137"), "{text}");
        assert!(started.elapsed() < Duration::from_secs(30));
        client.disconnect().await.expect("disconnect");
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn background_tasks_sends_a_running_shell_command_to_the_background() {
    let Some(w) = world("background_tasks", long_shell_script()).await else {
        return;
    };
    let options = w.options().allowed_tools(["Bash"]);
    within("backgrounding a task", async {
        let mut client = Client::connect(options).await.expect("connect");
        let started = Instant::now();
        client.query("wait a while").await.unwrap();
        let mut messages = Vec::new();
        shell_task_started(&mut client, &mut messages).await;
        let backgrounded = client
            .background_tasks(Some("toolu_e2e_shell"))
            .await
            .expect("background_tasks");
        assert!(backgrounded);
        messages.extend(client.receive_response().await.expect("the response"));
        // The turn went on without waiting for the command, which runs on.
        let text = success_text(&messages);
        assert!(
            text.starts_with("Result: Command was manually backgrounded"),
            "{text}"
        );
        assert!(started.elapsed() < Duration::from_secs(30));
        client.disconnect().await.expect("disconnect");
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_mcp_server_turned_off_is_not_offered_to_the_model_until_turned_on() {
    let script = Script::new()
        .turn(Turn::text("First."))
        .turn(Turn::text("Second."));
    let Some(w) = world("mcp_toggle", script).await else {
        return;
    };
    let (server, _lab) = tools::server(0);
    let options = w
        .options()
        .mcp_server(server)
        .allowed_tools(["mcp__e2e__greet"]);
    within("toggling a server", async {
        let mut client = Client::connect(options).await.expect("connect");
        client.toggle_mcp_server("e2e", false).await.expect("off");
        client.query("first").await.unwrap();
        assert_eq!(
            success_text(&client.receive_response().await.unwrap()),
            "First."
        );
        client.toggle_mcp_server("e2e", true).await.expect("on");
        client.query("second").await.unwrap();
        assert_eq!(
            success_text(&client.receive_response().await.unwrap()),
            "Second."
        );
        client.disconnect().await.expect("disconnect");
    })
    .await;
    let offered = |turn: &claude_tools_testkit::model_server::RecordedRequest| -> Vec<String> {
        turn.body.as_ref().expect("a JSON body")["tools"]
            .as_array()
            .expect("tools")
            .iter()
            .filter_map(|tool| tool["name"].as_str())
            .filter(|name| name.starts_with("mcp__e2e__"))
            .map(String::from)
            .collect()
    };
    let turns = w.turns();
    assert_eq!(turns.len(), 2);
    assert_eq!(offered(&turns[0]), Vec::<String>::new());
    assert!(
        offered(&turns[1])
            .iter()
            .any(|name| name == "mcp__e2e__greet"),
        "{:?}",
        offered(&turns[1])
    );
}
