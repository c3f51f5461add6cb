//! The contracts of the optional methods: `list_sessions` and its clock,
//! `list_session_summaries`, `delete` and `list_subkeys`.

use std::time::Duration;

use super::fixtures::{
    AGENT_1, AGENT_2, NEVER, SESS, SESS2, SESS3, at, line, lines, main_key, millis, sorted, sub,
};
use super::ops::Ops;
use crate::session_store::{SessionStore, fold_session_summary};

/// How long the listing's clock contract waits between two appends, so that a store whose
/// times have millisecond resolution (the SDKs' `mtime` is epoch milliseconds) shows them apart.
const CLOCK_STEP: Duration = Duration::from_millis(25);

/// 2001-09-09 in epoch milliseconds: a listed time before it was written in seconds, or
/// not written at all (the Python suite's `mtime > 1e12`).
const PLAUSIBLE_MILLIS: u128 = 1_000_000_000_000;

impl Ops {
    pub(super) async fn list_sessions(&self, store: &dyn SessionStore) -> Result<(), String> {
        let one = [line(serde_json::json!({"n": 1}))?];
        for key in [at("proj", SESS), at("proj", SESS2), at("other", SESS3)] {
            self.append(store, &key, &one).await?;
        }
        let listed = self
            .op("list_sessions(\"proj\")", store.list_sessions("proj"))
            .await?;
        let ids = sorted(listed.iter().map(|s| s.session_id.clone()).collect());
        ensure!(
            ids == sorted(vec![SESS.to_string(), SESS2.to_string()]),
            "list_sessions(\"proj\") gives {ids:?}"
        );
        for session in &listed {
            ensure!(
                millis(session.modified) > PLAUSIBLE_MILLIS,
                "{} is listed as modified at {:?}, before 2001: is the store's time in seconds?",
                session.session_id,
                session.modified
            );
        }
        let none = self.session_ids(store, "never-appended-project").await?;
        ensure!(none.is_empty(), "an unknown project lists {none:?}");
        Ok(())
    }

    pub(super) async fn list_sessions_excludes_subagents(
        &self,
        store: &dyn SessionStore,
    ) -> Result<(), String> {
        let key = main_key();
        let one = [line(serde_json::json!({"n": 1}))?];
        self.append(store, &key, &one).await?;
        self.append(store, &sub(&key, AGENT_1), &one).await?;
        // A subagent's transcript alone is no session of its own either.
        self.append(store, &sub(&at("proj", SESS2), AGENT_1), &one)
            .await?;
        let listed = self.session_ids(store, "proj").await?;
        ensure!(
            listed == [SESS],
            "with subagents' transcripts, list_sessions gives {listed:?}"
        );
        Ok(())
    }

    pub(super) async fn list_sessions_time_is_last_main_append(
        &self,
        store: &dyn SessionStore,
    ) -> Result<(), String> {
        let key = main_key();
        self.append(store, &key, &[line(serde_json::json!({"uuid": "1"}))?])
            .await?;
        let first = self.modified(store, &key).await?;
        tokio::time::sleep(CLOCK_STEP).await;
        self.append(store, &key, &[line(serde_json::json!({"uuid": "2"}))?])
            .await?;
        let second = self.modified(store, &key).await?;
        ensure!(
            second > first,
            "an append {CLOCK_STEP:?} after the first left the listed time at {second:?} \
             (first {first:?})"
        );
        tokio::time::sleep(CLOCK_STEP).await;
        self.append(
            store,
            &sub(&key, AGENT_1),
            &[line(serde_json::json!({"uuid": "3"}))?],
        )
        .await?;
        let third = self.modified(store, &key).await?;
        ensure!(
            third == second,
            "a subagent's append moved the session's listed time from {second:?} to {third:?}"
        );
        Ok(())
    }

