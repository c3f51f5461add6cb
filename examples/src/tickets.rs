//! The tickets example: a project board kept in an embedded SQLite database, shared with the
//! tools through [`State`].
//!
//! | tool (as the model sees it) | annotations | does |
//! |---|---|---|
//! | `mcp__tickets__create_ticket` | not read-only, **not destructive** (it only adds), not idempotent | files a ticket; bad input comes back as `isError` |
//! | `mcp__tickets__list_tickets` | read-only | the tickets matching optional filters |
//! | `mcp__tickets__close_ticket` | destructive (it changes an existing ticket), idempotent | closes a ticket; an unknown id is `isError` |
//!
//! The board lives in a file ([`default_db_path`], or `--db PATH` / `TICKETS_DB`), so what one
//! run files, the next one sees. A new board starts with a team of three (`ada`, `grace`,
//! `linus`) and one open chore, ticket #1. Database work runs off the async runtime's threads
//! (see [`crate::db`]).
//!
//! ```
//! use claude_tools::prelude::*;
//! use claude_tools_examples::tickets::{Board, Tickets};
//!
//! # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
//! let dir = claude_tools_testkit::TempDir::new("tickets-doc").unwrap();
//! let board = Board::open(&dir.path().join("board.sqlite3")).unwrap();
//! let server = Tickets::server().with_state(board);
//! let call = |args| server.call("create_ticket", args, ToolContext::new());
//! let created = call(serde_json::json!({"title": "Login fails", "kind": "bug"})).await;
//! assert_eq!(created.text_content(), "Created ticket #2 [bug] 'Login fails', unassigned.");
//! let refused = call(serde_json::json!({"title": " ", "kind": "bug"})).await;
//! assert!(refused.is_error);
//! assert_eq!(refused.text_content(), "The title is empty: give the ticket a short summary.");
//! # });
//! ```

use std::path::{Path, PathBuf};

use claude_tools::prelude::*;
use claude_tools_testkit::model_server::{Script, Turn};
use rusqlite::{Connection, OptionalExtension, Row, params};
use serde_json::json;

use crate::db::{Db, DbError};
use crate::run::Example;

/// The server: the model sees its tools as `mcp__tickets__<tool>`.
#[tool_server(
    name = "tickets",
    version = "1.0.0",
    instructions = "A project board: file, list and close tickets."
)]
pub struct Tickets;

/// The longest title a ticket may have, in characters.
pub const MAX_TITLE_CHARS: usize = 80;

/// The environment variable naming the database file (`--db PATH` wins over it).
pub const DB_ENV: &str = "TICKETS_DB";

/// The tables; the first open of a new file also seeds it ([`Board::open`]).
const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS members (name TEXT PRIMARY KEY);
CREATE TABLE IF NOT EXISTS tickets (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    title TEXT NOT NULL,
    kind TEXT NOT NULL CHECK (kind IN ('bug', 'feature', 'chore')),
    assignee TEXT REFERENCES members(name),
    status TEXT NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'closed')),
    close_reason TEXT
);
";

/// What a ticket is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum TicketKind {
    /// Something is broken
    Bug,
    /// Something new is wanted
    Feature,
    /// Maintenance work
    Chore,
}

impl TicketKind {
    /// The name stored in the database and shown to the model.
    pub fn as_str(self) -> &'static str {
        match self {
            TicketKind::Bug => "bug",
            TicketKind::Feature => "feature",
            TicketKind::Chore => "chore",
        }
    }

    fn parse(text: &str) -> Option<TicketKind> {
        [TicketKind::Bug, TicketKind::Feature, TicketKind::Chore]
            .into_iter()
            .find(|kind| kind.as_str() == text)
    }
}

/// Which tickets [`list_tickets`] shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum StatusFilter {
    /// Open tickets only (the default)
    Open,
    /// Closed tickets only
    Closed,
    /// Every ticket
    All,
}

