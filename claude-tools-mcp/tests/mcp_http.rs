//! The Streamable HTTP MCP server (`claude_tools::mcp::http`) on a real listener on 127.0.0.1,
//! spoken to in raw HTTP/1.1 over TCP, so every status, header and body byte is the server's own:
//! each rule of the module docs' table, timeouts, graceful shutdown, concurrent clients and
//! disconnects.

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use claude_tools::mcp::LoggingLevel;
use claude_tools::mcp::http::{AuthDecision, HttpServer, axum};
use claude_tools::tools::{ToolDefBuilder, ToolError, ToolServer};
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{Barrier, mpsc, oneshot};
use tokio::task::JoinHandle;

/// Bounds every wait of these tests: long enough for a loaded machine, short enough that a hang
/// fails rather than stalls.
const WAIT: Duration = Duration::from_secs(10);

/// The headers an MCP client sends with every POST.
const MCP_HEADERS: [(&str, &str); 2] = [
    ("content-type", "application/json"),
    ("accept", "application/json, text/event-stream"),
];

fn tools(events: mpsc::UnboundedSender<String>) -> ToolServer {
    let mut echo = ToolDefBuilder::new("echo");
    echo.description("Echo the text back");
    echo.input()
        .property::<String>("text", Some("What to echo"), true);
    let rendezvous = Arc::new(Barrier::new(2));
    let events_slow = events.clone();
    ToolServer::new("http-test", "0.4.0")
        .with_tool(echo, |mut call| async move {
            let text = call.take_argument("text").unwrap_or_default();
            format!("ECHO:{}", text.as_str().unwrap_or_default())
        })
        .unwrap()
        .with_tool(ToolDefBuilder::new("fail"), |_| async {
            Err::<String, _>(ToolError::new("disk on fire"))
        })
        .unwrap()
        .with_tool(ToolDefBuilder::new("progress"), |call| async move {
            let context = call.context();
            context.report_progress(1.0, Some(2.0), Some("half"));
            tokio::task::yield_now().await;
            context.report_progress(2.0, Some(2.0), None);
            "done"
        })
        .unwrap()
        // Logs at info, reports progress, logs a warning from a named logger, then answers.
        .with_tool(ToolDefBuilder::new("logs"), |call| async move {
            let context = call.context();
            context.log_info("started");
            tokio::task::yield_now().await;
            context.report_progress(1.0, Some(1.0), None);
            context.log_with(LoggingLevel::Warning, "disk", json!({"free": "3%"}));
            "logged"
        })
        .unwrap()
        // Finishes only when two calls run at the same time.
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
        // Waits for its cancellation, then reports it through `events`.
        .with_tool(ToolDefBuilder::new("wait_for_cancel"), move |call| {
            let events = events.clone();
            async move {
                let _ = events.send("wait_for_cancel".into());
                call.context().report_progress(1.0, None, Some("waiting"));
                call.context().cancelled().await;
                let _ = events.send("cancelled".into());
                "stopped"
            }
        })
        .unwrap()
        // Sleeps `ms` milliseconds, then answers.
        .with_tool(ToolDefBuilder::new("slow"), move |mut call| {
            let events = events_slow.clone();
            async move {
                let ms = call
                    .take_argument("ms")
                    .and_then(|ms| ms.as_u64())
                    .unwrap_or(0);
                let _ = events.send("slow".into());
                tokio::time::sleep(Duration::from_millis(ms)).await;
                format!("slept {ms} ms")
            }
        })
        .unwrap()
}

/// A server under test on 127.0.0.1.
struct Running {
    addr: SocketAddr,
    events: mpsc::UnboundedReceiver<String>,
    shutdown: Option<oneshot::Sender<()>>,
    serving: JoinHandle<std::io::Result<()>>,
}

async fn start(configure: impl FnOnce(HttpServer) -> HttpServer) -> Running {
    start_with_grace(configure, Duration::from_secs(5)).await
}

async fn start_with_grace(
    configure: impl FnOnce(HttpServer) -> HttpServer,
    grace: Duration,
) -> Running {
    let (events_tx, events) = mpsc::unbounded_channel();
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let (shutdown, signal) = oneshot::channel::<()>();
    let serve = configure(HttpServer::new(tools(events_tx)))
        .serve(listener)
        .shutdown_grace(grace)
        .with_graceful_shutdown(async {
            let _ = signal.await;
        });
    Running {
        addr,
        events,
        shutdown: Some(shutdown),
        serving: tokio::spawn(serve.into_future()),
    }
}

impl Running {
    async fn event(&mut self) -> String {
        tokio::time::timeout(WAIT, self.events.recv())
            .await
            .expect("a tool event in time")
            .expect("the tools are alive")
    }

    /// Starts the graceful shutdown.
    fn shut_down(&mut self) {
        let _ = self.shutdown.take().expect("not shut down yet").send(());
    }

    /// Waits for the server to return, within `limit`.
    async fn stopped(self, limit: Duration) -> std::io::Result<()> {
        tokio::time::timeout(limit, self.serving)
            .await
            .expect("the server returned in time")
            .expect("the server task did not panic")
    }

    async fn post(&self, body: &str) -> Reply {
        exchange(self.addr, &request("POST", "/mcp", &MCP_HEADERS, body)).await
    }

    async fn post_with(&self, headers: &[(&str, &str)], body: &str) -> Reply {
        exchange(self.addr, &request("POST", "/mcp", headers, body)).await
    }
}

/// One HTTP response as read off the wire (chunked bodies decoded).
#[derive(Debug)]
struct Reply {
    status: u16,
    headers: Vec<(String, String)>,
    body: String,
}

impl Reply {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(key, _)| key.eq_ignore_ascii_case(name))
            .map(|(_, value)| value.as_str())
    }

    fn json(&self) -> Value {
        serde_json::from_str(&self.body)
            .unwrap_or_else(|error| panic!("not JSON ({error}): {:?}", self.body))
    }

    /// Asserts a JSON reply with `status` and `body`.
    fn assert_json(&self, status: u16, body: Value) {
        assert_eq!(self.status, status, "{self:?}");
        assert_eq!(self.header("content-type"), Some("application/json"));
        assert_eq!(self.json(), body);
    }
}

fn request(method: &str, path: &str, headers: &[(&str, &str)], body: &str) -> Vec<u8> {
    let mut head = format!(
        "{method} {path} HTTP/1.1\r\nhost: 127.0.0.1\r\nconnection: close\r\ncontent-length: {}\r\n",
        body.len()
    );
    for (name, value) in headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    head.push_str("\r\n");
    head.push_str(body);
    head.into_bytes()
}

async fn exchange(addr: SocketAddr, request: &[u8]) -> Reply {
    let mut stream = TcpStream::connect(addr).await.expect("connect");
    stream.write_all(request).await.expect("send the request");
    read_reply(&mut stream).await
}

/// Reads one response: its head, then a body of `content-length` bytes, chunked, or up to EOF.
async fn read_reply(stream: &mut TcpStream) -> Reply {
    tokio::time::timeout(WAIT, read_reply_unbounded(stream))
        .await
        .expect("a response in time")
}

async fn read_reply_unbounded(stream: &mut TcpStream) -> Reply {
    let mut bytes = Vec::new();
    let head_end = loop {
        if let Some(end) = find(&bytes, b"\r\n\r\n") {
            break end;
        }
        let mut chunk = [0u8; 4096];
        let read = stream.read(&mut chunk).await.expect("read the response");
        assert!(
            read > 0,
            "the connection closed before a response: {bytes:?}"
        );
        bytes.extend_from_slice(&chunk[..read]);
    };
    let head = String::from_utf8(bytes[..head_end].to_vec()).unwrap();
    let mut rest = bytes[head_end + 4..].to_vec();
    let mut lines = head.split("\r\n");
    let status = lines.next().unwrap().split(' ').nth(1).unwrap();
    let headers: Vec<(String, String)> = lines
        .map(|line| {
            let (name, value) = line.split_once(':').unwrap();
            (name.trim().to_ascii_lowercase(), value.trim().to_string())
        })
        .collect();
    let mut reply = Reply {
        status: status.parse().unwrap(),
        headers,
        body: String::new(),
    };
    let body = if let Some(length) = reply.header("content-length") {
        let length: usize = length.parse().unwrap();
        while rest.len() < length {
            let mut chunk = [0u8; 4096];
            let read = stream.read(&mut chunk).await.unwrap();
            assert!(read > 0, "the body ended early");
            rest.extend_from_slice(&chunk[..read]);
        }
        rest.truncate(length);
        rest
    } else if reply.header("transfer-encoding") == Some("chunked") {
        read_chunked(stream, rest).await
    } else {
        stream.read_to_end(&mut rest).await.unwrap();
        rest
    };
    reply.body = String::from_utf8(body).unwrap();
    reply
}

