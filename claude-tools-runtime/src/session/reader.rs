//! The reader task: the CLI's stdout, one line at a time, from the first byte.

use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;
use tokio::io::AsyncRead;
use tokio::sync::mpsc;

use super::run::CliState;
use super::{Shared, ending, handlers, lock};
use crate::error::{Error, RequestRef, Result};
use crate::message::Message;
use crate::protocol::{self, ControlFailure, Fault, Found, Incoming, ParseError, Problem};
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
            // The reader skips the rest of an oversized line; the session goes on. A request
            // on it is still answered, from what its start shows.
            Err(Error::LineTooLong { limit, size, .. }) => {
                let found = protocol::scan(lines.dropped_prefix());
                let request = answer_unreadable(&shared, &found, Fault::TooLong { size, limit });
                let error = Error::LineTooLong {
                    limit,
                    size,
                    request,
                };
                tracing::warn!(%error, "skipped an oversized line from the CLI");
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
            // Withdrawn requests get no answer at all; their handlers get the cancellation
            // contract (token, grace, drop). Unknown or finished ids: nothing to do.
            let withdrawn = lock(&shared.inflight).remove(&*request_id);
            if let Some(inflight) = withdrawn {
                inflight.withdraw();
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
        Err(ParseError { problem, found }) => {
            fail_unreadable_answer(shared, &found, problem.fault());
            let answered = answer_unreadable(shared, &found, problem.fault());
            let error = match problem {
                Problem::Json(source) => match Error::json(line, source) {
                    Error::Json { line, source, .. } => Error::Json {
                        line,
                        source,
                        request: answered,
                    },
                    other => other,
                },
                Problem::Protocol(message) => Error::Protocol {
                    message,
                    request: answered,
                },
            };
            tracing::warn!(%error, "an unreadable line from the CLI");
            let _ = messages.send(Err(error));
        }
    }
}

/// A `control_response` that could not be read still ends the host's request it answers, at
/// once rather than at its timeout.
fn fail_unreadable_answer(shared: &Shared, found: &Found, fault: Fault<'_>) {
    let Some(request_id) = found.answered_request() else {
        return;
    };
    if let Some(waiter) = lock(&shared.pending).remove(&request_id) {
        let _ = waiter.send(Err(ControlFailure {
            message: format!(
                "the host could not read the CLI's answer: {}",
                fault.describe()
            ),
            code: None,
        }));
    }
}

/// Answers the control request a line that could not be read carried, when its `request_id`
/// could be made out (nothing must wait forever for an answer), and names it for the user.
fn answer_unreadable(shared: &Shared, found: &Found, fault: Fault<'_>) -> Option<RequestRef> {
    let request = found.request()?;
    shared.out.send_with(|out| {
        protocol::write_answer(out, found, fault);
    });
    Some(request)
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
    // Every handler still running is withdrawn: its token fires, it gets its grace, then it is
    // dropped; none is answered.
    let withdrawn: Vec<_> = lock(&shared.inflight)
        .drain()
        .map(|(_, group)| group)
        .collect();
    for inflight in withdrawn {
        inflight.withdraw();
    }
    for router in shared.routers.values() {
        router.cancel_all();
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
