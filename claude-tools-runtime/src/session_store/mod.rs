//! Session stores: an agent session's transcript mirrored into storage of the application's,
//! so that the session outlives its process and its machine and can be resumed on another
//! host — the official SDKs' `sessionStore`.
//!
//! # How it works
//!
//! With [`Options::session_store`](crate::options::Options::session_store) set, the CLI is
//! launched with `--session-mirror`: it still writes its transcript under its config dir, and
//! after each local write it also sends the lines it wrote on stdout (`transcript_mirror`
//! frames, which never reach the message stream). The session hands them to a writer task that
//! appends them to the store in batches ([`SessionStore::append`]), off the path of the
//! session: a slow or failing store never holds the session up.
//!
//! Resuming ([`Options::resume`](crate::options::Options::resume)) with a store set first loads
//! the session from the store ([`SessionStore::load`], and its subagents' transcripts when the
//! store can [list them](SessionStore::list_subkeys)) and writes it where the CLI looks for it,
//! under the config dir the session runs with, before the CLI starts: a host that never ran
//! the session resumes it from the store alone. A session id the store has no transcript of
//! fails the start ([`Error::SessionNotInStore`](crate::Error::SessionNotInStore)) rather than
//! resuming a local transcript behind the store's back.
//!
//! # Batches, the bound, and failures
//!
//! - Lines are appended per transcript in the order the CLI wrote them, in batches: at each
//!   `result`, when more than [`FLUSH_ENTRIES`] lines or [`FLUSH_BYTES`] are waiting, and at the
//!   session's end ([`SessionStoreFlush::Eager`](crate::options::SessionStoreFlush::Eager):
//!   after every frame). The session's end waits for the last batch (at most the append
//!   timeout, 60 s by default, per attempt).
//! - A batch that fails is tried 3 times (0.2 s and 0.8 s apart), then **kept** and tried again
//!   with the next batch; each failed round is reported in the message stream as a
//!   `system`/`mirror_error` message ([`MirrorError`], `will_retry: true`).
//! - What waits for the store is bounded ([`SessionStoreOptions::buffer_limit`], default
//!   [`DEFAULT_BUFFER_LIMIT`], 64 MiB of lines). When a store has fallen that far behind, the
//!   transcript whose line did not fit stops being mirrored for the rest of the session: the
//!   store keeps a whole, ordered beginning of it (never a transcript with a hole), and a
//!   [`MirrorError`] with `will_retry: false` names the transcript, how many lines are not in
//!   the store and the local file that has them all. Lines still waiting when the session
//!   ends and the last round fails are reported the same way.
//!
//! So nothing is lost silently: every line is either in the store, or counted in a
//! `mirror_error` message naming the local transcript it is in (which
//! [`import_transcript`] can copy into the store later).
//!
//! # Past conversations
//!
//! [`StoreSessions`] lists, reads, renames, tags, forks and deletes the sessions a store holds,
//! on any host; [`import_session`] copies a session run without a store (and its subagents) in.
//!
//! A store should treat an entry's [`uuid`](TranscriptEntry::uuid) as an idempotency key (a
//! batch that timed out may have landed, and is sent again); both stores here do.
//!
//! # A store of your own
//!
//! Implement [`SessionStore`] and check it with [`conformance::Conformance`] from a test: the
//! contracts above (and the Python SDK's conformance suite's), each named when broken.
//!
//! [`SessionStoreOptions::buffer_limit`]: crate::options::SessionStoreOptions::buffer_limit

pub mod conformance;
mod entry;
mod import;
mod key;
mod memory;
pub(crate) mod mirror;
mod mirror_error;
#[cfg(feature = "postgres")]
mod postgres;
pub(crate) mod resume;
mod sessions;
mod summary;

use std::future::Future;
use std::pin::Pin;
use std::time::SystemTime;

pub use entry::{EntryKind, TranscriptEntry};
pub use import::{ImportSession, import_session, import_transcript};
pub use key::SessionKey;
pub use memory::InMemorySessionStore;
pub use mirror::{DEFAULT_APPEND_TIMEOUT, DEFAULT_BUFFER_LIMIT, FLUSH_BYTES, FLUSH_ENTRIES};
pub use mirror_error::MirrorError;
#[cfg(feature = "postgres")]
pub use postgres::{DEFAULT_TABLE, PostgresSessionStore};
pub use resume::DEFAULT_LOAD_TIMEOUT;
pub use sessions::{DEFAULT_STORE_TIMEOUT, ListPage, StoreSessions};
pub use summary::{SessionSummaryEntry, SummaryData, fold_session_summary};

/// What a [`SessionStore`] method returns: a boxed future, so that stores can be used as
/// `Arc<dyn SessionStore>`.
pub type StoreFuture<'a, T> = Pin<Box<dyn Future<Output = Result<T, StoreError>> + Send + 'a>>;

