//! The standalone MCP server loop (`claude_tools::mcp::stdio::serve`) driven in memory: one
//! JSON-RPC message per line in, the exact lines it writes back out.

use std::sync::Arc;
use std::time::Duration;

use claude_tools::mcp::LoggingLevel;
use claude_tools::mcp::stdio::serve;
use claude_tools::tools::{ToolDefBuilder, ToolError, ToolServer};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, DuplexStream};
use tokio::sync::{Barrier, mpsc};
use tokio::task::JoinHandle;

/// Bounds every wait of these tests: long enough for a loaded machine, short enough that a hang
/// fails rather than stalls.
const WAIT: Duration = Duration::from_secs(10);

fn server(started: mpsc::UnboundedSender<String>) -> ToolServer {
    let mut echo = ToolDefBuilder::new("echo");
    echo.description("Echo the text back");
    echo.input()
        .property::<String>("text", Some("What to echo"), true);
    let rendezvous = Arc::new(Barrier::new(2));
    let started_slow = started.clone();
    ToolServer::new("stdio-test", "0.3.0")
        .with_tool(echo, |mut call| async move {
            let text = call.take_argument("text").unwrap_or_default();
            format!("ECHO:{}", text.as_str().unwrap_or_default())
        })
        .unwrap()
        .with_tool(ToolDefBuilder::new("fail"), |_| async {
            Err::<String, _>(ToolError::new("disk on fire"))
        })
        .unwrap()
        .with_tool(ToolDefBuilder::new("logs"), |call| async move {
            let context = call.context();
            context.log_info("started");
            tokio::task::yield_now().await;
            context.log_with(LoggingLevel::Warning, "disk", json!({"free": "3%"}));
            "logged"
        })
        .unwrap()
        .with_tool(ToolDefBuilder::new("progress"), |call| async move {
            let context = call.context();
            context.report_progress(1.0, Some(2.0), Some("half"));
            tokio::task::yield_now().await;
            context.report_progress(2.0, Some(2.0), None);
            "done"
        })
        // Finishes only when two calls run at the same time.
        .unwrap()
        .with_tool(ToolDefBuilder::new("rendezvous"), move |call| {
            let rendezvous = rendezvous.clone();
            async move {
                rendezvous.wait().await;
                format!(
                    "met {}",
                    call.context()
                        .request_id()
                        .map(ToString::to_string)
                        .unwrap_or_default()
                )
            }
        })
        .unwrap()
        // Waits for its cancellation, then reports it through `started`.
        .with_tool(ToolDefBuilder::new("wait_for_cancel"), move |call| {
            let started = started.clone();
            async move {
                let _ = started.send("wait_for_cancel".into());
                call.context().cancelled().await;
                let _ = started.send("cancelled".into());
                "stopped"
            }
        })
        .unwrap()
        // Sleeps `ms` milliseconds, then answers.
        .with_tool(ToolDefBuilder::new("slow"), move |mut call| {
            let started = started_slow.clone();
            async move {
                let ms = call
                    .take_argument("ms")
                    .and_then(|ms| ms.as_u64())
                    .unwrap_or(0);
                let _ = started.send("slow".into());
                tokio::time::sleep(Duration::from_millis(ms)).await;
                format!("slept {ms} ms")
            }
        })
        .unwrap()
}

struct Peer {
    to_server: DuplexStream,
    from_server: BufReader<DuplexStream>,
    started: mpsc::UnboundedReceiver<String>,
    serving: JoinHandle<std::io::Result<()>>,
}

fn start(grace: Duration) -> Peer {
    start_with(grace, claude_tools::options::DEFAULT_MAX_LINE_SIZE)
}

fn start_with(grace: Duration, max_line_size: usize) -> Peer {
    // One pipe each way, so that each direction closes on its own.
    let (to_server, from_client) = tokio::io::duplex(1 << 16);
    let (to_client, from_server) = tokio::io::duplex(1 << 16);
    let (started_tx, started) = mpsc::unbounded_channel();
    let serving = tokio::spawn(
        serve(server(started_tx), from_client, to_client)
            .shutdown_grace(grace)
            .max_line_size(max_line_size)
            .into_future(),
    );
    Peer {
        to_server,
        from_server: BufReader::new(from_server),
        started,
        serving,
    }
}

