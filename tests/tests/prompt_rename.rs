//! `#[prompt]` arguments renamed as `#[tool]` parameters are, with `#[serde(rename = "..")]` or
//! `#[arg(rename = "..")]`: the listed argument, `prompts/get` and `completion/complete` all
//! use the new name.

use claude_tools::mcp::McpRouter;
use claude_tools::prelude::*;
use serde_json::{Value, json};

#[tool_server(name = "trips", version = "1.0.0")]
pub struct Trips;

fn cities(typed: &str) -> Vec<String> {
    ["Lisbon", "Lyon"]
        .iter()
        .filter(|city| city.starts_with(typed))
        .map(|city| city.to_string())
        .collect()
}

/// Plan a trip.
#[prompt(server = Trips, complete(from_city = cities))]
async fn plan(
    /// Where from
    #[serde(rename = "fromCity")]
    from_city: String,
    /// How many nights
    #[arg(rename = "nightCount")]
    nights: Option<u32>,
    r#type: Option<String>,
) -> String {
    format!(
        "{from_city}, {} nights, {}",
        nights.unwrap_or(1),
        r#type.unwrap_or_default()
    )
}

async fn ask(router: &McpRouter, method: &str, params: Value) -> Value {
    router
        .handle_json(json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}))
        .await
        .expect("answered")
}

#[tokio::test]
async fn renamed_prompt_arguments_use_their_new_names_everywhere() {
    let router = McpRouter::new(Trips::server());
    let list = ask(&router, "prompts/list", json!({})).await;
    assert_eq!(
        list["result"]["prompts"][0]["arguments"],
        json!([
            {"name": "fromCity", "description": "Where from", "required": true},
            {"name": "nightCount", "description": "How many nights", "required": false},
            {"name": "type", "required": false}
        ])
    );
    let got = ask(
        &router,
        "prompts/get",
        json!({"name": "plan", "arguments": {"fromCity": "Lyon", "nightCount": "3", "type": "rail"}}),
    )
    .await;
    assert_eq!(
        got["result"]["messages"][0]["content"]["text"],
        "Lyon, 3 nights, rail"
    );
    // The Rust name is not the argument's name.
    let rust_name = ask(
        &router,
        "prompts/get",
        json!({"name": "plan", "arguments": {"from_city": "Lyon"}}),
    )
    .await;
    assert_eq!(rust_name["error"]["code"], -32602, "{rust_name}");
    assert!(
        rust_name["error"]["data"]
            .as_str()
            .unwrap()
            .contains("fromCity"),
        "{rust_name}"
    );
    // The completer named by the Rust parameter completes the renamed argument.
    let completed = ask(
        &router,
        "completion/complete",
        json!({"ref": {"type": "ref/prompt", "name": "plan"}, "argument": {"name": "fromCity", "value": "L"}}),
    )
    .await;
    assert_eq!(
        completed["result"]["completion"]["values"],
        json!(["Lisbon", "Lyon"])
    );
}
