//! [`StoreSessions`]: the session-history helpers (list, info, messages, subagents, rename,
//! tag, fork, delete) on the transcripts a [`SessionStore`] holds, for a host that never ran
//! the sessions.

use std::collections::HashMap;
use std::future::Future;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use serde_json::Value;

use super::{SessionKey, SessionStore, SessionSummaryEntry, StoreError, TranscriptEntry};
use crate::history::fork::fork_lines;
use crate::history::ids::{is_uuid, parse_timestamp};
use crate::history::lite::{Ends, WINDOW, info};
use crate::history::mutate::{tag_line, title_line};
use crate::history::subagents::subagent_messages_of;
use crate::history::{ForkSession, HistoryError, ReadMessages, SessionInfo, messages_of};
use crate::message::Message;

/// The default longest wait for each store call of a [`StoreSessions`] helper.
pub const DEFAULT_STORE_TIMEOUT: Duration = Duration::from_secs(60);

/// Lines per [`SessionStore::append`] when a helper writes many (a fork).
const WRITE_BATCH: usize = 500;

/// The type of line the official SDKs store a subagent's `.meta.json` as, in its transcript.
pub(crate) const AGENT_METADATA: &str = "agent_metadata";

/// The session-history helpers on a [`SessionStore`]: the official SDKs' `listSessions`,
/// `getSessionInfo`, `getSessionMessages`, `listSubagents`, `getSubagentMessages`,
/// `renameSession`, `tagSession`, `forkSession` and `deleteSession` with `sessionStore`. The
/// same answers as [`claude_tools::sessions`](crate::history) gives for local transcripts,
/// read from the store alone, so any host that reaches it can show a "past conversations"
/// screen.
///
/// One project ([`SessionKey::project_key`]) per handle. Every store call is given
/// [`timeout`](Self::timeout); a store that fails or does not answer in time is
/// [`HistoryError::Store`] or [`HistoryError::StoreTimeout`], and nothing of the answer is
/// given (a listing is never short of a session because its load failed).
///
/// ```no_run
/// use claude_tools::session_store::{InMemorySessionStore, ListPage, StoreSessions};
/// use claude_tools::sessions::ReadMessages;
///
/// # async fn run(store: std::sync::Arc<InMemorySessionStore>) -> Result<(), claude_tools::sessions::HistoryError> {
/// let sessions = StoreSessions::for_dir(store, "/srv/app");
/// for info in sessions.list(ListPage::new().limit(20)).await? {
///     println!("{}  {}", info.session_id, info.summary);
/// }
/// # let id = "3f1c2a9e-0b1d-4c55-9a7e-2d8e6f1a4b20";
/// let messages = sessions.messages(id, &ReadMessages::new()).await?;
/// sessions.rename(id, "Billing bug").await?;
/// # Ok(())
/// # }
/// ```
#[derive(Clone)]
pub struct StoreSessions {
    store: Arc<dyn SessionStore>,
    project_key: String,
    cwd: Option<PathBuf>,
    timeout: Duration,
}

impl std::fmt::Debug for StoreSessions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StoreSessions")
            .field("project_key", &self.project_key)
            .field("timeout", &self.timeout)
            .finish_non_exhaustive()
    }
}

/// Which page of sessions [`StoreSessions::list`] gives, newest first.
///
/// ```
/// use claude_tools::session_store::ListPage;
///
/// let second = ListPage::new().offset(20).limit(20);
/// assert_eq!((second.offset, second.limit), (20, Some(20)));
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct ListPage {
    /// At most this many (`None`: all; `Some(0)`: none).
    pub limit: Option<usize>,
    /// Skip this many of the newest first.
    pub offset: usize,
}

impl ListPage {
    /// Every session.
    pub fn new() -> Self {
        Self::default()
    }

    /// At most `limit` sessions.
    pub fn limit(mut self, limit: usize) -> Self {
        self.limit = Some(limit);
        self
    }

    /// Skip the `offset` newest.
    pub fn offset(mut self, offset: usize) -> Self {
        self.offset = offset;
        self
    }
}

/// A listed session before its summary is known to be complete.
enum Summary {
    /// Known from the store's running summary (read into an info for the page only).
    Known(Box<SessionSummaryEntry>),
    /// To be read from the transcript (no summary, or a stale one).
    Load,
}

impl StoreSessions {
    /// The sessions of `project_key` in `store` (the key sessions were mirrored under: by
    /// default [`SessionKey::project_key_for`] their working directory, or
    /// [`SessionStoreOptions::project_key`](crate::options::SessionStoreOptions::project_key)).
    pub fn new(store: impl SessionStore + 'static, project_key: impl Into<String>) -> Self {
        Self {
            store: Arc::new(store),
            project_key: project_key.into(),
            cwd: None,
            timeout: DEFAULT_STORE_TIMEOUT,
        }
    }

