use claude_tools::prelude::*;

#[tool_server(name = "files")]
pub struct Files;

mod reading {
    use claude_tools::prelude::*;

    /// Read a file.
    #[tool(server = crate::Files)]
    pub async fn read(path: String) -> String {
        path
    }
}

#[path = "duplicate_tool_name/writing.rs"]
mod writing;

fn main() {}
