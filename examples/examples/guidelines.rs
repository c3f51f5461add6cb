//! Guidelines search: a retrieval tool over a small bundled corpus, several calls in one
//! conversation.
//!
//! ```text
//! cargo run -p claude-tools-examples --example guidelines
//! ```
//!
//! Five short engineering guidelines (`examples/guidelines/*.md`) are compiled in with
//! `include_str!` and indexed in memory at start-up (BM25 over their words). The model gets
//! `search_guidelines(query, limit?)`, which returns the best documents with a score and their
//! best-matching sentence, and `get_guideline(id)`, which returns one in full.
//!
//! Without `ANTHROPIC_API_KEY` (or with `--scripted`) a scripted model on 127.0.0.1 searches
//! twice (a leaked token, a rollback), reads the release guideline and answers quoting both
//! searches; with a key the real model gets the same question (or yours:
//! `cargo run … --example guidelines -- "how big may a pull request be?"`). The tools and the
//! index are in `examples/src/guidelines.rs`.

use std::process::ExitCode;

#[tokio::main]
async fn main() -> ExitCode {
    claude_tools_examples::guidelines::example().main().await
}
