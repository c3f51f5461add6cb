//! Issue 18: a handler that blocks its thread in its first poll (sync I/O, a held lock, CPU
//! work) must not stall the session's other requests on a multi-thread runtime with a worker
//! to spare, whatever the handler is: a `#[tool]`, a typed or raw run-time tool, the permission
//! callback or a hook.
//!
//! The CLI's side never runs on a thread of its own, which would hand the host a third thread
//! its users do not have: over the in-memory transport it is a task spawned on one of the
//! runtime's two workers, and over real pipes it is the `scripted-cli` child process.
//!
//! Each round sends a request that blocks, waits a gap (5, 20, 50 or 200 ms), and sends a quick
//! request of the same kind. The quick one must be answered first; only then does the CLI send
//! a `release` call, which opens the gate the blocker is waiting on. The blocker answers
//! `released` only if the gate opened while it held its thread, which takes the quick answer and
//! the `release` call both going through meanwhile. A session that stalls answers nothing until
//! the blocker gives up after [`HOLD`] and answers `held`: the order and the word catch it, not
//! a clock.

use std::sync::{Arc, Mutex, mpsc};
use std::time::Duration;

use claude_tools::prelude::*;
use claude_tools::transport::{MemoryCli, MemoryTransport};
use claude_tools::{Error, HookInput, ToolCall, ToolDefBuilder};
use claude_tools_testkit::fake_cli::canned;
use claude_tools_testkit::fake_cli::pattern::{Vars, match_line};
use serde_json::{Value, json};

mod common;

use common::Fake;

/// The gaps between the blocking request and the quick one.
const GAPS: [u64; 4] = [5, 20, 50, 200];
/// How long a blocked handler waits for its gate before it gives up (and answers `held`).
const HOLD: Duration = Duration::from_secs(10);
/// The longest any step of a passing test waits.
const WAIT: Duration = Duration::from_secs(30);

/// A gate a blocking handler waits on, holding its thread.
#[derive(Clone)]
pub struct Gate(Arc<GateEnds>);

/// The gate's channel: one message opens it once.
pub struct GateEnds {
    open: Mutex<mpsc::Sender<()>>,
    wait: Mutex<mpsc::Receiver<()>>,
}

impl Gate {
    fn new() -> Self {
        let (open, wait) = mpsc::channel();
        Gate(Arc::new(GateEnds {
            open: Mutex::new(open),
            wait: Mutex::new(wait),
        }))
    }

    /// What a handler answers: `quick` at once, or after blocking its thread on the gate,
    /// `released` when it was opened, `held` when it never was.
    fn outcome(&self, block: bool) -> String {
        if !block {
            return "quick".into();
        }
        let opened = self.0.wait.lock().unwrap().recv_timeout(HOLD);
        if opened.is_ok() { "released" } else { "held" }.into()
    }

    fn open(&self) {
        let _ = self.0.open.lock().unwrap().send(());
    }
}

#[tool_server(name = "gate", version = "1.0.0")]
pub struct GateServer;

/// Wait at the gate when asked to.
#[tool(server = GateServer)]
async fn by_macro(State(gate): State<Gate>, block: bool) -> String {
    gate.outcome(block)
}

/// The typed run-time tool's input.
#[derive(Deserialize, JsonSchema)]
pub struct Block {
    /// Wait at the gate
    pub block: bool,
}

/// `by_macro`, a typed run-time tool `typed`, a raw one `raw`, and `release`, which opens the
/// gate.
fn server(gate: &Gate) -> ToolServer {
    let (typed, raw, release) = (gate.clone(), gate.clone(), gate.clone());
    GateServer::server()
        .with_state(gate.clone())
        .with_typed_tool(
            ToolDefBuilder::new("typed").description("Wait at the gate when asked to."),
            move |input: Block| {
                let gate = typed.clone();
                // The wait is in the future's first poll, as in an `async fn`.
                async move { gate.outcome(input.block) }
            },
        )
        .unwrap()
        .with_tool(
            ToolDefBuilder::new("raw").description("Wait at the gate when asked to."),
            move |mut call: ToolCall| {
                let gate = raw.clone();
                let block = call.take_argument("block") == Some(Value::Bool(true));
                async move { gate.outcome(block) }
            },
        )
        .unwrap()
        .with_tool(
            ToolDefBuilder::new("release").description("Open the gate."),
            move |_call: ToolCall| {
                release.open();
                async { "opened" }
            },
        )
        .unwrap()
}