/// One ticket, as stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ticket {
    /// Its id (assigned by SQLite, never reused).
    pub id: i64,
    /// Its title.
    pub title: String,
    /// What it is about.
    pub kind: TicketKind,
    /// Who works on it.
    pub assignee: Option<String>,
    /// Whether it has been closed.
    pub closed: bool,
    /// Why it was closed, when given.
    pub close_reason: Option<String>,
}

impl Ticket {
    /// `#2 [bug] Login fails (ada, open)`: one line of [`list_tickets`].
    pub fn line(&self) -> String {
        let who = self.assignee.as_deref().unwrap_or("unassigned");
        let status = if self.closed { "closed" } else { "open" };
        format!(
            "#{} [{}] {} ({who}, {status})",
            self.id,
            self.kind.as_str(),
            self.title
        )
    }

    fn from_row(row: &Row<'_>) -> rusqlite::Result<Ticket> {
        let kind: String = row.get("kind")?;
        let kind = TicketKind::parse(&kind).ok_or_else(|| {
            rusqlite::Error::FromSqlConversionFailure(
                2,
                rusqlite::types::Type::Text,
                format!("unknown ticket kind `{kind}`").into(),
            )
        })?;
        Ok(Ticket {
            id: row.get("id")?,
            title: row.get("title")?,
            kind,
            assignee: row.get("assignee")?,
            closed: row.get::<_, String>("status")? == "closed",
            close_reason: row.get("close_reason")?,
        })
    }
}

/// The board: the database the tools share (registered with
/// [`ToolServer::with_state`](claude_tools::ToolServer::with_state), read through
/// `State<Board>`).
#[derive(Debug, Clone)]
pub struct Board {
    db: Db,
}

impl Board {
    /// Opens the board in the SQLite file at `path`, creating and seeding it when new (a team of
    /// three and ticket #1, an open chore). Blocking.
    pub fn open(path: &Path) -> Result<Board, DbError> {
        let db = Db::open(path, SCHEMA)?;
        db.blocking(seed_if_new)?;
        Ok(Board { db })
    }

    /// The database file.
    pub fn path(&self) -> &Path {
        self.db.path()
    }

    /// Every ticket, oldest first. Blocking (for `main` and tests).
    pub fn all_tickets(&self) -> Result<Vec<Ticket>, DbError> {
        self.db
            .blocking(|conn| select(conn, StatusFilter::All, None, None))
    }
}

/// A new board gets a team and one ticket, in one transaction.
fn seed_if_new(conn: &mut Connection) -> rusqlite::Result<()> {
    let tx = conn.transaction()?;
    let members: i64 = tx.query_row("SELECT count(*) FROM members", [], |r| r.get(0))?;
    if members == 0 {
        for name in ["ada", "grace", "linus"] {
            tx.execute("INSERT INTO members (name) VALUES (?1)", [name])?;
        }
        tx.execute(
            "INSERT INTO tickets (title, kind, assignee) VALUES (?1, ?2, ?3)",
            params!["Upgrade the CI runners", "chore", "grace"],
        )?;
    }
    tx.commit()
}

fn select(
    conn: &Connection,
    status: StatusFilter,
    kind: Option<TicketKind>,
    assignee: Option<&str>,
) -> rusqlite::Result<Vec<Ticket>> {
    let status = match status {
        StatusFilter::Open => Some("open"),
        StatusFilter::Closed => Some("closed"),
        StatusFilter::All => None,
    };
    // NULL parameters switch their filter off: one statement for every combination.
    let mut statement = conn.prepare_cached(
        "SELECT id, title, kind, assignee, status, close_reason FROM tickets
         WHERE (?1 IS NULL OR status = ?1) AND (?2 IS NULL OR kind = ?2)
           AND (?3 IS NULL OR assignee = ?3)
         ORDER BY id",
    )?;
    let rows = statement.query_map(
        params![status, kind.map(TicketKind::as_str), assignee],
        Ticket::from_row,
    )?;
    rows.collect()
}

