//! Where tasks are kept: the [`TaskStore`] trait and the in-process [`MemoryTaskStore`].

use std::collections::{BTreeMap, HashMap};
use std::future::Future;
use std::pin::Pin;
use std::sync::{Mutex, MutexGuard};

use serde_json::value::RawValue;

use super::record::TaskRecord;

/// How many unexpired tasks a [`MemoryTaskStore`] holds at most unless told otherwise.
pub const DEFAULT_MEMORY_CAPACITY: usize = 10_000;

/// The future a [`TaskStore`] returns.
pub type StoreFuture<'a, T> = Pin<Box<dyn Future<Output = Result<T, TaskStoreError>> + Send + 'a>>;

/// Why a [`TaskStore`] refused or could not answer.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum TaskStoreError {
    /// The caller has as many running tasks as it may.
    #[error("this caller already has {limit} running tasks; wait for one to finish or cancel one")]
    TooManyRunning {
        /// The bound ([`TaskSettings::max_running_per_caller`](super::TaskSettings::max_running_per_caller)).
        limit: usize,
    },
    /// The store holds as many tasks as it may.
    #[error("the server holds {capacity} tasks, as many as it may; try again later")]
    Full {
        /// The store's bound.
        capacity: usize,
    },
    /// The store's storage did not answer (a shared implementation's database, say).
    #[error("the task store is unavailable: {0}")]
    Unavailable(#[source] Box<dyn std::error::Error + Send + Sync>),
}

/// A change a running task makes to its record. A record whose status is final
/// ([`TaskStatus::is_terminal`](super::TaskStatus::is_terminal)) takes none.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum TaskChange {
    /// The questions now waiting (key → `{method, params}`): `input_required` with them, or
    /// `working` when there are none. Keys with an answer the handler has not read yet are
    /// left out (the answer came first).
    Questions(BTreeMap<String, Box<RawValue>>),
    /// `completed` with the tool's result.
    Completed(Box<RawValue>),
    /// `failed` with a JSON-RPC error.
    Failed(Box<RawValue>),
    /// `cancelled`.
    Cancelled,
    /// The runner is alive until `until_ms` (Unix milliseconds): the record's lease, renewed
    /// while the handler runs. Not a change of status (`lastUpdatedAt` stays).
    Renew {
        /// The lease's new end.
        until_ms: u64,
    },
    /// `failed` with this JSON-RPC error, **only if** the lease has lapsed when the store
    /// applies it ([`TaskRecord::is_abandoned`]): what a replica asks when it finds a task
    /// whose runner stopped renewing, safe against a runner that renewed meanwhile.
    Abandoned(Box<RawValue>),
}

/// Keeps tasks for the router: a task's record outlives the request that created it, and every
/// `tasks/*` request reads and changes it here.
///
/// An implementation must make [`create`](TaskStore::create) durable before it returns (a
/// `tasks/get` right after must find the task, on any replica that shares the store), apply each
/// call atomically, and treat a record past its TTL as absent. A store shared by replicas (a
/// table keyed by `task_id` holding the [`TaskRecord`] as JSON, say) lets any of them answer
/// `tasks/*`; see the [module docs](super) for what the replica running a task reads from it.
///
/// Implement it with boxed futures (`Box::pin(async move { … })`), so that a store can be held
/// as `Arc<dyn TaskStore>`; [`MemoryTaskStore`] is the reference.
pub trait TaskStore: Send + Sync + 'static {
    /// Stores a new task, unless its owner already has `max_running` tasks that are not final
    /// ([`TaskStoreError::TooManyRunning`]) or the store is full.
    fn create<'a>(&'a self, record: TaskRecord, max_running: usize) -> StoreFuture<'a, ()>;

    /// The task `task_id`; `None` when there is none or it expired before `now_ms`.
    fn get<'a>(&'a self, task_id: &'a str, now_ms: u64) -> StoreFuture<'a, Option<TaskRecord>>;

    /// Applies `change` at `now_ms` (nothing for a final or absent task).
    fn change<'a>(
        &'a self,
        task_id: &'a str,
        change: TaskChange,
        now_ms: u64,
    ) -> StoreFuture<'a, ()>;

    /// Takes the client's `responses`: each under a key in `input_requests` moves to `answers`
    /// (out of `input_requests`; the status becomes `working` when none is left), the others
    /// are ignored. Returns the keys taken.
    fn answer<'a>(
        &'a self,
        task_id: &'a str,
        responses: BTreeMap<String, Box<RawValue>>,
        now_ms: u64,
    ) -> StoreFuture<'a, Vec<String>>;

    /// Removes and returns the answers the handler has not read yet.
    fn take_answers<'a>(
        &'a self,
        task_id: &'a str,
    ) -> StoreFuture<'a, BTreeMap<String, Box<RawValue>>>;

    /// Records that the client asked to cancel the task (nothing for a final or absent task).
    fn request_cancel<'a>(&'a self, task_id: &'a str, now_ms: u64) -> StoreFuture<'a, ()>;
}

