use claude_tools::prelude::*;

#[tool_server(name = "shop")]
pub struct Shop;

fn ten() -> String {
    "ten".to_string()
}

/// A thing with no Default.
#[derive(serde::Deserialize, schemars::JsonSchema)]
pub struct Window {
    pub width: u32,
}

/// Search the catalogue.
#[tool(server = Shop)]
async fn search(
    #[arg(default = "10")] limit: u32,
    #[serde(default = "ten")] page: u32,
    #[serde(default)] window: Window,
) -> String {
    format!("{limit} {page} {}", window.width)
}

fn main() {}
