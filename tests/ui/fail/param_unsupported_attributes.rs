use claude_tools::prelude::*;

#[tool_server(name = "shop")]
pub struct Shop;

/// Search the catalogue.
#[tool(server = Shop)]
async fn search(
    #[serde(alias = "q")] query: String,
    #[schemars(range(max = 50))] limit: u32,
    #[sered(default)] page: u32,
    #[serde(default = 10)] per_page: u32,
    #[arg(default = 1, default)] offset: u32,
    #[serde(rename(deserialize = "cat"))] category: String,
    #[cfg(feature = "x")] tag: String,
) -> String {
    format!("{query} {limit} {page} {per_page} {offset} {category} {tag}")
}

fn main() {}
