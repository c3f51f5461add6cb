//! The one way to the CLI's stdin. Whoever has a line to send writes it straight into the pipe
//! when nothing is queued before it — usually the reader task answering a request inline, so a
//! tool call's round trip involves no task hop at all, like a hand-written responder. When the
//! pipe is full (or something is already queued), the line is queued instead and the drain task
//! writes it out in order as the pipe accepts it. Lines never interleave: every write happens
//! under one lock, and a queued line is never overtaken.
//!
//! While the reader still has requests buffered it *corks* the outbox: answers accumulate and go
//! out in one write when it uncorks (before it waits for input), so a burst of 32 concurrent
//! calls wakes the CLI once rather than 32 times.

use std::future::poll_fn;
use std::pin::Pin;
use std::sync::{Arc, Mutex, MutexGuard};
use std::task::{Context, Poll, Waker};

use tokio::io::AsyncWrite;
use tokio::sync::Notify;

/// The most the line buffer keeps allocated between lines.
const KEEP_CAPACITY: usize = 64 * 1024;

pub(crate) struct Outbox {
    state: Mutex<State>,
    /// Wakes the drain task when bytes are queued or the input is to be closed.
    queued: Notify,
    /// Wakes [`Outbox::wait_for_room`] once at most `limit` bytes are left unwritten.
    room: Notify,
    /// Unwritten bytes above which the reader stops reading ([`Outbox::set_corked`] says so).
    limit: usize,
}

struct State {
    /// `None` once stdin is closed (or broken).
    writer: Option<Pin<Box<dyn AsyncWrite + Send>>>,
    /// Bytes the pipe has not accepted yet, in order.
    pending: Pending,
    /// Close stdin once `pending` is written.
    closing: bool,
    /// Hold lines in `pending` until [`Outbox::uncork`].
    corked: bool,
    /// The pipe was full: the drain task owns `pending` until it is written.
    blocked: bool,
    /// Someone waits in [`Outbox::wait_for_room`].
    wants_room: bool,
}

/// The queued bytes: `buffer[written..]` is still to be written. A partial write only moves
/// `written` on, so writing a line costs time linear in its length however many writes the pipe
/// takes (draining the front of the buffer on every partial write made a 200 MiB answer take
/// seconds of CPU).
#[derive(Default)]
struct Pending {
    buffer: Vec<u8>,
    written: usize,
}

impl Pending {
    /// The bytes still to be written.
    fn unwritten(&self) -> &[u8] {
        &self.buffer[self.written..]
    }

    fn is_empty(&self) -> bool {
        self.written == self.buffer.len()
    }

    fn clear(&mut self) {
        self.buffer.clear();
        self.written = 0;
    }

    /// Records that the pipe accepted `n` more bytes.
    fn advance(&mut self, n: usize) {
        self.written += n;
        if self.is_empty() {
            self.clear();
            // The buffer is reused line after line; one huge line must not keep it huge.
            if self.buffer.capacity() > KEEP_CAPACITY {
                self.buffer.shrink_to(KEEP_CAPACITY);
            }
        } else if self.written >= KEEP_CAPACITY && self.written >= self.buffer.len() / 2 {
            // A buffer that never empties (the CLI always a little behind) must not grow forever.
            // Moving the rest to the front only once it is no longer than what was written keeps
            // the total cost linear; shrinking gives back what a huge line left behind.
            self.buffer.drain(..self.written);
            self.written = 0;
            let keep = (self.buffer.len() * 2).max(KEEP_CAPACITY);
            if self.buffer.capacity() > 2 * keep {
                self.buffer.shrink_to(keep);
            }
        }
    }
}

