//! Faulty lines from the CLI, through the whole session engine over an in-memory transport:
//! every line that carries a request is answered, however broken, and every fault reaches the
//! message stream as an error naming the request. Each test plays the CLI's side, asserts the
//! exact line written back, then the exact items on the message stream.
//!
//! Lines are written as text in the CLI's own key order (`type`, `request_id`, `request`; a
//! JSON-RPC message's `method`, `params`, `jsonrpc`, `id`), since where a field sits decides
//! what can be read from a line that is cut short.

use std::time::Duration;

use claude_tools_core::tool::{ToolCall, ToolDefBuilder, ToolServer};
use claude_tools_runtime::client::Client;
use claude_tools_runtime::message::Message;
use claude_tools_runtime::options::Options;
use claude_tools_runtime::{Error, RequestRef};
use serde_json::{Value, json};

mod common;

use common::{
    Cli, Connecting, expect_item, failure, mcp_answer, result_frame, string_argument, tool_text,
};

/// `echo` gives its `text` back; `len` says how many bytes it had.
fn text_server() -> ToolServer {
    let mut echo = ToolDefBuilder::new("echo");
    echo.input().property::<String>("text", None, true);
    let mut len = ToolDefBuilder::new("len");
    len.input().property::<String>("text", None, true);
    let mut add = ToolDefBuilder::new("add");
    add.input().property::<f64>("a", None, true);
    ToolServer::new("calc", "1.0.0")
        .with_tool(echo, move |mut call: ToolCall| {
            let text = string_argument(&mut call, "text");
            async move { text }
        })
        .unwrap()
        .with_tool(len, move |mut call: ToolCall| {
            let len = string_argument(&mut call, "text").len();
            async move { len.to_string() }
        })
        .unwrap()
        .with_tool(add, |mut call: ToolCall| {
            let a = call.take_argument("a");
            async move { format!("{a:?}") }
        })
        .unwrap()
}

/// A check the CLI makes that the host is still in step.
impl Cli {
    /// A round trip that proves nothing was written before its answer: the host writes its
    /// answers in the order it reads the requests.
    async fn ping(&mut self, request_id: &str) {
        self.send_line(&mcp_line(
            request_id,
            r#"{"method":"ping","jsonrpc":"2.0","id":99}"#,
        ))
        .await;
        assert_eq!(
            self.recv().await,
            mcp_answer(
                request_id,
                json!({"jsonrpc": "2.0", "id": 99, "result": {}})
            )
        );
    }
}

/// A `control_request` line for an `mcp_message` to `calc`, in the CLI's key order.
fn mcp_line(request_id: &str, message: &str) -> String {
    format!(
        r#"{{"type":"control_request","request_id":"{request_id}","request":{{"subtype":"mcp_message","server_name":"calc","message":{message}}}}}"#
    )
}

/// A `tools/call` message in the CLI's key order, with `arguments` as JSON text.
fn call_message(id: u64, tool: &str, arguments: &str) -> String {
    format!(
        r#"{{"method":"tools/call","params":{{"name":"{tool}","arguments":{arguments},"_meta":{{"claudecode/toolUseId":"toolu_{id}"}}}},"jsonrpc":"2.0","id":{id}}}"#
    )
}

fn mcp_request(request_id: &str) -> Option<RequestRef> {
    Some(RequestRef::new(request_id, Some("mcp_message".into())))
}

/// A client with the `calc` server, past the startup (the MCP `initialize` included).
async fn connect(options: Options) -> (Client, Cli) {
    let (connecting, mut cli) = Connecting::start(options.mcp_server(text_server()));
    let initialize = cli.recv().await;
    cli.send_line(&mcp_line(
        "m-init",
        r#"{"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"claude-code","version":"2.1.330"}},"jsonrpc":"2.0","id":0}"#,
    ))
    .await;
    assert_eq!(cli.recv().await["response"]["request_id"], "m-init");
    cli.answer(&initialize, json!({})).await;
    (connecting.client().await, cli)
}

