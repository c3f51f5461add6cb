//! The real CLI against a claude-tools MCP server at MCP 2026-07-28, both products of this
//! repository end to end: the `interop-mcp` test server (tests/src/bin/interop-mcp.rs) as the
//! CLI's external **stdio** server and as its external **HTTP** server. The server's own log of
//! its traffic shows that the CLI probed with `server/discover`, was answered, and never sent
//! `initialize`: every request it sent claimed 2026-07-28. The scripted model calls a plain tool
//! and a tool that asks the user: that call ends in an `input_required` result, the CLI asks the
//! host (an `elicitation` control request), this host's `Options::on_elicitation` callback
//! answers, the CLI retries the call with the answer and the sealed `requestState`, the tool
//! completes, and the model sees its result. No request goes from the server to the CLI.
//!
//! (The CLI also opens a `subscriptions/listen` stream for the tool list, which the server's
//! `server/discover` says it can change; this test does not depend on it.)

use std::sync::{Arc, Mutex};

use claude_tools_runtime::elicitation::{ElicitationAnswer, ElicitationMode, ElicitationRequest};
use claude_tools_runtime::options::{ExternalServer, Options};
use claude_tools_testkit::model_server::{Script, Turn};
use serde_json::{Value, json};

use crate::harness::{World, json_lines, success_text, tr, within, world};
use crate::run_query;

const SERVER: &str = env!("CARGO_BIN_EXE_interop-mcp");

fn script() -> Script {
    Script::new()
        .turn(
            Turn::text("Shouting, then deploying.")
                .and_tool_use(
                    "toolu_interop_shout",
                    "mcp__interop__shout",
                    json!({"text": "hello"}),
                )
                .and_tool_use(
                    "toolu_interop_deploy",
                    "mcp__interop__deploy",
                    json!({"service": "billing-api"}),
                ),
        )
        .turn(Turn::text(
            "{{tool_result:toolu_interop_shout}} / {{tool_result:toolu_interop_deploy}}",
        ))
}

/// `options` with `server` as the external server `interop`, its two tools allowed, and a host
/// callback that approves every question (recording it).
fn with_interop(
    options: Options,
    server: ExternalServer,
    asked: Arc<Mutex<Vec<ElicitationRequest>>>,
) -> Options {
    options
        .external_mcp_server("interop", server)
        .allowed_tools(["mcp__interop__shout", "mcp__interop__deploy"])
        .on_elicitation(move |request| {
            asked.lock().unwrap().push(request.clone());
            async move {
                ElicitationAnswer::accept(
                    &request,
                    json!({"approve": true, "note": "from the host"}),
                )
                .expect("the answer fits the server's form")
            }
        })
}

/// Runs the scenario against `server` (whose log is `log`) and checks everything the CLI and the
/// host saw; returns the server's log.
async fn run_and_check(w: &World, server: ExternalServer, log: &std::path::Path) -> Vec<Value> {
    let asked: Arc<Mutex<Vec<ElicitationRequest>>> = Arc::default();
    let options = with_interop(w.options(), server, asked.clone());
    let messages = within(
        "the interop scenario",
        run_query("shout and deploy", options),
    )
    .await;
    let traffic = json_lines(log);

    assert_eq!(
        success_text(&messages),
        "HELLO! / deployed billing-api (from the host)",
        "the server saw: {traffic:#?}"
    );
    let mut results = w.tool_results();
    results.sort();
    assert_eq!(
        results,
        [
            tr(
                "toolu_interop_deploy",
                "deployed billing-api (from the host)",
                false
            ),
            tr("toolu_interop_shout", "HELLO!", false),
        ]
    );
    let asked = asked.lock().unwrap();
    assert_eq!(asked.len(), 1, "{asked:?}");
    assert_eq!(asked[0].server_name, "interop");
    assert_eq!(asked[0].message, "Deploy billing-api to production?");
    assert_eq!(asked[0].mode, ElicitationMode::Form);
    assert_eq!(asked[0].property_order, ["approve", "note"]);
    w.assert_offline();
    traffic
}

/// What the server's log says of the CLI's traffic: the probe answered, no `initialize`, every
/// request at 2026-07-28, the deploy call in two rounds, no request sent by the server.
fn assert_modern_traffic(traffic: &[Value]) {
    let methods: Vec<&str> = traffic
        .iter()
        .filter_map(|exchange| exchange["method"].as_str())
        .collect();
    assert_eq!(
        traffic
            .first()
            .map(|first| (&first["method"], &first["outcome"])),
        Some((&json!("server/discover"), &json!("complete"))),
        "the CLI probes first, and the probe is answered: {traffic:#?}"
    );
    assert!(
        !methods.contains(&"initialize"),
        "no initialize: {traffic:#?}"
    );
    for exchange in traffic {
        // The server's own messages are a listen stream's notifications, never a request.
        if exchange["from"] == "server" {
            assert_eq!(exchange["kind"], "notification", "{exchange}");
        }
        if exchange["from"] == "client" && exchange["kind"] == "request" {
            assert_eq!(exchange["revision"], "2026-07-28", "{exchange}");
        }
    }
    let rounds: Vec<(bool, bool, &Value)> = traffic
        .iter()
        .filter(|exchange| exchange["method"] == "tools/call" && exchange["name"] == "deploy")
        .map(|exchange| {
            (
                exchange["input_responses"] == true,
                exchange["request_state"] == true,
                &exchange["outcome"],
            )
        })
        .collect();
    assert_eq!(
        rounds,
        [
            (false, false, &json!("input_required")),
            (true, true, &json!("complete")),
        ],
        "the deploy call: a question, then the retry with the answer: {traffic:#?}"
    );
    let shouts: Vec<&Value> = traffic
        .iter()
        .filter(|exchange| exchange["method"] == "tools/call" && exchange["name"] == "shout")
        .map(|exchange| &exchange["outcome"])
        .collect();
    assert_eq!(shouts, [&json!("complete")], "{traffic:#?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_cli_speaks_2026_07_28_to_a_claude_tools_stdio_server() {
    let Some(w) = world("interop_cli_stdio", script()).await else {
        return;
    };
    let log = w.home.path().join("interop-stdio.jsonl");
    let server = ExternalServer::stdio(SERVER, ["--log".to_string(), log.display().to_string()]);
    let traffic = run_and_check(&w, server, &log).await;
    assert_modern_traffic(&traffic);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_cli_speaks_2026_07_28_to_a_claude_tools_http_server() {
    let Some(w) = world("interop_cli_http", script()).await else {
        return;
    };
    let log = w.home.path().join("interop-http.jsonl");
    let mut command = std::process::Command::new(SERVER);
    command.arg("--http").arg("--log").arg(&log);
    let http = claude_tools_tests::ListeningServer::start(command);
    let server = ExternalServer::Http {
        url: http.url().to_string(),
        headers: Default::default(),
    };
    let traffic = run_and_check(&w, server, &log).await;
    assert_modern_traffic(&traffic);
}
