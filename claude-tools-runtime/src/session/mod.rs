//! The session engine: one CLI process, served concurrently.
//!
//! - [`reader`] reads the CLI's stdout from the first byte, classifies each line once and
//!   dispatches it: answers to the host's requests go to their waiters, each request of the CLI
//!   runs in its own task keyed by `request_id` (so a slow tool never delays anything else), and
//!   messages go to the user's stream through a bounded queue. At its bound the reader stops
//!   reading stdout until the application reads (the CLI is then paused by its own full pipe);
//!   it likewise pauses while the outbox holds more than its bound for a CLI not reading stdin.
//!   A request whose first poll blocks its thread does not stop the reading on a multi-thread
//!   runtime with a worker to spare: the [`watchdog`] thread hands the reader to a new task.
//! - [`handlers`] answers the CLI's requests (`mcp_message`, `can_use_tool`, `hook_callback`).
//! - [`outbox`] is the one way to the CLI's stdin: lines are written straight into the pipe by
//!   whoever answers, queued for a drain task only when the pipe is full.
//! - [`run_end`] decides when a run has ended, so stdin is closed neither too early nor never.

mod ending;
mod handlers;
mod outbox;
mod reader;
pub(crate) mod run_end;
mod watchdog;

use std::collections::{BTreeSet, HashMap, VecDeque};
use std::hash::{BuildHasher, BuildHasherDefault, Hasher};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use serde::Serialize;
use serde_json::Value;
use tokio::sync::{mpsc, oneshot, watch};
use tokio::task::AbortHandle;
use tokio_util::sync::CancellationToken;

use crate::error::{Error, Result};
use crate::hooks::HookCallback;
use crate::message::Message;
use crate::options::{DEFAULT_CONTROL_TIMEOUT, Options};
use crate::permission::CanUseTool;
use crate::protocol::{self, ControlFailure, HostRequest, SdkServers};
use crate::transport::{Connection, ExitInfo};
use claude_tools_core::mcp::{McpRouter, ServerNotification};
use outbox::Outbox;
use run_end::RunProgress;

/// The user's end of the message queue.
pub(crate) type MessageReceiver = mpsc::Receiver<Result<Message>>;

/// The application dropped its end of the message queue.
#[derive(Debug)]
pub(crate) struct QueueClosed;

/// The reader's end of the message queue. [`MessageSender::send`] never waits, since one line
/// may yield a message and an error: what does not fit waits in `overflow`, and the reader
/// delivers it with [`MessageSender::flush`] before it reads the next line. So at most the
/// queue's bound plus one line's worth of messages is held for an application that does not read.
pub(crate) struct MessageSender {
    queue: mpsc::Sender<Result<Message>>,
    overflow: VecDeque<Result<Message>>,
}

impl MessageSender {
    fn new(queue: mpsc::Sender<Result<Message>>) -> Self {
        Self {
            queue,
            overflow: VecDeque::new(),
        }
    }

    /// Queues an item for the application, in order; fails only once it stopped listening.
    pub(crate) fn send(&mut self, item: Result<Message>) -> std::result::Result<(), QueueClosed> {
        if !self.overflow.is_empty() {
            self.overflow.push_back(item);
            return Ok(());
        }
        match self.queue.try_send(item) {
            Ok(()) => Ok(()),
            Err(mpsc::error::TrySendError::Full(item)) => {
                self.overflow.push_back(item);
                Ok(())
            }
            Err(mpsc::error::TrySendError::Closed(_)) => Err(QueueClosed),
        }
    }

    /// Items wait for the application to read.
    pub(crate) fn is_full(&self) -> bool {
        !self.overflow.is_empty()
    }

    /// Waits until every waiting item is in the queue (or the application stopped listening).
    pub(crate) async fn flush(&mut self) {
        while let Some(item) = self.overflow.pop_front() {
            if self.queue.send(item).await.is_err() {
                self.overflow.clear();
                return;
            }
        }
    }
}

/// The CLI's requests being handled under one `request_id`: one, or more when the CLI sent the
/// id again before the first was answered (each is answered; see [`handlers`]).
struct InFlight {
    first: Withdrawable,
    /// Later requests with the same id, in arrival order; empty (no allocation) as a rule.
    duplicates: Vec<Withdrawable>,
}