    pub(super) async fn list_session_summaries(
        &self,
        store: &dyn SessionStore,
        lists: bool,
        deletes: bool,
    ) -> Result<(), String> {
        let key = at("proj", SESS);
        let batches = [
            lines(&[
                serde_json::json!({"timestamp": "2024-01-01T00:00:00.000Z", "customTitle": "first"}),
                serde_json::json!({"timestamp": "2024-01-01T00:00:01.000Z"}),
            ])?,
            lines(&[
                serde_json::json!({"timestamp": "2024-01-01T00:00:02.000Z", "customTitle": "second"}),
            ])?,
        ];
        let mut folded = None;
        for batch in &batches {
            self.append(store, &key, batch).await?;
            folded = Some(fold_session_summary(folded, &key, batch, None));
        }
        self.append(
            store,
            &at("other", SESS2),
            &[line(
                serde_json::json!({"timestamp": "2024-01-01T00:00:00.000Z"}),
            )?],
        )
        .await?;
        let summaries = self.summaries(store, "proj").await?;
        let ids: Vec<&str> = summaries.iter().map(|s| s.session_id.as_str()).collect();
        ensure!(
            ids == [SESS],
            "list_session_summaries(\"proj\") gives the sessions {ids:?}"
        );
        let summary = &summaries[0];
        ensure!(
            millis(summary.mtime) > PLAUSIBLE_MILLIS,
            "the summary's mtime {:?} is before 2001: is the store's time in seconds?",
            summary.mtime
        );
        if lists {
            let listed = self.modified(store, &key).await?;
            ensure!(
                summary.mtime >= listed,
                "the summary's mtime {:?} is older than the listed time {listed:?}: it must be \
                 the store's write time, on the listing's clock, not a line's timestamp",
                summary.mtime
            );
        }
        let expected = folded.map(|f| f.data);
        ensure!(
            Some(&summary.data) == expected.as_ref(),
            "the summary holds {:?}, not the fold of the appended batches {expected:?}",
            summary.data
        );
        let refolded = fold_session_summary(
            Some(summary.clone()),
            &key,
            &[line(
                serde_json::json!({"timestamp": "2024-01-01T00:00:03.000Z"}),
            )?],
            None,
        );
        ensure!(
            refolded.session_id == SESS && refolded.mtime == summary.mtime,
            "the stored summary does not fold again into the same session and time"
        );
        self.append(
            store,
            &sub(&key, AGENT_1),
            &[line(
                serde_json::json!({"timestamp": "2024-01-01T00:00:09.000Z", "customTitle": "subagent"}),
            )?],
        )
        .await?;
        let after = self.summaries(store, "proj").await?;
        let after_data = after.iter().find(|s| s.session_id == SESS).map(|s| &s.data);
        ensure!(
            after.len() == 1 && after_data == Some(&summary.data),
            "a subagent's append changed the summaries to {after:?}"
        );
        let none = self.summaries(store, "never-appended-project").await?;
        ensure!(none.is_empty(), "an unknown project has summaries {none:?}");
        if deletes {
            self.delete(store, &key).await?;
            let left = self.summaries(store, "proj").await?;
            ensure!(
                left.is_empty(),
                "after the session was deleted, its project still has summaries {left:?}"
            );
        }
        Ok(())
    }

    pub(super) async fn delete_main(&self, store: &dyn SessionStore) -> Result<(), String> {
        self.delete(store, &at("proj", NEVER)).await?;
        let key = main_key();
        self.append(store, &key, &[line(serde_json::json!({"n": 1}))?])
            .await?;
        self.delete(store, &key).await?;
        let loaded = self.load(store, &key).await?;
        ensure!(loaded.is_none(), "a deleted session loads as {loaded:?}");
        Ok(())
    }