async fn read_chunked(stream: &mut TcpStream, mut buffered: Vec<u8>) -> Vec<u8> {
    let mut body = Vec::new();
    loop {
        while find(&buffered, b"\r\n").is_none() {
            fill(stream, &mut buffered).await;
        }
        let line_end = find(&buffered, b"\r\n").unwrap();
        let size = usize::from_str_radix(
            std::str::from_utf8(&buffered[..line_end]).unwrap().trim(),
            16,
        )
        .unwrap();
        buffered.drain(..line_end + 2);
        while buffered.len() < size + 2 {
            fill(stream, &mut buffered).await;
        }
        if size == 0 {
            return body;
        }
        body.extend_from_slice(&buffered[..size]);
        buffered.drain(..size + 2);
    }
}

async fn fill(stream: &mut TcpStream, buffered: &mut Vec<u8>) {
    let mut chunk = [0u8; 4096];
    let read = stream.read(&mut chunk).await.unwrap();
    assert!(read > 0, "the chunked body ended early");
    buffered.extend_from_slice(&chunk[..read]);
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack
        .windows(needle.len())
        .position(|window| window == needle)
}

fn call(id: Value, tool: &str, arguments: Value) -> String {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": tool, "arguments": arguments}})
        .to_string()
}

fn text_result(id: Value, text: &str, is_error: bool) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "result": {
        "content": [{"type": "text", "text": text}],
        "isError": is_error
    }})
}

fn refusal(code: i64, message: &str, data: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": null, "error": {"code": code, "message": message, "data": data}})
}

// ---------------------------------------------------------------------------------------------
// The protocol.

