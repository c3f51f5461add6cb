//! Back-pressure and misbehaving tools (issue 10): an application that does not read its
//! messages, a CLI that does not read its stdin, and a tool that blocks its thread must neither
//! grow memory without bound nor stall the session, and nothing may be lost or reordered.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use claude_tools_core::tool::{ToolCall, ToolDefBuilder, ToolServer};
use claude_tools_runtime::Error;
use claude_tools_runtime::message::Message;
use claude_tools_runtime::options::Options;
use serde_json::{Value, json};

mod common;

use common::{WAIT, connect_answering_initialize};

/// What each pipe of the in-memory transport holds before its writer waits.
const PIPE_CAPACITY: usize = 8 * 1024 * 1024;

/// A server whose tools count their calls: `count` answers its call's number, `blob` a text of
/// `blob_size` bytes, `block` blocks its thread for 3 s before answering.
fn server(calls: Arc<AtomicUsize>, blob_size: usize) -> ToolServer {
    let count_calls = calls.clone();
    let blob_calls = calls;
    ToolServer::new("t", "1.0.0")
        .with_tool(ToolDefBuilder::new("count"), move |_call: ToolCall| {
            let n = count_calls.fetch_add(1, Ordering::SeqCst) + 1;
            async move { n.to_string() }
        })
        .unwrap()
        .with_tool(ToolDefBuilder::new("blob"), move |_call: ToolCall| {
            blob_calls.fetch_add(1, Ordering::SeqCst);
            async move { "b".repeat(blob_size) }
        })
        .unwrap()
        .with_tool(ToolDefBuilder::new("block"), |_call: ToolCall| async {
            // Blocks the thread in the first poll, the worst a tool can do.
            std::thread::sleep(Duration::from_secs(3));
            "unblocked".to_string()
        })
        .unwrap()
        .with_tool(ToolDefBuilder::new("quick"), |_call: ToolCall| async {
            "quick".to_string()
        })
        .unwrap()
}

