use claude_tools::prelude::*;

#[tool_server(name = "calc", instruction = "Use these to add.")]
pub struct Calc;

fn main() {}
