//! [`PostgresTaskStore`]: the tasks of a tool server (MCP's tasks extension) in a PostgreSQL
//! table that every replica reaches (feature `postgres`, using `tokio-postgres`).

use std::collections::BTreeMap;
use std::sync::Arc;

use claude_tools_core::task::{StoreFuture, TaskChange, TaskRecord, TaskStore, TaskStoreError};
use serde_json::value::RawValue;
use tokio::sync::Mutex;
use tokio_postgres::{Client, NoTls};

/// The table, unless another is named.
pub const DEFAULT_TABLE: &str = "claude_mcp_tasks";

/// How often a read-modify-write is tried again when another replica changed the task between
/// its read and its write, before the store gives up (with [`TaskStoreError::Unavailable`]).
const MAX_WRITE_ATTEMPTS: usize = 16;

/// A [`TaskStore`] in PostgreSQL: replicas that share the database share their tasks, so a
/// task started on replica A is polled, answered (`tasks/update`) and cancelled through any
/// other (feature `postgres`).
///
/// One row per task, in a table created if missing (see [`PostgresTaskStore::connect`]):
///
/// ```sql
/// CREATE TABLE claude_mcp_tasks (
///     task_id       text PRIMARY KEY,
///     owner         text,               -- the caller that created it; NULL without auth
///     running       boolean NOT NULL,   -- not final: counts towards its owner's bound
///     expires_at_ms bigint NOT NULL,    -- creation + TTL, Unix milliseconds
///     version       bigint NOT NULL DEFAULT 0,
///     record        text NOT NULL       -- the `TaskRecord` as JSON
/// );
/// -- plus an index on (owner) of the running tasks and one on expires_at_ms
/// ```
///
/// How it keeps the [`TaskStore`] contract:
/// - **create** is one transaction that takes an advisory lock on the owner, drops expired
///   tasks, counts the owner's running ones and inserts: the per-caller bound holds across
///   replicas. The row is committed before the `CreateTaskResult` is sent.
/// - **every change** (a status, questions, answers, a cancellation request, a lease renewal)
///   is read, applied in Rust ([`TaskRecord::apply`], [`TaskRecord::take_responses`]: the same
///   rules as the memory store) and written back only if the row's `version` is still the one
///   read; otherwise it is read again (optimistic concurrency, no lock held between round
///   trips). A change that changes nothing writes nothing, so the runner's polls are reads.
/// - a task past its TTL is absent; expired rows are deleted by the next create.
///
/// **Cancellation across replicas**: `tasks/cancel` on replica B sets the record's
/// `cancel_requested`; the runner on replica A reads its record at every poll interval
/// ([`TaskSettings::poll_interval`](claude_tools_core::task::TaskSettings::poll_interval)) and
/// fires the tool's cancellation token when it sees it, so the tool hears of it within one poll
/// interval. Answers from `tasks/update` reach it the same way. A replica that dies stops
/// renewing its tasks' leases: the next `tasks/*` request, on any replica, marks them `failed`.
///
/// Each store holds two connections: one shared by the reads and the optimistic writes
/// (pipelined, never waiting on each other), one for the creates' transactions. Both are made
/// again when lost.
///
/// ```no_run
/// use std::sync::Arc;
/// use claude_tools::ToolServer;
/// use claude_tools_mcp::tasks::PostgresTaskStore;
///
/// # async fn run() -> Result<(), claude_tools::tasks::TaskStoreError> {
/// let store = PostgresTaskStore::connect("postgres://mcp@db.internal/tools").await?;
/// let server = ToolServer::new("jobs", "1.0.0").with_task_store(Arc::new(store));
/// # Ok(())
/// # }
/// ```
pub struct PostgresTaskStore {
    config: String,
    table: String,
    shared: Mutex<Option<Arc<Client>>>,
    exclusive: Mutex<Option<Client>>,
}

/// The store's errors: the database did not answer, or refused.
fn unavailable(error: impl std::error::Error + Send + Sync + 'static) -> TaskStoreError {
    TaskStoreError::Unavailable(Box::new(error))
}

/// An error of the store's own, as [`TaskStoreError::Unavailable`].
fn failure(message: String) -> TaskStoreError {
    TaskStoreError::Unavailable(message.into())
}

/// Unix milliseconds as PostgreSQL's `bigint` (saturating).
fn bigint(ms: u64) -> i64 {
    i64::try_from(ms).unwrap_or(i64::MAX)
}

