//! Typed run-time tools (`ToolServer::with_typed_tool`) and typed permission rules
//! (`Options::allow_server`, `Options::allow_read_only_tools`) through the real CLI.

use std::sync::{Arc, Mutex};

use claude_tools::{State, ToolContext, ToolDefBuilder, ToolServer};
use claude_tools_testkit::model_server::{Script, Turn};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

use super::harness::{success_text, tr, world};
use super::run_query;

/// The shop's state: its catalogue, and every call its tools ran.
struct Shop {
    items: Vec<&'static str>,
    ran: Mutex<Vec<String>>,
}

#[derive(Deserialize, JsonSchema)]
struct SearchArgs {
    /// Words to look for
    query: String,
    /// At most this many hits
    limit: Option<usize>,
}

#[derive(Deserialize, JsonSchema)]
struct BuyArgs {
    /// The product to buy
    product: String,
}

/// A server built at run time: `search` (read-only, typed arguments, state, context) and `buy`.
fn shop() -> (ToolServer, Arc<Shop>) {
    let state = Arc::new(Shop {
        items: vec!["red mug", "blue mug", "red hat"],
        ran: Mutex::new(Vec::new()),
    });
    let server = ToolServer::new("shop", "1.0.0")
        .with_shared_state(state.clone())
        .with_typed_tool(
            ToolDefBuilder::new("search")
                .description("Search the catalogue")
                .read_only(true),
            |State(shop): State<Shop>, args: SearchArgs, context: ToolContext| async move {
                let id = context.tool_use_id().unwrap_or_default().to_string();
                shop.ran
                    .lock()
                    .unwrap()
                    .push(format!("search {} {id}", args.query));
                let hits = shop.items.iter().filter(|item| item.contains(&*args.query));
                let hits: Vec<&str> = hits.take(args.limit.unwrap_or(10)).copied().collect();
                hits.join(", ")
            },
        )
        .and_then(|server| {
            server.with_typed_tool(
                ToolDefBuilder::new("buy").description("Buy a product"),
                |State(shop): State<Shop>, args: BuyArgs| async move {
                    shop.ran
                        .lock()
                        .unwrap()
                        .push(format!("buy {}", args.product));
                    format!("bought {}", args.product)
                },
            )
        })
        .expect("the shop builds");
    (server, state)
}

/// The `tools` entry the model was sent for `name`.
fn offered_tool(
    request: &claude_tools_testkit::model_server::RecordedRequest,
    name: &str,
) -> Value {
    let tools = request.body.as_ref().and_then(|body| body.get("tools"));
    let tools = tools.and_then(Value::as_array).cloned().unwrap_or_default();
    tools
        .into_iter()
        .find(|tool| tool["name"] == name)
        .unwrap_or_else(|| panic!("{name} was not offered"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_typed_run_time_tool_answers_through_the_cli_and_allow_server_allows_every_tool() {
    let script = Script::new()
        .turn(
            Turn::text("Searching, then buying.")
                .and_tool_use(
                    "toolu_typed_search",
                    "mcp__shop__search",
                    json!({"query": "red", "limit": 1}),
                )
                .and_tool_use("toolu_typed_bad", "mcp__shop__search", json!({"limit": 2})),
        )
        .turn(Turn::tool_use(
            "toolu_typed_buy",
            "mcp__shop__buy",
            json!({"product": "red mug"}),
        ))
        .turn(Turn::text(
            "{{tool_result:toolu_typed_search}} | {{tool_result:toolu_typed_buy}}",
        ));
    let Some(w) = world("typed_run_time_tool", script).await else {
        return;
    };
    let (server, shop) = shop();
    let search_schema = server.tool("search").unwrap().def().input_schema.clone();
    let options = w.options().allow_server(&server).mcp_server(server);
    let messages = run_query("find something red and buy it", options).await;

    assert_eq!(success_text(&messages), "red mug | bought red mug");
    let bad = "Invalid arguments for tool `search`: argument `query`: missing required argument";
    // The two searches of the first turn run concurrently (read-only): sorted by id.
    let mut results = w.tool_results();
    results.sort();
    assert_eq!(
        results,
        [
            tr("toolu_typed_bad", bad, true),
            tr("toolu_typed_buy", "bought red mug", false),
            tr("toolu_typed_search", "red mug", false),
        ]
    );
    assert_eq!(
        *shop.ran.lock().unwrap(),
        ["search red toolu_typed_search", "buy red mug"]
    );
    // The model was given the schema derived from `SearchArgs`.
    let offered = offered_tool(&w.turns()[0], "mcp__shop__search");
    assert_eq!(offered["input_schema"], Value::Object(search_schema));
    assert_eq!(offered["description"], "Search the catalogue");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn allow_read_only_tools_allows_search_and_not_buy() {
    let script = Script::new()
        .turn(
            Turn::tool_use(
                "toolu_ro_search",
                "mcp__shop__search",
                json!({"query": "hat"}),
            )
            .and_tool_use(
                "toolu_ro_buy",
                "mcp__shop__buy",
                json!({"product": "red hat"}),
            ),
        )
        .turn(Turn::text("{{tool_result:toolu_ro_search}}"));
    let Some(w) = world("typed_read_only_rules", script).await else {
        return;
    };
    let (server, shop) = shop();
    let options = w
        .options()
        .allow_read_only_tools(&server)
        .mcp_server(server);
    let messages = run_query("find a hat and buy it", options).await;

    assert_eq!(success_text(&messages), "red hat");
    assert_eq!(*shop.ran.lock().unwrap(), ["search hat toolu_ro_search"]);
    // `buy` is not read-only, so no rule allows it: the CLI refuses it without asking.
    let denied =
        "Claude requested permissions to use mcp__shop__buy, but you haven't granted it yet.";
    let mut results = w.tool_results();
    results.sort();
    assert_eq!(
        results,
        [
            tr("toolu_ro_buy", denied, true),
            tr("toolu_ro_search", "red hat", false),
        ]
    );
}
