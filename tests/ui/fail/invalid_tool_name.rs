use claude_tools::prelude::*;

#[tool_server(name = "calc")]
pub struct Calc;

/// Add two integers.
#[tool(server = Calc, name = "add numbers")]
async fn add(a: i64, b: i64) -> i64 {
    a + b
}

/// A name longer than 64 characters.
#[tool(server = Calc)]
async fn a_tool_whose_name_is_far_too_long_to_be_accepted_by_the_anthropic_api() {}

fn main() {}
