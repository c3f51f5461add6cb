//! The contract every [`SessionStore`] keeps, as checks an application runs against its own
//! store: the Python SDK's `run_session_store_conformance`, plus what this crate's trait
//! documentation promises beyond it (uuid idempotence, the listing's clock).
//!
//! Always compiled, not behind a feature: it needs nothing the store trait does not already
//! bring, and an application finds it next to the trait it implements.

use std::collections::BTreeSet;
use std::future::Future;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde_json::Value;

use super::{
    SessionKey, SessionStore, SessionSummaryEntry, StoreError, StoreFuture, TranscriptEntry,
    fold_session_summary,
};

/// How long one store operation may take before the contract it serves fails, unless
/// [`Conformance::operation_timeout`] says otherwise.
pub const DEFAULT_OPERATION_TIMEOUT: Duration = Duration::from_secs(30);

/// How long the listing's clock contract waits between two appends, so that a store whose
/// times have millisecond resolution (the SDKs' `mtime` is epoch milliseconds) shows them apart.
const CLOCK_STEP: Duration = Duration::from_millis(25);

/// 2001-09-09 in epoch milliseconds: a listed time before it was written in seconds, or
/// not written at all (the Python suite's `mtime > 1e12`).
const PLAUSIBLE_MILLIS: u128 = 1_000_000_000_000;

/// A part of the contract a store may lack: the four optional methods (a store lacks one when
/// it answers [`StoreError::Unsupported`], or when it is named in [`Conformance::skip`]), and
/// uuid idempotence, which the trait asks for ("should") and the conformance checks unless it
/// is skipped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[non_exhaustive]
pub enum Capability {
    /// [`SessionStore::list_sessions`].
    ListSessions,
    /// [`SessionStore::list_session_summaries`].
    ListSessionSummaries,
    /// [`SessionStore::delete`].
    Delete,
    /// [`SessionStore::list_subkeys`].
    ListSubkeys,
    /// Lines with a `uuid` already in the transcript are not stored again.
    UuidIdempotence,
}

/// One contract of the suite. Each is checked on a store of its own, fresh from the factory.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[non_exhaustive]
pub enum Contract {
    /// `load` gives what `append` was given, in order (equal as JSON: a store may re-encode).
    AppendThenLoad,
    /// `load` of a session never written, or of a subpath never written, is `None`.
    LoadUnknownIsNone,
    /// Several appends load back in the order they were made.
    AppendsKeepCallOrder,
    /// Appending no lines changes nothing, and creates no transcript.
    EmptyAppendIsNoOp,
    /// A subagent's transcript (a key with a subpath) is stored apart from the main one.
    SubpathsAreIndependent,
    /// The same session id in two projects names two transcripts.
    ProjectsAreIsolated,
    /// `list_sessions` gives the project's sessions, with plausible times, and nothing for an
    /// unknown project.
    ListSessions,
    /// `list_sessions` leaves subagents' transcripts out.
    ListSessionsExcludesSubagents,
    /// A listed session's time is its main transcript's last append: a later append moves it
    /// forward, a subagent's append does not.
    ListSessionsTimeIsLastMainAppend,
    /// `list_session_summaries` gives the fold of the main transcript's batches, stamped on the
    /// listing's clock, untouched by subagents, and removed with the session.
    ListSessionSummaries,
    /// Deleting a main transcript (or one never written) succeeds, and it no longer loads.
    DeleteMain,
    /// Deleting a main transcript deletes its subagents' too, and nothing of other sessions or
    /// projects.
    DeleteCascadesToSubagents,
    /// Deleting a subagent's transcript deletes it alone.
    DeleteSubpathOnly,
    /// `list_subkeys` gives the session's subpaths, and no other session's.
    ListSubkeys,
    /// `list_subkeys` leaves the main transcript out, and gives nothing for an unknown session.
    ListSubkeysExcludesMain,
    /// A line whose uuid the transcript has is not stored again (in a later batch or the same
    /// one); lines without a uuid always are; the uuid is per transcript.
    UuidIdempotence,
}

impl Contract {
    /// Every contract, in the order the suite checks them.
    pub const ALL: [Contract; 16] = [
        Contract::AppendThenLoad,
        Contract::LoadUnknownIsNone,
        Contract::AppendsKeepCallOrder,
        Contract::EmptyAppendIsNoOp,
        Contract::SubpathsAreIndependent,
        Contract::ProjectsAreIsolated,
        Contract::ListSessions,
        Contract::ListSessionsExcludesSubagents,
        Contract::ListSessionsTimeIsLastMainAppend,
        Contract::ListSessionSummaries,
        Contract::DeleteMain,
        Contract::DeleteCascadesToSubagents,
        Contract::DeleteSubpathOnly,
        Contract::ListSubkeys,
        Contract::ListSubkeysExcludesMain,
        Contract::UuidIdempotence,
    ];

