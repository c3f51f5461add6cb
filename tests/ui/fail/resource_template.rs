use claude_tools::prelude::*;

#[tool_server(name = "s")]
pub struct S;

/// A variable without a parameter, and a parameter without a variable.
#[resource(server = S, uri = "tickets://{id}")]
fn ticket(name: String) -> String {
    name
}

/// A fixed resource whose fn takes a parameter.
#[resource(server = S, uri = "tickets://all")]
fn all(id: u32) -> String {
    id.to_string()
}

/// An operator beyond level 1.
#[resource(server = S, uri = "files://{+path}")]
fn file(path: String) -> String {
    path
}

/// No URI.
#[resource(server = S)]
fn no_uri() -> String {
    String::new()
}

/// Contents that are not contents.
#[resource(server = S, uri = "numbers://one")]
fn one() -> u32 {
    1
}

fn main() {}
