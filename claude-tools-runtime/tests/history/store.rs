//! The store-backed helpers (`StoreSessions`) on the captured session imported into a store
//! (`import_session`, its subagent too): the same answers as the local readers, and renaming,
//! tagging, forking and deleting in the store; a store that fails, or never answers, in each
//! helper is a typed error with nothing of the answer.

use std::fs;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use claude_tools::session_store::{
    ImportSession, InMemorySessionStore, ListPage, SessionKey, SessionStore, StoreError,
    StoreFuture, StoreSessions, StoredSession, TranscriptEntry, import_session,
};
use claude_tools::sessions::{
    ForkSession, HistoryError, ReadMessages, list_subagents, session_info, session_messages,
    subagent_messages,
};

use super::{CONVERSATION, Config, FOLDER, ID, PROJECT, briefs};

const AGENT: &str = "a71f5d57315c917c2";

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime")
}

/// The fixture with its subagent, imported into a fresh store.
fn imported() -> (Config, Arc<InMemorySessionStore>) {
    let config = Config::with_fixture();
    let from = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join(format!("tests/fixtures/history/{ID}/subagents"));
    let to = config.project().join(ID).join("subagents");
    fs::create_dir_all(&to).expect("subagents dir");
    for file in fs::read_dir(&from).expect("fixture").flatten() {
        fs::copy(file.path(), to.join(file.file_name())).expect("copy");
    }
    let store = InMemorySessionStore::shared();
    let key = runtime()
        .block_on(import_session(
            store.as_ref(),
            ID,
            &ImportSession::new().lookup(config.lookup()),
        ))
        .expect("imports");
    assert_eq!(key, SessionKey::new(FOLDER, ID));
    (config, store)
}

#[test]
fn a_store_answers_as_the_local_transcripts_do() {
    let (config, store) = imported();
    let sessions = StoreSessions::new(store.clone(), FOLDER);
    let rt = runtime();
    let listed = rt.block_on(sessions.list(ListPage::new())).expect("lists");
    let local = session_info(ID, &config.lookup())
        .expect("info")
        .expect("some");
    assert_eq!(listed.len(), 1, "{listed:#?}");
    let from_summary = &listed[0];
    assert_eq!(
        (
            &from_summary.summary,
            &from_summary.first_prompt,
            &from_summary.git_branch,
            &from_summary.cwd,
            &from_summary.created_at,
            from_summary.file_size,
        ),
        (
            &local.summary,
            &local.first_prompt,
            &local.git_branch,
            &local.cwd,
            &local.created_at,
            None
        )
    );
    let info = rt.block_on(sessions.info(ID)).expect("info").expect("some");
    assert_eq!(
        (&info.summary, info.file_size),
        (&local.summary, local.file_size)
    );
    let messages = rt
        .block_on(sessions.messages(ID, &ReadMessages::new()))
        .expect("messages");
    assert_eq!(briefs(&messages), CONVERSATION);
    assert_eq!(
        messages,
        session_messages(ID, &config.read()).expect("local")
    );
    let page = rt
        .block_on(sessions.messages(ID, &ReadMessages::new().offset(1).limit(2)))
        .expect("a page");
    assert_eq!(briefs(&page), CONVERSATION[1..3]);
    assert_eq!(
        rt.block_on(sessions.subagents(ID)).expect("subagents"),
        list_subagents(ID, &config.lookup()).expect("local")
    );
    let agent = rt
        .block_on(sessions.subagent_messages(ID, AGENT, &ReadMessages::new()))
        .expect("subagent messages");
    assert!(!agent.is_empty());
    assert_eq!(
        agent,
        subagent_messages(ID, AGENT, &config.read()).expect("local"),
        "the same, parent_tool_use_id (from the agent_metadata line) included"
    );
    assert!(matches!(
        rt.block_on(sessions.subagent_messages(ID, "nope", &ReadMessages::new())),
        Err(HistoryError::SubagentNotFound { .. })
    ));
}

