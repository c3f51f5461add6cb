//! The CLI's stdout as a pipe that follows the thread reading it.
//!
//! A session reads the CLI's stdout on a thread of its own, which also makes the first poll of
//! each request the CLI sends (so a quick tool is answered with no hop between threads). When a
//! handler blocks that thread in its first poll, the session's watchdog moves the reading to a
//! new thread. A tokio pipe is registered with one runtime's driver, and the old thread's driver
//! is not turned while the handler blocks it: so the pipe registers anew with the driver of
//! whichever reading thread polls it. Each reading thread marks itself
//! ([`mark_reading_thread`]); a poll from a thread with another mark moves the registration.

use std::cell::Cell;
use std::io;
use std::os::fd::OwnedFd;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::task::{Context, Poll};

use tokio::io::{AsyncRead, ReadBuf};
use tokio::net::unix::pipe;

thread_local! {
    /// This thread's mark: 0 for threads that are not a session's reading thread.
    static READING_THREAD: Cell<u64> = const { Cell::new(0) };
}

/// Gives the current thread a mark of its own: a [`MobilePipe`] polled here next registers with
/// this thread's runtime. Called by each session's reading thread as it starts.
pub(crate) fn mark_reading_thread() {
    static NEXT: AtomicU64 = AtomicU64::new(1);
    READING_THREAD.set(NEXT.fetch_add(1, Ordering::Relaxed));
}

/// The current thread's mark (see [`mark_reading_thread`]).
pub(crate) fn reading_thread() -> u64 {
    READING_THREAD.get()
}

/// A pipe's read end, registered with the runtime of the thread that polls it.
pub(crate) struct MobilePipe {
    state: State,
}

enum State {
    /// Not polled yet: registered on the first poll.
    Unregistered(OwnedFd),
    /// Registered with the runtime of the thread marked `thread`.
    Registered { thread: u64, pipe: pipe::Receiver },
    /// A registration failed (the error was returned); nothing more can be read.
    Failed,
}

impl MobilePipe {
    /// The read end `fd` of a pipe (in blocking mode or not: it is made non-blocking).
    pub(crate) fn new(fd: OwnedFd) -> Self {
        Self {
            state: State::Unregistered(fd),
        }
    }

    /// The pipe registered with the current thread's runtime.
    fn here(&mut self) -> io::Result<&mut pipe::Receiver> {
        let thread = reading_thread();
        let moves = match &self.state {
            State::Registered { thread: at, .. } => *at != thread,
            State::Unregistered(_) => true,
            State::Failed => false,
        };
        if moves {
            // Registering needs a runtime here; without one, say so rather than panic.
            if tokio::runtime::Handle::try_current().is_err() {
                return Err(io::Error::other(
                    "the CLI's stdout must be read within a tokio runtime",
                ));
            }
            self.state = match std::mem::replace(&mut self.state, State::Failed) {
                // Deregistering needs nothing of the old driver's thread (it may be blocked).
                // The checks `from_owned_fd` made at the first registration (a FIFO, opened
                // for reading, non-blocking) still hold.
                State::Registered { pipe, .. } => State::Registered {
                    thread,
                    pipe: pipe::Receiver::from_owned_fd_unchecked(pipe.into_nonblocking_fd()?)?,
                },
                State::Unregistered(fd) => State::Registered {
                    thread,
                    pipe: pipe::Receiver::from_owned_fd(fd)?,
                },
                State::Failed => State::Failed,
            };
        }
        match &mut self.state {
            State::Registered { pipe, .. } => Ok(pipe),
            _ => Err(io::Error::other("the CLI's stdout could not be registered")),
        }
    }
}

impl AsyncRead for MobilePipe {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        match self.here() {
            Ok(pipe) => Pin::new(pipe).poll_read(cx, buf),
            Err(error) => Poll::Ready(Err(error)),
        }
    }
}
