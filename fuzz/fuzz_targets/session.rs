//! The session fed arbitrary line sequences through the in-memory transport, with a server of a
//! few tools, a permission callback and a hook. Well-formed `control_request`s (ids `fz-N`, never
//! repeated) are mixed with cancels of them, keep-alives, messages, answers to nothing and raw
//! bytes. Once the host has nothing more to do, every request must have exactly one answer (at
//! most one if it was withdrawn), every line the host wrote must be JSON, and closing the CLI's
//! end must end the session. The clock is paused, so sleeping tools and callbacks cost nothing.

#![no_main]

use std::collections::{HashMap, HashSet};
use std::time::Duration;

use arbitrary::{Result, Unstructured};
use claude_tools_fuzz::echo::{self, Fuzz};
use claude_tools_fuzz::{MAX_DEPTH, json, object, string};
use claude_tools_runtime::client::Client;
use claude_tools_runtime::hooks::{HookEvent, HookMatcher, HookOutput};
use claude_tools_runtime::options::Options;
use claude_tools_runtime::permission::PermissionDecision;
use claude_tools::tools::{ToolCall, ToolDefBuilder, ToolServer};
use claude_tools_runtime::transport::{MemoryCli, MemoryTransport};
use libfuzzer_sys::fuzz_target;
use serde_json::{Value, json};

/// Longer than anything the host waits for on its own: under the paused clock a wait this long
/// ends only when the host is idle.
const IDLE: Duration = Duration::from_secs(3600);

/// The `echo` tool plus a `nap` tool that sleeps (and stops when cancelled).
fn server() -> ToolServer {
    let mut nap = ToolDefBuilder::new("nap");
    nap.input().property::<u64>("ms", None, true);
    let nap_tool = |mut call: ToolCall| {
        let ms = call
            .take_argument("ms")
            .and_then(|v| v.as_u64())
            .unwrap_or(0);
        let context = call.context().clone();
        async move {
            tokio::select! {
                () = tokio::time::sleep(Duration::from_millis(ms.min(60_000))) => format!("slept {ms}"),
                () = context.cancelled() => "cancelled".to_string(),
            }
        }
    };
    match Fuzz::server().with_tool(nap, nap_tool) {
        Ok(server) => server,
        Err(error) => panic!("the nap tool does not build: {error}"),
    }
}

fn options() -> Options {
    Options::new()
        .mcp_server(server())
        .can_use_tool(|request| async move {
            let ms = request.input["ms"].as_u64().unwrap_or(0);
            tokio::time::sleep(Duration::from_millis(ms.min(60_000))).await;
            match request.input["deny"].as_bool() {
                Some(true) => PermissionDecision::deny("denied"),
                _ => PermissionDecision::allow(),
            }
        })
        .hook(
            HookEvent::PreToolUse,
            HookMatcher::new(".*").callback(|input| async move {
                match input.tool_input().and_then(|i| i["deny"].as_bool()) {
                    Some(true) => HookOutput::new().deny_tool("denied"),
                    _ => HookOutput::new(),
                }
            }),
        )
}

/// What the CLI does next.
enum Step {
    /// Writes a line (with its newline).
    Line(Vec<u8>),
    /// Waits this many milliseconds.
    Pause(u64),
}

