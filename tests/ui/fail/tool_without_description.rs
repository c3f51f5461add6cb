//! A tool with neither a doc comment nor `description = "..."` gets a warning saying how to add
//! one (denied here so that trybuild pins its text).
#![deny(deprecated)]

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

fn main() {}
