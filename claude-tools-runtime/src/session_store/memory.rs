//! [`InMemorySessionStore`]: the reference store, in this process's memory.

use std::collections::{BTreeMap, HashSet};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, SystemTime};

use super::{
    SessionKey, SessionStore, SessionSummaryEntry, StoreFuture, StoredSession, TranscriptEntry,
    fold_session_summary,
};

/// A [`SessionStore`] in memory: for tests, development, and sharing sessions between clients
/// of one process. Lost when the process exits.
///
/// Lines with a [`uuid`](TranscriptEntry::uuid) already in a transcript are not appended again
/// (a batch sent twice stays once); all the optional operations are implemented, summaries
/// ([`fold_session_summary`]) included.
///
/// ```
/// use claude_tools::session_store::{InMemorySessionStore, SessionKey, SessionStore, TranscriptEntry};
///
/// # tokio_test_block(async {
/// let store = InMemorySessionStore::new();
/// let key = SessionKey::new("-srv-app", "3f1c2a9e-0b1d-4c55-9a7e-2d8e6f1a4b20");
/// let line = TranscriptEntry::from_json(r#"{"type":"user","uuid":"u1"}"#).unwrap();
/// store.append(&key, &[line.clone(), line.clone()]).await.unwrap();
/// assert_eq!(store.load(&key).await.unwrap(), Some(vec![line]));
/// # });
/// # fn tokio_test_block(f: impl std::future::Future<Output = ()>) {
/// #     tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(f)
/// # }
/// ```
#[derive(Debug, Default)]
pub struct InMemorySessionStore {
    state: Mutex<State>,
}

#[derive(Debug, Default)]
struct State {
    transcripts: BTreeMap<SessionKey, Transcript>,
    /// The running summary of each main transcript, folded as it is appended to.
    summaries: BTreeMap<SessionKey, SessionSummaryEntry>,
    last_write: Option<SystemTime>,
}

#[derive(Debug)]
struct Transcript {
    entries: Vec<TranscriptEntry>,
    uuids: HashSet<Box<str>>,
    modified: SystemTime,
}

impl InMemorySessionStore {
    /// An empty store.
    pub fn new() -> Self {
        Self::default()
    }

    /// An empty store, shared (what [`Options::session_store`](crate::options::Options::session_store)
    /// takes, with a handle kept to read it).
    pub fn shared() -> Arc<Self> {
        Arc::new(Self::new())
    }

    /// Every line of the transcript `key` (none when it was never written).
    pub fn entries(&self, key: &SessionKey) -> Vec<TranscriptEntry> {
        self.lock()
            .transcripts
            .get(key)
            .map(|t| t.entries.clone())
            .unwrap_or_default()
    }

    /// Every transcript key the store holds, sorted.
    pub fn keys(&self) -> Vec<SessionKey> {
        self.lock().transcripts.keys().cloned().collect()
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        // Every update below leaves the maps consistent before it could panic.
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }
}

impl State {
    /// A write time later than the last one, so back-to-back appends order by it.
    fn next_write_time(&mut self) -> SystemTime {
        let now = SystemTime::now();
        let time = match self.last_write {
            Some(last) if now <= last => last + Duration::from_millis(1),
            _ => now,
        };
        self.last_write = Some(time);
        time
    }
}