/// File a new ticket on the project board.
///
/// Returns the new ticket's id. Titles are a short summary (at most 80 characters); the
/// assignee, when given, must be a member of the team. A ticket whose title matches an open
/// ticket's is not filed twice.
#[tool(server = Tickets, destructive = false, idempotent = false)]
pub async fn create_ticket(
    board: State<Board>,
    /// A short summary of the problem or request
    title: String,
    /// What kind of work it is
    kind: TicketKind,
    /// Who should work on it (a team member's name); unassigned when omitted
    assignee: Option<String>,
) -> Result<String, ToolError> {
    let title = title.trim().to_string();
    if title.is_empty() {
        return Err(ToolError::new(
            "The title is empty: give the ticket a short summary.",
        ));
    }
    let length = title.chars().count();
    if length > MAX_TITLE_CHARS {
        return Err(ToolError::new(format!(
            "The title is {length} characters long; keep it to {MAX_TITLE_CHARS} or fewer."
        )));
    }
    let created = board
        .db
        .run(move |conn| {
            let tx = conn.transaction()?;
            if let Some(name) = &assignee {
                let known = tx
                    .query_row("SELECT 1 FROM members WHERE name = ?1", [name], |_| Ok(()))
                    .optional()?
                    .is_some();
                if !known {
                    let team = team(&tx)?.join(", ");
                    return Ok(Err(format!(
                        "Unknown assignee `{name}`. The team is: {team}."
                    )));
                }
            }
            let open_twin: Option<i64> = tx
                .query_row(
                    "SELECT id FROM tickets WHERE status = 'open' AND lower(title) = lower(?1)",
                    [&title],
                    |row| row.get(0),
                )
                .optional()?;
            if let Some(twin) = open_twin {
                return Ok(Err(format!(
                    "Ticket #{twin} '{title}' is already open; not filing it twice."
                )));
            }
            tx.execute(
                "INSERT INTO tickets (title, kind, assignee) VALUES (?1, ?2, ?3)",
                params![title, kind.as_str(), assignee],
            )?;
            let id = tx.last_insert_rowid();
            tx.commit()?;
            let who = assignee.map_or("unassigned".to_string(), |a| format!("assigned to {a}"));
            Ok(Ok(format!(
                "Created ticket #{id} [{}] '{title}', {who}.",
                kind.as_str()
            )))
        })
        .await?;
    created.map_err(ToolError::new)
}

fn team(conn: &Connection) -> rusqlite::Result<Vec<String>> {
    let mut statement = conn.prepare_cached("SELECT name FROM members ORDER BY name")?;
    let names = statement.query_map([], |row| row.get(0))?;
    names.collect()
}

/// List tickets on the project board, oldest first.
#[tool(server = Tickets, read_only)]
pub async fn list_tickets(
    board: State<Board>,
    /// Which tickets: `open` (the default), `closed` or `all`
    status: Option<StatusFilter>,
    /// Only tickets of this kind
    kind: Option<TicketKind>,
    /// Only tickets assigned to this team member
    assignee: Option<String>,
) -> Result<String, ToolError> {
    let status = status.unwrap_or(StatusFilter::Open);
    let tickets = board
        .db
        .run(move |conn| select(conn, status, kind, assignee.as_deref()))
        .await?;
    Ok(match tickets.len() {
        0 => "No tickets match.".to_string(),
        1 => format!("1 ticket:\n{}", tickets[0].line()),
        n => format!(
            "{n} tickets:\n{}",
            tickets
                .iter()
                .map(Ticket::line)
                .collect::<Vec<_>>()
                .join("\n")
        ),
    })
}

