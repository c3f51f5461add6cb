//! `McpRouter` fed arbitrary JSON-RPC, built from JSON values (shaped like requests most of the
//! time) and from raw bytes: one router takes a whole sequence, so `initialize` and cancellation
//! state carry over. The decoder takes any bytes; every request and every invalid message gets
//! one well-formed reply, with the request's id when it has a valid one, and only notifications
//! and the client's responses go unanswered.

#![no_main]

use arbitrary::{Result, Unstructured};
use claude_tools_fuzz::echo::{self, Fuzz};
use claude_tools_fuzz::{MAX_DEPTH, json, key, object, string};
use claude_tools::mcp::{McpRouter, Message};
use libfuzzer_sys::fuzz_target;
use serde_json::{Map, Value};

const METHODS: [&str; 7] = [
    "tools/call",
    "tools/list",
    "initialize",
    "ping",
    "notifications/cancelled",
    "notifications/initialized",
    "resources/list",
];

const PARAM_KEYS: [&str; 7] = [
    "name",
    "arguments",
    "_meta",
    "protocolVersion",
    "requestId",
    "progressToken",
    "claudecode/toolUseId",
];

/// A message shaped like a JSON-RPC request, with any part of it wrong now and then.
fn request(u: &mut Unstructured<'_>) -> Result<Value> {
    let mut message = Map::new();
    match u.choose_index(4)? {
        0 | 1 => drop(message.insert("jsonrpc".into(), "2.0".into())),
        2 => drop(message.insert("jsonrpc".into(), json(u, 1, &[])?)),
        _ => {}
    }
    match u.choose_index(5)? {
        0 => {}
        1 | 2 => drop(message.insert("id".into(), u.int_in_range(0..=3u8)?.into())),
        3 => drop(message.insert("id".into(), string(u)?.into())),
        _ => drop(message.insert("id".into(), json(u, 1, &[])?)),
    }
    let method = if u.ratio(9, 10)? {
        Value::from(*u.choose(&METHODS)?)
    } else {
        json(u, 1, &[])?
    };
    let tools_call = method == "tools/call";
    message.insert("method".into(), method);
    if u.ratio(9, 10)? {
        let mut params = object(u, MAX_DEPTH - 1, &PARAM_KEYS)?;
        if tools_call && u.ratio(3, 4)? {
            params.insert("name".into(), "echo".into());
            let arguments = object(u, MAX_DEPTH - 2, &echo::KEYS)?;
            params.insert("arguments".into(), arguments.into());
        }
        message.insert("params".into(), params.into());
    }
    // Other members, which the router ignores.
    if u.ratio(1, 8)? {
        let name = key(u, &[])?;
        message.insert(name, json(u, 1, &[])?);
    }
    Ok(Value::Object(message))
}

/// The id the reply must carry, when the message is a request with a valid one.
fn request_id(message: &Value) -> Option<&Value> {
    message
        .get("id")
        .filter(|id| id.is_number() || id.is_string())
}

/// A reply is a JSON-RPC 2.0 object with either a result or an error.
fn check_reply(message: &Value, reply: &Value) {
    assert_eq!(reply["jsonrpc"], "2.0", "reply {reply} to {message}");
    let has_result = reply.get("result").is_some();
    let has_error = reply.get("error").is_some();
    assert!(has_result != has_error, "reply {reply} to {message}");
    if let Some(id) = request_id(message) {
        assert_eq!(reply.get("id"), Some(id), "reply {reply} to {message}");
    }
}

async fn run(u: &mut Unstructured<'_>, router: &McpRouter) -> Result<()> {
    while !u.is_empty() {
        if u.ratio(1, 6)? {
            // Raw bytes, JSON or not: the decoder classifies them, and exactly the requests and
            // the invalid messages are answered.
            let len = u.int_in_range(0..=64)?;
            let bytes = u.bytes(len)?;
            let message = Message::decode(bytes);
            let answered = matches!(message, Message::Request(_) | Message::Invalid(_));
            let response = router.handle(message).await;
            assert_eq!(response.is_some(), answered, "{:?}", String::from_utf8_lossy(bytes));
            if let Some(response) = response {
                let message: Value = serde_json::from_slice(bytes).unwrap_or_default();
                check_reply(&message, &response.to_value());
            }
            continue;
        }
        let message = if u.ratio(1, 5)? {
            json(u, MAX_DEPTH, &["jsonrpc", "id", "method", "params"])?
        } else {
            request(u)?
        };
        match router.handle_json(message.clone()).await {
            Some(reply) => check_reply(&message, &reply),
            // Only a notification or a client's response goes unanswered.
            None => assert!(
                message.get("id").is_none() || message.get("method").is_none(),
                "{message} was not answered"
            ),
        }
    }
    Ok(())
}

fuzz_target!(|data: &[u8]| {
    let Some(runtime) = claude_tools_fuzz::runtime(true) else {
        return;
    };
    let router = McpRouter::new(Fuzz::server());
    let mut u = Unstructured::new(data);
    let _ = runtime.block_on(run(&mut u, &router));
});
