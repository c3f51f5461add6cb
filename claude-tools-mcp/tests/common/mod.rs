//! Raw HTTP/1.1 over TCP for the HTTP server's test files: requests written byte for byte,
//! responses read off the wire (chunked bodies decoded), from a chosen local address when the
//! test needs two peers.

#![allow(dead_code)] // Each test file uses its own share of these.

use std::net::{IpAddr, SocketAddr};
use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpSocket, TcpStream};

/// Bounds every wait of these tests: long enough for a loaded machine, short enough that a hang
/// fails rather than stalls.
pub const WAIT: Duration = Duration::from_secs(10);

/// The headers an MCP client sends with every POST.
pub const MCP_HEADERS: [(&str, &str); 2] = [
    ("content-type", "application/json"),
    ("accept", "application/json, text/event-stream"),
];

pub const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;
pub const TOOLS_LIST: &str = r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#;

/// One HTTP response as read off the wire (chunked bodies decoded).
#[derive(Debug)]
pub struct Reply {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: String,
}

impl Reply {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(key, _)| key.eq_ignore_ascii_case(name))
            .map(|(_, value)| value.as_str())
    }

    pub fn json(&self) -> Value {
        serde_json::from_str(&self.body)
            .unwrap_or_else(|error| panic!("not JSON ({error}): {:?}", self.body))
    }

    /// Asserts a JSON reply with `status` and `body`.
    pub fn assert_json(&self, status: u16, body: Value) {
        assert_eq!(self.status, status, "{self:?}");
        assert_eq!(self.header("content-type"), Some("application/json"));
        assert_eq!(self.json(), body);
    }
}

/// A request with `Host: 127.0.0.1` and `Connection: close`, plus `headers`.
pub fn request(method: &str, path: &str, headers: &[(&str, &str)], body: &str) -> Vec<u8> {
    request_to("127.0.0.1", method, path, headers, body)
}

/// A request with `Host: host` and `Connection: close`, plus `headers`.
pub fn request_to(
    host: &str,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &str,
) -> Vec<u8> {
    let mut head = format!(
        "{method} {path} HTTP/1.1\r\nhost: {host}\r\nconnection: close\r\ncontent-length: {}\r\n",
        body.len()
    );
    for (name, value) in headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    head.push_str("\r\n");
    head.push_str(body);
    head.into_bytes()
}

/// A connection to `addr` from the local address `from` (any loopback address `127.x.y.z` on
/// Linux), or from the system's choice.
pub async fn connect_from(addr: SocketAddr, from: Option<IpAddr>) -> TcpStream {
    let Some(from) = from else {
        return TcpStream::connect(addr).await.expect("connect");
    };
    let socket = TcpSocket::new_v4().expect("a socket");
    socket
        .bind(SocketAddr::new(from, 0))
        .expect("bind the client's address");
    socket.connect(addr).await.expect("connect")
}

pub async fn exchange(addr: SocketAddr, request: &[u8]) -> Reply {
    exchange_from(addr, None, request).await
}

pub async fn exchange_from(addr: SocketAddr, from: Option<IpAddr>, request: &[u8]) -> Reply {
    let mut stream = connect_from(addr, from).await;
    stream.write_all(request).await.expect("send the request");
    read_reply(&mut stream).await
}

/// Reads one response: its head, then a body of `content-length` bytes, chunked, or up to EOF.
pub async fn read_reply(stream: &mut TcpStream) -> Reply {
    tokio::time::timeout(WAIT, async {
        let (status, headers, rest) = read_head(stream).await;
        let mut reply = Reply {
            status,
            headers,
            body: String::new(),
        };
        let mut rest = rest;
        let body = if let Some(length) = reply.header("content-length") {
            let length: usize = length.parse().unwrap();
            while rest.len() < length {
                fill(stream, &mut rest).await;
            }
            rest.truncate(length);
            rest
        } else if reply.header("transfer-encoding") == Some("chunked") {
            let mut body = Vec::new();
            while let Some(chunk) = read_chunk(stream, &mut rest).await {
                body.extend_from_slice(&chunk);
            }
            body
        } else {
            stream.read_to_end(&mut rest).await.unwrap();
            rest
        };
        reply.body = String::from_utf8(body).unwrap();
        reply
    })
    .await
    .expect("a response in time")
}

/// Reads a response's head off `stream`; the status, the headers and the bytes after the head.
pub async fn read_head(stream: &mut TcpStream) -> (u16, Vec<(String, String)>, Vec<u8>) {
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

/// The next chunk of a chunked body; `None` at its end.
async fn read_chunk(stream: &mut TcpStream, buffered: &mut Vec<u8>) -> Option<Vec<u8>> {
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
    let chunk = buffered[..size].to_vec();
    buffered.drain(..size + 2);
    (size > 0).then_some(chunk)
}

/// The next chunk of a chunked body as text (one SSE event per chunk here), within [`WAIT`];
/// `None` at its end.
pub async fn next_chunk(stream: &mut TcpStream, buffered: &mut Vec<u8>) -> Option<String> {
    tokio::time::timeout(WAIT, read_chunk(stream, buffered))
        .await
        .expect("a chunk in time")
        .map(|chunk| String::from_utf8(chunk).unwrap())
}

pub async fn fill(stream: &mut TcpStream, buffered: &mut Vec<u8>) {
    let mut chunk = [0u8; 4096];
    let read = stream.read(&mut chunk).await.expect("read the response");
    assert!(read > 0, "the connection closed early: {buffered:?}");
    buffered.extend_from_slice(&chunk[..read]);
}

pub fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack
        .windows(needle.len())
        .position(|window| window == needle)
}

pub fn call(id: Value, tool: &str, arguments: Value) -> String {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": tool, "arguments": arguments}})
        .to_string()
}

pub fn text_result(id: Value, text: &str, is_error: bool) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "result": {
        "content": [{"type": "text", "text": text}],
        "isError": is_error
    }})
}

pub fn refusal(code: i64, message: &str, data: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": null, "error": {"code": code, "message": message, "data": data}})
}

/// The MCP headers plus `headers`.
pub fn with<'a>(headers: &[(&'a str, &'a str)]) -> Vec<(&'a str, &'a str)> {
    let mut all = MCP_HEADERS.to_vec();
    all.extend_from_slice(headers);
    all
}