/// The options of a session whose every handler can block at `gate`.
fn options(gate: &Gate, base: Options) -> Options {
    let (permission, hook) = (gate.clone(), gate.clone());
    base.mcp_server(server(gate))
        .can_use_tool(move |request: PermissionRequest| {
            let gate = permission.clone();
            async move { PermissionDecision::deny(gate.outcome(request.input["block"] == true)) }
        })
        .hook(
            HookEvent::PreToolUse,
            HookMatcher::any().callback(move |input: HookInput| {
                let gate = hook.clone();
                async move {
                    let block = input.tool_input().is_some_and(|i| i["block"] == true);
                    HookOutput::new().system_message(gate.outcome(block))
                }
            }),
        )
}

/// The kind of handler that blocks.
#[derive(Clone, Copy, Debug)]
enum Kind {
    Macro,
    Typed,
    Raw,
    Permission,
    Hook,
}

impl Kind {
    /// The CLI's request `request_id` for a handler of this kind, blocking or not.
    fn request(self, request_id: &str, block: bool) -> Value {
        let body = match self {
            Kind::Macro => return tool_call(request_id, "by_macro", json!({"block": block})),
            Kind::Typed => return tool_call(request_id, "typed", json!({"block": block})),
            Kind::Raw => return tool_call(request_id, "raw", json!({"block": block})),
            Kind::Permission => json!({"subtype": "can_use_tool", "tool_name": "Bash",
                "input": {"block": block}, "permission_suggestions": [], "tool_use_id": "toolu_1"}),
            Kind::Hook => json!({"subtype": "hook_callback", "callback_id": "hook_0",
                "input": {"hook_event_name": "PreToolUse", "tool_name": "Bash",
                    "tool_input": {"block": block}}, "tool_use_id": "toolu_1"}),
        };
        json!({"type": "control_request", "request_id": request_id, "request": body})
    }

    /// A pattern (see the test kit's `pattern`) of the host's answer to `request_id` saying
    /// `outcome`.
    fn answer(self, request_id: &str, outcome: &str) -> Value {
        let response = match self {
            Kind::Macro | Kind::Typed | Kind::Raw => tool_answer(outcome),
            Kind::Permission => json!({"behavior": "deny", "message": outcome}),
            Kind::Hook => json!({"systemMessage": outcome}),
        };
        json!({"type": "control_response", "response": {"subtype": "success",
            "request_id": request_id, "response": response}})
    }
}

fn tool_call(request_id: &str, tool: &str, arguments: Value) -> Value {
    json!({"type": "control_request", "request_id": request_id, "request": {"subtype": "mcp_message",
        "server_name": "gate", "message": {"method": "tools/call",
            "params": {"name": tool, "arguments": arguments}, "jsonrpc": "2.0", "id": 1}}})
}

fn tool_answer(text: &str) -> Value {
    json!({"mcp_response": {"result": {"content": [{"type": "text", "text": text}], "isError": false}}})
}

/// The `release` call of round `gap`, and a pattern of its answer.
fn release(gap: u64) -> (Value, Value) {
    let request_id = format!("release{gap}");
    let answer = json!({"type": "control_response", "response": {"subtype": "success",
        "request_id": request_id, "response": tool_answer("opened")}});
    (tool_call(&request_id, "release", json!({})), answer)
}

/// Whether `line` matches `pattern`.
fn matches(pattern: &Value, line: &Value) -> bool {
    match_line(pattern, line, &Vars::new()).is_ok()
}

/// The next line the host writes, as JSON.
async fn recv(cli: &mut MemoryCli) -> Value {
    match tokio::time::timeout(WAIT, cli.next_json()).await {
        Ok(Ok(Some(line))) => line,
        other => panic!("expected a line from the host, got {other:?}"),
    }
}

