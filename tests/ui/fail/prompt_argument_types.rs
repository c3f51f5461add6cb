use claude_tools::prelude::*;

#[tool_server(name = "s")]
pub struct S;

pub struct NotParsable;

/// A prompt whose argument cannot be parsed from a string.
#[prompt(server = S)]
async fn bad_argument(what: NotParsable) -> String {
    let _ = what;
    String::new()
}

/// A prompt that borrows.
#[prompt(server = S)]
fn borrowed(text: &'static str) -> String {
    text.to_string()
}

/// A prompt that returns no messages.
#[prompt(server = S)]
async fn bad_return() -> u32 {
    1
}

fn main() {}
