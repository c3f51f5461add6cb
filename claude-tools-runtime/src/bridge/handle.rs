//! [`attach_bridge_session`] and the [`BridgeSessionHandle`] it answers.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use serde_json::{Map, Value, json};
use tokio::sync::Notify;
use tokio_util::sync::CancellationToken;

use crate::message::Message;

use super::BridgeError;
use super::http;
use super::options::AttachBridgeSessionOptions;
use super::sessions::is_valid_session_id;
use super::shared::{Shared, State, Transport};
use super::transport;
use super::types::{ControlRequest, ControlRequestBody, ControlResponse, DeliveryStatus};
use crate::message::SessionState;

/// Attaches this process to a Remote Control session: registers the worker when no epoch is
/// given, then initialises it and opens the read stream in the background (writes made before
/// that are queued). TypeScript's `attachBridgeSession`. Must be called within a tokio runtime.
///
/// Errors: an invalid session id (`^[a-zA-Z0-9_-]+$`, checked before any request), no HTTP
/// client, or a failed worker registration.
///
/// ```no_run
/// # async fn demo(credentials: claude_tools::bridge::RemoteCredentials) -> Result<(), claude_tools::bridge::BridgeError> {
/// use claude_tools::bridge::{AttachBridgeSessionOptions, SessionState, attach_bridge_session};
///
/// let handle = attach_bridge_session(
///     AttachBridgeSessionOptions::new("cse_01abc", credentials.worker_jwt, credentials.api_base_url)
///         .epoch(credentials.worker_epoch)
///         .on_inbound_message(|message| println!("typed on claude.ai: {message:?}")),
/// )
/// .await?;
/// handle.report_state(SessionState::Running);
/// handle.send_result();
/// handle.flush().await;
/// handle.close();
/// # Ok(()) }
/// ```
pub async fn attach_bridge_session(
    options: AttachBridgeSessionOptions,
) -> Result<BridgeSessionHandle, BridgeError> {
    if !is_valid_session_id(&options.session_id) {
        return Err(BridgeError::InvalidSessionId(options.session_id));
    }
    let client = http::new_client()?;
    let session_url = session_url(&options.api_base_url, &options.session_id);
    let epoch = match options.epoch {
        Some(epoch) => epoch,
        None => transport::register_worker(&client, &session_url, &options.ingress_token).await?,
    };
    let shared = Arc::new(Shared {
        session_id: options.session_id.clone(),
        client,
        callbacks: options.callbacks,
        outbound_only: options.outbound_only,
        claude_code_version: options.claude_code_version,
        heartbeat_seed: options.heartbeat_interval,
        request_timeout: options.request_timeout,
        state: std::sync::Mutex::new(State::default()),
        wake_writer: Notify::new(),
        progress: Notify::new(),
        sequence_num: AtomicU64::new(options.initial_sequence_num),
        connected: AtomicBool::new(false),
        closed: AtomicBool::new(false),
    });
    let handle = BridgeSessionHandle {
        shared,
        generations: Arc::new(AtomicU64::new(0)),
    };
    handle.start(options.ingress_token, session_url, epoch);
    Ok(handle)
}

fn session_url(api_base_url: &str, session_id: &str) -> String {
    format!(
        "{}/v1/code/sessions/{session_id}",
        api_base_url.trim_end_matches('/')
    )
}

/// One attached session (TypeScript's `BridgeSessionHandle`). Writes never block: they are
/// queued and sent in order by the transport; [`flush`](Self::flush) waits for them. Cloning
/// gives another handle to the same session.
#[derive(Clone)]
pub struct BridgeSessionHandle {
    shared: Arc<Shared>,
    generations: Arc<AtomicU64>,
}

impl std::fmt::Debug for BridgeSessionHandle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BridgeSessionHandle")
            .field("session_id", &self.shared.session_id)
            .field("epoch", &self.epoch())
            .field("sequence_num", &self.sequence_num())
            .field("connected", &self.is_connected())
            .finish()
    }
}

