//! The model server's HTTP/1.1 side, on hyper: request framing (`Content-Length` and chunked
//! bodies, `Expect: 100-continue`), keep-alive, and fixed-length or chunked (SSE) responses.
//!
//! hyper is the server claude-tools' Streamable HTTP MCP transport already runs on, so the kit
//! adds no crate to the tree. What the kit adds on top: the caps of [`super::limits`], the heads
//! recorded as sent ([`super::head`]), and errors the CLI can read (Anthropic-style JSON bodies).

use std::collections::VecDeque;
use std::convert::Infallible;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use http_body_util::{BodyExt, LengthLimitError, Limited};
use hyper::body::{Bytes, Frame, Incoming, SizeHint};
use hyper::header::{CONNECTION, CONTENT_LENGTH, HeaderName, HeaderValue};
use hyper::{Response, StatusCode};
use hyper_util::rt::TokioIo;
use serde_json::json;
use tokio::io::{AsyncRead, AsyncWrite};

use super::head::{SharedLog, Tee};
use super::limits::{MAX_HEAD, MAX_HEADERS, READ_BUF};

/// A request as the client sent it.
#[derive(Debug)]
pub(crate) struct Request {
    pub method: String,
    /// The request target as sent (origin form `/v1/messages?beta=true`, or absolute /
    /// authority form).
    pub target: String,
    /// Header names as sent, in order.
    pub headers: Vec<(String, String)>,
    pub body: Bytes,
}

/// What to answer a request with.
#[derive(Debug)]
pub(crate) struct Answer {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Payload,
    /// Close the connection after this answer.
    pub close: bool,
}

/// An answer's body.
#[derive(Debug)]
pub(crate) enum Payload {
    /// Sent with a `Content-Length` (and left out for HEAD, by hyper).
    Full(Vec<u8>),
    /// Sent chunked, one chunk per piece (each SSE event in a chunk of its own).
    Events(Vec<String>),
}

/// An Anthropic-style error body.
pub(crate) fn error_body(error_type: &str, message: &str) -> Vec<u8> {
    json!({"type": "error", "error": {"type": error_type, "message": message}})
        .to_string()
        .into_bytes()
}

/// Whether `status` and `headers` can be sent as an HTTP response; the error says what is wrong.
pub(crate) fn check_response(status: u16, headers: &[(String, String)]) -> Result<(), String> {
    match StatusCode::from_u16(status) {
        Ok(s) if !s.is_informational() => {}
        _ => return Err(format!("{status} is not a final HTTP status (200 to 999)")),
    }
    for (name, value) in headers {
        if HeaderName::from_bytes(name.as_bytes()).is_err() {
            return Err(format!("{name:?} is not a valid HTTP header name"));
        }
        if HeaderValue::from_str(value).is_err() {
            return Err(format!(
                "the value of header {name:?} is not valid in HTTP: {value:?}"
            ));
        }
    }
    Ok(())
}

/// Serves one connection until the client closes it, an answer closes it, or a request cannot be
/// read. `handler` answers each request; a body over `max_body` bytes is refused with a 413.
pub(crate) async fn serve_connection<IO, H, F>(io: IO, max_body: usize, handler: H)
where
    IO: AsyncRead + AsyncWrite + Unpin + Send + 'static,
    H: Fn(Request) -> F + Clone + Send + 'static,
    F: Future<Output = Answer> + Send + 'static,
{
    let log = SharedLog::default();
    let io = TokioIo::new(Tee::new(io, log.clone()));
    let service = hyper::service::service_fn(move |req| {
        let log = log.clone();
        let handler = handler.clone();
        async move { Ok::<_, Infallible>(respond(req, &log, max_body, handler).await) }
    });
    let served = hyper::server::conn::http1::Builder::new()
        .max_header_size(MAX_HEAD)
        .max_headers(MAX_HEADERS)
        .max_buf_size(READ_BUF)
        .serve_connection(io, service)
        .await;
    if let Err(e) = served {
        // A malformed head (hyper answered it 400 or 431) or a client gone mid-request.
        tracing::debug!("model server: connection ended: {e}");
    }
}

