//! Newline-delimited JSON framing: the Claude Code CLI's stdout, an MCP client's stdin.
//!
//! [`LineReader`] turns any [`AsyncRead`] into a sequence of lines with one reusable buffer: a line
//! is handed out as a slice of that buffer, so no byte is copied between the pipe and the JSON
//! parser. Lines longer than a cap fail with [`ReadError::LineTooLong`] once their end is read (the
//! rest of the line is skipped, never buffered), so the caller may choose to carry on; the start
//! of the dropped line stays available through [`LineReader::dropped_prefix`].

use tokio::io::{AsyncRead, AsyncReadExt};

/// What reading a line can fail with.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ReadError {
    /// Reading the input failed.
    #[error(transparent)]
    Io(#[from] std::io::Error),
    /// A line was longer than the cap; it was skipped to its end, and reading may go on.
    #[error("a line of {size} bytes is over the {limit}-byte limit")]
    LineTooLong {
        /// The cap in bytes.
        limit: usize,
        /// The line's size in bytes (without its line ending).
        size: usize,
    },
}

type Result<T, E = ReadError> = std::result::Result<T, E>;

/// The default cap on one line: 64 MiB.
///
/// Every line the CLI writes carries something that goes to or came from the Messages API, which
/// refuses requests over 32 MB: a tool call the model wrote, a tool result (base64 images
/// included) that goes back to it, a transcript message. 64 MiB is twice that, room for JSON
/// escaping and the envelope, so with the default options a session takes whatever a real run
/// sends (a 20 MiB tool call is served, as the TypeScript SDK, which has no cap, would) while a
/// runaway line still has a bound. The reader's buffer holds at most one line plus one read and
/// is given back after a big line, so the cap bounds its memory; parsing a line needs about as
/// much again. A session raises or lowers it with `Options::max_line_size` (`usize::MAX` for no
/// cap).
pub const DEFAULT_MAX_LINE_SIZE: usize = 64 * 1024 * 1024;

/// How much the buffer grows by at least, and its size after the first read.
const MIN_READ: usize = 64 * 1024;

/// How much of a dropped line is kept for [`LineReader::dropped_prefix`]: enough for any
/// envelope (the CLI writes `type`, `request_id` and the request's `subtype` first).
pub const DROPPED_PREFIX: usize = 64 * 1024;

/// A buffer larger than this is given back once the line that needed it is consumed.
const SHRINK_ABOVE: usize = 1024 * 1024;

/// Reads newline-delimited lines from an [`AsyncRead`].
///
/// - Lines end with `\n`; a `\r` before it is removed.
/// - Blank lines (empty or only ASCII whitespace) are skipped.
/// - A line whose length (without its line ending) exceeds the cap yields
///   [`ReadError::LineTooLong`] with its size once its end is read (its bytes past the cap are
///   skipped as they arrive, never buffered); the next call resumes after that line's newline.
///   The first [`DROPPED_PREFIX`] bytes of the dropped line stay available through
///   [`dropped_prefix`](Self::dropped_prefix).
/// - At end of input, a last line without a newline is returned if it is not blank.
///
/// [`next_line`](Self::next_line) is cancel safe: if its future is dropped before it completes, no
/// input is lost and the next call carries on where it stopped.
#[derive(Debug)]
pub struct LineReader<R> {
    inner: R,
    /// Bytes read; `buf[start..filled]` is not yet handed out.
    buf: Vec<u8>,
    start: usize,
    filled: usize,
    /// Bytes of `buf[start..filled]` already searched for a newline.
    scanned: usize,
    max: usize,
    /// Dropping the rest of an oversized line until its newline.
    discarding: bool,
    /// The start of the last oversized line, at most [`DROPPED_PREFIX`] bytes.
    dropped: Vec<u8>,
    /// Bytes of the oversized line being dropped, so far.
    dropped_len: usize,
    /// Its last byte so far (a `\r` there belongs to the line ending, not the line).
    dropped_last: u8,
    eof: bool,
}

