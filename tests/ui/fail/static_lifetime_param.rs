// `'_` is caught by the macro (borrowing_struct_param.rs); `'static` is what a user reaches for
// next, and a type that borrows from its input cannot be deserialized for `'static` either. A
// type that owns its data may carry a `'static` lifetime: it compiles, with a warning that
// `#[allow(deprecated)]` silences; `Cow<'static, str>` and extractors get none.
#![deny(deprecated)]

use std::borrow::Cow;

use claude_tools::prelude::*;

#[tool_server(name = "search")]
pub struct Search;

#[derive(Deserialize, JsonSchema)]
pub struct Query<'a> {
    pub words: &'a str,
}

/// Search for words.
#[tool(server = Search)]
async fn search(query: Query<'static>) -> String {
    query.words.to_string()
}

/// Owns its data: the lifetime is for `Cow`, which serde does not borrow without
/// `#[serde(borrow)]`.
#[derive(Deserialize, JsonSchema)]
pub struct Label<'a> {
    pub text: Cow<'a, str>,
}

/// Print a label.
#[tool(server = Search)]
#[allow(deprecated)]
async fn label(label: Label<'static>, title: Cow<'static, str>) -> String {
    format!("{title}: {}", label.text)
}

pub struct Config<'a> {
    pub index: &'a str,
}

/// Where the index is.
#[tool(server = Search)]
async fn index(config: State<Config<'static>>, note: Option<Cow<'static, str>>) -> String {
    format!("{} {note:?}", config.index)
}

fn main() {}