#[tokio::test]
async fn initialize_negotiates_and_issues_no_session() {
    let server = start(|http| http).await;
    let reply = server
        .post(r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#)
        .await;
    reply.assert_json(
        200,
        json!({"jsonrpc": "2.0", "id": 0, "result": {
            "protocolVersion": "2025-06-18",
            "capabilities": {"tools": {"listChanged": false}, "logging": {}},
            "serverInfo": {"name": "http-test", "version": "0.4.0"}
        }}),
    );
    assert_eq!(reply.header("mcp-session-id"), None);
}

#[tokio::test]
async fn tools_list_is_the_servers_list() {
    let server = start(|http| http).await;
    let reply = server
        .post(r#"{"jsonrpc":"2.0","id":"l","method":"tools/list"}"#)
        .await;
    let (events, _) = mpsc::unbounded_channel();
    reply.assert_json(
        200,
        json!({"jsonrpc": "2.0", "id": "l", "result": {"tools": tools(events).list_tools()}}),
    );
}

#[tokio::test]
async fn a_tools_call_is_answered_as_json() {
    let server = start(|http| http).await;
    server
        .post(&call(json!(1), "echo", json!({"text": "hi"})))
        .await
        .assert_json(200, text_result(json!(1), "ECHO:hi", false));
    server
        .post(&call(json!(2), "fail", json!({})))
        .await
        .assert_json(200, text_result(json!(2), "disk on fire", true));
    server
        .post(&call(json!(3), "nope", json!({})))
        .await
        .assert_json(
            200,
            json!({"jsonrpc": "2.0", "id": 3, "error": {"code": -32602,
                "message": "Invalid params", "data": "Tool `nope` not found on server `http-test`"}}),
        );
    // JSON-RPC errors of a well-formed request are replies, with 200.
    server
        .post(r#"{"jsonrpc":"2.0","id":4,"method":"resources/list"}"#)
        .await
        .assert_json(
            200,
            json!({"jsonrpc": "2.0", "id": 4, "error": {"code": -32601, "message": "Method not found", "data": "resources/list"}}),
        );
}

const PROGRESS_CALL: &str = r#"{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"progress","arguments":{},"_meta":{"progressToken":"tok"}}}"#;

#[tokio::test]
async fn a_call_with_a_progress_token_streams_its_progress_then_its_result_as_sse() {
    let server = start(|http| http).await;
    let reply = server.post(PROGRESS_CALL).await;
    assert_eq!(reply.status, 200);
    assert_eq!(reply.header("content-type"), Some("text/event-stream"));
    assert_eq!(reply.header("cache-control"), Some("no-cache"));
    assert_eq!(
        reply.body,
        "event: message\n\
         data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progressToken\":\"tok\",\"progress\":1.0,\"total\":2.0,\"message\":\"half\"}}\n\n\
         event: message\n\
         data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progressToken\":\"tok\",\"progress\":2.0,\"total\":2.0}}\n\n\
         event: message\n\
         data: {\"jsonrpc\":\"2.0\",\"id\":5,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"done\"}],\"isError\":false}}\n\n"
    );
}

const INFO_STARTED: &str = "event: message\n\
     data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"level\":\"info\",\"data\":\"started\"}}\n\n";
const WARNING_DISK: &str = "event: message\n\
     data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"level\":\"warning\",\"logger\":\"disk\",\"data\":{\"free\":\"3%\"}}}\n\n";

fn logged(id: u32) -> String {
    format!(
        "event: message\n\
         data: {{\"jsonrpc\":\"2.0\",\"id\":{id},\"result\":{{\"content\":[{{\"type\":\"text\",\"text\":\"logged\"}}],\"isError\":false}}}}\n\n"
    )
}

#[tokio::test]
async fn a_tools_log_messages_and_progress_stream_on_its_calls_sse_stateless() {
    let server = start(|http| http).await;
    // No progress token: the stream opens for the first log message.
    let reply = server.post(&call(json!(3), "logs", json!({}))).await;
    assert_eq!(reply.status, 200);
    assert_eq!(reply.header("content-type"), Some("text/event-stream"));
    assert_eq!(
        reply.body,
        format!("{INFO_STARTED}{WARNING_DISK}{}", logged(3))
    );

    // With a progress token: progress and log messages in the order the tool sent them.
    let with_token = r#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"logs","_meta":{"progressToken":"p"}}}"#;
    let reply = server.post(with_token).await;
    assert_eq!(reply.header("content-type"), Some("text/event-stream"));
    assert_eq!(
        reply.body,
        format!(
            "{INFO_STARTED}event: message\n\
             data: {{\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{{\"progressToken\":\"p\",\"progress\":1.0,\"total\":1.0}}}}\n\n\
             {WARNING_DISK}{}",
            logged(4)
        )
    );

    // A client that takes only JSON gets the result alone: nothing can carry the messages.
    let json_only = [
        ("content-type", "application/json"),
        ("accept", "application/json"),
    ];
    server
        .post_with(&json_only, &call(json!(5), "logs", json!({})))
        .await
        .assert_json(200, text_result(json!(5), "logged", false));
    // A call that logs nothing is still plain JSON.
    server
        .post(&call(json!(6), "echo", json!({"text": "quiet"})))
        .await
        .assert_json(200, text_result(json!(6), "ECHO:quiet", false));
}

#[tokio::test]
async fn in_a_session_set_level_filters_the_log_messages_on_the_calls_stream() {
    let server = start(|http| http.sessions(true)).await;
    let session = open_session(&server).await;
    let headers = in_session(&session);
    // Before any setLevel, everything is sent.
    let reply = server
        .post_with(&headers, &call(json!(2), "logs", json!({})))
        .await;
    assert_eq!(
        reply.body,
        format!("{INFO_STARTED}{WARNING_DISK}{}", logged(2))
    );
    server
        .post_with(
            &headers,
            r#"{"jsonrpc":"2.0","id":3,"method":"logging/setLevel","params":{"level":"warning"}}"#,
        )
        .await
        .assert_json(200, json!({"jsonrpc": "2.0", "id": 3, "result": {}}));
    let reply = server
        .post_with(&headers, &call(json!(4), "logs", json!({})))
        .await;
    assert_eq!(reply.header("content-type"), Some("text/event-stream"));
    assert_eq!(reply.body, format!("{WARNING_DISK}{}", logged(4)));
    // The level is the session's: another session starts from every level.
    let other = open_session(&server).await;
    let reply = server
        .post_with(&in_session(&other), &call(json!(5), "logs", json!({})))
        .await;
    assert_eq!(
        reply.body,
        format!("{INFO_STARTED}{WARNING_DISK}{}", logged(5))
    );
}

#[tokio::test]
async fn accept_decides_between_json_and_sse_leniently() {
    let server = start(|http| http).await;
    let json_only = [
        ("content-type", "application/json"),
        ("accept", "application/json"),
    ];
    // Progress cannot be streamed to a JSON-only client: it gets the result alone.
    server
        .post_with(&json_only, PROGRESS_CALL)
        .await
        .assert_json(200, text_result(json!(5), "done", false));
    // No Accept at all: JSON.
    server
        .post_with(
            &[("content-type", "application/json")],
            &call(json!(6), "echo", json!({"text": "a"})),
        )
        .await
        .assert_json(200, text_result(json!(6), "ECHO:a", false));
    // A client that reads only SSE gets its reply as one event.
    let sse_only = server
        .post_with(
            &[
                ("content-type", "application/json"),
                ("accept", "text/event-stream"),
            ],
            &call(json!(7), "echo", json!({"text": "b"})),
        )
        .await;
    assert_eq!(sse_only.status, 200);
    assert_eq!(sse_only.header("content-type"), Some("text/event-stream"));
    assert_eq!(
        sse_only.body,
        format!(
            "event: message\ndata: {}\n\n",
            text_result(json!(7), "ECHO:b", false)
        )
    );
    // Neither: 406.
    server
        .post_with(
            &[
                ("content-type", "application/json"),
                ("accept", "text/html"),
            ],
            &call(json!(8), "echo", json!({"text": "c"})),
        )
        .await
        .assert_json(
            406,
            refusal(
                -32000,
                "Not Acceptable",
                "the client must accept `application/json` or `text/event-stream`",
            ),
        );
}

#[tokio::test]
async fn notifications_and_responses_are_accepted_with_202_and_no_body() {
    let server = start(|http| http).await;
    for message in [
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
        r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}"#,
        r#"{"jsonrpc":"2.0","id":9,"result":{}}"#,
        r#"{"jsonrpc":"2.0","id":9,"error":{"code":-1,"message":"no"}}"#,
    ] {
        let reply = server.post(message).await;
        assert_eq!((reply.status, reply.body.as_str()), (202, ""), "{message}");
    }
}

#[tokio::test]
async fn notifications_cancelled_cannot_cancel_another_clients_call() {
    let mut server = start(|http| http).await;
    let addr = server.addr;
    let running = tokio::spawn(async move {
        exchange(
            addr,
            &request(
                "POST",
                "/mcp",
                &MCP_HEADERS,
                &call(json!(1), "slow", json!({"ms": 300})),
            ),
        )
        .await
    });
    assert_eq!(server.event().await, "slow");
    let cancel = server
        .post(r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}"#)
        .await;
    assert_eq!(cancel.status, 202);
    running
        .await
        .unwrap()
        .assert_json(200, text_result(json!(1), "slept 300 ms", false));
}

#[tokio::test]
async fn get_and_delete_are_405() {
    let server = start(|http| http).await;
    for method in ["GET", "DELETE"] {
        let reply = exchange(server.addr, &request(method, "/mcp", &MCP_HEADERS, "")).await;
        reply.assert_json(
            405,
            refusal(
                -32000,
                "Method Not Allowed",
                "this MCP server is stateless: POST each JSON-RPC message; it has no GET stream and no session to DELETE",
            ),
        );
        assert_eq!(reply.header("allow"), Some("POST, OPTIONS"));
    }
}

#[tokio::test]
async fn bad_json_is_400_parse_error_and_bad_messages_400_invalid_request() {
    let server = start(|http| http).await;
    server.post("{\"jsonrpc\":").await.assert_json(
        400,
        refusal(
            -32700,
            "Parse error",
            "The server could not read this message: it is not valid JSON (EOF while parsing a value)",
        ),
    );
    server
        .post(r#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#)
        .await
        .assert_json(
            400,
            refusal(
                -32600,
                "Invalid Request",
                "a JSON-RPC batch (an array) is not supported: MCP removed batches in 2025-06-18; send one message at a time",
            ),
        );
    server.post("3").await.assert_json(
        400,
        refusal(
            -32600,
            "Invalid Request",
            "a JSON-RPC message must be a JSON object",
        ),
    );
    server
        .post(r#"{"jsonrpc":"1.0","id":1,"method":"ping"}"#)
        .await
        .assert_json(
            400,
            json!({"jsonrpc": "2.0", "id": 1, "error": {"code": -32600, "message": "Invalid Request", "data": "`jsonrpc` must be \"2.0\""}}),
        );
    server.post(r#"{"jsonrpc":"2.0","id":1}"#).await.assert_json(
        400,
        json!({"jsonrpc": "2.0", "id": 1, "error": {"code": -32600, "message": "Invalid Request", "data": "a request needs a `method` string"}}),
    );
}

#[tokio::test]
async fn a_body_that_is_not_json_by_content_type_is_415() {
    let server = start(|http| http).await;
    let body = call(json!(1), "echo", json!({"text": "x"}));
    let expected = refusal(
        -32000,
        "Unsupported Media Type",
        "the body must be one JSON-RPC message with `Content-Type: application/json`",
    );
    server
        .post_with(&[("content-type", "text/plain")], &body)
        .await
        .assert_json(415, expected.clone());
    server
        .post_with(&[("accept", "application/json")], &body)
        .await
        .assert_json(415, expected);
    server
        .post_with(
            &[("content-type", "Application/JSON; charset=utf-8")],
            &body,
        )
        .await
        .assert_json(200, text_result(json!(1), "ECHO:x", false));
}

#[tokio::test]
async fn an_unknown_protocol_version_header_is_400() {
    let server = start(|http| http).await;
    let body = call(json!(1), "echo", json!({"text": "v"}));
    server
        .post_with(
            &[
                ("content-type", "application/json"),
                ("mcp-protocol-version", "1999-01-01"),
            ],
            &body,
        )
        .await
        .assert_json(
            400,
            json!({"jsonrpc": "2.0", "id": 1, "error": {
                "code": -32022,
                "message": "Unsupported protocol version",
                "data": {
                    "supported": ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"],
                    "requested": "1999-01-01",
                },
            }}),
        );
    // A notification says nothing of its revision but the header's: refused the same way,
    // without an id.
    let refused = server
        .post_with(
            &[
                ("content-type", "application/json"),
                ("mcp-protocol-version", "1999-01-01"),
            ],
            r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
        )
        .await;
    assert_eq!(refused.status, 400);
    assert_eq!(refused.json()["error"]["code"], -32022);
    server
        .post_with(
            &[
                ("content-type", "application/json"),
                ("mcp-protocol-version", "2025-11-25"),
            ],
            &body,
        )
        .await
        .assert_json(200, text_result(json!(1), "ECHO:v", false));
}

// ---------------------------------------------------------------------------------------------
// Origins, size, auth.

#[tokio::test]
async fn a_foreign_origin_is_403_and_loopback_origins_pass() {
    let server = start(|http| http).await;
    let body = call(json!(1), "echo", json!({"text": "o"}));
    let with_origin =
        |origin: &'static str| [("content-type", "application/json"), ("origin", origin)];
    server
        .post_with(&with_origin("http://evil.example"), &body)
        .await
        .assert_json(
            403,
            refusal(
                -32000,
                "Forbidden",
                "origin `http://evil.example` is not allowed",
            ),
        );
    server
        .post_with(&with_origin("http://localhost.evil.example"), &body)
        .await
        .assert_json(
            403,
            refusal(
                -32000,
                "Forbidden",
                "origin `http://localhost.evil.example` is not allowed",
            ),
        );
    for origin in [
        "http://localhost:5173",
        "http://127.0.0.1:8080",
        "https://[::1]",
    ] {
        server
            .post_with(&with_origin(origin), &body)
            .await
            .assert_json(200, text_result(json!(1), "ECHO:o", false));
    }
}

#[tokio::test]
async fn allowed_origins_replace_the_loopback_default() {
    let server = start(|http| http.allowed_origins(["https://app.example.com/"])).await;
    let body = call(json!(1), "echo", json!({"text": "o"}));
    server
        .post_with(
            &[
                ("content-type", "application/json"),
                ("origin", "https://APP.example.com"),
            ],
            &body,
        )
        .await
        .assert_json(200, text_result(json!(1), "ECHO:o", false));
    server
        .post_with(
            &[
                ("content-type", "application/json"),
                ("origin", "http://localhost:5173"),
            ],
            &body,
        )
        .await
        .assert_json(
            403,
            refusal(
                -32000,
                "Forbidden",
                "origin `http://localhost:5173` is not allowed",
            ),
        );
}

#[tokio::test]
async fn an_oversize_body_is_413_without_being_read() {
    let server = start(|http| http.max_body_size(64)).await;
    let expected = refusal(
        -32000,
        "Payload Too Large",
        "the body is over this server's 64-byte cap",
    );
    // Declared too large: answered from the head alone, though not a byte of the 100 MB body
    // is ever sent.
    let mut stream = TcpStream::connect(server.addr).await.unwrap();
    stream
        .write_all(
            b"POST /mcp HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\ncontent-length: 100000000\r\n\r\n{",
        )
        .await
        .unwrap();
    read_reply(&mut stream)
        .await
        .assert_json(413, expected.clone());

    // Streamed without a length: cut off at the cap.
    let mut stream = TcpStream::connect(server.addr).await.unwrap();
    let chunk = " ".repeat(100);
    stream
        .write_all(
            format!(
                "POST /mcp HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\n\r\n64\r\n{chunk}\r\n0\r\n\r\n"
            )
            .as_bytes(),
        )
        .await
        .unwrap();
    read_reply(&mut stream).await.assert_json(413, expected);

    // Under the cap: served.
    server
        .post(r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#)
        .await
        .assert_json(200, json!({"jsonrpc": "2.0", "id": 1, "result": {}}));
}

#[tokio::test]
async fn a_bearer_token_is_required_when_set() {
    let server = start(|http| http.bearer_token("s3cret")).await;
    let body = call(json!(1), "echo", json!({"text": "t"}));
    let expected = refusal(
        -32000,
        "Unauthorized",
        "this server requires `Authorization: Bearer <token>` with a valid token",
    );
    let missing = server.post(&body).await;
    missing.assert_json(401, expected.clone());
    assert_eq!(missing.header("www-authenticate"), Some("Bearer"));
    let wrong = server
        .post_with(
            &[
                ("content-type", "application/json"),
                ("authorization", "Bearer s3creT"),
            ],
            &body,
        )
        .await;
    wrong.assert_json(401, expected);
    assert_eq!(
        wrong.header("www-authenticate"),
        Some("Bearer error=\"invalid_token\"")
    );
    server
        .post_with(
            &[
                ("content-type", "application/json"),
                ("authorization", "Bearer s3cret"),
            ],
            &body,
        )
        .await
        .assert_json(200, text_result(json!(1), "ECHO:t", false));
}

#[tokio::test]
async fn a_custom_authorize_hook_decides_from_the_headers() {
    let asked = Arc::new(AtomicUsize::new(0));
    let counted = asked.clone();
    let server = start(move |http| {
        http.authorize(move |headers| {
            counted.fetch_add(1, Ordering::SeqCst);
            let key = headers
                .get("x-api-key")
                .and_then(|value| value.to_str().ok())
                .map(str::to_owned);
            async move {
                // A database lookup would await here.
                tokio::task::yield_now().await;
                if key.as_deref() == Some("key-1") {
                    AuthDecision::Allow
                } else {
                    AuthDecision::Deny
                }
            }
        })
    })
    .await;
    let body = call(json!(1), "echo", json!({"text": "k"}));
    let denied = server
        .post_with(
            &[("content-type", "application/json"), ("x-api-key", "key-2")],
            &body,
        )
        .await;
    assert_eq!(denied.status, 401);
    assert_eq!(denied.header("www-authenticate"), Some("Bearer"));
    server
        .post_with(
            &[("content-type", "application/json"), ("x-api-key", "key-1")],
            &body,
        )
        .await
        .assert_json(200, text_result(json!(1), "ECHO:k", false));
    assert_eq!(asked.load(Ordering::SeqCst), 2);
}

// ---------------------------------------------------------------------------------------------
// Time, concurrency, disconnects, shutdown.

#[tokio::test]
async fn a_call_over_the_request_timeout_is_cancelled_and_answered_as_a_tool_error() {
    let mut server = start(|http| http.request_timeout(Duration::from_millis(300))).await;
    let started = std::time::Instant::now();
    let reply = server
        .post(&call(json!(1), "wait_for_cancel", json!({})))
        .await;
    reply.assert_json(
        200,
        text_result(
            json!(1),
            "tool `wait_for_cancel` did not finish within the server's 0.3 s request timeout and was cancelled",
            true,
        ),
    );
    assert!(started.elapsed() < Duration::from_secs(3));
    assert_eq!(server.event().await, "wait_for_cancel");
    // The handler saw its cancellation token fire.
    assert_eq!(server.event().await, "cancelled");

    // The same over SSE: the progress so far, then the timeout's result.
    let reply = server
        .post(r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"wait_for_cancel","_meta":{"progressToken":1}}}"#)
        .await;
    assert_eq!(
        reply.body,
        format!(
            "event: message\ndata: {}\n\nevent: message\ndata: {}\n\n",
            json!({"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progressToken": 1, "progress": 1.0, "message": "waiting"}}),
            text_result(
                json!(2),
                "tool `wait_for_cancel` did not finish within the server's 0.3 s request timeout and was cancelled",
                true
            )
        )
    );
    assert_eq!(server.event().await, "wait_for_cancel");
    assert_eq!(server.event().await, "cancelled");
}

#[tokio::test]
async fn two_clients_using_the_same_id_at_once_do_not_collide() {
    let server = start(|http| http).await;
    let body = call(json!(1), "rendezvous", json!({}));
    // Each call finishes only once both run: with one connection state for both, the second
    // would be refused as a duplicate id and the first would never finish.
    let (a, b) = tokio::join!(server.post(&body), server.post(&body));
    a.assert_json(200, text_result(json!(1), "met 1", false));
    b.assert_json(200, text_result(json!(1), "met 1", false));
}

#[tokio::test]
async fn a_client_disconnecting_cancels_its_call() {
    let mut server = start(|http| http).await;
    for body in [
        call(json!(1), "wait_for_cancel", json!({})),
        // Streamed as SSE: the body drives the call.
        r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"wait_for_cancel","_meta":{"progressToken":"p"}}}"#.to_string(),
    ] {
        let mut stream = TcpStream::connect(server.addr).await.unwrap();
        stream
            .write_all(&request("POST", "/mcp", &MCP_HEADERS, &body))
            .await
            .unwrap();
        assert_eq!(server.event().await, "wait_for_cancel");
        drop(stream);
        // The token fires on the disconnect itself, not at the 60 s request timeout.
        let cancelled = tokio::time::timeout(Duration::from_secs(2), server.events.recv()).await;
        assert_eq!(
            cancelled.expect("cancelled within 2 s").as_deref(),
            Some("cancelled"),
            "{body}"
        );
    }
}

#[tokio::test]
async fn graceful_shutdown_lets_a_running_call_finish_and_refuses_new_connections() {
    let mut server = start(|http| http).await;
    let addr = server.addr;
    let running = tokio::spawn(async move {
        exchange(
            addr,
            &request(
                "POST",
                "/mcp",
                &MCP_HEADERS,
                &call(json!(1), "slow", json!({"ms": 800})),
            ),
        )
        .await
    });
    // An idle keep-alive connection does not hold the shutdown up.
    let mut idle = TcpStream::connect(addr).await.unwrap();
    idle.write_all(
        format!(
            "POST /mcp HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\ncontent-length: 40\r\n\r\n{}",
            r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#
        )
        .as_bytes(),
    )
    .await
    .unwrap();
    read_reply(&mut idle)
        .await
        .assert_json(200, json!({"jsonrpc": "2.0", "id": 1, "result": {}}));
    assert_eq!(server.event().await, "slow");
    server.shut_down();

    // New connections are refused once the server has seen the signal.
    let refused = tokio::time::timeout(WAIT, async {
        loop {
            if TcpStream::connect(addr).await.is_err() {
                break;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    })
    .await;
    assert!(refused.is_ok(), "the listener was not closed");
    // The idle connection was closed by the server.
    let mut rest = Vec::new();
    let read = tokio::time::timeout(WAIT, idle.read_to_end(&mut rest)).await;
    assert_eq!(read.expect("closed in time").unwrap(), 0);

    running
        .await
        .unwrap()
        .assert_json(200, text_result(json!(1), "slept 800 ms", false));
    server.stopped(WAIT).await.unwrap();
}

#[tokio::test]
async fn after_the_shutdown_grace_running_calls_are_cancelled_and_answered() {
    let mut server = start_with_grace(|http| http, Duration::from_millis(200)).await;
    let addr = server.addr;
    let running = tokio::spawn(async move {
        exchange(
            addr,
            &request(
                "POST",
                "/mcp",
                &MCP_HEADERS,
                &call(json!(1), "wait_for_cancel", json!({})),
            ),
        )
        .await
    });
    assert_eq!(server.event().await, "wait_for_cancel");
    let started = std::time::Instant::now();
    server.shut_down();
    running.await.unwrap().assert_json(
        200,
        text_result(
            json!(1),
            "the server shut down before tool `wait_for_cancel` finished; the call was cancelled",
            true,
        ),
    );
    assert_eq!(server.event().await, "cancelled");
    server.stopped(Duration::from_secs(3)).await.unwrap();
    assert!(started.elapsed() < Duration::from_secs(3));
}

// ---------------------------------------------------------------------------------------------
// Mounting.

#[tokio::test]
async fn the_router_mounts_into_an_axum_app_at_its_path() {
    let (events, _events) = mpsc::unbounded_channel();
    let app = axum::Router::new()
        .route("/health", axum::routing::get(|| async { "ok" }))
        .merge(HttpServer::new(tools(events)).path("rpc").into_router());
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await });

    exchange(
        addr,
        &request(
            "POST",
            "/rpc",
            &MCP_HEADERS,
            &call(json!(1), "echo", json!({"text": "m"})),
        ),
    )
    .await
    .assert_json(200, text_result(json!(1), "ECHO:m", false));
    let health = exchange(addr, &request("GET", "/health", &[], "")).await;
    assert_eq!((health.status, health.body.as_str()), (200, "ok"));
    let elsewhere = exchange(addr, &request("POST", "/mcp", &MCP_HEADERS, "{}")).await;
    assert_eq!(elsewhere.status, 404);
}

// ---------------------------------------------------------------------------------------------
// Live tools, a hanging auth hook, bad notifications.

#[tokio::test]
async fn a_tool_added_through_the_handle_is_served_to_the_next_request() {
    let (events, _events) = mpsc::unbounded_channel();
    let http = HttpServer::new(tools(events));
    let handle = http.tool_server_handle();
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(http.serve(listener).into_future());
    let post = |body: String| async move {
        exchange(addr, &request("POST", "/mcp", &MCP_HEADERS, &body)).await
    };
    post(call(json!(1), "late", json!({}))).await.assert_json(
        200,
        json!({"jsonrpc": "2.0", "id": 1, "error": {"code": -32602,
            "message": "Invalid params", "data": "Tool `late` not found on server `http-test`"}}),
    );
    handle
        .add_typed_tool("late", || async { "here now" })
        .unwrap();
    post(call(json!(2), "late", json!({})))
        .await
        .assert_json(200, text_result(json!(2), "here now", false));
}

#[tokio::test]
async fn an_auth_hook_that_hangs_is_503_at_the_request_timeout() {
    let server = start(|http| {
        http.request_timeout(Duration::from_millis(200))
            .authorize(|_| std::future::pending())
    })
    .await;
    server
        .post(&call(json!(1), "echo", json!({"text": "h"})))
        .await
        .assert_json(
            503,
            refusal(
                -32000,
                "Service Unavailable",
                "the authorization check did not finish within the server's request timeout",
            ),
        );
}

#[tokio::test]
async fn a_notification_that_is_not_json_rpc_2_is_400() {
    let server = start(|http| http).await;
    server
        .post(r#"{"jsonrpc":"1.0","method":"notifications/initialized"}"#)
        .await
        .assert_json(
            400,
            refusal(-32600, "Invalid Request", "`jsonrpc` must be \"2.0\""),
        );
}

// ---------------------------------------------------------------------------------------------
// Tracing.

mod spans {
    use std::collections::BTreeMap;
    use std::sync::{Arc, Mutex};

    use tracing::field::{Field, Visit};
    use tracing::span::{Attributes, Id, Record};
    use tracing_subscriber::layer::{Context, Layer};
    use tracing_subscriber::registry::LookupSpan;

    type Fields = BTreeMap<String, String>;

    /// Records every `mcp_http` span's fields when it closes, and every event's text.
    #[derive(Clone, Default)]
    pub struct Recorder {
        pub closed: Arc<Mutex<Vec<Fields>>>,
        pub events: Arc<Mutex<Vec<String>>>,
    }

    struct Collect<'a>(&'a mut Fields);

    impl Visit for Collect<'_> {
        fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
            self.0
                .insert(field.name().to_string(), format!("{value:?}"));
        }

        fn record_str(&mut self, field: &Field, value: &str) {
            self.0.insert(field.name().to_string(), value.to_string());
        }
    }

    impl<S: tracing::Subscriber + for<'a> LookupSpan<'a>> Layer<S> for Recorder {
        fn on_new_span(&self, attrs: &Attributes<'_>, id: &Id, ctx: Context<'_, S>) {
            let mut fields = Fields::new();
            attrs.record(&mut Collect(&mut fields));
            if let Some(span) = ctx.span(id) {
                span.extensions_mut().insert(fields);
            }
        }

        fn on_record(&self, id: &Id, values: &Record<'_>, ctx: Context<'_, S>) {
            if let Some(span) = ctx.span(id)
                && let Some(fields) = span.extensions_mut().get_mut::<Fields>()
            {
                values.record(&mut Collect(fields));
            }
        }

        fn on_event(&self, event: &tracing::Event<'_>, _ctx: Context<'_, S>) {
            let mut fields = Fields::new();
            event.record(&mut Collect(&mut fields));
            self.events.lock().unwrap().push(format!("{fields:?}"));
        }

        fn on_close(&self, id: Id, ctx: Context<'_, S>) {
            if let Some(span) = ctx.span(&id)
                && span.name() == "mcp_http"
                && let Some(fields) = span.extensions().get::<Fields>()
            {
                self.closed.lock().unwrap().push(fields.clone());
            }
        }
    }
}