/// One line the CLI writes, and the request id it expects an answer to.
fn line(u: &mut Unstructured<'_>, sent: &mut Vec<String>) -> Result<(Vec<u8>, Option<String>)> {
    let next_id = format!("fz-{}", sent.len());
    let request =
        |body: Value| json!({"type": "control_request", "request_id": next_id, "request": body});
    let (frame, expects) = match u.choose_index(12)? {
        0 | 1 => {
            let id = u.int_in_range(0..=3u8)?;
            let call = if u.ratio(1, 2)? {
                json!({"name": "nap", "arguments": {"ms": u.int_in_range(0..=2000u32)?}})
            } else {
                json!({"name": "echo", "arguments": object(u, MAX_DEPTH - 2, &echo::KEYS)?})
            };
            let message =
                json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": call});
            (
                request(
                    json!({"subtype": "mcp_message", "server_name": "fuzz", "message": message}),
                ),
                true,
            )
        }
        2 => {
            let message = json(
                u,
                MAX_DEPTH - 1,
                &["jsonrpc", "id", "method", "params", "name"],
            )?;
            let server = if u.ratio(4, 5)? {
                "fuzz".to_string()
            } else {
                string(u)?
            };
            (
                request(
                    json!({"subtype": "mcp_message", "server_name": server, "message": message}),
                ),
                true,
            )
        }
        3 => {
            let input = json!({"ms": u.int_in_range(0..=2000u32)?, "deny": u.arbitrary::<bool>()?});
            (
                request(
                    json!({"subtype": "can_use_tool", "tool_name": "mcp__fuzz__echo", "input": input,
                "permission_suggestions": [], "tool_use_id": "toolu_1"}),
                ),
                true,
            )
        }
        4 => {
            let callback = if u.ratio(4, 5)? {
                "hook_0".to_string()
            } else {
                string(u)?
            };
            let input = json!({"hook_event_name": "PreToolUse", "tool_name": "mcp__fuzz__echo",
                "tool_input": {"deny": u.arbitrary::<bool>()?}, "tool_use_id": "toolu_2"});
            (
                request(
                    json!({"subtype": "hook_callback", "callback_id": callback, "input": input}),
                ),
                true,
            )
        }
        5 => {
            let mut body = object(
                u,
                MAX_DEPTH - 1,
                &["subtype", "message", "input", "server_name"],
            )?;
            body.insert("subtype".into(), Value::String(string(u)?));
            (request(Value::Object(body)), true)
        }
        6 | 7 if !sent.is_empty() => {
            let target = u.choose(sent)?.clone();
            (
                json!({"type": "control_cancel_request", "request_id": target}),
                false,
            )
        }
        8 => (json!({"type": "keep_alive"}), false),
        9 => {
            // An answer to a request the host never sent.
            let response = json!({"subtype": "success", "request_id": string(u)?, "response": json(u, 2, &[])?});
            (
                json!({"type": "control_response", "response": response}),
                false,
            )
        }
        10 => {
            // Raw bytes: anything but one of this input's request ids (a repeated id is a known,
            // separate defect).
            let len = u.int_in_range(0..=48)?;
            let mut bytes = u.bytes(len)?.to_vec();
            if bytes.windows(3).any(|w| w == b"fz-") {
                bytes.clear();
            }
            // One line (blank ones included: they must not hold an answer back).
            for byte in &mut bytes {
                if *byte == b'\n' {
                    *byte = b'_';
                }
            }
            bytes.push(b'\n');
            return Ok((bytes, None));
        }
        _ => {
            let mut message = object(
                u,
                MAX_DEPTH - 1,
                &["type", "message", "session_id", "subtype"],
            )?;
            if message
                .get("type")
                .and_then(Value::as_str)
                .is_some_and(|t| t.starts_with("control"))
            {
                message.remove("type");
            }
            (Value::Object(message), false)
        }
    };
    let mut bytes = frame.to_string().into_bytes();
    bytes.push(b'\n');
    let expects = expects.then(|| {
        sent.push(next_id.clone());
        next_id
    });
    Ok((bytes, expects))
}

/// Connects a client; the CLI side answers `initialize`.
async fn connect() -> (Client, MemoryCli) {
    let (transport, mut cli) = MemoryTransport::pair();
    let client = tokio::spawn(Client::connect_with(options(), transport));
    let initialize = match tokio::time::timeout(IDLE, cli.next_json()).await {
        Ok(Ok(Some(initialize))) => initialize,
        other => panic!("no initialize from the host: {other:?}"),
    };
    let answer = json!({"type": "control_response", "response": {"subtype": "success",
        "request_id": initialize["request_id"], "response": {}}});
    if let Err(error) = cli.write_json(&answer).await {
        panic!("cannot answer initialize: {error}");
    }
    match tokio::time::timeout(IDLE, client).await {
        Ok(Ok(Ok(client))) => (client, cli),
        other => panic!("the client did not connect: {other:?}"),
    }
}

