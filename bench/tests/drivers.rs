//! The bench's parts against each other, with small N (the figures come from `bench/run`; these
//! tests only check that every part does its job): each driver serves the fake CLI's calls, which
//! the fake CLI checks one by one, and the statistics come out complete; the fake CLI refuses a
//! wrong answer with exit code 2 instead of timing it.
//!
//! The SDK drivers need the SDKs `bench/install-sdks.sh` installs (`scripts/test` runs it). Without
//! them their test skips with a banner, unless `CI` is set, where it fails.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use claude_tools_bench::env;
use claude_tools_bench::stats::RunStats;
use serde_json::{Value, json};

const FAKE_CLI: &str = env!("CARGO_BIN_EXE_ct-bench-fake-cli");
const FLOOR: &str = env!("CARGO_BIN_EXE_ct-bench-floor");
const CLAUDE_TOOLS: &str = env!("CARGO_BIN_EXE_ct-bench-claude-tools");
const PINGPONG: &str = env!("CARGO_BIN_EXE_ct-bench-pingpong");

/// Longest one driver run may take here (a few hundred calls; Python starts in ~1 s).
const TIMEOUT: Duration = Duration::from_secs(120);

/// A scratch folder for statistics files, removed at the end of the test.
struct Scratch(PathBuf);

