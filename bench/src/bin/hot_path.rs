//! `ct-bench-hot-path`: the in-process hot path of a tool call, with no process, pipe or
//! session around it, for instruction counts (`valgrind --tool=callgrind`), which repeat
//! exactly where wall-clock figures on a shared machine do not.
//!
//! `ct-bench-hot-path <calls>` decodes `<calls>` `tools/call` messages of the bench's `add` tool
//! (the JSON-RPC message the fake CLI sends, as text: the session checks a line's UTF-8 once,
//! before this) with `Message::decode_str`, hands each to an `McpRouter`, and writes each answer
//! into a reused buffer: parsing, argument extraction, the handler and the answer. The
//! instructions of one call are the difference between two runs divided by the difference of
//! their `<calls>` (start-up cancels out); see BENCHMARKS.md, "Cost of declaration order".
//!
//! `ct-bench-hot-path <calls> prompt` does the same with a `prompts/get` of the `sum` prompt, and
//! `ct-bench-hot-path <calls> resource` with a `resources/read` of the `bench://sum/{a}/{b}`
//! template: the same two numbers parsed, added and answered as text, through the other
//! methods (BENCHMARKS.md, "Cost of prompts and resources").

use std::process::ExitCode;

use claude_tools::mcp::{McpRouter, Message};
use claude_tools::prelude::*;

/// The bench server.
#[tool_server(name = "bench", version = "1.0.0")]
pub struct Bench;

/// Add two integers.
#[tool(server = Bench, read_only)]
async fn add(
    /// The first term
    a: i64,
    /// The second term
    b: i64,
) -> i64 {
    a.wrapping_add(b)
}

/// Ask for the sum of two integers.
#[prompt(server = Bench)]
fn sum(
    /// The first term
    a: i64,
    /// The second term
    b: i64,
) -> String {
    format!("What is {a} + {b}? It is {}.", a.wrapping_add(b))
}

/// The sum of two integers.
#[resource(server = Bench, uri = "bench://sum/{a}/{b}", mime_type = "text/plain")]
fn sum_resource(a: i64, b: i64) -> String {
    a.wrapping_add(b).to_string()
}

/// The message of the fake CLI (`bench/src/bin/fake_cli.rs`), byte for byte.
const MESSAGE: &str = r#"{"method":"tools/call","params":{"name":"add","arguments":{"a":12345,"b":67890},"_meta":{"claudecode/toolUseId":"toolu_bench000000000001","progressToken":7}},"jsonrpc":"2.0","id":7}"#;

/// A `prompts/get` of the same two numbers.
const PROMPT_MESSAGE: &str = r#"{"method":"prompts/get","params":{"name":"sum","arguments":{"a":"12345","b":"67890"}},"jsonrpc":"2.0","id":7}"#;

/// A `resources/read` of the same two numbers.
const RESOURCE_MESSAGE: &str = r#"{"method":"resources/read","params":{"uri":"bench://sum/12345/67890"},"jsonrpc":"2.0","id":7}"#;

fn main() -> ExitCode {
    let Some(calls) = std::env::args().nth(1).and_then(|n| n.parse::<u64>().ok()) else {
        eprintln!("usage: ct-bench-hot-path <calls> [tool|prompt|resource]");
        return ExitCode::from(2);
    };
    let message = match std::env::args().nth(2).as_deref() {
        None | Some("tool") => MESSAGE,
        Some("prompt") => PROMPT_MESSAGE,
        Some("resource") => RESOURCE_MESSAGE,
        Some(other) => {
            eprintln!("ct-bench-hot-path: unknown method `{other}`: tool, prompt or resource");
            return ExitCode::from(2);
        }
    };
    let runtime = match tokio::runtime::Builder::new_current_thread().build() {
        Ok(runtime) => runtime,
        Err(e) => {
            eprintln!("ct-bench-hot-path: runtime: {e}");
            return ExitCode::from(2);
        }
    };
    let router = McpRouter::new(Bench::server());
    let answered = runtime.block_on(async {
        let mut buffer = Vec::with_capacity(256);
        let mut answered = 0usize;
        for _ in 0..calls {
            buffer.clear();
            if let Some(response) = router.handle(Message::decode_str(message)).await {
                response.write_to(&mut buffer);
                answered += buffer.len();
            }
        }
        answered
    });
    // The replies' total length, so that nothing is optimised away and a wrong answer shows.
    println!("{answered}");
    ExitCode::SUCCESS
}
