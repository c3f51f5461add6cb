//! The request heads exactly as sent: names in their case, in their order.
//!
//! hyper hands a request's headers over as an `http::HeaderMap`, which lowercases names and
//! groups repeated names together (hyper keeps the original case only for itself). The kit
//! records the headers as the client wrote them, so the connection's reads go through a
//! [`Tee`] that keeps what hyper has not yet been matched with a request, and [`HeadLog::take`]
//! finds in it the head hyper just parsed and reads it again with httparse, hyper's own parser.

use std::io;
use std::pin::Pin;
use std::sync::{Arc, Mutex, MutexGuard};
use std::task::{Context, Poll};

use hyper::header::{CONTENT_LENGTH, TRANSFER_ENCODING};
use hyper::http::request::Parts;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

use super::limits::{MAX_HEAD, READ_BUF};

/// The log keeps at least this much of the newest bytes. hyper reads ahead of the message it is
/// on by about one read buffer, so a head it has yet to parse is well inside; older bytes (those
/// of a long chunked body, whose end is not known here) are dropped. Were a head ever missed,
/// [`HeadLog::take`] falls back to what hyper parsed.
const KEEP: usize = 4 * READ_BUF;

/// A request's method, target and headers as sent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct RawHead {
    pub method: String,
    /// The request target as sent (origin form `/v1/messages?beta=true`, or absolute /
    /// authority form).
    pub target: String,
    /// Header names as sent, in order.
    pub headers: Vec<(String, String)>,
}

impl RawHead {
    /// The head as hyper parsed it: names lowercased, repeated names grouped. Only used if the
    /// head cannot be found in the log, which would be a bug; the record is then still right
    /// up to the case of names.
    fn from_parts(parts: &Parts) -> RawHead {
        RawHead {
            method: parts.method.to_string(),
            target: parts.uri.to_string(),
            headers: parts
                .headers
                .iter()
                .map(|(n, v)| {
                    (
                        n.as_str().to_string(),
                        String::from_utf8_lossy(v.as_bytes()).into_owned(),
                    )
                })
                .collect(),
        }
    }
}

/// The bytes a connection has read that are not yet matched with a request.
#[derive(Debug, Default)]
pub(crate) struct HeadLog {
    bytes: Vec<u8>,
    /// Bytes still to come that belong to the body of the last matched request (known from
    /// its `Content-Length`): dropped as they arrive, so a body is not kept twice.
    skip: usize,
}

/// A [`HeadLog`] shared by a connection's reader and its service.
#[derive(Clone, Debug, Default)]
pub(crate) struct SharedLog(Arc<Mutex<HeadLog>>);

impl SharedLog {
    pub(crate) fn lock(&self) -> MutexGuard<'_, HeadLog> {
        // Nothing panics while the lock is held; a poisoned log is still a valid byte buffer.
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl HeadLog {
    fn record(&mut self, data: &[u8]) {
        let skipped = self.skip.min(data.len());
        self.skip -= skipped;
        self.bytes.extend_from_slice(&data[skipped..]);
        if self.bytes.len() > 2 * KEEP {
            self.bytes.drain(..self.bytes.len() - KEEP);
        }
    }

    /// The head of the request hyper has just parsed (`parts`), as sent. The bytes up to the end
    /// of that head are dropped from the log.
    pub(crate) fn take(&mut self, parts: &Parts) -> RawHead {
        let method = parts.method.as_str().as_bytes();
        // A head starts the log (after stray CRLFs) or, after a chunked body whose length is
        // not known here, a line: try line starts that begin with the method and a space.
        let mut start = 0;
        while start < self.bytes.len() {
            let line = &self.bytes[start..];
            if line.starts_with(method)
                && line.get(method.len()) == Some(&b' ')
                && let Some((head, len)) = parse_matching(&line[..line.len().min(MAX_HEAD)], parts)
            {
                let end = start + len;
                let body = declared_body_len(parts);
                let kept = (self.bytes.len() - end).min(body);
                self.bytes.drain(..end + kept);
                self.skip = body - kept;
                return head;
            }
            start += match line.iter().position(|&b| b == b'\n') {
                Some(i) => i + 1,
                None => break,
            };
        }
        RawHead::from_parts(parts)
    }
}

/// The `Content-Length` of a request without `Transfer-Encoding`, else 0.
fn declared_body_len(parts: &Parts) -> usize {
    if parts.headers.contains_key(TRANSFER_ENCODING) {
        return 0;
    }
    parts
        .headers
        .get(CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(0)
}

/// Parses a head at the start of `bytes` and checks that it is the one hyper parsed: same
/// method, target, header count, and every header present with that value.
fn parse_matching(bytes: &[u8], parts: &Parts) -> Option<(RawHead, usize)> {
    let mut headers = vec![httparse::EMPTY_HEADER; parts.headers.len()];
    let mut req = httparse::Request::new(&mut headers);
    let httparse::Status::Complete(len) = req.parse(bytes).ok()? else {
        return None;
    };
    let target = req.path?;
    let same = req.method == Some(parts.method.as_str())
        && hyper::Uri::try_from(target).ok().as_ref() == Some(&parts.uri)
        && req.headers.len() == parts.headers.len()
        && req.headers.iter().all(|h| {
            parts
                .headers
                .get_all(h.name)
                .iter()
                .any(|v| v.as_bytes() == h.value)
        });
    if !same {
        return None;
    }
    let head = RawHead {
        method: parts.method.as_str().to_string(),
        target: target.to_string(),
        headers: req
            .headers
            .iter()
            .map(|h| {
                (
                    h.name.to_string(),
                    String::from_utf8_lossy(h.value).into_owned(),
                )
            })
            .collect(),
    };
    Some((head, len))
}

/// A connection's socket, logging what is read into a [`HeadLog`].
#[derive(Debug)]
pub(crate) struct Tee<IO> {
    io: IO,
    log: SharedLog,
}

impl<IO> Tee<IO> {
    pub(crate) fn new(io: IO, log: SharedLog) -> Tee<IO> {
        Tee { io, log }
    }
}

impl<IO: AsyncRead + Unpin> AsyncRead for Tee<IO> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        let before = buf.filled().len();
        let polled = Pin::new(&mut this.io).poll_read(cx, buf);
        if let Poll::Ready(Ok(())) = polled {
            this.log.lock().record(&buf.filled()[before..]);
        }
        polled
    }
}

