use claude_tools::prelude::*;

#[tool_server(name = "s")]
pub struct S;

fn names(_typed: &str) -> Vec<String> {
    Vec::new()
}

/// No server.
#[prompt]
fn no_server() -> String {
    String::new()
}

/// A completer of an argument the fn does not have, an unknown option, a pattern.
#[prompt(server = S, complete(nme = names), colour = "red")]
fn options(name: String, (a, b): (String, String)) -> String {
    format!("{name}{a}{b}")
}

pub struct NotAServer;

/// A server that is not one.
#[prompt(server = NotAServer)]
fn wrong_server() -> String {
    String::new()
}

fn main() {}
