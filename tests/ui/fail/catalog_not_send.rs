use std::rc::Rc;

use claude_tools::prelude::*;

#[tool_server(name = "s")]
pub struct S;

/// A prompt holding an `Rc` across an `.await`.
#[prompt(server = S)]
async fn greet(name: String) -> String {
    let shared = Rc::new(name);
    tokio::task::yield_now().await;
    format!("hello {shared}")
}

/// A resource holding an `Rc` across an `.await`.
#[resource(server = S, uri = "s://hours")]
async fn hours() -> String {
    let shared = Rc::new("9-17".to_string());
    tokio::task::yield_now().await;
    shared.to_string()
}

fn main() {}
