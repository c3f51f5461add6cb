//! The store's operations as the checks make them: each bounded by the suite's timeout, with
//! its error as the failing contract's reason; and the probe for the optional methods a store
//! does not implement.

use std::time::{Duration, SystemTime};

use serde_json::Value;

use super::Capability;
use super::fixtures::{NEVER, as_json, at, sorted};
use crate::session_store::{
    SessionKey, SessionStore, SessionSummaryEntry, StoreError, StoreFuture, TranscriptEntry,
};

/// The store's operations, each bounded and with its errors as the contract's reason.
pub(super) struct Ops {
    pub(super) timeout: Duration,
}

impl Ops {
    pub(super) async fn op<T>(&self, what: &str, future: StoreFuture<'_, T>) -> Result<T, String> {
        match tokio::time::timeout(self.timeout, future).await {
            Ok(Ok(value)) => Ok(value),
            Ok(Err(error)) => Err(format!("{what} failed: {error}")),
            Err(_) => Err(format!("{what} did not answer within {:?}", self.timeout)),
        }
    }

    pub(super) async fn append(
        &self,
        store: &dyn SessionStore,
        key: &SessionKey,
        entries: &[TranscriptEntry],
    ) -> Result<(), String> {
        self.op(&format!("append to {key}"), store.append(key, entries))
            .await
    }

    pub(super) async fn load(
        &self,
        store: &dyn SessionStore,
        key: &SessionKey,
    ) -> Result<Option<Vec<Value>>, String> {
        let loaded = self.op(&format!("load of {key}"), store.load(key)).await?;
        Ok(as_json(&loaded))
    }

    pub(super) async fn session_ids(
        &self,
        store: &dyn SessionStore,
        project: &str,
    ) -> Result<Vec<String>, String> {
        let listed = self
            .op(
                &format!("list_sessions({project:?})"),
                store.list_sessions(project),
            )
            .await?;
        Ok(sorted(listed.into_iter().map(|s| s.session_id).collect()))
    }

    pub(super) async fn modified(
        &self,
        store: &dyn SessionStore,
        session: &SessionKey,
    ) -> Result<SystemTime, String> {
        let listed = self
            .op(
                &format!("list_sessions({:?})", session.project_key),
                store.list_sessions(&session.project_key),
            )
            .await?;
        listed
            .into_iter()
            .find(|s| s.session_id == session.session_id)
            .map(|s| s.modified)
            .ok_or_else(|| format!("list_sessions does not list {session}"))
    }

    pub(super) async fn summaries(
        &self,
        store: &dyn SessionStore,
        project: &str,
    ) -> Result<Vec<SessionSummaryEntry>, String> {
        self.op(
            &format!("list_session_summaries({project:?})"),
            store.list_session_summaries(project),
        )
        .await
    }

    pub(super) async fn delete(
        &self,
        store: &dyn SessionStore,
        key: &SessionKey,
    ) -> Result<(), String> {
        self.op(&format!("delete of {key}"), store.delete(key))
            .await
    }

    pub(super) async fn subkeys(
        &self,
        store: &dyn SessionStore,
        session: &SessionKey,
    ) -> Result<Vec<String>, String> {
        let subkeys = self
            .op(
                &format!("list_subkeys({session})"),
                store.list_subkeys(session),
            )
            .await?;
        Ok(sorted(subkeys))
    }

    /// The optional methods a fresh store answers with [`StoreError::Unsupported`] (any other
    /// answer, an error included, counts as implemented: its contracts will say what is wrong).
    pub(super) async fn unsupported(&self, store: &dyn SessionStore) -> Vec<Capability> {
        let probe = at("conformance-probe", NEVER);
        let mut lacks = Vec::new();
        if self.lacks(store.list_sessions(&probe.project_key)).await {
            lacks.push(Capability::ListSessions);
        }
        if self
            .lacks(store.list_session_summaries(&probe.project_key))
            .await
        {
            lacks.push(Capability::ListSessionSummaries);
        }
        if self.lacks(store.list_subkeys(&probe)).await {
            lacks.push(Capability::ListSubkeys);
        }
        if self.lacks(store.delete(&probe)).await {
            lacks.push(Capability::Delete);
        }
        lacks
    }

    /// Whether an optional method answered that it is not implemented.
    async fn lacks<T>(&self, future: StoreFuture<'_, T>) -> bool {
        matches!(
            tokio::time::timeout(self.timeout, future).await,
            Ok(Err(StoreError::Unsupported(_)))
        )
    }
}
