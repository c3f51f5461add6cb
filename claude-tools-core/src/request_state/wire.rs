//! The sealed form, byte by byte.
//!
//! ```text
//! sealed     = base64url-no-padding( version | key id | nonce | ciphertext | tag )
//!              1 byte     8 bytes  24 bytes  8 + payload  16 bytes
//! plaintext  = expiry (milliseconds since the Unix epoch, u64 big-endian) | payload
//! associated = domain | version | key id | method | params digest | principal | audience
//! ```
//!
//! The version and key id are read before any cryptography (which key, which format) and are
//! authenticated as part of the associated data; the nonce is the AEAD's and the state's id.

use super::key::KEY_ID_LEN;
use super::replay::STATE_ID_LEN;

/// The format written by this codec, and the only one it reads.
pub(super) const VERSION: u8 = 1;
/// XChaCha20-Poly1305's nonce, which is also the state's id.
pub(super) const NONCE_LEN: usize = STATE_ID_LEN;
/// Poly1305's tag.
pub(super) const TAG_LEN: usize = 16;
/// The expiry at the start of the plaintext.
pub(super) const EXPIRY_LEN: usize = 8;
/// Where the key id starts.
pub(super) const KEY_ID_AT: usize = 1;
/// Where the nonce starts.
pub(super) const NONCE_AT: usize = KEY_ID_AT + KEY_ID_LEN;
/// The cleartext header: version, key id, nonce.
pub(super) const HEADER_LEN: usize = NONCE_AT + NONCE_LEN;
/// The smallest sealed state (an empty payload), in bytes before base64.
pub(super) const MIN_SEALED_BYTES: usize = HEADER_LEN + EXPIRY_LEN + TAG_LEN;

/// The length of `bytes` bytes in base64 without padding.
pub(super) const fn encoded_len(bytes: usize) -> usize {
    (bytes / 3) * 4
        + match bytes % 3 {
            0 => 0,
            1 => 2,
            _ => 3,
        }
}

/// The smallest sealed state, in characters.
pub(super) const MIN_SEALED_LEN: usize = encoded_len(MIN_SEALED_BYTES);
