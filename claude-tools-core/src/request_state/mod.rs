//! The sealed `requestState` of MCP 2026-07-28's multi-round-trip requests.
//!
//! At 2026-07-28 a server asks the client a question (elicitation, sampling, roots) by answering
//! `tools/call`, `prompts/get` or `resources/read` with `{resultType: "input_required",
//! inputRequests, requestState}`; the client sends the same request again, with a new JSON-RPC
//! id, its answers in `inputResponses` and the `requestState` echoed. The retry may reach any
//! replica, so what the call carries from round to round (earlier answers, the results of work
//! that must not run twice) travels in `requestState`, and the client, or anyone between, may
//! change it. This module seals it: [`RequestStateCodec::seal`] turns a payload (bytes, or any
//! `Serialize` with [`seal_json`](RequestStateCodec::seal_json)) into an opaque string, and
//! [`RequestStateCodec::open`] gives the payload back on the retry, once.
//!
//! # What it protects against
//!
//! - **Tampering** and **reading**: the state is encrypted and authenticated with
//!   XChaCha20-Poly1305 (RustCrypto's audited `chacha20poly1305`). A client can neither read the
//!   payload and its expiry nor change one bit of the state without it being refused.
//! - **Use out of place**: a state opens only for the request it was issued for. Its
//!   [`Binding`] (the method, a [`ParamsDigest`] of the request's parameters, the principal the
//!   auth hook returned, or none) and the codec's audience (the server's name, so that two
//!   servers sharing a key do not accept each other's states) are the AEAD's associated data:
//!   authenticated, never carried, so a state taken to another tool, other arguments, another
//!   user or another server does not open.
//! - **Staleness**: a state expires [`DEFAULT_TTL`] (10 minutes) after it was sealed unless
//!   [configured](RequestStateConfig::ttl) otherwise; the expiry is inside the ciphertext.
//! - **Replay**: a state opens once. [`open`](RequestStateCodec::open) records it in a
//!   [`ReplayGuard`] and refuses it if it was recorded before.
//! - **Size**: a state longer than [`DEFAULT_MAX_STATE_LEN`] characters (configurable) is refused
//!   before it is decoded, and `seal` refuses to issue one.
//!
//! Every refusal is an [`OpenError`] whose `Display` is "invalid or expired requestState" for
//! every reason (the router answers it `-32602`); the reason, for logs, is
//! [`OpenError::failure`].
//!
//! # What it does not
//!
//! - It is a bearer token for its binding: whoever holds a state may spend it, once, for the
//!   same request by the same principal. On a server with no authentication every caller is the
//!   same (no) principal. The first to spend it wins; the other's retry is refused.
//! - It binds only what it is given: a [`ParamsDigest`] that leaves out an argument lets a state
//!   move between requests that differ in it.
//! - It hides the payload, not its length (the state is as long as the payload, plus 57 bytes,
//!   in base64), nor which key sealed it (the key id is in clear).
//! - Single use is per [`ReplayGuard`]: the default [`MemoryReplayGuard`] is per process.
//! - A handler's work before its first question runs again on every retry; the state carries
//!   results, it does not stop the code that made them from running (the router's docs say what
//!   a tool author must keep safe to repeat).
//!
//! # Keys, and replicas behind a load balancer
//!
//! With no key configured, [`RequestStateConfig::build`] draws a **per-process random key**: a
//! state opens only in the process that sealed it. Behind a load balancer, a retry that lands on
//! another replica (or arrives after a restart) is refused with `-32602`, and the client must
//! start the call over. To let replicas accept each other's retries, give them all the same
//! operator secret ([`StateKey::from_base64`], at least 32 random bytes, from which the AEAD key
//! is derived with HKDF-SHA256) **and a shared [`ReplayGuard`]** (with the per-process default,
//! a state spent on one replica still opens once on each other one). [`KeyRing`] rotates a key
//! without refusing retries in flight: seal with the newest, open with any.
//!
//! # Single use: spent when opened
//!
//! A state is recorded as spent when it is opened, not when the call that carried it completes.
//! Each round of a call issues a new state (with an id of its own), so a retry that needs
//! another round spends the old state and carries on with the new one; nothing is lost by
//! spending early. Spending at open makes the check one atomic step ("record this id, unless it
//! is there"), which any store offers, and closes the window in which two copies of a retry
//! that arrive together would both run the call (spent at completion, both would pass the check
//! before either completed). The price: if the replica dies, or the answer is lost, after the
//! open, the state cannot be retried, and the client starts the call over, as for any call a
//! dying replica drops. So the router opens the state after the checks that need no state
//! (malformed `inputResponses`, say), and refuses a request before spending its state where it
//! can.
//!
//! # Defaults
//!
//! | | default | set with |
//! |---|---|---|
//! | key | per-process random | [`RequestStateConfig::key`], [`RequestStateConfig::keys`] |
//! | TTL | 10 minutes ([`DEFAULT_TTL`]), at most one day ([`MAX_TTL`]) | [`RequestStateConfig::ttl`] |
//! | replay guard | [`MemoryReplayGuard`], 1,000,000 ids ([`DEFAULT_REPLAY_CAPACITY`]); full of unexpired ids, it refuses | [`RequestStateConfig::replay_guard`] |
//! | size | 64 KiB of state ([`DEFAULT_MAX_STATE_LEN`]) | [`RequestStateConfig::max_len`] |
//! | clock | [`SystemClock`] | [`RequestStateConfig::clock`] |
//!
//! # The sealed form
//!
//! URL-safe base64 without padding of `version (1 byte, 1) | key id (8) | nonce (24) |
//! ciphertext of expiry (8, Unix milliseconds) and payload | tag (16)`. The version byte lets the
//! format change; the key id picks the key of the ring without trying each; the nonce, drawn at
//! random for every seal, is the state's [`StateId`] for the replay guard.

mod binding;
mod clock;
mod codec;
mod config;
mod error;
mod key;
mod replay;
mod wire;

#[cfg(test)]
mod tests;

pub use binding::{Binding, ParamsDigest};
pub use clock::{Clock, SystemClock};
pub use codec::RequestStateCodec;
pub use config::{DEFAULT_MAX_STATE_LEN, DEFAULT_TTL, MAX_TTL, RequestStateConfig};
pub use error::{ConfigError, OpenError, OpenFailure, SealError};
pub use key::{KeyError, KeyRing, MIN_SECRET_LEN, StateKey};
pub use replay::{
    DEFAULT_REPLAY_CAPACITY, GuardError, GuardFuture, MemoryReplayGuard, ReplayGuard, STATE_ID_LEN,
    Spend, StateId,
};