#[tokio::test]
async fn each_request_has_a_span_with_its_method_tool_id_status_and_outcome_and_no_arguments() {
    use tracing_subscriber::layer::SubscriberExt;

    let recorder = spans::Recorder::default();
    let subscriber = tracing_subscriber::registry().with(recorder.clone());
    // The test's runtime has one thread: the server's tasks run on it, under this subscriber.
    let _default = tracing::subscriber::set_default(subscriber);
    let server = start(|http| http.request_timeout(Duration::from_millis(300))).await;

    server
        .post(&call(json!(1), "echo", json!({"text": "SECRET-ARGUMENT"})))
        .await
        .assert_json(200, text_result(json!(1), "ECHO:SECRET-ARGUMENT", false));
    server.post(&call(json!("f"), "fail", json!({}))).await;
    server
        .post(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#)
        .await;
    server
        .post_with(
            &[
                ("content-type", "application/json"),
                ("origin", "http://evil.example"),
            ],
            "{}",
        )
        .await;
    server
        .post(&call(json!(2), "wait_for_cancel", json!({})))
        .await;

    let expected = |pairs: &[(&str, &str)]| -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    };
    let wanted = vec![
        expected(&[
            ("method", "tools/call"),
            ("tool", "echo"),
            ("id", "1"),
            ("status", "200"),
            ("outcome", "result"),
        ]),
        expected(&[
            ("method", "tools/call"),
            ("tool", "fail"),
            ("id", "\"f\""),
            ("status", "200"),
            ("outcome", "tool_error"),
        ]),
        expected(&[
            ("method", "notifications/initialized"),
            ("status", "202"),
            ("outcome", "accepted"),
        ]),
        expected(&[("status", "403"), ("outcome", "rejected")]),
        expected(&[
            ("method", "tools/call"),
            ("tool", "wait_for_cancel"),
            ("id", "2"),
            ("status", "200"),
            ("outcome", "timeout"),
        ]),
    ];
    // A span closes once its response is written; give the last one a moment.
    let closed = tokio::time::timeout(WAIT, async {
        loop {
            let closed = recorder.closed.lock().unwrap().clone();
            if closed.len() >= wanted.len() {
                break closed;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    })
    .await
    .expect("every span closed");
    assert_eq!(closed, wanted);
    let events = recorder.events.lock().unwrap().join("\n");
    assert!(!events.contains("SECRET-ARGUMENT"), "{events}");
}

#[tokio::test]
async fn a_call_whose_params_come_before_its_method_still_streams_progress() {
    let server = start(|http| http).await;
    let reply = server
        .post(r#"{"params":{"_meta":{"progressToken":"tok"},"name":"progress"},"id":5,"jsonrpc":"2.0","method":"tools/call"}"#)
        .await;
    assert_eq!(reply.header("content-type"), Some("text/event-stream"));
    assert_eq!(
        reply.body,
        "event: message\n\
         data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progressToken\":\"tok\",\"progress\":1.0,\"total\":2.0,\"message\":\"half\"}}\n\n\
         event: message\n\
         data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progressToken\":\"tok\",\"progress\":2.0,\"total\":2.0}}\n\n\
         event: message\n\
         data: {\"jsonrpc\":\"2.0\",\"id\":5,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"done\"}],\"isError\":false}}\n\n"
    );
    // Without a name it is the router's -32602, as JSON.
    server
        .post(r#"{"params":{},"id":6,"jsonrpc":"2.0","method":"tools/call"}"#)
        .await
        .assert_json(
            200,
            json!({"jsonrpc": "2.0", "id": 6, "error": {"code": -32602, "message": "Invalid params", "data": "tools/call needs `params.name`, the tool's name as a string"}}),
        );
}

#[tokio::test]
async fn a_body_still_arriving_at_the_request_timeout_is_408() {
    let server = start(|http| http.request_timeout(Duration::from_millis(200))).await;
    let mut stream = TcpStream::connect(server.addr).await.unwrap();
    // Ten bytes of a hundred, and then nothing.
    stream
        .write_all(
            b"POST /mcp HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n{\"jsonrpc\"",
        )
        .await
        .unwrap();
    read_reply(&mut stream).await.assert_json(
        408,
        refusal(
            -32000,
            "Request Timeout",
            "the body did not arrive within the server's request timeout",
        ),
    );
}

// ---------------------------------------------------------------------------------------------
// The caller's identity, from the auth hook to the tools.

/// Who is calling, as the auth hook of these tests found out from the token.
#[derive(Debug)]
struct Caller {
    tenant: String,
}

#[claude_tools::tool_server(name = "tenants")]
struct Tenants;

/// Says which tenant is calling.
#[claude_tools::tool(server = Tenants)]
async fn whoami_macro(caller: claude_tools::tools::Extension<Caller>) -> String {
    format!("macro:{}", caller.tenant)
}

/// A server of two tools echoing the caller's tenant (one raw, reading its context; one
/// `#[tool]`, taking an `Extension<Caller>`), behind a hook mapping two tokens to two tenants
/// and a third to a plain `Allow`.
async fn start_tenants() -> (SocketAddr, oneshot::Sender<()>) {
    start_tenants_with(|http| http).await
}

async fn start_tenants_with(
    configure: impl FnOnce(HttpServer) -> HttpServer,
) -> (SocketAddr, oneshot::Sender<()>) {
    let server = Tenants::server()
        .with_tool(ToolDefBuilder::new("whoami_raw"), |call| async move {
            // Streamed as SSE when the call carries a progress token.
            call.context().report_progress(1.0, None, None);
            match call.context().extension::<Caller>() {
                Some(caller) => format!("raw:{}", caller.tenant),
                None => "raw:nobody".to_string(),
            }
        })
        .unwrap();
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let (shutdown, signal) = oneshot::channel::<()>();
    let serve = configure(HttpServer::new(server))
        .authorize(|headers| {
            let token = claude_tools::mcp::http::bearer_token_of(headers).map(str::to_owned);
            async move {
                // A database lookup would await here.
                tokio::task::yield_now().await;
                match token.as_deref() {
                    Some("token-acme") => AuthDecision::allow_with(Caller {
                        tenant: "acme".into(),
                    }),
                    Some("token-globex") => AuthDecision::allow_with(Caller {
                        tenant: "globex".into(),
                    }),
                    Some("token-anonymous") => AuthDecision::Allow,
                    _ => AuthDecision::Deny,
                }
            }
        })
        .serve(listener)
        .with_graceful_shutdown(async {
            let _ = signal.await;
        });
    tokio::spawn(serve.into_future());
    (addr, shutdown)
}

async fn call_as(addr: SocketAddr, token: &str, tool: &str, progress: bool) -> Reply {
    let authorization = format!("Bearer {token}");
    let mut headers = MCP_HEADERS.to_vec();
    headers.push(("authorization", &authorization));
    let body = if progress {
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
               "params": {"name": tool, "_meta": {"progressToken": "p"}}})
        .to_string()
    } else {
        call(json!(1), tool, json!({}))
    };
    exchange(addr, &request("POST", "/mcp", &headers, &body)).await
}

#[tokio::test]
async fn the_identity_an_auth_hook_attaches_reaches_raw_and_macro_tools_per_client() {
    let (addr, _shutdown) = start_tenants().await;
    for (token, tenant) in [("token-acme", "acme"), ("token-globex", "globex")] {
        call_as(addr, token, "whoami_raw", false)
            .await
            .assert_json(200, text_result(json!(1), &format!("raw:{tenant}"), false));
        call_as(addr, token, "whoami_macro", false)
            .await
            .assert_json(
                200,
                text_result(json!(1), &format!("macro:{tenant}"), false),
            );
    }
    // Over the SSE path (a progress token) too.
    let streamed = call_as(addr, "token-globex", "whoami_raw", true).await;
    assert_eq!(streamed.status, 200);
    assert_eq!(
        streamed.body,
        format!(
            "event: message\ndata: {}\n\nevent: message\ndata: {}\n\n",
            json!({"jsonrpc": "2.0", "method": "notifications/progress",
                   "params": {"progressToken": "p", "progress": 1.0}}),
            text_result(json!(1), "raw:globex", false)
        )
    );
}

#[tokio::test]
async fn two_clients_calling_at_once_each_see_their_own_identity() {
    let (addr, _shutdown) = start_tenants().await;
    let mut calls = Vec::new();
    for round in 0..20 {
        let token = if round % 2 == 0 {
            "token-acme"
        } else {
            "token-globex"
        };
        calls.push(tokio::spawn(async move {
            (token, call_as(addr, token, "whoami_macro", false).await)
        }));
    }
    for call in calls {
        let (token, reply) = call.await.unwrap();
        let tenant = token.strip_prefix("token-").unwrap();
        reply.assert_json(
            200,
            text_result(json!(1), &format!("macro:{tenant}"), false),
        );
    }
}

#[tokio::test]
async fn without_an_identity_a_context_has_none_and_an_extension_parameter_is_a_tool_error() {
    let (addr, _shutdown) = start_tenants().await;
    call_as(addr, "token-anonymous", "whoami_raw", false)
        .await
        .assert_json(200, text_result(json!(1), "raw:nobody", false));
    call_as(addr, "token-anonymous", "whoami_macro", false)
        .await
        .assert_json(
            200,
            text_result(
                json!(1),
                "tool `whoami_macro` needs Extension<mcp_http::Caller>, which this call does not \
                 carry (over HTTP, the auth hook attaches it with AuthDecision::allow_with)",
                true,
            ),
        );
    assert_eq!(
        call_as(addr, "token-nope", "whoami_raw", false)
            .await
            .status,
        401
    );
}

// ---------------------------------------------------------------------------------------------
// Sessions mode.

const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;
const TOOLS_LIST: &str = r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#;

/// Opens a session; its id.
async fn open_session(server: &Running) -> String {
    let reply = server.post(INITIALIZE).await;
    assert_eq!(reply.status, 200, "{reply:?}");
    reply
        .header("mcp-session-id")
        .expect("a session id")
        .to_string()
}

/// The MCP headers plus `Mcp-Session-Id: id`.
fn in_session(id: &str) -> Vec<(&str, &str)> {
    let mut headers = MCP_HEADERS.to_vec();
    headers.push(("mcp-session-id", id));
    headers
}

#[tokio::test]
async fn in_sessions_mode_initialize_issues_a_fresh_session_id_and_says_list_changed() {
    let server = start(|http| http.sessions(true)).await;
    let reply = server.post(INITIALIZE).await;
    reply.assert_json(
        200,
        json!({"jsonrpc": "2.0", "id": 0, "result": {
            "protocolVersion": "2025-06-18",
            "capabilities": {"tools": {"listChanged": true}, "logging": {}},
            "serverInfo": {"name": "http-test", "version": "0.4.0"}
        }}),
    );
    let first = reply.header("mcp-session-id").unwrap().to_string();
    assert_eq!(first.len(), 32);
    assert!(first.bytes().all(|b| b.is_ascii_hexdigit()), "{first}");
    assert_ne!(open_session(&server).await, first);
    // The session's requests are served.
    let list = server.post_with(&in_session(&first), TOOLS_LIST).await;
    assert_eq!(list.status, 200);
    assert_eq!(list.json()["result"]["tools"][0]["name"], "echo");
    assert_eq!(list.header("mcp-session-id"), None);
}

#[tokio::test]
async fn in_sessions_mode_a_request_without_a_session_is_400_and_with_an_unknown_one_404() {
    let server = start(|http| http.sessions(true)).await;
    server.post(TOOLS_LIST).await.assert_json(
        400,
        refusal(
            -32000,
            "Bad Request",
            "this server uses sessions: send the `Mcp-Session-Id` header that `initialize` answered",
        ),
    );
    let not_found = refusal(
        -32000,
        "Not Found",
        "no such session: it never existed, was ended, or expired; send `initialize` to start a new one",
    );
    server
        .post_with(&in_session("0123456789abcdef0123456789abcdef"), TOOLS_LIST)
        .await
        .assert_json(404, not_found.clone());
    // Notifications too.
    server
        .post_with(
            &in_session("nope"),
            r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
        )
        .await
        .assert_json(404, not_found);
}

#[tokio::test]
async fn delete_ends_a_session_and_cancels_its_running_call() {
    let mut server = start(|http| http.sessions(true)).await;
    let id = open_session(&server).await;
    let addr = server.addr;
    let headers: Vec<(String, String)> = in_session(&id)
        .into_iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    let running = tokio::spawn(async move {
        let headers: Vec<(&str, &str)> = headers
            .iter()
            .map(|(k, v)| (k.as_str(), v.as_str()))
            .collect();
        exchange(
            addr,
            &request(
                "POST",
                "/mcp",
                &headers,
                &call(json!(1), "wait_for_cancel", json!({})),
            ),
        )
        .await
    });
    assert_eq!(server.event().await, "wait_for_cancel");
    let deleted = exchange(
        addr,
        &request("DELETE", "/mcp", &[("mcp-session-id", &id)], ""),
    )
    .await;
    assert_eq!(deleted.status, 204, "{deleted:?}");
    assert_eq!(deleted.body, "");
    assert_eq!(server.event().await, "cancelled");
    running.await.unwrap().assert_json(
        200,
        json!({"jsonrpc": "2.0", "id": 1, "error": {"code": -32800, "message": "Request cancelled"}}),
    );
    // Ended: 404 for anything of it, DELETE included; no header is 400.
    assert_eq!(
        server.post_with(&in_session(&id), TOOLS_LIST).await.status,
        404
    );
    let again = exchange(
        addr,
        &request("DELETE", "/mcp", &[("mcp-session-id", &id)], ""),
    )
    .await;
    assert_eq!(again.status, 404);
    assert_eq!(
        exchange(addr, &request("DELETE", "/mcp", &[], ""))
            .await
            .status,
        400
    );
}

#[tokio::test]
async fn notifications_cancelled_cancels_the_call_with_that_id_in_its_own_session_only() {
    let mut server = start(|http| http.sessions(true)).await;
    let (a, b) = (open_session(&server).await, open_session(&server).await);
    let addr = server.addr;
    let post_in = |id: String, body: String| {
        tokio::spawn(async move {
            exchange(addr, &request("POST", "/mcp", &in_session(&id), &body)).await
        })
    };
    let cancel_1 =
        r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}"#;

    // Session B cancelling its id 1 does not touch A's call 1.
    let slow = post_in(a.clone(), call(json!(1), "slow", json!({"ms": 300})));
    assert_eq!(server.event().await, "slow");
    assert_eq!(
        server.post_with(&in_session(&b), cancel_1).await.status,
        202
    );
    slow.await
        .unwrap()
        .assert_json(200, text_result(json!(1), "slept 300 ms", false));

    // Session A cancelling its id 1 does.
    let waiting = post_in(a.clone(), call(json!(1), "wait_for_cancel", json!({})));
    assert_eq!(server.event().await, "wait_for_cancel");
    let cancel = server.post_with(&in_session(&a), cancel_1).await;
    assert_eq!(cancel.status, 202);
    assert_eq!(cancel.body, "");
    assert_eq!(server.event().await, "cancelled");
    waiting.await.unwrap().assert_json(
        200,
        json!({"jsonrpc": "2.0", "id": 1, "error": {"code": -32800, "message": "Request cancelled"}}),
    );
}

/// Reads a response's head off `stream`; the status, the headers and the bytes after the head.
async fn read_head(stream: &mut TcpStream) -> (u16, Vec<(String, String)>, Vec<u8>) {
    let mut bytes = Vec::new();
    let end = loop {
        if let Some(end) = find(&bytes, b"\r\n\r\n") {
            break end;
        }
        fill(stream, &mut bytes).await;
    };
    let head = String::from_utf8(bytes[..end].to_vec()).unwrap();
    let mut lines = head.split("\r\n");
    let status = lines
        .next()
        .unwrap()
        .split(' ')
        .nth(1)
        .unwrap()
        .parse()
        .unwrap();
    let headers = lines
        .map(|line| {
            let (name, value) = line.split_once(':').unwrap();
            (name.trim().to_ascii_lowercase(), value.trim().to_string())
        })
        .collect();
    (status, headers, bytes[end + 4..].to_vec())
}

/// The next chunk of a chunked body (one SSE event per chunk here); `None` at its end.
async fn next_chunk(stream: &mut TcpStream, buffered: &mut Vec<u8>) -> Option<String> {
    tokio::time::timeout(WAIT, async {
        while find(buffered, b"\r\n").is_none() {
            fill(stream, buffered).await;
        }
        let line_end = find(buffered, b"\r\n").unwrap();
        let size = usize::from_str_radix(
            std::str::from_utf8(&buffered[..line_end]).unwrap().trim(),
            16,
        )
        .unwrap();
        buffered.drain(..line_end + 2);
        while buffered.len() < size + 2 {
            fill(stream, buffered).await;
        }
        let chunk = String::from_utf8(buffered[..size].to_vec()).unwrap();
        buffered.drain(..size + 2);
        (size > 0).then_some(chunk)
    })
    .await
    .expect("a chunk in time")
}

#[tokio::test]
async fn get_opens_the_sessions_stream_which_carries_list_changed_but_not_progress() {
    let mut handle = None;
    let server = start(|http| {
        handle = Some(http.tool_server_handle());
        http.sessions(true)
    })
    .await;
    let handle = handle.unwrap();
    let id = open_session(&server).await;
    let mut stream = TcpStream::connect(server.addr).await.unwrap();
    stream
        .write_all(&request(
            "GET",
            "/mcp",
            &[("accept", "text/event-stream"), ("mcp-session-id", &id)],
            "",
        ))
        .await
        .unwrap();
    let (status, headers, mut buffered) = tokio::time::timeout(WAIT, read_head(&mut stream))
        .await
        .expect("the stream's head in time");
    assert_eq!(status, 200);
    assert!(headers.contains(&("content-type".into(), "text/event-stream".into())));

    // A second stream of the same session is refused while the first is open.
    let second = exchange(
        server.addr,
        &request(
            "GET",
            "/mcp",
            &[("accept", "text/event-stream"), ("mcp-session-id", &id)],
            "",
        ),
    )
    .await;
    second.assert_json(
        409,
        refusal(-32000, "Conflict", "this session's stream is already open"),
    );

    // Progress stays on the call's own stream...
    let progress = server
        .post_with(
            &in_session(&id),
            &json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                    "params": {"name": "progress", "_meta": {"progressToken": "p"}}})
            .to_string(),
        )
        .await;
    assert_eq!(progress.header("content-type"), Some("text/event-stream"));
    assert_eq!(progress.body.matches("notifications/progress").count(), 2);
    // ...and a change of the tool set goes to the session's stream: its first event.
    handle
        .add_typed_tool("late", || async { "here now" })
        .unwrap();
    assert_eq!(
        next_chunk(&mut stream, &mut buffered).await.as_deref(),
        Some(
            "event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/tools/list_changed\"}\n\n"
        )
    );

    // DELETE ends the stream.
    let deleted = exchange(
        server.addr,
        &request("DELETE", "/mcp", &[("mcp-session-id", &id)], ""),
    )
    .await;
    assert_eq!(deleted.status, 204);
    assert_eq!(next_chunk(&mut stream, &mut buffered).await, None);
}