impl Peer {
    async fn send_raw(&mut self, bytes: &[u8]) {
        self.to_server.write_all(bytes).await.unwrap();
    }

    async fn send(&mut self, message: Value) {
        let mut line = message.to_string();
        line.push('\n');
        self.send_raw(line.as_bytes()).await;
    }

    /// The next line the server writes, as JSON; `None` at end of output.
    async fn next(&mut self) -> Option<Value> {
        let mut line = String::new();
        let read = tokio::time::timeout(WAIT, self.from_server.read_line(&mut line))
            .await
            .expect("a line from the server in time")
            .unwrap();
        if read == 0 {
            return None;
        }
        assert!(line.ends_with('\n'), "{line:?}");
        Some(serde_json::from_str(&line).expect("the server writes JSON lines"))
    }

    /// The next line the server writes, as text (without its newline).
    async fn next_line(&mut self) -> String {
        let mut line = String::new();
        tokio::time::timeout(WAIT, self.from_server.read_line(&mut line))
            .await
            .expect("a line from the server in time")
            .unwrap();
        assert!(line.ends_with('\n'), "{line:?}");
        line.pop();
        line
    }

    async fn started(&mut self) -> String {
        tokio::time::timeout(WAIT, self.started.recv())
            .await
            .expect("the tool started in time")
            .unwrap()
    }

    /// Ends the input, then reads every remaining line until the server returns.
    async fn finish(mut self) -> Vec<Value> {
        self.to_server.shutdown().await.unwrap();
        let mut rest = Vec::new();
        while let Some(line) = self.next().await {
            rest.push(line);
        }
        tokio::time::timeout(WAIT, self.serving)
            .await
            .expect("serve returned in time")
            .unwrap()
            .expect("serve ended without error");
        rest
    }
}

fn call(id: Value, name: &str, arguments: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": name, "arguments": arguments}})
}

fn text_result(id: Value, text: &str, is_error: bool) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "result": {"content": [{"type": "text", "text": text}], "isError": is_error}})
}

#[tokio::test]
async fn handshake_list_and_calls_answer_line_by_line() {
    let mut peer = start(Duration::from_secs(5));
    peer.send(json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}
    }}))
    .await;
    assert_eq!(
        peer.next().await.unwrap(),
        json!({"jsonrpc": "2.0", "id": 0, "result": {
            "protocolVersion": "2025-06-18",
            "capabilities": {"tools": {"listChanged": false}, "logging": {}},
            "serverInfo": {"name": "stdio-test", "version": "0.3.0"}
        }})
    );
    // The initialized notification gets no reply: the next line answers the ping.
    peer.send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
        .await;
    peer.send(json!({"jsonrpc": "2.0", "id": "p", "method": "ping"}))
        .await;
    assert_eq!(
        peer.next().await.unwrap(),
        json!({"jsonrpc": "2.0", "id": "p", "result": {}})
    );

    peer.send(json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}))
        .await;
    let list = peer.next().await.unwrap();
    assert_eq!(list["id"], 1);
    let names: Vec<&str> = list["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|tool| tool["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "echo",
            "fail",
            "logs",
            "progress",
            "rendezvous",
            "slow",
            "wait_for_cancel"
        ]
    );
    assert_eq!(
        list["result"]["tools"][0],
        json!({
            "name": "echo",
            "description": "Echo the text back",
            "inputSchema": {
                "type": "object",
                "properties": {"text": {"type": "string", "description": "What to echo"}},
                "required": ["text"]
            },
            "_meta": {"anthropic/alwaysLoad": true}
        })
    );

    peer.send(call(json!(2), "echo", json!({"text": "hi"})))
        .await;
    assert_eq!(
        peer.next().await.unwrap(),
        text_result(json!(2), "ECHO:hi", false)
    );
    peer.send(call(json!(3), "fail", json!({}))).await;
    assert_eq!(
        peer.next().await.unwrap(),
        text_result(json!(3), "disk on fire", true)
    );
    peer.send(call(json!(4), "nope", json!({}))).await;
    assert_eq!(
        peer.next().await.unwrap(),
        json!({"jsonrpc": "2.0", "id": 4, "error": {"code": -32602,
            "message": "Invalid params", "data": "Tool `nope` not found on server `stdio-test`"}})
    );
    peer.send(json!({"jsonrpc": "2.0", "id": 5, "method": "resources/list"}))
        .await;
    assert_eq!(
        peer.next().await.unwrap(),
        json!({"jsonrpc": "2.0", "id": 5, "error": {"code": -32601, "message": "Method not found", "data": "resources/list"}})
    );
    assert_eq!(peer.finish().await, Vec::<Value>::new());
}