    /// The sessions run in `dir`, under the project key the CLI gives it; `dir` is also the
    /// `cwd` reported for a session whose transcript does not say.
    pub fn for_dir(store: impl SessionStore + 'static, dir: impl AsRef<Path>) -> Self {
        let mut sessions = Self::new(store, SessionKey::project_key_for(dir.as_ref()));
        sessions.cwd = Some(dir.as_ref().to_path_buf());
        sessions
    }

    /// The longest wait for each store call (default [`DEFAULT_STORE_TIMEOUT`]).
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// The project key looked in.
    pub fn project_key(&self) -> &str {
        &self.project_key
    }

    /// A store call, given the timeout.
    async fn call<T>(
        &self,
        operation: &'static str,
        call: impl Future<Output = Result<T, StoreError>>,
    ) -> Result<T, HistoryError> {
        match tokio::time::timeout(self.timeout, call).await {
            Ok(Ok(answer)) => Ok(answer),
            Ok(Err(source)) => Err(HistoryError::Store { operation, source }),
            Err(_) => Err(HistoryError::StoreTimeout {
                operation,
                after: self.timeout,
            }),
        }
    }

    /// An optional store call: `None` when the store does not implement it.
    async fn optional<T>(
        &self,
        operation: &'static str,
        call: impl Future<Output = Result<T, StoreError>>,
    ) -> Result<Option<T>, HistoryError> {
        match self.call(operation, call).await {
            Ok(answer) => Ok(Some(answer)),
            Err(HistoryError::Store {
                source: StoreError::Unsupported(_),
                ..
            }) => Ok(None),
            Err(error) => Err(error),
        }
    }

    fn key(&self, session_id: &str) -> Result<SessionKey, HistoryError> {
        if !is_uuid(session_id) {
            return Err(HistoryError::InvalidSessionId(session_id.to_string()));
        }
        Ok(SessionKey::new(&self.project_key, session_id))
    }

    fn not_found(&self, session_id: &str) -> HistoryError {
        HistoryError::NotInStore {
            session_id: session_id.to_string(),
            project_key: self.project_key.clone(),
        }
    }

    /// The main transcript of a session, as the bytes of a transcript file.
    async fn transcript(&self, session_id: &str) -> Result<Vec<u8>, HistoryError> {
        let key = self.key(session_id)?;
        match self.call("load", self.store.load(&key)).await? {
            Some(entries) if !entries.is_empty() => Ok(content(&entries)),
            _ => Err(self.not_found(session_id)),
        }
    }

    /// Lists the project's sessions, newest first, a page of them: the official SDKs'
    /// `listSessions({ sessionStore })`.
    ///
    /// With a store that keeps summaries
    /// ([`list_session_summaries`](SessionStore::list_session_summaries)), one call (and one
    /// [`list_sessions`](SessionStore::list_sessions) to see which are stale); a session
    /// without a summary, or with one older than its last write, is read from its transcript,
    /// as every session of the page is with a store that keeps none. Subagents' transcripts
    /// and sessions with nothing to show yet are left out (so a page may be shorter than its
    /// limit). A store with neither listing is [`StoreError::Unsupported`].
    pub async fn list(&self, page: ListPage) -> Result<Vec<SessionInfo>, HistoryError> {
        let summaries = self
            .optional(
                "list_session_summaries",
                self.store.list_session_summaries(&self.project_key),
            )
            .await?;
        let listed = self
            .optional("list_sessions", self.store.list_sessions(&self.project_key))
            .await?;
        let listed: Option<HashMap<String, SystemTime>> = listed.map(|sessions| {
            sessions
                .into_iter()
                .map(|s| (s.session_id, s.modified))
                .collect()
        });
        let mut sessions: Vec<(String, SystemTime, Summary)> = Vec::new();
        match (summaries, &listed) {
            (None, None) => {
                return Err(HistoryError::Store {
                    operation: "list_sessions",
                    source: StoreError::Unsupported("list_sessions"),
                });
            }
            (Some(summaries), listed) => {
                let mut summarized = std::collections::HashSet::new();
                for summary in summaries {
                    summarized.insert(summary.session_id.clone());
                    let written = listed.as_ref().map(|l| l.get(&summary.session_id));
                    match written {
                        // Deleted since (the listing is the truth of what is there).
                        Some(None) => {}
                        Some(Some(&written)) if summary.mtime < written => {
                            sessions.push((summary.session_id, written, Summary::Load));
                        }
                        _ => {
                            let (id, mtime) = (summary.session_id.clone(), summary.mtime);
                            sessions.push((id, mtime, Summary::Known(Box::new(summary))));
                        }
                    }
                }
                for (id, written) in listed.iter().flatten() {
                    if !summarized.contains(id) {
                        sessions.push((id.clone(), *written, Summary::Load));
                    }
                }
            }
            (None, Some(listed)) => sessions.extend(
                listed
                    .iter()
                    .map(|(id, written)| (id.clone(), *written, Summary::Load)),
            ),
        }
        sessions.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        let page: Vec<_> = sessions
            .into_iter()
            .skip(page.offset)
            .take(page.limit.unwrap_or(usize::MAX))
            .collect();
        let mut infos = Vec::with_capacity(page.len());
        for (id, written, summary) in page {
            let info = match summary {
                Summary::Known(summary) => summary.info(self.cwd.as_deref()),
                Summary::Load => {
                    let key = SessionKey::new(&self.project_key, &id);
                    match self.call("load", self.store.load(&key)).await? {
                        // Deleted between the listing and the load.
                        None => None,
                        Some(entries) if entries.is_empty() => None,
                        Some(entries) => self.info_of(&id, &content(&entries), written),
                    }
                }
            };
            infos.extend(info);
        }
        Ok(infos)
    }

