//! Every way the CLI can end, against real child processes (the `scripted-cli` fake, and one
//! `/bin/sh` script): exit with 0, with a code, by a signal — before `initialize`, in the middle
//! of the handshake, with a tool call in flight, after the result; stdout closed while the CLI
//! lives on; a grandchild holding stdout; stdin closed by the CLI; the host dropping a client or
//! a stream mid-call. Each checks the typed error (code or signal, stderr tail), what was
//! written back, that every wait ends within a bound, and (through `/proc`) that no process is
//! left behind.
#![cfg(target_os = "linux")]

use std::path::PathBuf;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use claude_tools::prelude::*;
use claude_tools::{Client, Error, Message, MessageStream, Options, query};
use claude_tools_runtime::transport::{
    BoxFuture, Connection, ExitInfo, LaunchSpec, ProcessTransport, Transport,
};
use claude_tools_testkit::TempDir;
use claude_tools_testkit::fake_cli::{FakeScript, canned};
use serde_json::{Value, json};

mod common;

use common::Fake;

#[tool_server(name = "slow", version = "1.0.0")]
struct Slow;

/// Tags of the `block` calls that started, so a test knows its tool is running.
static STARTED: Mutex<Vec<String>> = Mutex::new(Vec::new());

/// Blocks for a minute (it is cancelled long before).
#[tool(server = Slow)]
async fn block(tag: String) -> String {
    STARTED.lock().unwrap().push(tag);
    tokio::time::sleep(Duration::from_secs(60)).await;
    "unblocked".into()
}

/// What the fake writes to stderr before it ends.
const LAST_WORDS: &str = "fatal: not logged in";
const SIGKILL: i32 = 9;
const SIGTERM: i32 = 15;

/// How the fake CLI ends.
#[derive(Clone, Copy, Debug)]
enum Ending {
    Code(i32),
    Signal(i32),
}

impl Ending {
    fn append(self, script: FakeScript) -> FakeScript {
        match self {
            Ending::Code(code) => script.exit_with_stderr(code, LAST_WORDS),
            Ending::Signal(signal) => script.signal_with_stderr(signal, LAST_WORDS),
        }
    }

    fn exit_info(self) -> ExitInfo {
        let (code, signal) = match self {
            Ending::Code(code) => (Some(code), None),
            Ending::Signal(signal) => (None, Some(signal)),
        };
        ExitInfo::new(code, signal, LAST_WORDS)
    }

    /// Asserts `error` is exactly this ending's report.
    fn assert_reported(self, error: Error) {
        let expected = self.exit_info();
        match error {
            Error::ProcessExited {
                code,
                signal,
                stderr_tail,
            } => assert_eq!(
                (code, signal, stderr_tail.as_str()),
                (expected.code, expected.signal, LAST_WORDS),
                "{self:?}"
            ),
            other => panic!("{self:?}: expected ProcessExited, got {other:?}"),
        }
    }
}

/// What only these tests read of the fake.
impl Fake {
    /// The fake's pid, from its transcript's header.
    fn pid(&self) -> u32 {
        let text = std::fs::read_to_string(&self.transcript).unwrap();
        let header: Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
        u32::try_from(header["pid"].as_u64().unwrap()).unwrap()
    }
}

/// `None` once the process is gone; a zombie counts as gone when `zombie_ok` (an orphaned
/// grandchild is reaped by init, which may not reap at all in a container).
fn state(pid: u32, zombie_ok: bool) -> Option<String> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let state = stat
        .rsplit_once(')')?
        .1
        .split_whitespace()
        .next()?
        .to_string();
    (!(zombie_ok && state == "Z")).then_some(state)
}