impl Outbox {
    /// An outbox whose reader stops reading while more than `limit` bytes are unwritten.
    pub(crate) fn new(writer: Pin<Box<dyn AsyncWrite + Send>>, limit: usize) -> Arc<Self> {
        let state = State {
            writer: Some(writer),
            pending: Pending::default(),
            closing: false,
            corked: false,
            blocked: false,
            wants_room: false,
        };
        Arc::new(Self {
            state: Mutex::new(state),
            queued: Notify::new(),
            room: Notify::new(),
            limit,
        })
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        // Every critical section leaves the state consistent before anything can panic.
        self.state
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Sends one line (newline included).
    pub(crate) fn send(&self, line: &[u8]) {
        self.send_with(|pending| pending.extend_from_slice(line));
    }

    /// Sends the line `write` appends (newline included) to the queue's buffer, which saves
    /// building it in a buffer of its own. `write` runs under the outbox's lock; if it panics,
    /// what it appended is cut off, so a half-written line never reaches the CLI.
    pub(crate) fn send_with(&self, write: impl FnOnce(&mut Vec<u8>)) {
        let mut state = self.lock();
        if state.writer.is_none() || state.closing {
            tracing::debug!("the CLI's stdin is closed; dropping a line");
            return;
        }
        let line = PartialLine::start(&mut state.pending.buffer);
        write(line.buffer);
        line.finish();
        if !state.corked && !state.blocked {
            self.push(&mut state);
        }
    }

    /// Holds further lines until [`Outbox::uncork`].
    pub(crate) fn cork(&self) {
        self.lock().corked = true;
    }

    /// Writes the lines held since [`Outbox::cork`].
    pub(crate) fn uncork(&self) {
        self.uncork_locked(&mut self.lock());
    }

    fn uncork_locked(&self, state: &mut State) {
        if state.corked {
            state.corked = false;
            if !state.blocked && !state.pending.is_empty() {
                self.push(state);
            }
        }
    }

    /// [`Outbox::cork`] or [`Outbox::uncork`], then whether more than the limit is waiting, under one lock:
    /// the reader's look at the outbox before each line.
    pub(crate) fn set_corked(&self, corked: bool) -> bool {
        let mut state = self.lock();
        if corked {
            state.corked = true;
        } else {
            self.uncork_locked(&mut state);
        }
        self.exceeds_limit(&state)
    }

    /// More than the limit is waiting to be written (the CLI is not reading its stdin).
    #[cfg(test)]
    pub(crate) fn over_limit(&self) -> bool {
        self.exceeds_limit(&self.lock())
    }

    fn exceeds_limit(&self, state: &State) -> bool {
        state.pending.unwritten().len() > self.limit
    }

    /// Writes what is held and waits until at most the limit is left unwritten (or stdin is
    /// closed or broken, when nothing will be written any more).
    pub(crate) async fn wait_for_room(&self) {
        self.uncork();
        loop {
            let notified = self.room.notified();
            let mut notified = std::pin::pin!(notified);
            notified.as_mut().enable();
            {
                let mut state = self.lock();
                if state.writer.is_none() || state.pending.unwritten().len() <= self.limit {
                    return;
                }
                state.wants_room = true;
            }
            notified.await;
        }
    }

    /// Wakes a waiter of [`Outbox::wait_for_room`] once there is room (or no pipe any more).
    fn note_progress(&self, state: &mut State) {
        if state.wants_room
            && (state.writer.is_none() || state.pending.unwritten().len() <= self.limit)
        {
            state.wants_room = false;
            self.room.notify_waiters();
        }
    }

    /// Writes `pending` straight into the pipe; whatever the pipe does not take is left to the
    /// drain task. Only called when the drain task is not waiting on the pipe, so this poll
    /// cannot displace a waker of its.
    fn push(&self, state: &mut State) {
        self.write_now(state);
        self.note_progress(state);
    }

    /// [`Outbox::push`]'s writing part.
    fn write_now(&self, state: &mut State) {
        let State {
            writer,
            pending,
            blocked,
            ..
        } = state;
        let Some(pipe) = writer.as_mut() else { return };
        let mut cx = Context::from_waker(Waker::noop());
        while !pending.is_empty() {
            match pipe.as_mut().poll_write(&mut cx, pending.unwritten()) {
                Poll::Ready(Ok(0)) | Poll::Ready(Err(_)) => {
                    tracing::debug!("the CLI's stdin is broken; dropping further lines");
                    *writer = None;
                    pending.clear();
                    return;
                }
                Poll::Ready(Ok(n)) => pending.advance(n),
                Poll::Pending => break,
            }
        }
        if pending.is_empty() {
            // A buffering writer may still hold the bytes: flush now if it can.
            match pipe.as_mut().poll_flush(&mut cx) {
                Poll::Ready(Ok(())) => return,
                Poll::Ready(Err(_)) => {
                    *writer = None;
                    return;
                }
                Poll::Pending => {}
            }
        }
        *blocked = true;
        self.queued.notify_one();
    }

    /// Closes stdin once everything sent before has been written.
    pub(crate) fn close(&self) {
        let mut state = self.lock();
        state.closing = true;
        state.corked = false;
        state.blocked = true;
        drop(state);
        self.queued.notify_one();
    }

    /// Writes what is queued and flushes; `Ready(true)` once stdin is closed for good.
    fn poll_drain(&self, cx: &mut Context<'_>) -> Poll<bool> {
        let mut state = self.lock();
        let done = self.write_queued(&mut state, cx);
        self.note_progress(&mut state);
        done
    }

    /// [`Outbox::poll_drain`]'s writing part.
    fn write_queued(&self, state: &mut State, cx: &mut Context<'_>) -> Poll<bool> {
        let State {
            writer,
            pending,
            closing,
            blocked,
            ..
        } = state;
        let Some(pipe) = writer.as_mut() else {
            return Poll::Ready(true);
        };
        // From here until everything is written, this task owns the pipe: `push` must not poll
        // it (with a no-op waker) while this task's waker is registered.
        *blocked = true;
        while !pending.is_empty() {
            match pipe.as_mut().poll_write(cx, pending.unwritten()) {
                Poll::Ready(Ok(0)) | Poll::Ready(Err(_)) => {
                    tracing::debug!("the CLI's stdin is broken; dropping further lines");
                    *writer = None;
                    pending.clear();
                    return Poll::Ready(true);
                }
                Poll::Ready(Ok(n)) => pending.advance(n),
                Poll::Pending => return Poll::Pending,
            }
        }
        match pipe.as_mut().poll_flush(cx) {
            Poll::Pending => return Poll::Pending,
            Poll::Ready(Err(_)) => {
                *writer = None;
                return Poll::Ready(true);
            }
            Poll::Ready(Ok(())) => {}
        }
        if *closing {
            // Dropping the writer is what closes the pipe.
            let mut pipe = writer.take();
            if let Some(pipe) = pipe.as_mut() {
                let _ = pipe.as_mut().poll_shutdown(cx);
            }
            return Poll::Ready(true);
        }
        *blocked = false;
        Poll::Ready(false)
    }
}

/// The drain task: runs until stdin is closed.
pub(crate) async fn drain(outbox: Arc<Outbox>) {
    loop {
        outbox.queued.notified().await;
        if poll_fn(|cx| outbox.poll_drain(cx)).await {
            return;
        }
    }
}

/// A line being appended to the queue: dropped unfinished (its writer panicked), it takes
/// its bytes back out.
struct PartialLine<'a> {
    buffer: &'a mut Vec<u8>,
    start: usize,
}

