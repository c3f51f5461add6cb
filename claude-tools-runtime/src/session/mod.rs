//! The session engine: one CLI process, served concurrently.
//!
//! - [`reader`] reads the CLI's stdout from the first byte, on a thread of the session's own,
//!   classifies each line once and dispatches it: answers to the host's requests go to their
//!   waiters, each request of the CLI is polled once there and, if not done, runs in its own
//!   task on the application's runtime keyed by `request_id` (so a slow tool never delays
//!   anything else), and messages go to the user's stream through a bounded queue. At its
//!   bound the reader stops reading stdout until the application reads (the CLI is then paused
//!   by its own full pipe); it likewise pauses while the outbox holds more than its bound for a
//!   CLI not reading stdin. A request whose first poll blocks the reading thread does not stop
//!   the reading: the [`watchdog`] thread hands the reader to a new reading thread.
//! - [`held`] names the host's code that held its thread, and says so.
//! - [`queue`] is that bounded queue to the application.
//! - [`handlers`] answers the CLI's requests (`mcp_message`, `can_use_tool`, `hook_callback`);
//!   [`inflight`] holds those being answered, by `request_id`, so they can be withdrawn.
//! - [`servers`] is the live set of in-process servers (given at the start, added, removed).
//! - [`outbox`] is the one way to the CLI's stdin: lines are written straight into the pipe by
//!   whoever answers, queued for a drain task (on the process-wide I/O thread, for a CLI that is a
//!   real process) only when the pipe is full.
//!
//! For a CLI that is a real process, nothing of the session's own runs on the application's
//! runtime, and nothing of the application's runs on the session's threads but first polls
//! (watched, and handed over when they block): so no tool, callback or hook can hold up the
//! session's machinery, however and wherever it blocks. A CLI played on the application's
//! runtime (`MemoryTransport`) is read in a task of that runtime, beside it.
//! - [`run_end`] decides when a run has ended, so stdin is closed neither too early nor never.

mod deferred;
mod ending;
mod handlers;
mod held;
mod inflight;
mod outbox;
mod queue;
mod reader;
mod reader_state;
pub(crate) mod run_end;
mod servers;
mod watchdog;

use std::collections::HashMap;
use std::hash::{BuildHasher, Hasher};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use serde::Serialize;
use serde_json::Value;
use tokio::sync::{mpsc, oneshot, watch};
use tokio_util::sync::CancellationToken;

use crate::elicitation::OnElicitation;
use crate::error::{Error, Result};
use crate::hooks::HookCallback;
use crate::message::UserInput;
use crate::options::{DEFAULT_CONTROL_TIMEOUT, Options};
use crate::permission::CanUseTool;
use crate::protocol::{self, ControlFailure, HostRequest};
use crate::transport::{Connection, ExitInfo};
use claude_tools_core::mcp::McpRouter;
use inflight::InFlight;
use outbox::Outbox;
pub(crate) use queue::MessageReceiver;
use queue::MessageSender;
use run_end::RunProgress;
use servers::{LiveServers, ServerNames, server_notifier};

