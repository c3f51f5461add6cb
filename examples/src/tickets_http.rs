//! The tickets board served over MCP Streamable HTTP, with its state in the user's own database:
//! PostgreSQL when several replicas share it, SQLite for one machine.
//!
//! The tools are those of the [`tickets`](crate::tickets) example (`create_ticket`,
//! `list_tickets`, `close_ticket`, same arguments, same validation, same answers) with one
//! addition: every ticket records the replica that filed it (`created_by`), shown in each answer,
//! so a client (or a test) sees which replica served a write behind a load balancer. Two tools
//! are its own: [`delete_ticket`] asks the user to confirm (at MCP 2026-07-28 a question is an
//! `input_required` result whose retry may reach any replica) and [`which_replica`] names the
//! replica that answered.
//!
//! # Questions across replicas (MCP 2026-07-28)
//!
//! The `requestState` a question hands the client is sealed with a key and spent once. For a
//! retry to complete on another replica, every replica needs the same key ([`STATE_KEY_ENV`],
//! read by [`state_key`]) and the same record of spent states: on PostgreSQL the
//! [`PostgresReplayGuard`], a table beside the board ([`Board::replay_guard`]). [`request_state`]
//! builds the codec from both, and [`serve`] hands it to the server.
//!
//! The process holds no ticket state. Everything lives in the database behind a [`TicketStore`]:
//! ids come from the database (an identity column, an `AUTOINCREMENT` key), the "one open ticket
//! per title" rule is a unique index rather than a read-then-write check, and closing is one
//! conditional `UPDATE`. So any number of replicas may serve the same board, and a write is
//! committed before its tool answers: a client that got "Created ticket #7" has ticket #7 in the
//! database even if the replica dies the next instant.
//!
//! ```
//! use claude_tools::prelude::*;
//! use claude_tools_examples::tickets_http::{Replica, SharedTickets, SqliteStore};
//!
//! # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
//! let dir = claude_tools_testkit::TempDir::new("tickets-http-doc").unwrap();
//! let store = SqliteStore::open(&dir.path().join("board.sqlite3")).unwrap();
//! let server = SharedTickets::server().with_state(Replica::new("a", store));
//! let call = |args| server.call("create_ticket", args, ToolContext::new());
//! let created = call(serde_json::json!({"title": "Login fails", "kind": "bug"})).await;
//! assert_eq!(
//!     created.text_content(),
//!     "Created ticket #2 [bug] 'Login fails', unassigned (filed by a)."
//! );
//! # });
//! ```
//!
//! The binary (`examples/examples/tickets_http.rs`) adds the command line ([`Config`]) and the
//! HTTP serving ([`serve`]).

use std::future::Future;
use std::pin::Pin;

use claude_tools::mcp::Elicitation;
use claude_tools::prelude::*;

use crate::tickets::{MAX_TITLE_CHARS, StatusFilter, TicketKind};

mod postgres;
mod replay_guard;
mod serving;
mod sqlite;

pub use postgres::PostgresStore;
pub use replay_guard::{CLOCK_SKEW_MARGIN, PostgresReplayGuard, SWEEP_EVERY};
pub use serving::{
    Board, Config, DEFAULT_LISTEN, Database, MCP_PATH, STATE_KEY_ENV, TOKEN_ENV, USAGE,
    request_state, serve, shutdown_signal, state_key,
};
pub use sqlite::SqliteStore;

/// The server: the same tool names as the in-process [`Tickets`](crate::tickets::Tickets)
/// example (`mcp__tickets__<tool>` when added to Claude Code as `tickets`).
#[tool_server(
    name = "tickets",
    version = "1.0.0",
    instructions = "A shared project board: file, list and close tickets."
)]
pub struct SharedTickets;

/// The tools of [`SharedTickets`], sorted by name, as `tools/list` returns them.
pub const TOOLS: [&str; 5] = [
    "close_ticket",
    "create_ticket",
    "delete_ticket",
    "list_tickets",
    "which_replica",
];

/// The team a new board starts with.
pub const TEAM: [&str; 3] = ["ada", "grace", "linus"];

/// The `created_by` of the ticket a new board starts with (#1, an open chore for `grace`).
pub const SEED_CREATOR: &str = "setup";

/// One stored ticket.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SharedTicket {
    /// Its id, assigned by the database.
    pub id: i64,
    /// Its title.
    pub title: String,
    /// What it is about.
    pub kind: TicketKind,
    /// Who works on it.
    pub assignee: Option<String>,
    /// Whether it has been closed.
    pub closed: bool,
    /// The replica that filed it.
    pub created_by: String,
}

