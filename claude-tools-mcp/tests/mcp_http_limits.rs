//! The limits of the Streamable HTTP server (`claude_tools::mcp::http`, issue 20) on a real
//! listener on 127.0.0.1, spoken to in raw HTTP/1.1 by clients that misbehave: that never read
//! their answer, never finish their headers, sit idle, upload slowly or too much, or come in
//! numbers. Each limit is set small here so that the tests wait little; every wait is bounded.

use std::net::SocketAddr;
use std::time::Duration;

use claude_tools::mcp::http::HttpServer;
use claude_tools::tools::{ToolDefBuilder, ToolServer};
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpSocket, TcpStream};
use tokio::sync::{mpsc, oneshot};

/// Bounds every wait of these tests: long enough for a loaded machine, short enough that a hang
/// fails rather than stalls.
const WAIT: Duration = Duration::from_secs(10);

/// The size of the `big` tool's answer: far more than the socket buffers hold once the client's
/// receive buffer is made small.
const BIG: usize = 16 * 1024 * 1024;

fn tools(events: mpsc::UnboundedSender<&'static str>) -> ToolServer {
    let ticking = events.clone();
    ToolServer::new("limits-test", "0.1.0")
        .with_tool(ToolDefBuilder::new("big"), |_| async { "x".repeat(BIG) })
        .unwrap()
        // Sleeps `ms` milliseconds, then answers.
        .with_tool(ToolDefBuilder::new("slow"), move |mut call| {
            let events = events.clone();
            async move {
                let ms = call.take_argument("ms").and_then(|ms| ms.as_u64());
                let _ = events.send("slow");
                tokio::time::sleep(Duration::from_millis(ms.unwrap_or(0))).await;
                "slept"
            }
        })
        .unwrap()
        // Reports progress `n` times, `ms` milliseconds apart, then answers.
        .with_tool(ToolDefBuilder::new("ticks"), move |mut call| {
            let _events = ticking.clone();
            async move {
                let n = call
                    .take_argument("n")
                    .and_then(|n| n.as_u64())
                    .unwrap_or(1);
                let ms = call.take_argument("ms").and_then(|ms| ms.as_u64());
                for tick in 1..=n {
                    tokio::time::sleep(Duration::from_millis(ms.unwrap_or(0))).await;
                    call.context()
                        .report_progress(tick as f64, Some(n as f64), None);
                }
                format!("ticked {n}")
            }
        })
        .unwrap()
}

struct Running {
    addr: SocketAddr,
    events: mpsc::UnboundedReceiver<&'static str>,
    _shutdown: oneshot::Sender<()>,
}

async fn start(configure: impl FnOnce(HttpServer) -> HttpServer) -> Running {
    let (events_tx, events) = mpsc::unbounded_channel();
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let (shutdown, signal) = oneshot::channel::<()>();
    let serve = configure(HttpServer::new(tools(events_tx)))
        .serve(listener)
        .with_graceful_shutdown(async {
            let _ = signal.await;
        });
    tokio::spawn(serve.into_future());
    Running {
        addr,
        events,
        _shutdown: shutdown,
    }
}

impl Running {
    async fn event(&mut self) -> &'static str {
        tokio::time::timeout(WAIT, self.events.recv())
            .await
            .expect("a tool event in time")
            .expect("the tools are alive")
    }
}

fn post(body: &str, keep_alive: bool) -> Vec<u8> {
    let connection = if keep_alive { "keep-alive" } else { "close" };
    format!(
        "POST /mcp HTTP/1.1\r\nhost: 127.0.0.1\r\nconnection: {connection}\r\ncontent-type: application/json\r\naccept: application/json, text/event-stream\r\ncontent-length: {}\r\n\r\n{body}",
        body.len()
    )
    .into_bytes()
}

const PING: &str = r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#;

fn call(tool: &str, arguments: Value) -> String {
    json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": tool, "arguments": arguments}})
        .to_string()
}

/// One response as read off the wire (`content-length` bodies only, or up to EOF).
#[derive(Debug)]
struct Reply {
    status: u16,
    head: String,
    body: Vec<u8>,
}

