//! [`MessageStream`]: the typed messages of a session, as a `Stream`.

use std::ops::Deref;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use crate::control::{Controls, InitializeInfo};
use crate::error::Result;
use crate::message::Message;
use crate::session::{MessageReceiver, SessionCore};
use crate::transport::ExitInfo;

/// The messages the CLI streams, in order, ending when the CLI exits.
///
/// Errors are items of the stream, of two kinds ([`Error::is_fatal`]): a **survivable** one (a
/// line that is not JSON, breaks the protocol or is too long) is one bad item, and the stream
/// goes on after it; a **fatal** one (the CLI exited mid-run, its pipes failed) is the end of
/// the session: the stream ends after it. So skip the first kind and stop on the second; `?` on
/// every item would end the session on a line it could have survived:
///
/// ```no_run
/// use claude_tools::options::Options;
/// use claude_tools::query;
///
/// # async fn run() -> claude_tools::Result<()> {
/// let mut messages = query("Say hello", Options::new()).await?;
/// while let Some(item) = messages.next().await {
///     match item {
///         Ok(message) => println!("{message:?}"),
///         Err(error) if error.is_fatal() => return Err(error),
///         Err(error) => eprintln!("skipped: {error}"),
///     }
/// }
/// # Ok(())
/// # }
/// ```
///
/// Use it as a `futures_core::Stream`, or call [`MessageStream::next`]. Dropping it stops the
/// session (the CLI and whatever it started are ended if still running).
///
/// # Did the run succeed?
///
/// A stream that ends without an error item has delivered everything the CLI wrote, but the
/// run may still have failed. Check, in this order:
/// 1. an `Err` item: [`Error::ProcessExited`](crate::Error::ProcessExited) when the CLI exited
///    (code or signal, stderr tail) before answering every prompt;
/// 2. the `result` message: its `is_error` is set when the run failed (max turns, budget, an
///    API error);
/// 3. the exit status, [`MessageStream::exit_status`]: a CLI that reported a failure exits
///    with a non-zero code (the `result` is then followed by a clean end of the stream), and
///    one that was killed reports its signal; [`ExitInfo::stderr_tail`] says why.
///
/// Unread messages are held up to [`Options::message_queue_limit`](crate::options::Options::message_queue_limit);
/// at that bound the session stops reading the CLI (tool calls and hooks wait too) until the
/// stream is read again. Nothing is dropped.
///
/// # Controlling the run
///
/// Every control of [`Client`](crate::client::Client) is here too: the stream dereferences to
/// [`Controls`], as a client does. [`interrupt`](Controls::interrupt) the turn, switch the model
/// or permission mode, change settings, toggle, reconnect or set MCP servers, rewind files, read
/// the context usage, reload plugins, stop or background a task, send any other control with
/// [`control_request`](Controls::control_request), and end the run from another task with
/// [`abort_handle`](Controls::abort_handle). The CLI's stdin stays open until the run has
/// ended (its last `result`, the CLI idle), whatever the options, so they reach the CLI for as
/// long as the run lasts; after that a control fails with [`Error::Closed`](crate::Error::Closed)
/// (or the CLI's exit).
///
/// ```no_run
/// use claude_tools::options::Options;
/// use claude_tools::message::Message;
/// use claude_tools::query;
///
/// # async fn run(options: Options) -> claude_tools::Result<()> {
/// let mut messages = query("Run the slow report", options).await?;
/// while let Some(item) = messages.next().await {
///     if let Ok(Message::Assistant(_)) = item {
///         // Enough: stop the turn; its `result` and the end of the stream follow.
///         messages.interrupt().await?;
///     }
/// }
/// # Ok(())
/// # }
/// ```
///
/// [`Error::is_fatal`]: crate::Error::is_fatal
pub struct MessageStream {
    receiver: MessageReceiver,
    session: Arc<SessionCore>,
    controls: Controls,
    info: InitializeInfo,
}

impl MessageStream {
    pub(crate) fn new(
        receiver: MessageReceiver,
        session: Arc<SessionCore>,
        controls: Controls,
        info: InitializeInfo,
    ) -> Self {
        Self {
            receiver,
            controls,
            session,
            info,
        }
    }

    /// The CLI's answer to `initialize`, typed: its commands, models, subagents, account,
    /// version ([`Client::initialize_info`](crate::client::Client::initialize_info)).
    pub fn initialize_info(&self) -> &InitializeInfo {
        &self.info
    }

    /// The next message or error (fatal or survivable: see [the type's docs](Self)), or `None`
    /// once the CLI has exited and everything was read.
    pub async fn next(&mut self) -> Option<Result<Message>> {
        self.receiver.recv().await
    }

    /// How the CLI ended, once it has (`None` while it runs).
    pub fn exit_info(&self) -> Option<ExitInfo> {
        self.session.exit_info()
    }

    /// Waits for the CLI to end and returns how it ended: its exit code or signal and the
    /// last lines of its stderr. The CLI runs on whether or not the stream is read, so the wait
    /// is as long as the rest of the run; once the stream has ended it is at most a few seconds
    /// (a CLI that does not exit is killed 5 s after its stdout closed).
    pub async fn exit_status(&self) -> ExitInfo {
        self.session.wait_exit().await
    }

    /// Reads to the end and returns every message: the strict shortcut. It fails on the first
    /// error, survivable ones included, dropping the messages read so far (a run that lost a
    /// line does not pass for a complete one). To keep every message and skip survivable
    /// errors, loop over [`next`](Self::next) with [`Error::is_fatal`](crate::Error::is_fatal).
    pub async fn collect(mut self) -> Result<Vec<Message>> {
        let mut messages = Vec::new();
        while let Some(message) = self.next().await {
            messages.push(message?);
        }
        Ok(messages)
    }
}

impl Deref for MessageStream {
    type Target = Controls;

    fn deref(&self) -> &Controls {
        &self.controls
    }
}

impl futures_core::Stream for MessageStream {
    type Item = Result<Message>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        self.receiver.poll_recv(cx)
    }
}

impl Drop for MessageStream {
    fn drop(&mut self) {
        self.session.shutdown();
    }
}

impl std::fmt::Debug for MessageStream {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MessageStream").finish_non_exhaustive()
    }
}
