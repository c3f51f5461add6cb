//! The controls typed in issue 30 (`update_settings`, `set_mcp_permission_mode_override`,
//! `read_file`, `seed_read_state`, `reload_output_styles`, `get_usage`, and the new arguments
//! of `get_context_usage`, `reload_plugins` and `set_max_thinking_tokens`) against a scripted
//! CLI: the exact line each method writes, the typed reading of the answers the real CLI
//! 2.1.332 gave to the same requests (`fixtures/cli-2.1.332-more-control-answers.json`,
//! recorded offline), the CLI's refusals, a CLI that does not know the subtype, and every
//! control reached through a one-shot query's stream and a cloned handle.

use claude_tools_runtime::Error;
use claude_tools_runtime::control::{
    ContextDetail, Controls, McpPermissionMode, ReadFile, ReloadPlugins, SettingsUpdate,
    ThinkingChange, UsageQuery,
};
use claude_tools_runtime::options::{Effort, Options, ThinkingDisplay};
use claude_tools_runtime::query::query_with;
use claude_tools_runtime::transport::MemoryTransport;
use serde_json::{Value, json};

mod common;

use common::{Cli, WAIT, connect_answering_initialize, result_frame};

/// The real CLI's answer to `request` (the body of its control_response, without the id).
fn recorded(request: Value) -> Value {
    let fixture: Value = serde_json::from_str(include_str!(
        "fixtures/cli-2.1.332-more-control-answers.json"
    ))
    .expect("the fixture is JSON");
    fixture["exchanges"]
        .as_array()
        .expect("exchanges")
        .iter()
        .find(|exchange| exchange["request"] == request)
        .map(|exchange| exchange["answer"].clone())
        .unwrap_or_else(|| panic!("no recorded answer to {request}"))
}