impl Reply {
    fn header(&self, name: &str) -> Option<&str> {
        self.head.split("\r\n").skip(1).find_map(|line| {
            let (key, value) = line.split_once(':')?;
            key.trim()
                .eq_ignore_ascii_case(name)
                .then_some(value.trim())
        })
    }

    fn json(&self) -> Value {
        serde_json::from_slice(&self.body).unwrap_or_else(|error| {
            panic!(
                "not JSON ({error}): {}",
                String::from_utf8_lossy(&self.body)
            )
        })
    }
}

/// Reads one response within [`WAIT`]; `None` when the connection ends (EOF or reset) first.
async fn read_reply(stream: &mut TcpStream) -> Option<Reply> {
    tokio::time::timeout(WAIT, async {
        let mut bytes = Vec::new();
        let head_end = loop {
            if let Some(end) = find(&bytes, b"\r\n\r\n") {
                break end;
            }
            let mut chunk = [0u8; 8192];
            match stream.read(&mut chunk).await {
                Ok(0) | Err(_) => return None,
                Ok(read) => bytes.extend_from_slice(&chunk[..read]),
            }
        };
        let head = String::from_utf8_lossy(&bytes[..head_end]).into_owned();
        let status = head.split(' ').nth(1)?.parse().ok()?;
        let mut reply = Reply {
            status,
            head,
            body: bytes[head_end + 4..].to_vec(),
        };
        let length = reply.header("content-length").and_then(|l| l.parse().ok());
        let mut chunk = vec![0u8; 65536];
        while length.is_none_or(|length| reply.body.len() < length) {
            match stream.read(&mut chunk).await {
                Ok(0) | Err(_) if length.is_none() => break,
                Ok(0) | Err(_) => return None,
                Ok(read) => reply.body.extend_from_slice(&chunk[..read]),
            }
        }
        Some(reply)
    })
    .await
    .expect("a response or the connection's end in time")
}

/// Waits (within [`WAIT`]) for the server to end the connection, reading and counting what it
/// still sends; the bytes read.
async fn read_until_closed(stream: &mut TcpStream) -> usize {
    let mut total = 0;
    let mut chunk = vec![0u8; 65536];
    tokio::time::timeout(WAIT, async {
        loop {
            match stream.read(&mut chunk).await {
                Ok(0) | Err(_) => return,
                Ok(read) => total += read,
            }
        }
    })
    .await
    .expect("the server closed the connection in time");
    total
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack
        .windows(needle.len())
        .position(|window| window == needle)
}

async fn ping(addr: SocketAddr) -> Option<Reply> {
    let mut stream = TcpStream::connect(addr).await.unwrap();
    stream.write_all(&post(PING, false)).await.ok()?;
    read_reply(&mut stream).await
}

// ---------------------------------------------------------------------------------------------
// Answers nobody reads, heads never finished, idle connections.

#[tokio::test]
async fn a_response_the_client_does_not_read_is_dropped_at_the_write_timeout() {
    let server = start(|http| http.write_timeout(Duration::from_millis(300))).await;
    // A small receive buffer: the 16 MiB answer cannot hide in the client's kernel.
    let socket = TcpSocket::new_v4().unwrap();
    socket.set_recv_buffer_size(16 * 1024).unwrap();
    let mut stream = socket.connect(server.addr).await.unwrap();
    stream
        .write_all(&post(&call("big", json!({})), true))
        .await
        .unwrap();
    // The answer has begun (making it takes a while in a debug build)…
    let mut first = [0u8; 1024];
    let head = tokio::time::timeout(WAIT, stream.read(&mut first))
        .await
        .expect("the answer begins in time")
        .unwrap();
    // …and is not read for well past the write timeout.
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let read = head + read_until_closed(&mut stream).await;
    assert!(
        read < BIG,
        "the whole answer ({read} bytes) was still sent after the write timeout"
    );
    // The server goes on serving.
    assert_eq!(ping(server.addr).await.expect("served").status, 200);
}

