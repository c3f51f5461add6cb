use claude_tools::prelude::*;

#[tool_server(name = "shop")]
pub struct Shop;

pub struct Db;

/// Count the items.
#[tool(server = Shop)]
async fn count(#[arg(default)] ctx: ToolContext, #[serde(rename = "database")] db: State<Db>) -> String {
    let _ = (ctx, db);
    String::new()
}

/// Count the items again.
#[tool(server = Shop)]
async fn recount(#[serde(default)] State(db): State<Db>) -> String {
    let _ = db;
    String::new()
}

fn main() {}
