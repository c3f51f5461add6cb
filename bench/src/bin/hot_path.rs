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

/// The message of the fake CLI (`bench/src/bin/fake_cli.rs`), byte for byte.
const MESSAGE: &str = r#"{"method":"tools/call","params":{"name":"add","arguments":{"a":12345,"b":67890},"_meta":{"claudecode/toolUseId":"toolu_bench000000000001","progressToken":7}},"jsonrpc":"2.0","id":7}"#;

fn main() -> ExitCode {
    let Some(calls) = std::env::args().nth(1).and_then(|n| n.parse::<u64>().ok()) else {
        eprintln!("usage: ct-bench-hot-path <calls>");
        return ExitCode::from(2);
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
            if let Some(response) = router.handle(Message::decode_str(MESSAGE)).await {
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
