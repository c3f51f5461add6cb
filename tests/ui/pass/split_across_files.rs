//! One server's tools in two files, and two servers in one crate.
use claude_tools::prelude::*;

#[tool_server(name = "notes")]
pub struct Notes;

#[tool_server(name = "other")]
pub struct Other;

/// Add a note.
#[tool(server = Notes)]
async fn add_note(text: String) -> String {
    text
}

/// A tool of the other server, with the same name as one of `Notes`.
#[tool(server = Other)]
async fn list_notes() -> &'static str {
    "other"
}

#[path = "split_across_files/more_tools.rs"]
mod more_tools;

fn main() {
    let names: Vec<String> = Notes::server()
        .tools()
        .iter()
        .map(|t| t.name().to_string())
        .collect();
    assert_eq!(names, ["add_note", "delete_note", "list_notes"]);
    let names: Vec<String> = Other::server()
        .tools()
        .iter()
        .map(|t| t.name().to_string())
        .collect();
    assert_eq!(names, ["list_notes"]);
}
