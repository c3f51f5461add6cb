use std::sync::Arc;

use claude_tools::prelude::*;

#[tool_server(name = "shop")]
pub struct Shop;

pub struct Store {
    pub items: Vec<String>,
}

/// The number of items.
#[tool(server = Shop)]
async fn count(store: Arc<Store>) -> usize {
    store.items.len()
}

fn main() {}
