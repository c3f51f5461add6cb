//! The board in a SQLite file, for one machine.

use std::path::Path;

use rusqlite::{Connection, OptionalExtension, params};

use super::{
    Closed, Deleted, Filed, Filter, NewTicket, SEED_CREATOR, SharedTicket, StoreError, StoreFuture,
    TEAM, TicketStore, parse_kind, status_value,
};
use crate::db::Db;

/// The tables: those of the in-process [`tickets`](crate::tickets) example plus `created_by`,
/// and the unique index that keeps one open ticket per title whatever writes the file.
const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS members (name TEXT PRIMARY KEY);
CREATE TABLE IF NOT EXISTS tickets (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
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

/// The board in a SQLite file (see [`crate::db`] for how calls stay off the async runtime's
/// threads). Cloning shares the connection.
#[derive(Debug, Clone)]
pub struct SqliteStore {
    db: Db,
}

impl SqliteStore {
    /// Opens the board in the file at `path`, creating and seeding it when new. Blocking.
    pub fn open(path: &Path) -> Result<SqliteStore, StoreError> {
        let db = Db::open(path, SCHEMA)?;
        // A writer that finds the file locked by another process waits for it a while instead
        // of failing at once.
        db.blocking(|conn| conn.busy_timeout(std::time::Duration::from_secs(5)))?;
        db.blocking(seed_if_new)?;
        Ok(SqliteStore { db })
    }

    /// The database file.
    pub fn path(&self) -> &Path {
        self.db.path()
    }
}

fn seed_if_new(conn: &mut Connection) -> rusqlite::Result<()> {
    // IMMEDIATE: the write lock is taken before the count, so two processes opening a new file
    // at once cannot both seed it.
    let tx = conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
    let members: i64 = tx.query_row("SELECT count(*) FROM members", [], |r| r.get(0))?;
    if members == 0 {
        for name in TEAM {
            tx.execute("INSERT INTO members (name) VALUES (?1)", [name])?;
        }
        tx.execute(
            "INSERT INTO tickets (title, kind, assignee, created_by) VALUES (?1, ?2, ?3, ?4)",
            params!["Upgrade the CI runners", "chore", "grace", SEED_CREATOR],
        )?;
    }
    tx.commit()
}

fn create(conn: &mut Connection, ticket: &NewTicket) -> rusqlite::Result<Filed> {
    let tx = conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
    if let Some(name) = &ticket.assignee {
        let known = tx
            .query_row("SELECT 1 FROM members WHERE name = ?1", [name], |_| Ok(()))
            .optional()?
            .is_some();
        if !known {
            let mut statement = tx.prepare_cached("SELECT name FROM members ORDER BY name")?;
            let team = statement
                .query_map([], |row| row.get(0))?
                .collect::<rusqlite::Result<_>>()?;
            return Ok(Filed::UnknownAssignee(team));
        }
    }
    // The transaction holds the write lock: no other process can file the twin in between.
    let twin: Option<i64> = tx
        .query_row(
            "SELECT id FROM tickets WHERE status = 'open' AND lower(title) = lower(?1)",
            [&ticket.title],
            |row| row.get(0),
        )
        .optional()?;
    let filed = match twin {
        Some(twin) => Filed::Duplicate(twin),
        None => {
            tx.execute(
                "INSERT INTO tickets (title, kind, assignee, created_by) VALUES (?1, ?2, ?3, ?4)",
                params![
                    ticket.title,
                    ticket.kind.as_str(),
                    ticket.assignee,
                    ticket.created_by
                ],
            )?;
            Filed::Created(tx.last_insert_rowid())
        }
    };
    tx.commit()?;
    Ok(filed)
}

/// The rows matching `filter`; a kind the schema should have refused comes back as the inner
/// error.
type Rows = Result<Vec<SharedTicket>, StoreError>;

fn select(conn: &Connection, filter: &Filter, id: Option<i64>) -> rusqlite::Result<Rows> {
    let mut statement = conn.prepare_cached(
        "SELECT id, title, kind, assignee, status, created_by FROM tickets
         WHERE (?1 IS NULL OR status = ?1) AND (?2 IS NULL OR kind = ?2)
           AND (?3 IS NULL OR assignee = ?3) AND (?4 IS NULL OR id = ?4)
         ORDER BY id",
    )?;
    let mut rows = statement.query(params![
        status_value(filter.status),
        filter.kind.map(|kind| kind.as_str()),
        filter.assignee,
        id
    ])?;
    let mut tickets = Vec::new();
    while let Some(row) = rows.next()? {
        let kind: String = row.get("kind")?;
        let kind = match parse_kind(&kind) {
            Ok(kind) => kind,
            Err(corrupt) => return Ok(Err(corrupt)),
        };
        tickets.push(SharedTicket {
            id: row.get("id")?,
            title: row.get("title")?,
            kind,
            assignee: row.get("assignee")?,
            closed: row.get::<_, String>("status")? == "closed",
            created_by: row.get("created_by")?,
        });
    }
    Ok(Ok(tickets))
}

fn close(conn: &mut Connection, id: i64, reason: Option<&str>) -> rusqlite::Result<Closed> {
    let changed = conn.execute(
        "UPDATE tickets SET status = 'closed', close_reason = ?2 WHERE id = ?1 AND status = 'open'",
        params![id, reason],
    )?;
    if changed == 1 {
        return Ok(Closed::Closed);
    }
    let exists = conn
        .query_row("SELECT 1 FROM tickets WHERE id = ?1", [id], |_| Ok(()))
        .optional()?
        .is_some();
    Ok(if exists {
        Closed::AlreadyClosed
    } else {
        Closed::Missing
    })
}

impl TicketStore for SqliteStore {
    fn create(&self, ticket: NewTicket) -> StoreFuture<'_, Filed> {
        Box::pin(async move { Ok(self.db.run(move |conn| create(conn, &ticket)).await?) })
    }

    fn list(&self, filter: Filter) -> StoreFuture<'_, Vec<SharedTicket>> {
        Box::pin(async move { self.db.run(move |conn| select(conn, &filter, None)).await? })
    }

    fn get(&self, id: i64) -> StoreFuture<'_, Option<SharedTicket>> {
        Box::pin(async move {
            let found = self
                .db
                .run(move |conn| select(conn, &Filter::all(), Some(id)))
                .await??;
            Ok(found.into_iter().next())
        })
    }

    fn delete(&self, id: i64) -> StoreFuture<'_, Deleted> {
        Box::pin(async move {
            let deleted = self
                .db
                .run(move |conn| conn.execute("DELETE FROM tickets WHERE id = ?1", [id]))
                .await?;
            Ok(if deleted == 1 {
                Deleted::Deleted
            } else {
                Deleted::Missing
            })
        })
    }

    fn close(&self, id: i64, reason: Option<String>) -> StoreFuture<'_, Closed> {
        Box::pin(async move {
            Ok(self
                .db
                .run(move |conn| close(conn, id, reason.as_deref()))
                .await?)
        })
    }
}

