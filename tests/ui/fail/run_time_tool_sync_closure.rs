use claude_tools::prelude::*;
use claude_tools::ToolDefBuilder;
use schemars::JsonSchema;
use serde::Deserialize;

#[derive(Deserialize, JsonSchema)]
struct SearchArgs {
    query: String,
}

fn main() {
    // A sync closure: the handler of a run-time tool must be async.
    let _ = ToolServer::new("shop", "1.0.0").with_typed_tool(
        ToolDefBuilder::new("search").description("Search the catalogue"),
        |args: SearchArgs| format!("found {}", args.query),
    );
}
