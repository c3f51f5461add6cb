//! The mixed servers example through the real CLI: its scripted model calls the in-process
//! `inventory` server and the external stdio echo server in one turn.

use claude_tools::ExternalServer;
use claude_tools_examples::mixed_servers::{PROMPT, TOOL_USE_IDS, TOOLS, install, script};
use serde_json::json;

use crate::harness::{json_lines, success_text, tr, world};
use crate::run_query;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_mixed_servers_example_calls_a_tool_of_each_server() {
    let Some(w) = world("examples_mixed_servers", script()).await else {
        return;
    };
    // The testkit's echo server, logging what it receives (the example binary serves the same
    // server from its own executable).
    let log = w.path("echo-calls.jsonl");
    let echo = ExternalServer::Stdio {
        command: env!("CARGO_BIN_EXE_echo-mcp").to_string(),
        args: Vec::new(),
        env: [(
            claude_tools_testkit::stdio_mcp::LOG_ENV.to_string(),
            log.display().to_string(),
        )]
        .into(),
    };
    let messages = run_query(PROMPT, install(w.options(), echo)).await;
    let [stock, echoed] = TOOL_USE_IDS;

    assert_eq!(
        w.server.tools_offered(0).map(|mut names| {
            names.retain(|name| name.starts_with("mcp__"));
            names.sort();
            names
        }),
        Some(vec![TOOLS[1].to_string(), TOOLS[0].to_string()])
    );
    assert_eq!(
        json_lines(&log),
        [json!({"name": "echo", "arguments": {"text": "restock checked"}})]
    );
    assert_eq!(
        w.tool_results(),
        [
            tr(stock, "MUG-BLUE (blue mug): 17 in stock", false),
            tr(echoed, "echo: restock checked", false),
        ]
    );
    assert_eq!(
        success_text(&messages),
        "In-process inventory: MUG-BLUE (blue mug): 17 in stock\n\
         External echo server: echo: restock checked"
    );
    w.assert_offline();
}
