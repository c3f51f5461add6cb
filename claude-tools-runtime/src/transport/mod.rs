//! Transports: how the session reaches the CLI's stdin, stdout and process.
//!
//! [`Transport`] is what a session is given; the spawned CLI process is one implementation, and
//! tests or embedders can plug in an in-memory pipe.

use std::future::Future;
use std::pin::Pin;

use tokio::io::{AsyncRead, AsyncWrite};

use crate::error::Result;
use crate::redact;

/// A boxed, sendable future.
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// How the CLI ended.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct ExitInfo {
    /// The exit code, when the process exited normally.
    pub code: Option<i32>,
    /// The signal that ended the process, when a signal did (Unix).
    pub signal: Option<i32>,
    /// The last lines of the CLI's stderr (empty when not captured).
    pub stderr_tail: String,
}

impl ExitInfo {
    /// How a process ended: its exit code (when it exited), the signal that ended it (when one
    /// did) and the last lines of its stderr. For [`ProcessHandle`] implementations.
    pub fn new(code: Option<i32>, signal: Option<i32>, stderr_tail: impl Into<String>) -> Self {
        Self {
            code,
            signal,
            stderr_tail: stderr_tail.into(),
        }
    }

    /// Whether the CLI exited normally with code 0.
    pub fn success(&self) -> bool {
        self.code == Some(0)
    }
}

/// The open connection to a CLI: its stdout, its stdin and a handle on its life.
pub struct Connection {
    /// The CLI's stdout (NDJSON).
    pub reader: Pin<Box<dyn AsyncRead + Send>>,
    /// The CLI's stdin (NDJSON). Dropping it closes the CLI's input.
    pub writer: Pin<Box<dyn AsyncWrite + Send>>,
    /// The process behind the pipes.
    pub process: Box<dyn ProcessHandle>,
}

/// The life of the process behind a [`Connection`].
pub trait ProcessHandle: Send + Sync {
    /// Waits for the process to end (after stdin has been closed or it was killed).
    fn wait(&mut self) -> BoxFuture<'_, ExitInfo>;

    /// Kills the process now (no-op when it has ended or there is none).
    fn kill(&mut self);

    /// The last lines it wrote to stderr, for error reports.
    fn stderr_tail(&self) -> String;

    /// A token that fires as soon as the process has exited, ahead of [`ProcessHandle::wait`]'s
    /// report (which also waits for the end of stderr); `None` (the default) when the handle
    /// cannot tell. A session uses it when a write to the CLI's stdin fails: a CLI that closed
    /// its stdin and lives on fails the host's request at once with the broken pipe, one that
    /// exited fails it with its exit report. Without it, the session waits up to 3 s for an exit
    /// report before it reports the broken pipe.
    fn exit_signal(&self) -> Option<tokio_util::sync::CancellationToken> {
        None
    }

    /// Whether the CLI is played inside this process, on the application's runtime (as
    /// [`MemoryTransport`]'s is): the session then reads it in a task of that runtime, beside
    /// the CLI's side, so that a paused test clock holds for both. `false` (the default): the
    /// session reads the CLI on threads of its own, which no handler of the application's can
    /// hold up.
    fn in_process(&self) -> bool {
        false
    }
}

/// Something that can open a [`Connection`] to a CLI for a given launch.
pub trait Transport: Send {
    /// Opens the connection. `launch` holds the argv and environment the options ask for.
    fn connect(self: Box<Self>, launch: LaunchSpec) -> BoxFuture<'static, Result<Connection>>;
}

/// What to launch: built from the options by the session.
///
/// Its `Debug` keeps secrets out: environment values, and the values of the argv flags that may
/// carry credentials (`--mcp-config`, `--settings`), print as `<redacted>`.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct LaunchSpec {
    /// An explicit CLI path (from the options), else the transport discovers one.
    pub cli_path: Option<std::path::PathBuf>,
    /// Arguments after the executable.
    pub args: Vec<String>,
    /// Environment variables to set on top of the inherited environment.
    pub env: Vec<(String, String)>,
    /// Environment variables to remove from the inherited environment.
    pub env_remove: Vec<String>,
    /// The working directory.
    pub cwd: Option<std::path::PathBuf>,
}

impl std::fmt::Debug for LaunchSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LaunchSpec")
            .field("cli_path", &self.cli_path)
            .field("args", &redact::args(&self.args))
            .field("env", &redact::NamesOnly::of_pairs(&self.env))
            .field("env_remove", &self.env_remove)
            .field("cwd", &self.cwd)
            .finish()
    }
}

mod discover;
pub(crate) mod io_thread;
pub mod memory;
#[cfg(unix)]
mod mobile;
#[cfg(unix)]
mod os_user;
#[cfg(unix)]
pub(crate) use mobile::mark_reading_thread;

/// Marks a session's reading thread (see `mobile`); nothing to mark where the CLI's stdout is
/// not a [`mobile`] pipe.
#[cfg(not(unix))]
pub(crate) fn mark_reading_thread() {}
pub mod process;

pub use claude_tools_core::ndjson::DEFAULT_MAX_LINE_SIZE;
#[cfg(feature = "install")]
pub(crate) use discover::is_executable;
pub use discover::{CliSearch, find_cli};
pub use memory::{MemoryCli, MemoryTransport};
pub use process::ProcessTransport;