#[cfg(test)]
mod tests {
    use claude_tools::prelude::*;

    use super::super::{Deleted, Replica, SharedTickets, TicketStore};
    use super::*;

    #[tokio::test]
    async fn the_sqlite_store_gets_and_deletes_a_ticket() {
        let dir = claude_tools_testkit::TempDir::new("tickets-http-get").unwrap();
        let store = SqliteStore::open(&dir.path().join("b.db")).unwrap();
        let seeded = store.get(1).await.unwrap().unwrap();
        assert_eq!(seeded.title, "Upgrade the CI runners");
        assert_eq!(store.get(2).await.unwrap(), None);
        assert_eq!(store.delete(1).await.unwrap(), Deleted::Deleted);
        assert_eq!(store.delete(1).await.unwrap(), Deleted::Missing);
        assert_eq!(store.get(1).await.unwrap(), None);
    }

    #[tokio::test]
    async fn the_sqlite_store_files_lists_and_closes_with_the_replica_recorded() {
        let dir = claude_tools_testkit::TempDir::new("tickets-http-unit").unwrap();
        let store = SqliteStore::open(&dir.path().join("b.db")).unwrap();
        let server = SharedTickets::server().with_state(Replica::new("r1", store));
        let call = |tool: &'static str, args| server.call(tool, args, ToolContext::new());
        let created = call(
            "create_ticket",
            serde_json::json!({"title": "Dark mode", "kind": "feature", "assignee": "linus"}),
        )
        .await;
        assert_eq!(
            created.text_content(),
            "Created ticket #2 [feature] 'Dark mode', assigned to linus (filed by r1)."
        );
        let twin = call(
            "create_ticket",
            serde_json::json!({"title": "dark MODE", "kind": "bug"}),
        )
        .await;
        assert!(twin.is_error);
        assert_eq!(
            twin.text_content(),
            "Ticket #2 'dark MODE' is already open; not filing it twice."
        );
        let stranger = call(
            "create_ticket",
            serde_json::json!({"title": "x", "kind": "bug", "assignee": "bob"}),
        )
        .await;
        assert!(stranger.is_error);
        assert_eq!(
            stranger.text_content(),
            "Unknown assignee `bob`. The team is: ada, grace, linus."
        );
        let closed = call(
            "close_ticket",
            serde_json::json!({"id": 2, "reason": "done"}),
        )
        .await;
        assert_eq!(closed.text_content(), "Closed ticket #2 (done).");
        let again = call("close_ticket", serde_json::json!({"id": 2})).await;
        assert_eq!(again.text_content(), "Ticket #2 was already closed.");
        let missing = call("close_ticket", serde_json::json!({"id": 99})).await;
        assert!(missing.is_error);
        assert_eq!(
            missing.text_content(),
            "There is no ticket #99. List the tickets to find its id."
        );
        // A closed title may be filed again.
        let refiled = call(
            "create_ticket",
            serde_json::json!({"title": "Dark mode", "kind": "feature"}),
        )
        .await;
        assert_eq!(
            refiled.text_content(),
            "Created ticket #3 [feature] 'Dark mode', unassigned (filed by r1)."
        );
        let all = call("list_tickets", serde_json::json!({"status": "all"})).await;
        assert_eq!(
            all.text_content(),
            "3 tickets:\n\
             #1 [chore] Upgrade the CI runners (grace, open, filed by setup)\n\
             #2 [feature] Dark mode (linus, closed, filed by r1)\n\
             #3 [feature] Dark mode (unassigned, open, filed by r1)"
        );
    }
}