/// Everything the session's tasks share.
pub(crate) struct SessionCore {
    out: Arc<Outbox>,
    /// The host's requests awaiting the CLI's answer, by request id.
    pending: Mutex<HashMap<String, oneshot::Sender<Result<Value, ControlFailure>>>>,
    /// The CLI's requests being handled, by request id.
    inflight: Mutex<HashMap<String, InFlight>>,
    /// The CLI's requests whose answer the host deferred, by request id ([`deferred`]).
    deferred: Mutex<HashMap<String, deferred::Deferred>>,
    /// The in-process servers given at the start, by name: looked up for every tool call.
    routers: HashMap<String, McpRouter, ServerNames>,
    /// The in-process servers added while the session runs ([`SessionCore::add_server`]), and the
    /// names of every in-process server the CLI is to serve now.
    live_servers: Mutex<LiveServers>,
    /// The settings of the in-process servers given at the start (`Options::mcp_server_settings`),
    /// re-sent with them on every `mcp_set_servers`, which replaces what the CLI holds.
    sdk_settings: std::collections::BTreeMap<String, serde_json::Map<String, Value>>,
    /// Held by each change of the server set (`mcp_set_servers`) from computing the set to the
    /// CLI's answer, so concurrent changes reach the CLI in order, each naming the set the
    /// previous one left.
    server_changes: tokio::sync::Mutex<()>,
    notifications: Arc<AtomicU64>,
    can_use_tool: Option<CanUseTool>,
    on_elicitation: Option<OnElicitation>,
    on_user_dialog: Option<crate::dialog::OnUserDialog>,
    /// Every prompt goes out marked `client_composed` ([`Options::verbatim_prompts`]).
    verbatim_prompts: bool,
    hooks: Vec<HookCallback>,
    next_request: AtomicU64,
    id_salt: u32,
    control_timeout: Duration,
    progress: watch::Sender<RunProgress>,
    /// How the CLI ended, once the reader has reaped it.
    exit: watch::Sender<Option<ExitInfo>>,
    /// The CLI's stdin is closed (by the host, or at the session's end).
    input_closed: AtomicBool,
    /// The host closed the CLI's stdin (as opposed to the session's end closing it).
    closed_by_host: AtomicBool,
    /// A write to the CLI's stdin failed: the CLI no longer reads.
    stdin_broken: CancellationToken,
    shutdown: CancellationToken,
    /// The transcript mirror's writer, with a session store.
    mirror: Option<crate::session_store::mirror::Mirror>,
    /// The application's runtime (the one the session was started on): where the host's code
    /// runs, the requests not answered by their first poll included.
    host: tokio::runtime::Handle,
    /// Fires as soon as the CLI's process has exited, when its transport can tell.
    process_exit: Option<CancellationToken>,
    /// The CLI was found alive after its stdin broke: it closed its stdin and lives on.
    stdin_closed_by_cli: AtomicBool,
    /// The session's spans: its own, its turns' ([`crate::telemetry`]).
    spans: crate::telemetry::SessionSpans,
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    // A panic while holding these locks cannot leave the maps inconsistent (single inserts and
    // removes), so a poisoned lock is still usable.
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

impl SessionCore {
    /// Starts the reading thread and the writer's drain task on an open connection. Must be
    /// called on the application's runtime (where the host's handlers will run).
    /// `hooks` are the callbacks in the order of their `hook_N` ids in the initialize request.
    pub(crate) fn start(
        options: &Options,
        hooks: Vec<HookCallback>,
        connection: Connection,
    ) -> (Arc<SessionCore>, MessageReceiver) {
        let Connection {
            reader,
            writer,
            process,
        } = connection;
        let stdin_broken = CancellationToken::new();
        let process_exit = process.exit_signal();
        let out = Outbox::new(
            Box::pin(ending::StdinWatch {
                inner: writer,
                broken: stdin_broken.clone(),
            }),
            options.input_buffer_cap(),
        );
        let (messages, messages_rx) = mpsc::channel(options.message_queue_cap());
        let mirror = crate::session_store::mirror::MirrorConfig::from_options(options)
            .map(|config| crate::session_store::mirror::Mirror::start(config, &messages));
        let id_salt = std::collections::hash_map::RandomState::new()
            .build_hasher()
            .finish() as u32;
        let notifications = Arc::new(AtomicU64::new(1));
        let routers: HashMap<String, McpRouter, ServerNames> = options
            .servers
            .iter()
            .map(|server| {
                let router = servers::in_process_router(
                    server.clone(),
                    server_notifier(server.name(), out.clone(), notifications.clone(), id_salt),
                    options.on_elicitation.clone(),
                );
                (server.name().to_string(), router)
            })
            .collect();
        let shared = Arc::new(SessionCore {
            out,
            pending: Mutex::default(),
            inflight: Mutex::default(),
            deferred: Mutex::default(),
            live_servers: Mutex::new(LiveServers {
                added: HashMap::new(),
                served: routers.keys().cloned().collect(),
                external: std::collections::BTreeMap::new(),
            }),
            server_changes: tokio::sync::Mutex::new(()),
            sdk_settings: options.sdk_server_settings(),
            notifications,
            routers,
            can_use_tool: options.can_use_tool.clone(),
            on_elicitation: options.on_elicitation.clone(),
            on_user_dialog: options.on_user_dialog.clone(),
            verbatim_prompts: options.stream.verbatim_prompts,
            hooks,
            next_request: AtomicU64::new(1),
            id_salt,
            control_timeout: options.control_timeout.unwrap_or(DEFAULT_CONTROL_TIMEOUT),
            progress: watch::Sender::new(RunProgress::default()),
            exit: watch::Sender::new(None),
            input_closed: AtomicBool::new(false),
            closed_by_host: AtomicBool::new(false),
            stdin_broken,
            shutdown: CancellationToken::new(),
            mirror,
            host: tokio::runtime::Handle::current(),
            process_exit,
            stdin_closed_by_cli: AtomicBool::new(false),
            spans: crate::telemetry::SessionSpans::start(options.model.as_deref()),
        });
        // The drain waits on the CLI's stdin: on the I/O thread for a real process (see
        // `transport::io_thread`), beside the CLI's side for one played on this runtime.
        if process.in_process() {
            tokio::spawn(outbox::drain(shared.out.clone()));
        } else {
            crate::transport::io_thread::spawn(outbox::drain(shared.out.clone()));
        }
        reader::start(
            shared.clone(),
            reader,
            process,
            options.line_cap(),
            MessageSender::new(messages),
        );
        (shared, messages_rx)
    }

