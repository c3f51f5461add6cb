use std::sync::Arc;

use claude_tools::prelude::*;
use schemars::JsonSchema;
use serde::Deserialize;

struct Db;

#[derive(Deserialize, JsonSchema)]
struct SearchArgs {
    query: String,
}

fn main() {
    // `Arc<Db>` is neither an extractor nor the arguments: the handler is refused.
    let _ = ToolServer::new("shop", "1.0.0")
        .with_state(Db)
        .with_typed_tool("search", |_db: Arc<Db>, args: SearchArgs| async move { args.query });
}