    pub(super) async fn delete_cascades(
        &self,
        store: &dyn SessionStore,
        lists_subkeys: bool,
        lists_sessions: bool,
    ) -> Result<(), String> {
        let key = main_key();
        let (agent_1, agent_2) = (sub(&key, AGENT_1), sub(&key, AGENT_2));
        let (other, other_project) = (at("proj", SESS2), at("other-proj", SESS));
        let one = [line(serde_json::json!({"n": 1}))?];
        for written in [&key, &agent_1, &agent_2, &other, &other_project] {
            self.append(store, written, &one).await?;
        }
        self.delete(store, &key).await?;
        for gone in [&key, &agent_1, &agent_2] {
            let loaded = self.load(store, gone).await?;
            ensure!(
                loaded.is_none(),
                "after {key} was deleted, {gone} loads as {loaded:?}"
            );
        }
        for kept in [&other, &other_project] {
            let loaded = self.load(store, kept).await?.map(|l| l.len());
            ensure!(
                loaded == Some(1),
                "deleting {key} changed {kept}: it loads {loaded:?} lines"
            );
        }
        if lists_subkeys {
            let subkeys = self.subkeys(store, &key).await?;
            ensure!(
                subkeys.is_empty(),
                "a deleted session still has subkeys {subkeys:?}"
            );
        }
        if lists_sessions {
            let listed = self.session_ids(store, "proj").await?;
            ensure!(
                listed == [SESS2],
                "after {key} was deleted, list_sessions gives {listed:?}"
            );
        }
        Ok(())
    }

    pub(super) async fn delete_subpath_only(
        &self,
        store: &dyn SessionStore,
        lists_subkeys: bool,
    ) -> Result<(), String> {
        let key = main_key();
        let (agent_1, agent_2) = (sub(&key, AGENT_1), sub(&key, AGENT_2));
        let one = [line(serde_json::json!({"n": 1}))?];
        for written in [&key, &agent_1, &agent_2] {
            self.append(store, written, &one).await?;
        }
        self.delete(store, &agent_1).await?;
        let loaded = self.load(store, &agent_1).await?;
        ensure!(
            loaded.is_none(),
            "the deleted {agent_1} loads as {loaded:?}"
        );
        for kept in [&agent_2, &key] {
            let loaded = self.load(store, kept).await?.map(|l| l.len());
            ensure!(
                loaded == Some(1),
                "deleting {agent_1} changed {kept}: it loads {loaded:?} lines"
            );
        }
        if lists_subkeys {
            let subkeys = self.subkeys(store, &key).await?;
            ensure!(
                subkeys == [AGENT_2],
                "after {agent_1} was deleted, list_subkeys gives {subkeys:?}"
            );
        }
        Ok(())
    }

    pub(super) async fn list_subkeys(&self, store: &dyn SessionStore) -> Result<(), String> {
        let key = main_key();
        let one = [line(serde_json::json!({"n": 1}))?];
        self.append(store, &key, &one).await?;
        self.append(store, &sub(&key, AGENT_1), &one).await?;
        self.append(store, &sub(&key, AGENT_2), &one).await?;
        self.append(store, &sub(&at("proj", SESS2), "subagents/agent-x"), &one)
            .await?;
        self.append(store, &sub(&at("other", SESS), "subagents/agent-y"), &one)
            .await?;
        let subkeys = self.subkeys(store, &key).await?;
        ensure!(
            subkeys == [AGENT_1, AGENT_2],
            "list_subkeys({key}) gives {subkeys:?}"
        );
        Ok(())
    }

    pub(super) async fn list_subkeys_excludes_main(
        &self,
        store: &dyn SessionStore,
    ) -> Result<(), String> {
        let key = main_key();
        self.append(store, &key, &[line(serde_json::json!({"n": 1}))?])
            .await?;
        let subkeys = self.subkeys(store, &key).await?;
        ensure!(
            subkeys.is_empty(),
            "a session without subagents has subkeys {subkeys:?}"
        );
        let unknown = self.subkeys(store, &at("proj", NEVER)).await?;
        ensure!(
            unknown.is_empty(),
            "a session never written has subkeys {unknown:?}"
        );
        Ok(())
    }
}
