//! `McpRouter::handle_raw` (the session's path: raw JSON in, a serialisable reply out) answers
//! exactly what `McpRouter::handle` answers, for the `tools/call` fast path and everything else.

use claude_tools_core::mcp::{McpRouter, Reply};
use claude_tools_core::tool::{ToolCall, ToolDefBuilder, ToolServer};
use serde_json::value::RawValue;
use serde_json::{Value, json};

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

async fn both(message: &str) -> (Value, Value) {
    let via_value = McpRouter::new(server())
        .handle(serde_json::from_str(message).unwrap())
        .await;
    let raw = RawValue::from_string(message.to_string()).unwrap();
    let reply = McpRouter::new(server()).handle_raw(&raw).await;
    let serialised = serde_json::to_value(&reply).unwrap();
    assert_eq!(
        serialised,
        reply.clone().into_value(),
        "Serialize and into_value agree"
    );
    (via_value, serialised)
}

#[tokio::test]
async fn raw_and_value_paths_answer_the_same() {
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
        let (via_value, via_raw) = both(message).await;
        assert_eq!(via_raw, via_value, "for {message}");
    }
}

#[tokio::test]
async fn the_fast_path_keeps_the_tool_result_unserialised() {
    let raw = RawValue::from_string(
        r#"{"method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":2}},"jsonrpc":"2.0","id":3}"#.into(),
    )
    .unwrap();
    let reply = McpRouter::new(server()).handle_raw(&raw).await;
    assert!(
        matches!(&reply, Reply::ToolResult { id, result } if id == &json!(3) && result.text_content() == "3")
    );
    assert_eq!(
        serde_json::to_string(&reply).unwrap(),
        r#"{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"3"}],"isError":false}}"#
    );
}