    /// The capabilities the contract needs; it is skipped when the store lacks one.
    pub fn needs(self) -> &'static [Capability] {
        use Capability as C;
        match self {
            Contract::ListSessions
            | Contract::ListSessionsExcludesSubagents
            | Contract::ListSessionsTimeIsLastMainAppend => &[C::ListSessions],
            Contract::ListSessionSummaries => &[C::ListSessionSummaries],
            Contract::DeleteMain
            | Contract::DeleteCascadesToSubagents
            | Contract::DeleteSubpathOnly => &[C::Delete],
            Contract::ListSubkeys | Contract::ListSubkeysExcludesMain => &[C::ListSubkeys],
            Contract::UuidIdempotence => &[C::UuidIdempotence],
            _ => &[],
        }
    }
}

impl std::fmt::Display for Contract {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Debug::fmt(self, f)
    }
}

/// One contract a store broke, and how.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ContractFailure {
    /// The contract.
    pub contract: Contract,
    /// What the store did instead (or the error it gave, or the operation that timed out).
    pub reason: String,
}

/// The contracts a store broke (never empty), as [`Conformance::run`] reports them.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ConformanceFailures {
    /// Each broken contract, in the suite's order.
    pub failures: Vec<ContractFailure>,
    /// The contracts that held.
    pub passed: Vec<Contract>,
    /// The contracts not checked, for a capability the store lacks.
    pub skipped: Vec<Contract>,
}

impl ConformanceFailures {
    /// Whether `contract` is among the broken ones.
    pub fn broke(&self, contract: Contract) -> bool {
        self.failures.iter().any(|f| f.contract == contract)
    }
}

impl std::fmt::Display for ConformanceFailures {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "the session store broke {} of {} contracts:",
            self.failures.len(),
            self.failures.len() + self.passed.len()
        )?;
        for failure in &self.failures {
            write!(f, "\n- {}: {}", failure.contract, failure.reason)?;
        }
        Ok(())
    }
}

impl std::error::Error for ConformanceFailures {}

/// What a conforming store was checked on.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ConformanceReport {
    /// The contracts checked, all held.
    pub passed: Vec<Contract>,
    /// The contracts not checked, for a capability the store lacks.
    pub skipped: Vec<Contract>,
}

/// The session store conformance suite: give it a factory of fresh, empty stores and
/// [`run`](Self::run) it from a test. Each contract gets a store of its own.
///
/// ```
/// use claude_tools::session_store::InMemorySessionStore;
/// use claude_tools::session_store::conformance::{Capability, Conformance};
///
/// # tokio::runtime::Builder::new_current_thread().enable_time().build().unwrap().block_on(async {
/// // In an application: #[tokio::test] async fn my_store_conforms() { … }
/// let report = Conformance::new(|| async { Ok(InMemorySessionStore::new()) })
///     .run()
///     .await
///     .unwrap_or_else(|failures| panic!("{failures}"));
/// assert!(report.skipped.is_empty());
///
/// // A store without uuid deduplication says so, and the rest is still checked:
/// let report = Conformance::new(|| async { Ok(InMemorySessionStore::new()) })
///     .skip(Capability::UuidIdempotence)
///     .run()
///     .await?;
/// assert_eq!(report.skipped.len(), 1);
/// # Ok::<(), claude_tools::session_store::conformance::ConformanceFailures>(())
/// # }).unwrap();
/// ```
pub struct Conformance<F> {
    make_store: F,
    skip: BTreeSet<Capability>,
    timeout: Duration,
}