/// The error serde_json reports for `text`, which must not be valid JSON, without its position
/// (which depends on what carried the message, so the answers leave it out).
fn json_error_of(text: &str) -> String {
    let error = serde_json::from_str::<Value>(text).unwrap_err();
    let position = format!(" at line {} column {}", error.line(), error.column());
    let text = error.to_string();
    text.strip_suffix(&position).unwrap_or(&text).to_string()
}

/// Asserts the next item is the result frame: nothing else came before it.
async fn expect_result(client: &mut Client) {
    match expect_item(client).await {
        Ok(Message::Result(_)) => {}
        other => panic!("expected the result, got {other:?}"),
    }
}

#[tokio::test]
async fn lone_surrogates_reach_the_tool_as_replacement_characters() {
    let (mut client, mut cli) = connect(Options::new()).await;
    // What JavaScript's JSON.stringify writes for strings cut inside a surrogate pair.
    cli.send_line(&mcp_line(
        "r1",
        &call_message(1, "echo", r#"{"text":"a\ud800b\udfffc\ud83d\ude00"}"#),
    ))
    .await;
    assert_eq!(
        cli.recv().await,
        tool_text("r1", 1, "a\u{fffd}b\u{fffd}c\u{1f600}", false)
    );
    // In a message for the user too, and in a request id (echoed as it came).
    cli.send_line(r#"{"type":"assistant","text":"x\udc00"}"#)
        .await;
    cli.send_line(
        r#"{"type":"control_request","request_id":"r\ud800","request":{"subtype":"elicitation"}}"#,
    )
    .await;
    assert_eq!(
        cli.recv_line().await,
        r#"{"type":"control_response","response":{"subtype":"success","request_id":"r�","response":{"action":"decline"}}}"#
    );
    cli.send(result_frame()).await;
    match expect_item(&mut client).await {
        Ok(Message::Other(value)) => assert_eq!(value["text"], "x\u{fffd}"),
        other => panic!("expected the message, got {other:?}"),
    }
    expect_result(&mut client).await;
}

#[tokio::test]
async fn an_out_of_range_number_in_a_tool_call_is_an_is_error_result() {
    let (mut client, mut cli) = connect(Options::new()).await;
    let line = mcp_line("r2", &call_message(2, "add", r#"{"a":1e400}"#));
    let parse_error = serde_json::from_str::<Value>(&line)
        .unwrap_err()
        .to_string();
    assert!(parse_error.starts_with("number out of range"));
    cli.send_line(&line).await;
    assert_eq!(
        cli.recv().await,
        tool_text(
            "r2",
            2,
            "The server could not read this tool call to `add`: a number in it is out of range: \
             JSON numbers must fit a 64-bit float (at most about 1.8e308); send such a value as \
             a string",
            true
        )
    );
    // In range, the same call is served: the session goes on.
    cli.send_line(&mcp_line("r3", &call_message(3, "add", r#"{"a":1e300}"#)))
        .await;
    assert_eq!(
        cli.recv().await,
        tool_text("r3", 3, "Some(Number(1e+300))", false)
    );
    cli.send(result_frame()).await;
    match expect_item(&mut client).await {
        Err(Error::Json {
            line: reported,
            source,
            request,
            ..
        }) => {
            assert_eq!(
                (reported, source.to_string(), request),
                (line, parse_error, mcp_request("r2"))
            );
        }
        other => panic!("expected a JSON error, got {other:?}"),
    }
    expect_result(&mut client).await;
}

#[tokio::test]
async fn too_deep_arguments_are_an_is_error_result_and_other_methods_a_json_rpc_error() {
    let (mut client, mut cli) = connect(Options::new()).await;
    let deep = format!("{{\"text\":{}1{}}}", "[".repeat(130), "]".repeat(130));
    let line = mcp_line("r4", &call_message(4, "echo", &deep));
    assert!(json_error_of(&line).starts_with("recursion limit exceeded"));
    cli.send_line(&line).await;
    assert_eq!(
        cli.recv().await,
        tool_text(
            "r4",
            4,
            "The server could not read this tool call to `echo`: it is nested too deeply: JSON is \
             read to at most 128 levels, about 120 inside a tool's arguments; send flatter data",
            true
        )
    );
    // Another method gets a JSON-RPC parse error with its id as it came. (Params the server
    // does not read are skipped, not parsed: a number out of range or deep nesting in them is
    // no fault; broken JSON is.)
    let list = mcp_line(
        "r5",
        r#"{"method":"tools/list","params":{"cursor":nul},"jsonrpc":"2.0","id":"list-1"}"#,
    );
    let list_error = json_error_of(&list);
    cli.send_line(&list).await;
    assert_eq!(
        cli.recv().await,
        mcp_answer(
            "r5",
            json!({"jsonrpc": "2.0", "id": "list-1", "error": {"code": -32700,
                "message": "Parse error", "data": format!(
                "The server could not read this message `tools/list`: it is not valid JSON \
                 ({list_error})")}})
        )
    );
    for params in [
        r#"{"cursor":1e999}"#.to_string(),
        format!("[{}]", "[".repeat(130) + &"]".repeat(130)),
    ] {
        cli.send_line(&mcp_line(
            "r5b",
            &format!(
                r#"{{"method":"tools/list","params":{params},"jsonrpc":"2.0","id":"list-2"}}"#
            ),
        ))
        .await;
        let answer = cli.recv().await;
        assert_eq!(
            answer["response"]["response"]["mcp_response"]["result"]["tools"][0]["name"], "add",
            "{answer}"
        );
    }
    // A notification gets the placeholder the CLI waits for (an error would fail the server).
    cli.send_line(&mcp_line(
        "r6",
        r#"{"method":"notifications/cancelled","params":{"requestId":nul},"jsonrpc":"2.0"}"#,
    ))
    .await;
    assert_eq!(
        cli.recv().await,
        mcp_answer("r6", json!({"jsonrpc": "2.0", "result": {}}))
    );
    cli.send(result_frame()).await;
    for request_id in ["r4", "r5", "r6"] {
        match expect_item(&mut client).await {
            Err(Error::Json { request, .. }) => assert_eq!(request, mcp_request(request_id)),
            other => panic!("expected a JSON error for {request_id}, got {other:?}"),
        }
    }
    expect_result(&mut client).await;
}

#[tokio::test]
async fn a_request_without_a_request_object_or_with_a_numeric_id_is_answered() {
    let (mut client, mut cli) = connect(Options::new()).await;
    cli.send_line(r#"{"type":"control_request","request_id":"r7"}"#)
        .await;
    let missing = "The host could not read this control request: the control_request's `request` is missing or not an object";
    assert_eq!(cli.recv().await, failure("r7", missing));
    cli.send_line(r#"{"type":"control_request","request_id":"r8","request":7}"#)
        .await;
    assert_eq!(cli.recv().await, failure("r8", missing));
    // A numeric request_id is answered with the id as it came: a number.
    cli.send_line(
        r#"{"type":"control_request","request_id":12,"request":{"subtype":"can_use_tool","tool_name":"Bash","input":{}}}"#,
    )
    .await;
    assert_eq!(
        cli.recv_line().await,
        r#"{"type":"control_response","response":{"subtype":"error","request_id":12,"error":"The host could not read this `can_use_tool` request: the control_request's request_id is not a string"}}"#
    );
    cli.send(result_frame()).await;
    for (request_id, subtype, message) in [
        (
            "r7",
            None,
            "the control_request's `request` is missing or not an object",
        ),
        (
            "r8",
            None,
            "the control_request's `request` is missing or not an object",
        ),
        (
            "12",
            Some("can_use_tool"),
            "the control_request's request_id is not a string",
        ),
    ] {
        match expect_item(&mut client).await {
            Err(Error::Protocol {
                message: reported,
                request,
                ..
            }) => assert_eq!(
                (reported.as_str(), request),
                (
                    message,
                    Some(RequestRef::new(request_id, subtype.map(String::from)))
                )
            ),
            other => panic!("expected a protocol error, got {other:?}"),
        }
    }
    let named = Error::Protocol {
        message: "the control_request's request_id is not a string".into(),
        request: Some(RequestRef::new("12", Some("can_use_tool".into()))),
    };
    assert_eq!(
        named.to_string(),
        "protocol error (in `can_use_tool` request 12): the control_request's request_id is not a string"
    );
    expect_result(&mut client).await;
}

#[tokio::test]
async fn a_20_mib_tool_call_is_served_with_default_options() {
    let (mut client, mut cli) = connect(Options::new()).await;
    let text = "a".repeat(20 * 1024 * 1024);
    let arguments = format!(r#"{{"text":"{text}"}}"#);
    cli.send_line(&mcp_line("big", &call_message(5, "len", &arguments)))
        .await;
    assert_eq!(
        cli.recv().await,
        tool_text("big", 5, &text.len().to_string(), false)
    );
    cli.send(result_frame()).await;
    expect_result(&mut client).await;
}

#[tokio::test]
async fn an_over_cap_line_is_answered_with_its_size_and_the_cap() {
    let (mut client, mut cli) = connect(Options::new().max_line_size(1024)).await;
    // As the CLI writes it, the JSON-RPC id comes after the arguments, past the part kept (the
    // first 64 KiB): a control error, which the CLI hands the model as an `is_error` result.
    let padding = "p".repeat(100_000);
    let cli_order = mcp_line(
        "r9",
        &call_message(6, "len", &format!(r#"{{"text":"{padding}"}}"#)),
    );
    cli.send_line(&cli_order).await;
    let too_long = |size: usize| {
        format!(
            "it is {size} bytes long, over the host's limit of 1024 bytes for one line (Options::max_line_size)"
        )
    };
    assert_eq!(
        cli.recv().await,
        failure(
            "r9",
            &format!(
                "The host could not read this `mcp_message` request: {}",
                too_long(cli_order.len())
            )
        )
    );
    // With the id first, the tool call itself gets an `isError` result. CRLF is not counted.
    let id_first = mcp_line(
        "r10",
        &format!(
            r#"{{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{{"name":"len","arguments":{{"text":"{padding}"}}}}}}"#
        ),
    );
    cli.send_line(&format!("{id_first}\r")).await;
    assert_eq!(
        cli.recv().await,
        tool_text(
            "r10",
            7,
            &format!(
                "The server could not read this tool call to `len`: {}",
                too_long(id_first.len())
            ),
            true
        )
    );
    // A message over the cap has nothing to answer.
    let message = format!(r#"{{"type":"assistant","pad":"{padding}"}}"#);
    cli.send_line(&message).await;
    cli.ping("p1").await;
    cli.send(result_frame()).await;
    for (size, request) in [
        (cli_order.len(), mcp_request("r9")),
        (id_first.len(), mcp_request("r10")),
        (message.len(), None),
    ] {
        match expect_item(&mut client).await {
            Err(Error::LineTooLong {
                limit: 1024,
                size: reported,
                request: reported_request,
                ..
            }) => assert_eq!((reported, reported_request), (size, request)),
            other => panic!("expected LineTooLong, got {other:?}"),
        }
    }
    let named = Error::LineTooLong {
        limit: 1024,
        size: 4000,
        request: mcp_request("r9"),
    };
    assert_eq!(
        named.to_string(),
        "a line of 4000 bytes from the CLI (in `mcp_message` request r9) exceeded the maximum \
         line size of 1024 bytes (Options::max_line_size)"
    );
    expect_result(&mut client).await;
}

#[tokio::test]
async fn no_line_cap_reads_every_line() {
    // `usize::MAX` used to overflow in the reader: every line refused, or a panic.
    let (mut client, mut cli) = connect(Options::new().max_line_size(usize::MAX)).await;
    cli.send_line(&mcp_line(
        "r11",
        &call_message(8, "echo", r#"{"text":"hi"}"#),
    ))
    .await;
    assert_eq!(cli.recv().await, tool_text("r11", 8, "hi", false));
    cli.send(result_frame()).await;
    expect_result(&mut client).await;
}

#[tokio::test]
async fn garbage_truncated_and_non_utf8_lines() {
    let (mut client, mut cli) = connect(Options::new()).await;
    // Not JSON at all (debug output on stdout), empty and blank lines: skipped, no item.
    cli.send_line("[SandboxDebug] not json at all").await;
    cli.send_line("").await;
    cli.send_line(" \t ").await;
    // Broken JSON with nothing to answer: reported.
    cli.send_line("{garbage").await;
    // Cut short after the subtype: answered.
    let truncated = r#"{"type":"control_request","request_id":"r12","request":{"subtype":"can_use_tool","tool_name":"Ba"#;
    cli.send_line(truncated).await;
    let truncated_error = json_error_of(truncated);
    assert_eq!(
        cli.recv().await,
        failure(
            "r12",
            &format!(
                "The host could not read this `can_use_tool` request: it is not valid JSON ({truncated_error})"
            )
        )
    );
    // Not UTF-8: answered when it is a request, reported either way.
    let mut bad = br#"{"type":"control_request","request_id":"r13","request":{"subtype":"hook_callback","input":""#.to_vec();
    bad.extend_from_slice(b"\xff\xfe\"}}\n");
    cli.0.write_raw(&bad).await.unwrap();
    let utf8_error = {
        let error = serde_json::from_slice::<Value>(&bad).unwrap_err();
        let position = format!(" at line {} column {}", error.line(), error.column());
        error.to_string().replace(&position, "")
    };
    assert_eq!(
        cli.recv().await,
        failure(
            "r13",
            &format!(
                "The host could not read this `hook_callback` request: it is not valid JSON ({utf8_error})"
            )
        )
    );
    cli.0
        .write_raw(b"{\"type\":\"assistant\",\"x\":\"\xff\"}\n")
        .await
        .unwrap();
    cli.ping("p2").await;
    cli.send(result_frame()).await;
    for (line_start, request) in [
        ("{garbage", None),
        (
            truncated,
            Some(RequestRef::new("r12", Some("can_use_tool".into()))),
        ),
        (
            r#"{"type":"control_request","request_id":"r13""#,
            Some(RequestRef::new("r13", Some("hook_callback".into()))),
        ),
        (r#"{"type":"assistant""#, None),
    ] {
        match expect_item(&mut client).await {
            Err(Error::Json {
                line,
                request: reported,
                ..
            }) => {
                assert!(line.starts_with(line_start), "{line}");
                assert_eq!(reported, request);
            }
            other => panic!("expected a JSON error, got {other:?}"),
        }
    }
    expect_result(&mut client).await;
}

#[tokio::test]
async fn crlf_requests_unknown_subtypes_unknown_types_and_stray_answers() {
    let (mut client, mut cli) = connect(Options::new()).await;
    // A CRLF-terminated request is served as usual.
    let call = mcp_line("r14", &call_message(9, "echo", r#"{"text":"crlf"}"#));
    cli.send_line(&format!("{call}\r")).await;
    assert_eq!(cli.recv().await, tool_text("r14", 9, "crlf", false));
    // An unknown subtype is refused by name.
    cli.send_line(
        r#"{"type":"control_request","request_id":"r15","request":{"subtype":"frobnicate"}}"#,
    )
    .await;
    assert_eq!(
        cli.recv().await,
        failure("r15", "Unsupported control request subtype: frobnicate")
    );
    // An answer to nothing is ignored; an unknown message type is passed through.
    cli.send_line(r#"{"type":"control_response","response":{"subtype":"success","request_id":"nobody","response":{}}}"#)
        .await;
    cli.send_line(r#"{"type":"brand_new","x":1}"#).await;
    cli.ping("p3").await;
    cli.send(result_frame()).await;
    match expect_item(&mut client).await {
        Ok(Message::Other(value)) => assert_eq!(value, json!({"type": "brand_new", "x": 1})),
        other => panic!("expected the unknown message, got {other:?}"),
    }
    expect_result(&mut client).await;
}

#[tokio::test]
async fn an_unreadable_answer_ends_the_host_request_at_once() {
    let (client, mut cli) = connect(Options::new()).await;
    let client = std::sync::Arc::new(client);
    let set_model = tokio::spawn({
        let client = client.clone();
        async move { client.set_model(Some("claude-haiku-4-5")).await }
    });
    let request = cli.recv().await;
    let request_id = request["request_id"].as_str().unwrap().to_string();
    let answer = format!(
        r#"{{"type":"control_response","response":{{"subtype":"success","request_id":"{request_id}","response":{{"n":1e400}}}}}}"#
    );
    assert!(json_error_of(&answer).starts_with("number out of range"));
    cli.send_line(&answer).await;
    // Well before any timeout: the caller learns at once.
    match tokio::time::timeout(Duration::from_secs(2), set_model).await {
        Ok(Ok(Err(Error::Control {
            subtype,
            message,
            code: None,
            ..
        }))) => assert_eq!(
            (subtype.as_str(), message),
            (
                "set_model",
                "the host could not read the CLI's answer: a number in it is out of range: JSON \
                 numbers must fit a 64-bit float (at most about 1.8e308); send such a value as a \
                 string"
                    .to_string()
            )
        ),
        other => panic!("expected a control error at once, got {other:?}"),
    }
    // Nothing is written back for an answer, and the stream reports the line.
    cli.ping("p4").await;
    cli.send(result_frame()).await;
    let mut client = std::sync::Arc::try_unwrap(client).unwrap_or_else(|_| panic!("one owner"));
    match expect_item(&mut client).await {
        Err(Error::Json { line, request, .. }) => assert_eq!((line, request), (answer, None)),
        other => panic!("expected a JSON error, got {other:?}"),
    }
    expect_result(&mut client).await;
}

#[tokio::test]
async fn a_json_rpc_id_a_float_cannot_hold_exactly_is_written_back_as_it_came() {
    let (mut client, mut cli) = connect(Options::new()).await;
    // Out of a float's range too (`1e400`): JSON-RPC asks for the same id back, and the one
    // decoder keeps every id as written, here as over stdio and HTTP (issue 19's agreement).
    let ids = [
        "123456789012345678901234567890",
        "-123456789012345678901234567890",
        "18446744073709551616",
        "1.50",
        "1e2",
        "1e400",
        "-1e400",
        "1e309",
    ];
    for (n, id) in ids.into_iter().enumerate() {
        // The hot path (a well-formed tools/call), the general one (another method), and a
        // server the session does not know.
        let lines = [
            (
                format!("call{n}"),
                mcp_line(
                    &format!("call{n}"),
                    &format!(
                        r#"{{"method":"tools/call","params":{{"name":"echo","arguments":{{"text":"x"}}}},"jsonrpc":"2.0","id":{id}}}"#
                    ),
                ),
                format!(
                    r#"{{"jsonrpc":"2.0","id":{id},"result":{{"content":[{{"type":"text","text":"x"}}],"isError":false}}}}"#
                ),
            ),
            (
                format!("ping{n}"),
                mcp_line(
                    &format!("ping{n}"),
                    &format!(r#"{{"method":"ping","jsonrpc":"2.0","id":{id}}}"#),
                ),
                format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{{}}}}"#),
            ),
            (
                format!("nope{n}"),
                format!(
                    r#"{{"type":"control_request","request_id":"nope{n}","request":{{"subtype":"mcp_message","server_name":"nope","message":{{"method":"ping","jsonrpc":"2.0","id":{id}}}}}}}"#
                ),
                format!(
                    r#"{{"jsonrpc":"2.0","id":{id},"error":{{"code":-32601,"message":"Server 'nope' not found"}}}}"#
                ),
            ),
        ];
        for (request_id, line, reply) in lines {
            cli.send_line(&line).await;
            assert_eq!(
                cli.recv_line().await,
                format!(
                    r#"{{"type":"control_response","response":{{"subtype":"success","request_id":"{request_id}","response":{{"mcp_response":{reply}}}}}}}"#
                ),
                "id {id}"
            );
        }
    }
    cli.ping("after").await;
    cli.send(result_frame()).await;
    expect_result(&mut client).await;
}