impl<R: AsyncRead + Unpin> LineReader<R> {
    /// A reader with the default cap, [`DEFAULT_MAX_LINE_SIZE`].
    pub fn new(inner: R) -> Self {
        Self::with_max_line_size(inner, DEFAULT_MAX_LINE_SIZE)
    }

    /// A reader that fails lines longer than `max_line_size` bytes (at least 1; `usize::MAX`
    /// for no cap).
    pub fn with_max_line_size(inner: R, max_line_size: usize) -> Self {
        Self {
            inner,
            buf: Vec::new(),
            start: 0,
            filled: 0,
            scanned: 0,
            max: max_line_size.max(1),
            discarding: false,
            dropped: Vec::new(),
            dropped_len: 0,
            dropped_last: 0,
            eof: false,
        }
    }

    /// The cap on one line, in bytes.
    pub fn max_line_size(&self) -> usize {
        self.max
    }

    /// The first bytes (at most [`DROPPED_PREFIX`]) of the last line refused with
    /// [`ReadError::LineTooLong`], so the caller can tell what it was (and, for a request, answer
    /// it). Empty before any line was refused.
    pub fn dropped_prefix(&self) -> &[u8] {
        &self.dropped
    }

    /// Whether bytes are already buffered, so the next [`next_line`](Self::next_line) may
    /// complete without waiting for input. A caller answering each line can hold its answers
    /// while this is true and write them in one go, instead of one write per line.
    pub fn has_buffered_input(&self) -> bool {
        // Only whitespace left (a blank line after the last request) is no line: a caller holding
        // its answers for it would wait for input that never comes while the CLI waits for them.
        !self.discarding
            && self.buf[self.start..self.filled]
                .iter()
                .any(|b| !b.is_ascii_whitespace())
    }

    /// The underlying reader (bytes already buffered are lost).
    pub fn into_inner(self) -> R {
        self.inner
    }

    /// The next non-blank line, without its line ending; `Ok(None)` at end of input.
    ///
    /// The slice borrows the reader's buffer and is valid until the next call.
    pub async fn next_line(&mut self) -> Result<Option<&[u8]>> {
        loop {
            if self.discarding {
                let pending = &self.buf[self.start..self.filled];
                let newline = memchr(pending);
                let skipped = &pending[..newline.unwrap_or(pending.len())];
                if let Some(&last) = skipped.last() {
                    self.dropped_last = last;
                }
                self.dropped_len = self.dropped_len.saturating_add(skipped.len());
                match newline {
                    Some(i) => {
                        self.start += i + 1;
                        self.scanned = 0;
                        self.discarding = false;
                        return Err(self.too_long());
                    }
                    None => {
                        // Nothing here is worth keeping.
                        self.start = 0;
                        self.filled = 0;
                        self.scanned = 0;
                        if self.eof || !self.fill().await? {
                            // The line ends with the input.
                            self.discarding = false;
                            return Err(self.too_long());
                        }
                        continue;
                    }
                }
            }

            let pending = &self.buf[self.start..self.filled];
            if let Some(i) = memchr(&pending[self.scanned..]) {
                let line_start = self.start;
                let newline = self.start + self.scanned + i;
                self.start = newline + 1;
                self.scanned = 0;
                let line = trim_cr(&self.buf[line_start..newline]);
                if line.len() > self.max {
                    let size = line.len();
                    return Err(self.refuse(line_start, size));
                }
                if is_blank(line) {
                    continue;
                }
                let end = line_start + line.len();
                return Ok(Some(&self.buf[line_start..end]));
            }
            self.scanned = pending.len();

            // No newline yet. A line that can no longer fit is dropped now, before it is buffered
            // whole (one extra byte is allowed for a `\r` that a `\n` may still follow).
            let cap_with_cr = self.max.saturating_add(1);
            if pending.len() > cap_with_cr
                || (pending.len() == cap_with_cr && pending.last() != Some(&b'\r'))
            {
                let (len, last) = (pending.len(), pending.last().copied().unwrap_or(0));
                self.keep_prefix(self.start, self.filled);
                self.dropped_len = len;
                self.dropped_last = last;
                self.discarding = true;
                self.start = 0;
                self.filled = 0;
                self.scanned = 0;
                continue;
            }

            if self.eof || !self.fill().await? {
                // End of input: hand out the unterminated tail, if any.
                let tail_start = self.start;
                let tail_end = self.filled;
                self.start = tail_end;
                self.scanned = 0;
                let line = trim_cr(&self.buf[tail_start..tail_end]);
                if line.len() > self.max {
                    let size = line.len();
                    return Err(self.refuse(tail_start, size));
                }
                if is_blank(line) {
                    return Ok(None);
                }
                let end = tail_start + line.len();
                return Ok(Some(&self.buf[tail_start..end]));
            }
        }
    }

