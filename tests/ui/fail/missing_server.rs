use claude_tools::prelude::*;

/// Add two integers.
#[tool(read_only)]
async fn add(a: i64, b: i64) -> i64 {
    a + b
}

fn main() {}
