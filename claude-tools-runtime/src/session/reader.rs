//! The reader task: the CLI's stdout, one line at a time, from the first byte.
//!
//! The reader polls each request of the CLI once, inline (most are answered right there). If
//! the host's code blocks the thread in that poll, the [`watchdog`](super::watchdog) thread
//! hands the reader's state (its line buffer, the process, the message queue) to a new reader
//! task after 5 to 10 ms, so other requests are still read and answered on another worker; the
//! old task answers its request when the poll returns and ends. This needs a worker to spare: on
//! a multi-thread runtime with two workers or more it holds while one of them is free. On a
//! current-thread runtime, or a multi-thread one with a single worker, there is no other thread
//! to read on: a handler that blocks its thread stalls the session (and everything else on that
//! runtime) until it returns; nothing is lost, the session reads on after it.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;
use tokio::io::AsyncRead;

use super::handlers::FirstPoll;
use super::queue::MessageSender;
use super::reader_state::Reader;
use super::run_end::CliState;
use super::watchdog::Baton;
use super::{SessionCore, ending, handlers, lock};
use crate::error::{Error, RequestRef};
use crate::message::Message;
use crate::protocol::{self, ControlFailure, Fault, Found, Incoming, ParseError};
use crate::transport::{ExitInfo, ProcessHandle};
use claude_tools_core::ndjson::{LineReader, ReadError};

/// How long a CLI whose stdout has closed may take to exit before it is killed.
const EXIT_GRACE: Duration = Duration::from_secs(5);
/// How long a killed CLI may take to report its end (the process transport's is bounded by its
/// `SIGTERM` grace and stderr grace, a few seconds).
const KILL_WAIT: Duration = Duration::from_secs(10);

pub(super) async fn read_loop(
    shared: Arc<SessionCore>,
    stdout: Pin<Box<dyn AsyncRead + Send>>,
    process: Box<dyn ProcessHandle>,
    line_cap: usize,
    messages: MessageSender,
) {
    let reader = Reader {
        lines: LineReader::with_max_line_size(stdout, line_cap),
        process,
        messages,
    };
    // Handing over needs another worker to read on while the reader's thread is blocked.
    let runtime = tokio::runtime::Handle::current();
    let other_workers = runtime.runtime_flavor() == tokio::runtime::RuntimeFlavor::MultiThread
        && runtime.metrics().num_workers() >= 2;
    let baton = if other_workers {
        Baton::watch(&shared, resume)
    } else {
        None
    };
    run(shared, reader, baton).await;
}

/// How the watchdog resumes a stuck session's reading: [`run`] on with the reader it took, in
/// the task it spawns. (Given to the [`Baton`], so the watchdog need not name this file.)
fn resume(
    shared: Arc<SessionCore>,
    reader: Reader,
    baton: Arc<Baton>,
) -> Pin<Box<dyn Future<Output = ()> + Send>> {
    Box::pin(run(shared, reader, Some(baton)))
}

/// Reads and dispatches lines until stdout ends, the session is shut down, or (with a baton)
/// a first poll blocks long enough for the watchdog to hand the reader to another task.
async fn run(shared: Arc<SessionCore>, mut reader: Reader, baton: Option<Arc<Baton>>) {
    // One shutdown future for the whole loop: making one per line would register and
    // deregister a waiter on the token for every line.
    let shutdown_token = shared.shutdown.clone();
    let mut shutdown = std::pin::pin!(shutdown_token.cancelled());
    loop {
        // Back-pressure: while the application has not read what is queued for it, or the CLI
        // has not read what is queued for its stdin, read nothing more.
        if reader.messages.is_full() {
            shared.out.uncork();
            tokio::select! {
                biased;
                _ = &mut shutdown => break,
                _ = reader.messages.flush() => {}
            }
        }
        // Answers to requests already read wait while more are buffered, then go out in one
        // write before the reader waits for input. (One look at the outbox per line: corking
        // also tells whether it is over its limit.)
        let cork = reader.lines.has_buffered_input();
        if shared.out.set_corked(cork) {
            tokio::select! {
                biased;
                _ = &mut shutdown => break,
                _ = shared.out.wait_for_room() => {}
            }
            // Waiting for room wrote what was held.
            if cork {
                shared.out.cork();
            }
        }
        let line = tokio::select! {
            biased;
            _ = &mut shutdown => break,
            line = reader.lines.next_line() => line,
        };
        let first_poll = match line {
            Ok(Some(line)) => {
                let mut first_poll = None;
                handle_line(&shared, line, &mut reader.messages, &mut first_poll);
                first_poll
            }
            Ok(None) => break,
            // The reader skips the rest of an oversized line; the session goes on. A request
            // on it is still answered, from what its start shows.
            Err(ReadError::LineTooLong { limit, size }) => {
                let found = protocol::scan(reader.lines.dropped_prefix());
                let request = answer_unreadable(&shared, &found, Fault::TooLong { size, limit });
                let error = Error::LineTooLong {
                    limit,
                    size,
                    request,
                };
                tracing::warn!(%error, "skipped an oversized line from the CLI");
                let _ = reader.messages.send(Err(error));
                None
            }
            Err(error) => {
                let _ = reader.messages.send(Err(error.into()));
                break;
            }
        };
        if let Some(request) = first_poll {
            reader = match &baton {
                None => {
                    request.run(&shared);
                    reader
                }
                Some(baton) => {
                    let request = request.detach();
                    baton.park(reader);
                    request.run(&shared);
                    match baton.unpark() {
                        Some(reader) => reader,
                        // Another task reads on; this one only had the answer to send.
                        None => return,
                    }
                }
            };
        }
    }
    if let Some(baton) = &baton {
        baton.end();
    }
    finish(&shared, &mut *reader.process, &mut reader.messages).await;
    // The last items (an exit report) reach the application once it reads, or are dropped
    // with its end of the queue.
    reader.messages.flush().await;
}

