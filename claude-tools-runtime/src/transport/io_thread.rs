//! The process-wide I/O thread: a current-thread tokio runtime on a thread of its own, which
//! never runs the host's code. The CLI's process is spawned there (so its stdin and stderr pipes,
//! its reaping and its timers live on that thread's driver), and every session's stdin drain task
//! runs there.
//!
//! Why a thread of its own: on tokio's multi-thread runtime, I/O readiness and timers are
//! collected only by the worker that parks on the driver. When that worker then runs a task
//! that blocks its thread (a tool that blocks after its first `.await`), the other workers sleep
//! on a condition variable and nobody turns the driver until the blocked task returns: every
//! pipe, every timer of the runtime stalls (the guide's troubleshooting chapter has the
//! experiment). A driver turned by a thread that runs nothing of the host's cannot be held up
//! that way.

use std::sync::OnceLock;

use tokio::runtime::Handle;

/// The handle of the I/O thread's runtime, started on first use; `None` when the thread or its
/// runtime could not be started (the caller then uses the current runtime, as before).
pub(crate) fn handle() -> Option<&'static Handle> {
    static IO: OnceLock<Option<Handle>> = OnceLock::new();
    IO.get_or_init(start).as_ref()
}

fn start() -> Option<Handle> {
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .thread_name("claude-tools-io")
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => {
            tracing::warn!(%error, "could not build the claude-tools I/O runtime; the CLI's pipes stay on the application's runtime");
            return None;
        }
    };
    let handle = runtime.handle().clone();
    let started = std::thread::Builder::new()
        .name("claude-tools-io".into())
        // The runtime lives as long as the process: its thread parks on the driver forever.
        .spawn(move || runtime.block_on(std::future::pending::<()>()));
    match started {
        Ok(_) => Some(handle),
        Err(error) => {
            tracing::warn!(%error, "could not start the claude-tools I/O thread; the CLI's pipes stay on the application's runtime");
            None
        }
    }
}

/// Runs `f` with the I/O thread's runtime as the current one (where `tokio::spawn`, timers and
/// new pipes go), or with the caller's when the I/O thread could not be started.
pub(crate) fn within<T>(f: impl FnOnce() -> T) -> T {
    match handle() {
        Some(io) => {
            let _entered = io.enter();
            f()
        }
        None => f(),
    }
}

/// Spawns `task` on the I/O thread (or on the current runtime when there is none).
pub(crate) fn spawn<F>(task: F) -> tokio::task::JoinHandle<F::Output>
where
    F: std::future::Future + Send + 'static,
    F::Output: Send + 'static,
{
    match handle() {
        Some(io) => io.spawn(task),
        None => tokio::spawn(task),
    }
}