    /// Writes one frame to the CLI.
    pub(crate) fn write(&self, frame: &Value) {
        self.out.send(&protocol::line(frame));
    }

    /// Writes a user message (one prompt) and counts it, so the run stays open for its result
    /// (one that starts no turn, [`UserInput::without_turn`], gets a result too from the CLI
    /// 2.1.332: empty, with no turn).
    /// `false` (nothing written) when the line cannot reach the CLI; a caller that reports it
    /// fails with [`SessionCore::unreachable_error`].
    ///
    /// Waits while more than the input buffer limit is unwritten (the CLI not reading its stdin),
    /// as a write to a full pipe would: the host's own lines are bounded like the answers.
    #[must_use]
    pub(crate) async fn send_user(&self, input: &UserInput, session_id: &str) -> bool {
        self.out.wait_for_room().await;
        if !self.accepts_input() {
            return false;
        }
        self.progress.send_modify(|p| p.prompts += 1);
        self.spans.turn_started();
        let composed = self.verbatim_prompts || input.is_client_composed();
        self.write(&input.to_frame(session_id, composed));
        true
    }

    /// Closes the CLI's stdin (once); the CLI then finishes and exits.
    pub(crate) fn close_input(&self) {
        self.closed_by_host.store(true, Ordering::Release);
        self.end_input();
    }

    /// Closes the CLI's stdin at the session's end (not the host's doing).
    fn end_input(&self) {
        if !self.input_closed.swap(true, Ordering::AcqRel) {
            self.out.close();
        }
    }

    /// Stops everything: in-flight handlers are cancelled and the process is killed.
    pub(crate) fn shutdown(&self) {
        self.close_input();
        self.shutdown.cancel();
    }

    /// Sends a request to the CLI and waits for its answer.
    pub(crate) async fn request(&self, request: &HostRequest<'_>) -> Result<Value> {
        self.request_as(request.subtype(), request).await
    }

    /// Sends one of the typed controls and types the answer ([`crate::control::receipt`]).
    pub(crate) async fn control<T: serde::de::DeserializeOwned>(
        &self,
        request: HostRequest<'_>,
    ) -> Result<T> {
        let answer = self.request(&request).await?;
        crate::control::receipt(request.subtype(), answer)
    }