    /// Keeps the start of the oversized line (or of what is read of it) at `buf[start..end]`
    /// for [`dropped_prefix`](Self::dropped_prefix).
    fn keep_prefix(&mut self, start: usize, end: usize) {
        let end = end.min(start.saturating_add(DROPPED_PREFIX));
        self.dropped.clear();
        self.dropped.extend_from_slice(&self.buf[start..end]);
    }

    /// The error for a whole oversized line of `size` bytes at `buf[start..]`.
    fn refuse(&mut self, start: usize, size: usize) -> ReadError {
        self.keep_prefix(start, start + size);
        ReadError::LineTooLong {
            limit: self.max,
            size,
        }
    }

    /// The error for the oversized line just skipped to its end.
    fn too_long(&self) -> ReadError {
        let size = self.dropped_len - usize::from(self.dropped_last == b'\r');
        ReadError::LineTooLong {
            limit: self.max,
            size,
        }
    }

    /// Reads more input after `filled`; `false` at end of input.
    async fn fill(&mut self) -> Result<bool> {
        // Move pending bytes to the front so the buffer never grows past a line (plus a read).
        if self.start > 0 {
            self.buf.copy_within(self.start..self.filled, 0);
            self.filled -= self.start;
            self.start = 0;
        }
        // A buffer grown for one big line is given back once that line is gone.
        if self.buf.len() > SHRINK_ABOVE && self.filled < self.buf.len() / 8 {
            self.buf.truncate(self.filled.max(MIN_READ));
            self.buf.shrink_to_fit();
        }
        if self.buf.len() - self.filled < MIN_READ / 2 {
            // Grow geometrically, but never far past what one line can need.
            let wanted = self
                .buf
                .len()
                .saturating_mul(2)
                .max(self.filled + MIN_READ)
                .min(
                    self.filled
                        .max(self.max.saturating_add(2))
                        .saturating_add(MIN_READ),
                );
            self.buf.resize(wanted, 0);
        }
        let n = self.inner.read(&mut self.buf[self.filled..]).await?;
        if n == 0 {
            self.eof = true;
            return Ok(false);
        }
        self.filled += n;
        Ok(true)
    }
}

/// The first newline in `bytes`, eight bytes at a time (every line of the session goes through
/// here, most of them a few hundred bytes long).
fn memchr(bytes: &[u8]) -> Option<usize> {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    const NEWLINES: u64 = ONES * b'\n' as u64;
    let mut start = 0;
    for chunk in bytes.chunks_exact(8) {
        let Ok(word) = <[u8; 8]>::try_from(chunk) else {
            break;
        };
        let word = u64::from_le_bytes(word) ^ NEWLINES;
        // Non-zero exactly when some byte of `word` is zero, i.e. a newline.
        if word.wrapping_sub(ONES) & !word & HIGHS != 0 {
            break;
        }
        start += 8;
    }
    bytes[start..]
        .iter()
        .position(|&b| b == b'\n')
        .map(|i| start + i)
}

fn trim_cr(line: &[u8]) -> &[u8] {
    line.strip_suffix(b"\r").unwrap_or(line)
}

fn is_blank(line: &[u8]) -> bool {
    line.iter().all(u8::is_ascii_whitespace)
}