impl SharedTicket {
    /// `#2 [bug] Login fails (ada, open, filed by a)`: one line of [`list_tickets`].
    pub fn line(&self) -> String {
        let who = self.assignee.as_deref().unwrap_or("unassigned");
        let status = if self.closed { "closed" } else { "open" };
        format!(
            "#{} [{}] {} ({who}, {status}, filed by {})",
            self.id,
            self.kind.as_str(),
            self.title,
            self.created_by
        )
    }
}

/// A ticket to file, already validated.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewTicket {
    /// The trimmed title.
    pub title: String,
    /// What it is about.
    pub kind: TicketKind,
    /// Who works on it.
    pub assignee: Option<String>,
    /// The replica filing it.
    pub created_by: String,
}

/// What filing a ticket did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Filed {
    /// Filed and committed, with this id.
    Created(i64),
    /// Not filed: the assignee is not on the team (the team, sorted, for the message).
    UnknownAssignee(Vec<String>),
    /// Not filed: an open ticket has the same title (case-insensitively), this one.
    Duplicate(i64),
}

/// What closing a ticket did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Closed {
    /// It was open and is now closed (committed).
    Closed,
    /// It was closed already; nothing changed.
    AlreadyClosed,
    /// There is no such ticket.
    Missing,
}

/// What deleting a ticket did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Deleted {
    /// It existed and is now gone (committed).
    Deleted,
    /// There is no such ticket (never was, or deleted already).
    Missing,
}

/// Which tickets to list: `None` filters are off.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Filter {
    /// Open, closed or all.
    pub status: StatusFilter,
    /// Only this kind.
    pub kind: Option<TicketKind>,
    /// Only this assignee.
    pub assignee: Option<String>,
}

impl Filter {
    /// Every ticket.
    pub fn all() -> Filter {
        Filter {
            status: StatusFilter::All,
            kind: None,
            assignee: None,
        }
    }
}