/// Close a ticket, with an optional reason.
///
/// Closing a ticket that is already closed changes nothing and says so.
//
// Annotations: `destructive` because MCP reserves `destructiveHint: false` for tools that only
// add (closing changes an existing ticket); `idempotent` because closing twice leaves the board
// as closing once does.
#[tool(server = Tickets, destructive, idempotent)]
pub async fn close_ticket(
    board: State<Board>,
    /// The ticket's id
    id: i64,
    /// Why it is closed
    reason: Option<String>,
) -> Result<String, ToolError> {
    let outcome = board
        .db
        .run(move |conn| {
            let status: Option<String> = conn
                .query_row("SELECT status FROM tickets WHERE id = ?1", [id], |r| {
                    r.get(0)
                })
                .optional()?;
            Ok(match status.as_deref() {
                None => Err(format!(
                    "There is no ticket #{id}. List the tickets to find its id."
                )),
                Some("closed") => Ok(format!("Ticket #{id} was already closed.")),
                Some(_) => {
                    conn.execute(
                        "UPDATE tickets SET status = 'closed', close_reason = ?2 WHERE id = ?1",
                        params![id, reason],
                    )?;
                    Ok(match reason {
                        Some(reason) => format!("Closed ticket #{id} ({reason})."),
                        None => format!("Closed ticket #{id}."),
                    })
                }
            })
        })
        .await?;
    outcome.map_err(ToolError::new)
}

/// The prompt the example sends.
pub const PROMPT: &str = "Bob reports that logging in fails on Safari: file a bug for him. \
The CI runners were upgraded yesterday, so close that chore. Then show me what is open.";

/// The system prompt.
pub const SYSTEM_PROMPT: &str = "You manage a project board with the tickets tools. Check the \
board before filing, assign tickets to team members only, and answer briefly.";

/// The tools the model may call.
pub const TOOLS: [&str; 3] = [
    "mcp__tickets__create_ticket",
    "mcp__tickets__list_tickets",
    "mcp__tickets__close_ticket",
];

/// The `tool_use` ids of the scripted calls, in order: the first listing, the refused create
/// (Bob is not on the team), the create that works, the close of #1, the bad close (#999), the
/// last listing.
pub const TOOL_USE_IDS: [&str; 6] = [
    "toolu_tickets_list_before",
    "toolu_tickets_create_bob",
    "toolu_tickets_create_ada",
    "toolu_tickets_close_ci",
    "toolu_tickets_close_missing",
    "toolu_tickets_list_after",
];

/// What the offline model does: looks at the board, files the bug for `bob` (refused: not on
/// the team, an `isError` result), files it for `ada` instead while closing ticket #1 and a
/// ticket that does not exist (`isError` again), lists the open tickets, and answers quoting
/// the tools. On a second run over the same file the board remembers: the bug is already open
/// (an `isError` result) and #1 already closed.
pub fn script() -> Script {
    let [
        list_before,
        create_bob,
        create_ada,
        close_ci,
        close_missing,
        list_after,
    ] = TOOL_USE_IDS;
    Script::new()
        .turn(Turn::text("Let me look at the board first.").and_tool_use(
            list_before,
            "mcp__tickets__list_tickets",
            json!({}),
        ))
        .turn(Turn::text("Filing the Safari bug for Bob.").and_tool_use(
            create_bob,
            "mcp__tickets__create_ticket",
            json!({"title": "Login fails on Safari", "kind": "bug", "assignee": "bob"}),
        ))
        .turn(
            Turn::text("Bob is not on the team, so I'll assign it to Ada, and close the chores.")
                .and_tool_use(
                    create_ada,
                    "mcp__tickets__create_ticket",
                    json!({"title": "Login fails on Safari", "kind": "bug", "assignee": "ada"}),
                )
                .and_tool_use(
                    close_ci,
                    "mcp__tickets__close_ticket",
                    json!({"id": 1, "reason": "runners upgraded"}),
                )
                .and_tool_use(
                    close_missing,
                    "mcp__tickets__close_ticket",
                    json!({"id": 999}),
                ),
        )
        .turn(Turn::tool_use(
            list_after,
            "mcp__tickets__list_tickets",
            json!({"status": "open"}),
        ))
        .turn(Turn::text(format!(
            "Bob is not on the team. {{{{tool_result:{create_ada}}}}} \
             {{{{tool_result:{close_ci}}}}} Ticket #999 does not exist.\n\
             Open now: {{{{tool_result:{list_after}}}}}"
        )))
}