impl Scratch {
    fn new(test: &str) -> Self {
        let dir = std::env::temp_dir().join(format!("ct-bench-{test}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("scratch folder");
        Scratch(dir)
    }

    fn path(&self, name: &str) -> PathBuf {
        self.0.join(name)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// How one run is set up: what the fake CLI (or the ping-pong measurer) reads from its environment.
struct Run {
    n: u64,
    k: u64,
    rss_every: u64,
}

/// Runs `program args…` to its end with the bench's environment, as `bench/run` does.
fn run(program: &str, args: &[&str], setup: &Run, stats: &Path) -> Output {
    let child = Command::new(program)
        .args(args)
        .env(env::N, setup.n.to_string())
        .env(env::K, setup.k.to_string())
        .env(env::RSS_EVERY, setup.rss_every.to_string())
        .env(env::STATS, stats)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("spawning {program}: {e}"));
    let pid = child.id();
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(child.wait_with_output());
    });
    match rx.recv_timeout(TIMEOUT) {
        Ok(output) => output.expect("waiting for the driver"),
        Err(_) => {
            // SAFETY: kill(2) on the pid of a child this test spawned and has not reaped.
            unsafe { libc::kill(pid as i32, libc::SIGKILL) };
            panic!("{program} did not finish within {TIMEOUT:?}");
        }
    }
}

fn assert_success(what: &str, output: &Output) {
    assert!(
        output.status.success(),
        "{what} exited with {}:\n{}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
}

fn read_stats(path: &Path) -> RunStats {
    let text = std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("no statistics at {}: {e}", path.display()));
    serde_json::from_str(&text).expect("statistics are JSON")
}

/// What every complete run's statistics hold: both phases with every call, ordered percentiles,
/// the host's CPU time and memory.
fn assert_complete(what: &str, stats: &RunStats, setup: &Run) {
    assert_eq!(
        (stats.seq.calls, stats.conc.calls),
        (setup.n, setup.n),
        "{what}"
    );
    assert_eq!(
        (stats.seq.in_flight, stats.conc.in_flight),
        (1, setup.k),
        "{what}"
    );
    for phase in [&stats.seq, &stats.conc] {
        assert!(phase.p50_ns > 0, "{what}: {phase:?}");
        assert!(
            phase.p50_ns <= phase.p99_ns && phase.p99_ns <= phase.max_ns,
            "{what}: {phase:?}"
        );
        assert!(
            phase.calls_per_s > 0.0 && phase.wall_ns > 0,
            "{what}: {phase:?}"
        );
        assert!(
            phase.host_cpu_ns > 0,
            "{what}: the host's CPU time was read"
        );
    }
    assert!(
        stats.host_peak_rss_kib > 0,
        "{what}: the host's peak RSS was read"
    );
}

/// The checks a driver going through the fake CLI passes: the handshake was timed against the
/// tool server it declared, and the host it measured is the driver itself.
fn assert_served_by(what: &str, stats: &RunStats, setup: &Run) {
    assert_complete(what, stats, setup);
    assert_eq!(stats.server, "bench", "{what}");
    assert!(stats.handshake_ns > 0, "{what}: the handshake was timed");
}

#[test]
fn the_rust_drivers_serve_every_checked_call_and_the_statistics_come_out() {
    let scratch = Scratch::new("rust-drivers");
    let setup = Run {
        n: 300,
        k: 8,
        rss_every: 100,
    };
    for (name, program) in [("floor", FLOOR), ("claude-tools", CLAUDE_TOOLS)] {
        let stats_path = scratch.path(&format!("{name}.json"));
        let output = run(program, &[FAKE_CLI], &setup, &stats_path);
        assert_success(name, &output);
        let stats = read_stats(&stats_path);
        assert_served_by(name, &stats, &setup);
        let sampled: Vec<u64> = stats.rss_samples.iter().map(|(call, _)| *call).collect();
        assert_eq!(sampled, [100, 200, 300], "{name}: RSS every 100 calls");
        assert!(stats.rss_samples.iter().all(|(_, kib)| *kib > 0), "{name}");
    }
}

#[test]
fn a_run_with_no_calls_measures_startup() {
    let scratch = Scratch::new("startup");
    let setup = Run {
        n: 0,
        k: 8,
        rss_every: 0,
    };
    for (name, program) in [("floor", FLOOR), ("claude-tools", CLAUDE_TOOLS)] {
        let stats_path = scratch.path(&format!("{name}.json"));
        assert_success(name, &run(program, &[FAKE_CLI], &setup, &stats_path));
        let stats = read_stats(&stats_path);
        assert_eq!((stats.seq.calls, stats.conc.calls), (0, 0), "{name}");
        assert!(stats.handshake_ns > 0, "{name}: the handshake still ran");
    }
}

#[test]
fn claude_tools_serves_several_sessions_from_one_process() {
    let scratch = Scratch::new("sessions");
    let setup = Run {
        n: 100,
        k: 4,
        rss_every: 0,
    };
    let stats_path = scratch.path("sessions.json");
    let output = run(
        CLAUDE_TOOLS,
        &[FAKE_CLI, "--sessions", "3"],
        &setup,
        &stats_path,
    );
    assert_success("claude-tools --sessions 3", &output);
    let sessions: Vec<RunStats> = (0..3)
        .map(|i| read_stats(&PathBuf::from(format!("{}.{i}", stats_path.display()))))
        .collect();
    for (i, stats) in sessions.iter().enumerate() {
        assert_served_by(&format!("session {i}"), stats, &setup);
    }
    assert!(
        sessions.iter().all(|s| s.host_pid == sessions[0].host_pid),
        "one host process serves every session"
    );
}

#[test]
fn pingpong_measures_both_phases() {
    let scratch = Scratch::new("pingpong");
    let setup = Run {
        n: 300,
        k: 8,
        rss_every: 0,
    };
    let stats_path = scratch.path("pingpong.json");
    assert_success("pingpong", &run(PINGPONG, &[], &setup, &stats_path));
    let stats = read_stats(&stats_path);
    assert_complete("pingpong", &stats, &setup);
    assert_eq!(stats.server, "pingpong");
}

#[test]
fn the_sdk_drivers_serve_every_checked_call() {
    let bench = Path::new(env!("CARGO_MANIFEST_DIR"));
    let python = bench.join(".venv/bin/python");
    let ts_sdk = bench.join("node_modules/@anthropic-ai/claude-agent-sdk");
    if !python.exists() || !ts_sdk.exists() {
        let message =
            "the bench's SDKs are not installed; run bench/install-sdks.sh (or scripts/test)";
        assert!(std::env::var_os("CI").is_none(), "{message}, and CI is set");
        // Written to the stderr handle itself: libtest captures `eprintln!` of passing tests.
        let bar = "!".repeat(80);
        let _ = writeln!(
            std::io::stderr(),
            "\n{bar}\n!!! SKIPPED the SDK drivers' test: {message}\n{bar}\n"
        );
        return;
    }
    let scratch = Scratch::new("sdk-drivers");
    let setup = Run {
        n: 200,
        k: 8,
        rss_every: 0,
    };
    let python = python.display().to_string();
    let py_driver = bench.join("drivers/py_driver.py").display().to_string();
    let ts_driver = bench.join("drivers/ts_driver.mjs").display().to_string();
    for (name, program, script) in [
        ("typescript", "node", ts_driver.as_str()),
        ("python", python.as_str(), py_driver.as_str()),
    ] {
        let stats_path = scratch.path(&format!("{name}.json"));
        let output = run(program, &[script, FAKE_CLI], &setup, &stats_path);
        assert_success(name, &output);
        assert_served_by(name, &read_stats(&stats_path), &setup);
    }
}

/// How the hand-written host of [`a_wrong_answer_ends_the_fake_cli_with_exit_code_2`] gets
/// one `tools/call` wrong.
#[derive(Debug, Clone, Copy)]
enum Fault {
    None,
    WrongSum,
    WrongJsonRpcId,
    IsError,
    WrongRequestId,
    ErrorAnswer,
}

/// Plays the host by hand against the fake CLI (`n` calls each phase), answering the call with
/// JSON-RPC id `faulty_id` the way `fault` says; returns the fake CLI's exit and stderr.
fn host_by_hand(n: u64, fault: Fault, faulty_id: i64) -> Output {
    let mut cli = Command::new(FAKE_CLI)
        .args([
            "--mcp-config",
            r#"{"mcpServers":{"bench":{"type":"sdk","name":"bench"}}}"#,
        ])
        .env(env::N, n.to_string())
        .env(env::K, "3")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawning the fake CLI");
    let mut to_cli = cli.stdin.take();
    let from_cli = BufReader::new(cli.stdout.take().expect("piped"));
    let send = |to_cli: &mut Option<std::process::ChildStdin>, line: Value| {
        if let Some(pipe) = to_cli.as_mut() {
            // The fake CLI may have exited on a fault already: a broken pipe is expected then.
            let _ = writeln!(pipe, "{line}");
        }
    };
    send(
        &mut to_cli,
        json!({"type": "control_request", "request_id": "init", "request": {"subtype": "initialize"}}),
    );
    let mut got_result = false;
    for line in from_cli.lines() {
        let Ok(line) = line else { break };
        let frame: Value = serde_json::from_str(&line).expect("the fake CLI writes JSON");
        match frame["type"].as_str() {
            Some("control_request") => {
                let message = &frame["request"]["message"];
                let mut reply = answer(message);
                let mut request_id = frame["request_id"].clone();
                let mut subtype = "success";
                if message["id"].as_i64() == Some(faulty_id) {
                    match fault {
                        Fault::None => {}
                        Fault::WrongSum => {
                            let sum: i64 = reply["result"]["content"][0]["text"]
                                .as_str()
                                .and_then(|t| t.parse().ok())
                                .expect("a sum");
                            reply["result"]["content"][0]["text"] = json!((sum + 1).to_string());
                        }
                        Fault::WrongJsonRpcId => reply["id"] = json!(faulty_id + 100),
                        Fault::IsError => reply["result"]["isError"] = json!(true),
                        Fault::WrongRequestId => request_id = json!("not-a-request-of-yours"),
                        Fault::ErrorAnswer => subtype = "error",
                    }
                }
                send(
                    &mut to_cli,
                    json!({"type": "control_response", "response": {"subtype": subtype,
                        "request_id": request_id, "error": "refused", "response": {"mcp_response": reply}}}),
                );
            }
            Some("control_response") => send(
                &mut to_cli,
                json!({"type": "user", "session_id": "", "message": {"role": "user", "content": "go"},
                    "parent_tool_use_id": null}),
            ),
            Some("result") => got_result = true,
            Some("system") if got_result && frame["state"] == "idle" => to_cli = None,
            _ => {}
        }
    }
    drop(to_cli);
    cli.wait_with_output().expect("waiting for the fake CLI")
}

/// The hand-written host's answer to one JSON-RPC message from the fake CLI.
fn answer(message: &Value) -> Value {
    let Some(id) = message.get("id") else {
        return json!({"jsonrpc": "2.0", "result": {}});
    };
    let result = match message["method"].as_str() {
        Some("initialize") => {
            json!({"protocolVersion": "2025-11-25", "capabilities": {"tools": {}},
            "serverInfo": {"name": "bench", "version": "1.0.0"}})
        }
        Some("tools/list") => {
            json!({"tools": [{"name": "add", "inputSchema": {"type": "object"}}]})
        }
        Some("tools/call") => {
            let arguments = &message["params"]["arguments"];
            let sum = arguments["a"].as_i64().expect("a") + arguments["b"].as_i64().expect("b");
            json!({"content": [{"type": "text", "text": sum.to_string()}], "isError": false})
        }
        other => panic!("the fake CLI sent an unexpected method {other:?}"),
    };
    json!({"jsonrpc": "2.0", "id": id, "result": result})
}

#[test]
fn a_wrong_answer_ends_the_fake_cli_with_exit_code_2() {
    // The host by hand is right when nothing is faulty: the failures below are the faults'.
    let clean = host_by_hand(6, Fault::None, 4);
    assert_success("the fake CLI with a correct host", &clean);

    // JSON-RPC ids are call index + 2: id 4 is a sequential call, id 10 one of those in flight.
    let cases = [
        (Fault::WrongSum, 4, "add("),
        (Fault::WrongSum, 10, "add("),
        (Fault::WrongJsonRpcId, 4, "JSON-RPC id"),
        (Fault::IsError, 4, "isError: true"),
        (Fault::WrongRequestId, 4, "unknown request_id"),
        (Fault::ErrorAnswer, 10, "error response"),
    ];
    for (fault, faulty_id, message) in cases {
        let output = host_by_hand(6, fault, faulty_id);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(
            output.status.code(),
            Some(2),
            "{fault:?} at id {faulty_id}: {stderr}"
        );
        assert!(
            stderr.contains(message),
            "{fault:?} at id {faulty_id}: expected {message:?} in {stderr}"
        );
    }
}
