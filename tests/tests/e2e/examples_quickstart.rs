//! The quickstart (`cargo run -p claude-tools-examples --example quickstart`) and the demo
//! (`scripts/demo`) through the example runner, the real CLI and their scripted models.

use claude_tools_examples::quickstart::{self, TOOL_USE_IDS};
use claude_tools_examples::run::{Entry, ModelChoice};
use serde_json::json;

use super::examples_tickets::calls;
use super::harness::{cli, tr, within};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_quickstart_adds_converts_and_the_model_reads_the_failed_conversion() {
    let Some(cli) = cli("examples_quickstart") else {
        return;
    };
    let run = within(
        "the quickstart",
        quickstart::example()
            .cli_path(&cli)
            .quiet()
            .run(ModelChoice::Scripted),
    )
    .await
    .expect("the run finishes");
    assert!(run.is_success(), "{:#?}", run.result);
    let [add, seville, cold] = TOOL_USE_IDS;
    let below_zero = "-300 °C is below absolute zero (-273.15 °C)";

    assert_eq!(
        run.tool_calls(),
        calls(&[
            ("add", json!({"a": 21.5, "b": 4})),
            ("to_fahrenheit", json!({"celsius": 25.5})),
            ("to_fahrenheit", json!({"celsius": -300})),
        ])
    );
    assert_eq!(run.tool_result(add), Some(("21.5 + 4 = 25.5", false)));
    assert_eq!(
        run.tool_result(seville),
        Some(("25.5 °C is 77.9 °F", false))
    );
    assert_eq!(run.tool_result(cold), Some((below_zero, true)));
    // The transcript opens with the assistant's text, then the call, then its result.
    assert_eq!(
        run.transcript[..3],
        [
            Entry::Assistant("First the temperature in Seville.".to_string()),
            Entry::ToolCall {
                id: add.to_string(),
                tool: "add".to_string(),
                input: json!({"a": 21.5, "b": 4}),
            },
            Entry::ToolResult {
                id: add.to_string(),
                tool: "add".to_string(),
                text: "21.5 + 4 = 25.5".to_string(),
                is_error: false,
            },
        ]
    );
    // What the model was sent. The two conversions of one turn run concurrently (read-only
    // tools) and the CLI may send the failed one first: compare in id order.
    let server = run.server.as_ref().expect("the scripted model");
    let mut sent = server.tool_results();
    sent.sort();
    assert_eq!(
        sent,
        [
            tr(add, "21.5 + 4 = 25.5", false),
            tr(cold, below_zero, true),
            tr(seville, "25.5 °C is 77.9 °F", false),
        ]
    );
    assert!(
        server.proxy_attempts().is_empty(),
        "the CLI tried to go online"
    );
    assert_eq!(
        run.final_text(),
        format!("Seville: 25.5 °C is 77.9 °F. As for -300 °C, it does not exist: {below_zero}.")
    );
    let result = run.result.as_ref().unwrap();
    assert_eq!((run.model_replies, result.num_turns), (3, 4));
}