impl PostgresTaskStore {
    /// Connects with a libpq-style connection string or URL (`host=… user=…` or
    /// `postgres://…`; no TLS) and creates the table [`DEFAULT_TABLE`] if it is missing.
    pub async fn connect(config: &str) -> Result<Self, TaskStoreError> {
        Self::connect_to_table(config, DEFAULT_TABLE).await
    }

    /// [`connect`](Self::connect), with a table of another name (letters, digits and `_`,
    /// optionally `schema.` first).
    pub async fn connect_to_table(config: &str, table: &str) -> Result<Self, TaskStoreError> {
        let valid = |part: &str| {
            !part.is_empty()
                && !part.starts_with(|c: char| c.is_ascii_digit())
                && part.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        };
        let parts: Vec<&str> = table.split('.').collect();
        if parts.len() > 2 || !parts.iter().all(|part| valid(part)) {
            return Err(failure(format!("not a table name: {table:?}")));
        }
        let store = Self {
            config: config.to_string(),
            table: table.to_string(),
            shared: Mutex::new(None),
            exclusive: Mutex::new(None),
        };
        let client = store.open().await?;
        client
            .batch_execute(&store.schema())
            .await
            .map_err(unavailable)?;
        *store.shared.lock().await = Some(Arc::new(client));
        Ok(store)
    }

    /// The table's DDL, idempotent.
    fn schema(&self) -> String {
        let table = &self.table;
        let index = table.replace('.', "_");
        format!(
            "CREATE TABLE IF NOT EXISTS {table} (
                task_id text PRIMARY KEY,
                owner text,
                running boolean NOT NULL,
                expires_at_ms bigint NOT NULL,
                version bigint NOT NULL DEFAULT 0,
                record text NOT NULL
            );
            CREATE INDEX IF NOT EXISTS {index}_running ON {table} (owner) WHERE running;
            CREATE INDEX IF NOT EXISTS {index}_expires ON {table} (expires_at_ms);"
        )
    }

    async fn open(&self) -> Result<Client, TaskStoreError> {
        let (client, connection) = tokio_postgres::connect(&self.config, NoTls)
            .await
            .map_err(unavailable)?;
        tokio::spawn(async move {
            if let Err(error) = connection.await {
                tracing::warn!(%error, "task store: the PostgreSQL connection ended");
            }
        });
        Ok(client)
    }

    /// The shared connection, made again when it was lost.
    async fn client(&self) -> Result<Arc<Client>, TaskStoreError> {
        let mut client = self.shared.lock().await;
        if let Some(live) = client.as_ref().filter(|c| !c.is_closed()) {
            return Ok(live.clone());
        }
        let fresh = Arc::new(self.open().await?);
        *client = Some(fresh.clone());
        Ok(fresh)
    }

    async fn create_now(
        &self,
        record: TaskRecord,
        max_running: usize,
    ) -> Result<(), TaskStoreError> {
        let json = serde_json::to_string(&record).map_err(unavailable)?;
        let mut exclusive = self.exclusive.lock().await;
        if exclusive.as_ref().is_none_or(Client::is_closed) {
            *exclusive = Some(self.open().await?);
        }
        let Some(client) = exclusive.as_mut() else {
            return Err(failure("no connection for the task's creation".into()));
        };
        let table = &self.table;
        let owner = record.owner.as_deref();
        let transaction = client.transaction().await.map_err(unavailable)?;
        // One owner's creates, on every replica, one at a time: the count below is then exact.
        transaction
            .execute(
                "SELECT pg_advisory_xact_lock(hashtext($1))",
                &[&format!("{table}:{}", owner.unwrap_or(""))],
            )
            .await
            .map_err(unavailable)?;
        transaction
            .execute(
                &format!("DELETE FROM {table} WHERE expires_at_ms <= $1"),
                &[&bigint(record.created_at_ms)],
            )
            .await
            .map_err(unavailable)?;
        let running: i64 = transaction
            .query_one(
                &format!(
                    "SELECT count(*) FROM {table} WHERE running AND owner IS NOT DISTINCT FROM $1"
                ),
                &[&owner],
            )
            .await
            .map_err(unavailable)?
            .get(0);
        if usize::try_from(running).unwrap_or(usize::MAX) >= max_running {
            // Dropped without a commit: rolled back, the lock released.
            return Err(TaskStoreError::TooManyRunning { limit: max_running });
        }
        transaction
            .execute(
                &format!(
                    "INSERT INTO {table} (task_id, owner, running, expires_at_ms, record)
                     VALUES ($1, $2, $3, $4, $5)"
                ),
                &[
                    &record.task_id,
                    &owner,
                    &!record.status.is_terminal(),
                    &bigint(record.expires_at_ms()),
                    &json,
                ],
            )
            .await
            .map_err(unavailable)?;
        transaction.commit().await.map_err(unavailable)
    }

    /// Reads task `task_id`, unexpired at `now_ms`, with its row's version.
    async fn read(
        &self,
        client: &Client,
        task_id: &str,
        now_ms: u64,
    ) -> Result<Option<(i64, String, TaskRecord)>, TaskStoreError> {
        let row = client
            .query_opt(
                &format!(
                    "SELECT version, record FROM {} WHERE task_id = $1 AND expires_at_ms > $2",
                    self.table
                ),
                &[&task_id, &bigint(now_ms)],
            )
            .await
            .map_err(unavailable)?;
        let Some(row) = row else {
            return Ok(None);
        };
        let version: i64 = row.get(0);
        let json: String = row.get(1);
        let record = serde_json::from_str(&json).map_err(|error| {
            failure(format!(
                "task {task_id}'s stored record is not one: {error}"
            ))
        })?;
        Ok(Some((version, json, record)))
    }

    /// Applies `change` to the unfinished task `task_id` (nothing for a final, absent or
    /// expired one), written back only if nobody wrote it since it was read; read again
    /// otherwise. Nothing is written when `change` changed nothing.
    async fn modify<T: Default>(
        &self,
        task_id: &str,
        now_ms: u64,
        mut change: impl FnMut(&mut TaskRecord) -> T,
    ) -> Result<T, TaskStoreError> {
        let client = self.client().await?;
        for _ in 0..MAX_WRITE_ATTEMPTS {
            let Some((version, before, mut record)) = self.read(&client, task_id, now_ms).await?
            else {
                return Ok(T::default());
            };
            if record.status.is_terminal() {
                return Ok(T::default());
            }
            let outcome = change(&mut record);
            let after = serde_json::to_string(&record).map_err(unavailable)?;
            if after == before {
                return Ok(outcome);
            }
            let written = client
                .execute(
                    &format!(
                        "UPDATE {} SET record = $1, running = $2, version = version + 1
                         WHERE task_id = $3 AND version = $4",
                        self.table
                    ),
                    &[&after, &!record.status.is_terminal(), &task_id, &version],
                )
                .await
                .map_err(unavailable)?;
            if written == 1 {
                return Ok(outcome);
            }
        }
        Err(failure(format!(
            "task {task_id} changed under {MAX_WRITE_ATTEMPTS} writes in a row"
        )))
    }
}

