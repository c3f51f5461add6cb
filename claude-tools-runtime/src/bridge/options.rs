//! [`AttachBridgeSessionOptions`]: where to attach, and the host's callbacks.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use crate::message::Message;
use crate::options::PermissionMode;

use super::types::{CloseCode, ControlResponse, ThinkingDisplay};

/// A boxed future a callback answers with.
pub type BoxFuture<T> = Pin<Box<dyn Future<Output = T> + Send + 'static>>;

type Sync1<A, R> = Arc<dyn Fn(A) -> R + Send + Sync>;
/// A callback that answers later: `Ok` or an error message.
type Later<A, T> = Sync1<A, BoxFuture<Result<T, String>>>;
type PermissionResponseFn = Arc<dyn Fn(&ControlResponse) -> bool + Send + Sync>;
type ThinkingFn = Arc<
    dyn Fn(Option<i64>, Option<ThinkingDisplay>) -> BoxFuture<Result<(), String>> + Send + Sync,
>;

/// The host's callbacks. An unset one answers claude.ai as the TypeScript SDK does: "not
/// supported in this context" for `stop_task`, `background_tasks`, `set_permission_mode` and
/// `rename_session`; a plain success for `set_model` and `set_max_thinking_tokens`.
#[derive(Clone, Default)]
pub(crate) struct Callbacks {
    pub(crate) inbound_message: Option<Sync1<Message, ()>>,
    pub(crate) permission_response: Option<PermissionResponseFn>,
    pub(crate) interrupt: Option<Arc<dyn Fn() + Send + Sync>>,
    pub(crate) stop_task: Option<Later<String, ()>>,
    pub(crate) background_tasks: Option<Later<Option<String>, bool>>,
    pub(crate) set_model: Option<Later<Option<String>, Vec<String>>>,
    pub(crate) set_max_thinking_tokens: Option<ThinkingFn>,
    pub(crate) set_permission_mode: Option<Sync1<PermissionMode, Result<(), String>>>,
    pub(crate) rename_session: Option<Sync1<String, Result<(), String>>>,
    pub(crate) close: Option<Sync1<CloseCode, ()>>,
}

/// Where and how [`attach_bridge_session`](super::attach_bridge_session) attaches, and the
/// host's callbacks (TypeScript's `AttachBridgeSessionOptions`).
///
/// ```
/// use std::time::Duration;
/// use claude_tools::bridge::AttachBridgeSessionOptions;
///
/// let options = AttachBridgeSessionOptions::new("cse_01abc", "worker-jwt", "https://api.anthropic.com")
///     .epoch(7)
///     .heartbeat_interval(Duration::from_secs(20))
///     .on_inbound_message(|message| println!("from claude.ai: {}", message.message_type()))
///     .on_interrupt(|| println!("interrupted"))
///     .on_set_model(|model| async move {
///         println!("model: {model:?}");
///         Ok(Vec::new())
///     })
///     .on_close(|code| eprintln!("transport closed: {}", code.code()));
/// ```
#[derive(Clone)]
#[non_exhaustive]
pub struct AttachBridgeSessionOptions {
    /// The session (`cse_…`).
    pub session_id: String,
    /// The worker JWT ([`RemoteCredentials::worker_jwt`](super::RemoteCredentials::worker_jwt)).
    pub ingress_token: String,
    /// Where the session's worker endpoints live
    /// ([`RemoteCredentials::api_base_url`](super::RemoteCredentials::api_base_url)).
    pub api_base_url: String,
    /// The worker epoch, if known (from `fetch_remote_credentials`, which registers); `None`
    /// registers with `POST …/worker/register` first.
    pub epoch: Option<i64>,
    /// The read stream's high-water mark from a prior handle: the server resumes after it
    /// instead of replaying the whole history. 0 for a fresh attach.
    pub initial_sequence_num: u64,
    /// The heartbeat interval until the server advises one (default 20 s).
    pub heartbeat_interval: Duration,
    /// Forward outbound only: no read stream, no inbound messages, inbound control requests
    /// answered with an error.
    pub outbound_only: bool,
    /// The Claude Code version this host runs turns with, reported as `claude_code_version`
    /// on the `initialize` reply.
    pub claude_code_version: Option<String>,
    /// How long one request to the service may take, and how long the read stream may stay
    /// silent before it is reopened (default 45 s: the service's 15 s keepalives, plus slack).
    pub request_timeout: Duration,
    pub(crate) callbacks: Callbacks,
}

impl std::fmt::Debug for AttachBridgeSessionOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AttachBridgeSessionOptions")
            .field("session_id", &self.session_id)
            .field("ingress_token", &"<redacted>")
            .field("api_base_url", &self.api_base_url)
            .field("epoch", &self.epoch)
            .field("initial_sequence_num", &self.initial_sequence_num)
            .field("heartbeat_interval", &self.heartbeat_interval)
            .field("outbound_only", &self.outbound_only)
            .finish_non_exhaustive()
    }
}