/// The CLI's side of the rounds over the in-memory transport, run as a task on a worker.
async fn play_in_memory(kind: Kind, mut cli: MemoryCli) {
    let initialize = recv(&mut cli).await;
    assert_eq!(initialize["request"]["subtype"], "initialize");
    let answer = json!({"type": "control_response", "response": {"subtype": "success",
        "request_id": initialize["request_id"], "response": {}}});
    cli.write_json(&answer).await.unwrap();
    for gap in GAPS {
        let (slow, fast) = (format!("slow{gap}"), format!("fast{gap}"));
        cli.write_json(&kind.request(&slow, true)).await.unwrap();
        tokio::time::sleep(Duration::from_millis(gap)).await;
        cli.write_json(&kind.request(&fast, false)).await.unwrap();
        let first = recv(&mut cli).await;
        assert!(
            matches(&kind.answer(&fast, "quick"), &first),
            "{kind:?}, gap {gap} ms: the quick request was not answered while the blocking one \
             held its thread; first answer: {first}"
        );
        let (release_call, released) = release(gap);
        cli.write_json(&release_call).await.unwrap();
        let mut rest = [recv(&mut cli).await, recv(&mut cli).await];
        if !matches(&released, &rest[0]) {
            rest.swap(0, 1);
        }
        assert!(
            matches(&released, &rest[0]),
            "{kind:?}, gap {gap} ms: {rest:?}"
        );
        assert!(
            matches(&kind.answer(&slow, "released"), &rest[1]),
            "{kind:?}, gap {gap} ms: the blocking request {}",
            rest[1]
        );
        // Long enough for the session to go idle between rounds.
        tokio::time::sleep(Duration::from_millis(150)).await;
    }
}

async fn in_memory(kind: Kind) {
    let gate = Gate::new();
    let (transport, cli) = MemoryTransport::pair();
    let connecting = tokio::spawn(Client::connect_with(
        options(&gate, Options::new()),
        transport,
    ));
    // The CLI's side is a task on the runtime's workers, like any task of the application.
    let cli_side = tokio::spawn(play_in_memory(kind, cli));
    let client = tokio::time::timeout(WAIT, connecting)
        .await
        .expect("connected in time")
        .unwrap()
        .expect("connected");
    tokio::time::timeout(WAIT * 2, cli_side)
        .await
        .expect("the rounds ended")
        .expect("every round passed");
    drop(client);
}

/// The same rounds played by the `scripted-cli` child process, which checks each line the host
/// writes (a mismatch makes it exit 3 with a diagnostic on stderr).
async fn child_process(kind: Kind) {
    let gate = Gate::new();
    let mut script = canned::initialize();
    for gap in GAPS {
        let (slow, fast) = (format!("slow{gap}"), format!("fast{gap}"));
        let (release_call, released) = release(gap);
        script = script
            .send(kind.request(&slow, true))
            .sleep(Duration::from_millis(gap))
            .send(kind.request(&fast, false))
            .expect(kind.answer(&fast, "quick"))
            .send(release_call)
            .expect_unordered(vec![released, kind.answer(&slow, "released")])
            .sleep(Duration::from_millis(150));
    }
    let script = script
        .send(json!({"type": "x_rounds_done"}))
        .expect_eof(WAIT);
    let fake = Fake::new(script);
    let mut client = Client::connect(options(&gate, fake.options()))
        .await
        .expect("connected");
    loop {
        match tokio::time::timeout(WAIT * 2, client.next_message()).await {
            Ok(Some(Ok(Message::Other(value)))) if value["type"] == "x_rounds_done" => break,
            Ok(Some(Ok(_))) => {}
            Ok(Some(Err(Error::ProcessExited {
                code, stderr_tail, ..
            }))) => panic!("{kind:?}: the scripted CLI exited with {code:?}: {stderr_tail}"),
            other => panic!("{kind:?}: {other:?}"),
        }
    }
    let exit = client.disconnect().await.expect("disconnected");
    assert_eq!(exit.code, Some(0), "{kind:?}: {}", exit.stderr_tail);
}