#[tokio::test]
async fn notifications_and_client_responses_get_no_reply() {
    let mut peer = start(Duration::from_secs(5));
    for message in [
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        json!({"jsonrpc": "2.0", "method": "notifications/roots/list_changed", "params": {}}),
        json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 99}}),
        // A `tools/call` without an id is a notification too: it does not run.
        json!({"jsonrpc": "2.0", "method": "tools/call", "params": {"name": "slow", "arguments": {"ms": 0}}}),
        // A client's answer to a server request (this server sends none) is dropped.
        json!({"jsonrpc": "2.0", "id": 7, "result": {}}),
        json!({"jsonrpc": "2.0", "id": 8, "error": {"code": -1, "message": "no"}}),
    ] {
        peer.send(message).await;
    }
    peer.send(json!({"jsonrpc": "2.0", "id": "last", "method": "ping"}))
        .await;
    assert_eq!(
        peer.next().await.unwrap(),
        json!({"jsonrpc": "2.0", "id": "last", "result": {}})
    );
    // The id-less tools/call never ran: `slow` reports on `started` when it runs.
    assert!(peer.started.try_recv().is_err());
    assert_eq!(peer.finish().await, Vec::<Value>::new());
}

#[tokio::test]
async fn garbage_lines_are_answered_with_parse_errors_and_serving_goes_on() {
    let mut peer = start(Duration::from_secs(5));
    peer.send_raw(b"this is not json\n").await;
    let error = peer.next().await.unwrap();
    assert_eq!(error["id"], Value::Null);
    assert_eq!(error["error"]["code"], -32700);
    assert_eq!(error["error"]["message"], "Parse error");
    // Invalid UTF-8, a truncated object, blank lines (skipped), CRLF, then a good request.
    peer.send_raw(b"\xff\xfe{\n{\"jsonrpc\":\"2.0\",\n\n   \r\n")
        .await;
    for _ in 0..2 {
        let error = peer.next().await.unwrap();
        assert_eq!(
            (error["id"].clone(), error["error"]["code"].clone()),
            (Value::Null, json!(-32700)),
            "{error}"
        );
    }
    // JSON that is not a request: answered by the router, id null.
    peer.send_raw(b"[1,2]\n42\n").await;
    assert_eq!(
        peer.next().await.unwrap(),
        json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32600, "message": "Invalid Request", "data": "a JSON-RPC batch (an array) is not supported: MCP removed batches in 2025-06-18; send one message at a time"}})
    );
    assert_eq!(
        peer.next().await.unwrap(),
        json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32600, "message": "Invalid Request", "data": "a JSON-RPC message must be a JSON object"}})
    );
    // A tools/call with a bad `name` type is the router's -32602.
    peer.send(json!({"jsonrpc": "2.0", "id": 9, "method": "tools/call", "params": {"name": 5}}))
        .await;
    assert_eq!(peer.next().await.unwrap()["error"]["code"], -32602);
    peer.send_raw(b"{\"jsonrpc\":\"2.0\",\"id\":10,\"method\":\"ping\"}\r\n")
        .await;
    assert_eq!(
        peer.next().await.unwrap(),
        json!({"jsonrpc": "2.0", "id": 10, "result": {}})
    );
    // The last line may end without a newline: it is still served before the end.
    peer.send_raw(b"{\"jsonrpc\":\"2.0\",\"id\":11,\"method\":\"ping\"}")
        .await;
    assert_eq!(
        peer.finish().await,
        [json!({"jsonrpc": "2.0", "id": 11, "result": {}})]
    );
}

