//! What the model receives through the real CLI: a `#[tool]`'s input schema with its
//! properties, fields and enum values in declaration order, the description made from its doc
//! comment, and a `Json<T>` result's text in declaration order.

use claude_tools::prelude::*;
use claude_tools_testkit::model_server::{Script, Turn};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::harness::{success_text, tr, world};
use crate::run_query;

#[tool_server(name = "shop", version = "0.1.0")]
pub struct Shop;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum Category {
    Books,
    /// Toys and games
    Toys,
    Electronics,
    /// Plants and tools
    Garden,
}

/// A price range.
#[derive(Debug, Deserialize, JsonSchema)]
#[allow(dead_code)] // read by the model, not by the tool
struct Range {
    min: u32,
    max: u32,
}

#[derive(Serialize, JsonSchema)]
struct Hit {
    title: String,
    price_eur: f64,
    id: u32,
}

#[derive(Serialize, JsonSchema)]
struct Hits {
    total: u32,
    hits: Vec<Hit>,
}

/// Search the [`Shop`]'s products.
///
/// # Examples
///
/// Never sent to the model.
#[tool(server = Shop, read_only)]
async fn search_products(
    /// Words to look for
    query: String,
    category: Option<Category>,
    price_eur: Option<Range>,
    in_stock_only: bool,
    limit: u8,
) -> Json<Hits> {
    let _ = (category, price_eur, in_stock_only, limit);
    Json(Hits {
        total: 1,
        hits: vec![Hit {
            title: query,
            price_eur: 9.5,
            id: 7,
        }],
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_model_receives_declaration_order_and_prose() {
    let arguments = json!({"query": "lamp", "in_stock_only": true, "limit": 3});
    let script = Script::new()
        .turn(Turn::text("Searching.").and_tool_use(
            "toolu_e2e_search",
            "mcp__shop__search_products",
            arguments,
        ))
        .turn(Turn::text("Found: {{tool_result}}"));
    let Some(w) = world("the_model_receives_declaration_order_and_prose", script).await else {
        return;
    };
    let options = w
        .options()
        .mcp_server(Shop::server())
        .allowed_tools(["mcp__shop__search_products"]);
    let messages = run_query("find a lamp", options).await;

    let text = r#"{"total":1,"hits":[{"title":"lamp","price_eur":9.5,"id":7}]}"#;
    assert_eq!(success_text(&messages), format!("Found: {text}"));
    assert_eq!(w.tool_results(), [tr("toolu_e2e_search", text, false)]);

    let turns = w.turns();
    let tools = turns[0].body.as_ref().expect("a JSON body")["tools"].clone();
    let tool = tools
        .as_array()
        .expect("tools")
        .iter()
        .find(|tool| tool["name"] == "mcp__shop__search_products")
        .expect("the tool is offered")
        .clone();
    assert_eq!(tool["description"], "Search the `Shop`'s products.");
    let schema = &tool["input_schema"];
    let keys = |value: &Value| -> Vec<String> {
        value
            .as_object()
            .expect("an object")
            .keys()
            .cloned()
            .collect()
    };
    assert_eq!(
        keys(&schema["properties"]),
        ["query", "category", "price_eur", "in_stock_only", "limit"]
    );
    assert_eq!(
        keys(&schema["properties"]["price_eur"]["properties"]),
        ["min", "max"]
    );
    assert_eq!(
        schema["properties"]["category"]["enum"],
        json!(["books", "toys", "electronics", "garden", null])
    );
    assert_eq!(
        schema["required"],
        json!(["query", "in_stock_only", "limit"])
    );
    w.assert_offline();
}
