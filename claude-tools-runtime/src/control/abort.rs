//! [`AbortHandle`]: ends a running session from anywhere, gracefully.

use std::sync::Arc;
use std::time::Duration;

use crate::protocol::HostRequest;
use crate::session::SessionCore;
use crate::transport::ExitInfo;

/// How long [`AbortHandle::abort`] waits for the CLI to answer its interrupt.
const INTERRUPT_WAIT: Duration = Duration::from_secs(5);

/// How long the CLI is given to exit once its stdin is closed, before it is killed (by
/// [`AbortHandle::abort`] and [`Client::disconnect`](crate::client::Client::disconnect)).
pub(crate) const EXIT_GRACE: Duration = Duration::from_secs(10);

/// Cancels a running [`Client`](crate::client::Client) or [`query`](crate::query::query) from
/// another task, gracefully: [`abort`](Self::abort) interrupts the turn, ends the CLI's input and
/// waits for it to exit (killing it only if it does not within 10 s).
///
/// Get one from [`Controls::abort_handle`](crate::control::Controls::abort_handle), on a
/// [`Client`](crate::client::Client) or a [`MessageStream`](crate::stream::MessageStream). It is `Clone`,
/// `Send` and `Sync`, and may outlive the session: once the session has ended, `abort` returns
/// at once. Dropping the client or stream still ends the session too, abruptly (the CLI is
/// killed).
///
/// ```no_run
/// use std::time::Duration;
///
/// use claude_tools::options::Options;
/// use claude_tools::query;
///
/// # async fn run() -> claude_tools::Result<()> {
/// let mut messages = query("Refactor the whole crate", Options::new()).await?;
/// let abort = messages.abort_handle();
/// tokio::spawn(async move {
///     tokio::time::sleep(Duration::from_secs(60)).await;
///     // Too long: interrupt the turn and end the CLI.
///     let exit = abort.abort().await;
///     println!("the CLI ended: {exit:?}");
/// });
/// while let Some(item) = messages.next().await {
///     println!("{item:?}");
/// }
/// # Ok(())
/// # }
/// ```
#[derive(Clone)]
pub struct AbortHandle {
    session: Arc<SessionCore>,
}

impl AbortHandle {
    pub(crate) fn new(session: Arc<SessionCore>) -> Self {
        Self { session }
    }

    /// Ends the session: sends `interrupt` (cancelling the prompts queued behind the turn too)
    /// and waits up to 5 s for the CLI's receipt, closes the CLI's stdin, and waits for the CLI
    /// to exit, killing it after 10 s. Returns how it ended (at once when it has already).
    ///
    /// The turn in progress ends with its `result` (an interrupted one), which the message
    /// stream still delivers, and the stream ends after it. In-process tools running are told
    /// the call was cancelled
    /// ([`ToolContext::cancelled`](claude_tools_core::tool::ToolContext::cancelled)). A session
    /// whose stdin was already closed (a one-shot [`query`](crate::query::query) whose run has
    /// ended) cannot be interrupted: it is given the same 10 s to finish, then killed.
    pub async fn abort(&self) -> ExitInfo {
        if self.session.accepts_input() {
            let interrupt = HostRequest::Interrupt {
                cancel_queued: true,
            };
            let _ = tokio::time::timeout(INTERRUPT_WAIT, self.session.request(&interrupt)).await;
        }
        end_gracefully(&self.session, EXIT_GRACE).await
    }

    /// Whether the CLI has ended (and the session has reaped it).
    pub fn is_finished(&self) -> bool {
        self.session.exit_info().is_some()
    }
}

/// Closes the CLI's stdin and waits for it to exit, ending it after `grace`.
pub(crate) async fn end_gracefully(session: &SessionCore, grace: Duration) -> ExitInfo {
    session.close_input();
    match tokio::time::timeout(grace, session.wait_exit()).await {
        Ok(exit) => exit,
        Err(_) => {
            session.shutdown();
            session.wait_exit().await
        }
    }
}

impl std::fmt::Debug for AbortHandle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AbortHandle")
            .field("finished", &self.is_finished())
            .finish()
    }
}