#[tokio::test]
async fn calls_run_concurrently_and_answer_as_they_finish() {
    let mut peer = start(Duration::from_secs(5));
    // `rendezvous` finishes only when two calls of it run at once.
    peer.send(call(json!(1), "rendezvous", json!({}))).await;
    peer.send(call(json!(2), "rendezvous", json!({}))).await;
    let mut replies = vec![peer.next().await.unwrap(), peer.next().await.unwrap()];
    replies.sort_by_key(|reply| reply["id"].as_i64());
    assert_eq!(
        replies,
        [
            text_result(json!(1), "met 1", false),
            text_result(json!(2), "met 2", false)
        ]
    );
    // A slow call does not hold back a quick one sent after it.
    peer.send(call(json!(3), "slow", json!({"ms": 60_000})))
        .await;
    assert_eq!(peer.started().await, "slow");
    peer.send(call(json!(4), "echo", json!({"text": "quick"})))
        .await;
    assert_eq!(
        peer.next().await.unwrap(),
        text_result(json!(4), "ECHO:quick", false)
    );
    peer.send(
        json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 3}}),
    )
    .await;
    assert_eq!(peer.finish().await, Vec::<Value>::new());
}

#[tokio::test]
async fn a_cancelled_call_fires_its_token_and_gets_no_reply() {
    let mut peer = start(Duration::from_secs(5));
    peer.send(call(json!("c1"), "wait_for_cancel", json!({})))
        .await;
    assert_eq!(peer.started().await, "wait_for_cancel");
    peer.send(json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": "c1", "reason": "user"}}))
        .await;
    assert_eq!(peer.started().await, "cancelled");
    // No reply for c1: the next line is the ping's.
    peer.send(json!({"jsonrpc": "2.0", "id": "after", "method": "ping"}))
        .await;
    assert_eq!(
        peer.next().await.unwrap(),
        json!({"jsonrpc": "2.0", "id": "after", "result": {}})
    );
    assert_eq!(peer.finish().await, Vec::<Value>::new());
}

#[tokio::test]
async fn progress_goes_out_with_the_token_before_the_result() {
    let mut peer = start(Duration::from_secs(5));
    peer.send(
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
            "name": "progress", "arguments": {}, "_meta": {"progressToken": "tok"}
        }}),
    )
    .await;
    assert_eq!(
        peer.next().await.unwrap(),
        json!({"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progressToken": "tok", "progress": 1.0, "total": 2.0, "message": "half"}})
    );
    assert_eq!(
        peer.next().await.unwrap(),
        json!({"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progressToken": "tok", "progress": 2.0, "total": 2.0}})
    );
    assert_eq!(
        peer.next().await.unwrap(),
        text_result(json!(1), "done", false)
    );
    // Without a token, progress is not sent.
    peer.send(call(json!(2), "progress", json!({}))).await;
    assert_eq!(
        peer.next().await.unwrap(),
        text_result(json!(2), "done", false)
    );
    assert_eq!(peer.finish().await, Vec::<Value>::new());
}

