//! The quickstart (`cargo run -p claude-tools-examples --example quickstart`) and the demo
//! (`scripts/demo`) through the example runner, the real CLI and their scripted models; for the
//! demo, the exact transcript the runner prints.

use std::path::Path;

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

/// `2.1.332` of the CLI's `2.1.332 (Claude Code)`.
fn cli_version(cli: &Path) -> String {
    let out = std::process::Command::new(cli)
        .arg("--version")
        .output()
        .expect("the CLI runs");
    assert!(out.status.success(), "{cli:?} --version: {out:?}");
    let text = String::from_utf8_lossy(&out.stdout);
    text.strip_suffix(" (Claude Code)\n")
        .unwrap_or_else(|| panic!("{cli:?} --version printed {text:?}"))
        .to_string()
}

/// The lines `scripts/demo` prints (the README shows them), but the figures that change from
/// run to run: the model server's port and the timings.
fn stable_lines(printed: &str) -> Vec<String> {
    printed
        .lines()
        .map(|line| {
            if let Some((before, _)) = line.split_once("http://127.0.0.1:") {
                format!("{before}http://127.0.0.1:PORT (set ANTHROPIC_API_KEY for the real one)")
            } else if let Some((before, _)) = line.split_once(" | duration: ") {
                format!("{before} | duration: ...")
            } else {
                line.to_string()
            }
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_demo_prints_the_transcript_the_readme_shows() {
    let Some(cli) = cli("examples_demo_transcript") else {
        return;
    };
    let run = within(
        "the demo",
        claude_tools_examples::demo_script::example()
            .cli_path(&cli)
            .quiet()
            .run(ModelChoice::Scripted),
    )
    .await
    .expect("the run finishes");
    assert!(run.is_success(), "{:#?}", run.result);
    // The version the CLI under test reports: the pinned one, as in the README's transcript
    // (`tests/tests/readme.rs` holds the README to the pin), or under scripts/test-newest-cli
    // the newest release.
    let version = cli_version(&cli);
    let version_line = format!("[Claude Code {version}; in-process server `triage`: connected]");
    // `list_tickets` answers `Json`, whose key order depends on serde_json's features: its two
    // lines are compared as JSON below.
    let board = json!({"count": 2, "tickets": [
        {"id": 1, "title": "SSO login fails", "area": "auth", "priority": "high", "team": "identity"},
        {"id": 2, "title": "Customers charged twice", "area": "billing", "priority": "high", "team": "payments"}
    ]});
    let mut lines = stable_lines(&run.printed);
    for (index, prefix) in [(18, "  <- list_tickets: "), (24, "The board now reports: ")] {
        let json_text = lines[index]
            .strip_prefix(prefix)
            .unwrap_or_else(|| panic!("line {index}: {}", lines[index]));
        assert_eq!(
            serde_json::from_str::<serde_json::Value>(json_text).unwrap(),
            board
        );
        lines[index] = format!("{prefix}BOARD");
    }
    // The two lookups run concurrently (read-only): their results print as they finish.
    lines[10..12].sort();
    assert_eq!(
        lines,
        [
            "model:  scripted, served by this process on http://127.0.0.1:PORT (set ANTHROPIC_API_KEY for the real one)",
            "tools:  mcp__triage__find_owner, mcp__triage__create_ticket, mcp__triage__list_tickets, mcp__triage__close_ticket",
            "",
            "> Two bug reports came in: SSO logins fail, and some customers were charged twice. Find out who owns each area, file a ticket for each, and tell me what is open.",
            "",
            version_line.as_str(),
            "",
            "assistant: I'll look up who owns the auth and billing areas.",
            "  -> find_owner {\"area\":\"auth\"}",
            "  -> find_owner {\"area\":\"billing\"}",
            "  <- find_owner: The auth area is owned by the identity team",
            "  <- find_owner: The billing area is owned by the payments team",
            "assistant: Filing one ticket per report.",
            "  -> create_ticket {\"title\":\"SSO login fails\",\"area\":\"auth\",\"priority\":\"high\"}",
            "  -> create_ticket {\"title\":\"Customers charged twice\",\"area\":\"billing\",\"priority\":\"high\"}",
            "  <- create_ticket: Created ticket #1 'SSO login fails' (high) for the identity team",
            "  <- create_ticket: Created ticket #2 'Customers charged twice' (high) for the payments team",
            "  -> list_tickets {}",
            "  <- list_tickets: BOARD",
            "",
            "== final answer",
            "Both reports are filed:",
            "- Created ticket #1 'SSO login fails' (high) for the identity team",
            "- Created ticket #2 'Customers charged twice' (high) for the payments team",
            "The board now reports: BOARD",
            "",
            "model replies: 4 (the CLI counts 6 turns) | duration: ...",
            "network: 4 model requests to 127.0.0.1, 0 attempts to go anywhere else",
        ]
    );
}
