//! The runtime against the `fake-claude` binary: a real child process, real pipes, and a script
//! that checks every line the host writes (a mismatch makes the fake exit 3 with a diagnostic).

use std::time::Duration;

use claude_tools::prelude::*;
use claude_tools::{Error, Message, query};
use claude_tools_testkit::fake_cli::canned;
use serde_json::json;

mod common;

use common::Fake;

#[tool_server(name = "calc", version = "1.0.0")]
struct Calc;

/// Add two integers.
#[tool(server = Calc, read_only)]
async fn add(a: i64, b: i64) -> i64 {
    a + b
}

/// Sleep for a while.
#[tool(server = Calc)]
async fn nap(ms: u64) -> String {
    tokio::time::sleep(Duration::from_millis(ms)).await;
    format!("slept {ms} ms")
}

async fn drain(mut stream: claude_tools::MessageStream) -> Vec<Message> {
    let mut messages = Vec::new();
    let collect = async {
        while let Some(message) = stream.next().await {
            messages.push(message.expect("no error items"));
        }
    };
    tokio::time::timeout(Duration::from_secs(30), collect)
        .await
        .expect("the session ended");
    messages
}

#[tokio::test]
async fn a_one_shot_query_plays_the_observed_session() {
    let fake = Fake::new(canned::one_tool_session(
        "calc",
        "add",
        json!({"a": 2, "b": 3}),
        json!("add 2 and 3"),
        "It is 5.",
    ));
    let options = fake
        .options()
        .mcp_server(Calc::server())
        .allowed_tools(["mcp__calc__add"]);
    let messages = drain(query("add 2 and 3", options).await.unwrap()).await;
    let kinds: Vec<&str> = messages
        .iter()
        .map(|m| match m {
            Message::System(_) => "system",
            Message::Assistant(_) => "assistant",
            Message::User(_) => "user",
            Message::Result(_) => "result",
            _ => "other",
        })
        .collect();
    assert_eq!(
        kinds,
        ["system", "assistant", "user", "assistant", "result"]
    );

    let transcript = fake.transcript();
    assert_eq!(
        transcript.arg_value("--mcp-config"),
        Some(r#"{"mcpServers":{"calc":{"type":"sdk","name":"calc"}}}"#)
    );
    assert_eq!(
        transcript
            .env
            .get("CLAUDE_CODE_ENTRYPOINT")
            .map(String::as_str),
        Some("sdk-cli")
    );
    assert_eq!(
        transcript
            .env
            .get("CLAUDE_CODE_SDK_READS_SESSION_STATE")
            .map(String::as_str),
        Some("1")
    );
    let lines = transcript.json_lines().unwrap();
    let tool_answer = lines
        .iter()
        .find(|line| line["response"]["response"]["mcp_response"]["id"] == 2)
        .expect("the tools/call answer");
    assert_eq!(
        tool_answer["response"]["response"]["mcp_response"],
        json!({"jsonrpc": "2.0", "id": 2, "result": {"content": [{"type": "text", "text": "5"}], "isError": false}})
    );
}

#[tokio::test]
async fn stdin_stays_open_for_a_tool_call_two_seconds_after_the_prompt() {
    let script = canned::initialize()
        .then(canned::expect_user_message(json!("take a nap")))
        .then(canned::mcp_handshake("calc"))
        .then(canned::session_state_changed("running"))
        .sleep(Duration::from_secs(2))
        .then(canned::tools_call_expecting(
            "calc",
            json!(2),
            "nap",
            json!({"ms": 10}),
            "toolu_late",
            json!({"content": [{"type": "text", "text": "slept 10 ms"}], "isError": false}),
        ))
        .then(canned::result("rested"))
        .then(canned::session_state_changed("idle"))
        .expect_eof(Duration::from_secs(10));
    let fake = Fake::new(script);
    let messages = drain(
        query("take a nap", fake.options().mcp_server(Calc::server()))
            .await
            .unwrap(),
    )
    .await;
    assert!(
        matches!(messages.last(), Some(Message::Result(_))),
        "{messages:?}"
    );
}

#[tokio::test]
async fn a_cli_exiting_mid_call_is_a_typed_error_with_its_stderr() {
    let script = canned::initialize()
        .then(canned::expect_user_message(json!("go")))
        .let_var("mcp_rid", json!("$uuid"))
        .send(canned::mcp_request(
            "calc",
            json!({"method": "tools/call", "jsonrpc": "2.0", "id": 2,
            "params": {"name": "nap", "arguments": {"ms": 60000}}}),
        ))
        .sleep(Duration::from_millis(100))
        .exit_with_stderr(9, "fatal: the model server went away");
    let fake = Fake::new(script);
    let mut stream = query("go", fake.options().mcp_server(Calc::server()))
        .await
        .unwrap();
    let item = tokio::time::timeout(Duration::from_secs(20), stream.next())
        .await
        .expect("no hang");
    match item {
        Some(Err(Error::ProcessExited {
            code, stderr_tail, ..
        })) => {
            assert_eq!(code, Some(9));
            assert!(
                stderr_tail.contains("the model server went away"),
                "{stderr_tail}"
            );
        }
        other => panic!("expected ProcessExited, got {other:?}"),
    }
    assert!(stream.next().await.is_none());
}

#[tokio::test]
async fn an_oversized_line_is_reported_and_the_session_continues() {
    let script = canned::initialize()
        .then(canned::expect_user_message(json!("big")))
        .send_oversized(2 * 1024 * 1024)
        .then(canned::result("after the big line"))
        .expect_eof(Duration::from_secs(10));
    let fake = Fake::new(script);
    let mut stream = query("big", fake.options().max_line_size(1024 * 1024))
        .await
        .unwrap();
    match stream.next().await {
        Some(Err(Error::LineTooLong { limit, .. })) => assert_eq!(limit, 1024 * 1024),
        other => panic!("expected LineTooLong, got {other:?}"),
    }
    assert!(matches!(stream.next().await, Some(Ok(Message::Result(_)))));
    assert!(stream.next().await.is_none());
}

#[tokio::test]
async fn the_stderr_callback_sees_every_line_the_cli_writes() {
    let script = canned::initialize()
        .then(canned::expect_user_message(json!("hi")))
        .exit_with_stderr(0, "warning: one\nwarning: two");
    let fake = Fake::new(script);
    let lines = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let seen = lines.clone();
    let options = fake
        .options()
        .stderr(move |line| seen.lock().unwrap().push(line.to_string()));
    let mut stream = query("hi", options).await.unwrap();
    while stream.next().await.is_some() {}
    assert_eq!(*lines.lock().unwrap(), ["warning: one", "warning: two"]);
}

#[tokio::test]
async fn a_json_rpc_id_a_float_cannot_hold_is_answered_as_written() {
    const BIG: &str = "123456789012345678901234567890";
    let call = |request_id: &str, id: &str| {
        format!(
            r#"{{"type":"control_request","request_id":"{request_id}","request":{{"subtype":"mcp_message","server_name":"calc","message":{{"method":"tools/call","params":{{"name":"add","arguments":{{"a":2,"b":3}}}},"jsonrpc":"2.0","id":{id}}}}}}}"#
        )
    };
    // A huge integer is answered, its id as it came (an id past a float's range, `1e400`, is
    // too: see `faults_lines` and the agreement suite; this fake reads lines with serde_json,
    // which refuses such a number, where the CLI's JavaScript reads it).
    let script = canned::initialize()
        .send_raw(call("huge", BIG))
        .expect(
            json!({"type": "control_response", "response": {"subtype": "success",
            "request_id": "huge", "response": {"mcp_response": {"result":
                {"content": [{"type": "text", "text": "5"}], "isError": false}}}}}),
        )
        .send(json!({"type": "x_done"}))
        .expect_eof(Duration::from_secs(20));
    let fake = Fake::new(script);
    let mut client = Client::connect(fake.options().mcp_server(Calc::server()))
        .await
        .unwrap();
    loop {
        match tokio::time::timeout(Duration::from_secs(30), client.next_message()).await {
            Ok(Some(Ok(Message::Other(value)))) if value["type"] == "x_done" => break,
            Ok(Some(Ok(_))) => {}
            other => panic!("{other:?}"),
        }
    }
    let exit = client.disconnect().await.unwrap();
    assert_eq!(exit.code, Some(0), "{}", exit.stderr_tail);
    let transcript = fake.transcript();
    let answer = transcript
        .lines
        .iter()
        .find(|line| line.contains(r#""request_id":"huge""#))
        .expect("the huge id's answer");
    assert!(answer.contains(&format!(r#""id":{BIG},"#)), "{answer}");
}
