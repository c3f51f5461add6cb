use claude_tools::prelude::*;
use serde::Deserialize;

#[tool_server(name = "search")]
pub struct Search;

#[derive(Deserialize, JsonSchema)]
pub struct Query<'a> {
    pub words: &'a str,
}

/// Search with the lifetime written out.
#[tool(server = Search)]
async fn named(query: Query<'_>) -> String {
    query.words.to_string()
}

/// Search with the lifetime hidden.
#[tool(server = Search)]
async fn hidden(query: Query) -> String {
    query.words.to_string()
}

fn main() {}
