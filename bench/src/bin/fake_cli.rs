//! `ct-bench-fake-cli`: a fast stand-in for the Claude Code CLI that measures the host.
//!
//! It answers `--version`; reads the SDK server name from `--mcp-config` (or from the host's
//! `initialize`, where the TypeScript SDK announces it); answers the host's `initialize`; runs the
//! MCP handshake over `mcp_message` (initialize → `notifications/initialized` → `tools/list`); on the
//! user message runs N sequential `tools/call` round trips of `add(a, b)` and N more with K in
//! flight (or `$CT_BENCH_CONC_ROUNDS` rounds of `$CT_BENCH_CONC_N`), checking every answer
//! (control `request_id`, JSON-RPC id, `isError`, the sum); writes [`RunStats`] as JSON to
//! `$CT_BENCH_STATS`; emits a `result` and `session_state_changed: idle`; and exits at stdin EOF.
//! Anything unexpected ends it with exit code 2 and a message on stderr.

use std::io::{self, BufRead, BufReader, BufWriter, Write};
use std::process::exit;
use std::time::Instant;

use claude_tools_bench::env;
use claude_tools_bench::procfs::{self, cpu_ns, mono_ns, rss_kib};
use claude_tools_bench::stats::{ConcRound, Phase, RunStats};
use claude_tools_bench::wire::{self, ControlResponse, Envelope};

fn fail(message: impl std::fmt::Display) -> ! {
    eprintln!("ct-bench-fake-cli: {message}");
    exit(2)
}

fn env_u64(name: &str, default: u64) -> u64 {
    match std::env::var(name) {
        Ok(v) if !v.is_empty() => v
            .parse()
            .unwrap_or_else(|_| fail(format!("{name}={v} is not a number"))),
        _ => default,
    }
}

/// Indices of the handshake requests (outside any call index).
const IDX_MCP_INIT: u64 = 0xffff_0000_0000;
const IDX_MCP_INITIALIZED: u64 = 0xffff_0000_0001;
const IDX_TOOLS_LIST: u64 = 0xffff_0000_0002;

struct Io {
    reader: BufReader<io::StdinLock<'static>>,
    writer: BufWriter<io::StdoutLock<'static>>,
    out: Vec<u8>,
    seed: u64,
    server_json: String,
    got_user: bool,
    session_id: String,
}

impl Io {
    fn flush_out(&mut self) {
        self.out.push(b'\n');
        if self
            .writer
            .write_all(&self.out)
            .and_then(|()| self.writer.flush())
            .is_err()
        {
            fail("stdout closed (host gone?)");
        }
        self.out.clear();
    }

    fn write_value(&mut self, value: &serde_json::Value) {
        serde_json::to_writer(&mut self.out, value).unwrap_or_else(|e| fail(e));
        self.flush_out();
    }

