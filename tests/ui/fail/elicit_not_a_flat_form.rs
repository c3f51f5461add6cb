use std::collections::HashMap;

use claude_tools::prelude::*;

#[tool_server(name = "s")]
pub struct S;

#[derive(Deserialize, JsonSchema)]
pub struct Confirm {
    pub confirm: bool,
}

/// Asks for a bare string: a form is a struct.
#[tool(server = S)]
async fn rename(ctx: ToolContext) -> Result<String, ToolError> {
    let name = ctx.elicit::<String>("New name?").await?;
    Ok(name.accepted().unwrap_or_default())
}

/// Asks for a list of forms, an optional form and a map.
#[tool(server = S)]
async fn confirm_all(ctx: ToolContext) -> Result<String, ToolError> {
    let all = ctx.elicit::<Vec<Confirm>>("All of them?").await?;
    let maybe = ctx.elicit::<Option<Confirm>>("Maybe?").await?;
    let labels = ctx.elicit::<HashMap<String, String>>("Labels?").await?;
    let answered = [all.accepted().is_some(), maybe.accepted().is_some(), labels.accepted().is_some()];
    Ok(format!("{answered:?}"))
}

/// A prompt asking for a tuple.
#[prompt(server = S)]
async fn greet(ctx: ToolContext) -> String {
    let pair = ctx.elicit::<(bool, u8)>("Pair?").await;
    format!("{}", pair.is_ok())
}

fn main() {}