impl BridgeSessionHandle {
    fn start(&self, token: String, session_url: String, epoch: i64) {
        let transport = Transport {
            generation: self.generations.fetch_add(1, Ordering::SeqCst) + 1,
            token,
            session_url,
            epoch,
            cancel: CancellationToken::new(),
        };
        {
            let mut state = self.shared.lock();
            if let Some(old) = state.transport.replace(transport.clone()) {
                old.cancel.cancel();
            }
            state.dead = false;
        }
        tokio::spawn(transport::run(self.shared.clone(), transport));
    }

    fn closed(&self) -> bool {
        self.shared.closed.load(Ordering::SeqCst)
    }

    /// The session's id.
    pub fn session_id(&self) -> &str {
        &self.shared.session_id
    }

    /// The read stream's high-water mark. Persist it and pass it back as
    /// [`AttachBridgeSessionOptions::initial_sequence_num`] on re-attach so the server resumes
    /// instead of replaying the whole history.
    pub fn sequence_num(&self) -> u64 {
        self.shared.sequence_num.load(Ordering::SeqCst)
    }

    /// The worker epoch the current transport writes as.
    pub fn epoch(&self) -> Option<i64> {
        self.shared.lock().transport.as_ref().map(|t| t.epoch)
    }

    /// Whether the write path is ready (the worker is initialised and the transport alive).
    pub fn is_connected(&self) -> bool {
        self.shared.connected.load(Ordering::SeqCst)
    }

    /// Writes one message (`session_id` is set). A message whose `uuid` was written before is
    /// not written again.
    pub fn write(&self, message: &Message) {
        self.write_value(message.to_value());
    }

    /// [`write`](Self::write) for a message as JSON (a type this crate does not model).
    pub fn write_value(&self, message: Value) {
        if self.closed() {
            return;
        }
        if let Some(uuid) = message.get("uuid").and_then(Value::as_str) {
            let mut state = self.shared.lock();
            if state.written.contains(uuid) {
                return;
            }
            state.written.add(uuid);
        }
        self.shared.enqueue(message);
    }

    /// Signals the end of a turn: claude.ai stops its "working" spinner.
    pub fn send_result(&self) {
        if self.closed() {
            return;
        }
        self.shared.enqueue(json!({
            "type": "result",
            "duration_ms": 0, "duration_api_ms": 0, "total_cost_usd": 0,
            "usage": {
                "output_tokens_details": {"thinking_tokens": 0},
                "input_tokens": 0, "cache_creation_input_tokens": 0,
                "cache_read_input_tokens": 0, "output_tokens": 0,
                "server_tool_use": {"web_search_requests": 0, "web_fetch_requests": 0},
                "service_tier": "standard",
                "cache_creation": {"ephemeral_1h_input_tokens": 0, "ephemeral_5m_input_tokens": 0},
                "inference_geo": "", "iterations": [], "speed": "standard", "fallback_credit": null,
            },
            "modelUsage": {}, "permission_denials": [],
            "subtype": "success", "is_error": false, "num_turns": 0, "result": "", "stop_reason": null,
        }));
    }

    /// Forwards a prompt (`can_use_tool`) to claude.ai; its answer comes to
    /// [`AttachBridgeSessionOptions::on_permission_response`]. Until answered, the prompt is
    /// offered again to every client that (re)initialises.
    pub fn send_control_request(&self, request: &ControlRequest) {
        if self.closed() {
            return;
        }
        let frame = request.to_value();
        let is_prompt = match &request.request {
            ControlRequestBody::CanUseTool(_) => true,
            _ => request.subtype() == "request_user_dialog",
        };
        if is_prompt {
            let mut state = self.shared.lock();
            state
                .pending_prompts
                .retain(|(id, _)| *id != request.request_id);
            state
                .pending_prompts
                .push((request.request_id.clone(), frame.clone()));
        }
        self.shared.enqueue(frame);
    }

    /// Forwards a control response (the prompt it answers is no longer pending).
    pub fn send_control_response(&self, response: &ControlResponse) {
        self.shared
            .lock()
            .pending_prompts
            .retain(|(id, _)| *id != response.request_id);
        if self.closed() {
            return;
        }
        self.shared.enqueue(response.to_value());
    }

    /// Tells claude.ai to dismiss a pending prompt (the turn was aborted locally).
    pub fn send_control_cancel_request(&self, request_id: &str) {
        self.shared
            .lock()
            .pending_prompts
            .retain(|(id, _)| id != request_id);
        if self.closed() {
            return;
        }
        self.shared
            .enqueue(json!({"type": "control_cancel_request", "request_id": request_id}));
    }