impl<'a> PartialLine<'a> {
    fn start(buffer: &'a mut Vec<u8>) -> Self {
        let start = buffer.len();
        Self { buffer, start }
    }

    fn finish(self) {
        std::mem::forget(self);
    }
}

impl Drop for PartialLine<'_> {
    fn drop(&mut self) {
        self.buffer.truncate(self.start);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::AsyncReadExt;

    #[tokio::test]
    async fn a_full_pipe_queues_lines_in_order_and_close_waits_for_them() {
        // A 16-byte pipe: the first line fits, the rest must wait for the reader.
        let (host, mut cli) = tokio::io::duplex(16);
        let outbox = Outbox::new(Box::pin(host), usize::MAX);
        let drain_task = tokio::spawn(drain(outbox.clone()));
        let lines: Vec<String> = (0..20).map(|i| format!("{{\"line\":{i:03}}}\n")).collect();
        for line in &lines {
            outbox.send(line.as_bytes());
        }
        outbox.close();
        outbox.send(b"{\"after\":\"close\"}\n");
        let mut received = String::new();
        cli.read_to_string(&mut received).await.unwrap();
        assert_eq!(
            received,
            lines.concat(),
            "every line, in order, nothing after close"
        );
        assert!(drain_task.await.is_ok());
    }

    #[tokio::test]
    async fn an_empty_queue_writes_straight_into_the_pipe() {
        let (host, mut cli) = tokio::io::duplex(1024);
        let outbox = Outbox::new(Box::pin(host), usize::MAX);
        // No drain task at all: the line must still arrive.
        outbox.send(b"{\"direct\":true}\n");
        let mut buf = [0u8; 16];
        cli.read_exact(&mut buf).await.unwrap();
        assert_eq!(&buf, b"{\"direct\":true}\n");
    }

    #[tokio::test]
    async fn the_line_buffer_is_reused_but_does_not_stay_huge() {
        let (host, mut cli) = tokio::io::duplex(1 << 20);
        let outbox = Outbox::new(Box::pin(host), usize::MAX);
        let huge = format!("{}\n", "x".repeat(200_000));
        outbox.send_with(|out| out.extend_from_slice(huge.as_bytes()));
        let mut received = vec![0u8; huge.len()];
        cli.read_exact(&mut received).await.unwrap();
        assert_eq!(received, huge.as_bytes());
        assert!(outbox.lock().pending.buffer.capacity() <= KEEP_CAPACITY);
        outbox.send(b"{}\n");
        let capacity = outbox.lock().pending.buffer.capacity();
        assert!(
            capacity > 0,
            "an ordinary line keeps the buffer for the next one"
        );
    }

    #[tokio::test]
    async fn a_line_whose_writer_panics_is_not_sent() {
        let (host, mut cli) = tokio::io::duplex(1024);
        let outbox = Outbox::new(Box::pin(host), usize::MAX);
        outbox.cork();
        outbox.send(b"{\"before\":1}\n");
        let panicked = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            outbox.send_with(|out| {
                out.extend_from_slice(b"{\"half\":");
                panic!("serialiser failed");
            })
        }));
        assert!(panicked.is_err());
        outbox.send(b"{\"after\":2}\n");
        outbox.uncork();
        let expected = b"{\"before\":1}\n{\"after\":2}\n";
        let mut received = vec![0u8; expected.len()];
        cli.read_exact(&mut received).await.unwrap();
        assert_eq!(&received, expected);
    }

    #[tokio::test]
    async fn a_corked_outbox_holds_lines_until_uncorked() {
        let (host, mut cli) = tokio::io::duplex(1024);
        let outbox = Outbox::new(Box::pin(host), usize::MAX);
        outbox.cork();
        outbox.send(b"{\"a\":1}\n");
        outbox.send(b"{\"b\":2}\n");
        let mut buf = [0u8; 16];
        let early =
            tokio::time::timeout(std::time::Duration::from_millis(50), cli.read(&mut buf)).await;
        assert!(early.is_err(), "nothing is written while corked");
        outbox.uncork();
        cli.read_exact(&mut buf).await.unwrap();
        assert_eq!(&buf, b"{\"a\":1}\n{\"b\":2}\n");
    }

    /// A pipe that takes at most 64 KiB per write and is full every other time (so both the
    /// direct writes and the drain task's are used). It records what it received and how many
    /// bytes were moved in the buffer between two writes: a write handed bytes that are not
    /// where the previous write left them means the queue was copied.
    struct ChoppyPipe {
        received: Arc<Mutex<Vec<u8>>>,
        moved: Arc<Mutex<usize>>,
        next: Option<*const u8>,
        full: bool,
    }

    // SAFETY: the pointer is only compared, never dereferenced.
    unsafe impl Send for ChoppyPipe {}

    impl AsyncWrite for ChoppyPipe {
        fn poll_write(
            mut self: Pin<&mut Self>,
            cx: &mut Context<'_>,
            buf: &[u8],
        ) -> Poll<std::io::Result<usize>> {
            self.full = !self.full;
            if self.full {
                cx.waker().wake_by_ref();
                return Poll::Pending;
            }
            if self.next.is_some_and(|next| next != buf.as_ptr()) {
                *self.moved.lock().unwrap() += buf.len();
            }
            let n = buf.len().min(64 * 1024);
            self.next = (n < buf.len()).then(|| buf[n..].as_ptr());
            self.received.lock().unwrap().extend_from_slice(&buf[..n]);
            Poll::Ready(Ok(n))
        }

        fn poll_flush(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<std::io::Result<()>> {
            Poll::Ready(Ok(()))
        }

        fn poll_shutdown(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<std::io::Result<()>> {
            Poll::Ready(Ok(()))
        }
    }

    #[tokio::test]
    async fn a_huge_line_is_written_in_linear_time_whole_in_order_and_its_memory_given_back() {
        // 32 MiB in 512 partial writes (the release bench, ct-bench-big-answer, does 200 MiB).
        const HUGE: usize = 32 * 1024 * 1024;
        let received = Arc::new(Mutex::new(Vec::new()));
        let moved = Arc::new(Mutex::new(0));
        let pipe = ChoppyPipe {
            received: received.clone(),
            moved: moved.clone(),
            next: None,
            full: false,
        };
        let outbox = Outbox::new(Box::pin(pipe), usize::MAX);
        let drain_task = tokio::spawn(drain(outbox.clone()));
        let mut huge = vec![b'h'; HUGE];
        huge.push(b'\n');
        outbox.send(b"{\"before\":1}\n");
        outbox.send(&huge);
        outbox.send(b"{\"after\":2}\n");
        outbox.close();
        drain_task.await.unwrap();
        let received = std::mem::take(&mut *received.lock().unwrap());
        assert_eq!(received.len(), 13 + HUGE + 1 + 12);
        assert_eq!(&received[..13], b"{\"before\":1}\n");
        assert!(received[13..13 + HUGE].iter().all(|&b| b == b'h'));
        assert_eq!(&received[13 + HUGE..], b"\n{\"after\":2}\n");
        // Draining the buffer's front on every partial write moved ~8 GiB here; compacting only
        // once the rest is no longer than what was written moves at most the line's length.
        let moved = *moved.lock().unwrap();
        assert!(moved <= HUGE, "{moved} bytes moved to write {HUGE}");
        assert!(outbox.lock().pending.buffer.capacity() <= KEEP_CAPACITY);
    }

    #[tokio::test]
    async fn wait_for_room_returns_once_the_cli_has_read_down_to_the_limit() {
        let (host, mut cli) = tokio::io::duplex(64);
        let outbox = Outbox::new(Box::pin(host), 100);
        tokio::spawn(drain(outbox.clone()));
        let line = format!("{}\n", "x".repeat(299));
        outbox.send(line.as_bytes());
        assert!(
            outbox.over_limit(),
            "236 bytes wait for a CLI that does not read"
        );
        let mut waiting = Box::pin(outbox.wait_for_room());
        let early = tokio::time::timeout(std::time::Duration::from_millis(50), &mut waiting).await;
        assert!(early.is_err(), "no room while the CLI does not read");
        let mut buf = vec![0u8; 136];
        cli.read_exact(&mut buf).await.unwrap();
        tokio::time::timeout(std::time::Duration::from_secs(5), waiting)
            .await
            .expect("room once at most 100 bytes are left");
        assert!(!outbox.over_limit());
        let mut rest = vec![0u8; 164];
        cli.read_exact(&mut rest).await.unwrap();
        buf.extend_from_slice(&rest);
        assert_eq!(buf, line.as_bytes(), "the line arrives whole");
    }
}
