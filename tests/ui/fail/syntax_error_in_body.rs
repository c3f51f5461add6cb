use claude_tools::prelude::*;

#[tool_server(name = "calc")]
pub struct Calc;

/// Add two integers.
#[tool(server = Calc)]
async fn add(a: i64, b: i64) -> i64 {
    a + b +
}

fn main() {}
