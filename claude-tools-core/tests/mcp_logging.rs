//! MCP logging through the router: the `logging` capability, `logging/setLevel` per
//! connection, and a tool's `ToolContext::log` becoming `notifications/message`; and the
//! progress token a tool reads from its context.

use std::sync::{Arc, Mutex};

use claude_tools_core::mcp::{LoggingLevel, McpRouter, ServerNotification};
use claude_tools_core::tool::{ToolDefBuilder, ToolServer};
use serde_json::{Value, json};

/// A server whose `chatty` tool logs once at every level, then once more from a named logger.
fn server() -> ToolServer {
    ToolServer::new("logs", "1.0.0")
        .with_tool(ToolDefBuilder::new("chatty"), |call| async move {
            let ctx = call.context();
            for level in LoggingLevel::ALL {
                ctx.log(level, format!("at {level}"));
            }
            ctx.log_with(
                LoggingLevel::Error,
                "db",
                json!({"error": "refused", "port": 5432}),
            );
            format!("threshold {:?}", ctx.log_level())
        })
        .unwrap()
        .with_tool(ToolDefBuilder::new("token"), |call| async move {
            json!(call.context().progress_token()).to_string()
        })
        .unwrap()
}

/// A router with a notifier that keeps what it is handed, as JSON.
fn router() -> (McpRouter, Arc<Mutex<Vec<Value>>>) {
    let sent = Arc::new(Mutex::new(Vec::new()));
    let sink = sent.clone();
    let router = McpRouter::new(server()).with_notifier(Arc::new(
        move |notification: ServerNotification| sink.lock().unwrap().push(notification.to_value()),
    ));
    (router, sent)
}

async fn send(router: &McpRouter, id: i64, method: &str, params: Value) -> Value {
    router
        .handle_json(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))
        .await
        .expect("a request is answered")
}