async fn run(data: &[u8]) {
    let mut u = Unstructured::new(data);
    let mut sent = Vec::new();
    let mut lines = Vec::new();
    let mut cancelled = HashSet::new();
    while !u.is_empty() && lines.len() < 64 {
        if u.ratio(1, 8).unwrap_or(false) {
            // Let the host get on for a while (of the paused clock) before the next line.
            lines.push(Step::Pause(u.int_in_range(0..=3000).unwrap_or(0)));
            continue;
        }
        let Ok((line, _)) = line(&mut u, &mut sent) else {
            break;
        };
        if let Ok(Value::Object(frame)) = serde_json::from_slice::<Value>(&line)
            && frame.get("type").and_then(Value::as_str) == Some("control_cancel_request")
            && let Some(id) = frame.get("request_id").and_then(Value::as_str)
        {
            cancelled.insert(id.to_string());
        }
        lines.push(Step::Line(line));
    }

    let (mut client, mut cli) = connect().await;
    // The client's messages are drained all along, so a full queue never holds the host up.
    let messages = tokio::spawn(async move {
        let mut count = 0usize;
        while client.next_message().await.is_some() {
            count += 1;
        }
        count
    });
    // The pipes hold 8 MiB each way, far more than an input's lines or their answers: writing
    // everything before reading cannot block.
    for step in &lines {
        match step {
            Step::Line(line) => {
                if let Err(error) = cli.write_raw(line).await {
                    panic!("the host stopped reading: {error}");
                }
            }
            Step::Pause(ms) => tokio::time::sleep(Duration::from_millis(*ms)).await,
        }
    }
    let mut answers: HashMap<String, usize> = HashMap::new();
    while let Ok(Ok(Some(line))) = tokio::time::timeout(IDLE, cli.next_line()).await {
        record(&line, &mut answers);
    }
    if std::env::var_os("FUZZ_DEBUG").is_some() {
        for step in &lines {
            match step {
                Step::Line(line) => eprintln!("cli> {:?}", String::from_utf8_lossy(line)),
                Step::Pause(ms) => eprintln!("cli: pause {ms} ms"),
            }
        }
        eprintln!("answers: {answers:?}");
    }
    for id in &sent {
        let count = answers.get(id).copied().unwrap_or(0);
        if cancelled.contains(id) {
            assert!(count <= 1, "{count} answers to the withdrawn {id}");
        } else {
            assert_eq!(count, 1, "answers to {id}");
        }
    }
    for id in answers.keys() {
        assert!(
            sent.contains(id),
            "an answer to {id}, which was never asked"
        );
    }
    // The CLI exits: the session must end.
    cli.close();
    match tokio::time::timeout(IDLE, messages).await {
        Ok(Ok(_)) => {}
        other => panic!("the session did not end with its input: {other:?}"),
    }
}

/// Counts the answer in one line the host wrote (which must be JSON).
fn record(line: &str, answers: &mut HashMap<String, usize>) {
    let value: Value = serde_json::from_str(line)
        .unwrap_or_else(|e| panic!("the host wrote a line that is not JSON ({e}): {line}"));
    if value["type"] == "control_response" {
        let Some(id) = value["response"]["request_id"].as_str() else {
            panic!("an answer without a request id: {line}");
        };
        *answers.entry(id.to_string()).or_default() += 1;
    }
}

fuzz_target!(|data: &[u8]| {
    let Some(runtime) = claude_tools_fuzz::runtime(true) else {
        return;
    };
    runtime.block_on(run(data));
});