/// The database file when neither `--db` nor [`DB_ENV`] names one: `claude-tools-tickets.sqlite3`
/// in the system's temp directory.
pub fn default_db_path() -> PathBuf {
    std::env::temp_dir().join("claude-tools-tickets.sqlite3")
}

/// The example over the board in `db` (opened, and created when new): its server, tools,
/// prompt and script, with the database's path and ticket count in the header.
pub fn example(db: &Path) -> Result<Example, DbError> {
    let board = Board::open(db)?;
    let count = match board.all_tickets()?.len() {
        1 => "1 ticket".to_string(),
        n => format!("{n} tickets"),
    };
    Ok(Example::new("tickets", PROMPT, script())
        .system_prompt(SYSTEM_PROMPT)
        .note(format!(
            "board:  {} ({count}; --db PATH or {DB_ENV}=PATH for another)",
            board.path().display()
        ))
        .server(Tickets::server().with_state(board))
        .allowed_tools(TOOLS))
}

#[cfg(test)]
mod tests {
    use super::*;
    use claude_tools_testkit::TempDir;

    fn annotations(server: &ToolServer, tool: &str) -> serde_json::Value {
        server
            .list_tools()
            .into_iter()
            .find(|t| t["name"] == tool)
            .map(|t| t["annotations"].clone())
            .unwrap_or_default()
    }

    #[test]
    fn the_annotations_say_what_each_tool_does() {
        let server = Tickets::server();
        assert_eq!(
            annotations(&server, "create_ticket"),
            json!({"destructiveHint": false, "idempotentHint": false})
        );
        assert_eq!(
            annotations(&server, "list_tickets"),
            json!({"readOnlyHint": true})
        );
        assert_eq!(
            annotations(&server, "close_ticket"),
            json!({"destructiveHint": true, "idempotentHint": true})
        );
    }

    #[tokio::test]
    async fn bad_input_is_an_error_result_and_filters_narrow_the_list() {
        let dir = TempDir::new("tickets-unit").unwrap();
        let server = Tickets::server().with_state(Board::open(&dir.path().join("b.db")).unwrap());
        let call = |tool: &'static str, args| server.call(tool, args, ToolContext::new());
        let long = "x".repeat(81);
        let refused = call("create_ticket", json!({"title": long, "kind": "bug"})).await;
        assert!(refused.is_error);
        assert_eq!(
            refused.text_content(),
            "The title is 81 characters long; keep it to 80 or fewer."
        );
        let bad_kind = call("create_ticket", json!({"title": "x", "kind": "regression"})).await;
        assert!(bad_kind.is_error, "{}", bad_kind.text_content());
        let feature = json!({"title": "Dark mode", "kind": "feature", "assignee": "linus"});
        assert!(!call("create_ticket", feature).await.is_error);
        let features = call("list_tickets", json!({"kind": "feature"})).await;
        assert_eq!(
            features.text_content(),
            "1 ticket:\n#2 [feature] Dark mode (linus, open)"
        );
        let grace = call(
            "list_tickets",
            json!({"assignee": "grace", "status": "all"}),
        )
        .await;
        assert_eq!(
            grace.text_content(),
            "1 ticket:\n#1 [chore] Upgrade the CI runners (grace, open)"
        );
        let closed = call("list_tickets", json!({"status": "closed"})).await;
        assert_eq!(closed.text_content(), "No tickets match.");
    }
}
