use claude_tools::prelude::*;

#[tool_server(name = "text")]
pub struct Text;

/// Shout.
#[tool(server = Text)]
async fn shout(
    /// What to shout
    text: &str,
) -> String {
    text.to_uppercase()
}

fn main() {}
