//! Single use: the guard that remembers which states were spent, until they expire.

use std::collections::{BTreeSet, HashMap};
use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Mutex, PoisonError};
use std::time::SystemTime;

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;

/// The length of a [`StateId`] in bytes.
pub const STATE_ID_LEN: usize = 24;

/// How many spent states a [`MemoryReplayGuard`] remembers at most unless told otherwise: one
/// million, about 120 MB of memory at the bound (some 120 bytes an id, its expiry and the index
/// of both, as `ct-bench-request-state` measures it). Under the default 10-minute TTL that is a
/// sustained 1,666 spent states a second in one process before retries are refused; the memory
/// is taken only as states are spent, and given back as they expire.
pub const DEFAULT_REPLAY_CAPACITY: usize = 1_000_000;

/// The unique id of a sealed state: its random 24-byte nonce, which the AEAD authenticates
/// (a state whose nonce was changed does not open, so no one but the key's holder chooses an
/// id). Its `Display` is URL-safe base64, fit for a database key.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct StateId([u8; STATE_ID_LEN]);

impl StateId {
    /// An id from its bytes.
    pub const fn from_bytes(bytes: [u8; STATE_ID_LEN]) -> Self {
        Self(bytes)
    }

    /// The id's bytes.
    pub const fn as_bytes(&self) -> &[u8; STATE_ID_LEN] {
        &self.0
    }
}

impl fmt::Display for StateId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&URL_SAFE_NO_PAD.encode(self.0))
    }
}

impl fmt::Debug for StateId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "StateId({self})")
    }
}

/// What a [`ReplayGuard`] says of a state it was asked to spend.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Spend {
    /// Not seen before: now recorded as spent, the caller may go on.
    First,
    /// Spent before: a replay, refused.
    Replayed,
}

/// Why a [`ReplayGuard`] could not say.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum GuardError {
    /// The guard holds as many unexpired ids as it may and records no more until some expire
    /// (it fails closed: a state it cannot record is refused rather than left replayable).
    #[error("the replay guard is full ({capacity} unexpired states)")]
    Full {
        /// The guard's bound.
        capacity: usize,
    },
    /// The guard's storage did not answer (a shared implementation's database, say).
    #[error("the replay guard is unavailable: {0}")]
    Unavailable(#[source] Box<dyn std::error::Error + Send + Sync>),
}

/// The future a [`ReplayGuard`] returns.
pub type GuardFuture<'a> = Pin<Box<dyn Future<Output = Result<Spend, GuardError>> + Send + 'a>>;

/// Remembers which states were spent, so that each opens once.
///
/// The codec asks it once per open, after the state proved authentic and unexpired. An
/// implementation must be atomic: of two calls with one id, however close, exactly one gets
/// [`Spend::First`]. It must remember an id until `expires_at` at least (after that the codec
/// refuses the state as expired without asking), and may forget it then.
///
/// [`MemoryReplayGuard`], the default, remembers in this process only. **Replicas that share a
/// key need a guard they share too** (a table with the id as primary key and an
/// `INSERT … ON CONFLICT DO NOTHING`, a Redis `SET id 1 NX PXAT expiry`): with one guard per
/// process, a state spent on one replica opens once more on each other replica. Keep a shared
/// guard's entries a little past `expires_at` if the replicas' clocks may disagree.
///
/// Implement it with boxed futures (`Box::pin(async move { … })`), so that a guard can be held
/// as `Arc<dyn ReplayGuard>`:
///
/// ```
/// use std::collections::HashSet;
/// use std::sync::Mutex;
/// use std::time::SystemTime;
///
/// use claude_tools::mcp::request_state::{GuardFuture, ReplayGuard, Spend, StateId};
///
/// /// Remembers every id forever (a sketch: a real guard forgets expired ids and is bounded).
/// #[derive(Default)]
/// struct Forever(Mutex<HashSet<StateId>>);
///
/// impl ReplayGuard for Forever {
///     fn spend<'a>(&'a self, id: &'a StateId, _expires_at: SystemTime, _now: SystemTime) -> GuardFuture<'a> {
///         Box::pin(async move {
///             let first = self.0.lock().map_or(false, |mut seen| seen.insert(*id));
///             Ok(if first { Spend::First } else { Spend::Replayed })
///         })
///     }
/// }
/// ```
pub trait ReplayGuard: Send + Sync + 'static {
    /// Records `id` as spent until `expires_at` and says whether it was spent before. `now` is
    /// the codec's clock, for evicting what has expired.
    fn spend<'a>(
        &'a self,
        id: &'a StateId,
        expires_at: SystemTime,
        now: SystemTime,
    ) -> GuardFuture<'a>;
}

