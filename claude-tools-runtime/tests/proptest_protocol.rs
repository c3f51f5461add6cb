//! Property tests of the wire round-trips: framing over any chunking, the envelope parser's ids,
//! and the answer writers carrying any JSON value and any string intact.

mod common;

use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};

use claude_tools_core::ndjson::LineReader;
use claude_tools_core::tool::{ToolCall, ToolDefBuilder, ToolServer};
use claude_tools_runtime::__fuzz::{Classified, classify};
use claude_tools_runtime::client::Client;
use claude_tools_runtime::hooks::{HookEvent, HookMatcher, HookOutput};
use claude_tools_runtime::options::Options;
use claude_tools_runtime::permission::PermissionDecision;
use common::{Cli, Connecting, string_argument};
use proptest::collection::{btree_map, vec};
use proptest::prelude::*;
use serde_json::{Number, Value, json};
use tokio::io::{AsyncRead, ReadBuf};

/// Any JSON value, up to four levels deep.
fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        any::<f64>().prop_filter_map("finite", |f| Number::from_f64(f).map(Value::Number)),
        any::<String>().prop_map(Value::String),
    ];
    leaf.prop_recursive(4, 48, 6, |inner| {
        prop_oneof![
            vec(inner.clone(), 0..6).prop_map(Value::Array),
            btree_map(any::<String>(), inner, 0..6)
                .prop_map(|members| Value::Object(members.into_iter().collect())),
        ]
    })
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime")
}

/// Hands out its input in chunks of the given sizes, in turn.
struct Chunked {
    data: Vec<u8>,
    sizes: Vec<usize>,
    call: usize,
}

impl AsyncRead for Chunked {
    fn poll_read(
        mut self: Pin<&mut Self>,
        _cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let size = self.sizes[self.call % self.sizes.len()];
        self.call += 1;
        let n = size.min(buf.remaining()).min(self.data.len());
        let rest = self.data.split_off(n);
        buf.put_slice(&self.data);
        self.data = rest;
        Poll::Ready(Ok(()))
    }
}

/// A line without a newline; `\r`, blanks and multi-byte characters included.
fn line() -> impl Strategy<Value = String> {
    prop_oneof![
        "[ \t\r]{0,3}",
        "[^\n]{0,40}",
        "\\{\"[a-z]{1,5}\":[0-9]{1,4}\\}\r?",
    ]
}

proptest! {
    // Fewer cases than the default 256 for the JSON-heavy properties, to stay quick in debug.
    #![proptest_config(ProptestConfig::with_cases(128))]

    /// A float from the CLI (a tool argument, a permission input) reaches the host exactly: the
    /// workspace enables serde_json's `float_roundtrip`, without which some extreme exponents
    /// (`-2.7098864447919282e-281`, found by the fuzzer) were read one ULP off.
    #[test]
    fn every_finite_float_reads_back_exactly(f in any::<f64>().prop_filter("finite", |f| f.is_finite())) {
        let text = serde_json::to_string(&f).expect("a finite float serialises");
        prop_assert_eq!(serde_json::from_str::<f64>(&text).ok(), Some(f), "{}", text);
    }

    #[test]
    fn line_reader_returns_the_non_blank_lines_over_any_chunking(
        lines in vec(line(), 0..12),
        sizes in vec(1usize..40, 1..8),
        final_newline in any::<bool>(),
    ) {
        let mut data = lines.join("\n");
        if final_newline {
            data.push('\n');
        }
        let expected: Vec<&str> = lines
            .iter()
            .map(|line| line.strip_suffix('\r').unwrap_or(line))
            .filter(|line| !line.bytes().all(|b| b.is_ascii_whitespace()))
            .collect();
        let got = runtime().block_on(async {
            let mut reader = LineReader::new(Chunked { data: data.into_bytes(), sizes, call: 0 });
            let mut got = Vec::new();
            while let Some(line) = reader.next_line().await.expect("no I/O error") {
                got.push(String::from_utf8(line.to_vec()).expect("lines of UTF-8"));
            }
            got
        });
        prop_assert_eq!(got, expected);
    }

    #[test]
    fn a_control_request_is_classified_with_its_id(
        request_id in any::<String>(),
        subtype in prop_oneof![Just("mcp_message".to_string()), Just("can_use_tool".to_string()), any::<String>()],
        message in proptest::option::of(json_value()),
        mut fields in btree_map("[a-z_]{1,12}", json_value(), 0..4),
    ) {
        fields.remove("message");
        let mut request: serde_json::Map<String, Value> = fields.into_iter().collect();
        request.insert("subtype".into(), subtype.clone().into());
        if let Some(message) = &message {
            request.insert("message".into(), message.clone());
        }
        let line = json!({"type": "control_request", "request_id": request_id, "request": request});
        let mcp = subtype == "mcp_message" && message.is_some();
        prop_assert_eq!(
            classify(line.to_string().as_bytes()),
            Ok(Classified::Request { request_id: request_id.clone(), mcp })
        );
        let cancel = json!({"type": "control_cancel_request", "request_id": request_id});
        prop_assert_eq!(
            classify(cancel.to_string().as_bytes()),
            Ok(Classified::Cancel { request_id: request_id.clone() })
        );
        let response = json!({"type": "control_response",
            "response": {"subtype": "success", "request_id": request_id, "response": message}});
        prop_assert_eq!(
            classify(response.to_string().as_bytes()),
            Ok(Classified::Response { request_id })
        );
    }
}

