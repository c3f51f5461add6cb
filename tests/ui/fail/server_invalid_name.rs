use claude_tools::prelude::*;

#[tool_server(name = "my calc")]
pub struct Calc;

fn main() {}
