//! Mirroring the session's transcript into a [`SessionStore`], and resuming from one.

use std::sync::Arc;
use std::time::Duration;

use super::Options;
use crate::session_store::SessionStore;
use crate::session_store::mirror::{DEFAULT_APPEND_TIMEOUT, DEFAULT_BUFFER_LIMIT};
use crate::session_store::resume::DEFAULT_LOAD_TIMEOUT;

/// When mirrored lines are appended to the store; see [`SessionStoreOptions::flush`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum SessionStoreFlush {
    /// In batches: at each `result`, when more than
    /// [`FLUSH_ENTRIES`](crate::session_store::FLUSH_ENTRIES) lines or
    /// [`FLUSH_BYTES`](crate::session_store::FLUSH_BYTES) are waiting, and at the end. The
    /// default.
    #[default]
    Batched,
    /// After every frame of the CLI's (frames that come while a batch is being appended join
    /// the next one).
    Eager,
}

/// A [`SessionStore`] and how the session uses it: what [`Options::session_store`] takes (a
/// store alone converts into one with the defaults).
///
/// ```
/// use std::time::Duration;
/// use claude_tools::Options;
/// use claude_tools::options::SessionStoreOptions;
/// use claude_tools::session_store::InMemorySessionStore;
///
/// let store = InMemorySessionStore::shared();
/// let options = Options::new().session_store(
///     SessionStoreOptions::new(store.clone())
///         .buffer_limit(8 << 20)
///         .load_timeout(Duration::from_secs(5))
///         .project_key("ticket-bot"),
/// );
/// assert!(options.launch_spec().args.contains(&"--session-mirror".to_string()));
/// ```
#[derive(Clone)]
pub struct SessionStoreOptions {
    pub(crate) store: Arc<dyn SessionStore>,
    pub(crate) flush: SessionStoreFlush,
    pub(crate) buffer_limit: usize,
    pub(crate) append_timeout: Duration,
    pub(crate) load_timeout: Duration,
    pub(crate) project_key: Option<String>,
}

impl SessionStoreOptions {
    /// `store` with the defaults.
    pub fn new(store: impl SessionStore + 'static) -> Self {
        Self {
            store: Arc::new(store),
            flush: SessionStoreFlush::Batched,
            buffer_limit: DEFAULT_BUFFER_LIMIT,
            append_timeout: DEFAULT_APPEND_TIMEOUT,
            load_timeout: DEFAULT_LOAD_TIMEOUT,
            project_key: None,
        }
    }

    /// When lines are appended (default [`SessionStoreFlush::Batched`]).
    pub fn flush(mut self, flush: SessionStoreFlush) -> Self {
        self.flush = flush;
        self
    }

    /// The most bytes of lines held for a store that is behind or failing (default
    /// [`DEFAULT_BUFFER_LIMIT`](crate::session_store::DEFAULT_BUFFER_LIMIT), 64 MiB). A
    /// transcript whose lines would pass it stops being mirrored for the rest of the session,
    /// which goes on; see [the module docs](crate::session_store#batches-the-bound-and-failures).
    pub fn buffer_limit(mut self, bytes: usize) -> Self {
        self.buffer_limit = bytes;
        self
    }

    /// The longest wait for one append (default 60 s). A batch that times out is kept and sent
    /// again with the next one.
    pub fn append_timeout(mut self, timeout: Duration) -> Self {
        self.append_timeout = timeout;
        self
    }

    /// The longest wait for each load (and listing) when resuming (default 60 s); past it the
    /// session does not start ([`Error::SessionStore`](crate::Error::SessionStore)).
    pub fn load_timeout(mut self, timeout: Duration) -> Self {
        self.load_timeout = timeout;
        self
    }

    /// The project key the session's transcripts are stored under, instead of the working
    /// directory's folder name: for hosts that run the same project under different paths,
    /// or to keep tenants apart.
    pub fn project_key(mut self, key: impl Into<String>) -> Self {
        self.project_key = Some(key.into());
        self
    }
}

impl<S: SessionStore + 'static> From<S> for SessionStoreOptions {
    fn from(store: S) -> Self {
        SessionStoreOptions::new(store)
    }
}

impl std::fmt::Debug for SessionStoreOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SessionStoreOptions")
            .field("flush", &self.flush)
            .field("buffer_limit", &self.buffer_limit)
            .field("append_timeout", &self.append_timeout)
            .field("load_timeout", &self.load_timeout)
            .field("project_key", &self.project_key)
            .finish_non_exhaustive()
    }
}

impl Options {
    /// Mirrors the session's transcript into `store` (the official SDKs' `sessionStore`), and
    /// resumes from it: with [`resume`](Self::resume) (or
    /// [`continue_conversation`](Self::continue_conversation)) the session is loaded from the
    /// store and written under the CLI's config dir before the CLI starts, so any host sharing
    /// the store can resume it.
    ///
    /// The CLI is launched with `--session-mirror`; its `transcript_mirror` frames are taken off
    /// the message stream and appended to the store in batches by a task of the session's,
    /// never holding the session up. A store that fails or falls behind is reported in the
    /// stream as [`MirrorError`](crate::session_store::MirrorError)s; see
    /// [`session_store`](crate::session_store) for the batches, the bound and what happens at
    /// it.
    ///
    /// ```no_run
    /// use claude_tools::session_store::InMemorySessionStore;
    /// use claude_tools::{Client, Options};
    ///
    /// # async fn run() -> claude_tools::Result<()> {
    /// let store = InMemorySessionStore::shared();
    /// let mut first = Client::connect(Options::new().session_store(store.clone())).await?;
    /// # let session_id = String::new();
    /// // … a conversation, then on any host sharing the store:
    /// let resumed = Client::connect(Options::new().session_store(store).resume(session_id)).await?;
    /// # Ok(())
    /// # }
    /// ```
    pub fn session_store(mut self, store: impl Into<SessionStoreOptions>) -> Self {
        self.session_store = Some(store.into());
        self
    }
}
