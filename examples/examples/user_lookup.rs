//! User lookup: a `query_user` tool over a SQLite user directory, and `get_time`.
//!
//! ```text
//! cargo run -p claude-tools-examples --example user_lookup
//! ```
//!
//! It shows tool parameters the host fills in (extractors: `State<Directory>`, `State<Clock>`,
//! `ToolContext`) beside the ones the model fills in, and tools returning `Result` with an
//! error type of their own (`thiserror`): a name that matches nobody, or several people, comes
//! back to the model as an `isError` result it can act on. The directory is a SQLite file seeded
//! with four people (printed in the header; `--db PATH` or `USERS_DB=PATH` to choose it); each
//! lookup is logged there with the id of the tool call that made it.
//!
//! Without `ANTHROPIC_API_KEY` a scripted model on 127.0.0.1 plays the conversation; with the
//! key, the real model answers (words after `--` replace the prompt). The logic lives in
//! `examples/src/user_lookup.rs`; the e2e test `examples_user_lookup` runs it.

use std::process::ExitCode;

use claude_tools_examples::run::Args;
use claude_tools_examples::user_lookup::{self, Clock};

#[tokio::main]
async fn main() -> ExitCode {
    let mut args = Args::from_env();
    let db = args.take_path("--db", user_lookup::DB_ENV, user_lookup::default_db_path);
    match user_lookup::example(&db, Clock::System) {
        Ok(example) => example.main_with(args).await,
        Err(error) => {
            eprintln!(
                "cannot open the user directory at {}: {error}",
                db.display()
            );
            ExitCode::FAILURE
        }
    }
}
