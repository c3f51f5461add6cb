//! A call's arguments are read as a list of entries, not as a `serde_json::Map` (which, with
//! serde_json's `preserve_order`, is an `IndexMap` costing a hash table per call): these tests
//! pin that tools see exactly what they saw when the arguments were a `Map`, through both of the
//! router's doors (`handle`, a message decoded from its bytes as every transport does, and
//! `handle_json`, a message given as a `Value`): repeated names, escaped names, floats at the edge, non-object,
//! `null` and absent arguments, huge arguments, and what a raw `ToolCall` handler is handed.

use claude_tools_core::mcp::{McpRouter, Message};
use claude_tools_core::tool::{Input, ToolCall, ToolDefBuilder, ToolServer};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Map, Value, json};

#[derive(Deserialize, JsonSchema)]
struct Terms {
    a: i64,
    b: i64,
}

#[derive(Deserialize, JsonSchema)]
struct Number {
    x: f64,
}

fn calc(deny_unknown: bool) -> ToolServer {
    let mut add = ToolDefBuilder::new("add");
    add.deny_unknown_arguments(deny_unknown);
    // The raw handler echoes what `ToolCall::arguments` hands it, as JSON text, then again
    // after taking `take` out.
    let mut echo = ToolDefBuilder::new("echo");
    echo.input();
    ToolServer::new("calc", "1.0.0")
        .with_typed_tool(add, |terms: Terms| async move { terms.a + terms.b })
        .unwrap()
        .with_typed_tool("bits", |Input(number): Input<Number>| async move {
            format!("{:016x}", number.x.to_bits())
        })
        .unwrap()
        .with_tool(echo, |mut call: ToolCall| async move {
            let before = serde_json::to_string(call.arguments()).unwrap();
            let taken = call.take_argument("take");
            let after = serde_json::to_string(call.arguments()).unwrap();
            format!("{before} | {taken:?} | {after}")
        })
        .unwrap()
}

fn call(tool: &str, arguments: &str) -> String {
    format!(
        r#"{{"method":"tools/call","params":{{"name":"{tool}","arguments":{arguments}}},"jsonrpc":"2.0","id":1}}"#
    )
}

/// The answer to the message's bytes, after checking that the `Value` door answers the same.
async fn reply(server: &ToolServer, message: &str) -> Value {
    let typed = McpRouter::new(server.clone())
        .handle(Message::decode(message.as_bytes()))
        .await
        .map(|response| response.to_value());
    let general = McpRouter::new(server.clone())
        .handle_json(serde_json::from_str(message).unwrap())
        .await;
    assert_eq!(typed, general, "both doors answer {message} alike");
    typed.expect("a request is answered")
}

/// The text of a tool result, and whether it is an error.
async fn result(server: &ToolServer, tool: &str, arguments: &str) -> (String, bool) {
    let reply = reply(server, &call(tool, arguments)).await;
    let result = &reply["result"];
    (
        result["content"][0]["text"].as_str().unwrap().to_string(),
        result["isError"].as_bool().unwrap(),
    )
}

