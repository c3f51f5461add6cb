//! Sealing and opening: the codec a server holds.

use std::fmt;
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use chacha20poly1305::{AeadInOut, Tag, XNonce};
use serde::Serialize;
use serde::de::DeserializeOwned;

use super::binding::Binding;
use super::clock::{Clock, unix_millis};
use super::error::{OpenError, OpenFailure, SealError};
use super::key::KeyRing;
use super::replay::{ReplayGuard, Spend, StateId};
use super::wire::{
    EXPIRY_LEN, HEADER_LEN, KEY_ID_AT, MIN_SEALED_BYTES, NONCE_AT, NONCE_LEN, TAG_LEN, VERSION,
    encoded_len,
};

/// Seals a payload into a `requestState` bound to a request, and opens it on the retry, once.
///
/// Built by [`RequestStateConfig::build`](super::RequestStateConfig::build) (or
/// [`RequestStateCodec::new`] for the defaults). Cheap to share behind an `Arc`; `seal` and
/// `open` take `&self`.
///
/// ```
/// use claude_tools::mcp::request_state::{Binding, ParamsDigest, RequestStateCodec};
///
/// # tokio::runtime::Builder::new_current_thread().build()?.block_on(async {
/// let codec = RequestStateCodec::new("tickets")?;
/// let params = ParamsDigest::of([b"deploy".as_slice(), br#"{"env":"prod"}"#]);
/// let binding = Binding::new("tools/call", params).with_principal(Some("user:42"));
///
/// // First round: the tool asks; what must not run twice goes into the state.
/// let state = codec.seal_json(&binding, &("build", 1234))?;
///
/// // The retry, on any replica with the same key: opens once, under the same binding only.
/// let (step, build): (String, u32) = codec.open_json(&state, &binding).await?;
/// assert_eq!((step.as_str(), build), ("build", 1234));
/// assert!(codec.open(&state, &binding).await.is_err()); // spent
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// # })?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct RequestStateCodec {
    pub(super) audience: String,
    pub(super) keys: KeyRing,
    pub(super) per_process_key: bool,
    pub(super) ttl: Duration,
    pub(super) replay_guard: Arc<dyn ReplayGuard>,
    pub(super) clock: Arc<dyn Clock>,
    pub(super) max_len: usize,
}

impl RequestStateCodec {
    /// The default codec of the server named `audience`: a per-process random key, 10 minutes,
    /// an in-memory replay guard ([`RequestStateConfig`](super::RequestStateConfig)'s defaults).
    ///
    /// # Errors
    /// When the operating system gives no random bytes for the key.
    pub fn new(audience: impl Into<String>) -> Result<Self, super::ConfigError> {
        super::RequestStateConfig::default().build(audience)
    }

    /// Seals `payload` for the request `binding` describes, valid for the codec's TTL from now:
    /// URL-safe base64 (no padding), to send as `requestState`.
    ///
    /// # Errors
    /// [`SealError::TooLarge`] when the sealed form would be over the codec's bound,
    /// [`SealError::Random`] when the operating system gives no random bytes.
    pub fn seal(&self, binding: &Binding<'_>, payload: &[u8]) -> Result<String, SealError> {
        let sealed_len = encoded_len(MIN_SEALED_BYTES.saturating_add(payload.len()));
        if sealed_len > self.max_len {
            return Err(SealError::TooLarge {
                len: sealed_len,
                max: self.max_len,
            });
        }
        let mut nonce = [0u8; NONCE_LEN];
        getrandom::fill(&mut nonce).map_err(|e| SealError::Random(e.to_string()))?;
        let key = self.keys.current();
        let expires_at = unix_millis(self.clock.now()).saturating_add(duration_millis(self.ttl));

        let mut raw = Vec::with_capacity(MIN_SEALED_BYTES + payload.len());
        raw.push(VERSION);
        raw.extend_from_slice(&key.id);
        raw.extend_from_slice(&nonce);
        raw.extend_from_slice(&expires_at.to_be_bytes());
        raw.extend_from_slice(payload);
        let aad = binding.associated_data(&self.audience, &raw[..HEADER_LEN]);
        let tag = key
            .cipher
            .encrypt_inout_detached(&XNonce::from(nonce), &aad, (&mut raw[HEADER_LEN..]).into())
            .map_err(|_| SealError::Encrypt)?;
        raw.extend_from_slice(&tag);
        Ok(URL_SAFE_NO_PAD.encode(&raw))
    }

    /// Seals `value` as JSON (see [`seal`](Self::seal)).
    ///
    /// # Errors
    /// [`SealError::Payload`] when `value` does not serialize, and those of `seal`.
    pub fn seal_json<T: Serialize + ?Sized>(
        &self,
        binding: &Binding<'_>,
        value: &T,
    ) -> Result<String, SealError> {
        let payload = serde_json::to_vec(value).map_err(SealError::Payload)?;
        self.seal(binding, &payload)
    }