#[tokio::test]
async fn an_sse_stream_waiting_for_events_outlives_the_write_and_idle_timeouts() {
    let server = start(|http| {
        http.write_timeout(Duration::from_millis(200))
            .idle_timeout(Duration::from_millis(200))
    })
    .await;
    let mut stream = TcpStream::connect(server.addr).await.unwrap();
    let body = json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {
        "name": "ticks", "arguments": {"n": 3, "ms": 600}, "_meta": {"progressToken": "t"}}});
    stream
        .write_all(&post(&body.to_string(), false))
        .await
        .unwrap();
    let reply = read_reply(&mut stream).await.expect("the stream's answer");
    assert_eq!(reply.status, 200);
    let text = String::from_utf8_lossy(&reply.body);
    assert_eq!(text.matches("notifications/progress").count(), 3, "{text}");
    assert!(text.contains("ticked 3"), "{text}");
}

#[tokio::test]
async fn the_error_echo_of_a_long_method_name_is_capped() {
    let server = start(|http| http).await;
    let method = "m".repeat(1024 * 1024);
    let mut stream = TcpStream::connect(server.addr).await.unwrap();
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": method}).to_string();
    stream.write_all(&post(&body, false)).await.unwrap();
    let reply = read_reply(&mut stream).await.expect("an answer");
    assert_eq!(reply.json()["error"]["code"], -32601);
    assert!(reply.body.len() < 1024, "{} bytes", reply.body.len());
}

#[tokio::test]
async fn an_idle_connection_is_closed_at_the_idle_timeout() {
    let server = start(|http| http.idle_timeout(Duration::from_millis(300))).await;
    // Never a byte.
    let mut silent = TcpStream::connect(server.addr).await.unwrap();
    assert_eq!(read_until_closed(&mut silent).await, 0);
    // Idle after a first request on a kept-alive connection.
    let mut kept = TcpStream::connect(server.addr).await.unwrap();
    kept.write_all(&post(PING, true)).await.unwrap();
    assert_eq!(read_reply(&mut kept).await.expect("served").status, 200);
    assert_eq!(read_until_closed(&mut kept).await, 0);
}

#[tokio::test]
async fn a_request_in_progress_is_not_idle() {
    let mut server = start(|http| http.idle_timeout(Duration::from_millis(200))).await;
    let mut stream = TcpStream::connect(server.addr).await.unwrap();
    stream
        .write_all(&post(&call("slow", json!({"ms": 1000})), true))
        .await
        .unwrap();
    assert_eq!(server.event().await, "slow");
    let reply = read_reply(&mut stream).await.expect("answered");
    assert_eq!(reply.status, 200);
    assert_eq!(reply.json()["result"]["content"][0]["text"], "slept");
}

#[tokio::test]
async fn headers_not_finished_within_the_header_read_timeout_close_the_connection() {
    let server = start(|http| {
        http.header_read_timeout(Duration::from_millis(500))
            .idle_timeout(Duration::from_secs(60))
    })
    .await;
    let mut stream = TcpStream::connect(server.addr).await.unwrap();
    stream
        .write_all(b"POST /mcp HTTP/1.1\r\nhost: 127.0.0.1\r\n")
        .await
        .unwrap();
    // One more header byte every 100 ms, never the end of the head.
    let trickle = async {
        loop {
            tokio::time::sleep(Duration::from_millis(100)).await;
            if stream.write_all(b"x").await.is_err() {
                return;
            }
        }
    };
    tokio::time::timeout(WAIT, trickle)
        .await
        .expect("the server closed the connection in time");
}

/// The connection's one timer is armed ahead while the connection is idle: a head that begins
/// later is still timed from its own first byte, not from the idle deadline.
#[tokio::test]
async fn a_head_begun_after_an_idle_spell_is_timed_from_its_first_byte() {
    let server = start(|http| {
        http.header_read_timeout(Duration::from_millis(500))
            .idle_timeout(Duration::from_secs(60))
    })
    .await;
    let mut stream = TcpStream::connect(server.addr).await.unwrap();
    tokio::time::sleep(Duration::from_millis(700)).await;
    let began = std::time::Instant::now();
    stream
        .write_all(b"POST /mcp HTTP/1.1\r\nhost: 127.0.0.1\r\n")
        .await
        .unwrap();
    let trickle = async {
        loop {
            tokio::time::sleep(Duration::from_millis(50)).await;
            if stream.write_all(b"x").await.is_err() {
                return;
            }
        }
    };
    tokio::time::timeout(Duration::from_secs(5), trickle)
        .await
        .expect("closed at the header read timeout, long before the idle timeout");
    assert!(
        began.elapsed() >= Duration::from_millis(450),
        "closed {:?} after the head began",
        began.elapsed()
    );
}

