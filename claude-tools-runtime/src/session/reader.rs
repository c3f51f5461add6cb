//! The reader task: the CLI's stdout, one line at a time, from the first byte.

use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;
use tokio::io::AsyncRead;
use tokio::sync::mpsc;

use super::run::CliState;
use super::{Shared, ending, handlers, lock};
use crate::error::{Error, Result};
use crate::message::Message;
use crate::protocol::{Incoming, ParseError};
use crate::transport::{ExitInfo, LineReader, ProcessHandle};

/// How long a CLI whose stdout has closed may take to exit before it is killed.
const EXIT_GRACE: Duration = Duration::from_secs(5);
/// How long a killed CLI may take to report its end (the process transport's is bounded by its
/// `SIGTERM` grace and stderr grace, a few seconds).
const KILL_WAIT: Duration = Duration::from_secs(10);

pub(super) async fn read_loop(
    shared: Arc<Shared>,
    stdout: Pin<Box<dyn AsyncRead + Send>>,
    mut process: Box<dyn ProcessHandle>,
    line_cap: usize,
    messages: mpsc::UnboundedSender<Result<Message>>,
) {
    let mut lines = LineReader::with_max_line_size(stdout, line_cap);
    // One shutdown future for the whole loop: making one per line would register and
    // deregister a waiter on the token for every line.
    let shutdown_token = shared.shutdown.clone();
    let mut shutdown = std::pin::pin!(shutdown_token.cancelled());
    loop {
        // Answers to requests already read wait while more are buffered, then go out in one
        // write before the reader waits for input.
        if lines.has_buffered_input() {
            shared.out.cork();
        } else {
            shared.out.uncork();
        }
        let line = tokio::select! {
            biased;
            _ = &mut shutdown => break,
            line = lines.next_line() => line,
        };
        match line {
            Ok(Some(line)) => handle_line(&shared, line, &messages),
            Ok(None) => break,
            // The reader skips the rest of an oversized line; the session goes on.
            Err(error @ Error::LineTooLong { .. }) => {
                tracing::warn!(%error, "skipping an oversized line from the CLI");
                let _ = messages.send(Err(error));
            }
            Err(error) => {
                let _ = messages.send(Err(error));
                break;
            }
        }
    }
    finish(&shared, &mut *process, &messages).await;
}

fn handle_line(
    shared: &Arc<Shared>,
    line: &[u8],
    messages: &mpsc::UnboundedSender<Result<Message>>,
) {
    // The CLI (or a wrapper around it) may print debug text on stdout: skip what is not JSON.
    if line.iter().find(|b| !b.is_ascii_whitespace()) != Some(&b'{') {
        tracing::debug!(line = %String::from_utf8_lossy(&line[..line.len().min(200)]), "skipping a non-JSON line");
        return;
    }
    match Incoming::parse(line) {
        Ok(Incoming::Request { request_id, body }) => {
            handlers::serve(shared, request_id, body);
        }
        Ok(Incoming::Response {
            request_id,
            outcome,
        }) => match lock(&shared.pending).remove(&request_id) {
            Some(waiter) => {
                let _ = waiter.send(outcome);
            }
            None => {
                tracing::debug!(%request_id, "an answer to no pending request (cancelled or acknowledged)")
            }
        },
        Ok(Incoming::Cancel { request_id }) => {
            // Cancelled requests get no answer at all.
            if let Some(inflight) = lock(&shared.inflight).remove(&*request_id) {
                if let Some(token) = &inflight.cancellation {
                    token.cancel();
                }
                inflight.task.abort();
            }
        }
        Ok(Incoming::KeepAlive) => {}
        Ok(Incoming::HostOnly(frame)) => {
            let state = frame
                .get("state")
                .and_then(Value::as_str)
                .and_then(CliState::parse);
            let subtype = frame.get("subtype").and_then(Value::as_str);
            if let (Some("session_state_changed"), Some(state)) = (subtype, state) {
                shared.progress.send_modify(|p| p.state = Some(state));
            }
        }
        Ok(Incoming::Message(value)) => {
            let is_result = value.get("type").and_then(Value::as_str) == Some("result");
            let _ = messages.send(Ok(Message::from_value(value)));
            if is_result {
                shared.progress.send_modify(|p| p.results += 1);
            }
        }
        Err(ParseError::Json(source)) => {
            let _ = messages.send(Err(Error::json(line, source)));
        }
        Err(ParseError::Protocol(problem)) => {
            let _ = messages.send(Err(Error::Protocol { message: problem }));
        }
    }
}

/// stdout has ended (or the session was shut down): reap the process, publish how it ended,
/// release every waiter, cancel every handler, and report the exit in the stream if it cut
/// something short. Every wait here is bounded.
async fn finish(
    shared: &Arc<Shared>,
    process: &mut dyn ProcessHandle,
    messages: &mpsc::UnboundedSender<Result<Message>>,
) {
    let closed_by_host = shared
        .closed_by_host
        .load(std::sync::atomic::Ordering::Acquire);
    shared.progress.send_modify(|p| p.eof = true);
    shared.end_input();
    let exit = reap(shared, process).await;
    // Stored even with no receiver yet: whoever asks later (`disconnect`, a request, the
    // stream's exit status) reads it from here.
    shared.exit.send_replace(Some(exit.clone()));
    lock(&shared.pending).clear();
    // Handlers see their cancellation token fire before their tasks are dropped.
    for router in shared.routers.values() {
        router.cancel_all();
    }
    for (_, inflight) in lock(&shared.inflight).drain() {
        if let Some(token) = &inflight.cancellation {
            token.cancel();
        }
        inflight.task.abort();
    }
    let progress = *shared.progress.borrow();
    let cut_short =
        progress.prompts > progress.results || (progress.prompts == 0 && !closed_by_host);
    if cut_short && !shared.shutdown.is_cancelled() {
        let _ = messages.send(Err(ending::exited(exit)));
    }
}

/// Waits for the process, killing it when it does not exit within [`EXIT_GRACE`] (or at once
/// when the session was shut down). A process that does not report its end within
/// [`KILL_WAIT`] of the kill is given up on, with what its stderr said.
async fn reap(shared: &Shared, process: &mut dyn ProcessHandle) -> ExitInfo {
    let waited = tokio::select! {
        exit = process.wait() => Some(exit),
        _ = shared.shutdown.cancelled() => None,
        _ = tokio::time::sleep(EXIT_GRACE) => None,
    };
    if let Some(exit) = waited {
        return exit;
    }
    process.kill();
    match tokio::time::timeout(KILL_WAIT, process.wait()).await {
        Ok(exit) => exit,
        Err(_) => {
            tracing::warn!("the Claude Code CLI did not end {KILL_WAIT:?} after it was killed");
            ExitInfo {
                stderr_tail: process.stderr_tail(),
                ..ExitInfo::default()
            }
        }
    }
}
