use std::cell::Cell;

use claude_tools::prelude::*;

#[tool_server(name = "counter")]
pub struct Counter;

/// Count the calls.
#[tool(server = Counter)]
async fn count(calls: State<Cell<u32>>) -> u32 {
    calls.set(calls.get() + 1);
    calls.get()
}

fn main() {}
