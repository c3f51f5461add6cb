//! The Streamable HTTP example (`examples/examples/http_server.rs`) driven by the official MCP
//! Python SDK's client over `mcp.client.streamable_http` (PyPI `mcp`, pinned in
//! `scripts/install-python-mcp`): a client no one here wrote initializes over HTTP with a bearer
//! token, lists every tool with its schemas, calls each (a success, an `isError` result, a
//! structured result, progress streamed as SSE), an unknown tool and one with bad arguments,
//! abandons a long call and goes on; and a client without the token is refused.
//!
//! Without the SDK's venv (`.cache/python-mcp`) the test skips with a banner, unless `CI` is
//! set, where it fails.

use std::process::Command;
use std::time::Duration;

use claude_tools_examples::stdio_server::Units;
use claude_tools_tests::{ListeningServer, text_result};
use serde_json::{Value, json};

/// The token the example requires (through its `UNITS_MCP_TOKEN` environment variable).
const TOKEN: &str = "python-client-token";

/// Starts the example on a port of the system's choosing and reads its URL off its first line.
fn start_example() -> ListeningServer {
    let mut command = Command::new(claude_tools_tests::example_binary("http_server"));
    command
        .args(["--listen", "127.0.0.1:0"])
        .env("UNITS_MCP_TOKEN", TOKEN);
    let server = ListeningServer::start(command);
    assert!(server.url().ends_with("/mcp"), "{:?}", server.url());
    server
}

/// Runs the client script against `url` and returns its report, within a minute.
fn run_client(python: &std::path::Path, url: &str) -> Value {
    claude_tools_tests::run_python_client(python, "http_client.py", &[url, TOKEN])
}

#[test]
fn the_python_sdk_client_lists_and_calls_every_tool_of_the_http_example() {
    let Some(python) = claude_tools_tests::python_mcp("http_python_client") else {
        return;
    };
    let server = start_example();
    let report = run_client(&python, server.url());

    assert_eq!(
        report["initialize"],
        json!({
            "protocolVersion": "2025-11-25",
            "serverInfo": {"name": "units", "version": "1.0.0"},
            "instructions": "Unit conversions and text statistics.",
            "capabilities": {
                "tools": {"listChanged": false},
                "prompts": {"listChanged": false},
                "resources": {"subscribe": false, "listChanged": false},
                "completions": {},
                "logging": {}
            }
        })
    );
    // Prompts, resources (fixed and templated) and completions, as over stdio.
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
    // Streamed as SSE events before the result.
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
    // Abandoned at its first progress: the call never finished for the client, and the server
    // went on answering.
    assert_eq!(
        report["cancel"],
        json!({"finished": false, "next_call": text_result("0 °C is 32 °F", false)})
    );
    assert_eq!(report["ping"], "ok");
    // Our 401's JSON-RPC error body is what the SDK raised.
    assert_eq!(report["without_token"], json!(["MCPError: Unauthorized"]));
}

/// The SDK's client against an in-process server in sessions mode: it carries the session id by
/// itself (every call after `initialize` would be `400` without it), opens the session's GET
/// stream, and hears `notifications/tools/list_changed` there when a tool adds another through
/// the server's `tool_server_handle()`; abandoning a call posts `notifications/cancelled`, which
/// now cancels it; it subscribes to a resource and hears `notifications/resources/updated` on
/// its stream when a tool tells the handle the resource changed; on exit it ends the session
/// with DELETE.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_python_sdk_client_keeps_a_session_and_hears_list_changed_on_its_stream() {
    use std::sync::{Arc, OnceLock};

    use claude_tools::ToolServerHandle;
    use claude_tools::mcp::http::HttpServer;
    use claude_tools::resources::{Resource, ResourceRequest};
    use claude_tools::tools::{ToolContext, ToolServer};

    let Some(python) = claude_tools_tests::python_mcp("http_python_client sessions") else {
        return;
    };
    let handle: Arc<OnceLock<ToolServerHandle>> = Arc::default();
    let grower = handle.clone();
    let toucher = handle.clone();
    let (cancelled_tx, cancelled) = tokio::sync::oneshot::channel::<()>();
    let cancelled_tx = Arc::new(std::sync::Mutex::new(Some(cancelled_tx)));
    let server = ToolServer::new("sessions", "1.0.0")
        .with_typed_tool("grow", move || {
            let grower = grower.clone();
            async move {
                let handle = grower.get().expect("the handle is set before serving");
                match handle.add_typed_tool("grown", || async { "grown here" }) {
                    Ok(()) => "added `grown`".to_string(),
                    Err(error) => error.to_string(),
                }
            }
        })
        .unwrap()
        .with_typed_tool("wait", move |ctx: ToolContext| {
            let cancelled_tx = cancelled_tx.clone();
            async move {
                ctx.report_progress(1.0, None, Some("waiting"));
                ctx.cancelled().await;
                if let Some(tx) = cancelled_tx.lock().unwrap().take() {
                    let _ = tx.send(());
                }
                "cancelled"
            }
        })
        .unwrap()
        .with_typed_tool("touch", move || {
            let toucher = toucher.clone();
            async move {
                let handle = toucher.get().expect("the handle is set before serving");
                handle.resource_updated("sessions://counter");
                "touched"
            }
        })
        .unwrap()
        .with_resource(Resource::new(
            "sessions://counter",
            "counter",
            |_: ResourceRequest| async { "1" },
        ))
        .unwrap();
    let http = HttpServer::new(server).sessions(true);
    handle.set(http.tool_server_handle()).ok().unwrap();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    let serving = tokio::spawn(http.serve(listener).into_future());

    let report = {
        let python = python.clone();
        tokio::task::spawn_blocking(move || run_session_client(&python, &url))
            .await
            .unwrap()
    };
    assert_eq!(
        report["capabilities"],
        json!({
            "tools": {"listChanged": true},
            "resources": {"subscribe": true, "listChanged": true},
            "completions": {},
            "logging": {}
        })
    );
    assert_eq!(report["tools_before"], json!(["grow", "touch", "wait"]));
    assert_eq!(report["grow"], text_result("added `grown`", false));
    assert_eq!(
        report["tools_after"],
        json!(["grow", "grown", "touch", "wait"])
    );
    assert_eq!(report["grown"], text_result("grown here", false));
    assert_eq!(report["after_cancel"], text_result("grown here", false));
    // The SDK hands every notification to the handler: the change (from the session's GET
    // stream), then the `wait` call's progress (from its own SSE response).
    assert_eq!(
        report["notifications"],
        json!([
            "notifications/tools/list_changed",
            "notifications/progress",
            "notifications/resources/updated"
        ])
    );
    assert_eq!(report["subscribe"], json!({}));
    assert_eq!(report["touch"], text_result("touched", false));
    assert_eq!(report["updated_uri"], "sessions://counter");
    // The abandoned call was cancelled on the server, in its session.
    tokio::time::timeout(Duration::from_secs(10), cancelled)
        .await
        .expect("the abandoned call was cancelled")
        .unwrap();
    serving.abort();
}

/// Runs the sessions client script against `url` and returns its report, within a minute.
fn run_session_client(python: &std::path::Path, url: &str) -> Value {
    claude_tools_tests::run_python_client(python, "http_session_client.py", &[url])
}
