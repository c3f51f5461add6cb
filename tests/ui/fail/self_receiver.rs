use claude_tools::prelude::*;

#[tool_server(name = "calc")]
pub struct Calc;

pub struct Counter(u64);

impl Counter {
    /// Read the counter.
    #[tool(server = Calc)]
    async fn read(&self) -> u64 {
        self.0
    }
}

fn main() {}
