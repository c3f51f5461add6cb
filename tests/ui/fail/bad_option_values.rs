use claude_tools::prelude::*;

#[tool_server(name = "calc", always_load = "yes")]
pub struct Calc;

/// Add two integers.
#[tool(server = "Calc", max_result_chars = "many", read_only = 1, title)]
async fn add(a: i64, b: i64) -> i64 {
    a + b
}

fn main() {}
