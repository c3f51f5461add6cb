//! What the reader task owns: the one value handed between reader tasks, from the
//! [`reader`](super::reader) to the [`watchdog`](super::watchdog) and on to a new reading thread,
//! when a first poll blocks its thread. Apart from both, so that neither imports the other's
//! file for it.

use std::pin::Pin;

use tokio::io::AsyncRead;
use tokio_util::sync::WaitForCancellationFutureOwned;

use super::queue::MessageSender;
use crate::transport::ProcessHandle;
use claude_tools_core::ndjson::LineReader;

/// What the reader owns, handed over whole when its task is stuck.
pub(super) struct Reader {
    pub(super) lines: LineReader<Pin<Box<dyn AsyncRead + Send>>>,
    pub(super) process: Box<dyn ProcessHandle>,
    pub(super) messages: MessageSender,
    /// The session's shutdown, waited for beside each read: one waiter for the session's
    /// whole life, rather than one registered and removed per line.
    pub(super) shutdown: Pin<Box<WaitForCancellationFutureOwned>>,
    /// The `tracing` subscriber of the task that started the session, the default of every
    /// reading thread of the session: without it a host whose subscriber is its thread's
    /// (`tracing::subscriber::set_default`) would lose the spans of the CLI's requests and
    /// tool calls, which start on those threads.
    pub(super) dispatch: tracing::Dispatch,
}
