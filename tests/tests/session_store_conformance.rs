//! The public session store conformance suite (`session_store::conformance`) against the two
//! stores of the crate (in memory, PostgreSQL on a throwaway cluster), and against a store
//! broken one behaviour at a time: each break must fail the contract that covers it, so no
//! check of the suite passes whatever the store does.

use std::collections::BTreeMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use claude_tools::session_store::conformance::{Capability, Conformance, Contract};
use claude_tools::session_store::{
    InMemorySessionStore, PostgresSessionStore, SessionKey, SessionStore, SessionSummaryEntry,
    StoreError, StoreFuture, StoredSession, TranscriptEntry, fold_session_summary,
};
use claude_tools_tests::services::{Postgres, postgres_or_skip};

#[tokio::test]
async fn the_in_memory_store_keeps_every_contract() {
    let report = Conformance::new(|| async { Ok(InMemorySessionStore::new()) })
        .run()
        .await
        .unwrap_or_else(|failures| panic!("{failures}"));
    assert_eq!(report.passed, Contract::ALL);
    assert!(report.skipped.is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_postgres_store_keeps_every_contract() {
    if !postgres_or_skip("the_postgres_store_keeps_every_contract") {
        return;
    }
    let postgres = Postgres::start().expect("a throwaway PostgreSQL cluster");
    let url = postgres.url();
    // A fresh table per contract: each store starts empty.
    let tables = AtomicUsize::new(0);
    let report = Conformance::new(|| {
        let table = format!("conformance_{}", tables.fetch_add(1, Ordering::Relaxed));
        let url = url.clone();
        async move { PostgresSessionStore::connect_to_table(&url, &table).await }
    })
    .run()
    .await
    .unwrap_or_else(|failures| panic!("{failures}"));
    assert_eq!(report.passed, Contract::ALL);
    assert!(report.skipped.is_empty());
}

/// One behaviour the broken store gets wrong.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Fault {
    /// Stores each batch reversed.
    ReversesBatches,
    /// Loads an unknown transcript as empty rather than `None`.
    UnknownLoadsEmpty,
    /// Each append replaces the transcript.
    KeepsLastBatchOnly,
    /// An empty append creates the transcript.
    EmptyAppendCreates,
    /// Ignores the subpath: subagents write into the main transcript.
    IgnoresSubpath,
    /// Ignores the project: one session id is one transcript everywhere.
    IgnoresProject,
    /// Lists the sessions of every project.
    ListsEveryProject,
    /// Lists a session's time in seconds where milliseconds belong.
    ListsSeconds,
    /// Lists subagents' transcripts as sessions.
    ListsSubagents,
    /// Lists a session's first append's time, not its last.
    ListsCreationTime,
    /// A subagent's append moves its session's listed time.
    SubagentMovesTime,
    /// Summaries stamped with a line's timestamp, not the write time.
    SummaryTimeFromLines,
    /// Subagents' lines folded into the session's summary.
    SummaryFoldsSubagents,
    /// A summary kept after its session was deleted.
    SummaryOutlivesDelete,
    /// Deleting a transcript never written is an error.
    DeleteUnknownFails,
    /// Deleting a session leaves its subagents.
    DeleteDoesNotCascade,
    /// Deleting a subagent's transcript deletes the session's.
    DeleteSubpathTakesSession,
    /// `list_subkeys` names the session's main transcript too.
    SubkeysIncludeMain,
    /// `list_subkeys` names every session's subagents.
    SubkeysOfEverySession,
    /// Lines sent again are stored again.
    NoUuidDedup,
    /// Lines without a uuid are deduplicated on their content.
    DedupsPlainLines,
    /// The uuid deduplication spans every transcript of the store.
    DedupsAcrossTranscripts,
    /// `load` never answers.
    LoadHangs,
}

/// Which contract each fault must break.
const FAULTS: [(Fault, Contract); 23] = [
    (Fault::ReversesBatches, Contract::AppendThenLoad),
    (Fault::UnknownLoadsEmpty, Contract::LoadUnknownIsNone),
    (Fault::KeepsLastBatchOnly, Contract::AppendsKeepCallOrder),
    (Fault::EmptyAppendCreates, Contract::EmptyAppendIsNoOp),
    (Fault::IgnoresSubpath, Contract::SubpathsAreIndependent),
    (Fault::IgnoresProject, Contract::ProjectsAreIsolated),
    (Fault::ListsEveryProject, Contract::ListSessions),
    (Fault::ListsSeconds, Contract::ListSessions),
    (
        Fault::ListsSubagents,
        Contract::ListSessionsExcludesSubagents,
    ),
    (
        Fault::ListsCreationTime,
        Contract::ListSessionsTimeIsLastMainAppend,
    ),
    (
        Fault::SubagentMovesTime,
        Contract::ListSessionsTimeIsLastMainAppend,
    ),
    (Fault::SummaryTimeFromLines, Contract::ListSessionSummaries),
    (Fault::SummaryFoldsSubagents, Contract::ListSessionSummaries),
    (Fault::SummaryOutlivesDelete, Contract::ListSessionSummaries),
    (Fault::DeleteUnknownFails, Contract::DeleteMain),
    (
        Fault::DeleteDoesNotCascade,
        Contract::DeleteCascadesToSubagents,
    ),
    (
        Fault::DeleteSubpathTakesSession,
        Contract::DeleteSubpathOnly,
    ),
    (Fault::SubkeysIncludeMain, Contract::ListSubkeysExcludesMain),
    (Fault::SubkeysOfEverySession, Contract::ListSubkeys),
    (Fault::NoUuidDedup, Contract::UuidIdempotence),
    (Fault::DedupsPlainLines, Contract::UuidIdempotence),
    (Fault::DedupsAcrossTranscripts, Contract::UuidIdempotence),
    (Fault::LoadHangs, Contract::AppendThenLoad),
];

/// A store like the in-memory one, written apart so that each behaviour can be broken alone.
struct Broken {
    fault: Option<Fault>,
    state: Mutex<State>,
}

#[derive(Default)]
struct State {
    /// Transcripts by (project, session, subpath): lines and the last write time.
    transcripts: BTreeMap<(String, String, String), (Vec<TranscriptEntry>, SystemTime)>,
    /// The first write time of each main transcript.
    created: BTreeMap<(String, String), SystemTime>,
    summaries: BTreeMap<(String, String), SessionSummaryEntry>,
    /// Every uuid seen anywhere (for `DedupsAcrossTranscripts`).
    all_uuids: Vec<String>,
    clock: u64,
}

impl Broken {
    fn new(fault: Option<Fault>) -> Self {
        Self {
            fault,
            state: Mutex::new(State::default()),
        }
    }

    fn is(&self, fault: Fault) -> bool {
        self.fault == Some(fault)
    }

    fn slot(&self, key: &SessionKey) -> (String, String, String) {
        let project = if self.is(Fault::IgnoresProject) {
            String::new()
        } else {
            key.project_key.clone()
        };
        let subpath = if self.is(Fault::IgnoresSubpath) {
            String::new()
        } else {
            key.subpath.clone().unwrap_or_default()
        };
        (project, key.session_id.clone(), subpath)
    }
}

impl State {
    /// Now, and strictly later than the last write.
    fn tick(&mut self) -> SystemTime {
        let now = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .expect("after 1970")
            .as_millis() as u64;
        self.clock = now.max(self.clock + 1);
        UNIX_EPOCH + Duration::from_millis(self.clock)
    }
}

impl SessionStore for Broken {
    fn append<'a>(
        &'a self,
        key: &'a SessionKey,
        entries: &'a [TranscriptEntry],
    ) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            if entries.is_empty() && !self.is(Fault::EmptyAppendCreates) {
                return Ok(());
            }
            let mut state = self.state.lock().expect("unpoisoned");
            let now = state.tick();
            let slot = self.slot(key);
            let main = (slot.0.clone(), slot.1.clone());
            if key.subpath.is_none() || self.is(Fault::SummaryFoldsSubagents) {
                let prev = state.summaries.remove(&main);
                let stamp = if self.is(Fault::SummaryTimeFromLines) {
                    UNIX_EPOCH + Duration::from_secs(1_704_067_200)
                } else {
                    now
                };
                let folded = fold_session_summary(prev, &key.session(), entries, Some(stamp));
                state.summaries.insert(main.clone(), folded);
            }
            if key.subpath.is_none() {
                state.created.entry(main).or_insert(now);
            }
            let mut batch: Vec<TranscriptEntry> = entries.to_vec();
            if self.is(Fault::ReversesBatches) {
                batch.reverse();
            }
            let mut all_uuids = std::mem::take(&mut state.all_uuids);
            let (lines, modified) = state
                .transcripts
                .entry(slot)
                .or_insert_with(|| (Vec::new(), now));
            if self.is(Fault::KeepsLastBatchOnly) {
                lines.clear();
            }
            for entry in batch {
                let seen = if self.is(Fault::DedupsPlainLines) {
                    lines.contains(&entry)
                } else if self.is(Fault::NoUuidDedup) {
                    false
                } else if self.is(Fault::DedupsAcrossTranscripts) {
                    entry
                        .uuid()
                        .is_some_and(|u| all_uuids.iter().any(|seen| seen == u))
                } else {
                    entry
                        .uuid()
                        .is_some_and(|u| lines.iter().any(|l| l.uuid() == Some(u)))
                };
                if seen {
                    continue;
                }
                if let Some(uuid) = entry.uuid() {
                    all_uuids.push(uuid.to_string());
                }
                lines.push(entry);
            }
            *modified = now;
            state.all_uuids = all_uuids;
            if self.is(Fault::SubagentMovesTime) && key.subpath.is_some() {
                let main = self.slot(&key.session());
                if let Some((_, modified)) = state.transcripts.get_mut(&main) {
                    *modified = now;
                }
            }
            Ok(())
        })
    }

    fn load<'a>(&'a self, key: &'a SessionKey) -> StoreFuture<'a, Option<Vec<TranscriptEntry>>> {
        Box::pin(async move {
            if self.is(Fault::LoadHangs) {
                std::future::pending::<()>().await;
            }
            let state = self.state.lock().expect("unpoisoned");
            let found = state.transcripts.get(&self.slot(key)).map(|t| t.0.clone());
            if self.is(Fault::UnknownLoadsEmpty) {
                return Ok(Some(found.unwrap_or_default()));
            }
            Ok(found)
        })
    }

    fn list_sessions<'a>(&'a self, project_key: &'a str) -> StoreFuture<'a, Vec<StoredSession>> {
        Box::pin(async move {
            let state = self.state.lock().expect("unpoisoned");
            Ok(state
                .transcripts
                .iter()
                .filter(|((project, _, subpath), _)| {
                    (project == project_key || self.is(Fault::ListsEveryProject))
                        && (subpath.is_empty() || self.is(Fault::ListsSubagents))
                })
                .map(|((project, session, _), (_, modified))| {
                    let time = if self.is(Fault::ListsSeconds) {
                        let since = modified.duration_since(UNIX_EPOCH).unwrap_or_default();
                        UNIX_EPOCH + Duration::from_millis(since.as_secs())
                    } else if self.is(Fault::ListsCreationTime) {
                        state.created[&(project.clone(), session.clone())]
                    } else {
                        *modified
                    };
                    StoredSession::new(session, time)
                })
                .collect())
        })
    }

    fn list_session_summaries<'a>(
        &'a self,
        project_key: &'a str,
    ) -> StoreFuture<'a, Vec<SessionSummaryEntry>> {
        Box::pin(async move {
            let state = self.state.lock().expect("unpoisoned");
            Ok(state
                .summaries
                .iter()
                .filter(|((project, _), _)| project == project_key)
                .map(|(_, summary)| summary.clone())
                .collect())
        })
    }

    fn delete<'a>(&'a self, key: &'a SessionKey) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            let mut state = self.state.lock().expect("unpoisoned");
            let slot = self.slot(key);
            if self.is(Fault::DeleteUnknownFails) && !state.transcripts.contains_key(&slot) {
                return Err(StoreError::backend(format!("no transcript {key}")));
            }
            let whole_session = key.subpath.is_none() || self.is(Fault::DeleteSubpathTakesSession);
            if whole_session && !self.is(Fault::DeleteDoesNotCascade) {
                state
                    .transcripts
                    .retain(|(p, s, _), _| (p, s) != (&slot.0, &slot.1));
            } else if whole_session {
                state
                    .transcripts
                    .remove(&(slot.0.clone(), slot.1.clone(), String::new()));
            } else {
                state.transcripts.remove(&slot);
            }
            if whole_session && !self.is(Fault::SummaryOutlivesDelete) {
                state.summaries.remove(&(slot.0, slot.1));
            }
            Ok(())
        })
    }

    fn list_subkeys<'a>(&'a self, session: &'a SessionKey) -> StoreFuture<'a, Vec<String>> {
        Box::pin(async move {
            let state = self.state.lock().expect("unpoisoned");
            let slot = self.slot(&session.session());
            Ok(state
                .transcripts
                .keys()
                .filter(|(p, s, subpath)| {
                    ((p, s) == (&slot.0, &slot.1) || self.is(Fault::SubkeysOfEverySession))
                        && (!subpath.is_empty() || self.is(Fault::SubkeysIncludeMain))
                })
                .map(|(_, _, subpath)| subpath.clone())
                .collect())
        })
    }
}