async fn respond<H, F>(
    req: hyper::Request<Incoming>,
    log: &SharedLog,
    max_body: usize,
    handler: H,
) -> Response<Body>
where
    H: Fn(Request) -> F,
    F: Future<Output = Answer>,
{
    let (parts, body) = req.into_parts();
    let head = log.lock().take(&parts);
    let declared = parts
        .headers
        .get(CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<u64>().ok());
    // Refused before reading, so a client waiting on `Expect: 100-continue` sends nothing.
    if declared.is_some_and(|len| len > max_body as u64) {
        return too_large(max_body);
    }
    // Polling the body is what makes hyper send `100 Continue` when the client asked for it.
    let body = match Limited::new(body, max_body).collect().await {
        Ok(collected) => collected.to_bytes(),
        Err(e) if e.is::<LengthLimitError>() => return too_large(max_body),
        Err(e) => {
            return response(Answer {
                status: 400,
                headers: Vec::new(),
                body: Payload::Full(error_body(
                    "invalid_request_error",
                    &format!("cannot read the request body: {e}"),
                )),
                close: true,
            });
        }
    };
    let answer = handler(Request {
        method: head.method,
        target: head.target,
        headers: head.headers,
        body,
    })
    .await;
    response(answer)
}

fn too_large(max_body: usize) -> Response<Body> {
    response(Answer {
        status: 413,
        headers: Vec::new(),
        body: Payload::Full(error_body(
            "request_too_large",
            &format!("request body larger than the test model server's limit of {max_body} bytes"),
        )),
        close: true,
    })
}

/// Builds the hyper response for an answer. Status and headers from a script are checked when
/// the server starts ([`check_response`]); should one still be invalid, the answer is a 500
/// saying so rather than a panic.
fn response(answer: Answer) -> Response<Body> {
    if let Err(problem) = check_response(answer.status, &answer.headers) {
        return response(Answer {
            status: 500,
            headers: Vec::new(),
            body: Payload::Full(error_body(
                "api_error",
                &format!("the test model server cannot send its answer: {problem}"),
            )),
            close: answer.close,
        });
    }
    let body = match answer.body {
        Payload::Full(bytes) => Body {
            len: Some(bytes.len() as u64),
            frames: VecDeque::from([Bytes::from(bytes)]),
        },
        Payload::Events(events) => Body {
            len: None,
            // An empty chunk would read as the end of the body.
            frames: events
                .into_iter()
                .filter(|e| !e.is_empty())
                .map(Bytes::from)
                .collect(),
        },
    };
    let mut resp = Response::new(body);
    // Checked above: neither conversion fails.
    *resp.status_mut() = StatusCode::from_u16(answer.status).unwrap_or(StatusCode::OK);
    let headers = resp.headers_mut();
    for (name, value) in &answer.headers {
        if let (Ok(name), Ok(value)) = (
            HeaderName::from_bytes(name.as_bytes()),
            HeaderValue::from_str(value),
        ) {
            headers.append(name, value);
        }
    }
    if answer.close {
        headers.insert(CONNECTION, HeaderValue::from_static("close"));
    }
    if resp.status().canonical_reason().is_none() {
        // hyper writes `<none>` for a status it has no phrase for.
        let phrase: &'static [u8] = match answer.status {
            529 => b"Overloaded",
            _ => b"Unknown",
        };
        resp.extensions_mut()
            .insert(hyper::ext::ReasonPhrase::from_static(phrase));
    }
    resp
}

/// A response body whose pieces are all known: each is written as one frame (one chunk when
/// chunked). With a length it is sent with `Content-Length`, without one chunked.
#[derive(Debug)]
pub(crate) struct Body {
    frames: VecDeque<Bytes>,
    len: Option<u64>,
}

