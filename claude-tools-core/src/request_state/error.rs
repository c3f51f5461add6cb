//! What goes wrong: the refusal a client may see, and the precise reason a log keeps.

use std::time::Duration;

use super::key::KeyError;
use super::replay::{GuardError, StateId};

/// A `requestState` refused: tampered with, expired, foreign (another method, params, principal,
/// audience or key), replayed, malformed or too large.
///
/// Its `Display` is the same for every reason, "invalid or expired requestState", safe to send
/// to the client (the router answers `-32602` with it): it says nothing of the key, and nothing
/// of which check failed that would help an attacker. The reason is in
/// [`failure`](Self::failure), for the server's logs.
#[derive(Debug, thiserror::Error)]
#[error("invalid or expired requestState")]
pub struct OpenError {
    failure: OpenFailure,
}

impl OpenError {
    /// Why the state was refused, for the server's logs (not for the client).
    pub fn failure(&self) -> &OpenFailure {
        &self.failure
    }

    /// The reason, by value.
    pub fn into_failure(self) -> OpenFailure {
        self.failure
    }

    /// `true` when the fault is the server's and not the state's: the replay guard is full or
    /// unavailable. The state may be sound; the router may still answer `-32602` (the client's
    /// remedy is the same, starting the call over) but should log it louder.
    pub fn is_server_fault(&self) -> bool {
        matches!(self.failure, OpenFailure::Guard(_))
    }
}

impl From<OpenFailure> for OpenError {
    fn from(failure: OpenFailure) -> Self {
        Self { failure }
    }
}

/// The precise reason an [`OpenError`] was refused. Its `Display` is for logs: it may say which
/// check failed, never key material.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum OpenFailure {
    /// Longer than the codec's bound; refused before decoding anything.
    #[error("requestState of {len} characters is over the bound of {max}")]
    TooLarge {
        /// The state's length in characters.
        len: usize,
        /// The codec's bound.
        max: usize,
    },
    /// Not URL-safe base64 without padding.
    #[error("requestState is not URL-safe base64 without padding")]
    NotBase64,
    /// Shorter than the smallest sealed state.
    #[error("requestState of {len} bytes is shorter than a sealed state ({min} bytes at least)")]
    Truncated {
        /// The decoded length in bytes.
        len: usize,
        /// The smallest sealed state in bytes.
        min: usize,
    },
    /// A format version this codec does not read.
    #[error("requestState has format version {0}, this codec reads version 1")]
    UnknownVersion(u8),
    /// Sealed with a key this codec does not hold: another server's, one rotated out, or a
    /// per-process key of another process (a retry that landed on another replica).
    #[error("requestState was sealed with key {key_id}, which this codec does not hold")]
    UnknownKey {
        /// The key id the state names, in hex.
        key_id: String,
    },
    /// The AEAD refused it: a byte was changed, or it was sealed for another method, params,
    /// principal or audience (the binding is authenticated, not carried, so the two cannot be
    /// told apart).
    #[error(
        "requestState does not authenticate: tampered with, or sealed for another method, params, principal or audience"
    )]
    Unauthentic,
    /// Authentic, but its expiry has passed.
    #[error("requestState expired {}s ago", .ago.as_secs())]
    Expired {
        /// How long ago it expired, by the codec's clock.
        ago: Duration,
    },
    /// Authentic and unexpired, but spent already: a replay.
    #[error("requestState {id} was spent already (a replay)")]
    Replayed {
        /// The state's id.
        id: StateId,
    },
    /// The replay guard could not say whether the state was spent.
    #[error(transparent)]
    Guard(GuardError),
    /// Authentic, but its payload is not the type asked for ([`open_json`]): a payload sealed by
    /// another version of the server.
    ///
    /// [`open_json`]: super::RequestStateCodec::open_json
    #[error("requestState payload does not deserialize: {0}")]
    Payload(#[source] serde_json::Error),
}

/// A state that could not be sealed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SealError {
    /// The sealed form would be longer than the codec's bound (which `open` refuses), so the
    /// state is not issued.
    #[error("a requestState of {len} characters would be over the bound of {max}")]
    TooLarge {
        /// The length the sealed form would have, in characters.
        len: usize,
        /// The codec's bound.
        max: usize,
    },
    /// The operating system gave no random bytes for the nonce.
    #[error("no random bytes from the operating system for a requestState nonce: {0}")]
    Random(String),
    /// The AEAD refused to encrypt (it cannot, for payloads under the bound).
    #[error("the requestState could not be encrypted")]
    Encrypt,
    /// [`seal_json`](super::RequestStateCodec::seal_json)'s value does not serialize.
    #[error("the requestState payload does not serialize: {0}")]
    Payload(#[source] serde_json::Error),
}

/// A [`RequestStateConfig`](super::RequestStateConfig) that cannot make a codec.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ConfigError {
    /// No operator key was set and no per-process key could be made.
    #[error(transparent)]
    Key(#[from] KeyError),
    /// The TTL is zero or longer than [`MAX_TTL`](super::MAX_TTL).
    #[error("the requestState TTL must be over zero and at most {}s, got {}s", super::MAX_TTL.as_secs(), .0.as_secs_f64())]
    Ttl(Duration),
    /// The size bound is below the smallest sealed state.
    #[error("the requestState size bound must be at least {min} characters, got {max}")]
    MaxLen {
        /// The bound asked for.
        max: usize,
        /// The smallest sealed state, in characters.
        min: usize,
    },
}
