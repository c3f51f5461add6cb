//! [`PostgresSessionStore`]: transcripts in a PostgreSQL table (feature `postgres`).

use std::sync::Arc;
use std::time::SystemTime;

use tokio::sync::Mutex;
use tokio_postgres::{Client, NoTls};

use super::summary::{SummaryData, SummaryDelta};
use super::{
    SessionKey, SessionStore, SessionSummaryEntry, StoreError, StoreFuture, StoredSession,
    TranscriptEntry,
};

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
///
/// CREATE TABLE claude_session_entries_sessions ( -- one row per session: listings read only this
///     project_key text NOT NULL,
///     session_id  text NOT NULL,
///     modified    timestamptz NOT NULL,     -- the last append to the main transcript
///     summary     jsonb,                    -- its running summary (NULL: read the transcript)
///     PRIMARY KEY (project_key, session_id)
/// );
/// ```
///
/// An append to a main transcript updates its session's row in the same statement as it
/// inserts the lines, so the summary ([`fold_session_summary`](super::fold_session_summary))
/// and the time always match the lines, whichever host appends. Sessions written before the
/// sessions table existed are entered in it when it is created, without a summary (a listing
/// reads them from their transcripts).
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
                ON {table} (project_key, session_id, subpath, uuid) WHERE uuid IS NOT NULL;
            DO $$ BEGIN
                IF to_regclass('{table}_sessions') IS NULL THEN
                    CREATE TABLE {table}_sessions (
                        project_key text NOT NULL,
                        session_id text NOT NULL,
                        modified timestamptz NOT NULL,
                        summary jsonb,
                        PRIMARY KEY (project_key, session_id)
                    );
                    INSERT INTO {table}_sessions (project_key, session_id, modified)
                        SELECT project_key, session_id, max(written_at) FROM {table}
                        WHERE subpath = '' GROUP BY project_key, session_id;
                END IF;
            END $$;"
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

/// A `timestamptz` column as milliseconds since the epoch (a float: no chrono conversion).
const MILLIS: &str = "(extract(epoch FROM modified) * 1000)::float8";

fn time(millis: f64) -> SystemTime {
    SystemTime::UNIX_EPOCH + std::time::Duration::from_millis(millis.max(0.0) as u64)
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
            let insert = format!(
                "INSERT INTO {} (project_key, session_id, subpath, uuid, entry)
                 SELECT $1, $2, $3, u, e
                 FROM unnest($4::text[], $5::text[]) WITH ORDINALITY AS lines(u, e, n)
                 ORDER BY n
                 ON CONFLICT (project_key, session_id, subpath, uuid) WHERE uuid IS NOT NULL
                 DO NOTHING",
                self.table
            );
            let client = self.client().await?;
            let result = if key.subpath.is_some() {
                client
                    .execute(
                        &insert,
                        &[
                            &key.project_key,
                            &key.session_id,
                            &subpath(key),
                            &uuids,
                            &lines,
                        ],
                    )
                    .await
            } else {
                // The lines and the session's row in one statement (one transaction): the
                // summary is folded into the row's under its lock, so appends from several
                // hosts serialize. What the batch sets only where unset is merged under the
                // row's summary, what it overwrites over it (see `SummaryDelta`).
                let delta = SummaryDelta::of(entries);
                let json =
                    |data: &SummaryData| serde_json::to_string(data).map_err(StoreError::backend);
                let (set_once, last_wins) = (json(&delta.set_once)?, json(&delta.last_wins)?);
                let cleared: Vec<&str> = if delta.clears_tag {
                    vec!["tag"]
                } else {
                    vec![]
                };
                let sql = format!(
                    "WITH lines AS ({insert} RETURNING 1)
                     INSERT INTO {table}_sessions AS s (project_key, session_id, modified, summary)
                     VALUES ($1, $2, clock_timestamp(),
                             (($6::text::jsonb || $7::text::jsonb) - $8::text[]))
                     ON CONFLICT (project_key, session_id) DO UPDATE SET
                         modified = clock_timestamp(),
                         summary = CASE WHEN s.summary IS NULL THEN NULL
                             ELSE ((($6::text::jsonb || s.summary) || $7::text::jsonb) - $8::text[])
                         END",
                    table = self.table
                );
                client
                    .execute(
                        &sql,
                        &[
                            &key.project_key,
                            &key.session_id,
                            &"",
                            &uuids,
                            &lines,
                            &set_once,
                            &last_wins,
                            &cleared,
                        ],
                    )
                    .await
            };
            result.map(drop).map_err(StoreError::backend)
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
            let sql = format!(
                "SELECT session_id, {MILLIS} FROM {}_sessions WHERE project_key = $1",
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
                    Ok(StoredSession::new(
                        id,
                        time(row.try_get(1).map_err(StoreError::backend)?),
                    ))
                })
                .collect()
        })
    }

    fn list_session_summaries<'a>(
        &'a self,
        project_key: &'a str,
    ) -> StoreFuture<'a, Vec<SessionSummaryEntry>> {
        Box::pin(async move {
            let sql = format!(
                "SELECT session_id, {MILLIS}, summary::text FROM {}_sessions
                 WHERE project_key = $1 AND summary IS NOT NULL",
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
                    let mtime = time(row.try_get(1).map_err(StoreError::backend)?);
                    let json: String = row.try_get(2).map_err(StoreError::backend)?;
                    let data: SummaryData = serde_json::from_str(&json).map_err(|error| {
                        StoreError::InvalidEntry(format!(
                            "the summary of session {id} cannot be read: {error}"
                        ))
                    })?;
                    Ok(SessionSummaryEntry::new(id, mtime, data))
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
                    // The lines and the session's row, in one statement.
                    let sql = format!(
                        "WITH row AS (DELETE FROM {0}_sessions WHERE project_key = $1
                             AND session_id = $2 RETURNING 1)
                         DELETE FROM {0} WHERE project_key = $1 AND session_id = $2",
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
