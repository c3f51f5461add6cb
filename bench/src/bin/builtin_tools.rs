//! `ct-bench-builtin-tools`: what typing costs when reading the CLI's stream, per line of a
//! real session (`claude-tools-runtime/tests/fixtures/cli-2.1.332-builtin-tools.ndjson`, the
//! messages of the real CLI writing, editing, reading, finding, searching and running a
//! command: the end-to-end test `a_permission_callback_reads_typed_inputs_and_rewrites_a_command`
//! recorded it).
//!
//! `ct-bench-builtin-tools <passes> [rounds]` reads every line of the fixture `<passes>` times
//! per round, four ways, and prints the median over `[rounds]` (default 7) of the nanoseconds
//! per line of each:
//!
//! - `value`: the line into a `serde_json::Value`, as untyped code does;
//! - `message`: the line into a `Value`, then a typed `Message` (what the runtime does with
//!   every line);
//! - `message+tools`: that, plus each `tool_use` block's input typed
//!   (`ContentBlock::builtin_tool_input`) and each `tool_use_result` typed
//!   (`UserMessage::builtin_tool_output`);
//! - `tools`: the built-in tool inputs and outputs alone, typed from the `Value`s of the lines
//!   that carry one, per such line.
//!
//! `ct-bench-builtin-tools <passes> <rounds> <way>` runs one of the four ways only: for
//! instruction counts that repeat on a shared machine, run it twice under
//! `valgrind --tool=callgrind` with one round and divide the difference by the difference of
//! `<passes>` times the lines (start-up cancels out), as for `ct-bench-hot-path`.

use std::collections::HashMap;
use std::hint::black_box;
use std::process::ExitCode;
use std::time::Instant;

use claude_tools::Message;
use claude_tools::builtin_tools::{BuiltinToolInput, BuiltinToolOutput};
use claude_tools::message::ContentBlock;
use serde_json::Value;

/// The recorded session, read from the checkout when the bench runs (not built in: the fixture
/// belongs to claude-tools-runtime's tests, outside this crate's package).
const SESSION_PATH: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../claude-tools-runtime/tests/fixtures/cli-2.1.332-builtin-tools.ndjson"
);

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let Some(passes) = args.next().and_then(|n| n.parse::<usize>().ok()) else {
        eprintln!(
            "usage: ct-bench-builtin-tools <passes> [rounds] [value|message|message+tools|tools]"
        );
        return ExitCode::from(2);
    };
    let rounds = match args.next().map(|n| n.parse::<usize>()) {
        None => 7,
        Some(Ok(n)) if n > 0 => n,
        Some(_) => {
            eprintln!("ct-bench-builtin-tools: rounds must be a positive number");
            return ExitCode::from(2);
        }
    };
    const WAYS: [&str; 4] = ["value", "message", "message+tools", "tools"];
    let only = args.next();
    if only.as_deref().is_some_and(|way| !WAYS.contains(&way)) {
        eprintln!("ct-bench-builtin-tools: the way is one of {WAYS:?}");
        return ExitCode::from(2);
    }
    let runs = |way: &str| only.as_deref().is_none_or(|only| only == way);
    let session = match std::fs::read_to_string(SESSION_PATH) {
        Ok(session) => session,
        Err(error) => {
            eprintln!("ct-bench-builtin-tools: cannot read {SESSION_PATH}: {error}");
            return ExitCode::from(1);
        }
    };
    let lines: Vec<&str> = session.lines().filter(|l| !l.trim().is_empty()).collect();
    let tool_names = tool_names(&lines);
    let tool_lines: Vec<&str> = lines
        .iter()
        .copied()
        .filter(|line| line.contains("\"tool_use\"") || line.contains("\"tool_use_result\""))
        .collect();

    let mut results: HashMap<&str, Vec<f64>> = HashMap::new();
    for _ in 0..rounds {
        let time = |lines: &[&str], f: &dyn Fn(&str)| {
            let started = Instant::now();
            for _ in 0..passes {
                for line in lines {
                    f(line);
                }
            }
            started.elapsed().as_nanos() as f64 / (passes * lines.len()) as f64
        };
        if runs("value") {
            results
                .entry("value")
                .or_default()
                .push(time(&lines, &|line| {
                    black_box(serde_json::from_str::<Value>(line).ok());
                }));
        }
        if runs("message") {
            results
                .entry("message")
                .or_default()
                .push(time(&lines, &|line| {
                    black_box(read_message(line));
                }));
        }
        if runs("message+tools") {
            results
                .entry("message+tools")
                .or_default()
                .push(time(&lines, &|line| {
                    if let Some(message) = read_message(line) {
                        type_tools(&message, &tool_names);
                        black_box(message);
                    }
                }));
        }
        if !runs("tools") {
            continue;
        }
        let values: Vec<Value> = tool_lines
            .iter()
            .filter_map(|line| serde_json::from_str(line).ok())
            .collect();
        let started = Instant::now();
        for _ in 0..passes {
            for value in &values {
                type_value_tools(value, &tool_names);
            }
        }
        results
            .entry("tools")
            .or_default()
            .push(started.elapsed().as_nanos() as f64 / (passes * values.len().max(1)) as f64);
    }
    println!(
        "{} lines ({} with a built-in tool's input or output), {passes} passes, median of {rounds} rounds",
        lines.len(),
        tool_lines.len()
    );
    for name in WAYS.into_iter().filter(|way| runs(way)) {
        let mut figures = results.remove(name).unwrap_or_default();
        figures.sort_by(f64::total_cmp);
        let median = figures.get(figures.len() / 2).copied().unwrap_or_default();
        println!("{name:>14}: {median:>9.0} ns per line");
    }
    ExitCode::SUCCESS
}

fn read_message(line: &str) -> Option<Message> {
    serde_json::from_str::<Value>(line)
        .ok()
        .map(Message::from_value)
}

/// The tool of each `tool_use` id, for typing the results that answer them.
fn tool_names(lines: &[&str]) -> HashMap<String, String> {
    let mut names = HashMap::new();
    for line in lines {
        if let Some(Message::Assistant(assistant)) = read_message(line) {
            for block in &assistant.message.content {
                if let ContentBlock::ToolUse { id, name, .. } = block {
                    names.insert(id.clone(), name.clone());
                }
            }
        }
    }
    names
}

fn type_tools(message: &Message, names: &HashMap<String, String>) {
    match message {
        Message::Assistant(assistant) => {
            for block in &assistant.message.content {
                black_box(block.builtin_tool_input());
            }
        }
        Message::User(user) => {
            for (id, _, _) in user.tool_results() {
                if let Some(name) = names.get(id) {
                    black_box(user.builtin_tool_output(name));
                }
            }
        }
        _ => {}
    }
}

fn type_value_tools(value: &Value, names: &HashMap<String, String>) {
    if let Some(blocks) = value["message"]["content"].as_array() {
        for block in blocks {
            match block["type"].as_str() {
                Some("tool_use") => {
                    let name = block["name"].as_str().unwrap_or_default();
                    black_box(BuiltinToolInput::parse(name, &block["input"]).ok());
                }
                Some("tool_result") => {
                    let id = block["tool_use_id"].as_str().unwrap_or_default();
                    if let (Some(name), Some(result)) =
                        (names.get(id), value.get("tool_use_result"))
                    {
                        black_box(BuiltinToolOutput::parse(name, result).ok());
                    }
                }
                _ => {}
            }
        }
    }
}