#[tokio::test]
async fn get_needs_an_event_stream_accept_and_a_live_session() {
    let server = start(|http| http.sessions(true)).await;
    let id = open_session(&server).await;
    let get = |headers: Vec<(&'static str, String)>| {
        let addr = server.addr;
        async move {
            let headers: Vec<(&str, &str)> =
                headers.iter().map(|(k, v)| (*k, v.as_str())).collect();
            exchange(addr, &request("GET", "/mcp", &headers, "")).await
        }
    };
    assert_eq!(
        get(vec![
            ("accept", "application/json".into()),
            ("mcp-session-id", id.clone())
        ])
        .await
        .status,
        406
    );
    assert_eq!(
        get(vec![("accept", "text/event-stream".into())])
            .await
            .status,
        400
    );
    assert_eq!(
        get(vec![
            ("accept", "text/event-stream".into()),
            ("mcp-session-id", "gone".into())
        ])
        .await
        .status,
        404
    );
}

#[tokio::test]
async fn a_session_idle_past_its_limit_is_dropped() {
    let server = start(|http| http.session_idle_timeout(Duration::from_millis(200))).await;
    let id = open_session(&server).await;
    // Used within the limit: kept.
    tokio::time::sleep(Duration::from_millis(50)).await;
    assert_eq!(
        server.post_with(&in_session(&id), TOOLS_LIST).await.status,
        200
    );
    tokio::time::sleep(Duration::from_millis(400)).await;
    assert_eq!(
        server.post_with(&in_session(&id), TOOLS_LIST).await.status,
        404
    );
}