impl<F, Fut, S> Conformance<F>
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Result<S, StoreError>>,
    S: SessionStore,
{
    /// The suite for the stores `make_store` makes: each must be empty (for a database, a
    /// fresh table or schema; the suite writes under the project keys `proj`, `other`, `A`
    /// and `B`). A factory that fails fails the contract it was called for.
    pub fn new(make_store: F) -> Self {
        Self {
            make_store,
            skip: BTreeSet::new(),
            timeout: DEFAULT_OPERATION_TIMEOUT,
        }
    }

    /// Does not check the contracts that need `capability` (the Python suite's
    /// `skip_optional`). An optional method the store answers with
    /// [`StoreError::Unsupported`] is skipped without this.
    pub fn skip(mut self, capability: Capability) -> Self {
        self.skip.insert(capability);
        self
    }

    /// How long one store operation may take (default [`DEFAULT_OPERATION_TIMEOUT`]): one
    /// that takes longer fails its contract rather than hanging the test.
    pub fn operation_timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// Checks every contract the store's capabilities call for: `Ok` with what was checked and
    /// skipped when all held, else every broken contract and why.
    pub async fn run(mut self) -> Result<ConformanceReport, ConformanceFailures> {
        let ops = Ops {
            timeout: self.timeout,
        };
        let mut lacks = self.skip.clone();
        match (self.make_store)().await {
            Ok(probe) => lacks.extend(ops.unsupported(&probe).await),
            Err(error) => {
                // Without a store nothing can be checked: every contract fails alike.
                let reason = format!("the factory failed: {error}");
                return Err(ConformanceFailures {
                    failures: Contract::ALL
                        .iter()
                        .map(|&contract| ContractFailure {
                            contract,
                            reason: reason.clone(),
                        })
                        .collect(),
                    passed: Vec::new(),
                    skipped: Vec::new(),
                });
            }
        }
        let (mut passed, mut skipped, mut failures) = (Vec::new(), Vec::new(), Vec::new());
        for contract in Contract::ALL {
            if contract.needs().iter().any(|need| lacks.contains(need)) {
                skipped.push(contract);
                continue;
            }
            let outcome = match (self.make_store)().await {
                Ok(store) => ops.check(contract, &store, &lacks).await,
                Err(error) => Err(format!("the factory failed: {error}")),
            };
            match outcome {
                Ok(()) => passed.push(contract),
                Err(reason) => failures.push(ContractFailure { contract, reason }),
            }
        }
        if failures.is_empty() {
            Ok(ConformanceReport { passed, skipped })
        } else {
            Err(ConformanceFailures {
                failures,
                passed,
                skipped,
            })
        }
    }
}

impl<F> std::fmt::Debug for Conformance<F> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Conformance")
            .field("skip", &self.skip)
            .field("timeout", &self.timeout)
            .finish_non_exhaustive()
    }
}

/// Fails the contract being checked with a message, unless `cond` holds.
macro_rules! ensure {
    ($cond:expr, $($why:tt)+) => {
        if !$cond {
            return Err(format!($($why)+));
        }
    };
}

/// Session ids are UUIDs, as the CLI's are (a store may refuse others).
const SESS: &str = "5c0e8f1a-2b3c-4d5e-8f6a-7b8c9d0e1f2a";
const SESS2: &str = "6d1f9a2b-3c4d-4e5f-9a7b-8c9d0e1f2a3b";
const SESS3: &str = "7e2a0b3c-4d5e-4f6a-8b8c-9d0e1f2a3b4c";
const NEVER: &str = "8f3b1c4d-5e6f-4a7b-9c9d-0e1f2a3b4c5d";
const AGENT_1: &str = "subagents/agent-1";
const AGENT_2: &str = "subagents/agent-2";

fn at(project: &str, session: &str) -> SessionKey {
    SessionKey::new(project, session)
}

fn main_key() -> SessionKey {
    at("proj", SESS)
}

fn sub(session: &SessionKey, subpath: &str) -> SessionKey {
    session.clone().with_subpath(subpath)
}

/// A line for the suite: the Python suite's `_e` (a `type`, then the given fields).
fn line(fields: Value) -> Result<TranscriptEntry, String> {
    let mut object = serde_json::Map::new();
    object.insert("type".into(), Value::from("x"));
    if let Value::Object(fields) = fields {
        object.extend(fields);
    }
    TranscriptEntry::from_value(&Value::Object(object)).map_err(|e| e.to_string())
}

fn lines(fields: &[Value]) -> Result<Vec<TranscriptEntry>, String> {
    fields.iter().cloned().map(line).collect()
}

/// Lines as JSON, to compare as the contract does (a store may re-encode a line).
fn as_json(entries: &Option<Vec<TranscriptEntry>>) -> Option<Vec<Value>> {
    entries
        .as_ref()
        .map(|entries| entries.iter().map(TranscriptEntry::to_value).collect())
}

fn millis(time: SystemTime) -> u128 {
    time.duration_since(UNIX_EPOCH)
        .map_or(0, |since| since.as_millis())
}

fn sorted(mut items: Vec<String>) -> Vec<String> {
    items.sort();
    items
}

/// The store's operations, each bounded and with its errors as the contract's reason.
struct Ops {
    timeout: Duration,
}

impl Ops {
    async fn op<T>(&self, what: &str, future: StoreFuture<'_, T>) -> Result<T, String> {
        match tokio::time::timeout(self.timeout, future).await {
            Ok(Ok(value)) => Ok(value),
            Ok(Err(error)) => Err(format!("{what} failed: {error}")),
            Err(_) => Err(format!("{what} did not answer within {:?}", self.timeout)),
        }
    }