#[tokio::test]
async fn a_repeated_name_counts_once_with_its_last_value() {
    let server = calc(false);
    assert_eq!(
        result(&server, "add", r#"{"a":1,"b":2,"a":40}"#).await,
        ("42".to_string(), false)
    );
    // Also with unknown arguments refused: the repeated name is one known argument.
    assert_eq!(
        result(&calc(true), "add", r#"{"a":1,"b":2,"a":40,"b":2}"#).await,
        ("42".to_string(), false)
    );
}

#[tokio::test]
async fn escaped_names_are_the_names_they_spell() {
    assert_eq!(
        result(&calc(false), "add", r#"{"\u0061":40,"\u0062":2}"#).await,
        ("42".to_string(), false)
    );
}

#[tokio::test]
async fn floats_reach_the_tool_exactly() {
    let server = calc(false);
    for x in [
        "2.2250738585072011e-308",
        "2.2250738585072014e-308",
        "4.9406564584124654e-324",
        "1.7976931348623157e308",
        "0.1",
        "-0.0",
        "9007199254740993",
    ] {
        let expected: f64 = x.parse().unwrap();
        assert_eq!(
            result(&server, "bits", &format!(r#"{{"x":{x}}}"#)).await,
            (format!("{:016x}", expected.to_bits()), false),
            "{x}"
        );
    }
}

#[tokio::test]
async fn arguments_that_are_not_an_object_are_refused_as_before() {
    let server = calc(false);
    for (arguments, kind) in [
        (r#""a string""#, "a string"),
        ("[1,2]", "an array"),
        ("7", "a number"),
        ("-1.5", "a number"),
        ("true", "a boolean"),
    ] {
        assert_eq!(
            result(&server, "add", arguments).await,
            (
                format!("Invalid arguments for tool `add`: expected a JSON object, got {kind}"),
                true
            ),
            "{arguments}"
        );
    }
}

#[tokio::test]
async fn null_absent_and_empty_arguments_are_no_arguments() {
    let server = calc(false);
    let absent =
        r#"{"method":"tools/call","params":{"name":"echo"},"jsonrpc":"2.0","id":1}"#.to_string();
    for message in [absent, call("echo", "null"), call("echo", "{}")] {
        let reply = reply(&server, &message).await;
        assert_eq!(
            reply["result"]["content"][0]["text"],
            json!("{} | None | {}"),
            "{message}"
        );
    }
}

#[tokio::test]
async fn a_raw_handler_is_handed_the_map_a_value_would_hold() {
    let server = calc(false);
    let arguments =
        r#"{"z":1,"take":{"y":[1,2.5,null]},"m":"\u00e9\n","a":[{"k":true,"b":false}],"n":-0.0}"#;
    let (text, is_error) = result(&server, "echo", arguments).await;
    assert!(!is_error);
    let map: Map<String, Value> = serde_json::from_str(arguments).unwrap();
    let before = serde_json::to_string(&map).unwrap();
    let mut rest = map.clone();
    let taken = rest.shift_remove("take");
    let after = serde_json::to_string(&rest).unwrap();
    assert_eq!(text, format!("{before} | {taken:?} | {after}"));
    // In the order sent, before and after an argument is taken out.
    assert_eq!(
        text,
        r#"{"z":1,"take":{"y":[1,2.5,null]},"m":"é\n","a":[{"k":true,"b":false}],"n":-0.0} | Some(Object {"y": Array [Number(1), Number(2.5), Null]}) | {"z":1,"m":"é\n","a":[{"k":true,"b":false}],"n":-0.0}"#
    );
    // A repeated name: its first place, its last value.
    assert_eq!(
        result(&server, "echo", r#"{"take":1,"b":2,"take":3}"#).await,
        (
            r#"{"take":3,"b":2} | Some(Number(3)) | {"b":2}"#.to_string(),
            false
        )
    );
}

#[tokio::test]
async fn huge_arguments_are_read_whole() {
    let mut arguments = String::from("{");
    for i in 0..20_000 {
        arguments.push_str(&format!(r#""k{i}":{i},"#));
    }
    arguments.push_str(r#""a":40,"b":2,"k19999":"again"}"#);
    assert_eq!(
        result(&calc(false), "add", &arguments).await,
        ("42".to_string(), false)
    );
    let (text, is_error) = result(&calc(true), "add", &arguments).await;
    assert!(is_error);
    assert!(
        text.starts_with("Invalid arguments for tool `add`: unknown arguments `k0`, `k1`, `k2`, "),
        "{}",
        &text[..200]
    );
    assert!(
        text.ends_with("`k19998`, `k19999`: the tool accepts only `a`, `b`"),
        "each unknown name once, in the order sent: {}",
        &text[text.len() - 200..]
    );
}