/// One request being handled in its own task, held so that it can be withdrawn (by the CLI or
/// the session's end).
struct Withdrawable {
    /// Fired when the CLI withdraws the request: the task then gives the callback its
    /// [`CANCEL_GRACE`](claude_tools_core::mcp::CANCEL_GRACE) and writes nothing. `None` for an
    /// `mcp_message`, whose tool call keeps the contract in the router: aborting the task drops
    /// the router's future, which fires the call's own token and starts its grace.
    cancellation: Option<CancellationToken>,
    task: AbortHandle,
}

impl InFlight {
    fn new(first: Withdrawable) -> Self {
        Self {
            first,
            duplicates: Vec::new(),
        }
    }

    /// Takes the entry of task `task` out of the group, if its request was not withdrawn.
    fn take(&mut self, task: tokio::task::Id) -> Taken {
        if self.first.task.id() == task {
            if self.duplicates.is_empty() {
                return Taken::Last;
            }
            self.first = self.duplicates.remove(0);
            return Taken::Some;
        }
        match self.duplicates.iter().position(|h| h.task.id() == task) {
            Some(index) => {
                self.duplicates.remove(index);
                Taken::Some
            }
            None => Taken::None,
        }
    }

    /// The CLI withdrew these requests (or the session ended): every handler's token fires and
    /// none is answered.
    fn withdraw(self) {
        self.first.withdraw();
        for handler in self.duplicates {
            handler.withdraw();
        }
    }
}

/// What [`InFlight::take`] found.
enum Taken {
    /// The task's entry was the group's last: remove the group.
    Last,
    /// The task's entry was taken; others remain.
    Some,
    /// No entry for the task: its request was withdrawn.
    None,
}

impl Withdrawable {
    fn withdraw(self) {
        match self.cancellation {
            Some(token) => token.cancel(),
            None => self.task.abort(),
        }
    }
}

/// Forwards what an in-process server emits on its own (progress notifications,
/// `notifications/tools/list_changed`) to the CLI, as
/// the official TypeScript SDK does: a host→CLI `mcp_message` request, which the CLI merely
/// acknowledges (the acknowledgement matches no waiter and is dropped).
fn server_notifier(
    server: &str,
    out: Arc<Outbox>,
    counter: Arc<AtomicU64>,
    id_salt: u32,
) -> claude_tools_core::mcp::Notifier {
    let server = server.to_string();
    Arc::new(move |message: ServerNotification| {
        let n = counter.fetch_add(1, Ordering::Relaxed);
        let request_id = format!("req_mcp_{n}_{id_salt:08x}");
        let body = HostRequest::McpMessage {
            server_name: &server,
            message: &message,
        };
        out.send_with(|out| protocol::request_line(out, &request_id, &body));
    })
}

/// The in-process servers changed while the session runs.
struct LiveServers {
    /// Servers added by [`SessionCore::add_server`], by name.
    added: HashMap<String, McpRouter>,
    /// The names of the in-process servers the CLI is to serve now.
    served: BTreeSet<String>,
}

impl LiveServers {
    /// The servers `mcp_set_servers` names now (the request replaces the CLI's whole set), taken
    /// out of the lock to be sent.
    fn served_now(&self) -> BTreeSet<String> {
        self.served.clone()
    }
}

/// Hashes a server name for the routers' map with FNV-1a. The map is looked up for every tool
/// call, and SipHash (std's default) made the lookup cost as much as a tenth of the session's
/// own work per call; its resistance to hash flooding buys nothing here, since the host alone
/// decides the keys (a name the CLI sends is only looked up).
struct ServerNameHasher(u64);

impl Default for ServerNameHasher {
    fn default() -> Self {
        // The FNV-1a offset basis.
        Self(0xcbf2_9ce4_8422_2325)
    }
}