#[test]
fn renaming_tagging_forking_and_deleting_in_a_store() {
    let (_config, store) = imported();
    let sessions = StoreSessions::for_dir(store.clone(), PROJECT);
    assert_eq!(sessions.project_key(), FOLDER);
    let rt = runtime();
    rt.block_on(sessions.rename(ID, "  Alpha and two  "))
        .expect("renames");
    rt.block_on(sessions.tag(ID, Some("triage"))).expect("tags");
    let listed = rt.block_on(sessions.list(ListPage::new())).expect("lists");
    assert_eq!(
        (listed[0].summary.as_str(), listed[0].tag.as_deref()),
        ("Alpha and two", Some("triage"))
    );
    rt.block_on(sessions.tag(ID, None)).expect("clears");
    assert!(matches!(
        rt.block_on(sessions.rename(ID, " ")),
        Err(HistoryError::EmptyTitle)
    ));
    let missing = "00000000-0000-4000-8000-000000000000";
    assert!(matches!(
        rt.block_on(sessions.rename(missing, "x")),
        Err(HistoryError::NotInStore { .. })
    ));
    assert!(matches!(
        rt.block_on(sessions.info("../x")),
        Err(HistoryError::InvalidSessionId(_))
    ));

    let fork = rt
        .block_on(sessions.fork(ID, &ForkSession::new()))
        .expect("forks");
    let listed = rt.block_on(sessions.list(ListPage::new())).expect("lists");
    assert_eq!(listed[0].session_id, fork, "the fork is the newest");
    assert_eq!(listed[0].summary, "Alpha and two (fork)");
    assert_eq!(listed[1].tag, None, "cleared");
    let forked = rt
        .block_on(sessions.messages(&fork, &ReadMessages::new()))
        .expect("the fork's messages");
    assert_eq!(briefs(&forked), CONVERSATION);
    // Paging: the second page holds the source only.
    let second = rt
        .block_on(sessions.list(ListPage::new().offset(1).limit(5)))
        .expect("lists");
    assert_eq!(
        second
            .iter()
            .map(|s| s.session_id.as_str())
            .collect::<Vec<_>>(),
        [ID]
    );

    rt.block_on(sessions.delete(ID)).expect("deletes");
    assert!(
        store.keys().iter().all(|key| key.session_id == fork),
        "the session and its subagent are gone: {:?}",
        store.keys()
    );
    assert!(matches!(
        rt.block_on(sessions.messages(ID, &ReadMessages::new())),
        Err(HistoryError::NotInStore { .. })
    ));
}

/// A store whose every call fails, or never answers.
struct Broken {
    hang: bool,
}

impl Broken {
    fn answer<'a, T: Send + 'a>(&'a self, operation: &'static str) -> StoreFuture<'a, T> {
        let hang = self.hang;
        Box::pin(async move {
            if hang {
                std::future::pending::<()>().await;
            }
            Err(StoreError::backend(format!(
                "{operation}: the disk is on fire"
            )))
        })
    }
}

impl SessionStore for Broken {
    fn append<'a>(&'a self, _: &'a SessionKey, _: &'a [TranscriptEntry]) -> StoreFuture<'a, ()> {
        self.answer("append")
    }
    fn load<'a>(&'a self, _: &'a SessionKey) -> StoreFuture<'a, Option<Vec<TranscriptEntry>>> {
        self.answer("load")
    }
    fn list_sessions<'a>(&'a self, _: &'a str) -> StoreFuture<'a, Vec<StoredSession>> {
        self.answer("list_sessions")
    }
    fn delete<'a>(&'a self, _: &'a SessionKey) -> StoreFuture<'a, ()> {
        self.answer("delete")
    }
    fn list_subkeys<'a>(&'a self, _: &'a SessionKey) -> StoreFuture<'a, Vec<String>> {
        self.answer("list_subkeys")
    }
}

/// A store that answers listings and loads, and fails one operation.
struct FailsOnly {
    inner: Arc<InMemorySessionStore>,
    operation: &'static str,
}

impl FailsOnly {
    fn or<'a, T: Send + 'a>(
        &'a self,
        operation: &'static str,
        call: StoreFuture<'a, T>,
    ) -> StoreFuture<'a, T> {
        if operation == self.operation {
            Box::pin(async move { Err(StoreError::backend(format!("{operation} failed"))) })
        } else {
            call
        }
    }
}

impl SessionStore for FailsOnly {
    fn append<'a>(&'a self, k: &'a SessionKey, e: &'a [TranscriptEntry]) -> StoreFuture<'a, ()> {
        self.or("append", self.inner.append(k, e))
    }
    fn load<'a>(&'a self, k: &'a SessionKey) -> StoreFuture<'a, Option<Vec<TranscriptEntry>>> {
        self.or("load", self.inner.load(k))
    }
    fn list_sessions<'a>(&'a self, p: &'a str) -> StoreFuture<'a, Vec<StoredSession>> {
        self.or("list_sessions", self.inner.list_sessions(p))
    }
    fn list_session_summaries<'a>(
        &'a self,
        p: &'a str,
    ) -> StoreFuture<'a, Vec<claude_tools::session_store::SessionSummaryEntry>> {
        self.or(
            "list_session_summaries",
            self.inner.list_session_summaries(p),
        )
    }
    fn delete<'a>(&'a self, k: &'a SessionKey) -> StoreFuture<'a, ()> {
        self.or("delete", self.inner.delete(k))
    }
    fn list_subkeys<'a>(&'a self, k: &'a SessionKey) -> StoreFuture<'a, Vec<String>> {
        self.or("list_subkeys", self.inner.list_subkeys(k))
    }
}

