//! `McpRouter` fed arbitrary JSON-RPC, built from JSON values (shaped like requests most of the
//! time) and from raw bytes: one router takes a whole sequence, so `initialize` and cancellation
//! state carry over. The oracle is the typed wire's table (`Message`'s docs in
//! `claude-tools-core/src/jsonrpc/message.rs`, the answers in `mcp/mod.rs`'s): every request,
//! every invalid message and every unreadable one gets one well-formed reply, with the id when
//! it has a valid one (`-32600` for an invalid message, `-32700` or a `tools/call`'s `isError`
//! result for unreadable bytes), and only notifications and the client's responses go
//! unanswered.

#![no_main]

use arbitrary::{Result, Unstructured};
use claude_tools_fuzz::echo::{self, Fuzz};
use claude_tools_fuzz::{MAX_DEPTH, json, key, object, string};
use claude_tools::mcp::{McpRouter, Message, RequestId};
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

/// What the router must answer to a message, by the rules of `Message`'s table, in its order.
#[derive(Debug, PartialEq)]
enum Expected {
    /// No answer: a notification, or the client's response.
    Nothing,
    /// A reply (a result or an error) carrying this id (`None`: `id` null or absent).
    Reply(Option<Value>),
    /// An error with this code, carrying this id.
    Error(Option<Value>, i64),
    /// Unreadable bytes: `-32700`, or an `isError` result for a `tools/call`.
    Unreadable,
}

/// The rules of `Message`'s table for a message that is JSON (duplicate keys cannot occur in a
/// `Value`; unreadable bytes are [`expected_raw`]'s).
fn expected(message: &Value) -> Expected {
    const INVALID: i64 = -32600;
    let Some(object) = message.as_object() else {
        return Expected::Error(None, INVALID);
    };
    let (id, null_id) = match object.get("id") {
        None => (None, false),
        Some(Value::Null) => (None, true),
        Some(id @ (Value::Number(_) | Value::String(_))) => (Some(id.clone()), false),
        Some(_) => return Expected::Error(None, INVALID),
    };
    if object.get("jsonrpc") != Some(&Value::from("2.0")) {
        return Expected::Error(id, INVALID);
    }
    match object.get("method") {
        None if object.contains_key("result") || object.contains_key("error") => Expected::Nothing,
        None | Some(Value::Null | Value::Bool(_) | Value::Number(_))
        | Some(Value::Array(_) | Value::Object(_)) => Expected::Error(id, INVALID),
        Some(Value::String(_)) => match id {
            Some(id) => Expected::Reply(Some(id)),
            None if null_id => Expected::Error(None, INVALID),
            None => Expected::Nothing,
        },
    }
}

/// What the router must answer to raw bytes, as the decoder classified them (a `Value` cannot
/// tell what the decoder must: a key written twice, a number past a float's range). The
/// classification itself is checked against the table through [`expected`] on the JSON path.
fn expected_raw(message: &Message) -> Expected {
    match message {
        Message::Request(request) => Expected::Reply(Some(request.id.to_value())),
        Message::Notification(_) | Message::Response(_) => Expected::Nothing,
        Message::Invalid(invalid) => Expected::Error(
            invalid.id.as_ref().map(RequestId::to_value),
            i64::from(invalid.error.code.0),
        ),
        Message::Unreadable(_) => Expected::Unreadable,
    }
}

/// `reply` is a JSON-RPC 2.0 object with either a result or an error, as `expected` says.
fn check_reply(message: &dyn std::fmt::Debug, expected: &Expected, reply: &Value) {
    assert_eq!(reply["jsonrpc"], "2.0", "reply {reply} to {message:?}");
    let has_result = reply.get("result").is_some();
    let has_error = reply.get("error").is_some();
    assert!(has_result != has_error, "reply {reply} to {message:?}");
    match expected {
        Expected::Nothing => panic!("{message:?} must not be answered, got {reply}"),
        Expected::Reply(id) => {
            if let Some(id) = id {
                assert_eq!(reply.get("id"), Some(id), "reply {reply} to {message:?}");
            }
        }
        Expected::Error(id, code) => {
            assert_eq!(reply["error"]["code"], *code, "reply {reply} to {message:?}");
            let written = reply.get("id").filter(|id| !id.is_null());
            assert_eq!(written, id.as_ref(), "reply {reply} to {message:?}");
        }
        Expected::Unreadable => {
            if has_error {
                assert_eq!(reply["error"]["code"], -32700, "reply {reply} to {message:?}");
            } else {
                assert_eq!(reply["result"]["isError"], true, "reply {reply} to {message:?}");
            }
        }
    }
}

async fn run(u: &mut Unstructured<'_>, router: &McpRouter) -> Result<()> {
    while !u.is_empty() {
        if u.ratio(1, 6)? {
            // Raw bytes, JSON or not: the decoder classifies them once.
            let len = u.int_in_range(0..=64)?;
            let bytes = u.bytes(len)?;
            let message = Message::decode(bytes);
            let expected = expected_raw(&message);
            let text = String::from_utf8_lossy(bytes);
            match router.handle(message).await {
                Some(response) => check_reply(&text, &expected, &response.to_value()),
                None => assert_eq!(expected, Expected::Nothing, "{text:?} was not answered"),
            }
            continue;
        }
        let message = if u.ratio(1, 5)? {
            json(u, MAX_DEPTH, &["jsonrpc", "id", "method", "params", "result", "error"])?
        } else {
            request(u)?
        };
        let expected = expected(&message);
        match router.handle_json(message.clone()).await {
            Some(reply) => check_reply(&message, &expected, &reply),
            None => assert_eq!(expected, Expected::Nothing, "{message} was not answered"),
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