impl Hasher for ServerNameHasher {
    fn write(&mut self, bytes: &[u8]) {
        const PRIME: u64 = 0x0000_0100_0000_01b3;
        for byte in bytes {
            self.0 = (self.0 ^ u64::from(*byte)).wrapping_mul(PRIME);
        }
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

type ServerNames = BuildHasherDefault<ServerNameHasher>;

/// Everything the session's tasks share.
pub(crate) struct SessionCore {
    out: Arc<Outbox>,
    /// The host's requests awaiting the CLI's answer, by request id.
    pending: Mutex<HashMap<String, oneshot::Sender<Result<Value, ControlFailure>>>>,
    /// The CLI's requests being handled, by request id.
    inflight: Mutex<HashMap<String, InFlight>>,
    /// The in-process servers given at the start, by name: looked up for every tool call.
    routers: HashMap<String, McpRouter, ServerNames>,
    /// The in-process servers added while the session runs ([`SessionCore::add_server`]), and the
    /// names of every in-process server the CLI is to serve now.
    live_servers: Mutex<LiveServers>,
    notifications: Arc<AtomicU64>,
    can_use_tool: Option<CanUseTool>,
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
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    // A panic while holding these locks cannot leave the maps inconsistent (single inserts and
    // removes), so a poisoned lock is still usable.
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

impl SessionCore {
    /// Starts the reader and writer tasks on an open connection.
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
        let out = Outbox::new(
            Box::pin(ending::StdinWatch {
                inner: writer,
                broken: stdin_broken.clone(),
            }),
            options.input_buffer_cap(),
        );
        let (messages, messages_rx) = mpsc::channel(options.message_queue_cap());
        let id_salt = std::collections::hash_map::RandomState::new()
            .build_hasher()
            .finish() as u32;
        let notifications = Arc::new(AtomicU64::new(1));
        let routers: HashMap<String, McpRouter, ServerNames> = options
            .servers
            .iter()
            .map(|server| {
                let router = McpRouter::new(server.clone()).with_notifier(server_notifier(
                    server.name(),
                    out.clone(),
                    notifications.clone(),
                    id_salt,
                ));
                (server.name().to_string(), router)
            })
            .collect();
        let shared = Arc::new(SessionCore {
            out,
            pending: Mutex::default(),
            inflight: Mutex::default(),
            live_servers: Mutex::new(LiveServers {
                added: HashMap::new(),
                served: routers.keys().cloned().collect(),
            }),
            notifications,
            routers,
            can_use_tool: options.can_use_tool.clone(),
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
        });
        tokio::spawn(outbox::drain(shared.out.clone()));
        tokio::spawn(reader::read_loop(
            shared.clone(),
            reader,
            process,
            options.line_cap(),
            MessageSender::new(messages),
        ));
        (shared, messages_rx)
    }

    /// Writes one frame to the CLI.
    pub(crate) fn write(&self, frame: &Value) {
        self.out.send(&protocol::line(frame));
    }

    /// Writes a user message (one prompt) and counts it, so the run stays open for its result.
    /// `false` (nothing written) when the line cannot reach the CLI; a caller that reports it
    /// fails with [`SessionCore::unreachable_error`].
    ///
    /// Waits while more than the input buffer limit is unwritten (the CLI not reading its stdin),
    /// as a write to a full pipe would: the host's own lines are bounded like the answers.
    #[must_use]
    pub(crate) async fn send_user(&self, message: &Value) -> bool {
        self.out.wait_for_room().await;
        if !self.accepts_input() {
            return false;
        }
        self.progress.send_modify(|p| p.prompts += 1);
        self.write(message);
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

    /// Sends `body` as a request of `subtype` (a [`HostRequest`], or the JSON of
    /// `Client::control_request`) and waits for the CLI's answer.
    pub(crate) async fn request_as<B: Serialize + Sync + ?Sized>(
        &self,
        subtype: &str,
        body: &B,
    ) -> Result<Value> {
        let subtype = subtype.to_string();
        // The wait for room in the CLI's input counts against the control timeout.
        let deadline = tokio::time::Instant::now() + self.control_timeout;
        if tokio::time::timeout_at(deadline, self.out.wait_for_room())
            .await
            .is_err()
        {
            return Err(Error::Timeout {
                subtype,
                timeout: self.control_timeout,
            });
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
                Err(Error::Timeout {
                    subtype,
                    timeout: self.control_timeout,
                })
            }
        }
    }

    /// A handle to the live tool set of in-process server `name`.
    pub(crate) fn tool_server(
        &self,
        name: &str,
    ) -> std::result::Result<
        claude_tools_core::mcp::ToolServerHandle,
        claude_tools_core::mcp::LiveToolError,
    > {
        let served = lock(&self.live_servers).served.contains(name);
        match self.router(name).filter(|_| served) {
            Some(router) => Ok(router.tool_server_handle()),
            None => Err(self.unknown_server(name)),
        }
    }

    /// The router of in-process server `name`: one given at the start, or one added since.
    pub(crate) fn router(&self, name: &str) -> Option<McpRouter> {
        if let Some(router) = self.routers.get(name) {
            return Some(router.clone());
        }
        lock(&self.live_servers).added.get(name).cloned()
    }

    /// The routers of the servers added since the start (to cancel their calls at the end).
    pub(crate) fn added_routers(&self) -> Vec<McpRouter> {
        lock(&self.live_servers).added.values().cloned().collect()
    }

    fn unknown_server(&self, name: &str) -> claude_tools_core::mcp::LiveToolError {
        let mut known: Vec<String> = lock(&self.live_servers).served.iter().cloned().collect();
        known.sort();
        claude_tools_core::mcp::LiveToolError::UnknownServer {
            server: name.to_string(),
            known,
        }
    }

    /// Adds in-process server `server` and asks the CLI to serve it (`mcp_set_servers`, which
    /// names every in-process server the CLI is to keep: the request replaces the whole set).
    pub(crate) async fn add_server(
        &self,
        server: claude_tools_core::tool::ToolServer,
    ) -> Result<claude_tools_core::mcp::ToolServerHandle> {
        let name = server.name().to_string();
        let (router, servers) = {
            let mut live = lock(&self.live_servers);
            if self.routers.contains_key(&name) || live.added.contains_key(&name) {
                return Err(claude_tools_core::mcp::LiveToolError::DuplicateServer {
                    server: name,
                }
                .into());
            }
            let notifier = server_notifier(
                &name,
                self.out.clone(),
                self.notifications.clone(),
                self.id_salt,
            );
            let router = McpRouter::new(server).with_notifier(notifier);
            live.added.insert(name.clone(), router.clone());
            live.served.insert(name.clone());
            (router, live.served_now())
        };
        let request = HostRequest::McpSetServers {
            servers: SdkServers(&servers),
        };
        if let Err(error) = self.request(&request).await {
            // The CLI refused or did not answer: the server is not served, so it is not kept.
            let mut live = lock(&self.live_servers);
            live.added.remove(&name);
            live.served.remove(&name);
            return Err(error);
        }
        Ok(router.tool_server_handle())
    }

    /// Asks the CLI to stop serving in-process server `name` (given at the start or added).
    pub(crate) async fn remove_server(&self, name: &str) -> Result<Value> {
        let servers = {
            let mut live = lock(&self.live_servers);
            if !live.served.remove(name) {
                drop(live);
                return Err(self.unknown_server(name).into());
            }
            // A router given at the start stays (answering nothing the CLI still asks for is
            // harmless); an added one goes, with its calls cancelled.
            if let Some(router) = live.added.remove(name) {
                router.cancel_all();
            }
            live.served_now()
        };
        let request = HostRequest::McpSetServers {
            servers: SdkServers(&servers),
        };
        self.request(&request).await
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn server_names_hash_with_fnv_1a() {
        // The reference vectors of FNV-1a, 64 bits.
        let hash = |bytes: &[u8]| {
            let mut hasher = ServerNameHasher::default();
            hasher.write(bytes);
            hasher.finish()
        };
        assert_eq!(hash(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(hash(b"a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(hash(b"foobar"), 0x8594_4171_f739_67e8);
        let mut routers: HashMap<&str, u8, ServerNames> = HashMap::default();
        routers.insert("calc", 1);
        routers.insert("notes", 2);
        assert_eq!(
            (routers.get("calc"), routers.get("notes"), routers.get("x")),
            (Some(&1), Some(&2), None)
        );
    }
}