impl Cli {
    /// Reads the host's next line, asserts it is exactly the control request `body` (byte for
    /// byte, key order included), and answers with `answer` (a control_response body).
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

macro_rules! within {
    ($future:expr) => {
        tokio::time::timeout(WAIT, $future)
            .await
            .expect("answered in time")
    };
}

/// Runs `$call` while the CLI expects `$body` and answers it as the real CLI did.
macro_rules! exchange {
    ($cli:expr, $call:expr, $body:expr) => {{
        let (outcome, ()) = within!(async { tokio::join!($call, $cli.expect_recorded($body)) });
        outcome
    }};
}

#[tokio::test]
async fn each_new_control_writes_its_exact_frame_and_types_the_real_answer() {
    let (client, mut cli) = connect_answering_initialize(Options::new()).await;

    let styles = exchange!(
        cli,
        client.reload_output_styles(),
        r#"{"subtype":"reload_output_styles"}"#
    )
    .unwrap();
    assert_eq!(
        styles.available_output_styles,
        ["default", "Proactive", "Concise", "Explanatory", "Learning"]
    );

    let file = exchange!(
        cli,
        client.read_file("note.txt", ReadFile::new()),
        r#"{"subtype":"read_file","path":"note.txt"}"#
    )
    .unwrap();
    assert_eq!(file.contents, "hello file\n");
    assert_eq!(file.abs_path, "/tmp/ctl-probe/proj/note.txt");
    assert!(!file.truncated && !file.is_base64());
    assert_eq!(file.lossy, Some(false));
    // A field the CLI sends and the type does not name is kept.
    assert_eq!(file.extra["requested_path"], "note.txt");

    let bytes = exchange!(
        cli,
        client.read_file("note.txt", ReadFile::new().max_bytes(3).base64()),
        r#"{"subtype":"read_file","path":"note.txt","max_bytes":3,"encoding":"base64"}"#
    )
    .unwrap();
    assert_eq!(bytes.contents, "aGVs");
    assert!(bytes.truncated && bytes.is_base64());
    assert_eq!(bytes.lossy, None);

    exchange!(
        cli,
        client.seed_read_state("note.txt", 1),
        r#"{"subtype":"seed_read_state","path":"note.txt","mtime":1}"#
    )
    .unwrap();

    let set = exchange!(
        cli,
        client.set_mcp_permission_mode_override("nope", Some(McpPermissionMode::Auto)),
        r#"{"subtype":"set_mcp_permission_mode_override","serverName":"nope","mode":"auto"}"#
    )
    .unwrap();
    assert!(set.warning.unwrap().contains("'nope' is not yet known"));
    let cleared = exchange!(
        cli,
        client.set_mcp_permission_mode_override("nope", None),
        r#"{"subtype":"set_mcp_permission_mode_override","serverName":"nope","mode":null}"#
    )
    .unwrap();
    assert!(cleared.warning.unwrap().contains("cleared"));

    let usage = exchange!(
        cli,
        client.usage(UsageQuery::new().skip_behaviors()),
        r#"{"subtype":"get_usage","skip_behaviors":true}"#
    )
    .unwrap();
    assert_eq!(usage.session.total_duration_ms, 423.0);
    assert_eq!(usage.session.total_cost_usd, 0.0);
    assert!(usage.session.model_usage.is_empty());
    assert_eq!(usage.subscription_type, None);
    assert!(!usage.rate_limits_available);
    assert_eq!(usage.rate_limits, None);
    assert_eq!(usage.extra["behaviors"], Value::Null);

    let context = exchange!(
        cli,
        client.context_usage_with(ContextDetail::Summary),
        r#"{"subtype":"get_context_usage","detail":"summary"}"#
    )
    .unwrap();
    assert!(context.total_tokens > 0);
    assert!(context.categories.iter().any(|c| c.name == "System tools"));

    exchange!(
        cli,
        client.update_settings(SettingsUpdate::local().output_style("Explanatory")),
        r#"{"subtype":"update_settings","source":"localSettings","settings":{"outputStyle":"Explanatory"}}"#
    )
    .unwrap();

    exchange!(
        cli,
        client.set_thinking(
            ThinkingChange::new()
                .max_tokens(Some(2048))
                .display(ThinkingDisplay::Summarized)
        ),
        r#"{"subtype":"set_max_thinking_tokens","max_thinking_tokens":2048,"thinking_display":"summarized"}"#
    )
    .unwrap();
    // What the change does not name is left out: the budget stays as it is.
    exchange!(
        cli,
        client.set_thinking(ThinkingChange::new().default_display()),
        r#"{"subtype":"set_max_thinking_tokens","thinking_display":null}"#
    )
    .unwrap();
    exchange!(
        cli,
        client.set_thinking(
            ThinkingChange::new()
                .max_tokens(None)
                .display(ThinkingDisplay::Highlights)
        ),
        r#"{"subtype":"set_max_thinking_tokens","max_thinking_tokens":null,"thinking_display":"highlights"}"#
    )
    .unwrap();

    let reloaded = exchange!(
        cli,
        client.reload_plugins_with(ReloadPlugins::new().hold_on_cache_impact().refuse_if_busy()),
        r#"{"subtype":"reload_plugins","hold_on_cache_impact":true,"refuse_if_busy":true}"#
    )
    .unwrap();
    assert_eq!(reloaded.held, Some(false));
    assert_eq!(reloaded.cache_impact, None);
    assert_eq!(reloaded.plugins.len(), 3);
}

#[tokio::test]
async fn arguments_the_cli_was_not_recorded_with_are_written_as_the_typescript_sdk_writes_them() {
    let (client, mut cli) = connect_answering_initialize(Options::new()).await;
    let ok = |response: Value| json!({"subtype": "success", "response": response});

    let (done, ()) = within!(async {
        tokio::join!(
            client.update_settings(SettingsUpdate::user().effort_level(Effort::High)),
            cli.expect_request(
                r#"{"subtype":"update_settings","source":"userSettings","settings":{"effortLevel":"high"}}"#,
                json!({"subtype": "success"})
            )
        )
    });
    done.unwrap();

    // Every option of a reload, in the TypeScript SDK's order; a held answer typed.
    let (reloaded, ()) =
        within!(async {
            tokio::join!(
            client.reload_plugins_with(
                ReloadPlugins::new()
                    .refuse_if_busy()
                    .add_plugin("/opt/plugins/review")
                    .add_plugin_without_mcp("/opt/plugins/tickets")
                    .hold_on_cache_impact()
            ),
            cli.expect_request(
                concat!(
                    r#"{"subtype":"reload_plugins","hold_on_cache_impact":true,"add_plugins":["#,
                    r#"{"type":"local","path":"/opt/plugins/review"},"#,
                    r#"{"type":"local","path":"/opt/plugins/tickets","skipMcpDiscovery":true}],"#,
                    r#""refuse_if_busy":true}"#
                ),
                ok(json!({"commands": [], "agents": [], "plugins": [], "mcpServers": [],
                    "error_count": 0, "held": true, "cache_impact": {
                        "mcp_servers_added": ["plugin:review:lint"], "mcp_servers_removed": [],
                        "lsp_tool_change": "may-add"}}))
            )
        )
        });
    let reloaded = reloaded.unwrap();
    assert_eq!(reloaded.held, Some(true));
    let impact = reloaded.cache_impact.unwrap();
    assert_eq!(impact.mcp_servers_added, ["plugin:review:lint"]);
    assert_eq!(impact.lsp_tool_change.as_deref(), Some("may-add"));

    // The plain forms write what they always wrote.
    let (reloaded, ()) = within!(async {
        tokio::join!(
            client.reload_plugins(),
            cli.expect_request(
                r#"{"subtype":"reload_plugins"}"#,
                ok(json!({"commands": [], "agents": [], "plugins": [], "mcpServers": [], "error_count": 0}))
            )
        )
    });
    assert_eq!(reloaded.unwrap().held, None);
    let (done, ()) = within!(async {
        tokio::join!(
            client.set_max_thinking_tokens(Some(1024)),
            cli.expect_request(
                r#"{"subtype":"set_max_thinking_tokens","max_thinking_tokens":1024}"#,
                json!({"subtype": "success"})
            )
        )
    });
    done.unwrap();
    let (done, ()) = within!(async {
        tokio::join!(
            client.set_max_thinking_tokens(None),
            cli.expect_request(
                r#"{"subtype":"set_max_thinking_tokens","max_thinking_tokens":null}"#,
                json!({"subtype": "success"})
            )
        )
    });
    done.unwrap();

    // A plan's rate limits, typed (the shape of `sdk.d.ts`, which the recorded API-key session
    // could not show).
    let (usage, ()) = within!(async {
        tokio::join!(
            client.usage(UsageQuery::new()),
            cli.expect_request(
                r#"{"subtype":"get_usage"}"#,
                ok(json!({"session": {"total_cost_usd": 0.25, "total_api_duration_ms": 1200.5,
                    "total_duration_ms": 5000, "total_lines_added": 3, "total_lines_removed": 1,
                    "model_usage": {"claude-sonnet-4-5": {"inputTokens": 10}}},
                    "subscription_type": "max", "rate_limits_available": true,
                    "rate_limits": {"five_hour": {"utilization": 12.5, "resets_at": "2026-11-29T15:00:00Z"},
                        "seven_day": null, "model_scoped": []},
                    "behaviors": {"sessions": 4}}))
            )
        )
    });
    let usage = usage.unwrap();
    assert_eq!(usage.session.total_cost_usd, 0.25);
    assert_eq!(usage.session.total_lines_added, 3);
    assert_eq!(
        usage.session.model_usage["claude-sonnet-4-5"]["inputTokens"],
        10
    );
    assert_eq!(usage.subscription_type.as_deref(), Some("max"));
    let limits = usage.rate_limits.unwrap();
    let five_hour = limits.five_hour.unwrap();
    assert_eq!(five_hour.utilization, Some(12.5));
    assert_eq!(five_hour.resets_at.as_deref(), Some("2026-11-29T15:00:00Z"));
    assert_eq!(limits.seven_day, None);
    assert_eq!(limits.extra["model_scoped"], json!([]));
    assert_eq!(usage.extra["behaviors"]["sessions"], 4);

    let (context, ()) = within!(async {
        tokio::join!(
            client.context_usage_with(ContextDetail::Full),
            cli.expect_request(
                r#"{"subtype":"get_context_usage","detail":"full"}"#,
                ok(json!({"totalTokens": 10, "maxTokens": 100, "categories": []}))
            )
        )
    });
    assert_eq!(context.unwrap().max_tokens, 100);
}

/// The control's failure as `(subtype, message, code)`.
fn refusal<T: std::fmt::Debug>(outcome: Result<T, Error>) -> (String, String, Option<String>) {
    match outcome {
        Err(Error::Control {
            subtype,
            message,
            code,
        }) => (subtype, message, code),
        other => panic!("expected the CLI's refusal, got {other:?}"),
    }
}

#[tokio::test]
async fn the_clis_refusals_are_control_errors_naming_the_request() {
    let (client, mut cli) = connect_answering_initialize(Options::new()).await;

    let denied = exchange!(
        cli,
        client.read_file("missing.txt", ReadFile::new()),
        r#"{"subtype":"read_file","path":"missing.txt"}"#
    );
    assert_eq!(
        refusal(denied),
        ("read_file".into(), "read denied: missing.txt".into(), None)
    );

    let not_allowed = exchange!(
        cli,
        client.update_settings(SettingsUpdate::user().set("model", "x")),
        r#"{"subtype":"update_settings","source":"userSettings","settings":{"model":"x"}}"#
    );
    assert_eq!(
        refusal(not_allowed).1,
        "update_settings keys not allowed: model"
    );

    let relative = exchange!(
        cli,
        client.reload_plugins_with(ReloadPlugins::new().add_plugin("relative")),
        r#"{"subtype":"reload_plugins","add_plugins":[{"type":"local","path":"relative"}]}"#
    );
    assert!(refusal(relative).1.contains("absolute paths"));

    // A busy session refuses with a code the caller can match to ask again later.
    let (busy, ()) = within!(async {
        tokio::join!(
            client.reload_plugins_with(ReloadPlugins::new().refuse_if_busy()),
            cli.expect_request(
                r#"{"subtype":"reload_plugins","refuse_if_busy":true}"#,
                json!({"subtype": "error", "error": "the session is busy",
                    "error_code": "reload_plugins_busy"})
            )
        )
    });
    assert_eq!(refusal(busy).2.as_deref(), Some("reload_plugins_busy"));
}

#[tokio::test]
async fn a_cli_that_does_not_know_a_control_refuses_it_and_the_session_goes_on() {
    let (client, mut cli) = connect_answering_initialize(Options::new()).await;
    // What the CLI 2.1.332 answers a subtype it does not know (recorded), for each new control
    // as an older CLI would answer it.
    let unsupported = |subtype: &str| {
        json!({"subtype": "error", "error": format!("Unsupported control request subtype: {subtype}"),
            "error_code": "unsupported_request"})
    };
    let (usage, ()) = within!(async {
        tokio::join!(
            client.usage(UsageQuery::new()),
            cli.expect_request(r#"{"subtype":"get_usage"}"#, unsupported("get_usage"))
        )
    });
    let (subtype, message, code) = refusal(usage);
    assert_eq!(subtype, "get_usage");
    assert_eq!(message, "Unsupported control request subtype: get_usage");
    assert_eq!(code.as_deref(), Some("unsupported_request"));

    let (seeded, ()) = within!(async {
        tokio::join!(
            client.seed_read_state("a.rs", 7),
            cli.expect_request(
                r#"{"subtype":"seed_read_state","path":"a.rs","mtime":7}"#,
                unsupported("seed_read_state")
            )
        )
    });
    assert_eq!(refusal(seeded).0, "seed_read_state");
    let (styles, ()) = within!(async {
        tokio::join!(
            client.reload_output_styles(),
            cli.expect_request(
                r#"{"subtype":"reload_output_styles"}"#,
                unsupported("reload_output_styles")
            )
        )
    });
    assert_eq!(refusal(styles).0, "reload_output_styles");
    let (over, ()) = within!(async {
        tokio::join!(
            client.set_mcp_permission_mode_override("s", Some(McpPermissionMode::Default)),
            cli.expect_request(
                r#"{"subtype":"set_mcp_permission_mode_override","serverName":"s","mode":"default"}"#,
                unsupported("set_mcp_permission_mode_override")
            )
        )
    });
    assert_eq!(refusal(over).0, "set_mcp_permission_mode_override");

    // The recorded answer of the real CLI to a subtype it does not know.
    let (raw, ()) = within!(async {
        tokio::join!(
            client.control_request(json!({"subtype": "no_such_control"})),
            cli.expect_recorded(r#"{"subtype":"no_such_control"}"#)
        )
    });
    assert_eq!(refusal(raw).2.as_deref(), Some("unsupported_request"));

    // The session goes on: the next control is answered.
    let styles = exchange!(
        cli,
        client.reload_output_styles(),
        r#"{"subtype":"reload_output_styles"}"#
    );
    assert_eq!(styles.unwrap().available_output_styles.len(), 5);
}

/// A one-shot query over a scripted CLI, its prompt read.
async fn one_shot() -> (claude_tools_runtime::stream::MessageStream, Cli) {
    let (transport, cli) = MemoryTransport::pair();
    let mut cli = Cli(cli);
    let stream = tokio::spawn(query_with("Work", Options::new(), transport));
    let initialize = cli.recv().await;
    cli.answer(&initialize, json!({})).await;
    let stream = within!(stream).unwrap().expect("the query started");
    let prompt = cli.recv().await;
    assert_eq!(prompt["type"], "user");
    (stream, cli)
}

#[tokio::test]
async fn a_one_shot_querys_stream_has_every_control_of_the_client() {
    let (mut stream, mut cli) = one_shot().await;
    let ok = json!({"subtype": "success"});
    // The controls `MessageStream` lacked before it shared `Controls` with `Client`.
    let (rewound, ()) = within!(async {
        tokio::join!(
            stream.rewind_files_dry_run("u-1"),
            cli.expect_request(
                r#"{"subtype":"rewind_files","user_message_id":"u-1","dry_run":true}"#,
                json!({"subtype": "success", "response": {"canRewind": false, "error": "File rewinding is not enabled."}})
            )
        )
    });
    assert!(!rewound.unwrap().can_rewind);
    let (done, ()) = within!(async {
        tokio::join!(
            stream.toggle_mcp_server("calc", false),
            cli.expect_request(
                r#"{"subtype":"mcp_toggle","serverName":"calc","enabled":false}"#,
                ok.clone()
            )
        )
    });
    done.unwrap();
    let (done, ()) = within!(async {
        tokio::join!(
            stream.apply_flag_settings(json!({"model": "claude-haiku-4-5"})),
            cli.expect_request(
                r#"{"subtype":"apply_flag_settings","settings":{"model":"claude-haiku-4-5"}}"#,
                ok.clone()
            )
        )
    });
    done.unwrap();
    let (answer, ()) = within!(async {
        tokio::join!(
            stream.control_request(json!({"subtype": "get_settings"})),
            cli.expect_request(
                r#"{"subtype":"get_settings"}"#,
                json!({"subtype": "success", "response": {"effective": {}}})
            )
        )
    });
    assert_eq!(answer.unwrap(), json!({"effective": {}}));
    // The new ones too, through a clone used from another task while the stream is read.
    let controls = Controls::clone(&stream);
    let styles = tokio::spawn(async move { controls.reload_output_styles().await });
    cli.expect_recorded(r#"{"subtype":"reload_output_styles"}"#)
        .await;
    assert_eq!(
        within!(styles).unwrap().unwrap().available_output_styles[0],
        "default"
    );
    cli.send(result_frame()).await;
    cli.send(json!({"type": "system", "subtype": "session_state_changed", "state": "idle"}))
        .await;
    let result = within!(stream.next()).expect("the result").unwrap();
    assert!(result.is_result());
    cli.expect_eof().await;
}