#[tokio::test]
async fn initialize_beyond_the_session_cap_of_busy_sessions_is_503_until_one_ends() {
    let server = start(|http| http.max_sessions(1)).await;
    let id = open_session(&server).await;
    // Busy while its stream is open (an idle session would make room for the new one).
    let mut stream = TcpStream::connect(server.addr).await.unwrap();
    stream
        .write_all(&request(
            "GET",
            "/mcp",
            &[("accept", "text/event-stream"), ("mcp-session-id", &id)],
            "",
        ))
        .await
        .unwrap();
    let (status, _, _) = tokio::time::timeout(WAIT, read_head(&mut stream))
        .await
        .expect("the stream's head in time");
    assert_eq!(status, 200);
    server.post(INITIALIZE).await.assert_json(
        503,
        refusal(
            -32000,
            "Service Unavailable",
            "this server holds its maximum of 1 sessions, all in use; try again later",
        ),
    );
    let deleted = exchange(
        server.addr,
        &request("DELETE", "/mcp", &[("mcp-session-id", &id)], ""),
    )
    .await;
    assert_eq!(deleted.status, 204);
    open_session(&server).await;
}

#[tokio::test]
async fn the_identity_reaches_the_tools_in_sessions_mode_too() {
    // The same hook and tools as the stateless identity tests, through a session.
    let (addr, _shutdown) = start_tenants_with(|http| http.sessions(true)).await;
    let auth = [("authorization", "Bearer token-acme")];
    let mut headers = MCP_HEADERS.to_vec();
    headers.extend(auth);
    let init = exchange(addr, &request("POST", "/mcp", &headers, INITIALIZE)).await;
    let id = init.header("mcp-session-id").unwrap().to_string();
    headers.push(("mcp-session-id", &id));
    exchange(
        addr,
        &request(
            "POST",
            "/mcp",
            &headers,
            &call(json!(1), "whoami_macro", json!({})),
        ),
    )
    .await
    .assert_json(200, text_result(json!(1), "macro:acme", false));
}