#[tokio::test]
async fn log_messages_go_out_before_the_result_at_or_above_the_level_set() {
    let mut peer = start(Duration::from_secs(5));
    let info = json!({"jsonrpc": "2.0", "method": "notifications/message",
        "params": {"level": "info", "data": "started"}});
    let warning = json!({"jsonrpc": "2.0", "method": "notifications/message",
        "params": {"level": "warning", "logger": "disk", "data": {"free": "3%"}}});
    // Before any setLevel, every message.
    peer.send(call(json!(1), "logs", json!({}))).await;
    assert_eq!(peer.next().await.unwrap(), info);
    assert_eq!(peer.next().await.unwrap(), warning);
    assert_eq!(
        peer.next().await.unwrap(),
        text_result(json!(1), "logged", false)
    );
    peer.send(json!({"jsonrpc": "2.0", "id": 2, "method": "logging/setLevel", "params": {"level": "warning"}}))
        .await;
    assert_eq!(
        peer.next().await.unwrap(),
        json!({"jsonrpc": "2.0", "id": 2, "result": {}})
    );
    peer.send(call(json!(3), "logs", json!({}))).await;
    assert_eq!(peer.next().await.unwrap(), warning);
    assert_eq!(
        peer.next().await.unwrap(),
        text_result(json!(3), "logged", false)
    );
    assert_eq!(peer.finish().await, Vec::<Value>::new());
}

#[tokio::test]
async fn at_end_of_input_a_running_call_still_answers_within_the_grace() {
    let mut peer = start(Duration::from_secs(5));
    peer.send(call(json!(1), "slow", json!({"ms": 300}))).await;
    assert_eq!(peer.started().await, "slow");
    assert_eq!(
        peer.finish().await,
        [text_result(json!(1), "slept 300 ms", false)]
    );
}

#[tokio::test]
async fn at_end_of_input_a_call_past_the_grace_is_cancelled_and_serve_returns() {
    let mut peer = start(Duration::from_millis(200));
    peer.send(call(json!(1), "wait_for_cancel", json!({})))
        .await;
    assert_eq!(peer.started().await, "wait_for_cancel");
    let begun = std::time::Instant::now();
    // Returned well before the 10 s bound, without a reply for the cancelled call.
    assert_eq!(peer.finish_keeping_probe().await, Vec::<Value>::new());
    assert!(
        begun.elapsed() < Duration::from_secs(5),
        "{:?}",
        begun.elapsed()
    );
}

impl Peer {
    /// [`Peer::finish`], then checks that the tool saw its cancellation.
    async fn finish_keeping_probe(mut self) -> Vec<Value> {
        let mut started = std::mem::replace(&mut self.started, mpsc::unbounded_channel().1);
        let rest = self.finish().await;
        assert_eq!(
            tokio::time::timeout(WAIT, started.recv()).await.unwrap(),
            Some("cancelled".to_string())
        );
        rest
    }
}

