//! The contract every [`SessionStore`] keeps, as checks an application runs against its own
//! store: the Python SDK's `run_session_store_conformance`, plus what this crate's trait
//! documentation promises beyond it (uuid idempotence, the listing's clock).
//!
//! Always compiled, not behind a feature: it needs nothing the store trait does not already
//! bring, and an application finds it next to the trait it implements.

use std::collections::BTreeSet;
use std::future::Future;
use std::time::Duration;

use super::{SessionStore, StoreError};

use ops::Ops;

// The helpers the checks are written with (`macro_use`: the checks use its `ensure!`), then the
// store operations they make, then the checks themselves.
#[macro_use]
mod fixtures;
mod ops;

mod optional_checks;
mod transcript_checks;

/// How long one store operation may take before the contract it serves fails, unless
/// [`Conformance::operation_timeout`] says otherwise.
pub const DEFAULT_OPERATION_TIMEOUT: Duration = Duration::from_secs(30);

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

impl Ops {
    /// Checks `contract` on a fresh `store`, leaving out what needs a capability in `lacks`.
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
}