/// The default [`TaskStore`]: tasks in this process's memory, at most
/// [`DEFAULT_MEMORY_CAPACITY`] unexpired ones; expired ones are dropped when the store is full
/// or a caller reaches its bound (and whenever they are read). Each call is a hash-map step:
/// the running tasks are counted per owner as they start and finish, not by a scan.
///
/// ```
/// use std::sync::Arc;
/// use claude_tools::tasks::MemoryTaskStore;
/// use claude_tools::tools::ToolServer;
///
/// let server = ToolServer::new("jobs", "1.0.0")
///     .with_task_store(Arc::new(MemoryTaskStore::with_capacity(100)));
/// ```
#[derive(Debug)]
pub struct MemoryTaskStore {
    tasks: Mutex<Tasks>,
    capacity: usize,
}

/// The records, and how many of each owner's are not final.
#[derive(Debug, Default)]
struct Tasks {
    by_id: HashMap<String, TaskRecord>,
    running: HashMap<Option<String>, usize>,
}

impl Tasks {
    /// Removes `task_id`, counting it out of its owner's running tasks if it was one.
    fn remove(&mut self, task_id: &str) {
        if let Some(task) = self.by_id.remove(task_id)
            && !task.status.is_terminal()
        {
            self.finished(&task.owner);
        }
    }

    /// Counts one of `owner`'s running tasks out.
    fn finished(&mut self, owner: &Option<String>) {
        if let Some(count) = self.running.get_mut(owner) {
            *count -= 1;
            if *count == 0 {
                self.running.remove(owner);
            }
        }
    }

    /// Drops every record expired at `now_ms`.
    fn sweep(&mut self, now_ms: u64) {
        let expired: Vec<String> = self
            .by_id
            .values()
            .filter(|task| task.is_expired(now_ms))
            .map(|task| task.task_id.clone())
            .collect();
        for task_id in expired {
            self.remove(&task_id);
        }
    }

    fn running_of(&self, owner: &Option<String>) -> usize {
        self.running.get(owner).copied().unwrap_or(0)
    }
}

impl Default for MemoryTaskStore {
    fn default() -> Self {
        Self::with_capacity(DEFAULT_MEMORY_CAPACITY)
    }
}

impl MemoryTaskStore {
    /// A store of at most `capacity` unexpired tasks.
    pub fn with_capacity(capacity: usize) -> Self {
        Self {
            tasks: Mutex::new(Tasks::default()),
            capacity,
        }
    }

    /// How many tasks it holds (expired ones not yet dropped included).
    pub fn len(&self) -> usize {
        self.lock().by_id.len()
    }

    /// Whether it holds no task.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn lock(&self) -> MutexGuard<'_, Tasks> {
        // Every change is made whole under the lock: a poisoned one is still consistent.
        self.tasks
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    fn create_now(&self, record: TaskRecord, max_running: usize) -> Result<(), TaskStoreError> {
        let now = record.created_at_ms;
        let mut tasks = self.lock();
        if tasks.by_id.len() >= self.capacity || tasks.running_of(&record.owner) >= max_running {
            // Expired tasks may hold the places: drop them, then count again.
            tasks.sweep(now);
        }
        if tasks.by_id.len() >= self.capacity {
            return Err(TaskStoreError::Full {
                capacity: self.capacity,
            });
        }
        if tasks.running_of(&record.owner) >= max_running {
            return Err(TaskStoreError::TooManyRunning { limit: max_running });
        }
        *tasks.running.entry(record.owner.clone()).or_insert(0) += 1;
        let task_id = record.task_id.clone();
        if let Some(replaced) = tasks.by_id.insert(task_id, record)
            && !replaced.status.is_terminal()
        {
            // 128 random bits do not collide; were they to, the count stays right.
            tasks.finished(&replaced.owner);
        }
        Ok(())
    }

    /// Runs `change` on the unfinished task `task_id`, if there is one; an expired one is
    /// dropped instead.
    fn with_live<T: Default>(
        &self,
        task_id: &str,
        now_ms: u64,
        change: impl FnOnce(&mut TaskRecord) -> T,
    ) -> T {
        let mut tasks = self.lock();
        let Some(task) = tasks.by_id.get_mut(task_id) else {
            return T::default();
        };
        if task.is_expired(now_ms) {
            tasks.remove(task_id);
            return T::default();
        }
        if task.status.is_terminal() {
            return T::default();
        }
        let outcome = change(task);
        if task.status.is_terminal() {
            let owner = task.owner.clone();
            tasks.finished(&owner);
        }
        outcome
    }
}

