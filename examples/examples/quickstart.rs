//! Quickstart: a tool server whose tools live in two files, listed and called in-process.
//!
//! ```text
//! cargo run -p claude-tools-examples --example quickstart
//! ```
//!
//! It prints the `tools/list` JSON that Claude Code would see, then the result of calling each
//! tool through `ToolServer::call`, exactly as the CLI's `tools/call` would run it. To give the
//! tools to a real agent, pass `Tickets::server().with_state(board)` to the client options.

use std::sync::Mutex;

use claude_tools::prelude::*;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::json;

// The read-only tools live in a second file; they register with the same server.
#[path = "quickstart/tickets_tools.rs"]
mod tickets_tools;

/// The server: its name is the CLI's `mcp__tickets__` prefix.
#[tool_server(name = "tickets", version = "1.0.0")]
pub struct Tickets;

/// What kind of ticket.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum TicketKind {
    /// Something is broken
    Bug,
    /// Something is missing
    Feature,
}

/// One ticket on the board.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Ticket {
    /// The ticket's id
    pub id: u64,
    /// Its title
    pub title: String,
    /// What it is about
    pub description: String,
    /// Bug or feature
    pub kind: TicketKind,
    /// Whether it has been closed
    pub closed: bool,
}

/// The application state the tools share (in a real app: a database handle).
#[derive(Default)]
pub struct Board {
    tickets: Mutex<Vec<Ticket>>,
}

impl Board {
    fn with_tickets<R>(&self, f: impl FnOnce(&mut Vec<Ticket>) -> R) -> R {
        // A poisoned lock only means another tool panicked mid-update; the data is still usable.
        let mut tickets = self
            .tickets
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        f(&mut tickets)
    }
}

/// Create a ticket on the project board.
///
/// Returns the new ticket's id.
#[tool(server = Tickets)]
async fn create_ticket(
    board: State<Board>,
    /// Ticket title
    title: String,
    /// What went wrong, in a sentence or two
    description: String,
    kind: TicketKind,
) -> Result<String, ToolError> {
    if title.trim().is_empty() {
        return Err(ToolError::new("the title must not be empty"));
    }
    let id = board.with_tickets(|tickets| {
        let id = tickets.len() as u64 + 1;
        tickets.push(Ticket {
            id,
            title: title.clone(),
            description,
            kind,
            closed: false,
        });
        id
    });
    Ok(format!("Ticket '{title}' created (ID: {id})"))
}

/// Close a ticket.
#[tool(server = Tickets, destructive, idempotent)]
async fn close_ticket(
    board: State<Board>,
    /// The ticket to close
    id: u64,
    /// Why it is closed, for the log
    reason: Option<String>,
) -> Result<String, ToolError> {
    board.with_tickets(|tickets| {
        let ticket = tickets
            .iter_mut()
            .find(|ticket| ticket.id == id)
            .ok_or_else(|| ToolError::new(format!("no ticket with id {id}")))?;
        if ticket.closed {
            return Err(ToolError::new(format!("ticket {id} is already closed")));
        }
        ticket.closed = true;
        Ok(match reason {
            Some(reason) => format!("Ticket {id} closed: {reason}"),
            None => format!("Ticket {id} closed"),
        })
    })
}

#[tokio::main]
async fn main() {
    let server = Tickets::server().with_state(Board::default());
    if let Err(missing) = server.check_state() {
        eprintln!("{missing}");
        std::process::exit(1);
    }

    println!("== tools/list");
    let listing = serde_json::Value::Array(server.list_tools());
    println!(
        "{}",
        serde_json::to_string_pretty(&listing).unwrap_or_default()
    );

    let calls = [
        (
            "create_ticket",
            json!({"title": "Login fails on mobile", "description": "Users can't log in on iOS.", "kind": "bug"}),
        ),
        (
            "create_ticket",
            json!({"title": "Dark mode", "description": "Add a dark theme.", "kind": "feature"}),
        ),
        (
            "create_ticket",
            json!({"title": "Broken", "kind": "regression"}),
        ),
        ("get_ticket", json!({"id": 1})),
        ("get_ticket", json!({"id": 42})),
        ("list_tickets", json!({"kind": "feature"})),
        ("close_ticket", json!({"id": 1, "reason": "fixed in 1.0.1"})),
        ("close_ticket", json!({"id": 1})),
    ];
    for (tool, arguments) in calls {
        println!("\n== tools/call {tool} {arguments}");
        let context = ToolContext::new().with_tool_use_id("toolu_quickstart");
        let result = server.call(tool, arguments, context).await;
        println!("{}", result.to_json());
    }
}
