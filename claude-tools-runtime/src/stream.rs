//! [`MessageStream`]: the typed messages of a session, as a `Stream`.

use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use crate::control::{
    AbortHandle, BackgroundTasksReceipt, ContextUsage, InitializeInfo, InterruptReceipt, McpStatus,
    ModelReceipt, PermissionModeReceipt,
};
use crate::error::Result;
use crate::message::Message;
use crate::options::PermissionMode;
use crate::protocol::HostRequest;
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
/// The session's controls that make sense for one run are here too, as on
/// [`Client`](crate::client::Client): [`interrupt`](Self::interrupt) the turn, switch the model
/// or permission mode, read the MCP servers' status or the context usage, stop or background a
/// task, and [`abort_handle`](Self::abort_handle) to end the run from another task. They need
/// the CLI's stdin open: a one-shot query keeps it open while the CLI may ask the host something
/// (with in-process tools, hooks or a permission callback) until the run has ended; without
/// those, stdin is closed once the prompt is sent, and a control fails with
/// [`Error::Closed`](crate::Error::Closed) (or the CLI's exit).
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
    info: InitializeInfo,
}

impl MessageStream {
    pub(crate) fn new(
        receiver: MessageReceiver,
        session: Arc<SessionCore>,
        info: InitializeInfo,
    ) -> Self {
        Self {
            receiver,
            session,
            info,
        }
    }

    /// The CLI's answer to `initialize`, typed: its commands, models, subagents, account,
    /// version ([`Client::initialize_info`](crate::client::Client::initialize_info)).
    pub fn initialize_info(&self) -> &InitializeInfo {
        &self.info
    }

    /// A handle that ends this run from another task, gracefully (interrupt, end the CLI's
    /// input, wait for it to exit): see [`AbortHandle`].
    pub fn abort_handle(&self) -> AbortHandle {
        AbortHandle::new(self.session.clone())
    }

    /// Interrupts the current turn ([`Client::interrupt`](crate::client::Client::interrupt)):
    /// the turn ends with an `error_during_execution` result, and in-process tools running are
    /// told the call was cancelled. The run then ends as it would have after that result.
    pub async fn interrupt(&self) -> Result<InterruptReceipt> {
        self.session
            .control(HostRequest::Interrupt {
                cancel_queued: false,
            })
            .await
    }

    /// Switches the model for the next turns of the run
    /// ([`Client::set_model`](crate::client::Client::set_model)).
    pub async fn set_model(&self, model: Option<&str>) -> Result<ModelReceipt> {
        self.session.control(HostRequest::SetModel { model }).await
    }

    /// Switches the permission mode
    /// ([`Client::set_permission_mode`](crate::client::Client::set_permission_mode)).
    pub async fn set_permission_mode(&self, mode: PermissionMode) -> Result<PermissionModeReceipt> {
        self.session
            .control(HostRequest::SetPermissionMode { mode })
            .await
    }

    /// Limits the model's thinking tokens
    /// ([`Client::set_max_thinking_tokens`](crate::client::Client::set_max_thinking_tokens)).
    pub async fn set_max_thinking_tokens(&self, max_thinking_tokens: Option<u32>) -> Result<()> {
        self.session
            .control_ack(HostRequest::SetMaxThinkingTokens {
                max_thinking_tokens,
            })
            .await
    }

    /// The status of every MCP server ([`Client::mcp_status`](crate::client::Client::mcp_status)).
    pub async fn mcp_status(&self) -> Result<McpStatus> {
        self.session.control(HostRequest::McpStatus).await
    }

    /// How the context window is used
    /// ([`Client::context_usage`](crate::client::Client::context_usage)).
    pub async fn context_usage(&self) -> Result<ContextUsage> {
        self.session.control(HostRequest::GetContextUsage).await
    }

    /// Stops a running task ([`Client::stop_task`](crate::client::Client::stop_task)).
    pub async fn stop_task(&self, task_id: &str) -> Result<()> {
        self.session
            .control_ack(HostRequest::StopTask { task_id })
            .await
    }

    /// Sends foreground tasks to the background
    /// ([`Client::background_tasks`](crate::client::Client::background_tasks)).
    pub async fn background_tasks(&self, tool_use_id: Option<&str>) -> Result<bool> {
        let receipt: BackgroundTasksReceipt = self
            .session
            .control(HostRequest::BackgroundTasks { tool_use_id })
            .await?;
        Ok(receipt.backgrounded.unwrap_or(true))
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
