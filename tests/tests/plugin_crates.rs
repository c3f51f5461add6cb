//! Tools defined in another crate than their server (a workspace split by domain, plugin
//! crates): `tests/fixtures/plugin-server` defines the servers, `tests/fixtures/plugin-tools` and
//! `tests/fixtures/other-plugin` add tools to them.

use claude_tools::{ServerBuildError, ToolContext};
use plugin_server::{Clash, Shop};
use serde_json::json;

// Link the plugin crates: a crate nothing names is not linked, and its tools would not register.
use other_plugin as _;
use plugin_tools as _;

#[tokio::test]
async fn a_server_lists_and_calls_tools_from_another_crate() {
    let server = Shop::server();
    let names: Vec<&str> = server.tools().iter().map(|tool| tool.name()).collect();
    assert_eq!(names, ["ping", "search", "stock"]);

    let found = server
        .call(
            "search",
            json!({"query": "kettle", "limit": 1}),
            ToolContext::new(),
        )
        .await;
    assert!(!found.is_error);
    assert_eq!(
        found.text_content(),
        r#"{"items":[{"name":"red kettle","price":2500}]}"#
    );
    let stock = server
        .call("stock", json!({"item": "red mug"}), ToolContext::new())
        .await;
    assert_eq!(stock.text_content(), "3 x red mug");
    let ping = server.call("ping", json!({}), ToolContext::new()).await;
    assert_eq!(ping.text_content(), "pong");
}

#[test]
fn the_json_schema_derive_of_a_crate_without_schemars_gives_schemars_schema() {
    let tools = Shop::server().list_tools();
    let search = tools
        .iter()
        .find(|tool| tool["name"] == "search")
        .expect("search is listed");
    assert_eq!(
        search["inputSchema"],
        json!({
            "type": "object",
            "properties": {
                "query": {"type": "string", "description": "Words the item's name contains"},
                "limit": {
                    "type": ["integer", "null"],
                    "minimum": 0,
                    "description": "The most items to return"
                }
            },
            "required": ["query"]
        })
    );
}

#[test]
fn two_sibling_crates_giving_a_server_the_same_tool_name_fail_its_build_naming_both() {
    let error = Clash::try_server().expect_err("two tools are named lookup");
    assert_eq!(
        error,
        ServerBuildError::DuplicateTool {
            server: "clash".to_string(),
            tool: "lookup".to_string(),
            first: Some("tests/fixtures/other-plugin/src/lib.rs:8".to_string()),
            second: Some("tests/fixtures/plugin-tools/src/lib.rs:63".to_string()),
        }
    );
    assert_eq!(
        error.to_string(),
        "server `clash` has two tools named `lookup` (at tests/fixtures/other-plugin/src/lib.rs:8 \
         and tests/fixtures/plugin-tools/src/lib.rs:63): tool names must be unique in a server; \
         rename one with #[tool(name = \"...\")]"
    );
}

#[test]
fn a_duplicate_added_by_hand_has_no_location_to_name() {
    let error = Shop::server()
        .with_tool(claude_tools::ToolDefBuilder::new("ping"), |_| async {
            "again"
        })
        .expect_err("ping is a tool of shop already");
    assert_eq!(
        error,
        ServerBuildError::DuplicateTool {
            server: "shop".to_string(),
            tool: "ping".to_string(),
            first: None,
            second: Some("tests/fixtures/plugin-server/src/lib.rs:13".to_string()),
        }
    );
    assert_eq!(
        error.to_string(),
        "server `shop` has two tools named `ping` (one at tests/fixtures/plugin-server/src/lib.rs:13): \
         tool names must be unique in a server; rename one with #[tool(name = \"...\")]"
    );
}
