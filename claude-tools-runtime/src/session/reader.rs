//! The reader: the CLI's stdout, one line at a time, from the first byte, on a thread of the
//! session's own.
//!
//! The reading thread runs a current-thread tokio runtime of its own, whose driver holds the
//! CLI's stdout (see `transport::mobile`): nothing of the application's runs on that runtime, so
//! no handler, wherever it blocks, can keep the session from reading. (On the application's
//! multi-thread runtime it could: the worker that last turned the I/O driver runs a handler that
//! blocks after an await, the other workers sleep on a condition variable, and nobody collects
//! I/O readiness or fires timers until the handler returns. The guide's troubleshooting chapter
//! has the experiment.)
//!
//! Each request of the CLI is polled once inline, between two turns of that runtime (so the
//! thread is in no runtime while the host's code runs, and `block_in_place` works there), with
//! the application's runtime entered. If the host's code blocks the thread in that poll, the
//! [`watchdog`](super::watchdog) thread hands the reader's state (its line buffer, the process,
//! the message queue) to a new reading thread after 5 to 10 ms; the old thread answers its
//! request when the poll returns, reports how long it held its thread, and ends. Nothing is
//! lost, and the session's other requests are read and answered meanwhile, whatever the
//! application's runtime (current-thread, or multi-thread with every worker busy).

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
use super::{SessionCore, ending, handlers, held, lock};
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

/// Starts reading the CLI's stdout: on a thread of the session's own, watched by the
/// watchdog; for a CLI played in this process on the application's runtime
/// ([`ProcessHandle::in_process`]), in a task of that runtime, as the CLI's side is.
pub(super) fn start(
    shared: Arc<SessionCore>,
    stdout: Pin<Box<dyn AsyncRead + Send>>,
    process: Box<dyn ProcessHandle>,
    line_cap: usize,
    messages: MessageSender,
) {
    let in_process = process.in_process();
    let reader = Reader {
        lines: LineReader::with_max_line_size(stdout, line_cap),
        process,
        messages,
        shutdown: Box::pin(shared.shutdown.clone().cancelled_owned()),
        dispatch: tracing::dispatcher::get_default(tracing::Dispatch::clone),
    };
    if in_process {
        // Handing over needs another worker to read on while the reader's thread is blocked.
        let runtime = tokio::runtime::Handle::current();
        let other_workers = runtime.runtime_flavor() == tokio::runtime::RuntimeFlavor::MultiThread
            && runtime.metrics().num_workers() >= 2;
        let baton = other_workers
            .then(|| Baton::watch(&shared, resume_in_task))
            .flatten();
        tokio::spawn(read_in_task(shared, reader, baton));
        return;
    }
    let baton = Baton::watch(&shared, resume_on_thread);
    if let Some(reader) = spawn_reading_thread(shared.clone(), reader, baton) {
        // No thread: read in a task, as a session did before it had threads of its own. A
        // handler that blocks its thread then stalls the session until it returns.
        tokio::spawn(read_in_task(shared, reader, None));
    }
}

/// How the watchdog resumes a stuck session's reading: on a new reading thread, with the reader
/// it took. (Given to the [`Baton`], so the watchdog need not name this file.) The reader comes
/// back (`Some`) when no thread can be started.
fn resume_on_thread(shared: Arc<SessionCore>, reader: Reader, baton: Arc<Baton>) -> Option<Reader> {
    spawn_reading_thread(shared, reader, Some(baton))
}

/// How the watchdog resumes a stuck in-process session's reading: in a new task on the
/// application's runtime (spawned from the watchdog's thread, through the runtime's shared
/// queue, so an idle worker takes it).
fn resume_in_task(shared: Arc<SessionCore>, reader: Reader, baton: Arc<Baton>) -> Option<Reader> {
    shared
        .host
        .clone()
        .spawn(read_in_task(shared, reader, Some(baton)));
    None
}

/// Starts a reading thread that reads on with `reader`; gives it back (`Some`) when the thread
/// (or its runtime) cannot be started.
fn spawn_reading_thread(
    shared: Arc<SessionCore>,
    reader: Reader,
    baton: Option<Arc<Baton>>,
) -> Option<Reader> {
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => {
            tracing::warn!(%error, "could not build a session's reading runtime");
            return Some(reader);
        }
    };
    // Handed through a slot, so that a thread that cannot start gives the reader back.
    let handoff = Arc::new(std::sync::Mutex::new(Some(reader)));
    let taken = handoff.clone();
    let started = std::thread::Builder::new()
        .name("claude-tools-session".into())
        .spawn(move || {
            if let Some(reader) = lock(&taken).take() {
                let _subscriber = tracing::dispatcher::set_default(&reader.dispatch.clone());
                read_on_thread(runtime, &shared, reader, baton);
            }
        });
    match started {
        Ok(_) => None,
        Err(error) => {
            tracing::warn!(%error, "could not start a session's reading thread");
            lock(&handoff).take()
        }
    }
}

/// A reading thread's life: turn the runtime until a request needs its first poll, poll it
/// outside the runtime, and so on until stdout ends; then end the session.
fn read_on_thread(
    runtime: tokio::runtime::Runtime,
    shared: &Arc<SessionCore>,
    mut reader: Reader,
    baton: Option<Arc<Baton>>,
) {
    crate::transport::mark_reading_thread();
    while let Some(request) = runtime.block_on(next_request(shared, &mut reader)) {
        match watched_first_poll(shared, request, baton.as_ref(), reader) {
            Some(back) => reader = back,
            // Another thread reads on.
            None => return,
        }
    }
    if let Some(baton) = &baton {
        baton.end();
    }
    runtime.block_on(finish_reading(shared, reader));
}