    fn info_of(
        &self,
        session_id: &str,
        content: &[u8],
        modified: SystemTime,
    ) -> Option<SessionInfo> {
        let size = content.len();
        let window = WINDOW as usize;
        let ends = Ends {
            head: String::from_utf8_lossy(&content[..size.min(window)]).into_owned(),
            tail: String::from_utf8_lossy(&content[size.saturating_sub(window)..]).into_owned(),
            size: size as u64,
            modified,
        };
        info(session_id, &ends, self.cwd.as_deref())
    }

    /// One session's summary, read from its transcript: the official SDKs'
    /// `getSessionInfo({ sessionStore })`. Its `last_modified` is its last line's timestamp.
    /// `Ok(None)` for a transcript with nothing to show yet; [`HistoryError::NotInStore`] when
    /// there is none.
    pub async fn info(&self, session_id: &str) -> Result<Option<SessionInfo>, HistoryError> {
        let key = self.key(session_id)?;
        let entries = match self.call("load", self.store.load(&key)).await? {
            Some(entries) if !entries.is_empty() => entries,
            _ => return Err(self.not_found(session_id)),
        };
        let modified = entries
            .iter()
            .rev()
            .find_map(|e| e.timestamp().and_then(parse_timestamp))
            .unwrap_or_else(SystemTime::now);
        Ok(self.info_of(session_id, &content(&entries), modified))
    }

    /// A session's conversation, as [`session_messages`](crate::history::session_messages)
    /// gives it (`options.lookup` is not used): the official SDKs'
    /// `getSessionMessages({ sessionStore })`.
    pub async fn messages(
        &self,
        session_id: &str,
        options: &ReadMessages,
    ) -> Result<Vec<Message>, HistoryError> {
        let content = self.transcript(session_id).await?;
        Ok(messages_of(&content, options))
    }

    /// The ids of a session's subagents that left a transcript in the store: the official
    /// SDKs' `listSubagents({ sessionStore })` (needs
    /// [`list_subkeys`](SessionStore::list_subkeys)).
    pub async fn subagents(&self, session_id: &str) -> Result<Vec<String>, HistoryError> {
        let key = self.key(session_id)?;
        let subkeys = self
            .call("list_subkeys", self.store.list_subkeys(&key))
            .await?;
        let mut ids: Vec<String> = subkeys.iter().filter_map(|s| agent_id(s)).collect();
        ids.sort();
        ids.dedup();
        Ok(ids)
    }

    /// A subagent's conversation, as [`subagent_messages`](crate::history::subagent_messages)
    /// gives it (its `parent_tool_use_id` from the transcript's `agent_metadata` line, which
    /// [`import_session`](super::import_session) writes): the official SDKs'
    /// `getSubagentMessages({ sessionStore })`.
    pub async fn subagent_messages(
        &self,
        session_id: &str,
        agent_id_wanted: &str,
        options: &ReadMessages,
    ) -> Result<Vec<Message>, HistoryError> {
        if agent_id_wanted.is_empty() || agent_id_wanted.contains(['/', '\\', '\0']) {
            return Err(HistoryError::InvalidAgentId(agent_id_wanted.to_string()));
        }
        let key = self.key(session_id)?;
        let not_found = || HistoryError::SubagentNotFound {
            session_id: session_id.to_string(),
            agent_id: agent_id_wanted.to_string(),
        };
        let subpath = match self
            .optional("list_subkeys", self.store.list_subkeys(&key))
            .await?
        {
            Some(subkeys) => subkeys
                .into_iter()
                .find(|s| agent_id(s).as_deref() == Some(agent_id_wanted))
                .ok_or_else(not_found)?,
            None => format!("subagents/agent-{agent_id_wanted}"),
        };
        let entries = match self
            .call("load", self.store.load(&key.with_subpath(subpath)))
            .await?
        {
            Some(entries) if !entries.is_empty() => entries,
            _ => return Err(not_found()),
        };
        let (meta, lines): (Vec<_>, Vec<_>) = entries
            .into_iter()
            .partition(|e| e.entry_type() == AGENT_METADATA);
        let meta: Option<Value> = meta.last().map(TranscriptEntry::to_value);
        Ok(subagent_messages_of(
            &content(&lines),
            meta.as_ref(),
            options,
        ))
    }

