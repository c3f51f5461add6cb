//! The mixed servers example through the real CLI, run as its `main` runs it (the shared
//! runner, the scripted model): one tool of the in-process `inventory` server and one of the
//! external stdio echo server, called in one turn.

use claude_tools::ExternalServer;
use claude_tools_examples::mixed_servers::{TOOL_USE_IDS, TOOLS, example};
use claude_tools_examples::run::{Entry, ModelChoice};
use serde_json::json;

use crate::harness::{cli, json_lines, within};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_mixed_servers_example_calls_a_tool_of_each_server() {
    let Some(cli) = cli("examples_mixed_servers") else {
        return;
    };
    // The testkit's echo server (the example binary serves the same one from its own
    // executable), logging what it receives.
    let log_dir = claude_tools_testkit::TempDir::new("e2e-mixed").expect("temp dir");
    let log = log_dir.path().join("echo-calls.jsonl");
    let echo = ExternalServer::Stdio {
        command: env!("CARGO_BIN_EXE_echo-mcp").to_string(),
        args: Vec::new(),
        env: [(
            claude_tools_testkit::stdio_mcp::LOG_ENV.to_string(),
            log.display().to_string(),
        )]
        .into(),
    };
    let run = within(
        "the mixed servers example",
        example(echo)
            .cli_path(cli)
            .quiet()
            .run(ModelChoice::Scripted),
    )
    .await
    .expect("the example runs");
    let [stock, echoed] = TOOL_USE_IDS;

    let mut transcript = run.transcript.clone();
    // Two calls in one turn: the CLI may report their results in either order.
    transcript[3..5].sort_by_key(|entry| format!("{entry:?}"));
    let result = |id: &str, tool: &str, text: &str| Entry::ToolResult {
        id: id.to_string(),
        tool: tool.to_string(),
        text: text.to_string(),
        is_error: false,
    };
    assert_eq!(
        transcript,
        [
            Entry::Assistant("Asking the inventory and the echo server.".into()),
            Entry::ToolCall {
                id: stock.into(),
                tool: "stock_level".into(),
                input: json!({"sku": "MUG-BLUE"})
            },
            Entry::ToolCall {
                id: echoed.into(),
                tool: "mcp__echo__echo".into(),
                input: json!({"text": "restock checked"})
            },
            result(echoed, "mcp__echo__echo", "echo: restock checked"),
            result(stock, "stock_level", "MUG-BLUE (blue mug): 17 in stock"),
            Entry::Assistant(
                "In-process inventory: MUG-BLUE (blue mug): 17 in stock\n\
                 External echo server: echo: restock checked"
                    .into()
            ),
        ]
    );
    assert!(run.is_success());
    // The external server really received the call.
    assert_eq!(
        json_lines(&log),
        [json!({"name": "echo", "arguments": {"text": "restock checked"}})]
    );
    let server = run.server.as_ref().expect("the scripted model");
    let mut offered = server.tools_offered(0).expect("a first turn");
    offered.retain(|name| name.starts_with("mcp__"));
    offered.sort();
    // Every tool of both servers (the external one's as its tools/list has them).
    let mut expected: Vec<String> = claude_tools_testkit::stdio_mcp::tools()
        .as_array()
        .expect("a tools array")
        .iter()
        .map(|tool| format!("mcp__echo__{}", tool["name"].as_str().unwrap_or_default()))
        .chain([TOOLS[0].to_string()])
        .collect();
    expected.sort();
    assert_eq!(offered, expected);
    assert!(TOOLS.iter().all(|tool| offered.contains(&tool.to_string())));
    assert_eq!(server.proxy_attempts().len(), 0);
}
