//! The router's two doors agree: a message decoded from its bytes ([`McpRouter::handle`]) and
//! the same message given as a `Value` ([`McpRouter::handle_json`]) get the same answer, and a
//! `tools/call` on the hot path keeps the tool's result typed until it is written.

use claude_tools_core::mcp::{Answer, McpRouter, Message, RequestId};
use claude_tools_core::tool::{ToolCall, ToolDefBuilder, ToolServer};
use serde_json::Value;

fn server() -> ToolServer {
    let mut add = ToolDefBuilder::new("add");
    add.input()
        .property::<i64>("a", None, true)
        .property::<i64>("b", None, true);
    let mut whoami = ToolDefBuilder::new("whoami");
    whoami.input();
    ToolServer::new("calc", "1.0.0")
        .with_tool(add, |mut call: ToolCall| async move {
            let a = call
                .take_argument("a")
                .and_then(|v| v.as_i64())
                .unwrap_or_default();
            let b = call
                .take_argument("b")
                .and_then(|v| v.as_i64())
                .unwrap_or_default();
            a + b
        })
        .unwrap()
        .with_tool(whoami, |call: ToolCall| {
            let id = call.context().tool_use_id().unwrap_or("none").to_string();
            async move { id }
        })
        .unwrap()
        .with_tool(ToolDefBuilder::new("boom"), |_| async {
            panic!("kaboom");
            #[allow(unreachable_code)]
            ()
        })
        .unwrap()
}

#[tokio::test]
async fn bytes_and_values_get_the_same_answer() {
    let messages = [
        r#"{"method":"tools/call","params":{"name":"add","arguments":{"a":2,"b":40},"_meta":{"claudecode/toolUseId":"toolu_1","progressToken":2}},"jsonrpc":"2.0","id":2}"#,
        r#"{"method":"tools/call","params":{"name":"whoami","_meta":{"claudecode/toolUseId":"toolu_\u0041bc"}},"jsonrpc":"2.0","id":"s-3"}"#,
        r#"{"method":"tools/call","params":{"name":"add","arguments":{"a":"x","b":1}},"jsonrpc":"2.0","id":4}"#,
        r#"{"method":"tools/call","params":{"name":"nope"},"jsonrpc":"2.0","id":5}"#,
        r#"{"method":"tools/call","params":{"name":"boom"},"jsonrpc":"2.0","id":6}"#,
        r#"{"method":"tools/call","params":{"arguments":{}},"jsonrpc":"2.0","id":7}"#,
        r#"{"method":"tools/call","params":{"name":"add"},"jsonrpc":"1.0","id":8}"#,
        r#"{"method":"tools/list","jsonrpc":"2.0","id":9}"#,
        r#"{"method":"initialize","params":{"protocolVersion":"2025-11-25"},"jsonrpc":"2.0","id":0}"#,
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
        r#"{"method":"ping","jsonrpc":"2.0","id":10}"#,
        r#"{"method":"resources/list","jsonrpc":"2.0","id":11}"#,
        r#"[1,2]"#,
    ];
    for message in messages {
        let from_bytes = McpRouter::new(server())
            .handle(Message::decode(message.as_bytes()))
            .await
            .map(|response| response.to_value());
        let from_value = McpRouter::new(server())
            .handle_json(serde_json::from_str::<Value>(message).unwrap())
            .await;
        assert_eq!(from_bytes, from_value, "for {message}");
    }
}

#[tokio::test]
async fn the_fast_path_keeps_the_tool_result_typed() {
    let message = Message::decode(
        br#"{"method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":2}},"jsonrpc":"2.0","id":3}"#,
    );
    let response = McpRouter::new(server()).handle(message).await.unwrap();
    assert_eq!(response.id, Some(RequestId::from(3)));
    assert!(matches!(&response.outcome, Ok(Answer::Tool(result)) if result.text_content() == "3"));
    assert_eq!(
        response.to_json(),
        r#"{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"3"}],"isError":false}}"#
    );
}
