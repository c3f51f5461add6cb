//! The state one attached session keeps across its transports: the write queue (what has not
//! been delivered yet survives a transport's death and moves to the next), the echo filters,
//! the pending prompts and the transport of the moment.

use std::collections::{HashSet, VecDeque};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use serde_json::{Map, Value};
use tokio::sync::Notify;
use tokio_util::sync::CancellationToken;

use super::options::Callbacks;
use super::types::CloseCode;

/// How many ids each echo filter remembers.
const RING: usize = 2000;

/// A set that forgets its oldest entry beyond a capacity.
#[derive(Debug, Default)]
pub(crate) struct RingSet {
    order: VecDeque<String>,
    set: HashSet<String>,
}

impl RingSet {
    pub(crate) fn contains(&self, id: &str) -> bool {
        self.set.contains(id)
    }

    pub(crate) fn add(&mut self, id: &str) {
        if self.set.contains(id) {
            return;
        }
        if self.order.len() == RING
            && let Some(old) = self.order.pop_front()
        {
            self.set.remove(&old);
        }
        self.order.push_back(id.to_owned());
        self.set.insert(id.to_owned());
    }
}

/// The transport of the moment: its credentials, epoch and the token that stops its tasks.
#[derive(Debug, Clone)]
pub(crate) struct Transport {
    pub(crate) generation: u64,
    pub(crate) token: String,
    /// `{api_base_url}/v1/code/sessions/{id}`.
    pub(crate) session_url: String,
    pub(crate) epoch: i64,
    pub(crate) cancel: CancellationToken,
}

#[derive(Debug, Default)]
pub(crate) struct State {
    pub(crate) transport: Option<Transport>,
    /// The transport died; writes queue until `reconnect_transport`.
    pub(crate) dead: bool,
    /// Event payloads not yet accepted by the service, oldest first.
    pub(crate) outbound: VecDeque<Value>,
    /// Delivery updates not yet sent: `(event_id, status)`.
    pub(crate) deliveries: Vec<(String, &'static str)>,
    /// `PUT /worker` bodies not yet sent (without `worker_epoch`, added when sent).
    pub(crate) worker_puts: VecDeque<Map<String, Value>>,
    /// uuids this host wrote: an inbound frame carrying one is an echo.
    pub(crate) written: RingSet,
    /// uuids of inbound user messages already forwarded: a re-delivery.
    pub(crate) inbound_seen: RingSet,
    /// `can_use_tool` / `request_user_dialog` prompts forwarded and not answered yet, as sent.
    pub(crate) pending_prompts: Vec<(String, Value)>,
}

pub(crate) struct Shared {
    pub(crate) session_id: String,
    pub(crate) client: reqwest::Client,
    pub(crate) callbacks: Callbacks,
    pub(crate) outbound_only: bool,
    pub(crate) claude_code_version: Option<String>,
    pub(crate) heartbeat_seed: Duration,
    pub(crate) request_timeout: Duration,
    pub(crate) state: Mutex<State>,
    /// Wakes the writer: something was queued.
    pub(crate) wake_writer: Notify,
    /// Wakes `flush`: the queue shrank, or the transport died.
    pub(crate) progress: Notify,
    pub(crate) sequence_num: AtomicU64,
    pub(crate) connected: AtomicBool,
    /// `close()` was called.
    pub(crate) closed: AtomicBool,
}

impl Shared {
    pub(crate) fn lock(&self) -> MutexGuard<'_, State> {
        // A panic while the lock was held cannot leave the queue half-updated in a way that
        // matters more than losing the session, so the poison is ignored.
        self.state
            .lock()
            .unwrap_or_else(|poison| poison.into_inner())
    }

    /// Queues an event payload, with the session id and (when it has none) a fresh uuid.
    pub(crate) fn enqueue(&self, mut payload: Value) {
        if self.closed.load(Ordering::SeqCst) {
            return;
        }
        if let Value::Object(map) = &mut payload {
            map.insert("session_id".into(), Value::from(self.session_id.as_str()));
            if !map.get("uuid").is_some_and(Value::is_string)
                && let Ok(uuid) = crate::history::ids::new_uuid()
            {
                map.insert("uuid".into(), Value::from(uuid));
            }
        }
        self.lock().outbound.push_back(payload);
        self.wake_writer.notify_one();
    }

    /// Queues a `PUT /worker` body.
    pub(crate) fn put_worker(&self, body: Map<String, Value>) {
        if self.closed.load(Ordering::SeqCst) {
            return;
        }
        self.lock().worker_puts.push_back(body);
        self.wake_writer.notify_one();
    }

    /// Queues a delivery update.
    pub(crate) fn deliver(&self, event_id: &str, status: &'static str) {
        if self.closed.load(Ordering::SeqCst) {
            return;
        }
        self.lock().deliveries.push((event_id.to_owned(), status));
        self.wake_writer.notify_one();
    }

    /// The transport `generation` died with `code`: its tasks stop, writes are kept, and the
    /// host hears of it once (unless it closed the handle itself).
    pub(crate) fn transport_died(self: &Arc<Self>, generation: u64, code: CloseCode) {
        {
            let mut state = self.lock();
            let current = state
                .transport
                .as_ref()
                .is_some_and(|t| t.generation == generation);
            if !current || state.dead {
                return;
            }
            state.dead = true;
            if let Some(transport) = &state.transport {
                transport.cancel.cancel();
            }
        }
        self.connected.store(false, Ordering::SeqCst);
        self.progress.notify_waiters();
        tracing::debug!(session = %self.session_id, code = code.code(), "[bridge:session] transport closed");
        if !self.closed.load(Ordering::SeqCst)
            && let Some(on_close) = &self.callbacks.close
        {
            on_close(code);
        }
    }
}
