//! End-to-end tests: the real Claude Code CLI (pinned, installed by `scripts/install-cli`), driven
//! by a scripted Anthropic Messages API on 127.0.0.1, calling claude-tools tools in this process.
//!
//! Each scenario asserts what the tools received (recorded by the tools themselves) and what the
//! model server was sent back (recorded by the server, `<system-reminder>` blocks stripped).
//! Without the CLI the tests skip with a banner, unless `CI` is set, where they fail.

mod agent_options;
mod arguments;
mod builtin_tools;
mod controls;
mod controls_typed;
mod elicitation;
mod examples_agent;
mod examples_api_key;
mod examples_guidelines;
mod examples_http_server;
mod examples_mixed_servers;
mod examples_permissions;
mod examples_quickstart;
mod examples_stdio_server;
mod examples_tickets;
mod examples_user_lookup;
mod file_checkpointing;
mod handshake_manifests;
mod harness;
mod header_gateway;
mod history;
mod interop_cli;
mod live_tools;
mod model_settings;
mod model_view;
mod otel_trace;
mod plugins;
mod prewarm;
mod prompts_resources;
mod questions;
mod sdk_host;
mod secrets_off_argv;
mod server_settings;
mod session_options;
mod session_store;
mod skill_shell;
mod skills_cli;
mod subagents;
mod tools;
mod typed;
mod typed_hook_families;
mod typed_hooks;
mod user_input;

use std::time::Duration;

use claude_tools_runtime::client::Client;
use claude_tools_runtime::hooks::{HookEvent, HookMatcher, HookOutput};
use claude_tools_runtime::options::ExternalServer;
use claude_tools_runtime::permission::PermissionDecision;
use claude_tools_runtime::query::query;
use claude_tools_testkit::model_server::{Script, Served, Turn};
use serde_json::{Value, json};

use harness::{
    dump, last_user_blocks, last_user_tool_result_ids, result_of, success_text, tool_uses, tr,
    within, world,
};