    /// Renames a session: appends a `custom-title` line to its transcript in the store (see
    /// [`rename_session`](crate::history::rename_session)); the official SDKs'
    /// `renameSession({ sessionStore })`. The session must be in the store.
    pub async fn rename(&self, session_id: &str, title: &str) -> Result<(), HistoryError> {
        let line = title_line(session_id, title)?;
        self.append_line(session_id, line).await
    }

    /// Tags a session (`Some`) or clears its tag (`None`) in the store (see
    /// [`tag_session`](crate::history::tag_session)): the official SDKs'
    /// `tagSession({ sessionStore })`. The session must be in the store.
    pub async fn tag(&self, session_id: &str, tag: Option<&str>) -> Result<(), HistoryError> {
        let line = tag_line(session_id, tag)?;
        self.append_line(session_id, line).await
    }

    async fn append_line(
        &self,
        session_id: &str,
        line: serde_json::Map<String, Value>,
    ) -> Result<(), HistoryError> {
        let key = self.key(session_id)?;
        // A title or tag alone would make a session of nothing.
        self.transcript(session_id).await?;
        let entry = TranscriptEntry::from_value(&Value::Object(line)).map_err(|source| {
            HistoryError::Store {
                operation: "append",
                source,
            }
        })?;
        self.call("append", self.store.append(&key, &[entry])).await
    }

    /// Deletes a session and its subagents' transcripts from the store
    /// ([`SessionStore::delete`]): the official SDKs' `deleteSession({ sessionStore })`. A
    /// store that cannot delete is [`StoreError::Unsupported`] (where the SDKs do nothing); a
    /// session the store does not hold is not an error.
    pub async fn delete(&self, session_id: &str) -> Result<(), HistoryError> {
        let key = self.key(session_id)?;
        self.call("delete", self.store.delete(&key)).await
    }

    /// Forks a session in the store (see [`fork_session`](crate::history::fork_session);
    /// `options.lookup` is not used) and gives the fork's id: the official SDKs'
    /// `forkSession({ sessionStore })`. Should writing the fork fail part way, what was
    /// written is deleted again (when the store can) and the error is given.
    pub async fn fork(
        &self,
        session_id: &str,
        options: &ForkSession,
    ) -> Result<String, HistoryError> {
        let content = self.transcript(session_id).await?;
        let origin = PathBuf::from(format!("{}/{session_id}", self.project_key));
        let (fork_id, lines) = fork_lines(&content, session_id, options, &origin)?;
        let entries = lines
            .iter()
            .map(TranscriptEntry::from_value)
            .collect::<Result<Vec<_>, _>>()
            .map_err(|source| HistoryError::Store {
                operation: "append",
                source,
            })?;
        let key = SessionKey::new(&self.project_key, &fork_id);
        for batch in entries.chunks(WRITE_BATCH) {
            if let Err(error) = self.call("append", self.store.append(&key, batch)).await {
                let _ = self.call("delete", self.store.delete(&key)).await;
                return Err(error);
            }
        }
        Ok(fork_id)
    }
}

/// The subagent id a subkey names (`subagents/…/agent-<id>`).
fn agent_id(subpath: &str) -> Option<String> {
    if !subpath.starts_with("subagents/") {
        return None;
    }
    let last = subpath.rsplit('/').next()?;
    last.strip_prefix("agent-")
        .filter(|id| !id.is_empty())
        .map(str::to_owned)
}

/// Lines as the bytes of a transcript file.
fn content(entries: &[TranscriptEntry]) -> Vec<u8> {
    let mut bytes = Vec::with_capacity(entries.iter().map(|e| e.len() + 1).sum());
    for entry in entries {
        bytes.extend_from_slice(entry.json().as_bytes());
        bytes.push(b'\n');
    }
    bytes
}
