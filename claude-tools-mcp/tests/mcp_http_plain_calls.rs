//! A `tools/call` of a tool that can send nothing before its result (no `ToolContext`, so no
//! progress, log message or question) is answered as plain JSON at both revisions, even from a
//! client that reads SSE and gave a progress token; one that does not finish at once is still
//! bounded by the request timeout, and at 2026-07-28 answered in that revision's form.

mod common;

use std::net::SocketAddr;
use std::time::Duration;

use claude_tools::mcp::http::HttpServer;
use claude_tools::prelude::*;
use common::{exchange, request};
use serde_json::{Value, json};
use tokio::net::TcpListener;

#[tool_server(name = "plain", version = "1.0.0")]
struct Plain;

/// Adds two integers.
#[tool(server = Plain)]
async fn add(
    /// The first term
    a: i64,
    /// The second term
    b: i64,
) -> i64 {
    a + b
}

/// Adds two integers after yielding once (not finished at its first poll).
#[tool(server = Plain)]
async fn add_later(
    /// The first term
    a: i64,
    /// The second term
    b: i64,
) -> i64 {
    tokio::task::yield_now().await;
    a + b
}

/// Sleeps for `ms` milliseconds.
#[tool(server = Plain)]
async fn nap(
    /// How long
    ms: u64,
) -> String {
    tokio::time::sleep(Duration::from_millis(ms)).await;
    "rested".to_string()
}

/// Reports progress, then answers: a tool that can send something.
#[tool(server = Plain)]
async fn chatty(context: ToolContext) -> String {
    context.report_progress(1.0, Some(1.0), None);
    "said".to_string()
}

const MODERN: &str = "2026-07-28";

async fn start(configure: impl FnOnce(HttpServer) -> HttpServer) -> SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let serve = configure(HttpServer::new(Plain::server())).serve(listener);
    tokio::spawn(serve.into_future());
    addr
}

/// A `tools/call` of `tool` with `arguments` and a progress token, at 2026-07-28 when `modern`.
fn call(modern: bool, tool: &str, arguments: Value) -> (Vec<(&'static str, String)>, String) {
    let mut meta = json!({"progressToken": "p"});
    let mut headers = vec![
        ("content-type", "application/json".to_string()),
        ("accept", "application/json, text/event-stream".to_string()),
    ];
    if modern {
        meta["io.modelcontextprotocol/protocolVersion"] = json!(MODERN);
        meta["io.modelcontextprotocol/clientCapabilities"] = json!({});
        headers.push(("mcp-protocol-version", MODERN.to_string()));
        headers.push(("mcp-method", "tools/call".to_string()));
        headers.push(("mcp-name", tool.to_string()));
    }
    let body = json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call",
        "params": {"name": tool, "arguments": arguments, "_meta": meta}});
    (headers, body.to_string())
}

async fn post(addr: SocketAddr, modern: bool, tool: &str, arguments: Value) -> common::Reply {
    let (headers, body) = call(modern, tool, arguments);
    let headers: Vec<(&str, &str)> = headers.iter().map(|(k, v)| (*k, v.as_str())).collect();
    exchange(addr, &request("POST", "/mcp", &headers, &body)).await
}

/// The result of a call answering `text`, in the form of the revision.
fn result(modern: bool, text: &str, is_error: bool) -> Value {
    let mut result = json!({"content": [{"type": "text", "text": text}], "isError": is_error});
    if modern {
        result["resultType"] = json!("complete");
        result["_meta"] =
            json!({"io.modelcontextprotocol/serverInfo": {"name": "plain", "version": "1.0.0"}});
    }
    json!({"jsonrpc": "2.0", "id": 7, "result": result})
}

#[tokio::test]
async fn a_tool_that_cannot_send_anything_is_answered_as_json_despite_a_progress_token() {
    for sessions in [false, true] {
        let addr = start(|http| http.sessions(sessions)).await;
        for modern in [false, true] {
            if sessions && !modern {
                // A 2025 call in sessions mode needs a session: covered stateless.
                continue;
            }
            for tool in ["add", "add_later"] {
                let reply = post(addr, modern, tool, json!({"a": 2, "b": 3})).await;
                reply.assert_json(200, result(modern, "5", false));
            }
        }
    }
}

#[tokio::test]
async fn a_tool_that_can_send_still_streams_its_progress() {
    let addr = start(|http| http).await;
    for modern in [false, true] {
        let reply = post(addr, modern, "chatty", json!({})).await;
        assert_eq!(reply.status, 200, "{reply:?}");
        assert_eq!(reply.header("content-type"), Some("text/event-stream"));
        assert!(
            reply.body.contains("notifications/progress"),
            "{}",
            reply.body
        );
        assert!(reply.body.contains("said"), "{}", reply.body);
    }
}

#[tokio::test]
async fn a_plain_call_over_the_request_timeout_is_answered_in_its_revisions_form() {
    let addr = start(|http| http.request_timeout(Duration::from_millis(300))).await;
    for modern in [false, true] {
        let reply = tokio::time::timeout(
            common::WAIT,
            post(addr, modern, "nap", json!({"ms": 60_000})),
        )
        .await
        .expect("answered at the request timeout");
        reply.assert_json(
            200,
            result(
                modern,
                "tool `nap` did not finish within the server's 0.3 s request timeout and was cancelled",
                true,
            ),
        );
    }
}

#[tokio::test]
async fn two_clients_may_run_calls_with_the_same_id_at_once() {
    // Plain calls of every stateless client share one connection state: it must not hold
    // their calls by id, or the second client's would be refused as already running.
    for sessions in [false, true] {
        let addr = start(|http| http.sessions(sessions)).await;
        for modern in [false, true] {
            if sessions && !modern {
                continue;
            }
            let first = post(addr, modern, "nap", json!({"ms": 300}));
            let second = post(addr, modern, "nap", json!({"ms": 300}));
            let (first, second) =
                tokio::time::timeout(common::WAIT, async { tokio::join!(first, second) })
                    .await
                    .expect("both answered");
            first.assert_json(200, result(modern, "rested", false));
            second.assert_json(200, result(modern, "rested", false));
        }
    }
}