/// Runs one prompt through a one-shot `query()` and collects every message.
async fn run_query(
    prompt: &str,
    options: claude_tools_runtime::options::Options,
) -> Vec<claude_tools_runtime::message::Message> {
    within("query", async {
        let stream = query(prompt, options).await.expect("query starts");
        stream
            .collect()
            .await
            .expect("the message stream has no errors")
    })
    .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_tool_call_with_state() {
    let script = Script::new()
        .turn(Turn::text("Adding two.").and_tool_use(
            "toolu_e2e_add",
            "mcp__e2e__counter_add",
            json!({"by": 2}),
        ))
        .turn(Turn::text("The tool said: {{tool_result}}"));
    let Some(w) = world("one_tool_call_with_state", script).await else {
        return;
    };
    let (server, lab) = tools::server(40);
    let options = w
        .options()
        .mcp_server(server)
        .allowed_tools(["mcp__e2e__counter_add"]);
    let messages = run_query("add two to the counter", options).await;

    assert_eq!(success_text(&messages), "The tool said: counter is now 42");
    assert_eq!(
        lab.received(),
        [("counter_add", json!({"by": 2}), "toolu_e2e_add".to_string())]
    );
    assert_eq!(lab.counter(), 42);
    assert_eq!(
        w.tool_results(),
        [tr("toolu_e2e_add", "counter is now 42", false)]
    );
    let turns = w.turns();
    assert_eq!(turns.len(), 2, "{:#?}", dump(&messages));
    assert_eq!(turns[0].last_user_text(), "add two to the counter");
    assert!(
        turns[0]
            .tool_names()
            .contains(&"mcp__e2e__counter_add".to_string())
    );
    assert_eq!(
        tool_uses(&messages),
        [(
            "toolu_e2e_add".to_string(),
            "mcp__e2e__counter_add".to_string(),
            json!({"by": 2})
        )]
    );
    assert_eq!(result_of(&messages)["num_turns"], 2);
    w.assert_offline();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_read_only_calls_in_one_turn_run_concurrently_and_answer_in_one_message() {
    let script = Script::new()
        .turn(
            Turn::text("Looking both up.")
                .and_tool_use(
                    "toolu_e2e_a",
                    "mcp__e2e__slow_lookup",
                    json!({"key": "alpha", "ms": 1500}),
                )
                .and_tool_use(
                    "toolu_e2e_b",
                    "mcp__e2e__slow_lookup",
                    json!({"key": "beta", "ms": 1500}),
                ),
        )
        .turn(Turn::text(
            "{{tool_result:toolu_e2e_a}} and {{tool_result:toolu_e2e_b}}",
        ));
    let Some(w) = world("two_calls_in_one_turn", script).await else {
        return;
    };
    let (server, lab) = tools::server(0);
    let options = w
        .options()
        .mcp_server(server)
        .allowed_tools(["mcp__e2e__slow_lookup"]);
    let messages = run_query("look up alpha and beta", options).await;

    assert_eq!(success_text(&messages), "value of alpha and value of beta");
    let mut received = lab.received();
    received.sort_by(|a, b| a.2.cmp(&b.2));
    assert_eq!(
        received,
        [
            (
                "slow_lookup",
                json!({"key": "alpha", "ms": 1500}),
                "toolu_e2e_a".to_string()
            ),
            (
                "slow_lookup",
                json!({"key": "beta", "ms": 1500}),
                "toolu_e2e_b".to_string()
            ),
        ]
    );
    // Both handlers were running at the same time: each started before the other ended.
    let calls = lab.calls();
    let (a, b) = (&calls[0], &calls[1]);
    let (a_end, b_end) = (a.end.unwrap(), b.end.unwrap());
    assert!(
        a.start < b_end && b.start < a_end,
        "the read-only calls did not overlap: {calls:#?}"
    );
    // Both results came back in one user message, in the order of the tool_use blocks.
    let turns = w.turns();
    assert_eq!(turns.len(), 2);
    assert_eq!(
        last_user_tool_result_ids(&turns[1]),
        ["toolu_e2e_a", "toolu_e2e_b"]
    );
    assert_eq!(
        w.tool_results(),
        [
            tr("toolu_e2e_a", "value of alpha", false),
            tr("toolu_e2e_b", "value of beta", false)
        ]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tool_error_and_a_panic_reach_the_model_as_is_error() {
    let script = Script::new()
        .turn(
            Turn::text("Trying both.")
                .and_tool_use(
                    "toolu_e2e_fail",
                    "mcp__e2e__fail",
                    json!({"reason": "disk on fire"}),
                )
                .and_tool_use("toolu_e2e_boom", "mcp__e2e__explode", json!({})),
        )
        .turn(Turn::text("Both failed."));
    let Some(w) = world("tool_error_and_panic", script).await else {
        return;
    };
    let (server, lab) = tools::server(0);
    let options = w
        .options()
        .mcp_server(server)
        .allowed_tools(["mcp__e2e__fail", "mcp__e2e__explode"]);
    let messages = run_query("break things", options).await;

    assert_eq!(success_text(&messages), "Both failed.");
    assert_eq!(
        lab.received(),
        [
            (
                "fail",
                json!({"reason": "disk on fire"}),
                "toolu_e2e_fail".to_string()
            ),
            ("explode", json!({}), "toolu_e2e_boom".to_string()),
        ]
    );
    assert_eq!(
        w.tool_results(),
        [
            tr("toolu_e2e_fail", "disk on fire", true),
            tr("toolu_e2e_boom", "tool `explode` panicked: kaboom", true)
        ]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn invalid_arguments_name_the_field_and_the_tool_does_not_run() {
    let script = Script::new()
        .turn(Turn::tool_use(
            "toolu_e2e_bad",
            "mcp__e2e__counter_add",
            json!({"by": "two"}),
        ))
        .turn(Turn::text("Noted: {{tool_result}}"));
    let Some(w) = world("invalid_arguments", script).await else {
        return;
    };
    let (server, lab) = tools::server(7);
    let options = w
        .options()
        .mcp_server(server)
        .allowed_tools(["mcp__e2e__counter_add"]);
    let messages = run_query("add two", options).await;

    let expected = "Invalid arguments for tool `counter_add`: argument `by`: invalid type: string \"two\", expected i64";
    assert_eq!(success_text(&messages), format!("Noted: {expected}"));
    assert_eq!(lab.received(), []);
    assert_eq!(lab.counter(), 7);
    assert_eq!(w.tool_results(), [tr("toolu_e2e_bad", expected, true)]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn permission_callback_allows_with_updated_input_and_denies() {
    let script = Script::new()
        .turn(
            Turn::text("Greeting, then cleaning up.")
                .and_tool_use(
                    "toolu_e2e_greet",
                    "mcp__e2e__greet",
                    json!({"name": "Mallory"}),
                )
                .and_tool_use("toolu_e2e_delete", "mcp__e2e__delete_everything", json!({})),
        )
        .turn(Turn::text("Done."));
    let Some(w) = world("permission_callback", script).await else {
        return;
    };
    let (server, lab) = tools::server(0);
    let asked = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let asked_in_callback = asked.clone();
    let options = w.options().mcp_server(server).can_use_tool(move |request| {
        asked_in_callback.lock().unwrap().push((
            request.tool_name.clone(),
            request.input.clone(),
            request.tool_use_id.clone().unwrap_or_default(),
        ));
        async move {
            match request.tool_name.as_str() {
                "mcp__e2e__greet" => {
                    let name = request.input["name"].as_str().unwrap_or_default();
                    PermissionDecision::allow_with_input(
                        json!({"name": format!("{name} (approved)")}),
                    )
                }
                _ => PermissionDecision::deny("not on my watch"),
            }
        }
    });
    let messages = run_query("greet Mallory and delete everything", options).await;

    assert_eq!(success_text(&messages), "Done.");
    assert_eq!(
        *asked.lock().unwrap(),
        [
            (
                "mcp__e2e__greet".to_string(),
                json!({"name": "Mallory"}),
                "toolu_e2e_greet".to_string()
            ),
            (
                "mcp__e2e__delete_everything".to_string(),
                json!({}),
                "toolu_e2e_delete".to_string()
            ),
        ]
    );
    assert_eq!(
        lab.received(),
        [(
            "greet",
            json!({"name": "Mallory (approved)"}),
            "toolu_e2e_greet".to_string()
        )]
    );
    assert_eq!(
        w.tool_results(),
        [
            tr("toolu_e2e_greet", "Hello, Mallory (approved)!", false),
            tr("toolu_e2e_delete", "not on my watch", true)
        ]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_pre_tool_use_hook_blocks_the_tool() {
    let script = Script::new()
        .turn(Turn::tool_use(
            "toolu_e2e_hooked",
            "mcp__e2e__greet",
            json!({"name": "Hook"}),
        ))
        .turn(Turn::text("Blocked: {{tool_result}}"));
    let Some(w) = world("pre_tool_use_hook", script).await else {
        return;
    };
    let (server, lab) = tools::server(0);
    let seen = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let seen_in_hook = seen.clone();
    let options = w
        .options()
        .mcp_server(server)
        .allowed_tools(["mcp__e2e__greet"])
        .hook(
            HookEvent::PreToolUse,
            HookMatcher::new("mcp__e2e__.*").callback(move |input| {
                seen_in_hook.lock().unwrap().push((
                    input.event_name().unwrap_or_default().to_string(),
                    input.tool_name().unwrap_or_default().to_string(),
                    input.tool_input().cloned().unwrap_or_default(),
                    input.tool_use_id.clone().unwrap_or_default(),
                ));
                async { HookOutput::new().deny_tool("greetings are paused") }
            }),
        );
    let messages = run_query("greet Hook", options).await;

    assert_eq!(
        *seen.lock().unwrap(),
        [(
            "PreToolUse".to_string(),
            "mcp__e2e__greet".to_string(),
            json!({"name": "Hook"}),
            "toolu_e2e_hooked".to_string()
        )]
    );
    assert_eq!(lab.received(), []);
    let expected = "PreToolUse:mcp__e2e__greet hook error: greetings are paused";
    assert_eq!(w.tool_results(), [tr("toolu_e2e_hooked", expected, true)]);
    assert_eq!(success_text(&messages), format!("Blocked: {expected}"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn interrupt_during_a_slow_tool_cancels_it_and_the_next_prompt_works() {
    let script = Script::new()
        .turn(Turn::tool_use(
            "toolu_e2e_wait",
            "mcp__e2e__wait_for_cancel",
            json!({"secs": 50}),
        ))
        .turn(Turn::text("Back after the interrupt.").when_user_text("are you still there"));
    let Some(w) = world("interrupt", script).await else {
        return;
    };
    let (server, lab) = tools::server(0);
    let options = w
        .options()
        .mcp_server(server)
        .allowed_tools(["mcp__e2e__wait_for_cancel"]);
    within("interrupt scenario", async {
        let mut client = Client::connect(options).await.expect("connect");
        client.query("start the long job").await.unwrap();
        lab.wait_until("the slow tool to start", |calls| !calls.is_empty())
            .await;
        let receipt = client.interrupt().await.expect("interrupt is answered");
        // One prompt, being answered: nothing was queued behind it.
        assert!(receipt.still_queued.is_empty(), "{receipt:?}");
        let first = client.receive_response().await.expect("first response");
        let result = result_of(&first);
        assert_eq!(result["subtype"], "error_during_execution", "{result:#}");
        assert_eq!(result["is_error"], true);
        lab.wait_until("the handler to see the cancellation", |calls| {
            calls[0].end.is_some()
        })
        .await;
        let calls = lab.calls();
        assert!(calls[0].cancelled, "{calls:#?}");
        assert_eq!(
            lab.received(),
            [(
                "wait_for_cancel",
                json!({"secs": 50}),
                "toolu_e2e_wait".to_string()
            )]
        );

        client.query("are you still there?").await.unwrap();
        let second = client.receive_response().await.expect("second response");
        assert_eq!(success_text(&second), "Back after the interrupt.");
        client.disconnect().await.expect("disconnect");
    })
    .await;
    let turns = w.turns();
    let last = turns.last().unwrap();
    assert_eq!(last.served, Served::Turn { index: 1 });
    // The interrupted call's error result and the CLI's interruption note travel in the same user
    // message as the next prompt.
    assert_eq!(
        last.last_user_text(),
        "[Request interrupted by user for tool use]\nare you still there?"
    );
    assert_eq!(last_user_tool_result_ids(last), ["toolu_e2e_wait"]);
    let results = w.tool_results();
    assert_eq!(results.len(), 1, "{results:#?}");
    assert_eq!(results[0].0, "toolu_e2e_wait");
    assert!(results[0].2, "{results:#?}");
    assert!(
        results[0]
            .1
            .starts_with("The user doesn't want to proceed with this tool use."),
        "{results:#?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_shot_query_with_a_three_second_tool_keeps_the_stream_open() {
    let script = Script::new()
        .turn(Turn::tool_use(
            "toolu_e2e_sleep",
            "mcp__e2e__sleepy",
            json!({"secs": 3}),
        ))
        .turn(Turn::text("The tool said: {{tool_result}}"));
    let Some(w) = world("slow_tool_query", script).await else {
        return;
    };
    let (server, lab) = tools::server(0);
    let options = w
        .options()
        .mcp_server(server)
        .allowed_tools(["mcp__e2e__sleepy"]);
    let messages = run_query("take a nap", options).await;

    assert_eq!(success_text(&messages), "The tool said: slept for 3 s");
    assert_eq!(
        lab.received(),
        [("sleepy", json!({"secs": 3}), "toolu_e2e_sleep".to_string())]
    );
    let calls = lab.calls();
    assert!(calls[0].end.unwrap() - calls[0].start >= Duration::from_secs(3));
    assert_eq!(
        w.tool_results(),
        [tr("toolu_e2e_sleep", "slept for 3 s", false)]
    );
    let all = format!("{:?}", dump(&messages));
    assert!(!all.contains("Stream closed"), "{all}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_multi_prompt_client_conversation_keeps_state_and_history() {
    // Turns are chosen by the number of assistant messages, so the history must carry over.
    let script = Script::new()
        .turn(Turn::tool_use(
            "toolu_e2e_one",
            "mcp__e2e__counter_add",
            json!({"by": 1}),
        ))
        .turn(Turn::text("First: {{tool_result}}"))
        .turn(Turn::tool_use(
            "toolu_e2e_ten",
            "mcp__e2e__counter_add",
            json!({"by": 10}),
        ))
        .turn(Turn::text("Second: {{tool_result}}"))
        .turn(Turn::text("You said: {{user_text}}"));
    let Some(w) = world("multi_prompt_client", script).await else {
        return;
    };
    let (server, lab) = tools::server(100);
    let options = w
        .options()
        .mcp_server(server)
        .allowed_tools(["mcp__e2e__counter_add"]);
    let (answers, session_ids) = within("client conversation", async {
        let mut client = Client::connect(options).await.expect("connect");
        let mut answers = Vec::new();
        let mut session_ids = Vec::new();
        for prompt in ["add one", "add ten", "thanks"] {
            client.query(prompt).await.unwrap();
            let messages = client.receive_response().await.expect("response");
            answers.push(success_text(&messages));
            session_ids.push(result_of(&messages)["session_id"].clone());
        }
        client.disconnect().await.expect("disconnect");
        (answers, session_ids)
    })
    .await;

    assert_eq!(
        answers,
        [
            "First: counter is now 101",
            "Second: counter is now 111",
            "You said: thanks"
        ]
    );
    assert_eq!(session_ids[0], session_ids[1]);
    assert_eq!(session_ids[1], session_ids[2]);
    assert_eq!(
        lab.received(),
        [
            ("counter_add", json!({"by": 1}), "toolu_e2e_one".to_string()),
            (
                "counter_add",
                json!({"by": 10}),
                "toolu_e2e_ten".to_string()
            )
        ]
    );
    let served: Vec<Served> = w.turns().into_iter().map(|r| r.served).collect();
    assert_eq!(
        served,
        (0..5)
            .map(|index| Served::Turn { index })
            .collect::<Vec<_>>()
    );
    assert_eq!(
        w.tool_results(),
        [
            tr("toolu_e2e_one", "counter is now 101", false),
            tr("toolu_e2e_ten", "counter is now 111", false)
        ]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_image_result_reaches_the_model_as_an_image_block() {
    let script = Script::new()
        .turn(Turn::tool_use(
            "toolu_e2e_chart",
            "mcp__e2e__chart",
            json!({}),
        ))
        .turn(Turn::text("Nice chart."));
    let Some(w) = world("image_result", script).await else {
        return;
    };
    let (server, lab) = tools::server(0);
    let options = w
        .options()
        .mcp_server(server)
        .allowed_tools(["mcp__e2e__chart"]);
    let messages = run_query("draw a chart", options).await;

    assert_eq!(success_text(&messages), "Nice chart.");
    assert_eq!(
        lab.received(),
        [("chart", json!({}), "toolu_e2e_chart".to_string())]
    );
    let turns = w.turns();
    let blocks = last_user_blocks(&turns[1]);
    let result = blocks
        .iter()
        .find(|b| b["type"] == "tool_result")
        .expect("a tool_result");
    assert_eq!(result["tool_use_id"], "toolu_e2e_chart");
    assert_ne!(result["is_error"], true);
    let images: Vec<&Value> = result["content"]
        .as_array()
        .expect("content blocks")
        .iter()
        .filter(|b| b["type"] == "image")
        .collect();
    assert_eq!(
        images,
        [
            &json!({"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": tools::PNG_1X1_BASE64}})
        ],
        "{result:#}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_json_structured_result_reaches_the_model() {
    let script = Script::new()
        .turn(Turn::tool_use(
            "toolu_e2e_stats",
            "mcp__e2e__stats",
            json!({"numbers": [1, 2, 4.5]}),
        ))
        .turn(Turn::text("Stats: {{tool_result}}"));
    let Some(w) = world("json_result", script).await else {
        return;
    };
    let (server, lab) = tools::server(0);
    let options = w
        .options()
        .mcp_server(server)
        .allowed_tools(["mcp__e2e__stats"]);
    let messages = run_query("average these", options).await;

    assert_eq!(
        lab.received(),
        [(
            "stats",
            json!({"numbers": [1.0, 2.0, 4.5]}),
            "toolu_e2e_stats".to_string()
        )]
    );
    let expected = r#"{"count":3,"mean":2.5}"#;
    assert_eq!(w.tool_results(), [tr("toolu_e2e_stats", expected, false)]);
    assert_eq!(success_text(&messages), format!("Stats: {expected}"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_external_stdio_server_and_an_in_process_one_in_one_session() {
    let script = Script::new()
        .turn(
            Turn::text("Using both servers.")
                .and_tool_use(
                    "toolu_e2e_echo",
                    "mcp__echo__echo",
                    json!({"text": "hello"}),
                )
                .and_tool_use("toolu_e2e_count", "mcp__e2e__counter_add", json!({"by": 5})),
        )
        .turn(Turn::text(
            "{{tool_result:toolu_e2e_echo}} / {{tool_result:toolu_e2e_count}}",
        ));
    let Some(w) = world("external_and_in_process", script).await else {
        return;
    };
    let log = w.path("echo-calls.jsonl");
    let (server, lab) = tools::server(0);
    let echo = ExternalServer::Stdio {
        command: env!("CARGO_BIN_EXE_echo-mcp").to_string(),
        args: Vec::new(),
        env: [(
            claude_tools_testkit::stdio_mcp::LOG_ENV.to_string(),
            log.display().to_string(),
        )]
        .into(),
    };
    let options = w
        .options()
        .mcp_server(server)
        .external_mcp_server("echo", echo)
        .allowed_tools(["mcp__echo__echo", "mcp__e2e__counter_add"]);
    let messages = run_query("echo and count", options).await;

    assert_eq!(success_text(&messages), "echo: hello / counter is now 5");
    assert_eq!(
        harness::json_lines(&log),
        [json!({"name": "echo", "arguments": {"text": "hello"}})]
    );
    assert_eq!(
        lab.received(),
        [(
            "counter_add",
            json!({"by": 5}),
            "toolu_e2e_count".to_string()
        )]
    );
    assert_eq!(
        w.tool_results(),
        [
            tr("toolu_e2e_echo", "echo: hello", false),
            tr("toolu_e2e_count", "counter is now 5", false)
        ]
    );
    let offered = w.server.tools_offered(0).unwrap();
    for name in ["mcp__echo__echo", "mcp__e2e__counter_add"] {
        assert!(offered.contains(&name.to_string()), "{offered:?}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_api_answering_529_then_success_is_retried() {
    let script = Script::new()
        .turn(
            Turn::http_error(529, "overloaded_error", "Overloaded")
                .times(1)
                .header("x-should-retry", "true")
                .and_text("Adding.")
                .and_tool_use("toolu_e2e_retry", "mcp__e2e__counter_add", json!({"by": 3})),
        )
        .turn(Turn::text("After the retry: {{tool_result}}"));
    let Some(w) = world("api_529_then_success", script).await else {
        return;
    };
    let (server, lab) = tools::server(0);
    let options = w
        .options()
        .mcp_server(server)
        .allowed_tools(["mcp__e2e__counter_add"]);
    let messages = run_query("add three", options).await;

    assert_eq!(success_text(&messages), "After the retry: counter is now 3");
    let served: Vec<Served> = w.turns().into_iter().map(|r| r.served).collect();
    assert_eq!(
        served,
        [
            Served::TurnError {
                index: 0,
                status: 529
            },
            Served::Turn { index: 0 },
            Served::Turn { index: 1 }
        ]
    );
    assert_eq!(
        lab.received(),
        [(
            "counter_add",
            json!({"by": 3}),
            "toolu_e2e_retry".to_string()
        )]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_tool_search_on_always_load_tools_are_offered_on_the_first_turn() {
    let script = Script::new()
        .turn(Turn::tool_use(
            "toolu_e2e_search",
            "mcp__e2e__counter_add",
            json!({"by": 1}),
        ))
        .turn(Turn::text("{{tool_result}}"));
    let Some(w) = world("tool_search_always_load", script).await else {
        return;
    };
    let (server, lab) = tools::server(0);
    let options = w
        .options_keep_tool_search()
        .mcp_server(server)
        .allowed_tools(["mcp__e2e__counter_add"]);
    let messages = run_query("add one", options).await;

    assert_eq!(success_text(&messages), "counter is now 1");
    let offered = w.server.tools_offered(0).unwrap();
    // Every tool is always_load (the default) except `rarely_used`, which tool search defers.
    for tool in [
        "counter_add",
        "slow_lookup",
        "fail",
        "explode",
        "greet",
        "delete_everything",
        "wait_for_cancel",
        "sleepy",
        "chart",
        "stats",
    ] {
        let name = format!("mcp__e2e__{tool}");
        assert!(offered.contains(&name), "{name} not in {offered:?}");
    }
    assert!(
        !offered.contains(&"mcp__e2e__rarely_used".to_string()),
        "tool search was not on: {offered:?}"
    );
    assert_eq!(
        lab.received(),
        [(
            "counter_add",
            json!({"by": 1}),
            "toolu_e2e_search".to_string()
        )]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_demo_runs_end_to_end() {
    use claude_tools_examples::demo_script;
    use claude_tools_examples::triage::{Board, Triage};

    let Some(w) = world("demo", demo_script::script()).await else {
        return;
    };
    let board = std::sync::Arc::new(Board::with_default_owners());
    let options = w
        .options()
        .mcp_server(Triage::server().with_shared_state(board.clone()))
        .allowed_tools([
            "mcp__triage__find_owner",
            "mcp__triage__create_ticket",
            "mcp__triage__list_tickets",
        ]);
    let messages = run_query(demo_script::PROMPT, options).await;

    // `Json` results go through `serde_json::Value`, whose key order depends on whether some
    // crate in the build enabled serde_json's `preserve_order`: compare that part as JSON.
    let listed = json!({"count": 2, "tickets": [
        {"id": 1, "title": "SSO login fails", "area": "auth", "priority": "high", "team": "identity"},
        {"id": 2, "title": "Customers charged twice", "area": "billing", "priority": "high", "team": "payments"}
    ]});
    let answer = success_text(&messages);
    let (filed, board_json) = answer
        .split_once("\nThe board now reports: ")
        .unwrap_or_else(|| panic!("unexpected answer: {answer}"));
    assert_eq!(
        filed,
        "Both reports are filed:\n\
         - Created ticket #1 'SSO login fails' (high) for the identity team\n\
         - Created ticket #2 'Customers charged twice' (high) for the payments team"
    );
    assert_eq!(serde_json::from_str::<Value>(board_json).unwrap(), listed);
    let ids = demo_script::TOOL_USE_IDS;
    let mut results = w.tool_results();
    let (list_id, list_text, list_error) = results.pop().unwrap();
    assert_eq!(
        (list_id.as_str(), list_error),
        (ids[4], false),
        "{list_text}"
    );
    assert_eq!(serde_json::from_str::<Value>(&list_text).unwrap(), listed);
    assert_eq!(
        results,
        [
            tr(ids[0], "The auth area is owned by the identity team", false),
            tr(
                ids[1],
                "The billing area is owned by the payments team",
                false
            ),
            tr(
                ids[2],
                "Created ticket #1 'SSO login fails' (high) for the identity team",
                false
            ),
            tr(
                ids[3],
                "Created ticket #2 'Customers charged twice' (high) for the payments team",
                false
            ),
        ]
    );
    assert_eq!(board.open_tickets().len(), 2);
    w.assert_offline();
}
