//! The read-only tools of the `tickets` server, in a file of their own: `#[tool]` registers
//! them with `Tickets` wherever they are.

use claude_tools::prelude::*;
use schemars::JsonSchema;
use serde::Serialize;

use super::{Board, Ticket, TicketKind, Tickets};

/// Show one ticket.
#[tool(server = Tickets, read_only)]
pub async fn get_ticket(
    board: State<Board>,
    /// The ticket's id
    id: u64,
) -> Result<Json<Ticket>, ToolError> {
    board
        .with_tickets(|tickets| tickets.iter().find(|ticket| ticket.id == id).cloned())
        .map(Json)
        .ok_or_else(|| ToolError::new(format!("no ticket with id {id}")))
}

/// The open tickets.
#[derive(Serialize, JsonSchema)]
pub struct TicketList {
    /// Matching open tickets
    pub tickets: Vec<Ticket>,
}

/// List the open tickets, optionally of one kind.
#[tool(server = Tickets, read_only, title = "List open tickets")]
pub async fn list_tickets(
    board: State<Board>,
    /// Only tickets of this kind
    kind: Option<TicketKind>,
) -> Json<TicketList> {
    let tickets = board.with_tickets(|tickets| {
        tickets
            .iter()
            .filter(|ticket| !ticket.closed && kind.is_none_or(|kind| ticket.kind == kind))
            .cloned()
            .collect()
    });
    Json(TicketList { tickets })
}
