use claude_tools::prelude::*;

#[tool_server(name = "calc")]
pub enum Calc {
    Basic,
    Scientific,
}

fn main() {}