/// The suite on a `Broken` store with `fault` (none: it must pass).
async fn run(fault: Option<Fault>) -> Result<Vec<Contract>, Vec<Contract>> {
    Conformance::new(|| async move { Ok(Broken::new(fault)) })
        .operation_timeout(Duration::from_millis(300))
        .run()
        .await
        .map(|report| report.passed)
        .map_err(|failures| failures.failures.iter().map(|f| f.contract).collect())
}

#[tokio::test]
async fn the_unbroken_test_store_keeps_every_contract() {
    assert_eq!(run(None).await, Ok(Contract::ALL.to_vec()));
}

#[tokio::test]
async fn each_broken_behaviour_fails_the_contract_that_covers_it() {
    let mut missed = Vec::new();
    for (fault, contract) in FAULTS {
        match run(Some(fault)).await {
            Err(broken) if broken.contains(&contract) => {}
            other => missed.push(format!(
                "{fault:?}: expected {contract} broken, got {other:?}"
            )),
        }
    }
    assert!(missed.is_empty(), "{}", missed.join("\n"));
    // Every contract is covered by some fault.
    for contract in Contract::ALL {
        assert!(
            FAULTS.iter().any(|(_, c)| *c == contract),
            "no fault breaks {contract}"
        );
    }
}

#[tokio::test]
async fn a_failure_names_the_contract_and_why() {
    let failures = Conformance::new(|| async { Ok(Broken::new(Some(Fault::LoadHangs))) })
        .operation_timeout(Duration::from_millis(100))
        .run()
        .await
        .expect_err("a store whose load hangs");
    let text = failures.to_string();
    assert!(text.contains("AppendThenLoad"), "{text}");
    assert!(text.contains("did not answer within 100ms"), "{text}");
    assert!(failures.broke(Contract::AppendThenLoad));
    // The factory failing is every contract failing, not a panic.
    let failures = Conformance::new(|| async {
        Err::<InMemorySessionStore, _>(StoreError::backend("no database"))
    })
    .run()
    .await
    .expect_err("no store");
    assert_eq!(failures.failures.len(), Contract::ALL.len());
    assert!(failures.to_string().contains("no database"));
}

