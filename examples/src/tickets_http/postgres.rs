//! The board in PostgreSQL, shared by any number of replicas.

use deadpool_postgres::{Pool, PoolConfig, Runtime, Timeouts};
use tokio_postgres::{NoTls, Row};

use super::replay_guard::{self, PostgresReplayGuard};
use super::{
    Closed, Deleted, Filed, Filter, NewTicket, SEED_CREATOR, SharedTicket, StoreError, StoreFuture,
    TEAM, TicketStore, parse_kind, status_value,
};

/// How many connections one replica keeps at most.
const POOL_SIZE: usize = 8;

/// How long a call waits for a connection (from the pool, or a new one) before it fails with an
/// `isError` result instead of hanging while the database is unreachable.
const CONNECTION_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(5);

/// Every replica runs the schema on start; this transaction-scoped advisory lock makes them take
/// turns, since concurrent `CREATE TABLE IF NOT EXISTS` can fail in PostgreSQL and two replicas
/// must not both seed a new board. (Any number unique to this application.)
const SCHEMA_LOCK: i64 = 0x0074_6963_6b65_7473; // "tickets" in ASCII

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS members (name TEXT PRIMARY KEY);
CREATE TABLE IF NOT EXISTS tickets (
    id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    title TEXT NOT NULL,
    kind TEXT NOT NULL CHECK (kind IN ('bug', 'feature', 'chore')),
    assignee TEXT REFERENCES members(name),
    status TEXT NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'closed')),
    close_reason TEXT,
    created_by TEXT NOT NULL
);
CREATE UNIQUE INDEX IF NOT EXISTS tickets_one_open_per_title
    ON tickets (lower(title)) WHERE status = 'open';
";

/// The board in a PostgreSQL database, through a pool of connections (each call takes one for
/// its statements only). Cloning shares the pool.
#[derive(Clone)]
pub struct PostgresStore {
    pool: Pool,
}

impl std::fmt::Debug for PostgresStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PostgresStore")
            .field("pool", &self.pool.status())
            .finish()
    }
}

impl PostgresStore {
    /// Connects to the database at `url` (`postgres://user:password@host:port/dbname`), creates
    /// the tables when missing and seeds a new board (the team and ticket #1).
    pub async fn connect(url: &str) -> Result<PostgresStore, StoreError> {
        let mut config = deadpool_postgres::Config::new();
        config.url = Some(url.to_string());
        let mut pool = PoolConfig::new(POOL_SIZE);
        pool.timeouts = Timeouts {
            wait: Some(CONNECTION_TIMEOUT),
            create: Some(CONNECTION_TIMEOUT),
            recycle: Some(CONNECTION_TIMEOUT),
        };
        config.pool = Some(pool);
        let pool = config.create_pool(Some(Runtime::Tokio1), NoTls)?;
        let store = PostgresStore { pool };
        store.migrate().await?;
        Ok(store)
    }

    /// The guard that makes each MCP 2026-07-28 `requestState` single use across every replica
    /// on this database (its table is created with the board's). It shares the store's pool.
    pub fn replay_guard(&self) -> PostgresReplayGuard {
        PostgresReplayGuard::new(self.pool.clone())
    }

    async fn migrate(&self) -> Result<(), StoreError> {
        let mut client = self.pool.get().await?;
        let tx = client.transaction().await?;
        tx.execute("SELECT pg_advisory_xact_lock($1)", &[&SCHEMA_LOCK])
            .await?;
        tx.batch_execute(SCHEMA).await?;
        tx.batch_execute(replay_guard::SCHEMA).await?;
        let members: i64 = tx
            .query_one("SELECT count(*) FROM members", &[])
            .await?
            .get(0);
        if members == 0 {
            for name in TEAM {
                tx.execute("INSERT INTO members (name) VALUES ($1)", &[&name])
                    .await?;
            }
            tx.execute(
                "INSERT INTO tickets (title, kind, assignee, created_by) VALUES ($1, $2, $3, $4)",
                &[&"Upgrade the CI runners", &"chore", &"grace", &SEED_CREATOR],
            )
            .await?;
        }
        tx.commit().await?;
        Ok(())
    }