    /// Sends one of the typed controls whose answer says nothing (`{}` or no `response`).
    pub(crate) async fn control_ack(&self, request: HostRequest<'_>) -> Result<()> {
        self.request(&request).await.map(drop)
    }

    /// Sends `body` as a request of `subtype` (a [`HostRequest`], or the JSON of
    /// `Controls::control_request`) and waits for the CLI's answer.
    pub(crate) async fn request_as<B: Serialize + Sync + ?Sized>(
        &self,
        subtype: &str,
        body: &B,
    ) -> Result<Value> {
        self.request_within(subtype, body, self.control_timeout)
            .await
    }

    /// [`request`](Self::request) with a time limit of its own instead of the control
    /// timeout (the `initialize` exchange's, [`Options::initialize_timeout`](crate::options::Options::initialize_timeout)).
    pub(crate) async fn request_with_timeout(
        &self,
        request: &HostRequest<'_>,
        timeout: Duration,
    ) -> Result<Value> {
        self.request_within(request.subtype(), request, timeout)
            .await
    }

    /// Sends `body` as a request of `subtype` and waits at most `timeout` for the answer.
    async fn request_within<B: Serialize + Sync + ?Sized>(
        &self,
        subtype: &str,
        body: &B,
        timeout: Duration,
    ) -> Result<Value> {
        let subtype = subtype.to_string();
        // The wait for room in the CLI's input counts against the timeout.
        let deadline = tokio::time::Instant::now() + timeout;
        if tokio::time::timeout_at(deadline, self.out.wait_for_room())
            .await
            .is_err()
        {
            return Err(Error::Timeout { subtype, timeout });
        }
        if !self.accepts_input() {
            return Err(self.unreachable_error().await);
        }
        let n = self.next_request.fetch_add(1, Ordering::Relaxed);
        let request_id = format!("req_{n}_{:08x}", self.id_salt);
        let (answer_tx, answer_rx) = oneshot::channel();
        lock(&self.pending).insert(request_id.clone(), answer_tx);
        self.out
            .send_with(|out| protocol::request_line(out, &request_id, body));
        let answer = tokio::time::timeout_at(deadline, answer_rx);
        // The CLI no longer reading (this request's write or any later one failed) ends the
        // wait at once: no answer can come.
        let broken = self.stdin_broken.cancelled();
        let answer = tokio::select! {
            biased;
            answer = answer => answer,
            () = broken => {
                lock(&self.pending).remove(&request_id);
                return Err(self.unreachable_error().await);
            }
        };
        match answer {
            Ok(Ok(Ok(payload))) => Ok(payload),
            Ok(Ok(Err(failure))) => Err(Error::Control {
                subtype,
                message: failure.message,
                code: failure.code,
            }),
            Ok(Err(_)) => Err(self.gone_error()),
            Err(_) => {
                lock(&self.pending).remove(&request_id);
                self.out
                    .send_with(|out| protocol::cancel_line(out, &request_id));
                Err(Error::Timeout { subtype, timeout })
            }
        }
    }

    /// A receiver of the run's progress.
    pub(crate) fn progress(&self) -> watch::Receiver<RunProgress> {
        self.progress.subscribe()
    }

    /// How the process ended, if it has (and the session has reaped it).
    pub(crate) fn exit_info(&self) -> Option<ExitInfo> {
        self.exit.borrow().clone()
    }

    /// Waits for the process to end and returns how it ended. The reader publishes the exit
    /// once stdout has ended, waiting a bounded time for the process after that (killing it
    /// when it does not exit), so this wait is as long as the CLI runs and no longer.
    pub(crate) async fn wait_exit(&self) -> ExitInfo {
        let mut exit = self.exit.subscribe();
        match exit.wait_for(Option::is_some).await {
            Ok(info) => info.clone().unwrap_or_default(),
            // The sender lives in `self`: it cannot be gone.
            Err(_) => ExitInfo::default(),
        }
    }
}
