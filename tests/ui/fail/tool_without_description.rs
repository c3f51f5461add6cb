//! A tool with neither a doc comment nor `description = "..."` gets a warning saying how to add
//! one (denied here so that trybuild pins its text).
#![deny(deprecated, unfulfilled_lint_expectations)]

use claude_tools::prelude::*;

#[tool_server(name = "quiet")]
struct Quiet;

#[tool(server = Quiet)]
async fn undocumented(count: u32) -> u32 {
    count
}

/// # Examples
///
/// Only a section: the model would get no description either.
#[tool(server = Quiet)]
async fn only_a_section() {}

/// Documented: no warning.
#[tool(server = Quiet)]
async fn documented() {}

#[tool(server = Quiet, description = "Set in the attribute: no warning.")]
async fn described() {}

// Silenced on the fn itself, as any lint is: no warning.
#[allow(deprecated)]
#[tool(server = Quiet)]
async fn silenced_before(count: u32) -> u32 {
    count
}

#[tool(server = Quiet)]
#[allow(deprecated)]
async fn silenced_after(count: u32) -> u32 {
    count
}

// Expected on the fn: no warning, and the expectation is fulfilled.
#[expect(deprecated, reason = "described in the server's instructions")]
#[tool(server = Quiet)]
async fn expected(count: u32) -> u32 {
    count
}

fn main() {}