#[tokio::test]
async fn at_shutdown_an_open_session_stream_ends_rather_than_holding_the_grace() {
    // A grace far longer than the bound below: the server must not wait it out.
    let mut server = start_with_grace(|http| http.sessions(true), Duration::from_secs(60)).await;
    let id = open_session(&server).await;
    let mut stream = TcpStream::connect(server.addr).await.unwrap();
    stream
        .write_all(&request(
            "GET",
            "/mcp",
            &[("accept", "text/event-stream"), ("mcp-session-id", &id)],
            "",
        ))
        .await
        .unwrap();
    let (status, _, mut buffered) = tokio::time::timeout(WAIT, read_head(&mut stream))
        .await
        .expect("the stream's head in time");
    assert_eq!(status, 200);
    server.shut_down();
    assert_eq!(next_chunk(&mut stream, &mut buffered).await, None);
    server.stopped(WAIT).await.unwrap();
}

#[tokio::test]
async fn a_session_whose_streamed_call_runs_past_the_idle_limit_is_kept() {
    let mut server = start(|http| http.session_idle_timeout(Duration::from_millis(100))).await;
    let id = open_session(&server).await;
    // A call with progress: answered as an SSE stream that outlives its request handler.
    let mut stream = TcpStream::connect(server.addr).await.unwrap();
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                      "params": {"name": "wait_for_cancel", "_meta": {"progressToken": "p"}}})
    .to_string();
    stream
        .write_all(&request("POST", "/mcp", &in_session(&id), &body))
        .await
        .unwrap();
    let (status, _, mut buffered) = tokio::time::timeout(WAIT, read_head(&mut stream))
        .await
        .expect("the stream's head in time");
    assert_eq!(status, 200);
    assert_eq!(server.event().await, "wait_for_cancel");
    tokio::time::sleep(Duration::from_millis(300)).await;
    // Still there, and its call still runs: DELETE cancels it.
    let deleted = exchange(
        server.addr,
        &request("DELETE", "/mcp", &[("mcp-session-id", &id)], ""),
    )
    .await;
    assert_eq!(deleted.status, 204);
    assert_eq!(server.event().await, "cancelled");
    let progress = next_chunk(&mut stream, &mut buffered).await.unwrap();
    assert!(progress.contains("notifications/progress"), "{progress}");
    assert_eq!(
        next_chunk(&mut stream, &mut buffered).await.as_deref(),
        Some(
            "event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"error\":{\"code\":-32800,\"message\":\"Request cancelled\"}}\n\n"
        )
    );
}