    /// Opens a `requestState` for the request `binding` describes and spends it: its payload,
    /// if it is authentic (sealed by a key of this codec's ring, for this audience and this
    /// binding, not changed since), unexpired and not spent before.
    ///
    /// The checks run cheapest first and each refusal stops there: the length (before any
    /// decoding), base64, the version and key id, the AEAD (which authenticates the binding),
    /// the expiry, and last the replay guard, so that only an authentic unexpired state is
    /// recorded as spent.
    ///
    /// # Errors
    /// An [`OpenError`] whose `Display` is safe for the client and whose
    /// [`failure`](OpenError::failure) says why, for logs.
    pub async fn open(&self, sealed: &str, binding: &Binding<'_>) -> Result<Vec<u8>, OpenError> {
        let now = self.clock.now();
        let (mut raw, id, expires_at) = self.authenticate(sealed, binding, now)?;
        let expires_at = SystemTime::UNIX_EPOCH
            .checked_add(Duration::from_millis(expires_at))
            .ok_or(OpenFailure::Expired {
                ago: Duration::ZERO,
            })?;
        match self.replay_guard.spend(&id, expires_at, now).await {
            Ok(Spend::First) => {}
            Ok(Spend::Replayed) => return Err(OpenFailure::Replayed { id }.into()),
            Err(e) => return Err(OpenFailure::Guard(e).into()),
        }
        raw.truncate(raw.len() - TAG_LEN);
        raw.drain(..HEADER_LEN + EXPIRY_LEN);
        Ok(raw)
    }

    /// Opens a `requestState` sealed by [`seal_json`](Self::seal_json) and reads it as a `T`
    /// (see [`open`](Self::open)). The state is spent even when its payload is not a `T`.
    ///
    /// # Errors
    /// Those of `open`, and [`OpenFailure::Payload`] when the payload is not a `T`.
    pub async fn open_json<T: DeserializeOwned>(
        &self,
        sealed: &str,
        binding: &Binding<'_>,
    ) -> Result<T, OpenError> {
        let payload = self.open(sealed, binding).await?;
        serde_json::from_slice(&payload).map_err(|e| OpenFailure::Payload(e).into())
    }

    /// Every check but the replay guard: the decoded bytes (decrypted in place), the state's id
    /// and its expiry in Unix milliseconds.
    fn authenticate(
        &self,
        sealed: &str,
        binding: &Binding<'_>,
        now: SystemTime,
    ) -> Result<(Vec<u8>, StateId, u64), OpenFailure> {
        if sealed.len() > self.max_len {
            return Err(OpenFailure::TooLarge {
                len: sealed.len(),
                max: self.max_len,
            });
        }
        let mut raw = URL_SAFE_NO_PAD
            .decode(sealed)
            .map_err(|_| OpenFailure::NotBase64)?;
        let truncated = || OpenFailure::Truncated {
            len: raw.len(),
            min: MIN_SEALED_BYTES,
        };
        match raw.first() {
            None => return Err(truncated()),
            Some(&VERSION) => {}
            Some(&other) => return Err(OpenFailure::UnknownVersion(other)),
        }
        if raw.len() < MIN_SEALED_BYTES {
            return Err(truncated());
        }
        let key_id = &raw[KEY_ID_AT..NONCE_AT];
        let key = self
            .keys
            .find(key_id)
            .ok_or_else(|| OpenFailure::UnknownKey {
                key_id: key_id.iter().map(|b| format!("{b:02x}")).collect(),
            })?;
        let mut nonce = [0u8; NONCE_LEN];
        nonce.copy_from_slice(&raw[NONCE_AT..HEADER_LEN]);
        let aad = binding.associated_data(&self.audience, &raw[..HEADER_LEN]);
        let tag_at = raw.len() - TAG_LEN;
        let tag = Tag::try_from(&raw[tag_at..]).map_err(|_| truncated())?;
        key.cipher
            .decrypt_inout_detached(
                &XNonce::from(nonce),
                &aad,
                (&mut raw[HEADER_LEN..tag_at]).into(),
                &tag,
            )
            .map_err(|_| OpenFailure::Unauthentic)?;

        let mut expiry = [0u8; EXPIRY_LEN];
        expiry.copy_from_slice(&raw[HEADER_LEN..HEADER_LEN + EXPIRY_LEN]);
        let expires_at = u64::from_be_bytes(expiry);
        let now = unix_millis(now);
        if now >= expires_at {
            return Err(OpenFailure::Expired {
                ago: Duration::from_millis(now - expires_at),
            });
        }
        Ok((raw, StateId::from_bytes(nonce), expires_at))
    }

    /// The audience states are bound to: the server's name.
    pub fn audience(&self) -> &str {
        &self.audience
    }

    /// How long a sealed state stays valid.
    pub fn ttl(&self) -> Duration {
        self.ttl
    }

    /// The longest state sealed or opened, in characters.
    pub fn max_len(&self) -> usize {
        self.max_len
    }

    /// The largest payload [`seal`](Self::seal) accepts, in bytes.
    pub fn max_payload_len(&self) -> usize {
        // base64 without padding: 3 bytes per 4 characters, then 2 characters for 1 byte more
        // or 3 for 2 more (1 character left over holds nothing).
        let whole = self.max_len / 4 * 3;
        let tail = match self.max_len % 4 {
            2 => 1,
            3 => 2,
            _ => 0,
        };
        (whole + tail).saturating_sub(MIN_SEALED_BYTES)
    }

    /// `true` when no operator key was set and the codec uses a key of its own, known to this
    /// process only (states do not open on another replica, nor after a restart).
    pub fn has_per_process_key(&self) -> bool {
        self.per_process_key
    }

    /// The keys.
    pub fn keys(&self) -> &KeyRing {
        &self.keys
    }
}

impl fmt::Debug for RequestStateCodec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RequestStateCodec")
            .field("audience", &self.audience)
            .field("keys", &self.keys)
            .field("per_process_key", &self.per_process_key)
            .field("ttl", &self.ttl)
            .field("max_len", &self.max_len)
            .finish_non_exhaustive()
    }
}

/// `duration` in whole milliseconds, saturating.
fn duration_millis(duration: Duration) -> u64 {
    u64::try_from(duration.as_millis()).unwrap_or(u64::MAX)
}