/// A store with only the two required methods.
struct Minimal(InMemorySessionStore);

impl SessionStore for Minimal {
    fn append<'a>(
        &'a self,
        key: &'a SessionKey,
        entries: &'a [TranscriptEntry],
    ) -> StoreFuture<'a, ()> {
        self.0.append(key, entries)
    }
    fn load<'a>(&'a self, key: &'a SessionKey) -> StoreFuture<'a, Option<Vec<TranscriptEntry>>> {
        self.0.load(key)
    }
}

#[tokio::test]
async fn unsupported_and_skipped_capabilities_skip_their_contracts() {
    let report = Conformance::new(|| async { Ok(Minimal(InMemorySessionStore::new())) })
        .run()
        .await
        .unwrap_or_else(|failures| panic!("{failures}"));
    let checked = [
        Contract::AppendThenLoad,
        Contract::LoadUnknownIsNone,
        Contract::AppendsKeepCallOrder,
        Contract::EmptyAppendIsNoOp,
        Contract::SubpathsAreIndependent,
        Contract::ProjectsAreIsolated,
        Contract::UuidIdempotence,
    ];
    assert_eq!(report.passed, checked);
    assert_eq!(
        report.skipped.len(),
        Contract::ALL.len() - checked.len(),
        "{report:?}"
    );
    // A store that does not deduplicate says so, and passes the rest.
    let report = Conformance::new(|| async { Ok(Broken::new(Some(Fault::NoUuidDedup))) })
        .skip(Capability::UuidIdempotence)
        .skip(Capability::Delete)
        .run()
        .await
        .unwrap_or_else(|failures| panic!("{failures}"));
    assert_eq!(
        report.skipped,
        [
            Contract::DeleteMain,
            Contract::DeleteCascadesToSubagents,
            Contract::DeleteSubpathOnly,
            Contract::UuidIdempotence
        ]
    );
}