#[tokio::test]
async fn a_closed_output_ends_serve_with_the_io_error() {
    let (mut to_server, from_client) = tokio::io::duplex(1 << 16);
    let (to_client, from_server) = tokio::io::duplex(1 << 16);
    let (started_tx, _started) = mpsc::unbounded_channel();
    let serving = tokio::spawn(serve(server(started_tx), from_client, to_client).into_future());
    drop(from_server);
    to_server
        .write_all(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n")
        .await
        .unwrap();
    let outcome = tokio::time::timeout(WAIT, serving).await.unwrap().unwrap();
    assert_eq!(outcome.unwrap_err().kind(), std::io::ErrorKind::BrokenPipe);
}

#[tokio::test]
async fn a_line_over_the_cap_is_dropped_and_answered_and_the_next_one_is_served() {
    let mut peer = start_with(Duration::from_secs(5), 64);
    // Sent in pieces, so the cap is crossed while the line streams in.
    let long = format!(
        "{{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"params\":{{\"pad\":\"{}\"}}}}\n",
        "x".repeat(100)
    );
    let (head, tail) = long.as_bytes().split_at(40);
    peer.send_raw(head).await;
    tokio::task::yield_now().await;
    peer.send_raw(tail).await;
    assert_eq!(
        peer.next().await.unwrap(),
        json!({"jsonrpc": "2.0", "id": null, "error": {
            "code": -32600,
            "message": "Invalid Request",
            "data": format!("a message of {} bytes is over the 64-byte line cap", long.len())
        }})
    );
    // A line of exactly the cap (newline included) is served, also when it comes in pieces.
    let ping = "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}";
    let exact = format!("{ping}{}\n", " ".repeat(64 - ping.len() - 1));
    assert_eq!(exact.len(), 64);
    let (head, tail) = exact.as_bytes().split_at(10);
    peer.send_raw(head).await;
    tokio::task::yield_now().await;
    peer.send_raw(tail).await;
    assert_eq!(
        peer.next().await.unwrap(),
        json!({"jsonrpc": "2.0", "id": 2, "result": {}})
    );
    assert_eq!(peer.finish().await, Vec::<Value>::new());
}

#[tokio::test]
async fn ids_are_written_back_as_they_came() {
    let mut peer = start(Duration::from_secs(5));
    // A float holds none of these exactly: read as one, they came back as
    // `1.2345678901234568e29`, `1.8446744073709552e19`, `1.5`.
    for id in [
        "123456789012345678901234567890",
        "-123456789012345678901234567890",
        "18446744073709551616",
        "1.50",
    ] {
        peer.send_raw(
            format!(
                "{{\"jsonrpc\":\"2.0\",\"id\":{id},\"method\":\"tools/call\",\"params\":{{\"name\":\"echo\",\"arguments\":{{\"text\":\"x\"}}}}}}\n"
            )
            .as_bytes(),
        )
        .await;
        assert_eq!(
            peer.next_line().await,
            format!(
                r#"{{"jsonrpc":"2.0","id":{id},"result":{{"content":[{{"type":"text","text":"ECHO:x"}}],"isError":false}}}}"#
            )
        );
        peer.send_raw(
            format!("{{\"jsonrpc\":\"2.0\",\"id\":{id},\"method\":\"ping\"}}\n").as_bytes(),
        )
        .await;
        assert_eq!(
            peer.next_line().await,
            format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{{}}}}"#)
        );
    }
    assert_eq!(peer.finish().await, Vec::<Value>::new());
}

#[tokio::test]
async fn a_line_that_does_not_parse_is_answered_once_with_its_id_when_it_can_be_read() {
    let mut peer = start(Duration::from_secs(5));
    // The id is fine, a number in the arguments is not: the answer names the request, so the
    // client's call ends instead of waiting for an answer it could not match, and, a tool call,
    // it is an `isError` result the model reads (as for any argument it got wrong).
    let line = r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":{"text":1e400}}}"#;
    peer.send_raw(format!("{line}\n").as_bytes()).await;
    assert_eq!(
        peer.next().await.unwrap(),
        json!({"jsonrpc": "2.0", "id": 7, "result": {"content": [{"type": "text", "text":
            "The server could not read this tool call to `echo`: a number in it is out of range: \
             JSON numbers must fit a 64-bit float (at most about 1.8e308); send such a value as a \
             string"}], "isError": true}})
    );
    // Another method cut short: a parse error with its id.
    peer.send_raw(
        b"{\"jsonrpc\":\"2.0\",\"id\":8,\"method\":\"tools/list\",\"params\":{\"x\":tru}}\n",
    )
    .await;
    assert_eq!(
        peer.next().await.unwrap(),
        json!({"jsonrpc": "2.0", "id": 8, "error": {"code": -32700, "message": "Parse error",
            "data": "The server could not read this message `tools/list`: it is not valid JSON (expected ident)"}})
    );
    // An id out of a float's range is an id like any other: it comes back as written (a
    // JavaScript or Python client reads it as the infinity it sent; JSON-RPC asks for the same
    // value back).
    for id in ["1e400", "-1e400", "1e309"] {
        let line = format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"ping"}}"#);
        peer.send_raw(format!("{line}\n").as_bytes()).await;
        assert_eq!(
            peer.next_line().await,
            format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{{}}}}"#)
        );
    }
    // One answer each: nothing else is written.
    assert_eq!(peer.finish().await, Vec::<Value>::new());
}
