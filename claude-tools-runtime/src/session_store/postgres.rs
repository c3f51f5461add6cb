//! [`PostgresSessionStore`]: transcripts in a PostgreSQL table (feature `postgres`).

use std::sync::Arc;
use std::time::SystemTime;

use tokio::sync::Mutex;
use tokio_postgres::{Client, NoTls};

use super::{SessionKey, SessionStore, StoreError, StoreFuture, StoredSession, TranscriptEntry};

/// The table, unless another is named.
pub const DEFAULT_TABLE: &str = "claude_session_entries";

/// A [`SessionStore`] in PostgreSQL: every host that reaches the database can resume the
/// sessions of the others (feature `postgres`, using `tokio-postgres`).
///
/// One row per transcript line, in a table created if missing (see
/// [`PostgresSessionStore::connect`]):
///
/// ```sql
/// CREATE TABLE claude_session_entries (
///     seq         bigserial PRIMARY KEY,   -- the order lines were appended in
///     project_key text NOT NULL,
///     session_id  text NOT NULL,
///     subpath     text NOT NULL DEFAULT '', -- '' for the main transcript
///     uuid        text,                    -- the line's uuid, when it has one
///     entry       text NOT NULL,           -- the line, byte for byte
///     written_at  timestamptz NOT NULL DEFAULT clock_timestamp()
/// );
/// -- plus an index on (project_key, session_id, subpath, seq), and a unique one on
/// -- (project_key, session_id, subpath, uuid) for the lines that have a uuid
/// ```
///
/// A batch is one `INSERT` (one transaction: all its lines or none), in order; a line whose
/// uuid the transcript already has is skipped, so a batch sent again is stored once. Lines are
/// kept as text, not `jsonb`, so a transcript loads back byte for byte. The connection is made
/// again when it was lost.
///
/// ```no_run
/// use claude_tools::Options;
/// use claude_tools::session_store::PostgresSessionStore;
///
/// # async fn run() -> Result<(), claude_tools::session_store::StoreError> {
/// let store = PostgresSessionStore::connect("postgres://agent@db.internal/agents").await?;
/// let options = Options::new().session_store(store);
/// # Ok(())
/// # }
/// ```
pub struct PostgresSessionStore {
    config: String,
    table: String,
    client: Mutex<Option<Arc<Client>>>,
}

impl PostgresSessionStore {
    /// Connects with a libpq-style connection string or URL (`host=… user=…` or
    /// `postgres://…`; no TLS) and creates the table [`DEFAULT_TABLE`] if it is missing.
    pub async fn connect(config: &str) -> Result<Self, StoreError> {
        Self::connect_to_table(config, DEFAULT_TABLE).await
    }

    /// [`connect`](Self::connect), with a table of another name (letters, digits and `_`,
    /// optionally `schema.` first).
    pub async fn connect_to_table(config: &str, table: &str) -> Result<Self, StoreError> {
        let valid = |part: &str| {
            !part.is_empty()
                && !part.starts_with(|c: char| c.is_ascii_digit())
                && part.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        };
        let parts: Vec<&str> = table.split('.').collect();
        if parts.len() > 2 || !parts.iter().all(|p| valid(p)) {
            return Err(StoreError::backend(format!("not a table name: {table:?}")));
        }
        let store = Self {
            config: config.to_string(),
            table: table.to_string(),
            client: Mutex::new(None),
        };
        let client = store.open().await?;
        client
            .batch_execute(&store.schema())
            .await
            .map_err(StoreError::backend)?;
        *store.client.lock().await = Some(Arc::new(client));
        Ok(store)
    }

    /// The table's DDL, idempotent.
    fn schema(&self) -> String {
        let table = &self.table;
        let index = table.replace('.', "_");
        format!(
            "CREATE TABLE IF NOT EXISTS {table} (
                seq bigserial PRIMARY KEY,
                project_key text NOT NULL,
                session_id text NOT NULL,
                subpath text NOT NULL DEFAULT '',
                uuid text,
                entry text NOT NULL,
                written_at timestamptz NOT NULL DEFAULT clock_timestamp()
            );
            CREATE INDEX IF NOT EXISTS {index}_transcript
                ON {table} (project_key, session_id, subpath, seq);
            CREATE UNIQUE INDEX IF NOT EXISTS {index}_uuid
                ON {table} (project_key, session_id, subpath, uuid) WHERE uuid IS NOT NULL;"
        )
    }

    async fn open(&self) -> Result<Client, StoreError> {
        let (client, connection) = tokio_postgres::connect(&self.config, NoTls)
            .await
            .map_err(StoreError::backend)?;
        tokio::spawn(async move {
            if let Err(error) = connection.await {
                tracing::warn!(%error, "session store: the PostgreSQL connection ended");
            }
        });
        Ok(client)
    }

    /// The connection, made again when it was lost.
    async fn client(&self) -> Result<Arc<Client>, StoreError> {
        let mut client = self.client.lock().await;
        if let Some(live) = client.as_ref().filter(|c| !c.is_closed()) {
            return Ok(live.clone());
        }
        let fresh = Arc::new(self.open().await?);
        *client = Some(fresh.clone());
        Ok(fresh)
    }
}

