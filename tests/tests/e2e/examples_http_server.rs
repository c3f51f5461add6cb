//! The Streamable HTTP example (`examples/examples/http_server.rs`) as the real CLI's external
//! `http` MCP server on 127.0.0.1, behind a bearer token: the CLI initializes and lists its tools
//! over HTTP and the scripted model calls them; the results reach the model.

use std::collections::BTreeMap;
use std::process::Stdio;

use claude_tools_runtime::options::ExternalServer;
use claude_tools_testkit::model_server::{Script, Turn};
use serde_json::json;
use tokio::io::{AsyncBufReadExt, BufReader};

use crate::harness::{tr, within, world};
use crate::run_query;

/// The token the example requires (through its `UNITS_MCP_TOKEN` environment variable).
const TOKEN: &str = "e2e-http-token";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_cli_calls_the_tools_of_the_http_example() {
    the_cli_calls_the_tools_of_the_example("http_example", &[]).await;
}

/// The same with the example in sessions mode (`--sessions`): the CLI keeps the session id
/// `initialize` answered and sends it with each request (without it, each would be `400`).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_cli_calls_the_tools_of_the_http_example_in_sessions_mode() {
    the_cli_calls_the_tools_of_the_example("http_example_sessions", &["--sessions"]).await;
}

async fn the_cli_calls_the_tools_of_the_example(world_name: &str, flags: &[&str]) {
    let script = Script::new()
        .turn(
            Turn::text("Converting and counting.")
                .and_tool_use(
                    "toolu_http_hot",
                    "mcp__units__to_fahrenheit",
                    json!({"celsius": 100}),
                )
                .and_tool_use(
                    "toolu_http_cold",
                    "mcp__units__to_fahrenheit",
                    json!({"celsius": -300}),
                )
                .and_tool_use(
                    "toolu_http_words",
                    "mcp__units__word_stats",
                    json!({"text": "the quick brown fox"}),
                )
                .and_tool_use("toolu_http_count", "mcp__units__count_to", json!({"n": 3})),
        )
        .turn(Turn::text(
            "{{tool_result:toolu_http_hot}} / {{tool_result:toolu_http_count}}",
        ));
    let Some(w) = world(world_name, script).await else {
        return;
    };
    let binary = tokio::task::spawn_blocking(|| claude_tools_tests::example_binary("http_server"))
        .await
        .expect("the build task");
    let mut server = tokio::process::Command::new(binary)
        .args(["--listen", "127.0.0.1:0"])
        .args(flags)
        .env("UNITS_MCP_TOKEN", TOKEN)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .expect("the example starts");
    let mut first_line = String::new();
    within(
        "the example's URL",
        BufReader::new(server.stdout.take().expect("piped stdout")).read_line(&mut first_line),
    )
    .await
    .expect("the example prints its URL");
    let url = first_line.trim().to_string();
    assert!(url.starts_with("http://127.0.0.1:"), "{url:?}");

    let headers = BTreeMap::from([("Authorization".to_string(), format!("Bearer {TOKEN}"))]);
    let options = w
        .options()
        .external_mcp_server("units", ExternalServer::Http { url, headers })
        .allowed_tools([
            "mcp__units__to_fahrenheit",
            "mcp__units__word_stats",
            "mcp__units__count_to",
        ]);
    let messages = within("the http example", run_query("convert and count", options)).await;

    assert_eq!(
        crate::harness::success_text(&messages),
        "100 °C is 212 °F / counted to 3"
    );
    let mut results = w.tool_results();
    results.sort();
    assert_eq!(
        results,
        [
            tr(
                "toolu_http_cold",
                "-300 °C is below absolute zero (-273.15 °C)",
                true
            ),
            tr("toolu_http_count", "counted to 3", false),
            tr("toolu_http_hot", "100 °C is 212 °F", false),
            tr(
                "toolu_http_words",
                r#"{"words":4,"chars":19,"longest":"quick"}"#,
                false
            ),
        ]
    );
    let mut offered = w.server.tools_offered(0).expect("a first turn");
    offered.retain(|name| name.starts_with("mcp__units__"));
    offered.sort();
    assert_eq!(
        offered,
        [
            "mcp__units__count_to",
            "mcp__units__to_fahrenheit",
            "mcp__units__word_stats"
        ]
    );
    w.assert_offline();
    let _ = server.kill().await;
}
