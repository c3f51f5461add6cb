//! `ct-bench-floor`: the floor — a hand-written host with no framework.
//!
//! `ct-bench-floor <cli>` spawns the CLI the way the Python SDK does (same argv), sends `initialize`,
//! then reads one line at a time, parses it once into borrowed views, answers `mcp_message`
//! requests for an in-process `add(a, b)` server named `bench`, and writes each answer with one
//! `write` call. After the `result` and `session_state_changed: idle` it closes the CLI's stdin and
//! exits with the CLI's exit code. One thread, blocking I/O: the least work an honest host can do.

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, ExitCode, Stdio};

use claude_tools_bench::wire::{AddArgs, Envelope, McpMessage};

const INIT_ID: &str = "req_1_f100f100";
const MCP_CONFIG: &str = r#"{"mcpServers": {"bench": {"type": "sdk", "name": "bench"}}}"#;

fn main() -> ExitCode {
    let Some(cli) = std::env::args().nth(1) else {
        eprintln!("usage: ct-bench-floor <path to the CLI>");
        return ExitCode::from(2);
    };
    let mut child = match Command::new(&cli)
        .args([
            "--output-format",
            "stream-json",
            "--verbose",
            "--system-prompt",
            "",
            "--allowedTools",
            "mcp__bench__add",
        ])
        .args(["--mcp-config", MCP_CONFIG, "--input-format", "stream-json"])
        .env("CLAUDE_CODE_ENTRYPOINT", "sdk-floor")
        .env("CLAUDE_CODE_SDK_READS_SESSION_STATE", "1")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
    {
        Ok(child) => child,
        Err(e) => {
            eprintln!("ct-bench-floor: spawning {cli}: {e}");
            return ExitCode::from(2);
        }
    };
    let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
        eprintln!("ct-bench-floor: no pipes");
        return ExitCode::from(2);
    };
    let mut stdin = Some(stdin);
    let mut out: Vec<u8> = Vec::with_capacity(1024);
    let send = |stdin: &mut Option<std::process::ChildStdin>, out: &mut Vec<u8>| {
        out.push(b'\n');
        if let Some(pipe) = stdin.as_mut()
            && pipe.write_all(out).is_err()
        {
            *stdin = None;
        }
        out.clear();
    };
    out.extend_from_slice(br#"{"type":"control_request","request_id":""#);
    out.extend_from_slice(INIT_ID.as_bytes());
    out.extend_from_slice(br#"","request":{"subtype":"initialize","hooks":null}}"#);
    send(&mut stdin, &mut out);

    let mut reader = BufReader::with_capacity(1 << 16, stdout);
    let mut line = Vec::with_capacity(1 << 12);
    let mut got_result = false;
    loop {
        line.clear();
        match reader.read_until(b'\n', &mut line) {
            Ok(0) => break,
            Ok(_) => {}
            Err(e) => {
                eprintln!("ct-bench-floor: reading the CLI's stdout: {e}");
                break;
            }
        }
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        let envelope: Envelope<'_> = match serde_json::from_slice(&line) {
            Ok(envelope) => envelope,
            Err(_) => continue, // not JSON: skipped, as the SDKs do
        };
        match &*envelope.kind {
            "control_request" => {
                let (Some(id), Some(request)) = (envelope.request_id, envelope.request) else {
                    continue;
                };
                out.extend_from_slice(br#"{"type":"control_response","response":{"subtype":"#);
                match (&*request.subtype, request.message) {
                    ("mcp_message", Some(message)) => {
                        out.extend_from_slice(br#""success","request_id":"#);
                        push_str(&mut out, &id);
                        out.extend_from_slice(br#","response":{"mcp_response":"#);
                        answer_mcp(&mut out, request.server_name.as_deref(), &message);
                        out.extend_from_slice(b"}}}");
                    }
                    (subtype, _) => {
                        out.extend_from_slice(br#""error","request_id":"#);
                        push_str(&mut out, &id);
                        out.extend_from_slice(br#","error":"#);
                        push_str(
                            &mut out,
                            &format!("Unsupported control request subtype: {subtype}"),
                        );
                        out.extend_from_slice(b"}}");
                    }
                }
                send(&mut stdin, &mut out);
            }
            "control_response"
                if envelope
                    .response
                    .as_ref()
                    .is_some_and(|r| r.request_id == INIT_ID) =>
            {
                out.extend_from_slice(
                    br#"{"type":"user","session_id":"","message":{"role":"user","content":"go"},"parent_tool_use_id":null}"#,
                );
                send(&mut stdin, &mut out);
            }
            "result" => got_result = true,
            "system"
                if got_result
                    && envelope.subtype.as_deref() == Some("session_state_changed")
                    && envelope.state.as_deref() == Some("idle") =>
            {
                stdin = None; // EOF: the CLI ends
            }
            _ => {}
        }
    }
    drop(stdin);
    match child.wait() {
        Ok(status) if status.success() => ExitCode::SUCCESS,
        Ok(status) => {
            eprintln!("ct-bench-floor: the CLI exited with {status}");
            ExitCode::from(1)
        }
        Err(e) => {
            eprintln!("ct-bench-floor: waiting for the CLI: {e}");
            ExitCode::from(2)
        }
    }
}

fn push_str(out: &mut Vec<u8>, s: &str) {
    if s.bytes().all(|b| b >= 0x20 && b != b'"' && b != b'\\') {
        out.push(b'"');
        out.extend_from_slice(s.as_bytes());
        out.push(b'"');
    } else {
        let _ = serde_json::to_writer(&mut *out, s);
    }
}

/// Writes the JSON-RPC answer to `message` (or the dummy ack of a notification).
fn answer_mcp(out: &mut Vec<u8>, server: Option<&str>, message: &McpMessage<'_>) {
    let method = message.method.as_deref().unwrap_or("");
    let Some(id) = message.id else {
        out.extend_from_slice(br#"{"jsonrpc":"2.0","result":{}}"#);
        return;
    };
    let _ = write!(out, r#"{{"jsonrpc":"2.0","id":{id},"#);
    if server != Some("bench") {
        out.extend_from_slice(br#""error":{"code":-32601,"message":"Server not found"}}"#);
        return;
    }
    match method {
        "tools/call" => {
            let params = message.params.as_ref();
            let args = params.and_then(|p| p.arguments).map(|raw| serde_json::from_str::<AddArgs>(raw.get()));
            match (params.and_then(|p| p.name.as_deref()), args) {
                (Some("add"), Some(Ok(AddArgs { a, b }))) => {
                    let _ = write!(out, r#""result":{{"content":[{{"type":"text","text":"{}"}}],"isError":false}}}}"#, a.wrapping_add(b));
                }
                (Some("add"), _) => out.extend_from_slice(
                    br#""result":{"content":[{"type":"text","text":"Input validation error: a and b must be integers"}],"isError":true}}"#,
                ),
                _ => out.extend_from_slice(br#""result":{"content":[{"type":"text","text":"Tool not found"}],"isError":true}}"#),
            }
        }
        "initialize" => out.extend_from_slice(
            br#""result":{"capabilities":{"tools":{"listChanged":false}},"protocolVersion":"2025-11-25","serverInfo":{"name":"bench","version":"1.0.0"}}}"#,
        ),
        "tools/list" => out.extend_from_slice(
            br#""result":{"tools":[{"name":"add","description":"Add two integers.","inputSchema":{"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"integer"}},"required":["a","b"]},"annotations":{"readOnlyHint":true}}]}}"#,
        ),
        "ping" => out.extend_from_slice(br#""result":{}}"#),
        _ => out.extend_from_slice(br#""error":{"code":-32601,"message":"Method not found"}}"#),
    }
}