impl AttachBridgeSessionOptions {
    /// Options for `session_id`, with the worker JWT and the base URL of its endpoints.
    pub fn new(
        session_id: impl Into<String>,
        ingress_token: impl Into<String>,
        api_base_url: impl Into<String>,
    ) -> Self {
        AttachBridgeSessionOptions {
            session_id: session_id.into(),
            ingress_token: ingress_token.into(),
            api_base_url: api_base_url.into(),
            epoch: None,
            initial_sequence_num: 0,
            heartbeat_interval: Duration::from_secs(20),
            outbound_only: false,
            claude_code_version: None,
            request_timeout: Duration::from_secs(45),
            callbacks: Callbacks::default(),
        }
    }

    /// Sets the worker epoch.
    pub fn epoch(mut self, epoch: i64) -> Self {
        self.epoch = Some(epoch);
        self
    }

    /// Sets the sequence number to resume the read stream after.
    pub fn initial_sequence_num(mut self, sequence_num: u64) -> Self {
        self.initial_sequence_num = sequence_num;
        self
    }

    /// Sets the first heartbeat interval.
    pub fn heartbeat_interval(mut self, interval: Duration) -> Self {
        self.heartbeat_interval = interval;
        self
    }

    /// Forward outbound only.
    pub fn outbound_only(mut self, outbound_only: bool) -> Self {
        self.outbound_only = outbound_only;
        self
    }

    /// Sets the Claude Code version reported on `initialize`.
    pub fn claude_code_version(mut self, version: impl Into<String>) -> Self {
        self.claude_code_version = Some(version.into());
        self
    }

    /// Sets the timeout of one request (and of the read stream's silence).
    pub fn request_timeout(mut self, timeout: Duration) -> Self {
        self.request_timeout = timeout;
        self
    }

    /// A user message typed on claude.ai. Echoes of this host's own writes and re-deliveries
    /// of messages already forwarded are filtered before it is called.
    pub fn on_inbound_message(mut self, f: impl Fn(Message) + Send + Sync + 'static) -> Self {
        self.callbacks.inbound_message = Some(Arc::new(f));
        self
    }

    /// claude.ai's answer to a prompt sent with `send_control_request`; correlate by
    /// `request_id`. Answer `false` when it is rejected (malformed, forged) so that the prompt
    /// stays pending (and is offered again on the next `initialize`).
    pub fn on_permission_response(
        mut self,
        f: impl Fn(&ControlResponse) -> bool + Send + Sync + 'static,
    ) -> Self {
        self.callbacks.permission_response = Some(Arc::new(f));
        self
    }

    /// `interrupt` from claude.ai (already answered).
    pub fn on_interrupt(mut self, f: impl Fn() + Send + Sync + 'static) -> Self {
        self.callbacks.interrupt = Some(Arc::new(f));
        self
    }

    /// `stop_task` from claude.ai: `Ok` = stopped (also for a task that is gone or finished),
    /// `Err(message)` = an error answer with that message.
    pub fn on_stop_task<F, Fut>(mut self, f: F) -> Self
    where
        F: Fn(String) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<(), String>> + Send + 'static,
    {
        self.callbacks.stop_task = Some(Arc::new(move |task| Box::pin(f(task))));
        self
    }

    /// `background_tasks` from claude.ai (its Ctrl+B): with a tool use id, background that
    /// task and answer whether one was found; without, background every foreground task.
    pub fn on_background_tasks<F, Fut>(mut self, f: F) -> Self
    where
        F: Fn(Option<String>) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<bool, String>> + Send + 'static,
    {
        self.callbacks.background_tasks = Some(Arc::new(move |id| Box::pin(f(id))));
        self
    }

    /// `set_model` from claude.ai (`None`: the default model): `Ok(notices)` (each notice is
    /// shown there as an informational message) or `Err(message)`.
    pub fn on_set_model<F, Fut>(mut self, f: F) -> Self
    where
        F: Fn(Option<String>) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<Vec<String>, String>> + Send + 'static,
    {
        self.callbacks.set_model = Some(Arc::new(move |model| Box::pin(f(model))));
        self
    }

    /// `set_max_thinking_tokens` from claude.ai.
    pub fn on_set_max_thinking_tokens<F, Fut>(mut self, f: F) -> Self
    where
        F: Fn(Option<i64>, Option<ThinkingDisplay>) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<(), String>> + Send + 'static,
    {
        self.callbacks.set_max_thinking_tokens = Some(Arc::new(move |tokens, display| {
            Box::pin(f(tokens, display))
        }));
        self
    }

    /// `set_permission_mode` from claude.ai: `Err(message)` answers an error.
    pub fn on_set_permission_mode(
        mut self,
        f: impl Fn(PermissionMode) -> Result<(), String> + Send + Sync + 'static,
    ) -> Self {
        self.callbacks.set_permission_mode = Some(Arc::new(f));
        self
    }

    /// `rename_session` from claude.ai: `Err(message)` answers an error.
    pub fn on_rename_session(
        mut self,
        f: impl Fn(String) -> Result<(), String> + Send + Sync + 'static,
    ) -> Self {
        self.callbacks.rename_session = Some(Arc::new(f));
        self
    }

    /// The transport died for good (see [`CloseCode`]).
    pub fn on_close(mut self, f: impl Fn(CloseCode) + Send + Sync + 'static) -> Self {
        self.callbacks.close = Some(Arc::new(f));
        self
    }
}
