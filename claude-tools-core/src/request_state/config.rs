//! The builder a server holds: keys, TTL, replay guard, clock and size bound.

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use super::clock::{Clock, SystemClock};
use super::codec::RequestStateCodec;
use super::error::ConfigError;
use super::key::{KeyRing, StateKey};
use super::replay::{MemoryReplayGuard, ReplayGuard};
use super::wire::MIN_SEALED_LEN;

/// How long a state stays valid unless told otherwise: 10 minutes, time for a person to answer
/// an elicitation.
pub const DEFAULT_TTL: Duration = Duration::from_secs(10 * 60);

/// The longest TTL accepted: one day. The spec asks for a short one; the bound also keeps
/// expiry arithmetic far from overflow.
pub const MAX_TTL: Duration = Duration::from_secs(24 * 60 * 60);

/// The longest `requestState` opened or sealed unless told otherwise, in characters: 64 KiB
/// (48 KiB of payload). A longer state is refused before it is decoded.
pub const DEFAULT_MAX_STATE_LEN: usize = 64 * 1024;

/// How a server protects its `requestState`: the builder of a [`RequestStateCodec`].
///
/// [`Default`] is a per-process random key, [`DEFAULT_TTL`] (10 minutes), a
/// [`MemoryReplayGuard`] of the default capacity, the system clock and [`DEFAULT_MAX_STATE_LEN`].
/// With the per-process key, a retry that a load balancer sends to another replica (or that
/// arrives after a restart) does not open there: the client gets `-32602` and must start the
/// call over. Replicas should be given one operator [key](Self::key) and a shared
/// [replay guard](Self::replay_guard).
///
/// ```
/// use std::sync::Arc;
/// use std::time::Duration;
///
/// use claude_tools::mcp::request_state::{MemoryReplayGuard, RequestStateConfig, StateKey};
///
/// # let secret_from_the_vault = "q8kVw3Vf2vQH3m5dX2mJm9fL0pZr7b1cT4nYs6eKjHw=";
/// let codec = RequestStateConfig::default()
///     .key(StateKey::from_base64(secret_from_the_vault)?)
///     .ttl(Duration::from_secs(5 * 60))
///     .replay_guard(Arc::new(MemoryReplayGuard::with_capacity(100_000)))
///     .build("tickets")?;
/// assert_eq!(codec.audience(), "tickets");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone)]
pub struct RequestStateConfig {
    keys: Option<KeyRing>,
    ttl: Duration,
    replay_guard: Option<Arc<dyn ReplayGuard>>,
    clock: Arc<dyn Clock>,
    max_len: usize,
}

impl Default for RequestStateConfig {
    fn default() -> Self {
        Self {
            keys: None,
            ttl: DEFAULT_TTL,
            replay_guard: None,
            clock: Arc::new(SystemClock),
            max_len: DEFAULT_MAX_STATE_LEN,
        }
    }
}

impl RequestStateConfig {
    /// The defaults (see the type's docs).
    pub fn new() -> Self {
        Self::default()
    }

    /// Seals and opens with this operator key alone.
    #[must_use]
    pub fn key(self, key: StateKey) -> Self {
        self.keys(KeyRing::new(key))
    }

    /// Seals with the ring's current key and opens with any of its keys (rotation: see
    /// [`KeyRing`]).
    #[must_use]
    pub fn keys(mut self, keys: KeyRing) -> Self {
        self.keys = Some(keys);
        self
    }

    /// How long a sealed state stays valid (default [`DEFAULT_TTL`]; over zero, at most
    /// [`MAX_TTL`]).
    #[must_use]
    pub fn ttl(mut self, ttl: Duration) -> Self {
        self.ttl = ttl;
        self
    }

    /// Where spent states are remembered (default: a [`MemoryReplayGuard`] in this process;
    /// replicas need a shared one, see [`ReplayGuard`]).
    #[must_use]
    pub fn replay_guard(mut self, guard: Arc<dyn ReplayGuard>) -> Self {
        self.replay_guard = Some(guard);
        self
    }

    /// The time source (default [`SystemClock`]); tests pass a closure.
    #[must_use]
    pub fn clock(mut self, clock: impl Clock) -> Self {
        self.clock = Arc::new(clock);
        self
    }

    /// The longest state sealed or opened, in characters (default [`DEFAULT_MAX_STATE_LEN`]).
    #[must_use]
    pub fn max_len(mut self, max_len: usize) -> Self {
        self.max_len = max_len;
        self
    }

    /// The codec of the server named `audience`: states it seals open only in a codec of the
    /// same audience (so two servers sharing a key do not accept each other's states). Without
    /// an operator key, draws a per-process random one: build once per server and share the
    /// codec (each build draws a new key, and opens nothing another build sealed).
    ///
    /// # Errors
    /// [`ConfigError::Ttl`] for a TTL of zero or over [`MAX_TTL`], [`ConfigError::MaxLen`] for a
    /// bound below the smallest sealed state, [`ConfigError::Key`] when the operating system
    /// gives no random bytes for the per-process key.
    pub fn build(self, audience: impl Into<String>) -> Result<RequestStateCodec, ConfigError> {
        if self.ttl.is_zero() || self.ttl > MAX_TTL {
            return Err(ConfigError::Ttl(self.ttl));
        }
        if self.max_len < MIN_SEALED_LEN {
            return Err(ConfigError::MaxLen {
                max: self.max_len,
                min: MIN_SEALED_LEN,
            });
        }
        let (keys, per_process_key) = match self.keys {
            Some(keys) => (keys, false),
            None => (KeyRing::new(StateKey::random()?), true),
        };
        let replay_guard = self
            .replay_guard
            .unwrap_or_else(|| Arc::new(MemoryReplayGuard::new()));
        Ok(RequestStateCodec {
            audience: audience.into(),
            keys,
            per_process_key,
            ttl: self.ttl,
            replay_guard,
            clock: self.clock,
            max_len: self.max_len,
        })
    }
}

impl fmt::Debug for RequestStateConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RequestStateConfig")
            .field("keys", &self.keys)
            .field("ttl", &self.ttl)
            .field(
                "replay_guard",
                &self.replay_guard.as_ref().map(|_| "custom"),
            )
            .field("max_len", &self.max_len)
            .finish_non_exhaustive()
    }
}
