//! `LineReader` fed arbitrary bytes in arbitrary chunks (with reads that are not ready yet, and
//! `next_line` futures dropped while pending) under an arbitrary cap: what it hands out must be
//! exactly what a plain reference splitter makes of the same bytes. Every line also goes through
//! the envelope parser, whose request ids must be the ones in the line.

#![no_main]

use std::future::Future;
use std::io;
use std::pin::{Pin, pin};
use std::task::{Context, Poll, Waker};

use arbitrary::Arbitrary;
use claude_tools_runtime::__fuzz::{Classified, classify};
use claude_tools_core::ndjson::{LineReader, ReadError};
use libfuzzer_sys::fuzz_target;
use serde_json::Value;
use tokio::io::{AsyncRead, ReadBuf};

#[derive(Arbitrary, Debug)]
struct Input {
    /// The cap (0 means 1, as the reader documents).
    cap: u16,
    /// Read sizes, used in turn (0 stands for "not ready yet": the reader returns `Pending`).
    reads: Vec<u8>,
    /// Whether to drop a pending `next_line` future instead of polling it again, in turn.
    drops: Vec<bool>,
    data: Vec<u8>,
}

/// Hands out `data` in the chunk sizes of `reads`, sometimes not ready.
struct Chunked<'a> {
    data: &'a [u8],
    reads: &'a [u8],
    call: usize,
    /// The last read was not ready: the next one is, so the reader always gets on.
    was_pending: bool,
}

impl AsyncRead for Chunked<'_> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let size = match self.reads {
            [] => usize::MAX,
            reads => usize::from(reads[self.call % reads.len()]),
        };
        self.call += 1;
        if size == 0 && !self.was_pending {
            self.was_pending = true;
            cx.waker().wake_by_ref();
            return Poll::Pending;
        }
        self.was_pending = false;
        let n = size.max(1).min(buf.remaining()).min(self.data.len());
        let (now, rest) = self.data.split_at(n);
        buf.put_slice(now);
        self.data = rest;
        Poll::Ready(Ok(()))
    }
}

/// What the reader should hand out, line by line: `Err(size)` for a line over the cap.
fn reference(data: &[u8], cap: usize) -> Vec<Result<Vec<u8>, usize>> {
    let mut out = Vec::new();
    let mut segments: Vec<&[u8]> = data.split(|&b| b == b'\n').collect();
    // The last segment is the unterminated tail (empty when the data ends with a newline).
    let tail = segments.pop().unwrap_or_default();
    for segment in segments.into_iter().chain([tail]) {
        let line = segment.strip_suffix(b"\r").unwrap_or(segment);
        if line.len() > cap {
            // An over-cap line is reported with its size (without a final `\r`).
            out.push(Err(line.len()));
        } else if !line.iter().all(u8::is_ascii_whitespace) {
            out.push(Ok(line.to_vec()));
        }
    }
    out
}

/// Polls `next_line` until it completes, dropping and restarting its future when told to.
fn next_line(
    reader: &mut LineReader<Chunked<'_>>,
    drops: &[bool],
    turn: &mut usize,
) -> Result<Option<Vec<u8>>, ReadError> {
    let mut cx = Context::from_waker(Waker::noop());
    loop {
        let mut future = pin!(reader.next_line());
        loop {
            if let Poll::Ready(result) = future.as_mut().poll(&mut cx) {
                return result.map(|line| line.map(<[u8]>::to_vec));
            }
            let drop_it = !drops.is_empty() && drops[*turn % drops.len()];
            *turn += 1;
            if drop_it {
                break;
            }
        }
    }
}

/// The envelope parser's ids must be the line's own.
fn check_envelope(line: &[u8]) {
    let Ok(classified) = classify(line) else {
        return;
    };
    let id = match &classified {
        Classified::Request { request_id, .. } | Classified::Cancel { request_id } => {
            Some(request_id)
        }
        _ => None,
    };
    if let Some(id) = id {
        let value: Value = serde_json::from_slice(line)
            .unwrap_or_else(|e| panic!("{classified:?} from a line that is not JSON: {e}"));
        assert_eq!(
            value["request_id"].as_str(),
            Some(id.as_str()),
            "{classified:?}"
        );
    }
}

fuzz_target!(|input: Input| {
    let cap = usize::from(input.cap).max(1);
    let mut reader = LineReader::with_max_line_size(
        Chunked {
            data: &input.data,
            reads: &input.reads,
            call: 0,
            was_pending: false,
        },
        usize::from(input.cap),
    );
    assert_eq!(reader.max_line_size(), cap);
    let mut got = Vec::new();
    let mut turn = 0;
    loop {
        match next_line(&mut reader, &input.drops, &mut turn) {
            Ok(Some(line)) => {
                assert!(!line.contains(&b'\n'), "a line holds a newline");
                assert!(
                    line.len() <= cap,
                    "a line of {} bytes over the cap {cap}",
                    line.len()
                );
                check_envelope(&line);
                got.push(Ok(line));
            }
            Ok(None) => break,
            Err(ReadError::LineTooLong { limit, size }) => {
                assert_eq!(limit, cap);
                got.push(Err(size));
            }
            Err(other) => panic!("unexpected error: {other}"),
        }
    }
    // At the end, it stays at the end.
    assert!(matches!(
        next_line(&mut reader, &input.drops, &mut turn),
        Ok(None)
    ));
    assert_eq!(got, reference(&input.data, cap));
});