/// Every helper, its outcome as `Ok(())` or the error.
fn every_helper(sessions: &StoreSessions) -> Vec<(&'static str, Result<(), HistoryError>)> {
    let rt = runtime();
    let read = ReadMessages::new();
    vec![
        (
            "list",
            rt.block_on(sessions.list(ListPage::new())).map(drop),
        ),
        ("info", rt.block_on(sessions.info(ID)).map(drop)),
        (
            "messages",
            rt.block_on(sessions.messages(ID, &read)).map(drop),
        ),
        ("subagents", rt.block_on(sessions.subagents(ID)).map(drop)),
        (
            "subagent_messages",
            rt.block_on(sessions.subagent_messages(ID, AGENT, &read))
                .map(drop),
        ),
        ("rename", rt.block_on(sessions.rename(ID, "t"))),
        ("tag", rt.block_on(sessions.tag(ID, Some("t")))),
        ("delete", rt.block_on(sessions.delete(ID))),
        (
            "fork",
            rt.block_on(sessions.fork(ID, &ForkSession::new()))
                .map(drop),
        ),
    ]
}

#[test]
fn a_failing_store_is_an_error_in_every_helper() {
    let sessions = StoreSessions::new(Broken { hang: false }, FOLDER);
    for (helper, outcome) in every_helper(&sessions) {
        assert!(
            matches!(
                outcome,
                Err(HistoryError::Store {
                    source: StoreError::Backend(_),
                    ..
                })
            ),
            "{helper}: {outcome:?}"
        );
    }
}

#[test]
fn a_store_that_never_answers_times_out_in_every_helper() {
    let sessions =
        StoreSessions::new(Broken { hang: true }, FOLDER).timeout(Duration::from_millis(20));
    for (helper, outcome) in every_helper(&sessions) {
        assert!(
            matches!(outcome, Err(HistoryError::StoreTimeout { .. })),
            "{helper}: {outcome:?}"
        );
    }
}

#[test]
fn a_failure_part_way_gives_nothing_as_complete() {
    // The listing must load a session that has no summary: its load fails, so the whole
    // listing does, rather than a page short of it.
    let (_config, store) = imported();
    /// A store that keeps no summaries, whose loads may fail.
    struct NoSummaries(Arc<InMemorySessionStore>, bool);
    impl SessionStore for NoSummaries {
        fn append<'a>(
            &'a self,
            k: &'a SessionKey,
            e: &'a [TranscriptEntry],
        ) -> StoreFuture<'a, ()> {
            self.0.append(k, e)
        }
        fn load<'a>(&'a self, k: &'a SessionKey) -> StoreFuture<'a, Option<Vec<TranscriptEntry>>> {
            if self.1 {
                return Box::pin(async { Err(StoreError::backend("load failed")) });
            }
            self.0.load(k)
        }
        fn list_sessions<'a>(&'a self, p: &'a str) -> StoreFuture<'a, Vec<StoredSession>> {
            self.0.list_sessions(p)
        }
    }
    let rt = runtime();
    let read_each = StoreSessions::new(NoSummaries(store.clone(), false), FOLDER);
    let listed = rt.block_on(read_each.list(ListPage::new())).expect("lists");
    assert_eq!(listed.len(), 1, "read from the transcript");
    assert_eq!(listed[0].file_size, Some(super::fixture().len() as u64));
    let failing_loads = StoreSessions::new(NoSummaries(store.clone(), true), FOLDER);
    assert!(matches!(
        rt.block_on(failing_loads.list(ListPage::new())),
        Err(HistoryError::Store {
            operation: "load",
            ..
        })
    ));
    // A fork whose append fails leaves no half fork behind.
    let keys_before = store.keys();
    let no_appends = StoreSessions::new(
        FailsOnly {
            inner: store.clone(),
            operation: "append",
        },
        FOLDER,
    );
    assert!(matches!(
        rt.block_on(no_appends.fork(ID, &ForkSession::new())),
        Err(HistoryError::Store {
            operation: "append",
            ..
        })
    ));
    assert_eq!(store.keys(), keys_before);
}
