//! The CLI's stderr: read line by line to its end, logged, its last lines kept for error
//! reports ([`Tail`]), and passed on to the application's callback in a task of its own.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex, PoisonError};

use tokio::process::ChildStderr;

use super::{EndsAfterExit, StderrLineCallback};
use claude_tools_core::ndjson::{LineReader, ReadError};

/// Lines of stderr kept for error reports.
const TAIL_MAX_LINES: usize = 50;
/// Bytes of stderr kept for error reports.
const TAIL_MAX_BYTES: usize = 8 * 1024;
/// The longest stderr line passed on whole; longer ones are reported as dropped.
const STDERR_MAX_LINE: usize = 64 * 1024;
/// Reads stderr line by line until its end: log, tail, callback.
pub(super) async fn pump_stderr(
    stderr: EndsAfterExit<ChildStderr>,
    tail: Arc<Mutex<Tail>>,
    callback: Option<StderrCallback>,
) {
    let mut lines = LineReader::with_max_line_size(stderr, STDERR_MAX_LINE);
    pump_lines(&mut lines, &tail, callback.as_ref()).await;
    if let Some(callback) = callback {
        callback.finish().await;
    }
}

/// [`pump_stderr`]'s reading, until the end of stderr (or an error reading it).
async fn pump_lines(
    lines: &mut LineReader<EndsAfterExit<ChildStderr>>,
    tail: &Mutex<Tail>,
    callback: Option<&StderrCallback>,
) {
    loop {
        let dropped;
        let line = match lines.next_line().await {
            Ok(Some(bytes)) => String::from_utf8_lossy(bytes),
            Ok(None) => return,
            Err(ReadError::LineTooLong { limit, .. }) => {
                dropped = format!("[a stderr line longer than {limit} bytes was dropped]");
                dropped.as_str().into()
            }
            Err(error) => {
                tracing::debug!(%error, "stopped reading the CLI's stderr");
                return;
            }
        };
        tracing::debug!(target: "claude_tools::cli_stderr", "{line}");
        lock(tail).push(&line);
        if let Some(callback) = callback {
            callback.send(&line).await;
        }
    }
}

/// Lines queued for the application's stderr callback, which runs in a task on the
/// application's runtime: a callback that blocks holds up its own task, never the I/O thread.
/// At most [`CALLBACK_QUEUE`] lines wait; past that the pump waits too (and the CLI, once its
/// stderr pipe is full), as it did when it called the callback itself. At the end of stderr the
/// pump waits for the callback to have seen every line, so the exit report still comes after
/// the last line was passed on (within the reaper's bound on the pump, as before).
pub(super) struct StderrCallback {
    lines: tokio::sync::mpsc::Sender<String>,
    /// Closed once the callback's task has passed on every line.
    done: tokio::sync::oneshot::Receiver<()>,
}

/// Lines of stderr that may wait for a slow callback.
const CALLBACK_QUEUE: usize = 256;

impl StderrCallback {
    /// Starts the callback's task on the current (the application's) runtime.
    pub(super) fn start(callback: StderrLineCallback) -> Self {
        let (lines, mut queued) = tokio::sync::mpsc::channel::<String>(CALLBACK_QUEUE);
        let (finished, done) = tokio::sync::oneshot::channel();
        tokio::spawn(async move {
            while let Some(line) = queued.recv().await {
                let call = std::panic::AssertUnwindSafe(|| callback(&line));
                if std::panic::catch_unwind(call).is_err() {
                    tracing::warn!("the stderr callback panicked");
                }
            }
            drop(finished);
        });
        Self { lines, done }
    }

    async fn send(&self, line: &str) {
        // The callback's task is gone only with its runtime: nothing to pass lines to.
        let _ = self.lines.send(line.to_owned()).await;
    }

    /// Waits until the callback has seen every line sent.
    async fn finish(self) {
        drop(self.lines);
        let _ = self.done.await;
    }
}

pub(super) fn lock(tail: &Mutex<Tail>) -> std::sync::MutexGuard<'_, Tail> {
    tail.lock().unwrap_or_else(PoisonError::into_inner)
}

/// The last lines of stderr, bounded in lines and bytes.
#[derive(Debug, Default)]
pub(super) struct Tail {
    lines: VecDeque<String>,
    bytes: usize,
}

impl Tail {
    fn push(&mut self, line: &str) {
        let mut end = line.len().min(TAIL_MAX_BYTES);
        while !line.is_char_boundary(end) {
            end -= 1;
        }
        self.bytes += end;
        self.lines.push_back(line[..end].to_owned());
        while self.lines.len() > TAIL_MAX_LINES || self.bytes > TAIL_MAX_BYTES {
            match self.lines.pop_front() {
                Some(old) => self.bytes -= old.len(),
                None => break,
            }
        }
    }

    pub(super) fn text(&self) -> String {
        let mut text = String::with_capacity(self.bytes + self.lines.len());
        for (i, line) in self.lines.iter().enumerate() {
            if i > 0 {
                text.push('\n');
            }
            text.push_str(line);
        }
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tail_keeps_the_last_lines_within_bounds() {
        let mut tail = Tail::default();
        for i in 1..=60 {
            tail.push(&format!("line {i}"));
        }
        let expected: Vec<String> = (11..=60).map(|i| format!("line {i}")).collect();
        assert_eq!(tail.text(), expected.join("\n"));

        let mut tail = Tail::default();
        tail.push("first");
        tail.push(&"é".repeat(5000)); // 10,000 bytes: cut to 8 KiB at a char boundary
        assert_eq!(tail.lines.len(), 1);
        assert_eq!(tail.text(), "é".repeat(4096));
        tail.push("last");
        assert_eq!(tail.text(), "last");
    }
}