/// Why a store operation failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum StoreError {
    /// The store does not implement this optional operation.
    #[error("this session store does not support {0}")]
    Unsupported(&'static str),
    /// A line that is not a transcript line (not a JSON object with a string `type`).
    #[error("{0}")]
    InvalidEntry(String),
    /// A key that cannot name a transcript (its session id is not a UUID, or its subpath
    /// climbs out of the session's folder).
    #[error("the session key {0} cannot name a transcript")]
    InvalidKey(SessionKey),
    /// The store's backend failed (a database error, an I/O error…).
    #[error("the session store failed: {0}")]
    Backend(#[source] Box<dyn std::error::Error + Send + Sync>),
}

impl StoreError {
    /// A backend failure from any error.
    pub fn backend(error: impl Into<Box<dyn std::error::Error + Send + Sync>>) -> Self {
        StoreError::Backend(error.into())
    }
}

/// A session a store holds, as [`SessionStore::list_sessions`] gives it.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct StoredSession {
    /// The session id.
    pub session_id: String,
    /// When the store last appended to its main transcript.
    pub modified: SystemTime,
}

impl StoredSession {
    /// A listed session.
    pub fn new(session_id: impl Into<String>, modified: SystemTime) -> Self {
        Self {
            session_id: session_id.into(),
            modified,
        }
    }
}

/// Storage for session transcripts: the official SDKs' `SessionStore` contract.
///
/// Only [`append`](Self::append) and [`load`](Self::load) are required; the others answer
/// [`StoreError::Unsupported`] unless implemented. Implement it with boxed futures
/// (`Box::pin(async move { … })`), so that a store can be shared as `Arc<dyn SessionStore>`:
///
/// ```
/// use std::collections::HashMap;
/// use std::sync::Mutex;
///
/// use claude_tools::session_store::{SessionKey, SessionStore, StoreFuture, TranscriptEntry};
///
/// #[derive(Default)]
/// struct Lines(Mutex<HashMap<SessionKey, Vec<TranscriptEntry>>>);
///
/// impl SessionStore for Lines {
///     fn append<'a>(&'a self, key: &'a SessionKey, entries: &'a [TranscriptEntry]) -> StoreFuture<'a, ()> {
///         Box::pin(async move {
///             self.0.lock().unwrap().entry(key.clone()).or_default().extend_from_slice(entries);
///             Ok(())
///         })
///     }
///     fn load<'a>(&'a self, key: &'a SessionKey) -> StoreFuture<'a, Option<Vec<TranscriptEntry>>> {
///         Box::pin(async move { Ok(self.0.lock().unwrap().get(key).cloned()) })
///     }
/// }
/// ```
pub trait SessionStore: Send + Sync {
    /// Appends a batch of lines to the transcript `key`, after those appended before, in order.
    ///
    /// Called after the CLI's own local write, from the session's writer task, one call at a
    /// time per session. Lines with a [`uuid`](TranscriptEntry::uuid) should be deduplicated
    /// on it (a batch may be sent again after a timeout); lines without one are appended.
    fn append<'a>(
        &'a self,
        key: &'a SessionKey,
        entries: &'a [TranscriptEntry],
    ) -> StoreFuture<'a, ()>;

    /// The whole transcript `key`, in order; `None` when it was never written.
    fn load<'a>(&'a self, key: &'a SessionKey) -> StoreFuture<'a, Option<Vec<TranscriptEntry>>>;

    /// The sessions of a project (main transcripts only), in any order.
    fn list_sessions<'a>(&'a self, project_key: &'a str) -> StoreFuture<'a, Vec<StoredSession>> {
        let _ = project_key;
        Box::pin(async { Err(StoreError::Unsupported("list_sessions")) })
    }

    /// The running summary of every session of a project (main transcripts only), in any
    /// order, which the store keeps with [`fold_session_summary`] as it appends: a listing
    /// ([`StoreSessions::list`]) then needs this one call instead of a load per session.
    fn list_session_summaries<'a>(
        &'a self,
        project_key: &'a str,
    ) -> StoreFuture<'a, Vec<SessionSummaryEntry>> {
        let _ = project_key;
        Box::pin(async { Err(StoreError::Unsupported("list_session_summaries")) })
    }

    /// Deletes a transcript; deleting a main transcript (no subpath) deletes its subagents'
    /// transcripts too.
    fn delete<'a>(&'a self, key: &'a SessionKey) -> StoreFuture<'a, ()> {
        let _ = key;
        Box::pin(async { Err(StoreError::Unsupported("delete")) })
    }

    /// The subpaths of a session's other transcripts (its subagents'), for resuming them too.
    fn list_subkeys<'a>(&'a self, session: &'a SessionKey) -> StoreFuture<'a, Vec<String>> {
        let _ = session;
        Box::pin(async { Err(StoreError::Unsupported("list_subkeys")) })
    }
}