impl hyper::body::Body for Body {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        self: Pin<&mut Self>,
        _cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        Poll::Ready(
            self.get_mut()
                .frames
                .pop_front()
                .map(|b| Ok(Frame::data(b))),
        )
    }

    fn is_end_stream(&self) -> bool {
        self.frames.is_empty()
    }

    fn size_hint(&self) -> SizeHint {
        match self.len {
            Some(len) => SizeHint::with_exact(len),
            None => SizeHint::default(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::{AsyncReadExt, AsyncWriteExt, DuplexStream};

    /// A connection served with a 100-byte body limit; the handler echoes the body's length.
    fn serve() -> DuplexStream {
        let (client, server) = tokio::io::duplex(1 << 16);
        tokio::spawn(serve_connection(server, 100, |req: Request| async move {
            Answer {
                status: 200,
                headers: Vec::new(),
                body: Payload::Full(req.body.len().to_string().into_bytes()),
                close: false,
            }
        }));
        client
    }

    /// Reads until the connection closes.
    async fn read_to_close(c: &mut DuplexStream) -> String {
        let mut out = Vec::new();
        // Only a guard against hanging the test run if the server kept the connection open.
        tokio::time::timeout(std::time::Duration::from_secs(30), c.read_to_end(&mut out))
            .await
            .expect("the server did not close the connection")
            .unwrap();
        String::from_utf8(out).unwrap()
    }

    #[tokio::test]
    async fn a_chunked_body_over_the_limit_is_refused_with_413() {
        let mut c = serve();
        // Within the limit first, on the same connection.
        c.write_all(
            b"POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n",
        )
        .await
        .unwrap();
        let mut head = [0u8; 17];
        c.read_exact(&mut head).await.unwrap();
        assert_eq!(&head, b"HTTP/1.1 200 OK\r\n");
        let chunk = format!("32\r\n{}\r\n", "x".repeat(50));
        let mut req = b"POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n".to_vec();
        for _ in 0..3 {
            req.extend_from_slice(chunk.as_bytes());
        }
        c.write_all(&req).await.unwrap();
        let resp = read_to_close(&mut c).await;
        let second = resp.split("HTTP/1.1 ").last().unwrap();
        assert!(second.starts_with("413 Payload Too Large\r\n"), "{resp}");
        assert!(second.contains("connection: close\r\n"), "{resp}");
        assert!(
            second.ends_with(r#"{"type":"error","error":{"type":"request_too_large","message":"request body larger than the test model server's limit of 100 bytes"}}"#),
            "{resp}"
        );
    }

    #[tokio::test]
    async fn a_declared_body_over_the_limit_is_refused_before_100_continue() {
        let mut c = serve();
        c.write_all(b"POST / HTTP/1.1\r\nExpect: 100-continue\r\nContent-Length: 101\r\n\r\n")
            .await
            .unwrap();
        let resp = read_to_close(&mut c).await;
        assert!(
            resp.starts_with("HTTP/1.1 413 Payload Too Large\r\n"),
            "{resp}"
        );
        assert!(!resp.contains("100 Continue"), "{resp}");
    }

    #[tokio::test]
    async fn expect_100_continue_then_the_body() {
        let mut c = serve();
        c.write_all(b"POST / HTTP/1.1\r\nExpect: 100-continue\r\nContent-Length: 100\r\nConnection: close\r\n\r\n")
            .await
            .unwrap();
        let mut interim = [0u8; 25];
        c.read_exact(&mut interim).await.unwrap();
        assert_eq!(&interim, b"HTTP/1.1 100 Continue\r\n\r\n");
        c.write_all(&[b'x'; 100]).await.unwrap();
        let resp = read_to_close(&mut c).await;
        assert!(resp.starts_with("HTTP/1.1 200 OK\r\n"), "{resp}");
        assert!(resp.ends_with("\r\n\r\n100"), "{resp}");
    }

    #[tokio::test]
    async fn a_malformed_chunked_body_gets_a_400_that_says_why() {
        let mut c = serve();
        c.write_all(b"POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n")
            .await
            .unwrap();
        let resp = read_to_close(&mut c).await;
        assert!(resp.starts_with("HTTP/1.1 400 Bad Request\r\n"), "{resp}");
        assert!(resp.contains("cannot read the request body"), "{resp}");
    }

    #[tokio::test]
    async fn a_malformed_head_and_an_oversized_head_are_refused() {
        let mut c = serve();
        c.write_all(b"NOT HTTP\r\n\r\n").await.unwrap();
        let resp = read_to_close(&mut c).await;
        assert!(resp.starts_with("HTTP/1.1 400 Bad Request\r\n"), "{resp}");
        let mut c = serve();
        let big = format!("GET / HTTP/1.1\r\nX-Big: {}\r\n\r\n", "a".repeat(MAX_HEAD));
        // The server answers (and stops reading) before all of it is written.
        let _ = c.write_all(big.as_bytes()).await;
        let resp = read_to_close(&mut c).await;
        assert!(
            resp.starts_with("HTTP/1.1 431 Request Header Fields Too Large\r\n"),
            "{resp}"
        );
    }

    #[test]
    fn script_statuses_and_headers_are_checked() {
        let h = |n: &str, v: &str| vec![(n.to_string(), v.to_string())];
        assert!(check_response(529, &h("x-should-retry", "true")).is_ok());
        assert!(check_response(99, &[]).unwrap_err().contains("99"));
        assert!(check_response(101, &[]).is_err());
        assert!(check_response(1000, &[]).is_err());
        assert!(
            check_response(500, &h("bad name", "v"))
                .unwrap_err()
                .contains("bad name")
        );
        assert!(check_response(500, &h("x", "a\r\nb")).is_err());
    }

    #[test]
    fn an_invalid_answer_becomes_a_500_that_says_why() {
        let resp = response(Answer {
            status: 200,
            headers: vec![("bad name".into(), "v".into())],
            body: Payload::Full(b"{}".to_vec()),
            close: false,
        });
        assert_eq!(resp.status(), StatusCode::INTERNAL_SERVER_ERROR);
        let body = &resp.body().frames[0];
        assert!(String::from_utf8_lossy(body).contains("\\\"bad name\\\""));
    }
}