impl SessionStore for InMemorySessionStore {
    fn append<'a>(
        &'a self,
        key: &'a SessionKey,
        entries: &'a [TranscriptEntry],
    ) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            if entries.is_empty() {
                return Ok(());
            }
            let mut state = self.lock();
            let modified = state.next_write_time();
            if key.subpath.is_none() {
                let prev = state.summaries.remove(key);
                let folded = fold_session_summary(prev, key, entries, Some(modified));
                state.summaries.insert(key.clone(), folded);
            }
            let transcript = state
                .transcripts
                .entry(key.clone())
                .or_insert_with(|| Transcript {
                    entries: Vec::new(),
                    uuids: HashSet::new(),
                    modified,
                });
            for entry in entries {
                if let Some(uuid) = entry.uuid()
                    && !transcript.uuids.insert(uuid.into())
                {
                    continue;
                }
                transcript.entries.push(entry.clone());
            }
            transcript.modified = modified;
            Ok(())
        })
    }

    fn load<'a>(&'a self, key: &'a SessionKey) -> StoreFuture<'a, Option<Vec<TranscriptEntry>>> {
        Box::pin(async move { Ok(self.lock().transcripts.get(key).map(|t| t.entries.clone())) })
    }

    fn list_sessions<'a>(&'a self, project_key: &'a str) -> StoreFuture<'a, Vec<StoredSession>> {
        Box::pin(async move {
            Ok(self
                .lock()
                .transcripts
                .iter()
                .filter(|(key, _)| key.project_key == project_key && key.subpath.is_none())
                .map(|(key, t)| StoredSession::new(&key.session_id, t.modified))
                .collect())
        })
    }

    fn list_session_summaries<'a>(
        &'a self,
        project_key: &'a str,
    ) -> StoreFuture<'a, Vec<SessionSummaryEntry>> {
        Box::pin(async move {
            Ok(self
                .lock()
                .summaries
                .iter()
                .filter(|(key, _)| key.project_key == project_key)
                .map(|(_, summary)| summary.clone())
                .collect())
        })
    }

    fn delete<'a>(&'a self, key: &'a SessionKey) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            let mut state = self.lock();
            match &key.subpath {
                Some(_) => {
                    state.transcripts.remove(key);
                }
                None => {
                    state.transcripts.retain(|k, _| k.session() != *key);
                    state.summaries.remove(key);
                }
            }
            Ok(())
        })
    }

    fn list_subkeys<'a>(&'a self, session: &'a SessionKey) -> StoreFuture<'a, Vec<String>> {
        Box::pin(async move {
            let session = session.session();
            Ok(self
                .lock()
                .transcripts
                .keys()
                .filter(|k| k.session() == session)
                .filter_map(|k| k.subpath.clone())
                .collect())
        })
    }
}

/// A shared store is a store (so `Arc<InMemorySessionStore>`, or any `Arc<dyn SessionStore>`,
/// can be handed to the options while the application keeps a handle).
impl<S: SessionStore + ?Sized> SessionStore for Arc<S> {
    fn append<'a>(
        &'a self,
        key: &'a SessionKey,
        entries: &'a [TranscriptEntry],
    ) -> StoreFuture<'a, ()> {
        (**self).append(key, entries)
    }
    fn load<'a>(&'a self, key: &'a SessionKey) -> StoreFuture<'a, Option<Vec<TranscriptEntry>>> {
        (**self).load(key)
    }
    fn list_sessions<'a>(&'a self, project_key: &'a str) -> StoreFuture<'a, Vec<StoredSession>> {
        (**self).list_sessions(project_key)
    }
    fn list_session_summaries<'a>(
        &'a self,
        project_key: &'a str,
    ) -> StoreFuture<'a, Vec<SessionSummaryEntry>> {
        (**self).list_session_summaries(project_key)
    }
    fn delete<'a>(&'a self, key: &'a SessionKey) -> StoreFuture<'a, ()> {
        (**self).delete(key)
    }
    fn list_subkeys<'a>(&'a self, session: &'a SessionKey) -> StoreFuture<'a, Vec<String>> {
        (**self).list_subkeys(session)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ID: &str = "3f1c2a9e-0b1d-4c55-9a7e-2d8e6f1a4b20";

    fn line(json: &str) -> TranscriptEntry {
        TranscriptEntry::from_json(json).unwrap()
    }

    #[tokio::test]
    async fn appends_in_order_dedupes_by_uuid_lists_and_deletes() {
        let store = InMemorySessionStore::new();
        let main = SessionKey::new("p", ID);
        let agent = main.clone().with_subpath("subagents/agent-1");
        let (a, b, t) = (
            line(r#"{"type":"user","uuid":"a"}"#),
            line(r#"{"type":"assistant","uuid":"b"}"#),
            line(r#"{"type":"tag","tag":"x"}"#),
        );
        assert_eq!(store.load(&main).await.unwrap(), None);
        store.append(&main, &[a.clone(), t.clone()]).await.unwrap();
        store
            .append(&main, &[a.clone(), b.clone(), t.clone()])
            .await
            .unwrap();
        store
            .append(&agent, std::slice::from_ref(&b))
            .await
            .unwrap();
        assert_eq!(
            store.load(&main).await.unwrap(),
            Some(vec![a, t.clone(), b.clone(), t])
        );
        let listed = store.list_sessions("p").await.unwrap();
        assert_eq!(
            listed
                .iter()
                .map(|s| s.session_id.as_str())
                .collect::<Vec<_>>(),
            [ID]
        );
        assert_eq!(
            store.list_subkeys(&main).await.unwrap(),
            ["subagents/agent-1"]
        );
        store.delete(&main).await.unwrap();
        assert_eq!(store.keys(), Vec::<SessionKey>::new());
    }
}
