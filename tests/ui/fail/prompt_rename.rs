use claude_tools::prelude::*;

#[tool_server(name = "s")]
pub struct S;

/// Two arguments end up with one name.
#[prompt(server = S)]
async fn clash(#[serde(rename = "city")] from: String, city: String) -> String {
    format!("{from}{city}")
}

/// A rename that is not a string, one given twice, and a default a prompt argument cannot take.
#[prompt(server = S)]
async fn misspelt(
    #[arg(rename = city)] from: String,
    #[serde(rename = "a")]
    #[arg(rename = "b")]
    to: String,
    #[arg(default = 3)] nights: Option<u32>,
) -> String {
    format!("{from}{to}{nights:?}")
}

/// A resource's variables are the URI template's names: no rename.
#[resource(server = S, uri = "s://{id}")]
fn thing(#[serde(rename = "id")] id: String) -> String {
    id
}

fn main() {}
