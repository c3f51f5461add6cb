use std::cell::Cell;
use std::sync::Arc;

use claude_tools::prelude::*;

#[tool_server(name = "s")]
pub struct S;

/// Application state that is not an argument.
pub struct Catalog;

#[derive(Deserialize, JsonSchema)]
pub struct Query {
    text: String,
}

/// Neither an extractor nor an argument: the mistake the issue reported as advice to derive.
#[prompt(server = S)]
fn neither(catalog: Catalog, sku: String) -> String {
    let _ = catalog;
    sku
}

/// A state that is not `Send + Sync`.
#[prompt(server = S)]
fn counted(calls: State<Cell<u32>>) -> String {
    calls.get().to_string()
}

/// Shared state taken as an `Arc`.
#[prompt(server = S)]
fn shared(catalog: Arc<Catalog>) -> String {
    let _ = catalog;
    String::new()
}

/// A tool's whole input.
#[prompt(server = S)]
fn whole(Input(query): Input<Query>) -> String {
    query.text
}

/// An argument written as a pattern.
#[prompt(server = S)]
fn pattern((a, b): (String, String)) -> String {
    a + &b
}

/// A rename on an extractor.
#[prompt(server = S)]
fn renamed(#[arg(rename = "db")] State(catalog): State<Catalog>) -> String {
    let _ = catalog;
    String::new()
}

fn main() {}