    async fn create_ticket(&self, ticket: NewTicket) -> Result<Filed, StoreError> {
        let client = self.pool.get().await?;
        if let Some(name) = &ticket.assignee {
            let known = client
                .query_opt("SELECT 1 FROM members WHERE name = $1", &[name])
                .await?;
            if known.is_none() {
                let rows = client
                    .query("SELECT name FROM members ORDER BY name", &[])
                    .await?;
                return Ok(Filed::UnknownAssignee(
                    rows.iter().map(|row| row.get(0)).collect(),
                ));
            }
        }
        // Each statement is its own transaction, committed when it returns. The look-up first
        // (an id spent on a refused insert would leave a gap); then the unique index refuses a
        // second open ticket with this title even when two replicas insert it at the same
        // instant, and the twin is looked up again. Should it be closed in between, the insert
        // is tried again.
        loop {
            if let Some(twin) = self.open_twin(&client, &ticket.title).await? {
                return Ok(Filed::Duplicate(twin));
            }
            let inserted = client
                .query_opt(
                    "INSERT INTO tickets (title, kind, assignee, created_by) VALUES ($1, $2, $3, $4)
                     ON CONFLICT (lower(title)) WHERE status = 'open' DO NOTHING
                     RETURNING id",
                    &[
                        &ticket.title,
                        &ticket.kind.as_str(),
                        &ticket.assignee,
                        &ticket.created_by,
                    ],
                )
                .await?;
            if let Some(row) = inserted {
                return Ok(Filed::Created(row.get(0)));
            }
        }
    }

    async fn open_twin(
        &self,
        client: &deadpool_postgres::Client,
        title: &str,
    ) -> Result<Option<i64>, StoreError> {
        let twin = client
            .query_opt(
                "SELECT id FROM tickets WHERE status = 'open' AND lower(title) = lower($1)",
                &[&title],
            )
            .await?;
        Ok(twin.map(|row| row.get(0)))
    }

    async fn list_tickets(&self, filter: Filter) -> Result<Vec<SharedTicket>, StoreError> {
        let client = self.pool.get().await?;
        // NULL parameters switch their filter off: one statement for every combination.
        let rows = client
            .query(
                "SELECT id, title, kind, assignee, status, created_by FROM tickets
                 WHERE ($1::text IS NULL OR status = $1) AND ($2::text IS NULL OR kind = $2)
                   AND ($3::text IS NULL OR assignee = $3)
                 ORDER BY id",
                &[
                    &status_value(filter.status),
                    &filter.kind.map(|kind| kind.as_str()),
                    &filter.assignee,
                ],
            )
            .await?;
        rows.iter().map(ticket_from_row).collect()
    }

    async fn close_ticket(&self, id: i64, reason: Option<String>) -> Result<Closed, StoreError> {
        let client = self.pool.get().await?;
        let changed = client
            .execute(
                "UPDATE tickets SET status = 'closed', close_reason = $2
                 WHERE id = $1 AND status = 'open'",
                &[&id, &reason],
            )
            .await?;
        if changed == 1 {
            return Ok(Closed::Closed);
        }
        let exists = client
            .query_opt("SELECT 1 FROM tickets WHERE id = $1", &[&id])
            .await?;
        Ok(match exists {
            Some(_) => Closed::AlreadyClosed,
            None => Closed::Missing,
        })
    }
}

impl PostgresStore {
    async fn get_ticket(&self, id: i64) -> Result<Option<SharedTicket>, StoreError> {
        let client = self.pool.get().await?;
        let row = client
            .query_opt(
                "SELECT id, title, kind, assignee, status, created_by FROM tickets WHERE id = $1",
                &[&id],
            )
            .await?;
        row.as_ref().map(ticket_from_row).transpose()
    }

    async fn delete_ticket(&self, id: i64) -> Result<Deleted, StoreError> {
        let client = self.pool.get().await?;
        let deleted = client
            .execute("DELETE FROM tickets WHERE id = $1", &[&id])
            .await?;
        Ok(if deleted == 1 {
            Deleted::Deleted
        } else {
            Deleted::Missing
        })
    }
}

fn ticket_from_row(row: &Row) -> Result<SharedTicket, StoreError> {
    Ok(SharedTicket {
        id: row.try_get("id")?,
        title: row.try_get("title")?,
        kind: parse_kind(row.try_get("kind")?)?,
        assignee: row.try_get("assignee")?,
        closed: row.try_get::<_, &str>("status")? == "closed",
        created_by: row.try_get("created_by")?,
    })
}

impl TicketStore for PostgresStore {
    fn create(&self, ticket: NewTicket) -> StoreFuture<'_, Filed> {
        Box::pin(self.create_ticket(ticket))
    }

    fn list(&self, filter: Filter) -> StoreFuture<'_, Vec<SharedTicket>> {
        Box::pin(self.list_tickets(filter))
    }

    fn close(&self, id: i64, reason: Option<String>) -> StoreFuture<'_, Closed> {
        Box::pin(self.close_ticket(id, reason))
    }

    fn get(&self, id: i64) -> StoreFuture<'_, Option<SharedTicket>> {
        Box::pin(self.get_ticket(id))
    }

    fn delete(&self, id: i64) -> StoreFuture<'_, Deleted> {
        Box::pin(self.delete_ticket(id))
    }
}