/// A tool that answers with the text it was given.
fn echo_server() -> ToolServer {
    let mut say = ToolDefBuilder::new("say");
    say.input().property::<String>("text", None, true);
    ToolServer::new("prop", "1.0.0")
        .with_tool(say, |mut call: ToolCall| {
            let text = string_argument(&mut call, "text");
            async move { text }
        })
        .expect("the tool builds")
}

/// A connected client whose permission callback allows with the model's input unchanged, with
/// one hook (`hook_0`) and the `say` tool.
async fn connect() -> (Client, Cli) {
    let options = Options::new()
        .mcp_server(echo_server())
        .can_use_tool(|_request| async move { PermissionDecision::allow() })
        .hook(
            HookEvent::PreToolUse,
            HookMatcher::new(".*").callback(|_input| async move { HookOutput::new() }),
        );
    let (connecting, mut cli) = Connecting::start(options);
    let initialize = cli.recv().await;
    cli.answer(&initialize, json!({})).await;
    (connecting.client().await, cli)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]

    /// What the answer writers put on the wire reads back as what went in: any request id, any
    /// JSON payload (a permission answer echoes the request's `input`), any error message and
    /// any tool text.
    #[test]
    fn answers_carry_ids_payloads_and_text_intact(
        cases in vec((any::<String>(), json_value(), any::<String>(), any::<String>()), 1..6),
    ) {
        runtime().block_on(async {
            let (_client, mut cli) = connect().await;
            for (request_id, input, callback, text) in &cases {
                cli.send(json!({"type": "control_request", "request_id": request_id,
                    "request": {"subtype": "can_use_tool", "tool_name": "Bash", "input": input,
                        "permission_suggestions": []}}))
                    .await;
                let answer = cli.recv().await;
                assert_eq!(
                    answer,
                    json!({"type": "control_response", "response": {"subtype": "success",
                        "request_id": request_id,
                        "response": {"behavior": "allow", "updatedInput": input}}})
                );

                let hook_id = format!("{callback}x");
                cli.send(json!({"type": "control_request", "request_id": request_id,
                    "request": {"subtype": "hook_callback", "callback_id": hook_id, "input": {}}}))
                    .await;
                assert_eq!(
                    cli.recv().await,
                    json!({"type": "control_response", "response": {"subtype": "error",
                        "request_id": request_id,
                        "error": format!("No hook callback found for ID: {hook_id}")}})
                );

                cli.send(json!({"type": "control_request", "request_id": request_id,
                    "request": {"subtype": "mcp_message", "server_name": "prop", "message":
                        {"jsonrpc": "2.0", "id": request_id, "method": "tools/call",
                         "params": {"name": "say", "arguments": {"text": text}}}}}))
                    .await;
                assert_eq!(
                    cli.recv().await,
                    json!({"type": "control_response", "response": {"subtype": "success",
                        "request_id": request_id, "response": {"mcp_response":
                            {"jsonrpc": "2.0", "id": request_id, "result":
                                {"content": [{"type": "text", "text": text}], "isError": false}}}}})
                );
            }
        });
    }
}

/// The float the fuzzer found read one ULP off without serde_json's `float_roundtrip`.
#[test]
fn the_fuzzers_float_reads_back_exactly() {
    let found = -2.709_886_444_791_928_2e-281_f64;
    let text = serde_json::to_string(&found).expect("a finite float serialises");
    assert_eq!(
        serde_json::from_str::<f64>(&text).ok(),
        Some(found),
        "{text}"
    );
    let through_value: Value = serde_json::from_str(&format!("{{\"x\":{text}}}")).expect("JSON");
    assert_eq!(through_value["x"].as_f64(), Some(found));
}