/// Why the database could not do what a tool asked. The tool answers with an `isError` result
/// carrying this message: a failed write is never reported as done.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum StoreError {
    /// PostgreSQL reported an error, or the connection to it failed.
    #[error("database error: {}", with_causes(.0))]
    Postgres(#[from] tokio_postgres::Error),
    /// No PostgreSQL connection could be had from the pool.
    #[error("no database connection: {}", with_causes(.0))]
    Pool(#[from] deadpool_postgres::PoolError),
    /// The PostgreSQL pool could not be set up (a bad URL, for one).
    #[error("cannot set up the database pool: {0}")]
    PoolSetup(#[from] deadpool_postgres::CreatePoolError),
    /// SQLite reported an error.
    #[error(transparent)]
    Sqlite(#[from] crate::db::DbError),
    /// A row holds something the schema's checks should have refused.
    #[error("corrupt row: {0}")]
    Corrupt(String),
}

/// `error: its cause: its cause's cause`: tokio-postgres keeps the reason a connection failed
/// ("Connection refused") in the source chain, not in its message.
fn with_causes(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut cause = error.source();
    while let Some(next) = cause {
        let next_text = next.to_string();
        if !text.ends_with(&next_text) {
            text = format!("{text}: {next_text}");
        }
        cause = next.source();
    }
    text
}

/// What a [`TicketStore`] method returns: a boxed future, so the store can sit behind
/// `dyn TicketStore` (one binary, either database).
pub type StoreFuture<'a, T> = Pin<Box<dyn Future<Output = Result<T, StoreError>> + Send + 'a>>;

/// Where the board lives. Each method's write is committed before its future resolves.
pub trait TicketStore: Send + Sync + 'static {
    /// Files `ticket` unless its assignee is unknown or an open ticket has its title.
    fn create(&self, ticket: NewTicket) -> StoreFuture<'_, Filed>;
    /// The tickets matching `filter`, oldest first.
    fn list(&self, filter: Filter) -> StoreFuture<'_, Vec<SharedTicket>>;
    /// Closes ticket `id`, recording `reason`.
    fn close(&self, id: i64, reason: Option<String>) -> StoreFuture<'_, Closed>;
    /// Ticket `id`, if there is one.
    fn get(&self, id: i64) -> StoreFuture<'_, Option<SharedTicket>>;
    /// Deletes ticket `id`.
    fn delete(&self, id: i64) -> StoreFuture<'_, Deleted>;
}

/// One replica's view of the board: its name (recorded on each ticket it files) and the store
/// (registered with [`ToolServer::with_state`], read through `State<Replica>`).
pub struct Replica {
    name: String,
    store: Box<dyn TicketStore>,
}

impl std::fmt::Debug for Replica {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Replica")
            .field("name", &self.name)
            .finish_non_exhaustive()
    }
}

impl Replica {
    /// The replica `name` over `store`.
    pub fn new(name: impl Into<String>, store: impl TicketStore) -> Replica {
        Replica {
            name: name.into(),
            store: Box::new(store),
        }
    }

    /// The replica `name` over a store chosen at run time ([`Database::open`]).
    pub fn from_boxed(name: impl Into<String>, store: Box<dyn TicketStore>) -> Replica {
        Replica {
            name: name.into(),
            store,
        }
    }

    /// The replica's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The store.
    pub fn store(&self) -> &dyn TicketStore {
        self.store.as_ref()
    }
}

/// File a new ticket on the project board.
///
/// Returns the new ticket's id. Titles are a short summary (at most 80 characters); the
/// assignee, when given, must be a member of the team. A ticket whose title matches an open
/// ticket's is not filed twice.
#[tool(server = SharedTickets, destructive = false, idempotent = false)]
pub async fn create_ticket(
    replica: State<Replica>,
    /// A short summary of the problem or request
    title: String,
    /// What kind of work it is
    kind: TicketKind,
    /// Who should work on it (a team member's name); unassigned when omitted
    assignee: Option<String>,
) -> Result<String, ToolError> {
    let title = checked_title(&title)?;
    let ticket = NewTicket {
        title: title.clone(),
        kind,
        assignee: assignee.clone(),
        created_by: replica.name.clone(),
    };
    match replica.store.create(ticket).await? {
        Filed::Created(id) => {
            let who = assignee.map_or("unassigned".to_string(), |a| format!("assigned to {a}"));
            Ok(format!(
                "Created ticket #{id} [{}] '{title}', {who} (filed by {}).",
                kind.as_str(),
                replica.name
            ))
        }
        Filed::UnknownAssignee(team) => Err(ToolError::new(format!(
            "Unknown assignee `{}`. The team is: {}.",
            assignee.unwrap_or_default(),
            team.join(", ")
        ))),
        Filed::Duplicate(twin) => Err(ToolError::new(format!(
            "Ticket #{twin} '{title}' is already open; not filing it twice."
        ))),
    }
}

/// The trimmed title, or the error the model reads when it is empty or too long.
fn checked_title(title: &str) -> Result<String, ToolError> {
    let title = title.trim();
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
    Ok(title.to_string())
}

/// List tickets on the project board, oldest first.
#[tool(server = SharedTickets, read_only)]
pub async fn list_tickets(
    replica: State<Replica>,
    /// Which tickets: `open` (the default), `closed` or `all`
    status: Option<StatusFilter>,
    /// Only tickets of this kind
    kind: Option<TicketKind>,
    /// Only tickets assigned to this team member
    assignee: Option<String>,
) -> Result<String, ToolError> {
    let filter = Filter {
        status: status.unwrap_or(StatusFilter::Open),
        kind,
        assignee,
    };
    let tickets = replica.store.list(filter).await?;
    Ok(match tickets.len() {
        0 => "No tickets match.".to_string(),
        1 => format!("1 ticket:\n{}", tickets[0].line()),
        n => format!(
            "{n} tickets:\n{}",
            tickets
                .iter()
                .map(SharedTicket::line)
                .collect::<Vec<_>>()
                .join("\n")
        ),
    })
}

/// Close a ticket, with an optional reason.
///
/// Closing a ticket that is already closed changes nothing and says so.
//
// Annotations as in the in-process example: closing changes an existing ticket, and closing
// twice leaves the board as closing once does.
#[tool(server = SharedTickets, destructive, idempotent)]
pub async fn close_ticket(
    replica: State<Replica>,
    /// The ticket's id
    id: i64,
    /// Why it is closed
    reason: Option<String>,
) -> Result<String, ToolError> {
    match replica.store.close(id, reason.clone()).await? {
        Closed::Closed => Ok(match reason {
            Some(reason) => format!("Closed ticket #{id} ({reason})."),
            None => format!("Closed ticket #{id}."),
        }),
        Closed::AlreadyClosed => Ok(format!("Ticket #{id} was already closed.")),
        Closed::Missing => Err(no_such_ticket(id)),
    }
}

/// The user's answer to "delete this ticket?".
#[derive(Debug, Deserialize, JsonSchema)]
pub struct Confirm {
    /// Delete the ticket for good?
    pub confirm: bool,
}

/// Delete a ticket for good, once the user confirms.
///
/// Asks the user first. Prefer closing a ticket: a deleted one is gone from the board.
///
/// At MCP 2026-07-28 the question is an `input_required` result and the client sends the call
/// again with the answer, to any replica; this handler then runs again from its start. What it
/// does before the question is safe to repeat: it reads the ticket (a read), and what must be
/// the same in every round, the replica that asked, is [kept](ToolContext::remember) in the
/// sealed `requestState` (so the answer can say "asked on a, deleted on b"). The deletion comes
/// after the question, once: deleting twice would say "no ticket". On a 2025 connection
/// without sessions there is no way to ask, and nothing is deleted.
//
// Idempotent: deleting a deleted ticket leaves the board as deleting it once did.
#[tool(server = SharedTickets, destructive, idempotent)]
pub async fn delete_ticket(
    ctx: ToolContext,
    replica: State<Replica>,
    /// The ticket's id
    id: i64,
) -> Result<String, ToolError> {
    let asked_on: String = ctx
        .remember("asked_on", || async { replica.name.clone() })
        .await?;
    let Some(ticket) = replica.store.get(id).await? else {
        return Err(no_such_ticket(id));
    };
    let question = format!("Delete ticket #{id} '{}' for good?", ticket.title);
    let answer = match ctx.question("confirm").elicit::<Confirm>(question).await {
        Ok(answer) => answer,
        Err(error) => {
            return Err(ToolError::new(format!(
                "Could not ask the user to confirm deleting ticket #{id}, so it was kept: {error}"
            )));
        }
    };
    if !matches!(answer, Elicitation::Accepted(Confirm { confirm: true })) {
        return Ok(format!(
            "Kept ticket #{id} '{}': the user did not confirm.",
            ticket.title
        ));
    }
    match replica.store.delete(id).await? {
        Deleted::Deleted => Ok(format!(
            "Deleted ticket #{id} '{}' (asked on {asked_on}, deleted on {}).",
            ticket.title, replica.name
        )),
        Deleted::Missing => Err(no_such_ticket(id)),
    }
}

/// The error the model reads for a ticket id that is not on the board.
fn no_such_ticket(id: i64) -> ToolError {
    ToolError::new(format!(
        "There is no ticket #{id}. List the tickets to find its id."
    ))
}

/// Say which replica of the board answered this call.
///
/// Behind a load balancer, each call may reach another replica; this names the one that did.
#[tool(server = SharedTickets, read_only)]
pub async fn which_replica(replica: State<Replica>) -> String {
    format!("Answered by replica {}.", replica.name)
}

/// The kind stored in a row, or [`StoreError::Corrupt`].
fn parse_kind(text: &str) -> Result<TicketKind, StoreError> {
    [TicketKind::Bug, TicketKind::Feature, TicketKind::Chore]
        .into_iter()
        .find(|kind| kind.as_str() == text)
        .ok_or_else(|| StoreError::Corrupt(format!("unknown ticket kind `{text}`")))
}

/// The status column's value a filter selects, `None` for every status.
fn status_value(status: StatusFilter) -> Option<&'static str> {
    match status {
        StatusFilter::Open => Some("open"),
        StatusFilter::Closed => Some("closed"),
        StatusFilter::All => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn delete_ticket_keeps_the_ticket_when_it_cannot_ask() {
        let dir = claude_tools_testkit::TempDir::new("tickets-http-delete").unwrap();
        let store = SqliteStore::open(&dir.path().join("b.db")).unwrap();
        let server = SharedTickets::server().with_state(Replica::new("r1", store));
        // A direct call has no client to ask.
        let refused = server
            .call(
                "delete_ticket",
                serde_json::json!({"id": 1}),
                ToolContext::new(),
            )
            .await;
        assert!(refused.is_error);
        assert!(
            refused.text_content().starts_with(
                "Could not ask the user to confirm deleting ticket #1, so it was kept: "
            ),
            "{}",
            refused.text_content()
        );
        let missing = server
            .call(
                "delete_ticket",
                serde_json::json!({"id": 9}),
                ToolContext::new(),
            )
            .await;
        assert_eq!(
            missing.text_content(),
            "There is no ticket #9. List the tickets to find its id."
        );
        let which = server
            .call("which_replica", serde_json::json!({}), ToolContext::new())
            .await;
        assert_eq!(which.text_content(), "Answered by replica r1.");
    }
}
