use claude_tools::prelude::*;

#[tool_server(name = "shop")]
pub struct Shop;

/// Find products.
#[tool(server = Shop, read_only)]
async fn search_products(query: String) -> String {
    query
}

fn main() {
    // A misspelt tool name is a compile error, not a rule that silently allows nothing.
    let _ = Options::new().mcp_server(Shop::server()).allow::<serch_products>();
    let _ = serch_products::QUALIFIED;
}
