//! The contracts of the methods every store has, `append` and `load`: what loads back, in
//! which order, under which key; and uuid idempotence, which `append` should keep.

use super::fixtures::{AGENT_1, NEVER, SESS, SESS2, as_json, at, line, lines, main_key, sub};
use super::ops::Ops;
use crate::session_store::SessionStore;

impl Ops {
    pub(super) async fn append_then_load(&self, store: &dyn SessionStore) -> Result<(), String> {
        let key = main_key();
        let batch = lines(&[
            serde_json::json!({"uuid": "b", "n": 1}),
            serde_json::json!({"uuid": "a", "n": 2, "text": "h\u{e9} \"q\"\n"}),
        ])?;
        self.append(store, &key, &batch).await?;
        let loaded = self.load(store, &key).await?;
        ensure!(
            loaded == as_json(&Some(batch.clone())),
            "appended {batch:?} but loaded {loaded:?}"
        );
        Ok(())
    }

    pub(super) async fn load_unknown_is_none(
        &self,
        store: &dyn SessionStore,
    ) -> Result<(), String> {
        let unknown = at("proj", NEVER);
        let loaded = self.load(store, &unknown).await?;
        ensure!(
            loaded.is_none(),
            "a session never written loads as {loaded:?}"
        );
        let key = main_key();
        self.append(store, &key, &[line(serde_json::json!({"uuid": "x"}))?])
            .await?;
        let subpath = sub(&key, "subagents/nope");
        let loaded = self.load(store, &subpath).await?;
        ensure!(
            loaded.is_none(),
            "a subpath never written ({subpath}) loads as {loaded:?}"
        );
        Ok(())
    }

    pub(super) async fn appends_keep_call_order(
        &self,
        store: &dyn SessionStore,
    ) -> Result<(), String> {
        let key = main_key();
        let batches = [
            lines(&[serde_json::json!({"uuid": "z", "n": 1})])?,
            lines(&[
                serde_json::json!({"uuid": "a", "n": 2}),
                serde_json::json!({"uuid": "m", "n": 3}),
            ])?,
            lines(&[serde_json::json!({"uuid": "b", "n": 4})])?,
        ];
        for batch in &batches {
            self.append(store, &key, batch).await?;
        }
        let expected = as_json(&Some(batches.concat()));
        let loaded = self.load(store, &key).await?;
        ensure!(
            loaded == expected,
            "three appends load back as {loaded:?}, not {expected:?}"
        );
        Ok(())
    }

    pub(super) async fn empty_append_is_no_op(
        &self,
        store: &dyn SessionStore,
        lists: bool,
    ) -> Result<(), String> {
        let key = main_key();
        let first = lines(&[serde_json::json!({"uuid": "a", "n": 1})])?;
        self.append(store, &key, &first).await?;
        self.append(store, &key, &[]).await?;
        let loaded = self.load(store, &key).await?;
        ensure!(
            loaded == as_json(&Some(first)),
            "an empty append changed the transcript to {loaded:?}"
        );
        let fresh = at("proj", SESS2);
        self.append(store, &fresh, &[]).await?;
        let loaded = self.load(store, &fresh).await?;
        ensure!(
            loaded.is_none(),
            "an empty append to a new session made a transcript: it loads as {loaded:?}"
        );
        if lists {
            let listed = self.session_ids(store, "proj").await?;
            ensure!(
                listed == [SESS],
                "after an empty append to {fresh}, list_sessions gives {listed:?}"
            );
        }
        Ok(())
    }

    pub(super) async fn subpaths_are_independent(
        &self,
        store: &dyn SessionStore,
    ) -> Result<(), String> {
        let key = main_key();
        let agent = sub(&key, AGENT_1);
        let (main_line, agent_line) = (
            line(serde_json::json!({"uuid": "m", "n": 1}))?,
            line(serde_json::json!({"uuid": "s", "n": 1}))?,
        );
        self.append(store, &key, std::slice::from_ref(&main_line))
            .await?;
        self.append(store, &agent, std::slice::from_ref(&agent_line))
            .await?;
        let (main_loaded, agent_loaded) = (
            self.load(store, &key).await?,
            self.load(store, &agent).await?,
        );
        ensure!(
            main_loaded == as_json(&Some(vec![main_line])),
            "the main transcript loads as {main_loaded:?}"
        );
        ensure!(
            agent_loaded == as_json(&Some(vec![agent_line])),
            "the subagent's transcript loads as {agent_loaded:?}"
        );
        Ok(())
    }

    pub(super) async fn projects_are_isolated(
        &self,
        store: &dyn SessionStore,
        lists: bool,
    ) -> Result<(), String> {
        let (a, b) = (at("A", SESS), at("B", SESS));
        let (from_a, from_b) = (
            line(serde_json::json!({"from": "A"}))?,
            line(serde_json::json!({"from": "B"}))?,
        );
        self.append(store, &a, std::slice::from_ref(&from_a))
            .await?;
        self.append(store, &b, std::slice::from_ref(&from_b))
            .await?;
        for (key, line) in [(&a, from_a), (&b, from_b)] {
            let loaded = self.load(store, key).await?;
            ensure!(
                loaded == as_json(&Some(vec![line])),
                "{key} loads as {loaded:?}"
            );
        }
        if lists {
            for project in ["A", "B"] {
                let listed = self.session_ids(store, project).await?;
                ensure!(
                    listed == [SESS],
                    "list_sessions({project:?}) gives {listed:?}"
                );
            }
        }
        Ok(())
    }
    pub(super) async fn uuid_idempotence(&self, store: &dyn SessionStore) -> Result<(), String> {
        let key = main_key();
        let (u1, u2, plain) = (
            line(serde_json::json!({"uuid": "u1", "n": 1}))?,
            line(serde_json::json!({"uuid": "u2", "n": 2}))?,
            line(serde_json::json!({"n": 3}))?,
        );
        self.append(store, &key, &[u1.clone(), plain.clone()])
            .await?;
        // The batch again (it timed out but landed), with more, and a uuid twice in one batch.
        self.append(
            store,
            &key,
            &[u1.clone(), plain.clone(), u2.clone(), u2.clone()],
        )
        .await?;
        let expected = as_json(&Some(vec![u1.clone(), plain.clone(), plain, u2]));
        let loaded = self.load(store, &key).await?;
        ensure!(
            loaded == expected,
            "a batch sent again loads as {loaded:?}, not {expected:?} (a line with a uuid the \
             transcript has is not stored again; one without a uuid always is)"
        );
        // The uuid is per transcript: the same line in a subagent's and another project's.
        for elsewhere in [sub(&key, AGENT_1), at("other", SESS)] {
            self.append(store, &elsewhere, std::slice::from_ref(&u1))
                .await?;
            let loaded = self.load(store, &elsewhere).await?;
            ensure!(
                loaded == as_json(&Some(vec![u1.clone()])),
                "a uuid of {key} kept its line out of {elsewhere}: it loads as {loaded:?}"
            );
        }
        Ok(())
    }
}