#[cfg(test)]
mod tests {
    #[test]
    fn memchr_finds_the_first_newline_at_any_offset() {
        for len in 0..40 {
            for at in 0..=len {
                let mut bytes = vec![b'x'; len];
                if at < len {
                    bytes[at] = b'\n';
                    if at + 3 < len {
                        bytes[at + 3] = b'\n';
                    }
                }
                let expected = bytes.iter().position(|&b| b == b'\n');
                assert_eq!(
                    super::memchr(&bytes),
                    expected,
                    "len {len}, newline at {at}"
                );
            }
        }
        assert_eq!(super::memchr(b"\x8a\x0b\x09\xff\x0a"), Some(4));
    }

    use std::io;
    use std::pin::Pin;
    use std::task::{Context, Poll};

    use tokio::io::ReadBuf;

    use super::*;

    /// Hands out its input in chunks of the given sizes (the last size repeats).
    struct Chunked {
        data: Vec<u8>,
        pos: usize,
        sizes: Vec<usize>,
        call: usize,
    }

    impl Chunked {
        fn new(data: &[u8], sizes: &[usize]) -> Self {
            Self {
                data: data.to_vec(),
                pos: 0,
                sizes: sizes.to_vec(),
                call: 0,
            }
        }
    }

    impl AsyncRead for Chunked {
        fn poll_read(
            mut self: Pin<&mut Self>,
            _cx: &mut Context<'_>,
            buf: &mut ReadBuf<'_>,
        ) -> Poll<io::Result<()>> {
            let size = self.sizes[self.call.min(self.sizes.len() - 1)];
            self.call += 1;
            let n = size.min(buf.remaining()).min(self.data.len() - self.pos);
            let pos = self.pos;
            buf.put_slice(&self.data[pos..pos + n]);
            self.pos += n;
            Poll::Ready(Ok(()))
        }
    }

    /// Every outcome, with lines as strings and errors as their limit.
    async fn collect<R: AsyncRead + Unpin>(
        mut reader: LineReader<R>,
    ) -> Vec<Result<String, usize>> {
        let mut out = Vec::new();
        loop {
            match reader.next_line().await {
                Ok(Some(line)) => out.push(Ok(String::from_utf8(line.to_vec()).unwrap())),
                Ok(None) => return out,
                Err(ReadError::LineTooLong { limit, .. }) => out.push(Err(limit)),
                Err(other) => panic!("unexpected error {other}"),
            }
        }
    }

    fn ok(lines: &[&str]) -> Vec<Result<String, usize>> {
        lines.iter().map(|l| Ok(l.to_string())).collect()
    }

    #[tokio::test]
    async fn splits_lines_at_every_byte_boundary() {
        let input = b"{\"a\":1}\r\n\n  \r\n{\"b\":2}\n{\"c\":3}";
        let expected = ok(&["{\"a\":1}", "{\"b\":2}", "{\"c\":3}"]);
        // One read for everything, one byte per read, and every two-part split.
        assert_eq!(
            collect(LineReader::new(Chunked::new(input, &[usize::MAX]))).await,
            expected
        );
        assert_eq!(
            collect(LineReader::new(Chunked::new(input, &[1]))).await,
            expected
        );
        for split in 1..input.len() {
            let reader = LineReader::new(Chunked::new(input, &[split, usize::MAX]));
            assert_eq!(collect(reader).await, expected, "split at {split}");
        }
    }

    #[tokio::test]
    async fn crlf_and_blank_lines() {
        let input = b"\n\r\n \t\r\nx\r\ny\n\r\n";
        assert_eq!(collect(LineReader::new(&input[..])).await, ok(&["x", "y"]));
        // A lone `\r` inside a line is kept.
        assert_eq!(
            collect(LineReader::new(&b"a\rb\n"[..])).await,
            ok(&["a\rb"])
        );
    }

    #[tokio::test]
    async fn eof_tail_is_returned_when_not_blank() {
        assert_eq!(
            collect(LineReader::new(&b"a\nlast"[..])).await,
            ok(&["a", "last"])
        );
        assert_eq!(
            collect(LineReader::new(&b"a\nlast\r"[..])).await,
            ok(&["a", "last"])
        );
        assert_eq!(collect(LineReader::new(&b"a\n  "[..])).await, ok(&["a"]));
        assert_eq!(collect(LineReader::new(&b""[..])).await, ok(&[]));
        // After the end, it stays at the end.
        let mut reader = LineReader::new(&b"x"[..]);
        assert_eq!(reader.next_line().await.unwrap(), Some(&b"x"[..]));
        assert_eq!(reader.next_line().await.unwrap(), None);
        assert_eq!(reader.next_line().await.unwrap(), None);
    }

