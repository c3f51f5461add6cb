use claude_tools::prelude::*;

#[tool_server(name = "calc")]
pub struct Calc;

#[tool(server = Calc)]
pub struct Add {
    pub a: i64,
}

#[tool(server = Calc)]
unsafe fn dangerous() {}

fn main() {}
