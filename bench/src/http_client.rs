//! A minimal HTTP/1.1 keep-alive client over a tokio [`TcpStream`], for the Streamable HTTP
//! bench's load generator (feature `http`).
//!
//! It does only what the bench needs and nothing that costs time per request: one `POST` at a
//! time per connection (no pipelining), the request written with one `write_all` from a reused
//! buffer, the response head parsed by `httparse`, the body read by `Content-Length`, chunked
//! transfer coding or to the end of the connection, into a reused buffer. A Streamable HTTP
//! reply sent as `text/event-stream` is reduced to the `data` of its JSON-RPC event
//! ([`sse_json_data`]).

use std::io;
use std::net::SocketAddr;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// Largest response head or body the client accepts (a bench reply is a few hundred bytes).
const MAX_RESPONSE: usize = 1 << 20;
/// Most response headers parsed.
const MAX_HEADERS: usize = 32;

/// What went wrong with one exchange.
#[derive(Debug)]
pub enum HttpError {
    /// The socket failed.
    Io(io::Error),
    /// The server closed the connection before a whole response.
    Closed,
    /// The response is not valid HTTP/1.1 (or is larger than the client accepts).
    Malformed(String),
}

impl std::fmt::Display for HttpError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            HttpError::Io(e) => write!(f, "I/O: {e}"),
            HttpError::Closed => write!(f, "connection closed before a whole response"),
            HttpError::Malformed(what) => write!(f, "malformed response: {what}"),
        }
    }
}

impl std::error::Error for HttpError {}

impl From<io::Error> for HttpError {
    fn from(e: io::Error) -> Self {
        HttpError::Io(e)
    }
}

/// One response, its body borrowed from the connection's buffer until the next request.
#[derive(Debug)]
pub struct Response<'a> {
    /// Status code.
    pub status: u16,
    /// `Content-Type` without parameters, lower-cased (empty when absent).
    pub content_type: String,
    /// `Mcp-Session-Id`, when the server issued one.
    pub session_id: Option<String>,
    /// The body, de-chunked.
    pub body: &'a [u8],
}

/// How the body of a response is delimited.
enum Framing {
    Length(usize),
    Chunked,
    UntilClose,
}

/// One keep-alive connection to one server.
pub struct Connection {
    stream: TcpStream,
    host: String,
    path: String,
    /// Extra header lines (each ending in CRLF) sent with every request.
    headers: String,
    request: Vec<u8>,
    /// Bytes read and not consumed yet.
    input: Vec<u8>,
    body: Vec<u8>,
    closed: bool,
}

impl Connection {
    /// Connects to `addr` with `TCP_NODELAY` (a request goes out in one write; Nagle would only
    /// add delay) for requests to `path`.
    pub async fn connect(addr: SocketAddr, path: &str) -> io::Result<Connection> {
        let stream = TcpStream::connect(addr).await?;
        stream.set_nodelay(true)?;
        Ok(Connection {
            stream,
            host: addr.to_string(),
            path: path.to_string(),
            headers: String::new(),
            request: Vec::with_capacity(512),
            input: Vec::with_capacity(4096),
            body: Vec::with_capacity(1024),
            closed: false,
        })
    }

    /// Sends `name: value` with every later request.
    pub fn set_header(&mut self, name: &str, value: &str) {
        self.headers.push_str(name);
        self.headers.push_str(": ");
        self.headers.push_str(value);
        self.headers.push_str("\r\n");
    }

