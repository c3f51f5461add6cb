use claude_tools::prelude::*;

#[tool_server(name = "s")]
pub struct S;

/// A form that forgot `JsonSchema` (the case: the raw bound error came three times).
#[derive(Deserialize)]
pub struct Confirm {
    pub confirm: bool,
}

/// Asks for a type that cannot be a form.
#[tool(server = S)]
async fn delete(ctx: ToolContext) -> Result<String, ToolError> {
    let answer = ctx.elicit::<Confirm>("Delete it?").await?;
    Ok(format!("{}", answer.accepted().is_some_and(|form| form.confirm)))
}

fn main() {}
