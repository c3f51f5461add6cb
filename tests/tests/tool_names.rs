//! Typed tool names: the `ToolRef` marker type `#[tool]` emits for every tool fn, and the
//! options that take a tool or a server by type or by value rather than by a hand-typed string.

use claude_tools::prelude::*;
use claude_tools::{ToolDefBuilder, ToolRef};

#[tool_server(name = "shop", version = "1.0.0")]
pub struct Shop;

/// Find products.
#[tool(server = Shop, read_only)]
async fn search_products(query: String) -> String {
    query
}

/// Buy a product.
#[tool(server = Shop, name = "buy")]
pub async fn purchase(product: String) -> String {
    product
}

mod stock {
    use claude_tools::prelude::*;

    /// How many are left.
    #[tool(server = super::Shop, read_only)]
    pub(crate) fn r#in_stock(product: String) -> usize {
        product.len()
    }
}

/// The arguments the options send to the CLI after `flag`.
fn flag_value(options: Options, flag: &str) -> Option<String> {
    let args = options.launch_spec().args;
    let at = args.iter().position(|arg| arg == flag)?;
    args.get(at + 1).cloned()
}

#[test]
fn the_marker_type_names_the_tool_its_server_and_its_qualified_name() {
    assert_eq!(search_products::NAME, "search_products");
    assert_eq!(search_products::SERVER, "shop");
    assert_eq!(search_products::QUALIFIED, "mcp__shop__search_products");
    // `name = "..."` wins over the fn's name; the type keeps the fn's name.
    assert_eq!(<purchase as ToolRef>::NAME, "buy");
    assert_eq!(purchase::QUALIFIED, "mcp__shop__buy");
    assert_eq!(stock::in_stock::QUALIFIED, "mcp__shop__in_stock");
    // The fn is still the fn.
    assert_eq!(stock::in_stock("mug".into()), 3);
}

#[test]
fn every_qualified_name_is_one_the_server_has() {
    let server = Shop::server();
    for name in [
        search_products::QUALIFIED,
        purchase::QUALIFIED,
        stock::in_stock::QUALIFIED,
    ] {
        assert!(
            server.qualified_names().contains(&name.to_string()),
            "{name}"
        );
    }
    assert_eq!(
        server.qualified_names(),
        [
            "mcp__shop__buy",
            "mcp__shop__in_stock",
            "mcp__shop__search_products"
        ]
    );
    assert_eq!(
        server.qualified_name("search_products").as_deref(),
        Some(search_products::QUALIFIED)
    );
}

#[test]
fn options_allow_and_disallow_tools_by_type() {
    let options = Options::new()
        .allow::<search_products>()
        .allow::<stock::in_stock>()
        .disallow::<purchase>();
    assert_eq!(
        flag_value(options.clone(), "--allowedTools").as_deref(),
        Some("mcp__shop__search_products,mcp__shop__in_stock")
    );
    assert_eq!(
        flag_value(options, "--disallowedTools").as_deref(),
        Some("mcp__shop__buy")
    );
}

#[test]
fn options_allow_a_whole_server_or_its_read_only_tools() {
    let server = Shop::server();
    let options = Options::new().allow_tool("Read").allow_server(&server);
    assert_eq!(
        flag_value(options, "--allowedTools").as_deref(),
        Some("Read,mcp__shop")
    );
    let options = Options::new().allow_read_only_tools(&server);
    assert_eq!(
        flag_value(options, "--allowedTools").as_deref(),
        Some("mcp__shop__in_stock,mcp__shop__search_products")
    );
}

#[test]
fn run_time_tools_of_a_macro_server_follow_its_always_load() {
    #[tool_server(name = "quiet", always_load = false)]
    pub struct Quiet;

    let server = Quiet::server()
        .with_typed_tool(ToolDefBuilder::new("added"), || async { "" })
        .unwrap();
    assert_eq!(server.list_tools()[0].get("_meta"), None);
}
