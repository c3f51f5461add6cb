use claude_tools::prelude::*;

#[tool_server(name = "jobs")]
pub struct Jobs;

/// Runs sometimes as a task.
#[tool(server = Jobs, task = "sometimes")]
async fn build() -> String {
    String::new()
}

/// Starts its task later.
#[tool(server = Jobs, task, task_start = "later")]
async fn deploy() -> String {
    String::new()
}

/// A task mode that is not a string.
#[tool(server = Jobs, task = 3)]
async fn test() -> String {
    String::new()
}

fn main() {}