impl<IO: AsyncWrite + Unpin> AsyncWrite for Tee<IO> {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.get_mut().io).poll_write(cx, buf)
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.get_mut().io).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.io.is_write_vectored()
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().io).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().io).poll_shutdown(cx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parts(method: &str, target: &str, headers: &[(&str, &str)]) -> Parts {
        let mut b = hyper::Request::builder().method(method).uri(target);
        for (n, v) in headers {
            b = b.header(*n, *v);
        }
        b.body(()).unwrap().into_parts().0
    }

    #[test]
    fn finds_heads_after_a_known_body_and_after_a_chunked_one() {
        let mut log = HeadLog::default();
        log.record(b"\r\nPOST /v1/messages?beta=true HTTP/1.1\r\nHost: x\r\nX-Stainless-Lang: js\r\nx-app: cli\r\nX-App: second\r\nContent-Length: 11\r\n\r\nhello ");
        let head = log.take(&parts(
            "POST",
            "/v1/messages?beta=true",
            &[
                ("host", "x"),
                ("x-stainless-lang", "js"),
                ("x-app", "cli"),
                ("x-app", "second"),
                ("content-length", "11"),
            ],
        ));
        assert_eq!(head.method, "POST");
        assert_eq!(head.target, "/v1/messages?beta=true");
        let names: Vec<&str> = head.headers.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(
            names,
            [
                "Host",
                "X-Stainless-Lang",
                "x-app",
                "X-App",
                "Content-Length"
            ]
        );
        // The rest of the body arrives in a later read; none of it stays in the log.
        log.record(b"world");
        assert!(log.bytes.is_empty());
        // A chunked body holding a head that is not the next one, then the next one.
        let inner = "GET /x HTTP/1.1\r\nAccept: text/html\r\n\r\n";
        log.record(
            format!(
                "GET /x HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n{:x}\r\n{inner}\r\n0\r\n\r\nGET /x HTTP/1.1\r\nAccept: */*\r\n\r\n",
                inner.len()
            )
            .as_bytes(),
        );
        let head = log.take(&parts("GET", "/x", &[("transfer-encoding", "chunked")]));
        assert_eq!(
            head.headers,
            [("Transfer-Encoding".into(), "chunked".into())]
        );
        let head = log.take(&parts("GET", "/x", &[("accept", "*/*")]));
        assert_eq!(head.headers, [("Accept".into(), "*/*".into())]);
        assert!(log.bytes.is_empty());
    }

    #[test]
    fn a_long_chunked_body_is_not_kept() {
        let mut log = HeadLog::default();
        log.record(b"POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n");
        log.take(&parts("POST", "/", &[("transfer-encoding", "chunked")]));
        let chunk = format!("1000\r\n{}\r\n", "x".repeat(0x1000));
        for _ in 0..(3 * KEEP / chunk.len()) {
            log.record(chunk.as_bytes());
            assert!(log.bytes.len() <= 2 * KEEP);
        }
        log.record(b"0\r\n\r\nGET /next HTTP/1.1\r\nX-Case: y\r\n\r\n");
        let head = log.take(&parts("GET", "/next", &[("x-case", "y")]));
        assert_eq!(head.headers, [("X-Case".into(), "y".into())]);
        assert!(log.bytes.is_empty());
    }

    #[test]
    fn falls_back_to_what_hyper_parsed() {
        let mut log = HeadLog::default();
        log.record(b"GET /other HTTP/1.1\r\n\r\n");
        let head = log.take(&parts("GET", "/x", &[("Accept", "*/*")]));
        assert_eq!(
            head,
            RawHead {
                method: "GET".into(),
                target: "/x".into(),
                headers: vec![("accept".into(), "*/*".into())],
            }
        );
    }
}