    #[tokio::test]
    async fn cap_exact_is_accepted_and_one_over_is_refused() {
        for sizes in [vec![usize::MAX], vec![1], vec![3]] {
            let input = b"12345\n123456\n1234\r\n12345\r\n123456\r\nok";
            let reader = LineReader::with_max_line_size(Chunked::new(input, &sizes), 5);
            assert_eq!(
                collect(reader).await,
                vec![
                    Ok("12345".into()),
                    Err(5),
                    Ok("1234".into()),
                    Ok("12345".into()),
                    Err(5),
                    Ok("ok".into()),
                ],
                "read sizes {sizes:?}"
            );
        }
    }

    #[tokio::test]
    async fn resynchronises_after_an_oversized_line() {
        let big = "x".repeat(200_000);
        let input = format!("{{\"before\":1}}\n{big}\n{{\"after\":2}}\n{big}");
        for sizes in [vec![usize::MAX], vec![7], vec![4096]] {
            let reader =
                LineReader::with_max_line_size(Chunked::new(input.as_bytes(), &sizes), 1000);
            assert_eq!(
                collect(reader).await,
                vec![
                    Ok("{\"before\":1}".into()),
                    Err(1000),
                    Ok("{\"after\":2}".into()),
                    Err(1000),
                ],
                "read sizes {sizes:?}"
            );
        }
    }

    #[tokio::test]
    async fn buffer_stays_bounded_by_the_cap() {
        let big = "y".repeat(1_000_000);
        let input = format!("{big}\nz\n");
        let mut reader =
            LineReader::with_max_line_size(Chunked::new(input.as_bytes(), &[8192]), 100);
        assert!(matches!(
            reader.next_line().await,
            Err(ReadError::LineTooLong {
                limit: 100,
                size: 1_000_000,
            })
        ));
        assert_eq!(reader.next_line().await.unwrap(), Some(&b"z"[..]));
        assert!(
            reader.buf.len() <= 100 + 2 + MIN_READ,
            "{}",
            reader.buf.len()
        );
    }

    #[tokio::test]
    async fn large_line_under_the_default_cap() {
        let big = "b".repeat(3 * 1024 * 1024);
        let input = format!("{big}\nsmall\n");
        let mut reader = LineReader::new(Chunked::new(input.as_bytes(), &[65_536]));
        assert_eq!(
            reader.next_line().await.unwrap().map(<[u8]>::len),
            Some(big.len())
        );
        assert_eq!(reader.next_line().await.unwrap(), Some(&b"small"[..]));
        assert_eq!(reader.next_line().await.unwrap(), None);
        assert_eq!(reader.max_line_size(), DEFAULT_MAX_LINE_SIZE);
        // The default takes a 20 MiB tool call.
        const { assert!(DEFAULT_MAX_LINE_SIZE > 20 * 1024 * 1024) };
    }

    /// The next outcome as the oversized line's size and kept prefix, or the line.
    async fn next<R: AsyncRead + Unpin>(
        reader: &mut LineReader<R>,
    ) -> Result<Option<String>, (usize, usize, Vec<u8>)> {
        match reader.next_line().await {
            Ok(line) => Ok(line.map(|l| String::from_utf8(l.to_vec()).unwrap())),
            Err(ReadError::LineTooLong { limit, size }) => {
                Err((limit, size, reader.dropped_prefix().to_vec()))
            }
            Err(other) => panic!("unexpected error {other}"),
        }
    }