#[tokio::test]
async fn a_head_over_the_header_size_cap_is_431() {
    let server = start(|http| http.max_header_size(16 * 1024)).await;
    let mut stream = TcpStream::connect(server.addr).await.unwrap();
    let big = "y".repeat(32 * 1024);
    let request = format!(
        "POST /mcp HTTP/1.1\r\nhost: 127.0.0.1\r\nx-big: {big}\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n{PING}",
        PING.len()
    );
    let _ = stream.write_all(request.as_bytes()).await;
    let reply = read_reply(&mut stream).await.expect("an answer");
    assert_eq!(reply.status, 431);
    // The default cap takes a head of 32 KiB.
    let server = start(|http| http).await;
    let mut stream = TcpStream::connect(server.addr).await.unwrap();
    stream.write_all(request.as_bytes()).await.unwrap();
    assert_eq!(read_reply(&mut stream).await.expect("served").status, 200);
}

// ---------------------------------------------------------------------------------------------
// Caps on connections and requests, slow uploads.

#[tokio::test]
async fn connections_beyond_the_cap_are_refused_until_one_closes() {
    let server = start(|http| http.max_connections(2)).await;
    let mut held = Vec::new();
    for _ in 0..2 {
        let mut stream = TcpStream::connect(server.addr).await.unwrap();
        stream.write_all(&post(PING, true)).await.unwrap();
        assert_eq!(read_reply(&mut stream).await.expect("served").status, 200);
        held.push(stream);
    }
    // The third is not served: a 503, or closed unread.
    let mut third = TcpStream::connect(server.addr).await.unwrap();
    let _ = third.write_all(&post(PING, false)).await;
    if let Some(reply) = read_reply(&mut third).await {
        assert_eq!(reply.status, 503, "{reply:?}");
        assert_eq!(reply.header("retry-after"), Some("1"));
        assert_eq!(reply.json()["error"]["message"], "Service Unavailable");
    }
    // One closes: a new connection is served (once the server has seen the close).
    drop(held.pop());
    let served = async {
        loop {
            if ping(server.addr)
                .await
                .is_some_and(|reply| reply.status == 200)
            {
                return;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    };
    tokio::time::timeout(WAIT, served)
        .await
        .expect("served once under the cap");
}

#[tokio::test]
async fn requests_beyond_the_cap_in_flight_are_503_with_retry_after() {
    let mut server = start(|http| http.max_requests_in_flight(1)).await;
    let mut busy = TcpStream::connect(server.addr).await.unwrap();
    busy.write_all(&post(&call("slow", json!({"ms": 1500})), false))
        .await
        .unwrap();
    assert_eq!(server.event().await, "slow");
    let refused = ping(server.addr).await.expect("an answer");
    assert_eq!(refused.status, 503, "{refused:?}");
    assert_eq!(refused.header("retry-after"), Some("1"));
    assert_eq!(
        refused.json(),
        json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32000, "message": "Service Unavailable",
            "data": "the server is answering its maximum of 1 requests at once; retry later"}})
    );
    // Once the slow call is answered, requests are served again.
    assert_eq!(read_reply(&mut busy).await.expect("answered").status, 200);
    assert_eq!(ping(server.addr).await.expect("served").status, 200);
}

#[tokio::test]
async fn a_body_still_arriving_at_the_body_read_timeout_is_408() {
    let server = start(|http| http.body_read_timeout(Duration::from_millis(300))).await;
    let mut stream = TcpStream::connect(server.addr).await.unwrap();
    stream
        .write_all(
            b"POST /mcp HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n{\"jsonrpc\"",
        )
        .await
        .unwrap();
    let reply = read_reply(&mut stream).await.expect("an answer");
    assert_eq!(reply.status, 408);
    assert_eq!(reply.header("connection"), Some("close"));
    assert_eq!(
        reply.json()["error"]["data"],
        "the body did not arrive within the server's body read timeout"
    );
}

