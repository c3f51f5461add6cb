//! Every supported parameter shape.
use claude_tools::prelude::*;
use schemars::JsonSchema;
use serde::Deserialize;

#[tool_server(name = "shapes")]
pub struct Shapes;

pub struct Db {
    n: u32,
}

#[derive(Deserialize, JsonSchema)]
pub struct Query {
    /// What to look for
    pub text: String,
}

/// No parameters at all.
#[tool(server = Shapes)]
async fn nothing() -> &'static str {
    "nothing"
}

/// Only model parameters.
#[tool(server = Shapes)]
async fn model_only(a: i64, b: String, c: Vec<u8>) -> String {
    format!("{a}{b}{c:?}")
}

/// Optional parameters.
#[tool(server = Shapes)]
async fn optional(a: Option<i64>, b: Option<Option<String>>) -> String {
    format!("{a:?}{b:?}")
}

/// Extractors first, in the middle and last.
#[tool(server = Shapes)]
async fn extractors(db: State<Db>, a: i64, ctx: ToolContext, b: i64, db2: State<Db>) -> u32 {
    let _ = ctx.tool_use_id();
    db.n + db2.n + (a + b) as u32
}

/// Patterns on extractors, unused extractors and raw identifiers.
#[tool(server = Shapes)]
async fn patterns(
    State(db): State<Db>,
    _: ToolContext,
    _ctx: ToolContext,
    r#type: String,
    mut count: u32,
) -> String {
    count += db.n;
    format!("{type}{count}")
}

/// The whole input as one struct.
#[tool(server = Shapes)]
async fn input_alone(Input(query): Input<Query>) -> String {
    query.text
}

/// A struct input next to named parameters and an extractor.
#[tool(server = Shapes)]
async fn input_mixed(input: Input<Query>, limit: Option<u32>, db: State<Db>) -> String {
    format!("{}{limit:?}{}", input.0.text, db.n)
}

/// A sync fn.
#[tool(server = Shapes)]
fn sync(a: i64) -> i64 {
    a * 2
}

/// A sync fn with no return type.
#[tool(server = Shapes)]
fn sync_unit(_a: i64) {}

/// An async fn with no return type.
#[tool(server = Shapes)]
async fn async_unit() {}

/// Documented parameters of every kind.
#[tool(server = Shapes)]
pub async fn documented(
    /// The state
    db: State<Db>,
    /// The number
    n: u32,
    /** An optional flag */
    flag: Option<bool>,
) -> u32 {
    db.n + n + u32::from(flag.unwrap_or(false))
}

fn main() {
    let server = Shapes::server().with_state(Db { n: 1 });
    server.check_state().expect("state is registered");
    let names: Vec<&str> = server.tools().iter().map(|t| t.name()).collect();
    assert_eq!(
        names,
        [
            "async_unit",
            "documented",
            "extractors",
            "input_alone",
            "input_mixed",
            "model_only",
            "nothing",
            "optional",
            "patterns",
            "sync",
            "sync_unit"
        ]
    );
}
