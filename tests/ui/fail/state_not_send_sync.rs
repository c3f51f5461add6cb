use std::cell::Cell;

use claude_tools::prelude::*;

#[tool_server(name = "counter")]
pub struct Counter;

/// Count the calls: one error, at the state's type (not a second at the fn's future).
#[tool(server = Counter)]
async fn count(calls: State<Cell<u32>>) -> u32 {
    calls.set(calls.get() + 1);
    calls.get()
}

/// The same in an async prompt.
#[prompt(server = Counter)]
async fn counted(calls: State<Cell<u32>>) -> String {
    calls.get().to_string()
}

/// And in an async resource.
#[resource(server = Counter, uri = "counter://calls")]
async fn calls(calls: State<Cell<u32>>) -> String {
    calls.get().to_string()
}

fn main() {}
