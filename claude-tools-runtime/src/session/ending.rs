//! How a session learns that the CLI is gone, and which error each waiter gets: the CLI's exit
//! report ([`Error::ProcessExited`] with its code or signal and stderr tail) whenever the CLI
//! ended on its own, [`Error::Closed`] when the host ended the session. No wait is longer than
//! the exit report takes to arrive, which the session bounds.

use std::io;
use std::pin::Pin;
use std::sync::atomic::Ordering;
use std::task::{Context, Poll};
use std::time::Duration;

use tokio::io::AsyncWrite;
use tokio_util::sync::CancellationToken;

use super::SessionCore;
use crate::error::Error;
use crate::transport::ExitInfo;

/// How long a waiter whose CLI stopped reading waits for the CLI's exit report before it fails
/// with the broken pipe itself. The report follows an exit within about a second (stdout's and
/// stderr's short graces); a CLI that closed its stdin and lives on gets no report.
const EXIT_REPORT_WAIT: Duration = Duration::from_secs(3);
/// How long a waiter whose CLI stopped reading waits for the process's exit itself, when the
/// transport signals it ([`ProcessHandle::exit_signal`](crate::transport::ProcessHandle::exit_signal)):
/// an exiting process closes its pipes a moment before it is reaped, and the reaper runs on a
/// thread that nothing holds up. A CLI that closed its stdin and lives on is told apart this
/// soon, rather than after [`EXIT_REPORT_WAIT`].
const EXIT_SIGNAL_WAIT: Duration = Duration::from_millis(250);

/// The error that reports an exit.
pub(super) fn exited(exit: ExitInfo) -> Error {
    let ExitInfo {
        code,
        signal,
        stderr_tail,
    } = exit;
    Error::ProcessExited {
        code,
        signal,
        stderr_tail,
    }
}

impl SessionCore {
    /// Whether a line written now can still reach the CLI.
    pub(crate) fn accepts_input(&self) -> bool {
        !self.input_closed.load(Ordering::Acquire) && !self.stdin_broken.is_cancelled()
    }

    /// The error for a waiter whose CLI is gone or no longer reads, as far as known now.
    pub(crate) fn gone_error(&self) -> Error {
        if self.shutdown.is_cancelled() {
            return Error::Closed;
        }
        match &*self.exit.borrow() {
            Some(exit) => exited(exit.clone()),
            None => Error::Closed,
        }
    }

    /// The error for a waiter that cannot reach the CLI: once the host ended the session,
    /// [`Error::Closed`]; when the CLI exited, its exit report, waited for (bounded) when it is
    /// on its way; when the CLI closed its stdin and lives on, the broken pipe.
    pub(crate) async fn unreachable_error(&self) -> Error {
        let host_closed = self.shutdown.is_cancelled()
            || (self.closed_by_host.load(Ordering::Acquire) && !self.stdin_broken.is_cancelled());
        if host_closed || self.exit.borrow().is_some() {
            return self.gone_error();
        }
        if let Some(exited) = &self.process_exit
            && !exited.is_cancelled()
        {
            // Once found alive with its stdin closed, it is not waited for again (an exit
            // later fires the signal, and the report follows it as above).
            let lives_on = self.stdin_closed_by_cli.load(Ordering::Acquire)
                || tokio::time::timeout(EXIT_SIGNAL_WAIT, exited.cancelled())
                    .await
                    .is_err();
            if lives_on {
                // Alive with its stdin closed: no exit report is coming.
                self.stdin_closed_by_cli.store(true, Ordering::Release);
                return if self.shutdown.is_cancelled() {
                    Error::Closed
                } else {
                    closed_stdin()
                };
            }
        }
        match tokio::time::timeout(EXIT_REPORT_WAIT, self.wait_exit()).await {
            Ok(_) => self.gone_error(),
            Err(_) if self.shutdown.is_cancelled() => Error::Closed,
            Err(_) => closed_stdin(),
        }
    }
}

/// The error of a host's request to a CLI that closed its stdin.
fn closed_stdin() -> Error {
    Error::Io(io::Error::new(
        io::ErrorKind::BrokenPipe,
        "the Claude Code CLI closed its stdin",
    ))
}

/// The CLI's stdin, watched: the first write that fails (the CLI closed its end or exited)
/// fires `broken`, which releases every request waiting for an answer that cannot come.
pub(super) struct StdinWatch {
    pub(super) inner: Pin<Box<dyn AsyncWrite + Send>>,
    pub(super) broken: CancellationToken,
}

impl StdinWatch {
    fn check<T>(
        &self,
        poll: Poll<io::Result<T>>,
        wrote_nothing: impl Fn(&T) -> bool,
    ) -> Poll<io::Result<T>> {
        match &poll {
            Poll::Ready(Err(error)) => {
                tracing::debug!(%error, "the CLI's stdin is broken");
                self.broken.cancel();
            }
            Poll::Ready(Ok(value)) if wrote_nothing(value) => {
                tracing::debug!("the CLI's stdin accepts nothing more");
                self.broken.cancel();
            }
            _ => {}
        }
        poll
    }
}

impl AsyncWrite for StdinWatch {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let poll = self.inner.as_mut().poll_write(cx, buf);
        self.check(poll, |n| *n == 0 && !buf.is_empty())
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let poll = self.inner.as_mut().poll_write_vectored(cx, bufs);
        self.check(poll, |n| *n == 0 && bufs.iter().any(|b| !b.is_empty()))
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let poll = self.inner.as_mut().poll_flush(cx);
        self.check(poll, |_| false)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        // Closing stdin is the host's doing, not a broken pipe.
        self.inner.as_mut().poll_shutdown(cx)
    }
}
