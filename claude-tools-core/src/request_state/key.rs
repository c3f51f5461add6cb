//! The keys: the operator's secret, the AEAD key and key id derived from it, and the ring that
//! rotates them.

use std::fmt;

use base64::Engine as _;
use base64::alphabet;
use base64::engine::{DecodePaddingMode, GeneralPurpose, GeneralPurposeConfig};
use chacha20poly1305::{Key, KeyInit, XChaCha20Poly1305};
use hkdf::Hkdf;
use sha2::Sha256;
use zeroize::Zeroize;

/// The shortest operator secret accepted, in bytes: 256 bits.
pub const MIN_SECRET_LEN: usize = 32;

/// The length of a key id in the sealed form.
pub(super) const KEY_ID_LEN: usize = 8;

/// HKDF's salt: the name of this use, so that a secret also used elsewhere (it should not be)
/// still yields keys of its own here.
const HKDF_SALT: &[u8] = b"claude-tools/request-state";
/// HKDF's info for the AEAD key.
const AEAD_KEY_INFO: &[u8] = b"claude-tools/request-state/v1 xchacha20poly1305 key";
/// HKDF's info for the key id: another HKDF output, so the id says nothing of the AEAD key.
const KEY_ID_INFO: &[u8] = b"claude-tools/request-state/v1 key id";

/// A key the operator sets, from which the codec derives its AEAD key (HKDF-SHA256).
///
/// Give every replica of a server the same secret, so that a retry that lands on another replica
/// opens there: at least [`MIN_SECRET_LEN`] (32) random bytes, for example from
/// `openssl rand -base64 32`, read from the deployment's secret store and passed to
/// [`StateKey::from_base64`]. The secret itself is not kept, only what is derived from it;
/// `Debug` shows the key id and never key material.
///
/// ```
/// use claude_tools::mcp::request_state::StateKey;
///
/// let key = StateKey::from_base64("q8kVw3Vf2vQH3m5dX2mJm9fL0pZr7b1cT4nYs6eKjHw=")?;
/// assert!(StateKey::new(b"too short").is_err());
/// # let _ = key;
/// # Ok::<(), claude_tools::mcp::request_state::KeyError>(())
/// ```
#[derive(Clone)]
pub struct StateKey {
    pub(super) id: [u8; KEY_ID_LEN],
    pub(super) cipher: XChaCha20Poly1305,
}

impl StateKey {
    /// A key derived from the operator's `secret`, which must have at least
    /// [`MIN_SECRET_LEN`] bytes.
    ///
    /// # Errors
    /// [`KeyError::TooShort`] for a shorter secret.
    pub fn new(secret: impl AsRef<[u8]>) -> Result<Self, KeyError> {
        let secret = secret.as_ref();
        if secret.len() < MIN_SECRET_LEN {
            return Err(KeyError::TooShort { len: secret.len() });
        }
        let hkdf = Hkdf::<Sha256>::new(Some(HKDF_SALT), secret);
        let mut aead_key = [0u8; 32];
        let mut id = [0u8; KEY_ID_LEN];
        // Both lengths are far below HKDF-SHA256's limit (255 × 32 bytes), so expand cannot
        // fail; the error is mapped anyway rather than unwrapped.
        let expanded = hkdf
            .expand(AEAD_KEY_INFO, &mut aead_key)
            .and_then(|()| hkdf.expand(KEY_ID_INFO, &mut id));
        if expanded.is_err() {
            aead_key.zeroize();
            return Err(KeyError::Derivation);
        }
        let mut key = Key::from(aead_key);
        let cipher = XChaCha20Poly1305::new(&key);
        aead_key.zeroize();
        key.zeroize();
        Ok(Self { id, cipher })
    }

    /// A key derived from a secret written in base64 (standard or URL-safe alphabet, padded or
    /// not), as `openssl rand -base64 32` prints it. Whitespace around it is ignored.
    ///
    /// # Errors
    /// [`KeyError::NotBase64`] when the text is not base64, [`KeyError::TooShort`] when it
    /// decodes to fewer than [`MIN_SECRET_LEN`] bytes.
    pub fn from_base64(text: &str) -> Result<Self, KeyError> {
        let config =
            GeneralPurposeConfig::new().with_decode_padding_mode(DecodePaddingMode::Indifferent);
        let text = text.trim();
        let decoded = GeneralPurpose::new(&alphabet::STANDARD, config)
            .decode(text)
            .or_else(|_| GeneralPurpose::new(&alphabet::URL_SAFE, config).decode(text));
        let mut secret = decoded.map_err(|_| KeyError::NotBase64)?;
        let key = Self::new(&secret);
        secret.zeroize();
        key
    }

