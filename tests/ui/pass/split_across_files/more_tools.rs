use claude_tools::prelude::*;

/// List the notes.
#[tool(server = crate::Notes)]
pub async fn list_notes() -> Vec<Content> {
    Vec::new()
}

/// Delete a note.
#[tool(server = super::Notes, destructive)]
pub(crate) fn delete_note(id: u64) -> Result<String, ToolError> {
    Err(ToolError::new(format!("no note {id}")))
}
