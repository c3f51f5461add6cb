use claude_tools::prelude::*;
use claude_tools::ToolDefBuilder;

#[derive(Deserialize, JsonSchema)]
struct SearchArgs {
    query: String,
}

fn main() {
    // An async handler whose output cannot become a tool result: it is async already, so the
    // error must be about the output.
    let _ = ToolServer::new("shop", "1.0.0").with_typed_tool(
        ToolDefBuilder::new("search").description("Search the catalogue"),
        |args: SearchArgs| async move { (!args.query.is_empty()).then(|| args.query) },
    );
}
