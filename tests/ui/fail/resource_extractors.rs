use std::cell::Cell;

use claude_tools::prelude::*;

#[tool_server(name = "s")]
pub struct S;

/// Application state.
pub struct Catalog;

/// A parameter that is neither a variable of the template nor an extractor: the mistake the
/// issue reported as "add `{catalog}` to `uri`".
#[resource(server = S, uri = "shop://products/{sku}")]
fn product(catalog: Catalog, sku: String) -> String {
    let _ = catalog;
    sku
}

/// A fixed resource whose parameter is not an extractor.
#[resource(server = S, uri = "shop://all")]
fn all(id: u32) -> String {
    id.to_string()
}

/// A state that is not `Send + Sync`.
#[resource(server = S, uri = "shop://count")]
fn count(calls: State<Cell<u32>>) -> String {
    calls.get().to_string()
}

/// A variable whose type cannot be parsed from the URI.
#[resource(server = S, uri = "shop://catalogs/{catalog}")]
fn catalog(catalog: Catalog) -> String {
    let _ = catalog;
    String::new()
}

/// A variable bound by a pattern.
#[resource(server = S, uri = "shop://names/{name}")]
fn name(State(name): State<String>) -> String {
    name.to_string()
}

fn main() {}
