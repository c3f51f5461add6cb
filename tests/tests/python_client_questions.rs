//! A running tool's questions to the client, answered by a client no one here wrote: the
//! official MCP Python SDK (PyPI `mcp`, pinned in `scripts/install-python-mcp`) with an
//! `elicitation_callback`, a `sampling_callback` and a `list_roots_callback`, against the
//! `ask-mcp` test server (tests/src/bin/ask-mcp.rs) over stdio, over Streamable HTTP with
//! sessions (the questions go out on the call's SSE stream, the answers come back as `POST`s),
//! and over stateless HTTP (a clear error saying to turn sessions on). Each tool acts on the
//! answer; a client without the callbacks (so without the capabilities) gets the capability
//! error.
//!
//! Without the SDK's venv (`.cache/python-mcp`) the tests skip with a banner, unless `CI` is
//! set, where they fail.

use std::process::Command;

use claude_tools_tests::{ListeningServer, text_result};
use serde_json::{Value, json};

const SERVER: &str = env!("CARGO_BIN_EXE_ask-mcp");

/// Runs the client script with `args` and returns its report, within a minute.
fn run_client(python: &std::path::Path, args: &[&str]) -> Value {
    claude_tools_tests::run_python_client(python, "ask_client.py", args)
}

/// The server over HTTP.
fn start_http(extra: &[&str]) -> ListeningServer {
    let mut command = Command::new(SERVER);
    command.arg("--http").args(extra);
    ListeningServer::start(command)
}

const NO_ELICITATION: &str = "the client did not announce the `elicitation` capability when it \
    connected, so it cannot be asked for a form (elicitation); nothing was sent";

/// What a client with the callbacks, then one without, sees of the three tools.
fn assert_answered(report: &Value) {
    assert_eq!(
        report["delete_file"],
        text_result("deleted /tmp/old.log (tidy up)", false)
    );
    assert_eq!(
        report["name_colour"],
        text_result("#ff7f50 is coral (said python-model)", false)
    );
    assert_eq!(report["roots"], text_result("file:///work", false));
    // The form the user was shown is generated from the tool's `Confirm` struct.
    assert_eq!(
        report["asked"]["elicitation"],
        json!({
            "mode": "form",
            "message": "Delete /tmp/old.log?",
            "requestedSchema": {
                "type": "object",
                "properties": {
                    "confirm": {"type": "boolean", "description": "Delete it?"},
                    "reason": {"type": "string", "description": "Why, if you like"}
                },
                "required": ["confirm"]
            }
        })
    );
    assert_eq!(
        report["asked"]["sampling"],
        json!({
            "messages": [{"role": "user", "content": {"type": "text", "text": "Name #ff7f50"}}],
            "modelPreferences": {"hints": [{"name": "haiku"}]},
            "systemPrompt": "Answer with one word.",
            "maxTokens": 20
        })
    );
    assert_eq!(
        report["without_callbacks"],
        text_result(NO_ELICITATION, true)
    );
}

#[test]
fn the_python_client_answers_a_tools_questions_over_stdio() {
    let Some(python) = claude_tools_tests::python_mcp("python_client_questions_stdio") else {
        return;
    };
    assert_answered(&run_client(&python, &["stdio", SERVER]));
}

#[test]
fn the_python_client_answers_a_tools_questions_over_http_with_sessions() {
    let Some(python) = claude_tools_tests::python_mcp("python_client_questions_http") else {
        return;
    };
    let server = start_http(&[]);
    assert_answered(&run_client(&python, &["http", server.url()]));
}

#[test]
fn a_stateless_http_server_says_to_turn_sessions_on() {
    let Some(python) = claude_tools_tests::python_mcp("python_client_questions_stateless") else {
        return;
    };
    let server = start_http(&["--stateless"]);
    let report = run_client(&python, &["http", server.url()]);
    let stateless = text_result(
        "this MCP server is stateless, so a tool cannot ask the client anything (the answer \
         would come back on a request of its own, which a stateless server cannot tie to the \
         question): serve it with sessions on (`HttpServer::sessions(true)`)",
        true,
    );
    for tool in ["delete_file", "name_colour", "roots", "without_callbacks"] {
        assert_eq!(report[tool], stateless, "{tool}");
    }
    assert_eq!(report["asked"], json!({}), "the client was asked nothing");
}