    /// Writes an `mcp_message` control request carrying `message` (JSON text).
    fn send_mcp(&mut self, index: u64, message: &str) {
        self.out
            .extend_from_slice(br#"{"type":"control_request","request_id":""#);
        wire::write_request_id(&mut self.out, self.seed, index);
        self.out
            .extend_from_slice(br#"","request":{"subtype":"mcp_message","server_name":"#);
        self.out.extend_from_slice(self.server_json.as_bytes());
        self.out.extend_from_slice(br#","message":"#);
        self.out.extend_from_slice(message.as_bytes());
        self.out.extend_from_slice(b"}}");
        self.flush_out();
    }

    /// Writes the `tools/call` of call `index` (JSON-RPC id `index + 2`) without flushing.
    fn push_call(&mut self, index: u64, a: i64, b: i64) {
        self.out
            .extend_from_slice(br#"{"type":"control_request","request_id":""#);
        wire::write_request_id(&mut self.out, self.seed, index);
        self.out
            .extend_from_slice(br#"","request":{"subtype":"mcp_message","server_name":"#);
        self.out.extend_from_slice(self.server_json.as_bytes());
        let id = index + 2;
        let _ = write!(
            self.out,
            r#","message":{{"method":"tools/call","params":{{"name":"add","arguments":{{"a":{a},"b":{b}}},"_meta":{{"claudecode/toolUseId":"toolu_bench{index:012x}","progressToken":{id}}}}},"jsonrpc":"2.0","id":{id}}}}}}}"#
        );
        self.out.push(b'\n');
        if self.writer.write_all(&self.out).is_err() {
            fail("stdout closed (host gone?)");
        }
        self.out.clear();
    }

    fn flush(&mut self) {
        if self.writer.flush().is_err() {
            fail("stdout closed (host gone?)");
        }
    }

    /// Answers a control request the host sent us with an empty success.
    fn ack(&mut self, request_id: &str) {
        self.out.extend_from_slice(
            br#"{"type":"control_response","response":{"subtype":"success","request_id":"#,
        );
        serde_json::to_writer(&mut self.out, request_id).unwrap_or_else(|e| fail(e));
        self.out.extend_from_slice(br#","response":{}}}"#);
        self.flush_out();
    }

    /// Reads one line into `line`; false at EOF.
    fn read_line(&mut self, line: &mut Vec<u8>) -> bool {
        line.clear();
        match self.reader.read_until(b'\n', line) {
            Ok(0) => false,
            Ok(_) => true,
            Err(e) => fail(format!("reading stdin: {e}")),
        }
    }

    /// Reads lines until a `control_response` and hands it to `f`. Control requests from the host are
    /// acknowledged, a user message is noted, anything else is skipped.
    fn next_response<R>(
        &mut self,
        line: &mut Vec<u8>,
        waiting_for: &str,
        f: impl FnOnce(&mut Io, ControlResponse<'_>) -> R,
    ) -> R {
        loop {
            if !self.read_line(line) {
                fail(format!("stdin closed while waiting for {waiting_for}"));
            }
            let text = trim(line);
            if text.is_empty() {
                continue;
            }
            let envelope: Envelope<'_> = serde_json::from_slice(text).unwrap_or_else(|e| {
                fail(format!(
                    "unparsable line while waiting for {waiting_for}: {e}: {}",
                    String::from_utf8_lossy(text)
                ))
            });
            match &*envelope.kind {
                "control_response" => match envelope.response {
                    Some(response) => return f(self, response),
                    None => fail("control_response without response"),
                },
                "control_request" => {
                    let id = envelope
                        .request_id
                        .unwrap_or_else(|| fail("control_request without request_id"));
                    self.ack(&id);
                }
                "user" => self.got_user = true,
                _ => {}
            }
        }
    }

    /// Waits for the answer to handshake request `index`; returns its JSON-RPC reply checked by `check`.
    fn await_mcp(
        &mut self,
        line: &mut Vec<u8>,
        index: u64,
        what: &str,
        check: impl FnOnce(&wire::JsonRpcReply<'_>) -> Result<(), String>,
    ) {
        self.next_response(line, what, |io, response| {
            if wire::request_index(&response.request_id) != Some(index)
                || !io.is_our_id(&response.request_id, index)
            {
                fail(format!(
                    "{what}: answer to unknown request_id {}",
                    response.request_id
                ));
            }
            if response.subtype != "success" {
                fail(format!(
                    "{what}: error response: {}",
                    response.error.map(|e| e.get()).unwrap_or("?")
                ));
            }
            let reply = response
                .response
                .and_then(|p| p.mcp_response)
                .unwrap_or_else(|| fail(format!("{what}: no mcp_response")));
            check(&reply).unwrap_or_else(|e| fail(format!("{what}: {e}")));
        });
    }

    fn is_our_id(&self, id: &str, index: u64) -> bool {
        let mut expected = Vec::with_capacity(36);
        wire::write_request_id(&mut expected, self.seed, index);
        expected == id.as_bytes()
    }
}

fn trim(line: &[u8]) -> &[u8] {
    let mut end = line.len();
    while end > 0 && matches!(line[end - 1], b'\n' | b'\r' | b' ') {
        end -= 1;
    }
    &line[..end]
}

/// The SDK server name from `--mcp-config` (JSON or a file), if it names one.
fn server_from_args(args: &[String]) -> Option<String> {
    let mut config = None;
    for (i, arg) in args.iter().enumerate() {
        if arg == "--mcp-config" {
            config = args.get(i + 1).cloned();
        } else if let Some(v) = arg.strip_prefix("--mcp-config=") {
            config = Some(v.to_string());
        }
    }
    let config = config?;
    let text = if config.trim_start().starts_with('{') {
        config
    } else {
        std::fs::read_to_string(&config)
            .unwrap_or_else(|e| fail(format!("--mcp-config {config}: {e}")))
    };
    let value: serde_json::Value = serde_json::from_str(&text)
        .unwrap_or_else(|e| fail(format!("--mcp-config is not JSON: {e}")));
    let servers = value.get("mcpServers")?.as_object()?;
    servers
        .iter()
        .find(|(_, v)| v.get("type").and_then(|t| t.as_str()) == Some("sdk"))
        .map(|(k, _)| k.clone())
}

fn call_args(index: u64) -> (i64, i64) {
    let a = index as i64 * 3 - 1_000;
    let b = (index % 97) as i64 - 50;
    (a, b)
}

/// Checks one `tools/call` answer; returns the call index.
fn check_call(io: &Io, response: &ControlResponse<'_>, first: u64, end: u64) -> u64 {
    let index = wire::request_index(&response.request_id)
        .unwrap_or_else(|| fail(format!("unknown request_id {}", response.request_id)));
    if index < first || index >= end || !io.is_our_id(&response.request_id, index) {
        fail(format!(
            "answer to unknown request_id {}",
            response.request_id
        ));
    }
    if response.subtype != "success" {
        fail(format!(
            "call {index}: error response: {}",
            response.error.map(|e| e.get()).unwrap_or("?")
        ));
    }
    let reply = response
        .response
        .as_ref()
        .and_then(|p| p.mcp_response.as_ref())
        .unwrap_or_else(|| fail(format!("call {index}: no mcp_response")));
    if reply.id != Some(index as i64 + 2) {
        fail(format!(
            "call {index}: JSON-RPC id {:?}, expected {}",
            reply.id,
            index + 2
        ));
    }
    if let Some(error) = reply.error {
        fail(format!("call {index}: JSON-RPC error {}", error.get()));
    }
    let result = reply
        .result
        .as_ref()
        .unwrap_or_else(|| fail(format!("call {index}: no result")));
    if result.is_error == Some(true) {
        fail(format!("call {index}: isError: true"));
    }
    let (a, b) = call_args(index);
    let text = result
        .content
        .as_ref()
        .and_then(|c| c.first())
        .filter(|block| block.kind == "text")
        .and_then(|block| block.text.as_deref())
        .unwrap_or_else(|| fail(format!("call {index}: no text content")));
    if text.trim().parse::<i64>().ok() != Some(a + b) {
        fail(format!("call {index}: add({a}, {b}) answered {text:?}"));
    }
    index
}

/// Makes calls `first..first + count` with up to `k` in flight, checking every answer; returns
/// their latencies (ns, in answer order) and the round's wall time (ns).
fn concurrent_round(
    io: &mut Io,
    line: &mut Vec<u8>,
    first: u64,
    count: u64,
    k: u64,
) -> (Vec<u64>, u64) {
    let end = first + count;
    let mut sent_at: Vec<Option<Instant>> = vec![None; count as usize];
    let mut latencies: Vec<u64> = Vec::with_capacity(count as usize);
    let round_start = Instant::now();
    let mut next = first;
    while next < end && next - first < k {
        let (a, b) = call_args(next);
        sent_at[(next - first) as usize] = Some(Instant::now());
        io.push_call(next, a, b);
        next += 1;
    }
    io.flush();
    while (latencies.len() as u64) < count {
        let index = io.next_response(line, "a tools/call answer", |io, response| {
            check_call(io, &response, first, end)
        });
        let sent = sent_at[(index - first) as usize]
            .take()
            .unwrap_or_else(|| fail(format!("call {index} answered twice")));
        latencies.push(sent.elapsed().as_nanos() as u64);
        if next < end {
            let (a, b) = call_args(next);
            sent_at[(next - first) as usize] = Some(Instant::now());
            io.push_call(next, a, b);
            io.flush();
            next += 1;
        }
    }
    (latencies, round_start.elapsed().as_nanos() as u64)
}

fn main() {
    let started = Instant::now();
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.iter().any(|a| a == "--version" || a == "-v") {
        println!("{}", env::VERSION_TEXT);
        return;
    }
    procfs::pin_from_env(env::CLI_CPU).unwrap_or_else(|e| fail(e));
    let n = env_u64(env::N, 10_000);
    let k = env_u64(env::K, 32).max(1);
    let conc_n = env_u64(env::CONC_N, n);
    let conc_rounds = env_u64(env::CONC_ROUNDS, 1);
    let rss_every = env_u64(env::RSS_EVERY, 0);
    let stats_path = std::env::var(env::STATS).ok();
    let host_pid = std::os::unix::process::parent_id();
    let my_pid = std::process::id();

    let mut io = Io {
        reader: BufReader::with_capacity(1 << 16, io::stdin().lock()),
        writer: BufWriter::with_capacity(1 << 16, io::stdout().lock()),
        out: Vec::with_capacity(1024),
        seed: mono_ns().wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ u64::from(my_pid),
        server_json: String::new(),
        got_user: false,
        session_id: String::new(),
    };
    io.session_id = {
        let mut id = Vec::new();
        wire::write_request_id(&mut id, io.seed.rotate_left(17), 1);
        String::from_utf8_lossy(&id).into_owned()
    };
    let mut server = server_from_args(&args);
    let mut line = Vec::with_capacity(1 << 12);

    // 1. The host's initialize.
    let init_id = loop {
        if !io.read_line(&mut line) {
            fail("stdin closed before the host's initialize");
        }
        let text = trim(&line);
        if text.is_empty() {
            continue;
        }
        let envelope: Envelope<'_> = serde_json::from_slice(text)
            .unwrap_or_else(|e| fail(format!("unparsable line before initialize: {e}")));
        match (&*envelope.kind, envelope.request) {
            ("control_request", Some(request)) if request.subtype == "initialize" => {
                if server.is_none() {
                    server = request
                        .sdk_mcp_servers
                        .and_then(|s| s.first().map(|s| s.to_string()));
                }
                break envelope
                    .request_id
                    .unwrap_or_else(|| fail("initialize without request_id"))
                    .into_owned();
            }
            ("control_request", _) => {
                let id = envelope
                    .request_id
                    .unwrap_or_else(|| fail("control_request without request_id"))
                    .into_owned();
                io.ack(&id);
            }
            ("user", _) => io.got_user = true,
            _ => {}
        }
    };
    let init_read = Instant::now();
    let server =
        server.unwrap_or_else(|| fail("no SDK server in --mcp-config or initialize.sdkMcpServers"));
    io.server_json = serde_json::to_string(&server).unwrap_or_else(|e| fail(e));

    // 2. MCP initialize (answered before the host's initialize, as the real CLI does).
    io.send_mcp(
        IDX_MCP_INIT,
        r#"{"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"claude-code","title":"Claude Code","version":"2.1.332"}},"jsonrpc":"2.0","id":0}"#,
    );
    io.await_mcp(&mut line, IDX_MCP_INIT, "MCP initialize", |reply| {
        if reply.id != Some(0) {
            return Err(format!("JSON-RPC id {:?}, expected 0", reply.id));
        }
        match reply
            .result
            .as_ref()
            .and_then(|r| r.protocol_version.as_ref())
        {
            Some(_) => Ok(()),
            None => Err("no protocolVersion in the result".into()),
        }
    });
    let init_answer = serde_json::json!({"type": "control_response", "response": {"subtype": "success", "request_id": init_id, "response": {
        "commands": [], "agents": [], "output_style": "default", "available_output_styles": ["default"], "models": [],
        "account": {}, "pid": my_pid, "claude_code_version": "2.1.332", "current_permission_mode": "default",
        "hooks_applied": true, "hook_on_failure_supported": true, "session_state": "idle", "capabilities": []}}});
    io.write_value(&init_answer);

    // 3. The user message.
    while !io.got_user {
        if !io.read_line(&mut line) {
            fail("stdin closed before the user message");
        }
        let text = trim(&line);
        if text.is_empty() {
            continue;
        }
        let envelope: Envelope<'_> = serde_json::from_slice(text)
            .unwrap_or_else(|e| fail(format!("unparsable line before the user message: {e}")));
        match &*envelope.kind {
            "user" => io.got_user = true,
            "control_request" => {
                let id = envelope
                    .request_id
                    .unwrap_or_else(|| fail("control_request without request_id"))
                    .into_owned();
                io.ack(&id);
            }
            _ => {}
        }
    }

    // 4. notifications/initialized, running, tools/list, system/init.
    io.send_mcp(
        IDX_MCP_INITIALIZED,
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
    );
    io.await_mcp(
        &mut line,
        IDX_MCP_INITIALIZED,
        "the notifications/initialized ack",
        |_| Ok(()),
    );
    let session_id = io.session_id.clone();
    io.write_value(&serde_json::json!({"type": "system", "subtype": "session_state_changed", "state": "running", "sdk_host_only": true, "uuid": session_id, "session_id": session_id}));
    io.send_mcp(
        IDX_TOOLS_LIST,
        r#"{"method":"tools/list","jsonrpc":"2.0","id":1}"#,
    );
    io.await_mcp(&mut line, IDX_TOOLS_LIST, "tools/list", |reply| {
        if reply.id != Some(1) {
            return Err(format!("JSON-RPC id {:?}, expected 1", reply.id));
        }
        let tools = reply
            .result
            .as_ref()
            .and_then(|r| r.tools.as_ref())
            .ok_or("no tools in the result")?;
        if tools.iter().any(|t| t.name == "add") {
            Ok(())
        } else {
            Err("no tool named add".into())
        }
    });
    let handshake_done = Instant::now();
    let tool = format!("mcp__{server}__add");
    io.write_value(&serde_json::json!({"type": "system", "subtype": "init", "cwd": "/", "session_id": session_id,
        "tools": [tool], "mcp_servers": [{"name": server, "status": "connected"}], "model": "claude-bench",
        "permissionMode": "default", "slash_commands": [], "apiKeySource": "none", "claude_code_version": "2.1.332",
        "output_style": "default", "agents": [], "skills": [], "plugins": [], "uuid": session_id}));

    let mut stats = RunStats {
        host_pid,
        server: server.clone(),
        init_wait_ns: (init_read - started).as_nanos() as u64,
        handshake_ns: (handshake_done - init_read).as_nanos() as u64,
        host_rss_start_kib: rss_kib(host_pid).map_or(0, |(rss, _)| rss),
        calls_start_mono_ns: mono_ns(),
        ..RunStats::default()
    };

    // 5. N sequential calls.
    let mut latencies: Vec<u64> = Vec::with_capacity(n as usize);
    let host_cpu0 = cpu_ns(host_pid).unwrap_or(0);
    let cli_cpu0 = cpu_ns(my_pid).unwrap_or(0);
    let phase_start = Instant::now();
    let mut excluded_ns = 0u64;
    for index in 0..n {
        let (a, b) = call_args(index);
        let sent = Instant::now();
        io.push_call(index, a, b);
        io.flush();
        let got = io.next_response(&mut line, "a tools/call answer", |io, response| {
            check_call(io, &response, index, index + 1)
        });
        debug_assert_eq!(got, index);
        latencies.push(sent.elapsed().as_nanos() as u64);
        if rss_every > 0 && (index + 1).is_multiple_of(rss_every) {
            let t = Instant::now();
            if let Some((rss, _)) = rss_kib(host_pid) {
                stats.rss_samples.push((index + 1, rss));
            }
            excluded_ns += t.elapsed().as_nanos() as u64;
        }
    }
    let wall = phase_start.elapsed().as_nanos() as u64 - excluded_ns;
    let host_cpu1 = cpu_ns(host_pid).unwrap_or(0);
    let cli_cpu1 = cpu_ns(my_pid).unwrap_or(0);
    stats.seq = Phase::from_latencies(&mut latencies, 1, wall);
    stats.seq.host_cpu_ns = host_cpu1.saturating_sub(host_cpu0);
    stats.seq.cli_cpu_ns = cli_cpu1.saturating_sub(cli_cpu0);

    // 6. conc_rounds rounds of conc_n calls, K in flight; indices go on from round to round.
    let mut conc_latencies: Vec<u64> = Vec::with_capacity((conc_n * conc_rounds) as usize);
    let mut conc_wall = 0u64;
    let mut first = n;
    for _ in 0..conc_rounds {
        let host_cpu_start = cpu_ns(host_pid).unwrap_or(0);
        let cli_cpu_start = cpu_ns(my_pid).unwrap_or(0);
        let (mut latencies, wall) = concurrent_round(&mut io, &mut line, first, conc_n, k);
        conc_latencies.extend_from_slice(&latencies);
        conc_wall += wall;
        let mut phase = Phase::from_latencies(&mut latencies, k, wall);
        phase.host_cpu_ns = cpu_ns(host_pid).unwrap_or(0).saturating_sub(host_cpu_start);
        phase.cli_cpu_ns = cpu_ns(my_pid).unwrap_or(0).saturating_sub(cli_cpu_start);
        let host_rss_kib = rss_kib(host_pid).map_or(0, |(rss, _)| rss);
        stats.conc_rounds.push(ConcRound {
            phase,
            host_rss_kib,
        });
        first += conc_n;
    }
    let host_cpu2 = cpu_ns(host_pid).unwrap_or(0);
    let cli_cpu2 = cpu_ns(my_pid).unwrap_or(0);
    stats.conc = Phase::from_latencies(&mut conc_latencies, k, conc_wall);
    stats.conc.host_cpu_ns = host_cpu2.saturating_sub(host_cpu1);
    stats.conc.cli_cpu_ns = cli_cpu2.saturating_sub(cli_cpu1);
    stats.calls_end_mono_ns = mono_ns();
    if let Some((rss, hwm)) = rss_kib(host_pid) {
        stats.host_rss_kib = rss;
        stats.host_peak_rss_kib = hwm;
    }

    // 7. Stats, result, idle; then wait for EOF.
    if let Some(path) = stats_path {
        let text = serde_json::to_string_pretty(&stats).unwrap_or_else(|e| fail(e));
        std::fs::write(&path, text).unwrap_or_else(|e| fail(format!("writing {path}: {e}")));
    }
    let duration_ms = started.elapsed().as_millis() as u64;
    io.write_value(&serde_json::json!({"type": "result", "subtype": "success", "is_error": false, "duration_ms": duration_ms,
        "duration_api_ms": 0, "num_turns": 1, "result": "done", "stop_reason": "end_turn", "session_id": session_id,
        "total_cost_usd": 0.0, "usage": {"input_tokens": 0, "output_tokens": 0}, "modelUsage": {}, "permission_denials": [], "uuid": session_id}));
    io.write_value(&serde_json::json!({"type": "system", "subtype": "session_state_changed", "state": "idle", "sdk_host_only": true, "uuid": session_id, "session_id": session_id}));
    while io.read_line(&mut line) {
        let text = trim(&line);
        if text.is_empty() {
            continue;
        }
        if let Ok(envelope) = serde_json::from_slice::<Envelope<'_>>(text)
            && envelope.kind == "control_request"
            && let Some(id) = envelope.request_id
        {
            let id = id.into_owned();
            io.ack(&id);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn server_name_from_the_mcp_config() {
        let config = r#"{"mcpServers": {"ext": {"type": "stdio", "command": "x"}, "bench": {"type": "sdk", "name": "b"}}}"#;
        assert_eq!(
            server_from_args(&strings(&["--verbose", "--mcp-config", config])),
            Some("bench".into())
        );
        assert_eq!(
            server_from_args(&strings(&[&format!("--mcp-config={config}")])),
            Some("bench".into())
        );
        assert_eq!(server_from_args(&strings(&["--verbose"])), None);
        assert_eq!(
            server_from_args(&strings(&["--mcp-config", r#"{"mcpServers": {}}"#])),
            None
        );
    }

    #[test]
    fn lines_are_trimmed_and_arguments_vary() {
        assert_eq!(trim(b"{}\r\n"), b"{}");
        assert_eq!(trim(b"\n"), b"");
        assert_ne!(call_args(1), call_args(2));
        assert_eq!(call_args(0), (-1000, -50));
    }
}
