//! The standalone stdio example (`examples/examples/stdio_server.rs`) as the real CLI's external
//! `stdio` MCP server: the CLI starts the example binary, lists its tools over stdin/stdout and
//! the scripted model calls them; the results reach the model.

use claude_tools_runtime::options::ExternalServer;
use claude_tools_testkit::model_server::{Script, Turn};
use serde_json::json;

use crate::harness::{tr, within, world};
use crate::run_query;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_cli_calls_the_tools_of_the_stdio_example() {
    let script = Script::new()
        .turn(
            Turn::text("Converting and counting.")
                .and_tool_use(
                    "toolu_stdio_hot",
                    "mcp__units__to_fahrenheit",
                    json!({"celsius": 100}),
                )
                .and_tool_use(
                    "toolu_stdio_cold",
                    "mcp__units__to_fahrenheit",
                    json!({"celsius": -300}),
                )
                .and_tool_use(
                    "toolu_stdio_words",
                    "mcp__units__word_stats",
                    json!({"text": "the quick brown fox"}),
                )
                .and_tool_use("toolu_stdio_count", "mcp__units__count_to", json!({"n": 3})),
        )
        .turn(Turn::text(
            "{{tool_result:toolu_stdio_hot}} / {{tool_result:toolu_stdio_count}}",
        ));
    let Some(w) = world("stdio_example", script).await else {
        return;
    };
    let command =
        tokio::task::spawn_blocking(|| claude_tools_tests::example_binary("stdio_server"))
            .await
            .expect("the build task");
    let options = w
        .options()
        .external_mcp_server(
            "units",
            ExternalServer::stdio(command.display().to_string(), Vec::<String>::new()),
        )
        .allowed_tools([
            "mcp__units__to_fahrenheit",
            "mcp__units__word_stats",
            "mcp__units__count_to",
        ]);
    let messages = within("the stdio example", run_query("convert and count", options)).await;

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
                "toolu_stdio_cold",
                "-300 °C is below absolute zero (-273.15 °C)",
                true
            ),
            tr("toolu_stdio_count", "counted to 3", false),
            tr("toolu_stdio_hot", "100 °C is 212 °F", false),
            tr(
                "toolu_stdio_words",
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
}
