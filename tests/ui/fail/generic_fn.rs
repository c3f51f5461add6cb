use claude_tools::prelude::*;

#[tool_server(name = "calc")]
pub struct Calc;

/// Echo a value.
#[tool(server = Calc)]
async fn echo<T: ToString>(value: T) -> String {
    value.to_string()
}

fn main() {}