    /// A key of 32 random bytes from the operating system, known to this process only: what
    /// the codec uses when the operator sets none.
    ///
    /// # Errors
    /// [`KeyError::Random`] when the operating system gives no random bytes.
    pub fn random() -> Result<Self, KeyError> {
        let mut secret = [0u8; MIN_SECRET_LEN];
        getrandom::fill(&mut secret).map_err(|e| KeyError::Random(e.to_string()))?;
        let key = Self::new(secret);
        secret.zeroize();
        key
    }

    /// The key's id, as carried in every state it seals: derived from the secret by HKDF (a
    /// separate output from the AEAD key, so it reveals nothing of it), so that every replica
    /// given the same secret computes the same id. Useful in logs to tell keys apart.
    pub fn id(&self) -> [u8; KEY_ID_LEN] {
        self.id
    }
}

impl fmt::Debug for StateKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let id: String = self.id.iter().map(|b| format!("{b:02x}")).collect();
        f.debug_struct("StateKey")
            .field("id", &id)
            .finish_non_exhaustive()
    }
}

/// The keys a codec holds: states are sealed with the [current](Self::current) key and opened
/// with any key of the ring.
///
/// Rotating a key across replicas without refusing a retry in flight takes three deployments:
///
/// 1. every replica gets the new key as an [accepted](Self::accept) one, the old key still
///    current (replicas not yet updated keep sealing with the old key, and all open both);
/// 2. every replica gets the new key as current and the old one accepted (states sealed with the
///    old key before the switch still open);
/// 3. one TTL after step 2 finished, the old key goes.
///
/// ```
/// use claude_tools::mcp::request_state::{KeyRing, StateKey};
///
/// let old = StateKey::new([1u8; 32])?;
/// let new = StateKey::new([2u8; 32])?;
/// let ring = KeyRing::new(new).accept(old);
/// assert_eq!(ring.len(), 2);
/// # Ok::<(), claude_tools::mcp::request_state::KeyError>(())
/// ```
#[derive(Debug, Clone)]
pub struct KeyRing {
    /// The current key first, then the accepted ones in the order given.
    keys: Vec<StateKey>,
}

impl KeyRing {
    /// A ring whose current key, the one every new state is sealed with, is `current`.
    pub fn new(current: StateKey) -> Self {
        Self {
            keys: vec![current],
        }
    }

    /// Also opens states sealed with `older` (a key being rotated out, or one being rotated in
    /// on other replicas first). A key already in the ring is not added twice.
    #[must_use]
    pub fn accept(mut self, older: StateKey) -> Self {
        if !self.keys.iter().any(|k| k.id == older.id) {
            self.keys.push(older);
        }
        self
    }

    /// The key new states are sealed with.
    pub fn current(&self) -> &StateKey {
        // `keys` is never empty: `new` puts one in and nothing takes any out.
        &self.keys[0]
    }

    /// The key with this id, if the ring holds it.
    pub(super) fn find(&self, id: &[u8]) -> Option<&StateKey> {
        self.keys.iter().find(|k| k.id == id)
    }

    /// How many keys the ring holds (the current one included).
    pub fn len(&self) -> usize {
        self.keys.len()
    }

    /// Always `false`: a ring holds at least its current key.
    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }
}

impl From<StateKey> for KeyRing {
    fn from(current: StateKey) -> Self {
        Self::new(current)
    }
}

/// Why a [`StateKey`] could not be made. Its `Display` never shows key material.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum KeyError {
    /// The secret is shorter than [`MIN_SECRET_LEN`] bytes.
    #[error("a requestState key needs at least {MIN_SECRET_LEN} bytes of secret, got {len}")]
    TooShort {
        /// The length of the secret given, in bytes.
        len: usize,
    },
    /// The text given to [`StateKey::from_base64`] is not base64.
    #[error("the requestState key is not base64 (standard or URL-safe alphabet)")]
    NotBase64,
    /// The operating system gave no random bytes for a per-process key.
    #[error("no random bytes from the operating system for the requestState key: {0}")]
    Random(String),
    /// HKDF refused to derive the key (it cannot, for the lengths used).
    #[error("the requestState key could not be derived")]
    Derivation,
}
