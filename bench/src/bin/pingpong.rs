//! `ct-bench-pingpong`: the OS floor — a raw pipe ping-pong with no JSON at all.
//!
//! `ct-bench-pingpong` is the responder (it plays the host): it spawns `ct-bench-pingpong --measure`
//! (which plays the CLI), answers every line with a fixed line of about the size of a `tools/call`
//! answer, and exits at EOF (when the measurer exits after writing its statistics). The measurer sends lines of about the size of a `tools/call` request,
//! N one at a time and N more with K in flight, pins itself to `$CT_BENCH_CLI_CPU` like the fake CLI,
//! and writes the same JSON statistics to `$CT_BENCH_STATS`.

use std::io::{BufRead, BufReader, BufWriter, Write};
use std::process::{Command, ExitCode, Stdio};
use std::time::Instant;

use claude_tools_bench::env;
use claude_tools_bench::procfs::{self, cpu_ns, mono_ns, rss_kib};
use claude_tools_bench::stats::{Phase, RunStats};

const REQUEST: &[u8] = br#"{"type":"control_request","request_id":"0123abcd-0123-4abc-a123-000000000000","request":{"subtype":"mcp_message","server_name":"bench","message":{"method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":2},"_meta":{"claudecode/toolUseId":"toolu_bench000000000000","progressToken":2}},"jsonrpc":"2.0","id":2}}}
"#;
const REPLY: &[u8] = br#"{"type":"control_response","response":{"subtype":"success","request_id":"0123abcd-0123-4abc-a123-000000000000","response":{"mcp_response":{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"3"}],"isError":false}}}}}
"#;

fn main() -> ExitCode {
    if std::env::args().nth(1).as_deref() == Some("--measure") {
        return measure();
    }
    let exe = match std::env::current_exe() {
        Ok(exe) => exe,
        Err(e) => return die(format!("current_exe: {e}")),
    };
    let mut child = match Command::new(exe)
        .arg("--measure")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
    {
        Ok(child) => child,
        Err(e) => return die(format!("spawn: {e}")),
    };
    let (Some(mut to_child), Some(from_child)) = (child.stdin.take(), child.stdout.take()) else {
        return die("no pipes".into());
    };
    let mut reader = BufReader::with_capacity(1 << 16, from_child);
    let mut line = Vec::with_capacity(1024);
    loop {
        line.clear();
        match reader.read_until(b'\n', &mut line) {
            Ok(0) | Err(_) => break,
            Ok(_) => {
                if to_child.write_all(REPLY).is_err() {
                    break;
                }
            }
        }
    }
    drop(to_child);
    match child.wait() {
        Ok(status) if status.success() => ExitCode::SUCCESS,
        Ok(status) => die(format!("measurer exited with {status}")),
        Err(e) => die(format!("wait: {e}")),
    }
}

fn die(message: String) -> ExitCode {
    eprintln!("ct-bench-pingpong: {message}");
    ExitCode::from(2)
}

fn env_u64(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn measure() -> ExitCode {
    if let Err(e) = procfs::pin_from_env(env::CLI_CPU) {
        return die(e);
    }
    let n = env_u64(env::N, 10_000);
    let k = env_u64(env::K, 32).max(1);
    let conc_n = env_u64(env::CONC_N, n);
    let host_pid = std::os::unix::process::parent_id();
    let my_pid = std::process::id();
    let mut out = BufWriter::with_capacity(1 << 16, std::io::stdout().lock());
    let mut input = BufReader::with_capacity(1 << 16, std::io::stdin().lock());
    let mut line = Vec::with_capacity(1024);
    let mut read_reply = |line: &mut Vec<u8>| -> bool {
        line.clear();
        matches!(input.read_until(b'\n', line), Ok(n) if n > 0)
    };
    let mut stats = RunStats {
        host_pid,
        server: "pingpong".into(),
        calls_start_mono_ns: mono_ns(),
        ..RunStats::default()
    };

    let mut lat = Vec::with_capacity(n as usize);
    let (h0, c0) = (cpu_ns(host_pid).unwrap_or(0), cpu_ns(my_pid).unwrap_or(0));
    let start = Instant::now();
    for _ in 0..n {
        let t = Instant::now();
        if out.write_all(REQUEST).and_then(|()| out.flush()).is_err() || !read_reply(&mut line) {
            return die("pipe closed".into());
        }
        lat.push(t.elapsed().as_nanos() as u64);
    }
    stats.seq = Phase::from_latencies(&mut lat, 1, start.elapsed().as_nanos() as u64);
    let (h1, c1) = (cpu_ns(host_pid).unwrap_or(0), cpu_ns(my_pid).unwrap_or(0));
    stats.seq.host_cpu_ns = h1.saturating_sub(h0);
    stats.seq.cli_cpu_ns = c1.saturating_sub(c0);

    // K in flight: replies come back in order, so a FIFO of send times pairs them up.
    let mut sent = std::collections::VecDeque::with_capacity(k as usize);
    let mut lat = Vec::with_capacity(conc_n as usize);
    let start = Instant::now();
    let mut issued = 0;
    while issued < conc_n && issued < k {
        sent.push_back(Instant::now());
        if out.write_all(REQUEST).is_err() {
            return die("pipe closed".into());
        }
        issued += 1;
    }
    if out.flush().is_err() {
        return die("pipe closed".into());
    }
    while (lat.len() as u64) < conc_n {
        if !read_reply(&mut line) {
            return die("pipe closed".into());
        }
        let Some(t) = sent.pop_front() else {
            return die("unexpected reply".into());
        };
        lat.push(t.elapsed().as_nanos() as u64);
        if issued < conc_n {
            sent.push_back(Instant::now());
            if out.write_all(REQUEST).and_then(|()| out.flush()).is_err() {
                return die("pipe closed".into());
            }
            issued += 1;
        }
    }
    stats.conc = Phase::from_latencies(&mut lat, k, start.elapsed().as_nanos() as u64);
    let (h2, c2) = (cpu_ns(host_pid).unwrap_or(0), cpu_ns(my_pid).unwrap_or(0));
    stats.conc.host_cpu_ns = h2.saturating_sub(h1);
    stats.conc.cli_cpu_ns = c2.saturating_sub(c1);
    stats.calls_end_mono_ns = mono_ns();
    if let Some((rss, hwm)) = rss_kib(host_pid) {
        stats.host_rss_kib = rss;
        stats.host_peak_rss_kib = hwm;
    }
    if let Ok(path) = std::env::var(env::STATS) {
        let text = match serde_json::to_string_pretty(&stats) {
            Ok(text) => text,
            Err(e) => return die(e.to_string()),
        };
        if let Err(e) = std::fs::write(&path, text) {
            return die(format!("writing {path}: {e}"));
        }
    }
    // Exiting closes our stdout: the responder sees EOF and ends.
    ExitCode::SUCCESS
}
