//! A small HTTP/1.1 server side on tokio: request heads, `Content-Length` and chunked request
//! bodies, `Expect: 100-continue`, keep-alive, and fixed-length or chunked responses.
//!
//! Hand-rolled on purpose: the kit needs nothing beyond what the CLI's HTTP client sends, and
//! adding hyper would grow the shared lock file for the whole workspace.

use std::io;

use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncReadExt, AsyncWrite, AsyncWriteExt};

/// Largest request head accepted (request line plus headers).
const MAX_HEAD: usize = 64 * 1024;
/// Largest request body accepted.
const MAX_BODY: usize = 64 * 1024 * 1024;

/// A parsed request.
#[derive(Debug)]
pub(crate) struct Request {
    pub method: String,
    /// The request target as sent (origin form `/v1/messages?beta=true`, or absolute / authority form).
    pub target: String,
    pub version: String,
    /// Header names as sent, in order.
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Request {
    /// The first header with this name (case-insensitive).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// Whether the connection stays open after the response.
    pub fn keep_alive(&self) -> bool {
        let connection = self.header("connection").map(str::to_ascii_lowercase);
        match connection.as_deref() {
            Some(c) if c.split(',').any(|t| t.trim() == "close") => false,
            Some(c) if c.split(',').any(|t| t.trim() == "keep-alive") => true,
            _ => self.version != "HTTP/1.0",
        }
    }
}

fn bad(msg: impl Into<String>) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, msg.into())
}

/// Reads one line (up to `\n`), counting it against `budget`.
async fn read_line<R: AsyncBufRead + Unpin>(
    r: &mut R,
    budget: &mut usize,
) -> io::Result<Option<String>> {
    let mut buf = Vec::new();
    let n = (&mut *r)
        .take(*budget as u64 + 1)
        .read_until(b'\n', &mut buf)
        .await?;
    if n == 0 {
        return Ok(None);
    }
    if n > *budget {
        return Err(bad("request head too large"));
    }
    *budget -= n;
    if buf.last() != Some(&b'\n') {
        return Err(io::Error::new(
            io::ErrorKind::UnexpectedEof,
            "connection closed mid-line",
        ));
    }
    while matches!(buf.last(), Some(b'\n' | b'\r')) {
        buf.pop();
    }
    String::from_utf8(buf)
        .map(Some)
        .map_err(|_| bad("non-UTF-8 request head"))
}

/// Reads the next request from a connection. `Ok(None)` on a clean close between requests.
/// Writes `100 Continue` through `w` when the client asks for it.
pub(crate) async fn read_request<R, W>(r: &mut R, w: &mut W) -> io::Result<Option<Request>>
where
    R: AsyncBufRead + Unpin,
    W: AsyncWrite + Unpin,
{
    let mut budget = MAX_HEAD;
    // Skip stray empty lines before a request line (RFC 9112 §2.2).
    let line = loop {
        match read_line(r, &mut budget).await? {
            None => return Ok(None),
            Some(l) if l.is_empty() => continue,
            Some(l) => break l,
        }
    };
    let mut parts = line.split(' ').filter(|p| !p.is_empty());
    let (Some(method), Some(target), Some(version)) = (parts.next(), parts.next(), parts.next())
    else {
        return Err(bad(format!("malformed request line: {line:?}")));
    };
    if !version.starts_with("HTTP/1.") {
        return Err(bad(format!("unsupported HTTP version {version:?}")));
    }
    let mut headers = Vec::new();
    loop {
        let Some(h) = read_line(r, &mut budget).await? else {
            return Err(io::Error::new(
                io::ErrorKind::UnexpectedEof,
                "connection closed in headers",
            ));
        };
        if h.is_empty() {
            break;
        }
        let Some((name, value)) = h.split_once(':') else {
            return Err(bad(format!("malformed header line: {h:?}")));
        };
        headers.push((name.trim().to_string(), value.trim().to_string()));
    }
    let mut req = Request {
        method: method.to_string(),
        target: target.to_string(),
        version: version.to_string(),
        headers,
        body: Vec::new(),
    };
    if req
        .header("expect")
        .is_some_and(|e| e.eq_ignore_ascii_case("100-continue"))
    {
        w.write_all(b"HTTP/1.1 100 Continue\r\n\r\n").await?;
        w.flush().await?;
    }
    let chunked = req
        .header("transfer-encoding")
        .is_some_and(|te| te.to_ascii_lowercase().contains("chunked"));
    if chunked {
        req.body = read_chunked_body(r).await?;
    } else if let Some(len) = req.header("content-length") {
        let len: usize = len
            .parse()
            .map_err(|_| bad(format!("bad content-length {len:?}")))?;
        if len > MAX_BODY {
            return Err(bad("request body too large"));
        }
        let mut body = vec![0u8; len];
        r.read_exact(&mut body).await?;
        req.body = body;
    }
    Ok(Some(req))
}