    /// `POST`s `body` as `application/json`, accepting JSON and SSE as Streamable HTTP asks, and
    /// reads the whole response.
    pub async fn post_json(&mut self, body: &[u8]) -> Result<Response<'_>, HttpError> {
        if self.closed {
            return Err(HttpError::Closed);
        }
        self.request.clear();
        self.request.extend_from_slice(b"POST ");
        self.request.extend_from_slice(self.path.as_bytes());
        self.request.extend_from_slice(b" HTTP/1.1\r\nHost: ");
        self.request.extend_from_slice(self.host.as_bytes());
        self.request.extend_from_slice(
            b"\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n",
        );
        self.request.extend_from_slice(self.headers.as_bytes());
        self.request.extend_from_slice(b"Content-Length: ");
        self.request
            .extend_from_slice(body.len().to_string().as_bytes());
        self.request.extend_from_slice(b"\r\n\r\n");
        self.request.extend_from_slice(body);
        self.stream.write_all(&self.request).await?;
        self.read_response().await
    }

    /// Reads more input; `false` at the end of the connection.
    async fn fill(&mut self) -> Result<bool, HttpError> {
        if self.input.len() >= MAX_RESPONSE {
            return Err(HttpError::Malformed(format!(
                "more than {MAX_RESPONSE} bytes"
            )));
        }
        self.input.reserve(4096);
        let n = self.stream.read_buf(&mut self.input).await?;
        Ok(n > 0)
    }

    async fn read_response(&mut self) -> Result<Response<'_>, HttpError> {
        let (head_len, status, content_type, session_id, framing) = loop {
            if let Some(head) = parse_head(&self.input)? {
                break head;
            }
            if !self.fill().await? {
                self.closed = true;
                return Err(HttpError::Closed);
            }
        };
        let framing = match framing {
            // No body without a length: 1xx, 204 and 304 responses, and a 202 without one.
            Framing::UntilClose if matches!(status, 100..=199 | 202 | 204 | 304) => {
                Framing::Length(0)
            }
            f => f,
        };
        self.body.clear();
        let consumed = match framing {
            Framing::Length(len) => {
                while self.input.len() < head_len + len {
                    if !self.fill().await? {
                        self.closed = true;
                        return Err(HttpError::Closed);
                    }
                }
                self.body
                    .extend_from_slice(&self.input[head_len..head_len + len]);
                head_len + len
            }
            Framing::Chunked => loop {
                match dechunk(&self.input[head_len..], &mut self.body)? {
                    Some(used) => break head_len + used,
                    None => {
                        if !self.fill().await? {
                            self.closed = true;
                            return Err(HttpError::Closed);
                        }
                    }
                }
            },
            Framing::UntilClose => {
                while self.fill().await? {}
                self.closed = true;
                self.body.extend_from_slice(&self.input[head_len..]);
                self.input.len()
            }
        };
        self.input.drain(..consumed);
        Ok(Response {
            status,
            content_type,
            session_id,
            body: &self.body,
        })
    }
}

type Head = (usize, u16, String, Option<String>, Framing);

/// Parses a response head at the start of `input`; `None` while it is incomplete.
fn parse_head(input: &[u8]) -> Result<Option<Head>, HttpError> {
    let mut headers = [httparse::EMPTY_HEADER; MAX_HEADERS];
    let mut response = httparse::Response::new(&mut headers);
    let head_len = match response.parse(input) {
        Ok(httparse::Status::Complete(len)) => len,
        Ok(httparse::Status::Partial) => return Ok(None),
        Err(e) => return Err(HttpError::Malformed(format!("head: {e}"))),
    };
    let status = response
        .code
        .ok_or_else(|| HttpError::Malformed("no status".into()))?;
    let mut content_type = String::new();
    let mut session_id = None;
    let mut framing = Framing::UntilClose;
    for header in response.headers.iter() {
        let value = std::str::from_utf8(header.value)
            .map_err(|_| HttpError::Malformed(format!("{} is not UTF-8", header.name)))?;
        if header.name.eq_ignore_ascii_case("content-type") {
            content_type = value
                .split(';')
                .next()
                .unwrap_or("")
                .trim()
                .to_ascii_lowercase();
        } else if header.name.eq_ignore_ascii_case("content-length") {
            let len = value
                .trim()
                .parse::<usize>()
                .map_err(|_| HttpError::Malformed(format!("Content-Length {value:?}")))?;
            if len > MAX_RESPONSE {
                return Err(HttpError::Malformed(format!("Content-Length {len}")));
            }
            if !matches!(framing, Framing::Chunked) {
                framing = Framing::Length(len);
            }
        } else if header.name.eq_ignore_ascii_case("transfer-encoding") {
            if value.trim().eq_ignore_ascii_case("chunked") {
                framing = Framing::Chunked;
            } else {
                return Err(HttpError::Malformed(format!("Transfer-Encoding {value:?}")));
            }
        } else if header.name.eq_ignore_ascii_case("mcp-session-id") {
            session_id = Some(value.to_string());
        }
    }
    Ok(Some((head_len, status, content_type, session_id, framing)))
}

