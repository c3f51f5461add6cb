//! Tickets: a project board in a real SQLite database, shared with the tools through `State`.
//!
//! ```text
//! cargo run -p claude-tools-examples --example tickets
//! cargo run -p claude-tools-examples --example tickets -- --db /tmp/board.sqlite3
//! ```
//!
//! It shows tools over an embedded database (rusqlite, SQLite compiled in): `create_ticket` with
//! an enum `kind` and validation errors the model reads as `isError` results, `list_tickets`
//! with filters, and `close_ticket` (an unknown id is an error too), each annotated for what it
//! does. Database calls run on tokio's blocking pool so they never stall the runtime. The board
//! is a file (printed in the header; `--db PATH` or `TICKETS_DB=PATH` to choose it): run the
//! example twice and the second run sees the first one's tickets.
//!
//! Without `ANTHROPIC_API_KEY` a scripted model on 127.0.0.1 plays the conversation (one of its
//! calls names an assignee who is not on the team, another a ticket that does not exist);
//! with the key, the real model answers (words after `--` replace the prompt).
//! The logic lives in `examples/src/tickets.rs`; the e2e test `examples_tickets` runs it.

use std::process::ExitCode;

use claude_tools_examples::run::Args;
use claude_tools_examples::tickets;

#[tokio::main]
async fn main() -> ExitCode {
    let mut args = Args::from_env();
    let db = args.take_path("--db", tickets::DB_ENV, tickets::default_db_path);
    match tickets::example(&db) {
        Ok(example) => example.main_with(args).await,
        Err(error) => {
            eprintln!("cannot open the board at {}: {error}", db.display());
            ExitCode::FAILURE
        }
    }
}