// ---------------------------------------------------------------------------------------------
// A readable 413.

/// Uploads `body_len` bytes of a body the server refuses, and reads the answer: the upload
/// must go through (the server drains it) and the `413` be read whole.
async fn upload_too_much(addr: SocketAddr, chunked: bool, body_len: usize) {
    let mut stream = TcpStream::connect(addr).await.unwrap();
    let head = if chunked {
        "POST /mcp HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\n\r\n".to_string()
    } else {
        format!(
            "POST /mcp HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\ncontent-length: {body_len}\r\n\r\n"
        )
    };
    let (mut reader, mut writer) = stream.split();
    let upload = async {
        writer.write_all(head.as_bytes()).await?;
        let piece = vec![b' '; 64 * 1024];
        let mut sent = 0;
        while sent < body_len {
            let n = piece.len().min(body_len - sent);
            if chunked {
                writer.write_all(format!("{n:x}\r\n").as_bytes()).await?;
                writer.write_all(&piece[..n]).await?;
                writer.write_all(b"\r\n").await?;
            } else {
                writer.write_all(&piece[..n]).await?;
            }
            sent += n;
        }
        if chunked {
            writer.write_all(b"0\r\n\r\n").await?;
        }
        std::io::Result::Ok(())
    };
    let answer = async {
        let mut bytes = Vec::new();
        let _ = tokio::time::timeout(WAIT * 3, reader.read_to_end(&mut bytes)).await;
        bytes
    };
    let (uploaded, answer) = tokio::join!(upload, answer);
    uploaded.expect("the whole body was taken, no broken pipe");
    let answer = String::from_utf8_lossy(&answer);
    assert!(answer.starts_with("HTTP/1.1 413 "), "{answer}");
    assert!(answer.contains("connection: close\r\n"), "{answer}");
    assert!(answer.ends_with("-byte cap\"}}"), "{answer}");
}

#[tokio::test]
async fn an_oversize_body_is_drained_so_that_the_client_reads_its_413() {
    let server = start(|http| {
        http.max_body_size(64 * 1024)
            .max_drain_size(128 * 1024 * 1024)
            .drain_timeout(WAIT * 2)
    })
    .await;
    upload_too_much(server.addr, false, 64 * 1024 * 1024).await;
    upload_too_much(server.addr, true, 64 * 1024 * 1024).await;
}

// ---------------------------------------------------------------------------------------------
// Under a server of the user's own.

#[tokio::test]
async fn into_router_keeps_the_cap_in_flight_and_the_body_read_timeout() {
    let (events_tx, mut events) = mpsc::unbounded_channel();
    let app = HttpServer::new(tools(events_tx))
        .max_requests_in_flight(1)
        .body_read_timeout(Duration::from_millis(300))
        .into_router();
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let serving = tokio::spawn(async move { axum_serve(listener, app).await });

    // A body that never finishes: 408 at the body read timeout.
    let mut stream = TcpStream::connect(addr).await.unwrap();
    stream
        .write_all(
            b"POST /mcp HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n{",
        )
        .await
        .unwrap();
    assert_eq!(
        read_reply(&mut stream).await.expect("an answer").status,
        408
    );

    // One call in flight: the next request is 503.
    let mut busy = TcpStream::connect(addr).await.unwrap();
    busy.write_all(&post(&call("slow", json!({"ms": 1500})), false))
        .await
        .unwrap();
    let event = tokio::time::timeout(WAIT, events.recv()).await.unwrap();
    assert_eq!(event, Some("slow"));
    let refused = ping(addr).await.expect("an answer");
    assert_eq!(refused.status, 503);
    assert_eq!(refused.header("retry-after"), Some("1"));
    assert_eq!(read_reply(&mut busy).await.expect("answered").status, 200);
    serving.abort();
}

async fn axum_serve(listener: TcpListener, app: claude_tools::mcp::http::axum::Router) {
    let _ = claude_tools::mcp::http::axum::serve(listener, app).await;
}
