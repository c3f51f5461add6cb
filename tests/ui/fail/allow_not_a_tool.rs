use claude_tools::prelude::*;

#[tool_server(name = "shop")]
pub struct Shop;

/// Find products.
#[tool(server = Shop, read_only)]
async fn search_products(query: String) -> String {
    query
}

fn main() {
    // A server where a tool is wanted.
    let _ = Options::new().allow::<Shop>();
    // The tool fn as a value, where its name type is wanted.
    let _ = Options::new().allow(search_products);
}
