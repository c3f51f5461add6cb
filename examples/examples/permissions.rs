//! Permissions and hooks: the host decides, call by call, what the agent may do.
//!
//! ```text
//! cargo run -p claude-tools-examples --example permissions
//! ```
//!
//! A customer database (`crm`) offers `find_customers`, `delete_customer` and
//! `export_customers`. A `can_use_tool` permission callback rewrites `find_customers`' input
//! (a `limit` above 3 is clamped to 3, and the tool runs with that) and denies
//! `delete_customer` with a message the model reads; a `PreToolUse` hook logs every call and
//! blocks `export_customers`, and the model reads the block reason. Each guard's decision is
//! printed as `[hook: …]` / `[permission: …]` among the transcript's lines.
//!
//! Without `ANTHROPIC_API_KEY` (or with `--scripted`) a scripted model on 127.0.0.1 asks for
//! 50 Acme customers, then deletes one and exports the list; with a key the real model gets the
//! same prompt (or yours: `cargo run … --example permissions -- "your prompt"`). The tools and
//! the policy are in `examples/src/permissions.rs`.

use std::process::ExitCode;

use claude_tools_examples::permissions::{Policy, example};

#[tokio::main]
async fn main() -> ExitCode {
    example(&Policy::printing()).main().await
}
