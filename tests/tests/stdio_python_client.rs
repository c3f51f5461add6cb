//! The stdio example (`examples/examples/stdio_server.rs`) driven by the official MCP Python
//! SDK's client (PyPI `mcp`, pinned in `scripts/install-python-mcp`): a client no one here wrote
//! initializes, lists every tool with its schemas, calls each (a success, an `isError` result,
//! a structured result, progress), an unknown tool and one with bad arguments, abandons a
//! long call (the SDK cancels it) and goes on, then lists and gets the prompt, lists and reads
//! the resources (fixed and templated, and two that are not found) and completes arguments.
//!
//! Without the SDK's venv (`.cache/python-mcp`) the test skips with a banner, unless `CI` is
//! set, where it fails.

use claude_tools_examples::stdio_server::Units;
use claude_tools_tests::text_result;
use serde_json::{Value, json};

/// Runs the client script against `server` and returns its report, within a minute.
fn run_client(python: &std::path::Path, server: &std::path::Path) -> Value {
    claude_tools_tests::run_python_client(python, "stdio_client.py", &[server])
}

#[test]
fn the_python_sdk_client_lists_and_calls_every_tool_of_the_stdio_example() {
    let Some(python) = claude_tools_tests::python_mcp("stdio_python_client") else {
        return;
    };
    let server = claude_tools_tests::example_binary("stdio_server");
    let report = run_client(&python, &server);

    assert_eq!(
        report["initialize"],
        json!({
            "protocolVersion": "2025-11-25",
            "serverInfo": {"name": "units", "version": "1.0.0"},
            "instructions": "Unit conversions and text statistics.",
            "capabilities": {
                "tools": {"listChanged": false},
                "prompts": {"listChanged": false},
                "resources": {"subscribe": true, "listChanged": false},
                "completions": {},
                "logging": {}
            }
        })
    );
    // Prompts, resources (fixed and templated) and completions, as the client read them.
    assert_eq!(
        report["catalog"],
        claude_tools_tests::expected_units_catalog()
    );
    // The client read the very schemas the in-process path serves.
    assert_eq!(report["tools"], Value::Array(Units::server().list_tools()));
    let names: Vec<&str> = report["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|tool| tool["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        claude_tools_examples::stdio_server::TOOLS,
        "every tool is listed"
    );
    assert_eq!(
        report["tools"][2]["outputSchema"]["required"],
        json!(["words", "chars", "longest"])
    );

    let calls = &report["calls"];
    assert_eq!(calls["hot"], text_result("100 °C is 212 °F", false));
    assert_eq!(
        calls["cold"],
        text_result("-300 °C is below absolute zero (-273.15 °C)", true)
    );
    assert_eq!(
        calls["words"],
        json!({
            "content": [{"type": "text", "text": r#"{"words":4,"chars":19,"longest":"quick"}"#}],
            "structuredContent": {"words": 4, "chars": 19, "longest": "quick"},
            "isError": false,
            "resultType": "complete"
        })
    );
    assert_eq!(calls["count"], text_result("counted to 3", false));
    assert_eq!(
        calls["count_progress"],
        json!([[1.0, 3.0, "at 1"], [2.0, 3.0, "at 2"], [3.0, 3.0, "at 3"]])
    );
    assert_eq!(
        calls["unknown"],
        json!({
            "code": -32602,
            "message": "Invalid params",
            "data": "Tool `no_such_tool` not found on server `units`"
        })
    );
    assert_eq!(
        calls["bad_arguments"],
        text_result(
            "Invalid arguments for tool `to_fahrenheit`: argument `celsius`: invalid type: string \"hot\", expected f64",
            true
        )
    );
    // Abandoned at its first progress: the SDK sent `notifications/cancelled`, the call never
    // finished, and the server went on answering.
    assert_eq!(
        report["cancel"],
        json!({"finished": false, "next_call": text_result("0 °C is 32 °F", false)})
    );
    assert_eq!(report["ping"], "ok");
}
