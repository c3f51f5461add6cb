//! `#[prompt]` and `#[resource]` in every form they take: sync and async, required, optional
//! and enum arguments, templates of several variables, completers (with and without the
//! context), every return type.

use claude_tools::prelude::*;
use claude_tools::prompts::GetPromptResult;
use claude_tools::resources::ResourceContents;

#[tool_server(name = "s")]
pub struct S;

#[derive(Deserialize, JsonSchema)]
pub enum Size {
    Small,
    Large,
}

fn sizes(typed: &str) -> [&'static str; 1] {
    let _ = typed;
    ["Small"]
}

/// Completes the note knowing the size already filled in; borrows what was typed.
fn notes<'a>(typed: &'a str, context: &CompletionContext) -> impl Iterator<Item = &'a str> {
    let note = match context.get("size") {
        Some("Small") => "gift wrap",
        _ => "fragile",
    };
    [note].into_iter().filter(move |note| note.starts_with(typed))
}

/// Async, with every kind of argument.
#[prompt(server = S, name = "order", title = "Order", complete(size = sizes, note = notes))]
async fn order(
    /// How many
    count: u32,
    /// Which size
    size: Size,
    /// A note
    note: Option<String>,
    #[allow(unused_variables)] r#type: Option<bool>,
) -> Result<Vec<PromptMessage>, PromptError> {
    let _ = (count, size, note);
    Ok(vec![PromptMessage::user("order")])
}

/// Sync, no arguments.
#[prompt(server = S, description = "Plain")]
fn plain() -> GetPromptResult {
    GetPromptResult::new(vec![]).with_description("plain")
}

/// Sync, a message.
#[prompt(server = S)]
fn message() -> PromptMessage {
    PromptMessage::assistant("hi")
}

/// A fixed text resource.
#[resource(server = S, uri = "s://text", mime_type = "text/plain", title = "Text")]
fn text() -> &'static str {
    "text"
}

/// A template of two variables.
#[resource(server = S, uri = "s://{project}/items/{id}", complete(project = sizes, id = notes))]
async fn item(project: String, id: u64) -> Result<ResourceContents, ResourceError> {
    Ok(ResourceContents::text(format!("s://{project}/items/{id}"), "x", None))
}

/// Binary.
#[resource(server = S, uri = "s://bin", name = "binary")]
async fn bin() -> Blob {
    Blob(vec![1])
}

fn main() {
    let server = S::server();
    assert_eq!(server.prompts().len(), 3);
    assert_eq!(server.list_resources().len(), 2);
    assert_eq!(server.list_resource_templates().len(), 1);
}
