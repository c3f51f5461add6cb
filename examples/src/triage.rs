//! The demo's tools: a small bug-triage board with shared state.
//!
//! | tool (as the model sees it) | kind | returns |
//! |---|---|---|
//! | `mcp__triage__find_owner` | read-only lookup | the team that owns an area, as text |
//! | `mcp__triage__create_ticket` | writes the board | a sentence with the new ticket's id |
//! | `mcp__triage__list_tickets` | read-only | [`Json`] of the open tickets (structured result) |
//! | `mcp__triage__close_ticket` | destructive, idempotent | a sentence, or an error |
//!
//! ```
//! use claude_tools::prelude::*;
//! use claude_tools_examples::triage::{Board, Triage};
//!
//! # tokio_test_block_on(async {
//! let server = Triage::server().with_state(Board::with_default_owners());
//! let created = server
//!     .call(
//!         "create_ticket",
//!         serde_json::json!({"title": "Login fails", "area": "auth", "priority": "high"}),
//!         ToolContext::new(),
//!     )
//!     .await;
//! assert_eq!(created.text_content(), "Created ticket #1 'Login fails' (high) for the identity team");
//! # });
//! # fn tokio_test_block_on(f: impl std::future::Future<Output = ()>) {
//! #     tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(f)
//! # }
//! ```

use std::collections::BTreeMap;
use std::sync::Mutex;

use claude_tools::prelude::*;

/// The server: the model sees its tools as `mcp__triage__<tool>`.
#[tool_server(
    name = "triage",
    version = "1.0.0",
    instructions = "A bug-triage board: find who owns an area, file and close tickets."
)]
pub struct Triage;

/// How urgent a ticket is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Priority {
    /// Fix when convenient
    Low,
    /// Fix this sprint
    Normal,
    /// Fix now
    High,
}

impl Priority {
    fn as_str(self) -> &'static str {
        match self {
            Priority::Low => "low",
            Priority::Normal => "normal",
            Priority::High => "high",
        }
    }
}

/// One ticket on the board.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct Ticket {
    /// The ticket's id
    pub id: u64,
    /// Its title
    pub title: String,
    /// The product area
    pub area: String,
    /// How urgent it is
    pub priority: Priority,
    /// The owning team
    pub team: String,
}

/// The open tickets.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct OpenTickets {
    /// How many tickets are open
    pub count: usize,
    /// The open tickets, oldest first
    pub tickets: Vec<Ticket>,
}

/// The application state the tools share (in a real application: a database handle).
#[derive(Debug, Default)]
pub struct Board {
    owners: BTreeMap<String, String>,
    inner: Mutex<Inner>,
}

#[derive(Debug, Default)]
struct Inner {
    next_id: u64,
    open: Vec<Ticket>,
}

impl Board {
    /// An empty board whose areas are owned as given (`(area, team)` pairs).
    pub fn new<I, A, T>(owners: I) -> Board
    where
        I: IntoIterator<Item = (A, T)>,
        A: Into<String>,
        T: Into<String>,
    {
        Board {
            owners: owners
                .into_iter()
                .map(|(area, team)| (area.into(), team.into()))
                .collect(),
            inner: Mutex::new(Inner::default()),
        }
    }

    /// The demo's board: `auth` → identity, `billing` → payments, `search` → discovery.
    pub fn with_default_owners() -> Board {
        Board::new([
            ("auth", "identity"),
            ("billing", "payments"),
            ("search", "discovery"),
        ])
    }

    /// The team owning `area`, if any.
    pub fn owner(&self, area: &str) -> Option<&str> {
        self.owners.get(area).map(String::as_str)
    }

    /// The open tickets, oldest first.
    pub fn open_tickets(&self) -> Vec<Ticket> {
        self.with_inner(|inner| inner.open.clone())
    }

    fn with_inner<R>(&self, f: impl FnOnce(&mut Inner) -> R) -> R {
        // A poisoned lock only means another tool panicked mid-update; the data is still usable.
        let mut inner = self.inner.lock().unwrap_or_else(|p| p.into_inner());
        f(&mut inner)
    }