impl std::fmt::Debug for PostgresTaskStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The connection string may hold a password.
        f.debug_struct("PostgresTaskStore")
            .field("table", &self.table)
            .finish_non_exhaustive()
    }
}

impl TaskStore for PostgresTaskStore {
    fn create<'a>(&'a self, record: TaskRecord, max_running: usize) -> StoreFuture<'a, ()> {
        Box::pin(self.create_now(record, max_running))
    }

    fn get<'a>(&'a self, task_id: &'a str, now_ms: u64) -> StoreFuture<'a, Option<TaskRecord>> {
        Box::pin(async move {
            let client = self.client().await?;
            Ok(self
                .read(&client, task_id, now_ms)
                .await?
                .map(|(_, _, record)| record))
        })
    }

    fn change<'a>(
        &'a self,
        task_id: &'a str,
        change: TaskChange,
        now_ms: u64,
    ) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            self.modify(task_id, now_ms, |record| {
                record.apply(change.clone(), now_ms)
            })
            .await
        })
    }

    fn answer<'a>(
        &'a self,
        task_id: &'a str,
        responses: BTreeMap<String, Box<RawValue>>,
        now_ms: u64,
    ) -> StoreFuture<'a, Vec<String>> {
        Box::pin(async move {
            self.modify(task_id, now_ms, |record| {
                record.take_responses(responses.clone(), now_ms)
            })
            .await
        })
    }

    fn take_answers<'a>(
        &'a self,
        task_id: &'a str,
    ) -> StoreFuture<'a, BTreeMap<String, Box<RawValue>>> {
        Box::pin(async move {
            // Expiry is the reader's business here: an expired task's answers are never read.
            self.modify(task_id, 0, |record| std::mem::take(&mut record.answers))
                .await
        })
    }

    fn request_cancel<'a>(&'a self, task_id: &'a str, now_ms: u64) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            self.modify(task_id, now_ms, |record| record.cancel_requested = true)
                .await
        })
    }
}