/// Dispatches one line; a request of the CLI is left in `first_poll` for the caller to run
/// once the line is no longer borrowed.
fn handle_line<'s, 'l>(
    shared: &'s Arc<SessionCore>,
    line: &'l [u8],
    messages: &mut MessageSender,
    first_poll: &mut Option<FirstPoll<'s, 'l>>,
) {
    // The CLI (or a wrapper around it) may print debug text on stdout: skip what is not JSON.
    if line.iter().find(|b| !b.is_ascii_whitespace()) != Some(&b'{') {
        tracing::debug!(line = %String::from_utf8_lossy(&line[..line.len().min(200)]), "skipping a non-JSON line");
        return;
    }
    match Incoming::parse(line) {
        Ok(Incoming::Request { request_id, body }) => {
            *first_poll = Some(handlers::prepare(shared, request_id, body));
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
        Ok(Incoming::TranscriptMirror(frame)) => match &shared.mirror {
            Some(mirror) => {
                if let Some(report) = mirror.enqueue(frame) {
                    let _ = messages.send(Ok(report.to_message()));
                }
            }
            None => tracing::debug!("a transcript_mirror frame, with no session store: dropped"),
        },
        Ok(Incoming::Message(value)) => {
            let is_result = value.get("type").and_then(Value::as_str) == Some("result");
            let _ = messages.send(Ok(Message::from_value(value)));
            if is_result {
                shared.progress.send_modify(|p| p.results += 1);
                // The turn's lines go to the store now (the stream does not wait for it).
                if let Some(mirror) = &shared.mirror {
                    mirror.flush_soon();
                }
            }
        }
        Err(problem) => {
            let found = protocol::scan(line);
            fail_unreadable_answer(shared, &found, problem.fault());
            let answered = answer_unreadable(shared, &found, problem.fault());
            let error = match problem {
                ParseError::Json(source) => Error::json_in(line, source, answered),
                ParseError::Protocol(message) => Error::Protocol {
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
fn fail_unreadable_answer(shared: &SessionCore, found: &Found, fault: Fault<'_>) {
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
fn answer_unreadable(shared: &SessionCore, found: &Found, fault: Fault<'_>) -> Option<RequestRef> {
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
    shared: &Arc<SessionCore>,
    process: &mut dyn ProcessHandle,
    messages: &mut MessageSender,
) {
    let closed_by_host = shared
        .closed_by_host
        .load(std::sync::atomic::Ordering::Acquire);
    shared.progress.send_modify(|p| p.eof = true);
    shared.end_input();
    let exit = reap(shared, process).await;
    // Every frame has been read: the store gets the last lines (a bounded wait) before the
    // session is over for whoever waits on its exit.
    if let Some(mirror) = &shared.mirror {
        mirror.finish().await;
    }
    // Stored even with no receiver yet: whoever asks later (`disconnect`, a request, the
    // stream's exit status) reads it from here.
    shared.exit.send_replace(Some(exit.clone()));
    lock(&shared.pending).clear();
    // Every handler still running is withdrawn: its token fires, it gets its grace, then it is
    // dropped; none is answered. (Taken out whole, so no lock is held while withdrawing.)
    let withdrawn = std::mem::take(&mut *lock(&shared.inflight));
    for inflight in withdrawn.into_values() {
        inflight.withdraw();
    }
    // Not only the above: an aborted task drops its tool call (which fires the call's token)
    // when the runtime next gets to it; the routers fire every registered call's token now.
    for router in shared.routers.values() {
        router.cancel_all();
    }
    for router in shared.added_routers() {
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
async fn reap(shared: &SessionCore, process: &mut dyn ProcessHandle) -> ExitInfo {
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
