//! A tiny external MCP server speaking stdio, for tests that mix a server the CLI runs itself
//! with in-process ones.
//!
//! The protocol is newline-delimited JSON-RPC 2.0 on stdin/stdout (MCP's stdio transport). It
//! answers `initialize` (echoing the client's protocol version), ignores notifications, and
//! serves `tools/list`, `tools/call` and `ping`; other requests get `-32601`. It offers two
//! tools:
//!
//! | tool | input | result |
//! |---|---|---|
//! | `echo` | `{"text": string}` | the text block `echo: <text>` |
//! | `confirm` | `{"question": string}` | asks the client (`elicitation/create`, a form with a required boolean `approve` and an optional string `note`) and answers `confirm: <action> <content as JSON>` |
//!
//! When the environment variable [`LOG_ENV`] names a file, the arguments of every `tools/call`
//! are appended to it as one JSON line (`{"name": …, "arguments": …}`), so a test can assert what
//! the external tool received. The binary `claude-tools-echo-mcp` runs [`run_stdio`].
//!
//! ```
//! use claude_tools_testkit::stdio_mcp::handle_message;
//! use serde_json::json;
//!
//! let reply = handle_message(&json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
//!     "params": {"name": "echo", "arguments": {"text": "hi"}}}));
//! assert_eq!(reply, Some(json!({"jsonrpc": "2.0", "id": 3,
//!     "result": {"content": [{"type": "text", "text": "echo: hi"}], "isError": false}})));
//! ```

use std::io::{self, BufRead, Write};

use serde_json::{Value, json};

/// The server's name in `serverInfo`.
pub const SERVER_NAME: &str = "echo";
/// The environment variable naming a file where every `tools/call` is logged (one JSON line).
pub const LOG_ENV: &str = "ECHO_MCP_LOG";
/// The protocol versions this server accepts as they are; any other is answered with the first.
pub const PROTOCOL_VERSIONS: &[&str] = &["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"];

/// The `tools` array of `tools/list`.
pub fn tools() -> Value {
    json!([{
        "name": "echo",
        "description": "Echo the text back, prefixed with `echo: `.",
        "inputSchema": {
            "type": "object",
            "properties": {"text": {"type": "string", "description": "The text to echo"}},
            "required": ["text"]
        },
        "annotations": {"readOnlyHint": true}
    }, {
        "name": "confirm",
        "description": "Ask the user to confirm, and report the answer.",
        "inputSchema": {
            "type": "object",
            "properties": {"question": {"type": "string", "description": "What to ask"}},
            "required": ["question"]
        }
    }])
}

/// The form `confirm` asks the client to fill in.
pub fn confirm_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "approve": {"type": "boolean", "description": "Go ahead?"},
            "note": {"type": "string", "description": "Anything to add"}
        },
        "required": ["approve"]
    })
}

/// Answers one JSON-RPC message: `Some(response)` for a request, `None` for a notification
/// (a message without `id`) or a response.
pub fn handle_message(message: &Value) -> Option<Value> {
    let id = message.get("id")?.clone();
    let Some(method) = message.get("method").and_then(Value::as_str) else {
        // A response to something we never sent: nothing to answer.
        return None;
    };
    let params = message.get("params").cloned().unwrap_or(Value::Null);
    let outcome = match method {
        "initialize" => {
            let asked = params.get("protocolVersion").and_then(Value::as_str);
            let version = asked
                .filter(|v| PROTOCOL_VERSIONS.contains(v))
                .unwrap_or(PROTOCOL_VERSIONS[0]);
            Ok(json!({
                "protocolVersion": version,
                "capabilities": {"tools": {"listChanged": false}},
                "serverInfo": {"name": SERVER_NAME, "version": env!("CARGO_PKG_VERSION")}
            }))
        }
        "ping" => Ok(json!({})),
        "tools/list" => Ok(json!({"tools": tools()})),
        "tools/call" => Ok(call_tool(&params)),
        other => Err(json!({"code": -32601, "message": format!("Method not found: {other}")})),
    };
    Some(match outcome {
        Ok(result) => json!({"jsonrpc": "2.0", "id": id, "result": result}),
        Err(error) => json!({"jsonrpc": "2.0", "id": id, "error": error}),
    })
}

fn call_tool(params: &Value) -> Value {
    let name = params.get("name").and_then(Value::as_str).unwrap_or("");
    let arguments = params.get("arguments").cloned().unwrap_or(json!({}));
    log_call(name, &arguments);
    let (text, is_error) = match name {
        "echo" => match arguments.get("text").and_then(Value::as_str) {
            Some(text) => (format!("echo: {text}"), false),
            None => (
                "Invalid arguments for tool `echo`: `text` must be a string".to_string(),
                true,
            ),
        },
        other => (format!("Tool `{other}` not found on server `echo`"), true),
    };
    json!({"content": [{"type": "text", "text": text}], "isError": is_error})
}

fn log_call(name: &str, arguments: &Value) {
    let Some(path) = std::env::var_os(LOG_ENV) else {
        return;
    };
    let line = json!({"name": name, "arguments": arguments}).to_string();
    let written = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&path)
        .and_then(|mut file| writeln!(file, "{line}"));
    if let Err(error) = written {
        eprintln!(
            "echo-mcp: cannot log to {}: {error}",
            path.to_string_lossy()
        );
    }
}