/// Decodes a whole chunked body at the start of `input` into `out`; returns the bytes it used,
/// or `None` (with `out` left as it was) while the body is incomplete.
fn dechunk(input: &[u8], out: &mut Vec<u8>) -> Result<Option<usize>, HttpError> {
    let start_len = out.len();
    let mut pos = 0;
    loop {
        let (size_len, size) = match httparse::parse_chunk_size(&input[pos..]) {
            Ok(httparse::Status::Complete(found)) => found,
            Ok(httparse::Status::Partial) => {
                out.truncate(start_len);
                return Ok(None);
            }
            Err(_) => return Err(HttpError::Malformed("chunk size".into())),
        };
        pos += size_len;
        if size == 0 {
            // Trailer fields (none expected) up to an empty line.
            loop {
                let rest = &input[pos..];
                match rest.windows(2).position(|w| w == b"\r\n") {
                    Some(0) => return Ok(Some(pos + 2)),
                    Some(end) => pos += end + 2,
                    None => {
                        out.truncate(start_len);
                        return Ok(None);
                    }
                }
            }
        }
        let size = usize::try_from(size)
            .ok()
            .filter(|s| out.len() + s <= MAX_RESPONSE)
            .ok_or_else(|| HttpError::Malformed(format!("chunk of {size} bytes")))?;
        if input.len() < pos + size + 2 {
            out.truncate(start_len);
            return Ok(None);
        }
        out.extend_from_slice(&input[pos..pos + size]);
        if &input[pos + size..pos + size + 2] != b"\r\n" {
            return Err(HttpError::Malformed("chunk not followed by CRLF".into()));
        }
        pos += size + 2;
    }
}