fn call(request_id: &str, tool: &str) -> Value {
    json!({"type": "control_request", "request_id": request_id, "request": {"subtype": "mcp_message",
        "server_name": "t", "message": {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": tool, "arguments": {}}}}})
}

/// The answer's request id and the text of its tool result.
fn answer_text(answer: &Value) -> (String, String) {
    let response = &answer["response"];
    assert_eq!(response["subtype"], "success", "answer {answer}");
    let text = response["response"]["mcp_response"]["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("no text in {answer}"));
    (
        response["request_id"].as_str().unwrap().to_string(),
        text.to_string(),
    )
}

/// Waits until `calls` has not moved for 300 ms (the reader has stopped), and returns it.
async fn settled(calls: &AtomicUsize) -> usize {
    let deadline = tokio::time::Instant::now() + WAIT;
    let mut last = calls.load(Ordering::SeqCst);
    loop {
        tokio::time::sleep(Duration::from_millis(300)).await;
        let now = calls.load(Ordering::SeqCst);
        if now == last {
            return now;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "calls never settled"
        );
        last = now;
    }
}

#[tokio::test]
async fn an_application_that_does_not_read_pauses_the_reader_at_the_queue_bound() {
    const LIMIT: usize = 8;
    const LINES: usize = 200;
    let calls = Arc::new(AtomicUsize::new(0));
    let options = Options::new()
        .mcp_server(server(calls.clone(), 0))
        .message_queue_limit(LIMIT)
        .control_timeout(Duration::from_millis(300));
    let (mut client, mut cli) = connect_answering_initialize(options).await;
    // Each message is followed by a tool call: the calls made tell how far the reader read.
    for seq in 0..LINES {
        cli.send(json!({"type": "x_note", "seq": seq})).await;
        cli.send(call(&format!("c{seq}"), "count")).await;
    }
    // The queue holds LIMIT messages and one more waits in the reader, which reads no further:
    // the call after that message is not read.
    assert_eq!(settled(&calls).await, LIMIT);
    // A host request meanwhile times out (its answer is not read) instead of hanging.
    let interrupted = client.interrupt().await;
    assert!(
        matches!(interrupted, Err(Error::Timeout { ref subtype, .. }) if subtype == "interrupt"),
        "{interrupted:?}"
    );
    // Reading again delivers everything, in order, and the reader goes on.
    for seq in 0..LINES {
        match tokio::time::timeout(WAIT, client.next_message()).await {
            Ok(Some(Ok(Message::Other(value)))) => assert_eq!(value["seq"], seq),
            other => panic!("message {seq}: {other:?}"),
        }
    }
    let mut answers = Vec::new();
    while answers.len() < LINES {
        let line = cli.recv().await;
        if line["type"] == "control_response" {
            answers.push(answer_text(&line));
        }
    }
    let expected: Vec<(String, String)> = (0..LINES)
        .map(|i| (format!("c{i}"), (i + 1).to_string()))
        .collect();
    assert_eq!(answers, expected, "every call answered once, in order");
    assert_eq!(calls.load(Ordering::SeqCst), LINES);
}

#[tokio::test]
async fn a_cli_that_does_not_read_its_stdin_pauses_the_reader_at_the_buffer_bound() {
    const LIMIT: usize = 256 * 1024;
    const BLOB: usize = 1024 * 1024;
    const CALLS: usize = 16;
    let calls = Arc::new(AtomicUsize::new(0));
    let options = Options::new()
        .mcp_server(server(calls.clone(), BLOB))
        .input_buffer_limit(LIMIT);
    let (_client, mut cli) = connect_answering_initialize(options).await;
    for i in 0..CALLS {
        cli.send(call(&format!("b{i}"), "blob")).await;
        eprintln!("CLI wrote {i}");
    }
    // The pipe takes what fits; past that the outbox keeps at most one answer beyond the limit
    // before the reader stops reading calls. So the calls made, answers of 1 MiB each, fit in
    // the pipe plus the limit plus one answer (each answer a little over BLOB bytes).
    let made = settled(&calls).await;
    assert!(
        made * BLOB <= PIPE_CAPACITY + LIMIT + BLOB,
        "{made} answers of 1 MiB held for a CLI that does not read"
    );
    assert!(made < CALLS);
    // The CLI reads again: every answer arrives whole, in order.
    for i in 0..CALLS {
        let (request_id, text) = answer_text(&cli.recv().await);
        assert_eq!(request_id, format!("b{i}"));
        assert!(text.len() == BLOB && text.bytes().all(|b| b == b'b'));
    }
    assert_eq!(calls.load(Ordering::SeqCst), CALLS);
}

#[tokio::test]
async fn an_answer_larger_than_the_buffer_bound_is_still_written_whole() {
    const BLOB: usize = 3 * 1024 * 1024;
    let calls = Arc::new(AtomicUsize::new(0));
    let options = Options::new()
        .mcp_server(server(calls.clone(), BLOB))
        .input_buffer_limit(1024);
    let (_client, mut cli) = connect_answering_initialize(options).await;
    cli.send(call("big", "blob")).await;
    cli.send(call("after", "quick")).await;
    let (request_id, text) = answer_text(&cli.recv().await);
    assert_eq!(request_id, "big");
    assert!(text.len() == BLOB && text.bytes().all(|b| b == b'b'));
    assert_eq!(
        answer_text(&cli.recv().await),
        ("after".into(), "quick".into())
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tool_that_blocks_its_thread_does_not_stall_other_calls() {
    // Everything runs as a task on one of the two workers: the test's own thread, which the
    // runtime does not count, would be a third thread to read on. (`tests/blocking_handlers.rs`
    // in the workspace's tests covers every kind of handler, and a child process.)
    let scenario = async {
        let calls = Arc::new(AtomicUsize::new(0));
        let (_client, mut cli) =
            connect_answering_initialize(Options::new().mcp_server(server(calls, 0))).await;
        // A session idle for a while, as between two turns of the model.
        tokio::time::sleep(Duration::from_millis(200)).await;
        cli.send(call("slow", "block")).await;
        // Let the blocking call start before the quick one is even written.
        tokio::time::sleep(Duration::from_millis(50)).await;
        cli.send(call("fast", "quick")).await;
        // Answered while the first call still blocks its thread (for 3 s).
        assert_eq!(
            answer_text(&cli.recv().await),
            ("fast".into(), "quick".into())
        );
        assert_eq!(
            answer_text(&cli.recv().await),
            ("slow".into(), "unblocked".into())
        );
    };
    tokio::spawn(scenario)
        .await
        .expect("the quick call was answered first");
}

#[tokio::test]
async fn the_hosts_own_writes_wait_at_the_buffer_bound_and_all_arrive() {
    const LIMIT: usize = 1024;
    const PROMPT: usize = 1024 * 1024;
    const PROMPTS: usize = 16;
    let options = Options::new().input_buffer_limit(LIMIT);
    let (mut client, mut cli) = connect_answering_initialize(options).await;
    let sent = Arc::new(AtomicUsize::new(0));
    let sending = {
        let sent = sent.clone();
        tokio::spawn(async move {
            for i in 0..PROMPTS {
                let text = format!("{i:02}{}", "p".repeat(PROMPT));
                client
                    .send(claude_tools_runtime::message::UserInput::text(text))
                    .await
                    .expect("the prompt is written");
                sent.fetch_add(1, Ordering::SeqCst);
            }
            client
        })
    };
    // The CLI reads nothing: the pipe takes what fits, the outbox at most one prompt past the
    // limit, and further prompts wait instead of piling up in memory.
    let written = settled(&sent).await;
    assert!(
        written * PROMPT <= PIPE_CAPACITY + LIMIT + PROMPT,
        "{written} prompts of 1 MiB held for a CLI that does not read"
    );
    assert!(written < PROMPTS);
    // The CLI reads again: every prompt arrives whole, in order.
    for i in 0..PROMPTS {
        let line = cli.recv().await;
        let text = line["message"]["content"]
            .as_str()
            .or_else(|| line["message"]["content"][0]["text"].as_str())
            .unwrap_or_default()
            .to_string();
        assert!(
            text.starts_with(&format!("{i:02}")),
            "prompt {i} out of order"
        );
        assert_eq!(text.len(), PROMPT + 2);
    }
    let _client = tokio::time::timeout(WAIT, sending)
        .await
        .expect("every send returns once the CLI reads")
        .expect("the sending task");
}
