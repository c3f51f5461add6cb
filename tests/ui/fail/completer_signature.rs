use claude_tools::prelude::*;

#[tool_server(name = "s")]
pub struct S;

/// Takes the typed text owned.
fn owned(typed: String) -> Vec<String> {
    vec![typed]
}

/// Returns no list.
fn count(_typed: &str, _context: &CompletionContext) -> usize {
    0
}

/// An async completer: completers are sync.
async fn slow(typed: &str) -> Vec<String> {
    vec![typed.to_string()]
}

/// A completer that takes a `String`, and one that returns a number.
#[prompt(server = S, complete(country = owned, city = count))]
fn trip(country: String, city: String) -> String {
    format!("{city}, {country}")
}

/// An async completer.
#[prompt(server = S, complete(city = slow))]
fn visit(city: String) -> String {
    city
}

fn main() {}