/// Reading in a task of the application's runtime (an in-process CLI, or no thread could be
/// started): first polls inline, watched when there is a `baton`.
async fn read_in_task(shared: Arc<SessionCore>, mut reader: Reader, baton: Option<Arc<Baton>>) {
    while let Some(request) = next_request(&shared, &mut reader).await {
        match watched_first_poll(&shared, request, baton.as_ref(), reader) {
            Some(back) => reader = back,
            None => return,
        }
    }
    if let Some(baton) = &baton {
        baton.end();
    }
    finish_reading(&shared, reader).await;
}

/// The first poll of `request`, with the reader left in the `baton` meanwhile (for the
/// watchdog to hand on if the poll blocks): the reader back, or `None` when the watchdog gave
/// it to another thread or task (this one only had the answer to send; it says who held it).
fn watched_first_poll(
    shared: &Arc<SessionCore>,
    request: FirstPoll<'_, 'static>,
    baton: Option<&Arc<Baton>>,
    reader: Reader,
) -> Option<Reader> {
    let label = request.label();
    let Some(baton) = baton else {
        first_poll(shared, request, &label);
        return Some(reader);
    };
    baton.park(reader);
    first_poll(shared, request, &label);
    let back = baton.unpark();
    if back.is_none() {
        held::report(
            &label,
            baton.held(),
            "in its first poll, where the session reads",
        );
    }
    back
}

/// The first poll of a request, with the application's runtime entered (where the host's code
/// spawns, sleeps and finds its `Handle::current`).
fn first_poll(shared: &Arc<SessionCore>, request: FirstPoll<'_, 'static>, label: &held::Label) {
    let _host = shared.host.enter();
    request.run(shared, label);
}

/// Reads and dispatches lines until one is a request of the CLI (returned for its first poll,
/// detached from the line buffer), or stdout ends, or the session is shut down (`None`).
async fn next_request<'s>(
    shared: &'s Arc<SessionCore>,
    reader: &mut Reader,
) -> Option<FirstPoll<'s, 'static>> {
    let Reader {
        lines,
        messages,
        shutdown,
        ..
    } = reader;
    loop {
        // Back-pressure: while the application has not read what is queued for it, or the CLI
        // has not read what is queued for its stdin, read nothing more.
        if messages.is_full() {
            shared.out.uncork();
            tokio::select! {
                biased;
                _ = shutdown.as_mut() => return None,
                _ = messages.flush() => {}
            }
        }
        // Answers to requests already read wait while more are buffered, then go out in one
        // write before the reader waits for input. (One look at the outbox per line: corking
        // also tells whether it is over its limit.)
        let cork = lines.has_buffered_input();
        if shared.out.set_corked(cork) {
            tokio::select! {
                biased;
                _ = shutdown.as_mut() => return None,
                _ = shared.out.wait_for_room() => {}
            }
            // Waiting for room wrote what was held.
            if cork {
                shared.out.cork();
            }
        }
        let line = tokio::select! {
            biased;
            _ = shutdown.as_mut() => return None,
            line = lines.next_line() => line,
        };
        match line {
            Ok(Some(line)) => {
                let mut first_poll = None;
                handle_line(shared, line, messages, &mut first_poll);
                if let Some(request) = first_poll {
                    return Some(request.detach());
                }
            }
            Ok(None) => return None,
            // The reader skips the rest of an oversized line; the session goes on. A request
            // on it is still answered, from what its start shows.
            Err(ReadError::LineTooLong { limit, size }) => {
                let found = protocol::scan(lines.dropped_prefix());
                let request = answer_unreadable(shared, &found, Fault::TooLong { size, limit });
                let error = Error::LineTooLong {
                    limit,
                    size,
                    request,
                };
                tracing::warn!(%error, "skipped an oversized line from the CLI");
                let _ = messages.send(Err(error));
            }
            Err(error) => {
                let _ = messages.send(Err(error.into()));
                return None;
            }
        }
    }
}

/// stdout has ended (or the session was shut down): end the session, then hand the last items
/// to the application.
async fn finish_reading(shared: &Arc<SessionCore>, mut reader: Reader) {
    finish(shared, &mut *reader.process, &mut reader.messages).await;
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
            redeliver,
        }) => {
            match lock(&shared.pending).remove(&request_id) {
                Some(waiter) => {
                    let _ = waiter.send(outcome);
                }
                None => {
                    tracing::debug!(%request_id, "an answer to no pending request (cancelled or acknowledged)")
                }
            }
            for (request_id, body) in redeliver {
                handlers::redeliver(shared, request_id, body);
            }
        }
        Ok(Incoming::Cancel { request_id }) => {
            // Withdrawn requests get no answer at all; their handlers get the cancellation
            // contract (token, grace, drop). Unknown or finished ids: nothing to do.
            let withdrawn = lock(&shared.inflight).remove(&*request_id);
            if let Some(inflight) = withdrawn {
                inflight.withdraw();
            }
            // A request the host deferred takes no answer once withdrawn.
            shared.withdraw_deferred(&request_id);
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
            if is_result {
                shared.spans.turn_ended(&value);
            }
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
