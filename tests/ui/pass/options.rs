//! Every attribute option of both macros.
use claude_tools::prelude::*;

#[tool_server(
    name = "opts",
    version = "2.0.0",
    always_load = false,
    instructions = "Tools that show every option."
)]
pub struct Opts;

#[tool_server(name = "flagged", always_load)]
struct Flagged;

/// Overridden by `description`.
#[tool(
    server = Opts,
    name = "renamed-tool",
    description = "Set in the attribute.",
    title = "Every option",
    read_only,
    destructive = false,
    idempotent = true,
    open_world = false,
    max_result_chars = 200_000u32,
    always_load,
    search_hint = "options flags"
)]
async fn every_option() -> &'static str {
    "ok"
}

#[doc = concat!("Built by ", "concat!")]
#[tool(server = Opts, always_load = false, read_only = false)]
async fn doc_from_macro() {}

/// A tool of the flagged server.
#[tool(server = crate::Flagged, r#name = "flag")]
async fn flag() {}

fn main() {
    let server = Opts::server();
    assert_eq!(server.version(), "2.0.0");
    assert_eq!(server.instructions(), Some("Tools that show every option."));
    let tool = server.tool("renamed-tool").expect("renamed");
    assert_eq!(tool.def().description.as_deref(), Some("Set in the attribute."));
    let tool = server.tool("doc_from_macro").expect("doc_from_macro");
    assert_eq!(tool.def().description.as_deref(), Some("Built by concat!"));
    assert!(Opts::try_server().is_ok());
    assert_eq!(Flagged::server().tools().len(), 1);
}