/// The default [`ReplayGuard`]: the ids of spent states, in this process's memory, each until
/// its expiry, at most [`capacity`](Self::with_capacity) of them.
///
/// Per process: behind a load balancer with a shared key, give the replicas a shared guard
/// instead (see [`ReplayGuard`]).
///
/// At the bound, expired ids are evicted first; if every id held is still unexpired, the state
/// being opened is refused ([`GuardError::Full`]) and its retry fails: the guard never grows past
/// its bound, and never forgets an unexpired id to make room (which would let that state open
/// again).
#[derive(Debug)]
pub struct MemoryReplayGuard {
    capacity: usize,
    spent: Mutex<Spent>,
}

/// The ids held, findable by id and in order of expiry.
#[derive(Debug, Default)]
struct Spent {
    by_id: HashMap<StateId, SystemTime>,
    by_expiry: BTreeSet<(SystemTime, StateId)>,
}

impl Spent {
    /// Forgets every id whose expiry is `now` or earlier.
    fn evict_expired(&mut self, now: SystemTime) {
        while let Some(&(expires_at, id)) = self.by_expiry.first() {
            if expires_at > now {
                break;
            }
            self.by_expiry.pop_first();
            self.by_id.remove(&id);
        }
    }
}

impl MemoryReplayGuard {
    /// A guard of [`DEFAULT_REPLAY_CAPACITY`] ids.
    pub fn new() -> Self {
        Self::with_capacity(DEFAULT_REPLAY_CAPACITY)
    }

    /// A guard that holds at most `capacity` unexpired ids (0 refuses every state).
    pub fn with_capacity(capacity: usize) -> Self {
        Self {
            capacity,
            spent: Mutex::new(Spent::default()),
        }
    }

    /// The bound.
    pub fn capacity(&self) -> usize {
        self.capacity
    }

    /// How many ids the guard holds now (expired ones not yet evicted included).
    pub fn len(&self) -> usize {
        self.lock().by_id.len()
    }

    /// Whether the guard holds no id.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Records `id` or says it was seen: the synchronous core of [`ReplayGuard::spend`].
    pub fn spend_now(
        &self,
        id: StateId,
        expires_at: SystemTime,
        now: SystemTime,
    ) -> Result<Spend, GuardError> {
        let mut spent = self.lock();
        spent.evict_expired(now);
        if spent.by_id.contains_key(&id) {
            return Ok(Spend::Replayed);
        }
        if expires_at <= now {
            // Expired already: the codec refuses it anyway, nothing to remember.
            return Ok(Spend::First);
        }
        if spent.by_id.len() >= self.capacity {
            return Err(GuardError::Full {
                capacity: self.capacity,
            });
        }
        spent.by_id.insert(id, expires_at);
        spent.by_expiry.insert((expires_at, id));
        Ok(Spend::First)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Spent> {
        // Nothing panics while the lock is held; if something did, the maps are still whole.
        self.spent.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl Default for MemoryReplayGuard {
    fn default() -> Self {
        Self::new()
    }
}

impl ReplayGuard for MemoryReplayGuard {
    fn spend<'a>(
        &'a self,
        id: &'a StateId,
        expires_at: SystemTime,
        now: SystemTime,
    ) -> GuardFuture<'a> {
        let spent = self.spend_now(*id, expires_at, now);
        Box::pin(std::future::ready(spent))
    }
}