/// The `data` of the first event of an SSE stream whose data is a JSON-RPC reply (an object
/// with an `id` and a `result` or `error`), lines joined with `\n` as SSE asks. Events without
/// data (a server's priming event) and notifications are skipped.
pub fn sse_json_data(stream: &[u8]) -> Option<Vec<u8>> {
    let text = std::str::from_utf8(stream).ok()?;
    let normalized = text.replace("\r\n", "\n");
    for event in normalized.split("\n\n") {
        let mut data: Vec<&str> = Vec::new();
        for line in event.lines() {
            if let Some(rest) = line.strip_prefix("data:") {
                data.push(rest.strip_prefix(' ').unwrap_or(rest));
            }
        }
        if data.is_empty() {
            continue;
        }
        let joined = data.join("\n");
        let is_reply = serde_json::from_str::<serde_json::Value>(&joined)
            .ok()
            .is_some_and(|v| {
                v.get("id").is_some() && (v.get("result").is_some() || v.get("error").is_some())
            });
        if is_reply {
            return Some(joined.into_bytes());
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn heads_give_status_type_session_and_framing() {
        let input = b"HTTP/1.1 200 OK\r\nContent-Type: Application/JSON; charset=utf-8\r\nmcp-session-id: abc\r\nContent-Length: 2\r\n\r\n{}";
        let (len, status, ct, session, framing) = parse_head(input).unwrap().unwrap();
        assert_eq!((len, status), (input.len() - 2, 200));
        assert_eq!(ct, "application/json");
        assert_eq!(session.as_deref(), Some("abc"));
        assert!(matches!(framing, Framing::Length(2)));
        assert!(
            parse_head(b"HTTP/1.1 200 OK\r\nContent-Le")
                .unwrap()
                .is_none()
        );
        assert!(parse_head(b"NOT HTTP\r\n\r\n").is_err());
        let chunked = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n";
        assert!(matches!(
            parse_head(chunked).unwrap().unwrap().4,
            Framing::Chunked
        ));
    }

    #[test]
    fn chunked_bodies_decode_whole_or_not_at_all() {
        let body = b"5\r\nhello\r\n6;ext=1\r\n world\r\n0\r\n\r\nNEXT";
        let mut out = Vec::new();
        assert_eq!(dechunk(body, &mut out).unwrap(), Some(body.len() - 4));
        assert_eq!(out, b"hello world");
        for cut in 0..body.len() - 4 {
            let mut out = b"x".to_vec();
            assert_eq!(dechunk(&body[..cut], &mut out).unwrap(), None, "cut {cut}");
            assert_eq!(out, b"x");
        }
        let mut out = Vec::new();
        assert!(dechunk(b"2\r\nabXY0\r\n\r\n", &mut out).is_err());
        let trailers = b"0\r\nX-T: 1\r\n\r\n";
        assert_eq!(
            dechunk(trailers, &mut Vec::new()).unwrap(),
            Some(trailers.len())
        );
    }

    #[test]
    fn sse_streams_give_the_reply_event() {
        let stream = b"id: 0\r\nretry: 3000\r\ndata: \r\n\r\nevent: message\r\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\"}\r\n\r\nevent: message\r\ndata: {\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{}}\r\n\r\n";
        assert_eq!(
            sse_json_data(stream).as_deref(),
            Some(&br#"{"jsonrpc":"2.0","id":7,"result":{}}"#[..])
        );
        assert_eq!(sse_json_data(b"data: not json\n\n"), None);
    }

    #[tokio::test(flavor = "current_thread")]
    async fn a_connection_reads_length_chunked_and_empty_bodies_in_turn() {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let server = tokio::spawn(async move {
            let (mut socket, _) = listener.accept().await.unwrap();
            let replies: [&[u8]; 3] = [
                b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 7\r\n\r\n{\"a\":1}",
                b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n",
                b"HTTP/1.1 202 Accepted\r\n\r\n",
            ];
            let mut buf = vec![0u8; 4096];
            for reply in replies {
                let mut request = Vec::new();
                // Each request is a head with Content-Length: 2 and a 2-byte body.
                while !request.ends_with(b"\r\n\r\n{}") {
                    let n = socket.read(&mut buf).await.unwrap();
                    assert!(n > 0);
                    request.extend_from_slice(&buf[..n]);
                }
                let text = String::from_utf8(request).unwrap();
                assert!(
                    text.starts_with("POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:"),
                    "{text}"
                );
                assert!(text.contains("\r\nX-Test: yes\r\n"), "{text}");
                // The reply goes out in two writes to exercise partial reads.
                let (a, b) = reply.split_at(reply.len() / 2);
                socket.write_all(a).await.unwrap();
                socket.flush().await.unwrap();
                tokio::task::yield_now().await;
                socket.write_all(b).await.unwrap();
            }
        });
        let mut conn = Connection::connect(addr, "/mcp").await.unwrap();
        conn.set_header("X-Test", "yes");
        let r = conn.post_json(b"{}").await.unwrap();
        assert_eq!(
            (r.status, r.content_type.as_str(), r.body),
            (200, "application/json", &b"{\"a\":1}"[..])
        );
        let r = conn.post_json(b"{}").await.unwrap();
        assert_eq!(
            (r.status, r.content_type.as_str(), r.body),
            (200, "text/event-stream", &b"abc"[..])
        );
        let r = conn.post_json(b"{}").await.unwrap();
        assert_eq!((r.status, r.body), (202, &b""[..]));
        server.await.unwrap();
        // The server is gone: the write or the read fails, never a response.
        assert!(matches!(
            conn.post_json(b"{}").await,
            Err(HttpError::Closed | HttpError::Io(_))
        ));
    }
}