    async fn append(
        &self,
        store: &dyn SessionStore,
        key: &SessionKey,
        entries: &[TranscriptEntry],
    ) -> Result<(), String> {
        self.op(&format!("append to {key}"), store.append(key, entries))
            .await
    }

    async fn load(
        &self,
        store: &dyn SessionStore,
        key: &SessionKey,
    ) -> Result<Option<Vec<Value>>, String> {
        let loaded = self.op(&format!("load of {key}"), store.load(key)).await?;
        Ok(as_json(&loaded))
    }

    async fn session_ids(
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

    async fn modified(
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

    async fn summaries(
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

    async fn delete(&self, store: &dyn SessionStore, key: &SessionKey) -> Result<(), String> {
        self.op(&format!("delete of {key}"), store.delete(key))
            .await
    }

    async fn subkeys(
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
    async fn unsupported(&self, store: &dyn SessionStore) -> Vec<Capability> {
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

    async fn check(
        &self,
        contract: Contract,
        store: &dyn SessionStore,
        lacks: &BTreeSet<Capability>,
    ) -> Result<(), String> {
        let has = |capability| !lacks.contains(&capability);
        match contract {
            Contract::AppendThenLoad => self.append_then_load(store).await,
            Contract::LoadUnknownIsNone => self.load_unknown_is_none(store).await,
            Contract::AppendsKeepCallOrder => self.appends_keep_call_order(store).await,
            Contract::EmptyAppendIsNoOp => {
                self.empty_append_is_no_op(store, has(Capability::ListSessions))
                    .await
            }
            Contract::SubpathsAreIndependent => self.subpaths_are_independent(store).await,
            Contract::ProjectsAreIsolated => {
                self.projects_are_isolated(store, has(Capability::ListSessions))
                    .await
            }
            Contract::ListSessions => self.list_sessions(store).await,
            Contract::ListSessionsExcludesSubagents => {
                self.list_sessions_excludes_subagents(store).await
            }
            Contract::ListSessionsTimeIsLastMainAppend => {
                self.list_sessions_time_is_last_main_append(store).await
            }
            Contract::ListSessionSummaries => {
                self.list_session_summaries(
                    store,
                    has(Capability::ListSessions),
                    has(Capability::Delete),
                )
                .await
            }
            Contract::DeleteMain => self.delete_main(store).await,
            Contract::DeleteCascadesToSubagents => {
                self.delete_cascades(
                    store,
                    has(Capability::ListSubkeys),
                    has(Capability::ListSessions),
                )
                .await
            }
            Contract::DeleteSubpathOnly => {
                self.delete_subpath_only(store, has(Capability::ListSubkeys))
                    .await
            }
            Contract::ListSubkeys => self.list_subkeys(store).await,
            Contract::ListSubkeysExcludesMain => self.list_subkeys_excludes_main(store).await,
            Contract::UuidIdempotence => self.uuid_idempotence(store).await,
        }
    }

    async fn append_then_load(&self, store: &dyn SessionStore) -> Result<(), String> {
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

    async fn load_unknown_is_none(&self, store: &dyn SessionStore) -> Result<(), String> {
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

    async fn appends_keep_call_order(&self, store: &dyn SessionStore) -> Result<(), String> {
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

    async fn empty_append_is_no_op(
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

    async fn subpaths_are_independent(&self, store: &dyn SessionStore) -> Result<(), String> {
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

    async fn projects_are_isolated(
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

    async fn list_sessions(&self, store: &dyn SessionStore) -> Result<(), String> {
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

    async fn list_sessions_excludes_subagents(
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

    async fn list_sessions_time_is_last_main_append(
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

    async fn list_session_summaries(
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

    async fn delete_main(&self, store: &dyn SessionStore) -> Result<(), String> {
        self.delete(store, &at("proj", NEVER)).await?;
        let key = main_key();
        self.append(store, &key, &[line(serde_json::json!({"n": 1}))?])
            .await?;
        self.delete(store, &key).await?;
        let loaded = self.load(store, &key).await?;
        ensure!(loaded.is_none(), "a deleted session loads as {loaded:?}");
        Ok(())
    }

    async fn delete_cascades(
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

    async fn delete_subpath_only(
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

    async fn list_subkeys(&self, store: &dyn SessionStore) -> Result<(), String> {
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

    async fn list_subkeys_excludes_main(&self, store: &dyn SessionStore) -> Result<(), String> {
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

    async fn uuid_idempotence(&self, store: &dyn SessionStore) -> Result<(), String> {
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