/// Runs `scenario` as a task on one of the runtime's workers: the test's own thread, which
/// the runtime does not count, only waits.
async fn on_a_worker(scenario: impl std::future::Future<Output = ()> + Send + 'static) {
    tokio::spawn(scenario).await.expect("the scenario passed");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_blocking_macro_tool_does_not_stall_the_session_in_memory() {
    on_a_worker(in_memory(Kind::Macro)).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_blocking_typed_tool_does_not_stall_the_session_in_memory() {
    on_a_worker(in_memory(Kind::Typed)).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_blocking_raw_tool_does_not_stall_the_session_in_memory() {
    on_a_worker(in_memory(Kind::Raw)).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_blocking_permission_callback_does_not_stall_the_session_in_memory() {
    on_a_worker(in_memory(Kind::Permission)).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_blocking_hook_does_not_stall_the_session_in_memory() {
    on_a_worker(in_memory(Kind::Hook)).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_blocking_macro_tool_does_not_stall_a_child_process_session() {
    on_a_worker(child_process(Kind::Macro)).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_blocking_typed_tool_does_not_stall_a_child_process_session() {
    on_a_worker(child_process(Kind::Typed)).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_blocking_raw_tool_does_not_stall_a_child_process_session() {
    on_a_worker(child_process(Kind::Raw)).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_blocking_permission_callback_does_not_stall_a_child_process_session() {
    on_a_worker(child_process(Kind::Permission)).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_blocking_hook_does_not_stall_a_child_process_session() {
    on_a_worker(child_process(Kind::Hook)).await;
}

// Issue 33: handlers that block their thread *after* an await, the real shape of such code (an
// async lookup, then a sync client, a `std::sync::Mutex` or CPU work). The first poll returns at
// the await; the rest runs in the handler's own task on the application's runtime and blocks a
// worker there. Over a real child process this used to stall the whole session (the worker that
// had last turned tokio's I/O driver was the one that blocked, and the other slept on its
// condition variable with nobody to collect the CLI's next line); over in-memory pipes it did
// not show. The scripted CLI checks the order of the host's answers: the quick request, sent
// 50 ms after the blocking ones, must be answered before any of them, that is well within the
// [`BLOCK`] they hold their threads; a stalled session answers it only after.

/// How long a handler that blocks after an await holds its thread.
const BLOCK: Duration = Duration::from_secs(2);

#[tool_server(name = "late", version = "1.0.0")]
pub struct LateServer;

/// Yield once, then block the thread for two seconds when asked to.
#[tool(server = LateServer)]
async fn late(block: bool) -> String {
    late_outcome(block).await
}

/// `quick` at once, or `blocked` after yielding once and then blocking the thread for
/// [`BLOCK`].
async fn late_outcome(block: bool) -> String {
    if !block {
        return "quick".into();
    }
    tokio::task::yield_now().await;
    std::thread::sleep(BLOCK);
    "blocked".into()
}

/// The options of a session whose tool, permission callback and hook block after an await.
fn late_options(base: Options) -> Options {
    base.mcp_server(LateServer::server())
        .can_use_tool(|request: PermissionRequest| async move {
            PermissionDecision::deny(late_outcome(request.input["block"] == true).await)
        })
        .hook(
            HookEvent::PreToolUse,
            HookMatcher::any().callback(|input: HookInput| async move {
                let block = input.tool_input().is_some_and(|i| i["block"] == true);
                HookOutput::new().system_message(late_outcome(block).await)
            }),
        )
}

/// The CLI's request `request_id` for the handler of `kind` that blocks after an await
/// (`Macro`: the `late` tool, JSON-RPC id `call_id`; `Permission`, `Hook`: the callbacks of
/// [`late_options`]).
fn late_request(kind: Kind, request_id: &str, call_id: usize, block: bool) -> Value {
    match kind {
        Kind::Macro => json!({"type": "control_request", "request_id": request_id,
            "request": {"subtype": "mcp_message", "server_name": "late", "message": {
                "method": "tools/call", "params": {"name": "late", "arguments": {"block": block}},
                "jsonrpc": "2.0", "id": call_id}}}),
        other => other.request(request_id, block),
    }
}

/// `blocking` requests of `kind` that block after an await, then 50 ms later a quick one,
/// played by the `scripted-cli` child process against a session on the test's runtime.
async fn blocked_after_an_await(kind: Kind, blocking: usize) {
    let slow: Vec<String> = (0..blocking).map(|i| format!("slow{i}")).collect();
    let mut script = canned::initialize();
    for (call_id, request_id) in slow.iter().enumerate() {
        script = script.send(late_request(kind, request_id, call_id, true));
    }
    let script = script
        .sleep(Duration::from_millis(50))
        .send(late_request(kind, "fast", blocking, false))
        // The next line the host writes: the quick answer, not one of the blocked ones.
        .expect(kind.answer("fast", "quick"))
        .expect_unordered(
            slow.iter()
                .map(|request_id| kind.answer(request_id, "blocked"))
                .collect(),
        )
        .send(json!({"type": "x_rounds_done"}))
        .expect_eof(WAIT);
    let fake = Fake::new(script);
    let mut client = Client::connect(late_options(fake.options()))
        .await
        .expect("connected");
    loop {
        match tokio::time::timeout(WAIT * 2, client.next_message()).await {
            Ok(Some(Ok(Message::Other(value)))) if value["type"] == "x_rounds_done" => break,
            Ok(Some(Ok(_))) => {}
            Ok(Some(Err(Error::ProcessExited {
                code, stderr_tail, ..
            }))) => panic!(
                "{kind:?} × {blocking}: the scripted CLI exited with {code:?}: {stderr_tail}"
            ),
            other => panic!("{kind:?} × {blocking}: {other:?}"),
        }
    }
    let exit = client.disconnect().await.expect("disconnected");
    assert_eq!(
        exit.code,
        Some(0),
        "{kind:?} × {blocking}: {}",
        exit.stderr_tail
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tool_that_blocks_after_an_await_does_not_stall_a_child_process_session() {
    on_a_worker(blocked_after_an_await(Kind::Macro, 1)).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn four_tools_that_block_after_an_await_do_not_stall_a_child_process_session() {
    on_a_worker(blocked_after_an_await(Kind::Macro, 4)).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_permission_callback_that_blocks_after_an_await_does_not_stall_a_child_process_session() {
    on_a_worker(blocked_after_an_await(Kind::Permission, 1)).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn four_permission_callbacks_that_block_after_an_await_do_not_stall_a_child_process_session()
{
    on_a_worker(blocked_after_an_await(Kind::Permission, 4)).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hook_that_blocks_after_an_await_does_not_stall_a_child_process_session() {
    on_a_worker(blocked_after_an_await(Kind::Hook, 1)).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn four_hooks_that_block_after_an_await_do_not_stall_a_child_process_session() {
    on_a_worker(blocked_after_an_await(Kind::Hook, 4)).await;
}

/// `tokio::task::block_in_place` in a tool's first poll, which runs on the session's reading
/// thread: outside any runtime there, so it runs the closure (inside the reading runtime's
/// `block_on` it would panic, as on any current-thread runtime).
#[tool(server = LateServer)]
async fn in_place() -> String {
    tokio::task::block_in_place(|| "in place".to_string())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn block_in_place_works_in_a_first_poll_of_a_child_process_session() {
    on_a_worker(async {
        let call = json!({"type": "control_request", "request_id": "bip",
            "request": {"subtype": "mcp_message", "server_name": "late", "message": {
                "method": "tools/call", "params": {"name": "in_place", "arguments": {}},
                "jsonrpc": "2.0", "id": 1}}});
        let script = canned::initialize()
            .send(call)
            .expect(Kind::Macro.answer("bip", "in place"))
            .send(json!({"type": "x_rounds_done"}))
            .expect_eof(WAIT);
        let fake = Fake::new(script);
        let mut client = Client::connect(late_options(fake.options()))
            .await
            .expect("connected");
        loop {
            match tokio::time::timeout(WAIT, client.next_message()).await {
                Ok(Some(Ok(Message::Other(value)))) if value["type"] == "x_rounds_done" => break,
                Ok(Some(Ok(_))) => {}
                other => panic!("{other:?}"),
            }
        }
        let exit = client.disconnect().await.expect("disconnected");
        assert_eq!(exit.code, Some(0), "{}", exit.stderr_tail);
    })
    .await;
}