    fn areas(&self) -> String {
        self.owners.keys().cloned().collect::<Vec<_>>().join(", ")
    }
}

/// Find the team that owns a product area.
#[tool(server = Triage, read_only)]
async fn find_owner(
    board: State<Board>,
    /// The product area, e.g. `auth`
    area: String,
) -> Result<String, ToolError> {
    match board.owner(&area) {
        Some(team) => Ok(format!("The {area} area is owned by the {team} team")),
        None => Err(ToolError::new(format!(
            "unknown area `{area}`; known areas: {}",
            board.areas()
        ))),
    }
}

/// File a ticket; it is assigned to the team that owns its area.
#[tool(server = Triage)]
async fn create_ticket(
    board: State<Board>,
    /// A short title
    title: String,
    /// The product area, e.g. `auth`
    area: String,
    /// How urgent it is
    priority: Priority,
) -> Result<String, ToolError> {
    if title.trim().is_empty() {
        return Err(ToolError::new("the title must not be empty"));
    }
    let Some(team) = board.owner(&area).map(str::to_string) else {
        return Err(ToolError::new(format!(
            "unknown area `{area}`; known areas: {}",
            board.areas()
        )));
    };
    let id = board.with_inner(|inner| {
        inner.next_id += 1;
        let id = inner.next_id;
        inner.open.push(Ticket {
            id,
            title: title.clone(),
            area,
            priority,
            team: team.clone(),
        });
        id
    });
    Ok(format!(
        "Created ticket #{id} '{title}' ({}) for the {team} team",
        priority.as_str()
    ))
}

/// List the open tickets.
#[tool(server = Triage, read_only, title = "Open tickets")]
async fn list_tickets(board: State<Board>) -> Json<OpenTickets> {
    let tickets = board.open_tickets();
    Json(OpenTickets {
        count: tickets.len(),
        tickets,
    })
}

/// Close a ticket.
#[tool(server = Triage, destructive, idempotent)]
async fn close_ticket(
    board: State<Board>,
    /// The ticket's id
    id: u64,
) -> Result<String, ToolError> {
    board.with_inner(|inner| {
        let before = inner.open.len();
        inner.open.retain(|ticket| ticket.id != id);
        if inner.open.len() == before {
            Err(ToolError::new(format!("no open ticket #{id}")))
        } else {
            Ok(format!("Closed ticket #{id}"))
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{Value, json};

    async fn call(server: &ToolServer, tool: &str, arguments: Value) -> Value {
        server
            .call(tool, arguments, ToolContext::new())
            .await
            .to_json()
    }

    #[tokio::test]
    async fn the_board_end_to_end_in_process() {
        let server = Triage::server().with_state(Board::with_default_owners());
        assert_eq!(
            call(&server, "find_owner", json!({"area": "billing"})).await,
            json!({"content": [{"type": "text", "text": "The billing area is owned by the payments team"}], "isError": false})
        );
        assert_eq!(
            call(&server, "find_owner", json!({"area": "ui"})).await,
            json!({"content": [{"type": "text", "text": "unknown area `ui`; known areas: auth, billing, search"}], "isError": true})
        );
        assert_eq!(
            call(
                &server,
                "create_ticket",
                json!({"title": "Refund twice", "area": "billing", "priority": "normal"})
            )
            .await,
            json!({"content": [{"type": "text", "text": "Created ticket #1 'Refund twice' (normal) for the payments team"}], "isError": false})
        );
        let listed = call(&server, "list_tickets", json!({})).await;
        let structured = json!({"count": 1, "tickets": [{"id": 1, "title": "Refund twice", "area": "billing", "priority": "normal", "team": "payments"}]});
        assert_eq!(listed["structuredContent"], structured);
        assert_eq!(listed["content"][0]["text"], structured.to_string());
        assert_eq!(
            call(&server, "close_ticket", json!({"id": 1})).await["content"][0]["text"],
            "Closed ticket #1"
        );
        assert_eq!(
            call(&server, "close_ticket", json!({"id": 1})).await,
            json!({"content": [{"type": "text", "text": "no open ticket #1"}], "isError": true})
        );
    }
}