impl TaskStore for MemoryTaskStore {
    fn create<'a>(&'a self, record: TaskRecord, max_running: usize) -> StoreFuture<'a, ()> {
        Box::pin(async move { self.create_now(record, max_running) })
    }

    fn get<'a>(&'a self, task_id: &'a str, now_ms: u64) -> StoreFuture<'a, Option<TaskRecord>> {
        Box::pin(async move {
            let mut tasks = self.lock();
            match tasks.by_id.get(task_id) {
                Some(task) if task.is_expired(now_ms) => {
                    tasks.remove(task_id);
                    Ok(None)
                }
                task => Ok(task.cloned()),
            }
        })
    }

    fn change<'a>(
        &'a self,
        task_id: &'a str,
        change: TaskChange,
        now_ms: u64,
    ) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            self.with_live(task_id, now_ms, |task| task.apply(change, now_ms));
            Ok(())
        })
    }

    fn answer<'a>(
        &'a self,
        task_id: &'a str,
        responses: BTreeMap<String, Box<RawValue>>,
        now_ms: u64,
    ) -> StoreFuture<'a, Vec<String>> {
        Box::pin(async move {
            Ok(self.with_live(task_id, now_ms, |task| {
                task.take_responses(responses, now_ms)
            }))
        })
    }

    fn take_answers<'a>(
        &'a self,
        task_id: &'a str,
    ) -> StoreFuture<'a, BTreeMap<String, Box<RawValue>>> {
        Box::pin(async move {
            Ok(self
                .lock()
                .by_id
                .get_mut(task_id)
                .map(|task| std::mem::take(&mut task.answers))
                .unwrap_or_default())
        })
    }

    fn request_cancel<'a>(&'a self, task_id: &'a str, now_ms: u64) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            self.with_live(task_id, now_ms, |task| task.cancel_requested = true);
            Ok(())
        })
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use crate::task::TaskStatus;

    fn raw(json: &str) -> Box<RawValue> {
        RawValue::from_string(json.to_string()).unwrap()
    }

    fn record(owner: Option<&str>, now: u64) -> TaskRecord {
        TaskRecord::new(
            owner.map(String::from),
            now,
            Duration::from_secs(10),
            Duration::from_secs(1),
        )
        .unwrap()
    }

    fn block_on<T>(future: impl Future<Output = T>) -> T {
        tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap()
            .block_on(future)
    }

    #[test]
    fn running_tasks_are_bounded_per_owner_and_finished_ones_do_not_count() {
        block_on(async {
            let store = MemoryTaskStore::default();
            let first = record(Some("alice"), 0);
            let id = first.task_id.clone();
            store.create(first, 2).await.unwrap();
            store.create(record(Some("alice"), 0), 2).await.unwrap();
            let refused = store.create(record(Some("alice"), 0), 2).await;
            assert!(matches!(
                refused,
                Err(TaskStoreError::TooManyRunning { limit: 2 })
            ));
            // Another caller has a bound of its own.
            store.create(record(Some("bob"), 0), 2).await.unwrap();
            // A finished task frees its place.
            store
                .change(&id, TaskChange::Completed(raw("{}")), 1)
                .await
                .unwrap();
            store.create(record(Some("alice"), 1), 2).await.unwrap();
        });
    }

    #[test]
    fn a_full_store_refuses_until_tasks_expire() {
        block_on(async {
            let store = MemoryTaskStore::with_capacity(1);
            store.create(record(None, 0), 10).await.unwrap();
            let refused = store.create(record(None, 5_000), 10).await;
            assert!(matches!(refused, Err(TaskStoreError::Full { capacity: 1 })));
            // The first expires at 10 s.
            store.create(record(None, 10_000), 10).await.unwrap();
            assert_eq!(store.len(), 1);
        });
    }

    #[test]
    fn an_expired_running_task_frees_its_callers_place() {
        block_on(async {
            let store = MemoryTaskStore::default();
            store.create(record(Some("alice"), 0), 1).await.unwrap();
            let refused = store.create(record(Some("alice"), 5_000), 1).await;
            assert!(matches!(
                refused,
                Err(TaskStoreError::TooManyRunning { limit: 1 })
            ));
            // The first (never finished) expired at 10 s.
            store
                .create(record(Some("alice"), 10_000), 1)
                .await
                .unwrap();
            assert_eq!(store.len(), 1);
        });
    }

    #[test]
    fn an_expired_task_is_gone() {
        block_on(async {
            let store = MemoryTaskStore::default();
            let task = record(None, 0);
            let id = task.task_id.clone();
            store.create(task, 1).await.unwrap();
            assert!(store.get(&id, 9_999).await.unwrap().is_some());
            assert!(store.get(&id, 10_000).await.unwrap().is_none());
        });
    }

    #[test]
    fn only_answers_to_waiting_questions_are_taken() {
        block_on(async {
            let store = MemoryTaskStore::default();
            let task = record(None, 0);
            let id = task.task_id.clone();
            store.create(task, 1).await.unwrap();
            let questions = BTreeMap::from([
                ("a".to_string(), raw(r#"{"method":"roots/list"}"#)),
                ("b".to_string(), raw(r#"{"method":"roots/list"}"#)),
            ]);
            store
                .change(&id, TaskChange::Questions(questions.clone()), 1)
                .await
                .unwrap();
            let responses = BTreeMap::from([
                ("a".to_string(), raw(r#"{"roots":[]}"#)),
                ("never-asked".to_string(), raw("{}")),
            ]);
            assert_eq!(store.answer(&id, responses, 2).await.unwrap(), ["a"]);
            let task = store.get(&id, 3).await.unwrap().unwrap();
            assert_eq!(task.status, TaskStatus::InputRequired);
            assert_eq!(task.input_requests.keys().collect::<Vec<_>>(), ["b"]);
            // The same answer again: `a` is no longer waiting.
            let again = BTreeMap::from([("a".to_string(), raw("{}"))]);
            assert!(store.answer(&id, again, 4).await.unwrap().is_empty());
            // The handler republishing its questions before reading `a` does not bring it back.
            store
                .change(&id, TaskChange::Questions(questions), 5)
                .await
                .unwrap();
            let task = store.get(&id, 6).await.unwrap().unwrap();
            assert_eq!(task.input_requests.keys().collect::<Vec<_>>(), ["b"]);
            let answers = store.take_answers(&id).await.unwrap();
            assert_eq!(answers.keys().collect::<Vec<_>>(), ["a"]);
            assert!(store.take_answers(&id).await.unwrap().is_empty());
        });
    }

    #[test]
    fn an_abandoned_task_fails_only_while_its_lease_is_lapsed() {
        block_on(async {
            let store = MemoryTaskStore::default();
            let mut task = record(Some("alice"), 0);
            task.lease_expires_at_ms = Some(100);
            let id = task.task_id.clone();
            store.create(task, 1).await.unwrap();
            // Renewed at 50 until 200: not abandoned at 150, and `lastUpdatedAt` stays.
            store
                .change(&id, TaskChange::Renew { until_ms: 200 }, 50)
                .await
                .unwrap();
            store
                .change(&id, TaskChange::Abandoned(raw(r#"{"code":-32603}"#)), 150)
                .await
                .unwrap();
            let task = store.get(&id, 150).await.unwrap().unwrap();
            assert_eq!(task.status, TaskStatus::Working);
            assert_eq!(task.last_updated_at_ms, 0);
            assert!(!task.is_abandoned(199) && task.is_abandoned(200));
            store
                .change(&id, TaskChange::Abandoned(raw(r#"{"code":-32603}"#)), 250)
                .await
                .unwrap();
            let task = store.get(&id, 250).await.unwrap().unwrap();
            assert_eq!(task.status, TaskStatus::Failed);
            assert_eq!(task.error.as_ref().unwrap().get(), r#"{"code":-32603}"#);
            assert!(!task.is_abandoned(1_000), "a final task is not abandoned");
            // It no longer counts among alice's running tasks.
            store.create(record(Some("alice"), 300), 1).await.unwrap();
        });
    }

    #[test]
    fn a_final_status_never_changes() {
        block_on(async {
            let store = MemoryTaskStore::default();
            let task = record(None, 0);
            let id = task.task_id.clone();
            store.create(task, 1).await.unwrap();
            store.change(&id, TaskChange::Cancelled, 1).await.unwrap();
            store
                .change(&id, TaskChange::Completed(raw("{}")), 2)
                .await
                .unwrap();
            store.request_cancel(&id, 3).await.unwrap();
            let task = store.get(&id, 4).await.unwrap().unwrap();
            assert_eq!(task.status, TaskStatus::Cancelled);
            assert!(task.result.is_none());
            assert!(!task.cancel_requested);
            assert_eq!(task.last_updated_at_ms, 1);
        });
    }
}
