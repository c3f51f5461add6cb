use std::rc::Rc;
use std::sync::Mutex;

use claude_tools::prelude::*;

#[tool_server(name = "counter")]
pub struct Counter;

/// Add one to the count, slowly.
#[tool(server = Counter)]
async fn bump(count: State<Mutex<u64>>) -> u64 {
    let mut guard = count.lock().unwrap();
    *guard += 1;
    tokio::task::yield_now().await;
    *guard
}

/// Say hello, slowly.
#[tool(server = Counter)]
async fn greet(name: String) -> String {
    let shared = Rc::new(name);
    tokio::task::yield_now().await;
    format!("hello {shared}")
}

fn main() {}