async fn read_chunked_body<R: AsyncBufRead + Unpin>(r: &mut R) -> io::Result<Vec<u8>> {
    let mut body = Vec::new();
    let mut budget = MAX_HEAD;
    loop {
        let Some(size_line) = read_line(r, &mut budget).await? else {
            return Err(io::Error::new(
                io::ErrorKind::UnexpectedEof,
                "closed in chunked body",
            ));
        };
        let hex = size_line.split(';').next().unwrap_or("").trim();
        let size =
            usize::from_str_radix(hex, 16).map_err(|_| bad(format!("bad chunk size {hex:?}")))?;
        if size == 0 {
            // Trailers, up to the empty line.
            loop {
                match read_line(r, &mut budget).await? {
                    Some(l) if !l.is_empty() => continue,
                    _ => return Ok(body),
                }
            }
        }
        if body.len() + size > MAX_BODY {
            return Err(bad("request body too large"));
        }
        let start = body.len();
        body.resize(start + size, 0);
        r.read_exact(&mut body[start..]).await?;
        let mut crlf = [0u8; 2];
        r.read_exact(&mut crlf).await?;
        if &crlf != b"\r\n" {
            return Err(bad("chunk not followed by CRLF"));
        }
        budget = MAX_HEAD;
    }
}

/// The reason phrase of the statuses the server uses.
pub(crate) fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        400 => "Bad Request",
        401 => "Unauthorized",
        403 => "Forbidden",
        404 => "Not Found",
        413 => "Payload Too Large",
        429 => "Too Many Requests",
        500 => "Internal Server Error",
        502 => "Bad Gateway",
        503 => "Service Unavailable",
        504 => "Gateway Timeout",
        529 => "Overloaded",
        _ => "Status",
    }
}

fn head(status: u16, headers: &[(String, String)], keep_alive: bool) -> String {
    let mut s = format!("HTTP/1.1 {status} {}\r\n", reason(status));
    for (n, v) in headers {
        s.push_str(n);
        s.push_str(": ");
        s.push_str(v);
        s.push_str("\r\n");
    }
    s.push_str(if keep_alive {
        "connection: keep-alive\r\n"
    } else {
        "connection: close\r\n"
    });
    s
}

/// Writes a complete response with a `Content-Length` body (the body is omitted for HEAD).
pub(crate) async fn write_full<W: AsyncWrite + Unpin>(
    w: &mut W,
    status: u16,
    headers: &[(String, String)],
    body: &[u8],
    head_only: bool,
    keep_alive: bool,
) -> io::Result<()> {
    let mut out = head(status, headers, keep_alive);
    out.push_str(&format!("content-length: {}\r\n\r\n", body.len()));
    let mut bytes = out.into_bytes();
    if !head_only {
        bytes.extend_from_slice(body);
    }
    w.write_all(&bytes).await?;
    w.flush().await
}

/// Writes the head of a chunked response.
pub(crate) async fn write_chunked_head<W: AsyncWrite + Unpin>(
    w: &mut W,
    status: u16,
    headers: &[(String, String)],
    keep_alive: bool,
) -> io::Result<()> {
    let mut out = head(status, headers, keep_alive);
    out.push_str("transfer-encoding: chunked\r\n\r\n");
    w.write_all(out.as_bytes()).await?;
    w.flush().await
}

/// Writes one chunk (and flushes, so each SSE event reaches the client on its own).
pub(crate) async fn write_chunk<W: AsyncWrite + Unpin>(w: &mut W, data: &[u8]) -> io::Result<()> {
    if data.is_empty() {
        return Ok(());
    }
    let mut out = format!("{:x}\r\n", data.len()).into_bytes();
    out.extend_from_slice(data);
    out.extend_from_slice(b"\r\n");
    w.write_all(&out).await?;
    w.flush().await
}

/// Writes the last chunk of a chunked response.
pub(crate) async fn write_last_chunk<W: AsyncWrite + Unpin>(w: &mut W) -> io::Result<()> {
    w.write_all(b"0\r\n\r\n").await?;
    w.flush().await
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::BufReader;

    async fn parse(raw: &[u8]) -> io::Result<Option<Request>> {
        let mut r = BufReader::new(raw);
        let mut sink = Vec::new();
        read_request(&mut r, &mut sink).await
    }

    #[tokio::test]
    async fn parses_content_length_and_chunked_bodies() {
        let req = parse(
            b"POST /v1/messages?beta=true HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello",
        )
        .await
        .unwrap()
        .unwrap();
        assert_eq!(req.method, "POST");
        assert_eq!(req.target, "/v1/messages?beta=true");
        assert_eq!(req.header("HOST"), Some("x"));
        assert_eq!(req.body, b"hello");
        assert!(req.keep_alive());

        let req = parse(b"POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n3;x=y\r\nabc\r\n2\r\nde\r\n0\r\nTrailer: 1\r\n\r\n")
            .await
            .unwrap()
            .unwrap();
        assert_eq!(req.body, b"abcde");
        assert!(!req.keep_alive());
    }

    #[tokio::test]
    async fn clean_close_and_garbage() {
        assert!(parse(b"").await.unwrap().is_none());
        assert!(parse(b"NONSENSE\r\n\r\n").await.is_err());
        assert!(
            parse(b"GET / HTTP/1.1\r\nContent-Length: zz\r\n\r\n")
                .await
                .is_err()
        );
    }
}