/// Waits (at most `bound`) until `pid` is gone: reaped, or a zombie when `zombie_ok`.
async fn assert_gone_within(pid: u32, bound: Duration, zombie_ok: bool) {
    let start = Instant::now();
    while let Some(state) = state(pid, zombie_ok) {
        assert!(
            start.elapsed() < bound,
            "process {pid} still there ({state}) after {bound:?}"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// The fake CLI's own pid is reaped by the session: gone from `/proc` within the bound.
async fn assert_reaped(fake: &Fake) {
    assert_gone_within(fake.pid(), Duration::from_secs(10), false).await;
}

/// Bounds a wait that must not reach the control timeout (60 s) or a process's natural end.
async fn within<T>(bound: Duration, what: &str, future: impl Future<Output = T>) -> T {
    tokio::time::timeout(bound, future)
        .await
        .unwrap_or_else(|_| panic!("{what}: no outcome within {bound:?}"))
}

/// The report of an exit with `code` after `stderr_tail` on stderr.
fn exited_with_code(code: i32, stderr_tail: &str) -> ExitInfo {
    ExitInfo::new(Some(code), None, stderr_tail)
}

fn block_call(tag: &str) -> FakeScript {
    FakeScript::new()
        .let_var("mcp_rid", json!("$uuid"))
        .send(canned::mcp_request(
            "slow",
            json!({"method": "tools/call", "jsonrpc": "2.0", "id": 2,
                   "params": {"name": "block", "arguments": {"tag": tag}}}),
        ))
}

async fn wait_started(tag: &str) {
    within(Duration::from_secs(10), "the tool started", async {
        while !STARTED.lock().unwrap().iter().any(|t| t == tag) {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    })
    .await;
}

// ---- exit with 0, 1 or SIGKILL at each stage ----

/// Before `initialize`: `connect` and `query` fail with the exit report, not `Closed` or a
/// timeout.
async fn exits_before_initialize(ending: Ending) {
    let fake = Fake::new(ending.append(FakeScript::new()));
    let error = within(
        Duration::from_secs(20),
        "connect",
        Client::connect(fake.options()),
    )
    .await
    .expect_err("the CLI is gone");
    ending.assert_reported(error);
    assert_reaped(&fake).await;

    let error = within(
        Duration::from_secs(20),
        "query",
        query("hi", fake.options()),
    )
    .await
    .expect_err("the CLI is gone");
    ending.assert_reported(error);
    assert_reaped(&fake).await;
}

/// After the CLI's MCP `initialize` (answered), before it answers the host's.
async fn exits_mid_handshake(ending: Ending) {
    let script = canned::expect_initialize()
        .let_var("mcp_rid", json!("$uuid"))
        .send(canned::mcp_request(
            "slow",
            json!({"method": "initialize", "jsonrpc": "2.0", "id": 0,
                   "params": {"protocolVersion": "2025-11-25", "capabilities": {}}}),
        ))
        .then(canned::expect_mcp_response(
            json!({"jsonrpc": "2.0", "id": 0, "result": "$any"}),
        ));
    let fake = Fake::new(ending.append(script));
    let error = within(
        Duration::from_secs(20),
        "connect",
        Client::connect(fake.options().mcp_server(Slow::server())),
    )
    .await
    .expect_err("the CLI is gone");
    ending.assert_reported(error);
    assert_reaped(&fake).await;
    let lines = fake.transcript().json_lines().unwrap();
    assert_eq!(lines.len(), 2, "initialize, then the MCP answer: {lines:?}");
    assert_eq!(lines[0]["request"]["subtype"], "initialize");
    assert_eq!(
        lines[1]["response"]["response"]["mcp_response"]["result"]["serverInfo"]["name"],
        "slow"
    );
}

/// With a tool call in flight: the stream reports the exit, the tool's answer is never written.
async fn exits_with_a_tool_call_in_flight(ending: Ending) {
    let tag = format!("in-flight-{ending:?}");
    let script = canned::initialize()
        .then(canned::expect_user_message(json!("go")))
        .then(block_call(&tag))
        .expect_no_line_within(Duration::from_millis(300));
    let fake = Fake::new(ending.append(script));
    let mut stream = query("go", fake.options().mcp_server(Slow::server()))
        .await
        .unwrap();
    let item = within(Duration::from_secs(20), "the stream", stream.next()).await;
    ending.assert_reported(item.expect("an item").expect_err("the exit report"));
    assert!(stream.next().await.is_none());
    assert_eq!(
        within(Duration::from_secs(5), "exit", stream.exit_status()).await,
        ending.exit_info()
    );
    assert!(STARTED.lock().unwrap().contains(&tag));
    let lines = fake.transcript().json_lines().unwrap();
    assert_eq!(lines.len(), 2, "initialize and the prompt only: {lines:?}");
    assert_eq!(lines[1]["type"], "user");
    assert_reaped(&fake).await;
}

/// After the result: the stream ends cleanly, the exit status tells how the CLI ended, and a
/// client's `disconnect` returns it (at once: the CLI has already exited).
async fn exits_after_the_result(ending: Ending) {
    let script = canned::initialize()
        .then(canned::expect_user_message(json!("go")))
        .then(canned::result("done"));
    let fake = Fake::new(ending.append(script));
    let mut stream = query("go", fake.options()).await.unwrap();
    let first = within(Duration::from_secs(20), "the result", stream.next()).await;
    assert!(matches!(first, Some(Ok(Message::Result(_)))), "{first:?}");
    assert!(
        within(Duration::from_secs(10), "the end", stream.next())
            .await
            .is_none()
    );
    assert_eq!(stream.exit_info(), Some(ending.exit_info()));
    assert_eq!(
        within(Duration::from_secs(5), "exit", stream.exit_status()).await,
        ending.exit_info()
    );
    assert_reaped(&fake).await;

    let mut client = Client::connect(fake.options()).await.unwrap();
    client.query("go").await.unwrap();
    let messages = within(
        Duration::from_secs(20),
        "the response",
        client.receive_response(),
    )
    .await
    .unwrap();
    assert!(matches!(messages.as_slice(), [Message::Result(_)]));
    // The CLI exits on its own while the client still holds its stdin open.
    assert_reaped(&fake).await;
    assert!(
        within(Duration::from_secs(10), "the end", client.next_message())
            .await
            .is_none()
    );
    let exit = within(Duration::from_secs(5), "disconnect", client.disconnect())
        .await
        .unwrap();
    assert_eq!(exit, ending.exit_info());
}

macro_rules! each_ending {
    ($stage:ident: $($name:ident => $ending:expr),+ $(,)?) => {
        $(
            #[tokio::test]
            async fn $name() {
                $stage($ending).await;
            }
        )+
    };
}

each_ending!(exits_before_initialize:
    exit_0_before_initialize => Ending::Code(0),
    exit_1_before_initialize => Ending::Code(1),
    sigkill_before_initialize => Ending::Signal(SIGKILL),
);
each_ending!(exits_mid_handshake:
    exit_0_mid_handshake => Ending::Code(0),
    exit_1_mid_handshake => Ending::Code(1),
    sigkill_mid_handshake => Ending::Signal(SIGKILL),
);
each_ending!(exits_with_a_tool_call_in_flight:
    exit_0_with_a_tool_call_in_flight => Ending::Code(0),
    exit_1_with_a_tool_call_in_flight => Ending::Code(1),
    sigkill_with_a_tool_call_in_flight => Ending::Signal(SIGKILL),
);
each_ending!(exits_after_the_result:
    exit_0_after_the_result => Ending::Code(0),
    exit_1_after_the_result => Ending::Code(1),
    sigkill_after_the_result => Ending::Signal(SIGKILL),
);

#[test]
fn the_exit_report_reads_well() {
    let by_signal = Error::ProcessExited {
        code: None,
        signal: Some(SIGKILL),
        stderr_tail: "bye".into(),
    };
    assert_eq!(
        by_signal.to_string(),
        "the Claude Code CLI exited, killed by signal 9; stderr: bye"
    );
    let with_code = Error::ProcessExited {
        code: Some(1),
        signal: None,
        stderr_tail: String::new(),
    };
    assert_eq!(
        with_code.to_string(),
        "the Claude Code CLI exited with code 1"
    );
}

// ---- host requests after the CLI stopped reading ----

/// A request sent after the CLI exited fails at once with the exit report, as do a prompt
/// and `disconnect` returns the exit.
#[tokio::test]
async fn requests_after_the_cli_exited_fail_at_once_with_the_exit_report() {
    let ending = Ending::Code(1);
    let fake = Fake::new(ending.append(canned::initialize()));
    let mut client = Client::connect(fake.options()).await.unwrap();
    let item = within(Duration::from_secs(10), "the stream", client.next_message()).await;
    ending.assert_reported(item.expect("an item").expect_err("the exit report"));
    let error = within(Duration::from_secs(2), "interrupt", client.interrupt())
        .await
        .expect_err("the CLI is gone");
    ending.assert_reported(error);
    let error = within(Duration::from_secs(2), "query", client.query("again"))
        .await
        .expect_err("the CLI is gone");
    ending.assert_reported(error);
    let exit = within(Duration::from_secs(2), "disconnect", client.disconnect())
        .await
        .unwrap();
    assert_eq!(exit, ending.exit_info());
}

/// A request already waiting when the CLI exits gets the exit report, not `Closed`.
#[tokio::test]
async fn a_request_waiting_when_the_cli_exits_gets_the_exit_report() {
    let ending = Ending::Signal(SIGKILL);
    let script = canned::initialize()
        .expect(json!({"type": "control_request", "request": {"subtype": "interrupt"}}))
        .sleep(Duration::from_millis(100));
    let fake = Fake::new(ending.append(script));
    let client = Client::connect(fake.options()).await.unwrap();
    let error = within(Duration::from_secs(10), "interrupt", client.interrupt())
        .await
        .expect_err("the CLI is gone");
    ending.assert_reported(error);
    assert_reaped(&fake).await;
}

/// A transport running a `/bin/sh` script as the CLI (the script path goes first).
struct ShScript(PathBuf);

impl Transport for ShScript {
    fn connect(
        self: Box<Self>,
        mut launch: LaunchSpec,
    ) -> BoxFuture<'static, claude_tools::Result<Connection>> {
        launch.cli_path = Some("/bin/sh".into());
        launch.args.insert(0, self.0.display().to_string());
        Box::new(ProcessTransport::new()).connect(launch)
    }
}

/// Answers `initialize`, reads one more request without answering it, closes its stdin and
/// lives on for 6 s, then exits 5.
const CLOSES_STDIN: &str = r#"IFS= read -r line
rid=$(printf '%s' "$line" | sed -n 's/.*"request_id":"\([^"]*\)".*/\1/p')
printf '{"type":"control_response","response":{"subtype":"success","request_id":"%s","response":{}}}\n' "$rid"
IFS= read -r line
exec 0<&-
echo "stdin closed" >&2
sleep 6
exit 5
"#;

/// Requests waiting when the CLI stops reading (and any sent after) fail as soon as a write
/// finds the pipe broken, not after the 60 s control timeout; the CLI still lives, so the
/// error is the broken pipe itself.
#[tokio::test]
async fn requests_fail_soon_after_the_cli_closes_its_stdin() {
    let dir = TempDir::new("faults-exit-sh").unwrap();
    let script = dir.path().join("closes-stdin.sh");
    std::fs::write(&script, CLOSES_STDIN).unwrap();
    let client = Client::connect_with(Options::new(), ShScript(script))
        .await
        .unwrap();
    let started = Instant::now();
    let (waiting, later) = tokio::join!(async { client.interrupt().await.map(drop) }, async {
        // The script has read the interrupt and closed its stdin by then.
        tokio::time::sleep(Duration::from_millis(500)).await;
        client.mcp_status().await.map(drop)
    });
    let elapsed = started.elapsed();
    for result in [waiting, later] {
        match result {
            Err(Error::Io(error)) => {
                assert_eq!(error.kind(), std::io::ErrorKind::BrokenPipe);
                assert_eq!(error.to_string(), "the Claude Code CLI closed its stdin");
            }
            other => panic!("expected a broken pipe, got {other:?}"),
        }
    }
    assert!(
        elapsed < Duration::from_secs(5),
        "failed after {elapsed:?}, not at once"
    );
    let exit = within(Duration::from_secs(15), "disconnect", client.disconnect())
        .await
        .unwrap();
    assert_eq!(exit, exited_with_code(5, "stdin closed"));
    drop(dir);
}

// ---- the CLI's pipes and grandchildren ----

/// stdout closed while the CLI lives on: the session waits its grace (5 s), ends the CLI and
/// reports how it ended (by our SIGTERM).
#[tokio::test]
async fn stdout_closed_while_the_cli_lives_on() {
    let script = canned::initialize()
        .then(canned::expect_user_message(json!("go")))
        .close_stdout()
        .sleep(Duration::from_secs(30));
    let fake = Fake::new(script);
    let mut stream = query("go", fake.options()).await.unwrap();
    let started = Instant::now();
    let item = within(Duration::from_secs(15), "the stream", stream.next()).await;
    match item {
        Some(Err(Error::ProcessExited {
            code,
            signal,
            stderr_tail,
        })) => assert_eq!(
            (code, signal, stderr_tail.as_str()),
            (None, Some(SIGTERM), "")
        ),
        other => panic!("expected ProcessExited, got {other:?}"),
    }
    assert!(started.elapsed() < Duration::from_secs(10));
    assert!(stream.next().await.is_none());
    assert_reaped(&fake).await;
}

/// The grandchild's pid, from the fake's `{"type": "fake_grandchild", "pid": …}` line.
fn grandchild_pid(message: &Message) -> Option<u32> {
    match message {
        Message::Other(value) if value["type"] == "fake_grandchild" => value["pid"]
            .as_u64()
            .and_then(|pid| u32::try_from(pid).ok()),
        _ => None,
    }
}

fn spawn_grandchild() -> FakeScript {
    spawn_grandchild_running(&["sleep", "30"])
}

fn spawn_grandchild_running(argv: &[&str]) -> FakeScript {
    FakeScript::new()
        .spawn(argv, "gc")
        .send(json!({"type": "fake_grandchild", "pid": "$gc"}))
}

/// A grandchild holding stdout (`sleep 30`) no longer keeps the session open for as long as it
/// lives: the stream ends soon after the CLI exits, and the grandchild is ended with it.
#[tokio::test]
async fn a_grandchild_holding_stdout_does_not_delay_the_end() {
    grandchild_holding_stdout(&["sleep", "30"]).await;
}

/// The same with a grandchild that ignores SIGTERM: stdout's grace ends the stream, the
/// group's SIGKILL ends the grandchild.
#[tokio::test]
async fn a_grandchild_ignoring_sigterm_does_not_delay_the_end() {
    grandchild_holding_stdout(&["sh", "-c", "trap '' TERM; exec sleep 30"]).await;
}

async fn grandchild_holding_stdout(argv: &[&str]) {
    let script = canned::initialize()
        .then(canned::expect_user_message(json!("go")))
        .then(spawn_grandchild_running(argv))
        // Time for the grandchild to set itself up (its `trap`) before the group is signalled.
        .sleep(Duration::from_millis(300))
        .then(canned::result("done"))
        .exit_with_stderr(0, "bye");
    let fake = Fake::new(script);
    let mut stream = query("go", fake.options()).await.unwrap();
    let mut grandchild = None;
    let mut result_at = None;
    let ended = within(Duration::from_secs(10), "the end of the stream", async {
        while let Some(message) = stream.next().await {
            let message = message.expect("no error items");
            grandchild = grandchild.or(grandchild_pid(&message));
            if matches!(message, Message::Result(_)) {
                assert!(result_at.replace(Instant::now()).is_none(), "one result");
            }
        }
        Instant::now()
    })
    .await;
    // The fake exits right after the result; `sleep 30` holds its stdout.
    let result_to_end = ended.duration_since(result_at.expect("the result"));
    eprintln!("from the result to the end of the stream: {result_to_end:?}");
    assert!(
        result_to_end < Duration::from_secs(2),
        "ended {result_to_end:?} after the result"
    );
    let exit = within(Duration::from_secs(5), "exit", stream.exit_status()).await;
    assert_eq!(exit, exited_with_code(0, "bye"));
    let grandchild = grandchild.expect("the grandchild's pid");
    assert_gone_within(grandchild, Duration::from_secs(5), true).await;
    assert_reaped(&fake).await;
}

/// The same through a client: `disconnect` returns soon, the grandchild is gone.
#[tokio::test]
async fn disconnect_returns_while_a_grandchild_holds_stdout() {
    let script = canned::initialize()
        .then(spawn_grandchild())
        .expect_eof(Duration::from_secs(20))
        .exit_with_stderr(3, "bye");
    let fake = Fake::new(script);
    let mut client = Client::connect(fake.options()).await.unwrap();
    let message = within(Duration::from_secs(10), "the pid", client.next_message())
        .await
        .expect("a message")
        .unwrap();
    let grandchild = grandchild_pid(&message).expect("the grandchild's pid");
    let exit = within(Duration::from_secs(5), "disconnect", client.disconnect())
        .await
        .unwrap();
    assert_eq!(exit, exited_with_code(3, "bye"));
    assert_gone_within(grandchild, Duration::from_secs(5), true).await;
    assert_reaped(&fake).await;
}

fn blocked_session(tag: &str) -> FakeScript {
    canned::initialize()
        .then(canned::expect_user_message(json!("go")))
        .then(spawn_grandchild())
        .then(block_call(tag))
        .expect_no_line_within(Duration::from_secs(20))
}

/// Asserts that the CLI and its grandchild are gone and that no tool answer was written.
async fn assert_nothing_left(fake: &Fake, grandchild: u32) {
    assert_gone_within(fake.pid(), Duration::from_secs(5), false).await;
    assert_gone_within(grandchild, Duration::from_secs(5), true).await;
    let lines = fake.transcript().json_lines().unwrap();
    assert_eq!(lines.len(), 2, "initialize and the prompt only: {lines:?}");
}

/// A client dropped mid-call ends the CLI and its grandchildren.
#[tokio::test]
async fn a_client_dropped_mid_call_leaves_no_process_behind() {
    let fake = Fake::new(blocked_session("drop-client"));
    let mut client = Client::connect(fake.options().mcp_server(Slow::server()))
        .await
        .unwrap();
    client.query("go").await.unwrap();
    let message = within(Duration::from_secs(10), "the pid", client.next_message())
        .await
        .expect("a message")
        .unwrap();
    let grandchild = grandchild_pid(&message).expect("the grandchild's pid");
    wait_started("drop-client").await;
    drop(client);
    assert_nothing_left(&fake, grandchild).await;
}

/// A message stream dropped mid-run ends the CLI and its grandchildren.
async fn drop_stream_mid_run(mut stream: MessageStream, fake: &Fake, tag: &str) {
    let message = within(Duration::from_secs(10), "the pid", stream.next())
        .await
        .expect("a message")
        .unwrap();
    let grandchild = grandchild_pid(&message).expect("the grandchild's pid");
    wait_started(tag).await;
    drop(stream);
    assert_nothing_left(fake, grandchild).await;
}

#[tokio::test]
async fn a_stream_dropped_mid_run_leaves_no_process_behind() {
    let fake = Fake::new(blocked_session("drop-stream"));
    let stream = query("go", fake.options().mcp_server(Slow::server()))
        .await
        .unwrap();
    drop_stream_mid_run(stream, &fake, "drop-stream").await;
}