    /// Reports the session's state (`PUT /worker`): `Running` when a turn starts,
    /// `RequiresAction` on a prompt, `Idle` when it ends (the states of the CLI's own
    /// `session_state_changed`; TypeScript's bridge `SessionState` is the same union).
    pub fn report_state(&self, state: SessionState) {
        let mut body = Map::new();
        body.insert("worker_status".into(), Value::from(state.as_str()));
        body.insert("requires_action_details".into(), Value::Null);
        self.shared.put_worker(body);
    }

    /// Reports metadata shown on claude.ai (branch, directory…) (`PUT /worker`
    /// `external_metadata`).
    pub fn report_metadata(&self, metadata: Map<String, Value>) {
        let mut body = Map::new();
        body.insert("external_metadata".into(), Value::Object(metadata));
        self.shared.put_worker(body);
    }

    /// Reports an inbound event's progress (`POST /worker/events/delivery`); `received` is
    /// reported by the bridge itself.
    pub fn report_delivery(&self, event_id: &str, status: DeliveryStatus) {
        self.shared.deliver(event_id, status.as_str());
    }

    /// Waits until every write made so far is accepted by the service, or until the transport
    /// dies or the handle is closed (then the writes are kept for
    /// [`reconnect_transport`](Self::reconnect_transport)).
    pub async fn flush(&self) {
        loop {
            let progress = self.shared.progress.notified();
            {
                let state = self.shared.lock();
                if state.outbound.is_empty() || state.dead || self.closed() {
                    return;
                }
            }
            self.shared.wake_writer.notify_one();
            progress.await;
        }
    }

    /// Swaps the transport in place with a fresh JWT (and epoch): the read stream resumes from
    /// [`sequence_num`](Self::sequence_num), and the writes not yet delivered, including those
    /// made after the transport died, go out on the new one. `epoch: None` reuses the current
    /// epoch (a token refresh); after a 4090 pass a fresh one from a new `/bridge` call.
    ///
    /// An error (the worker registration failed) closes the handle and drops the writes.
    pub async fn reconnect_transport(
        &self,
        ingress_token: &str,
        api_base_url: &str,
        epoch: Option<i64>,
    ) -> Result<(), BridgeError> {
        if self.closed() {
            return Ok(());
        }
        let session_url = session_url(api_base_url, &self.shared.session_id);
        let epoch = match epoch.or_else(|| self.epoch()) {
            Some(epoch) => epoch,
            None => {
                match transport::register_worker(&self.shared.client, &session_url, ingress_token)
                    .await
                {
                    Ok(epoch) => epoch,
                    Err(error) => {
                        self.close();
                        return Err(error);
                    }
                }
            }
        };
        self.shared.connected.store(false, Ordering::SeqCst);
        self.start(ingress_token.to_owned(), session_url, epoch);
        Ok(())
    }

    /// Closes the session: stops the transport, tells the service this worker disconnected,
    /// and drops undelivered writes. Nothing is written after it.
    pub fn close(&self) {
        if self.shared.closed.swap(true, Ordering::SeqCst) {
            return;
        }
        self.shared.connected.store(false, Ordering::SeqCst);
        let transport = {
            let mut state = self.shared.lock();
            state.outbound.clear();
            state.worker_puts.clear();
            state.deliveries.clear();
            let alive = !state.dead;
            state.dead = true;
            state.transport.clone().filter(|_| alive)
        };
        self.shared.progress.notify_waiters();
        let Some(transport) = transport else {
            return;
        };
        transport.cancel.cancel();
        // The goodbye is best effort, as a process may close and exit at once.
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            let client = self.shared.client.clone();
            let timeout = self.shared.request_timeout;
            runtime.spawn(async move {
                let body =
                    json!({"worker_epoch": transport.epoch, "connection_status": "disconnected"});
                let sent = client
                    .put(format!("{}/worker", transport.session_url))
                    .headers(http::headers(&transport.token))
                    .timeout(timeout)
                    .body(body.to_string());
                let _ = http::send(sent).await;
            });
        }
    }
}
