use claude_tools::prelude::*;

/// Write a file (but registered under the name of the reading tool).
#[tool(server = crate::Files, name = "read")]
pub async fn write(path: String, contents: String) -> String {
    format!("{path}: {contents}")
}
