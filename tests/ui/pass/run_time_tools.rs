//! The handlers `ToolServer::with_typed_tool` accepts: async fns, closures returning an
//! `async move` block, `move` closures, async closures, extractors in any position.

use std::sync::Arc;

use claude_tools::prelude::*;
use claude_tools::ToolDefBuilder;
use schemars::JsonSchema;
use serde::Deserialize;

struct Db;

#[derive(Deserialize, JsonSchema)]
struct SearchArgs {
    query: String,
}

async fn search(State(_db): State<Db>, args: SearchArgs) -> Result<String, ToolError> {
    Ok(args.query)
}

fn main() -> Result<(), claude_tools::ServerBuildError> {
    let prefix = Arc::new(String::from(">"));
    let _server = ToolServer::new("shop", "1.0.0")
        .with_state(Db)
        .with_typed_tool(ToolDefBuilder::new("search").read_only(true), search)?
        .with_typed_tool("echo", |args: SearchArgs, _ctx: ToolContext| async move { args.query })?
        .with_typed_tool("prefixed", move |args: SearchArgs| async move {
            format!("{prefix}{}", args.query)
        })?
        .with_typed_tool("async_closure", async |args: SearchArgs| args.query.len())?
        .with_typed_tool("nothing", || async {})?;
    Ok(())
}