impl std::fmt::Debug for PostgresSessionStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The connection string may hold a password.
        f.debug_struct("PostgresSessionStore")
            .field("table", &self.table)
            .finish_non_exhaustive()
    }
}

fn subpath(key: &SessionKey) -> &str {
    key.subpath.as_deref().unwrap_or("")
}

impl SessionStore for PostgresSessionStore {
    fn append<'a>(
        &'a self,
        key: &'a SessionKey,
        entries: &'a [TranscriptEntry],
    ) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            if entries.is_empty() {
                return Ok(());
            }
            let uuids: Vec<Option<&str>> = entries.iter().map(TranscriptEntry::uuid).collect();
            let lines: Vec<&str> = entries.iter().map(TranscriptEntry::json).collect();
            // One statement: one transaction. Rows are numbered in the arrays' order.
            let sql = format!(
                "INSERT INTO {} (project_key, session_id, subpath, uuid, entry)
                 SELECT $1, $2, $3, u, e
                 FROM unnest($4::text[], $5::text[]) WITH ORDINALITY AS lines(u, e, n)
                 ORDER BY n
                 ON CONFLICT (project_key, session_id, subpath, uuid) WHERE uuid IS NOT NULL
                 DO NOTHING",
                self.table
            );
            self.client()
                .await?
                .execute(
                    &sql,
                    &[
                        &key.project_key,
                        &key.session_id,
                        &subpath(key),
                        &uuids,
                        &lines,
                    ],
                )
                .await
                .map_err(StoreError::backend)?;
            Ok(())
        })
    }

    fn load<'a>(&'a self, key: &'a SessionKey) -> StoreFuture<'a, Option<Vec<TranscriptEntry>>> {
        Box::pin(async move {
            let sql = format!(
                "SELECT entry FROM {} WHERE project_key = $1 AND session_id = $2 AND subpath = $3
                 ORDER BY seq",
                self.table
            );
            let rows = self
                .client()
                .await?
                .query(&sql, &[&key.project_key, &key.session_id, &subpath(key)])
                .await
                .map_err(StoreError::backend)?;
            if rows.is_empty() {
                return Ok(None);
            }
            rows.iter()
                .map(|row| {
                    let line: String = row.try_get(0).map_err(StoreError::backend)?;
                    TranscriptEntry::from_json(line)
                })
                .collect::<Result<Vec<_>, _>>()
                .map(Some)
        })
    }

    fn list_sessions<'a>(&'a self, project_key: &'a str) -> StoreFuture<'a, Vec<StoredSession>> {
        Box::pin(async move {
            // Milliseconds since the epoch, as a float: no chrono conversion needed.
            let sql = format!(
                "SELECT session_id, (extract(epoch FROM max(written_at)) * 1000)::float8
                 FROM {} WHERE project_key = $1 AND subpath = '' GROUP BY session_id",
                self.table
            );
            let rows = self
                .client()
                .await?
                .query(&sql, &[&project_key])
                .await
                .map_err(StoreError::backend)?;
            rows.iter()
                .map(|row| {
                    let id: String = row.try_get(0).map_err(StoreError::backend)?;
                    let millis: f64 = row.try_get(1).map_err(StoreError::backend)?;
                    let modified = SystemTime::UNIX_EPOCH
                        + std::time::Duration::from_millis(millis.max(0.0) as u64);
                    Ok(StoredSession::new(id, modified))
                })
                .collect()
        })
    }

    fn delete<'a>(&'a self, key: &'a SessionKey) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            let client = self.client().await?;
            let result = match &key.subpath {
                Some(subpath) => {
                    let sql = format!(
                        "DELETE FROM {} WHERE project_key = $1 AND session_id = $2 AND subpath = $3",
                        self.table
                    );
                    client
                        .execute(&sql, &[&key.project_key, &key.session_id, subpath])
                        .await
                }
                None => {
                    let sql = format!(
                        "DELETE FROM {} WHERE project_key = $1 AND session_id = $2",
                        self.table
                    );
                    client
                        .execute(&sql, &[&key.project_key, &key.session_id])
                        .await
                }
            };
            result.map(drop).map_err(StoreError::backend)
        })
    }

    fn list_subkeys<'a>(&'a self, session: &'a SessionKey) -> StoreFuture<'a, Vec<String>> {
        Box::pin(async move {
            let sql = format!(
                "SELECT DISTINCT subpath FROM {} WHERE project_key = $1 AND session_id = $2
                 AND subpath <> '' ORDER BY subpath",
                self.table
            );
            let rows = self
                .client()
                .await?
                .query(&sql, &[&session.project_key, &session.session_id])
                .await
                .map_err(StoreError::backend)?;
            rows.iter()
                .map(|row| row.try_get(0).map_err(StoreError::backend))
                .collect()
        })
    }
}
