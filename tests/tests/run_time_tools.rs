//! A typed run-time tool (`ToolServer::with_typed_tool`) is the twin of a `#[tool]` fn taking
//! `Input<T>`: listed the same (schema, description, annotations, `alwaysLoad`) and answering
//! the same calls, good and bad, with the same results.

use claude_tools::ToolDefBuilder;
use claude_tools::prelude::*;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

#[tool_server(name = "twins", version = "1.0.0")]
pub struct Twins;

/// A search.
#[derive(Deserialize, JsonSchema)]
pub struct Query {
    /// Words to look for
    pub words: String,
    /// Where to look
    pub shelf: Shelf,
    /// At most this many hits
    pub limit: Option<u32>,
}

/// A shelf of the shop.
#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Shelf {
    /// Cups and mugs
    Kitchen,
    /// Hats
    Clothes,
}

/// What a search found.
#[derive(Serialize, JsonSchema)]
pub struct Found {
    /// The hits
    pub hits: Vec<String>,
}

fn find(query: Query) -> Result<Json<Found>, ToolError> {
    if query.words.is_empty() {
        return Err(ToolError::new("say what to look for"));
    }
    let limit = query.limit.unwrap_or(1) as usize;
    let shelf = match query.shelf {
        Shelf::Kitchen => "mug",
        Shelf::Clothes => "hat",
    };
    let hits = vec![format!("{} {shelf}", query.words); limit];
    Ok(Json(Found { hits }))
}

/// Search the shop.
#[tool(server = Twins, read_only)]
async fn search(Input(query): Input<Query>) -> Result<Json<Found>, ToolError> {
    find(query)
}

fn run_time_twin() -> ToolServer {
    ToolServer::new("twins", "1.0.0")
        .with_typed_tool(
            ToolDefBuilder::new("search")
                .description("Search the shop.")
                .read_only(true),
            |query: Query| async move { find(query) },
        )
        .unwrap()
}

#[test]
fn both_are_listed_alike() {
    assert_eq!(run_time_twin().list_tools(), Twins::server().list_tools());
    let listed = &run_time_twin().list_tools()[0];
    assert_eq!(listed["_meta"], json!({"anthropic/alwaysLoad": true}));
}

#[tokio::test]
async fn both_answer_every_call_alike() {
    let calls: [Value; 5] = [
        json!({"words": "red", "shelf": "kitchen", "limit": 2}),
        json!({"words": "", "shelf": "clothes"}),
        json!({"words": "red", "shelf": "garden"}),
        json!({"shelf": "kitchen", "limit": -1}),
        json!(["not", "an", "object"]),
    ];
    let (macro_server, run_time) = (Twins::server(), run_time_twin());
    let mut results = Vec::new();
    for arguments in calls {
        let by_macro = macro_server
            .call("search", arguments.clone(), ToolContext::new())
            .await;
        let by_run_time = run_time.call("search", arguments, ToolContext::new()).await;
        assert_eq!(by_run_time, by_macro);
        results.push((by_run_time.is_error, by_run_time.text_content()));
    }
    assert_eq!(
        results,
        [
            (false, r#"{"hits":["red mug","red mug"]}"#.to_string()),
            (true, "say what to look for".to_string()),
            (
                true,
                "Invalid arguments for tool `search`: argument `shelf`: unknown variant `garden`, \
                 expected `kitchen` or `clothes`"
                    .to_string()
            ),
            (
                true,
                "Invalid arguments for tool `search` (2 problems):\n\
                 - argument `words`: missing required argument\n\
                 - argument `limit`: invalid value: integer `-1`, expected u32"
                    .to_string()
            ),
            (
                true,
                "Invalid arguments for tool `search`: expected a JSON object, got an array"
                    .to_string()
            ),
        ]
    );
}