fn levels_sent(sent: &Mutex<Vec<Value>>) -> Vec<String> {
    sent.lock()
        .unwrap()
        .drain(..)
        .map(|notification| {
            assert_eq!(
                notification["method"], "notifications/message",
                "{notification}"
            );
            notification["params"]["level"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect()
}

#[tokio::test]
async fn initialize_announces_logging() {
    let (router, _) = router();
    let answer = send(
        &router,
        1,
        "initialize",
        json!({"protocolVersion": "2025-11-25"}),
    )
    .await;
    assert_eq!(answer["result"]["capabilities"]["logging"], json!({}));
    // Also without a notifier: the capability says the server takes `logging/setLevel`.
    let plain = McpRouter::new(server());
    let answer = send(
        &plain,
        1,
        "initialize",
        json!({"protocolVersion": "2025-06-18"}),
    )
    .await;
    assert_eq!(answer["result"]["capabilities"]["logging"], json!({}));
}

#[tokio::test]
async fn until_the_client_sets_a_level_every_message_is_sent() {
    let (router, sent) = router();
    let answer = send(&router, 1, "tools/call", json!({"name": "chatty"})).await;
    assert_eq!(
        answer["result"]["content"][0]["text"],
        "threshold Some(Debug)"
    );
    let all: Vec<String> = LoggingLevel::ALL
        .iter()
        .map(|level| level.to_string())
        .chain(["error".to_string()])
        .collect();
    assert_eq!(levels_sent(&sent), all);
}

#[tokio::test]
async fn set_level_answers_empty_and_filters_the_connections_later_calls() {
    let (router, sent) = router();
    assert_eq!(
        send(&router, 1, "logging/setLevel", json!({"level": "warning"})).await,
        json!({"jsonrpc": "2.0", "id": 1, "result": {}})
    );
    assert_eq!(router.log_level(), LoggingLevel::Warning);
    send(&router, 2, "tools/call", json!({"name": "chatty"})).await;
    {
        let sent = sent.lock().unwrap();
        // Exactly the spec's notification, logger included.
        assert_eq!(
            sent.last().unwrap(),
            &json!({
                "jsonrpc": "2.0",
                "method": "notifications/message",
                "params": {"level": "error", "logger": "db", "data": {"error": "refused", "port": 5432}}
            })
        );
        assert_eq!(
            sent[0],
            json!({"jsonrpc": "2.0", "method": "notifications/message",
                   "params": {"level": "warning", "data": "at warning"}})
        );
    }
    assert_eq!(
        levels_sent(&sent),
        [
            "warning",
            "error",
            "critical",
            "alert",
            "emergency",
            "error"
        ]
    );

    // A later setLevel replaces the earlier one.
    send(
        &router,
        3,
        "logging/setLevel",
        json!({"level": "emergency"}),
    )
    .await;
    send(&router, 4, "tools/call", json!({"name": "chatty"})).await;
    assert_eq!(levels_sent(&sent), ["emergency"]);

    // The level belongs to the connection: a new one starts from the default.
    let other = router.new_connection();
    assert_eq!(other.log_level(), LoggingLevel::Debug);
}

#[tokio::test]
async fn a_level_that_is_not_one_of_the_eight_is_invalid_params() {
    let (router, _) = router();
    for params in [
        json!({"level": "warn"}),
        json!({"level": "INFO"}),
        json!({"level": 3}),
        json!({}),
    ] {
        let answer = send(&router, 7, "logging/setLevel", params.clone()).await;
        assert_eq!(answer["error"]["code"], -32602, "{params}: {answer}");
        let said = answer["error"]["data"].as_str().unwrap();
        assert!(said.contains("debug, info, notice, warning"), "{said}");
    }
    let without_params = router
        .handle_json(json!({"jsonrpc": "2.0", "id": 8, "method": "logging/setLevel"}))
        .await
        .unwrap();
    assert_eq!(without_params["error"]["code"], -32602, "{without_params}");
    // The refused requests left the level alone.
    assert_eq!(router.log_level(), LoggingLevel::Debug);
}

#[tokio::test]
async fn without_a_notifier_log_messages_are_dropped_and_the_call_succeeds() {
    let plain = McpRouter::new(server());
    let answer = send(&plain, 1, "tools/call", json!({"name": "chatty"})).await;
    assert_eq!(answer["result"]["content"][0]["text"], "threshold None");
    assert_eq!(answer["result"]["isError"], false);
}

#[tokio::test]
async fn the_progress_token_is_read_from_the_context_with_or_without_a_notifier() {
    let (router, _) = router();
    let plain = McpRouter::new(server());
    for router in [&router, &plain] {
        let with_token = send(
            router,
            1,
            "tools/call",
            json!({"name": "token", "_meta": {"progressToken": "up-7"}}),
        )
        .await;
        assert_eq!(with_token["result"]["content"][0]["text"], r#""up-7""#);
        let numeric = send(
            router,
            2,
            "tools/call",
            json!({"name": "token", "_meta": {"progressToken": 12}}),
        )
        .await;
        assert_eq!(numeric["result"]["content"][0]["text"], "12");
        let without = send(router, 3, "tools/call", json!({"name": "token"})).await;
        assert_eq!(without["result"]["content"][0]["text"], "null");
    }
}

#[tokio::test]
async fn a_2026_request_without_a_log_level_is_sent_no_log_messages() {
    let (router, sent) = router();
    let answer = router
        .handle_json(
            json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
                "name": "chatty",
                "_meta": {
                    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                    "io.modelcontextprotocol/clientCapabilities": {}
                }
            }}),
        )
        .await
        .unwrap();
    assert_eq!(
        answer["result"]["content"][0]["text"], "threshold None",
        "{answer}"
    );
    assert!(sent.lock().unwrap().is_empty());
}

#[tokio::test]
async fn a_2026_request_naming_a_log_level_is_sent_the_messages_at_or_above_it() {
    let (router, sent) = router();
    let answer = router
        .handle_json(
            json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
                "name": "chatty",
                "_meta": {
                    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                    "io.modelcontextprotocol/clientCapabilities": {},
                    "io.modelcontextprotocol/logLevel": "critical"
                }
            }}),
        )
        .await
        .unwrap();
    assert_eq!(answer["result"]["resultType"], "complete", "{answer}");
    assert_eq!(levels_sent(&sent), ["critical", "alert", "emergency"]);
}
