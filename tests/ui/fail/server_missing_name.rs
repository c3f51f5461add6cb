use claude_tools::prelude::*;

#[tool_server(version = "1.0.0")]
pub struct Calc;

/// Add two integers: no second error here, although the server has no name.
#[tool(server = Calc)]
async fn add(a: i64, b: i64) -> i64 {
    a + b
}

fn main() {}