    #[tokio::test]
    async fn an_oversized_line_reports_its_size_and_keeps_its_start() {
        let head = "{\"type\":\"control_request\",\"request_id\":\"r1\",";
        let big = format!("{head}{}", "x".repeat(300_000));
        let input = format!("{big}\r\n{}\nok\n{big}", "y".repeat(2000));
        for sizes in [vec![usize::MAX], vec![7], vec![4096]] {
            let mut reader =
                LineReader::with_max_line_size(Chunked::new(input.as_bytes(), &sizes), 1000);
            let Err((1000, size, prefix)) = next(&mut reader).await else {
                panic!("the first line is refused");
            };
            // The size leaves out the CRLF; the prefix is the line's start, at most the cap
            // and a read past it, never past DROPPED_PREFIX.
            assert_eq!(size, big.len(), "read sizes {sizes:?}");
            assert!(prefix.starts_with(head.as_bytes()) && big.as_bytes().starts_with(&prefix));
            assert!(prefix.len() <= DROPPED_PREFIX);
            // A line over the cap (its newline already buffered when read whole).
            let Err((1000, 2000, prefix)) = next(&mut reader).await else {
                panic!("the second line is refused");
            };
            assert!(
                (1000..=2000).contains(&prefix.len()) && prefix.iter().all(|&b| b == b'y'),
                "read sizes {sizes:?}"
            );
            assert_eq!(next(&mut reader).await, Ok(Some("ok".into())));
            // Cut by the end of input.
            let Err((1000, size, _)) = next(&mut reader).await else {
                panic!("the last line is refused");
            };
            assert_eq!(size, big.len(), "read sizes {sizes:?}");
            assert_eq!(next(&mut reader).await, Ok(None));
        }
    }

    #[tokio::test]
    async fn the_prefix_is_bounded_and_the_buffer_given_back() {
        let big = "z".repeat(5 * 1024 * 1024);
        let input = format!("{big}\nsmall\n{big}\nsmall\n");
        let mut reader =
            LineReader::with_max_line_size(Chunked::new(input.as_bytes(), &[65_536]), 1_000_000);
        let Err((1_000_000, size, prefix)) = next(&mut reader).await else {
            panic!("refused");
        };
        assert_eq!((size, prefix.len()), (big.len(), DROPPED_PREFIX));
        assert_eq!(next(&mut reader).await, Ok(Some("small".into())));
        // Under a cap of usize::MAX the big line is read whole, then its buffer given back.
        let mut reader =
            LineReader::with_max_line_size(Chunked::new(input.as_bytes(), &[65_536]), usize::MAX);
        assert_eq!(reader.max_line_size(), usize::MAX);
        assert_eq!(
            next(&mut reader).await.unwrap().map(|l| l.len()),
            Some(big.len())
        );
        assert_eq!(next(&mut reader).await, Ok(Some("small".into())));
        assert_eq!(
            next(&mut reader).await.unwrap().map(|l| l.len()),
            Some(big.len())
        );
        assert_eq!(next(&mut reader).await, Ok(Some("small".into())));
        // Given back at the next read.
        assert_eq!(next(&mut reader).await, Ok(None));
        assert!(reader.buf.len() <= 2 * MIN_READ, "{}", reader.buf.len());
    }

    #[tokio::test]
    async fn no_cap_reads_every_line() {
        // `usize::MAX` used to overflow `max + 2` (every line refused in release, a panic in
        // debug).
        for sizes in [vec![usize::MAX], vec![1], vec![3]] {
            let reader = LineReader::with_max_line_size(
                Chunked::new(b"12345\r\nx\n\nlast", &sizes),
                usize::MAX,
            );
            assert_eq!(collect(reader).await, ok(&["12345", "x", "last"]));
        }
    }

    #[tokio::test]
    async fn io_errors_are_reported() {
        struct Broken;
        impl AsyncRead for Broken {
            fn poll_read(
                self: Pin<&mut Self>,
                _cx: &mut Context<'_>,
                _buf: &mut ReadBuf<'_>,
            ) -> Poll<io::Result<()>> {
                Poll::Ready(Err(io::Error::new(io::ErrorKind::BrokenPipe, "gone")))
            }
        }
        let mut reader = LineReader::new(Broken);
        assert!(
            matches!(reader.next_line().await, Err(ReadError::Io(e)) if e.kind() == io::ErrorKind::BrokenPipe)
        );
    }
}