#[tokio::test]
async fn get_and_delete_of_a_session_pass_the_origin_and_auth_checks_too() {
    let server = start(|http| http.sessions(true).bearer_token("s3cret")).await;
    let mut headers = MCP_HEADERS.to_vec();
    headers.push(("authorization", "Bearer s3cret"));
    let init = server.post_with(&headers, INITIALIZE).await;
    let id = init.header("mcp-session-id").unwrap().to_string();
    for method in ["GET", "DELETE"] {
        let base = [
            ("accept", "text/event-stream"),
            ("mcp-session-id", id.as_str()),
        ];
        let unauthorized = exchange(server.addr, &request(method, "/mcp", &base, "")).await;
        assert_eq!(unauthorized.status, 401, "{method}");
        assert_eq!(unauthorized.header("www-authenticate"), Some("Bearer"));
        let mut foreign = base.to_vec();
        foreign.extend([
            ("authorization", "Bearer s3cret"),
            ("origin", "http://evil.example"),
        ]);
        let forbidden = exchange(server.addr, &request(method, "/mcp", &foreign, "")).await;
        assert_eq!(forbidden.status, 403, "{method}");
    }
    // The session is still there.
    headers.push(("mcp-session-id", &id));
    assert_eq!(server.post_with(&headers, TOOLS_LIST).await.status, 200);
}

#[tokio::test]
async fn ids_are_written_back_as_they_came() {
    let server = start(|http| http).await;
    // A float holds none of these exactly: read as one, they came back as
    // `1.2345678901234568e29`, `1.8446744073709552e19`, `1.5`.
    for id in [
        "123456789012345678901234567890",
        "-123456789012345678901234567890",
        "18446744073709551616",
        "1.50",
        // Out of a float's range: kept as written too, as on every transport.
        "1e400",
    ] {
        let reply = server
            .post(&format!(
                r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"echo","arguments":{{"text":"hi"}}}}}}"#
            ))
            .await;
        assert_eq!(reply.status, 200);
        assert_eq!(
            reply.body,
            format!(
                r#"{{"jsonrpc":"2.0","id":{id},"result":{{"content":[{{"type":"text","text":"ECHO:hi"}}],"isError":false}}}}"#
            )
        );
        let reply = server
            .post(&format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"ping"}}"#))
            .await;
        assert_eq!(
            reply.body,
            format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{{}}}}"#)
        );
        // Streamed as SSE (a call with a progress token): the last event is the reply.
        let reply = server
            .post(&format!(
                r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"progress","arguments":{{}},"_meta":{{"progressToken":"tok"}}}}}}"#
            ))
            .await;
        assert_eq!(reply.header("content-type"), Some("text/event-stream"));
        assert!(
            reply.body.ends_with(&format!(
                "data: {{\"jsonrpc\":\"2.0\",\"id\":{id},\"result\":{{\"content\":[{{\"type\":\"text\",\"text\":\"done\"}}],\"isError\":false}}}}\n\n"
            )),
            "{}",
            reply.body
        );
    }
}