/// Serves messages from `input` until it ends, writing one response line per request to
/// `output`. A line that is not JSON gets a `-32700` parse error with `id: null`. A `confirm`
/// call asks the client first and is answered once the client's answer has come (other
/// messages arriving meanwhile are served as usual).
pub fn serve(input: impl BufRead, mut output: impl Write) -> io::Result<()> {
    let mut lines = input.lines();
    let mut asked = 0u64;
    while let Some(line) = lines.next() {
        let line = line?;
        let Some(message) = read(&line, &mut output)? else {
            continue;
        };
        let is_confirm = message.get("method").and_then(Value::as_str) == Some("tools/call")
            && message["params"]["name"] == "confirm"
            && message.get("id").is_some();
        if !is_confirm {
            if let Some(reply) = handle_message(&message) {
                write_line(&mut output, &reply)?;
            }
            continue;
        }
        asked += 1;
        let question_id = format!("elicit-{asked}");
        let question = message["params"]["arguments"]["question"]
            .as_str()
            .unwrap_or("Confirm?")
            .to_string();
        log_call("confirm", &message["params"]["arguments"]);
        write_line(
            &mut output,
            &json!({"jsonrpc": "2.0", "id": question_id, "method": "elicitation/create",
                "params": {"message": question, "requestedSchema": confirm_schema()}}),
        )?;
        // Serve on until the answer to the question comes.
        let mut answer = None;
        for line in lines.by_ref() {
            let line = line?;
            let Some(other) = read(&line, &mut output)? else {
                continue;
            };
            if other.get("id") == Some(&json!(question_id)) && other.get("method").is_none() {
                answer = Some(other);
                break;
            }
            if let Some(reply) = handle_message(&other) {
                write_line(&mut output, &reply)?;
            }
        }
        let text = match answer {
            Some(answer) if answer.get("result").is_some() => {
                let result = &answer["result"];
                let action = result["action"].as_str().unwrap_or("?");
                match result.get("content") {
                    Some(content) => format!("confirm: {action} {content}"),
                    None => format!("confirm: {action}"),
                }
            }
            Some(answer) => format!("confirm: error {}", answer["error"]),
            None => "confirm: no answer".to_string(),
        };
        write_line(
            &mut output,
            &json!({"jsonrpc": "2.0", "id": message["id"],
                "result": {"content": [{"type": "text", "text": text}], "isError": false}}),
        )?;
    }
    Ok(())
}

/// One line as JSON; a blank line is `None`, a line that is not JSON is answered `-32700`.
fn read(line: &str, output: &mut impl Write) -> io::Result<Option<Value>> {
    if line.trim().is_empty() {
        return Ok(None);
    }
    match serde_json::from_str::<Value>(line) {
        Ok(message) => Ok(Some(message)),
        Err(error) => {
            write_line(
                output,
                &json!({"jsonrpc": "2.0", "id": null,
                    "error": {"code": -32700, "message": format!("Parse error: {error}")}}),
            )?;
            Ok(None)
        }
    }
}

fn write_line(output: &mut impl Write, message: &Value) -> io::Result<()> {
    writeln!(output, "{message}")?;
    output.flush()
}

/// Serves stdin/stdout; returns the process exit code (0 when stdin ended, 1 on an I/O error).
pub fn run_stdio() -> i32 {
    let stdin = io::stdin();
    let stdout = io::stdout();
    match serve(stdin.lock(), stdout.lock()) {
        Ok(()) => 0,
        Err(error) => {
            eprintln!("echo-mcp: {error}");
            1
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_session_over_lines() {
        let input = [
            r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#,
            r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#,
            r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":42}}}"#,
            r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"nope","arguments":{}}}"#,
            r#"{"jsonrpc":"2.0","id":4,"method":"resources/list"}"#,
            "not json",
            "",
        ]
        .join("\n");
        let mut out = Vec::new();
        serve(input.as_bytes(), &mut out).unwrap();
        let replies: Vec<Value> = String::from_utf8(out)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(
            replies,
            vec![
                json!({"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-06-18",
                    "capabilities":{"tools":{"listChanged":false}},
                    "serverInfo":{"name":"echo","version":env!("CARGO_PKG_VERSION")}}}),
                json!({"jsonrpc":"2.0","id":1,"result":{"tools":tools()}}),
                json!({"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text",
                    "text":"Invalid arguments for tool `echo`: `text` must be a string"}],"isError":true}}),
                json!({"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text",
                    "text":"Tool `nope` not found on server `echo`"}],"isError":true}}),
                json!({"jsonrpc":"2.0","id":4,"error":{"code":-32601,"message":"Method not found: resources/list"}}),
                json!({"jsonrpc":"2.0","id":null,"error":{"code":-32700,
                    "message":"Parse error: expected ident at line 1 column 2"}}),
            ]
        );
    }

    #[test]
    fn confirm_asks_the_client_and_reports_its_answer() {
        let input = [
            r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"confirm","arguments":{"question":"Deploy?"}}}"#,
            r#"{"jsonrpc":"2.0","id":8,"method":"ping"}"#,
            r#"{"jsonrpc":"2.0","id":"elicit-1","result":{"action":"accept","content":{"approve":true}}}"#,
        ]
        .join("\n");
        let mut out = Vec::new();
        serve(input.as_bytes(), &mut out).unwrap();
        let replies: Vec<Value> = String::from_utf8(out)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(
            replies,
            vec![
                json!({"jsonrpc":"2.0","id":"elicit-1","method":"elicitation/create",
                    "params":{"message":"Deploy?","requestedSchema":confirm_schema()}}),
                json!({"jsonrpc":"2.0","id":8,"result":{}}),
                json!({"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text",
                    "text":"confirm: accept {\"approve\":true}"}],"isError":false}}),
            ]
        );
    }

    #[test]
    fn unknown_protocol_version_gets_the_latest() {
        let reply = handle_message(&json!({"jsonrpc":"2.0","id":"a","method":"initialize",
            "params":{"protocolVersion":"1999-01-01"}}))
        .unwrap();
        assert_eq!(reply["result"]["protocolVersion"], "2025-11-25");
        assert_eq!(reply["id"], "a");
    }
}
