use claude_tools::prelude::*;

#[tool_server(name = "calc")]
pub struct Calc;

pub struct Sum(i64);

/// Add two integers.
#[tool(server = Calc)]
async fn add(a: i64, b: i64) -> Sum {
    Sum(a + b)
}

fn main() {}
