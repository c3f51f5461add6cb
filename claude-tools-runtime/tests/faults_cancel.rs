//! Faults around cancellation, against a scripted CLI (an in-memory transport) and the bare
//! router: the one contract of `CANCEL_GRACE` for tools, permission callbacks and hooks (the
//! token fires, the answer if any goes at once, a bounded grace, then the handler is dropped),
//! cancels for unknown and finished ids, panicking and never-returning handlers, duplicate
//! `request_id`s, and no task outliving its grace. Every line the host writes back is asserted
//! exactly.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use claude_tools_core::mcp::{CANCEL_GRACE, McpRouter};
use claude_tools_core::tool::{ToolCall, ToolDefBuilder, ToolServer};
use claude_tools_runtime::client::Client;
use claude_tools_runtime::hooks::{HookEvent, HookInput, HookMatcher, HookOutput};
use claude_tools_runtime::options::Options;
use claude_tools_runtime::permission::{PermissionDecision, PermissionRequest};
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

mod common;

use common::{
    Cli, Connecting, WAIT, failure, mcp_answer, string_argument, success, tool_text, u64_argument,
};

/// An answer "at once" arrives within this; the old behaviour waited for the handler, up to
/// the whole grace.
const AT_ONCE: Duration = Duration::from_millis(500);

/// How long a watching handler's cleanup takes after its token fired: well inside the grace,
/// well beyond [`AT_ONCE`].
const CLEANUP: Duration = Duration::from_millis(700);

/// What the handlers did, in order, for assertions.
#[derive(Default)]
struct Log(Mutex<Vec<String>>);

impl Log {
    fn push(&self, entry: impl Into<String>) {
        self.0.lock().unwrap().push(entry.into());
    }

    fn has(&self, entry: &str) -> bool {
        self.0.lock().unwrap().iter().any(|e| e == entry)
    }

    fn entries_for(&self, tag: &str) -> Vec<String> {
        let suffix = format!(" {tag}");
        self.0
            .lock()
            .unwrap()
            .iter()
            .filter(|e| e.ends_with(&suffix))
            .cloned()
            .collect()
    }

    /// Waits until the handler tagged `tag` is dropped, and checks it ran its cancellation
    /// branch in full before.
    async fn assert_cleaned_up(&self, tag: &str) {
        self.wait_for(&format!("dropped {tag}")).await;
        assert_eq!(
            self.entries_for(tag),
            [
                format!("start {tag}"),
                format!("cancel seen {tag}"),
                format!("cleaned {tag}"),
                format!("dropped {tag}")
            ]
        );
    }

    /// Waits until `entry` is logged and returns when it was first seen.
    async fn wait_for(&self, entry: &str) -> Instant {
        let deadline = Instant::now() + WAIT;
        while !self.has(entry) {
            assert!(
                Instant::now() < deadline,
                "`{entry}` never logged; log: {:?}",
                self.0.lock().unwrap()
            );
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        Instant::now()
    }
}

/// Logs `dropped <tag>` when the handler holding it is dropped: proof it did not leak.
struct DropGuard(Arc<Log>, String);

impl Drop for DropGuard {
    fn drop(&mut self) {
        self.0.push(format!("dropped {}", self.1));
    }
}

/// What a handler does, chosen by the request (`mode`), logged under `tag`.
///
/// - `watch`: waits for its token, then cleans up for [`CLEANUP`] and returns.
/// - `stubborn`: never returns and ignores its token.
/// - `panic_now`: panics on its first poll. `panic_later`: after an `.await`.
/// - `quick`: returns at once.
async fn behave(log: Arc<Log>, mode: String, tag: String, token: CancellationToken) {
    let _guard = DropGuard(log.clone(), tag.clone());
    log.push(format!("start {tag}"));
    match mode.as_str() {
        "watch" => {
            token.cancelled().await;
            log.push(format!("cancel seen {tag}"));
            tokio::time::sleep(CLEANUP).await;
            log.push(format!("cleaned {tag}"));
        }
        "stubborn" => std::future::pending::<()>().await,
        "panic_now" => panic!("{tag} exploded"),
        "panic_later" => {
            tokio::task::yield_now().await;
            tokio::time::sleep(Duration::from_millis(10)).await;
            panic!("{tag} exploded later");
        }
        _ => {}
    }
}

fn faults_server(log: Arc<Log>) -> ToolServer {
    let mut act = ToolDefBuilder::new("act");
    act.input()
        .property::<String>("mode", None, true)
        .property::<String>("tag", None, true);
    let mut slow = ToolDefBuilder::new("slow");
    slow.input()
        .property::<u64>("ms", None, true)
        .property::<String>("tag", None, true);
    ToolServer::new("faults", "1.0.0")
        .with_tool(act, move |mut call: ToolCall| {
            let mode = string_argument(&mut call, "mode");
            let tag = string_argument(&mut call, "tag");
            let token = call.context().cancellation_token().clone();
            let log = log.clone();
            async move {
                behave(log, mode, tag.clone(), token).await;
                format!("done {tag}")
            }
        })
        .unwrap()
        .with_tool(slow, |mut call: ToolCall| {
            let ms = u64_argument(&mut call, "ms");
            let tag = string_argument(&mut call, "tag");
            async move {
                tokio::time::sleep(Duration::from_millis(ms)).await;
                format!("slept {tag}")
            }
        })
        .unwrap()
        .with_tool(ToolDefBuilder::new("echo"), |_| async { "echo" })
        .unwrap()
}

fn options(log: &Arc<Log>) -> Options {
    let permission_log = log.clone();
    let hook_log = log.clone();
    Options::new()
        .mcp_server(faults_server(log.clone()))
        .can_use_tool(move |request: PermissionRequest| {
            let log = permission_log.clone();
            async move {
                let mode = request.input["mode"].as_str().unwrap_or_default().into();
                let tag = request.input["tag"].as_str().unwrap_or_default().into();
                behave(log, mode, tag, request.cancellation_token().clone()).await;
                PermissionDecision::allow()
            }
        })
        .hook(
            HookEvent::PreToolUse,
            HookMatcher::any().callback(move |input: HookInput| {
                let log = hook_log.clone();
                async move {
                    let field = |key: &str| {
                        input
                            .tool_input()
                            .and_then(|i| i[key].as_str())
                            .unwrap_or_default()
                            .to_string()
                    };
                    let (mode, tag) = (field("mode"), field("tag"));
                    behave(log, mode, tag, input.cancellation_token().clone()).await;
                    HookOutput::new().additional_context("hooked")
                }
            }),
        )
}

/// The CLI's two ways to cancel: withdrawing a control request, and MCP's own notification.
impl Cli {
    async fn cancel(&mut self, request_id: &str) {
        self.send(json!({"type": "control_cancel_request", "request_id": request_id}))
            .await;
    }

    /// Sends `notifications/cancelled` for JSON-RPC id `id` and checks its acknowledgement.
    async fn mcp_cancel(&mut self, request_id: &str, id: Value) {
        self.send(mcp_request(
            request_id,
            json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
                "params": {"requestId": id, "reason": "AbortError: remote-cancel"}}),
        ))
        .await;
        assert_eq!(
            self.recv().await,
            mcp_answer(request_id, json!({"jsonrpc": "2.0", "result": {}}))
        );
    }
}

fn mcp_request(request_id: &str, message: Value) -> Value {
    json!({"type": "control_request", "request_id": request_id,
        "request": {"subtype": "mcp_message", "server_name": "faults", "message": message}})
}

fn tool_call(request_id: &str, id: u64, name: &str, arguments: Value) -> Value {
    mcp_request(
        request_id,
        json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": name, "arguments": arguments}}),
    )
}

fn act(request_id: &str, id: u64, mode: &str, tag: &str) -> Value {
    tool_call(request_id, id, "act", json!({"mode": mode, "tag": tag}))
}

/// A call to `slow`, which sleeps `ms` and answers `slept <tag>`.
fn slow(request_id: &str, id: u64, ms: u64, tag: &str) -> Value {
    tool_call(request_id, id, "slow", json!({"ms": ms, "tag": tag}))
}

fn ask(request_id: &str, mode: &str, tag: &str) -> Value {
    json!({"type": "control_request", "request_id": request_id, "request": {"subtype": "can_use_tool",
        "tool_name": "mcp__faults__act", "input": {"mode": mode, "tag": tag}, "permission_suggestions": []}})
}

fn hook(request_id: &str, mode: &str, tag: &str) -> Value {
    json!({"type": "control_request", "request_id": request_id, "request": {"subtype": "hook_callback",
        "callback_id": "hook_0", "input": {"hook_event_name": "PreToolUse", "tool_name": "mcp__faults__act",
        "tool_input": {"mode": mode, "tag": tag}}}})
}

fn cancelled_answer(request_id: &str, id: u64) -> Value {
    mcp_answer(
        request_id,
        json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32800, "message": "Request cancelled"}}),
    )
}

fn allowed(request_id: &str, mode: &str, tag: &str) -> Value {
    success(
        request_id,
        json!({"behavior": "allow", "updatedInput": {"mode": mode, "tag": tag}}),
    )
}

/// Connects a client with the faults tools, callbacks and hook, writing to a fresh [`Log`], to a
/// scripted CLI, which answers `initialize` at once.
async fn connect() -> (Arc<Log>, Client, Cli) {
    let log = Arc::new(Log::default());
    let (connecting, mut cli) = Connecting::start(options(&log));
    let initialize = cli.recv().await;
    assert_eq!(
        initialize["request"]["hooks"],
        json!({"PreToolUse": [{"matcher": null, "hookCallbackIds": ["hook_0"]}]})
    );
    cli.answer(&initialize, json!({})).await;
    (log, connecting.client().await, cli)
}

/// Sends tool call `id` (`mode`, tagged `tag`) as control request `request_id`, cancels it once
/// its handler runs, and expects the `-32800` answer within [`AT_ONCE`]. Returns when the cancel
/// was sent.
async fn cancel_once_running(
    cli: &mut Cli,
    log: &Log,
    request_id: &str,
    id: u64,
    mode: &str,
    tag: &str,
) -> Instant {
    cli.send(act(request_id, id, mode, tag)).await;
    log.wait_for(&format!("start {tag}")).await;
    let cancelled_at = Instant::now();
    cli.mcp_cancel("m-cancel", json!(id)).await;
    assert_eq!(
        cli.recv_within(AT_ONCE).await,
        cancelled_answer(request_id, id)
    );
    cancelled_at
}

/// Asserts the handler tagged `tag` was `held` after `event` before it was dropped: the grace,
/// and not much more.
fn assert_dropped_after_the_grace(tag: &str, held: Duration, event: &str) {
    assert!(
        held >= CANCEL_GRACE && held < CANCEL_GRACE + Duration::from_secs(2),
        "{tag} dropped {held:?} after {event}"
    );
}

fn alive_tasks() -> usize {
    tokio::runtime::Handle::current()
        .metrics()
        .num_alive_tasks()
}

/// Waits until the runtime runs no more tasks than `baseline`.
async fn tasks_back_to(baseline: usize) {
    let deadline = Instant::now() + WAIT;
    while alive_tasks() > baseline {
        assert!(
            Instant::now() < deadline,
            "{} tasks alive, {baseline} expected",
            alive_tasks()
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert_eq!(alive_tasks(), baseline);
}

#[tokio::test]
async fn cancels_for_unknown_and_finished_ids_write_nothing_and_break_nothing() {
    let (_log, _client, mut cli) = connect().await;

    // Unknown ids: no line for a control_cancel_request, only the acknowledgement of the
    // notification's own mcp_message.
    cli.cancel("never-sent").await;
    cli.mcp_cancel("m-c1", json!(404)).await;
    cli.silent_for(150).await;

    // Finished requests: one answered on its first poll, one answered from its task, a
    // permission callback and a hook.
    cli.send(tool_call("t-quick", 1, "echo", json!({}))).await;
    assert_eq!(cli.recv().await, tool_text("t-quick", 1, "echo", false));
    cli.send(slow("t-slow", 2, 20, "a")).await;
    assert_eq!(cli.recv().await, tool_text("t-slow", 2, "slept a", false));
    cli.send(ask("p-done", "quick", "p")).await;
    assert_eq!(cli.recv().await, allowed("p-done", "quick", "p"));
    cli.send(hook("h-done", "quick", "h")).await;
    assert_eq!(
        cli.recv().await,
        success(
            "h-done",
            json!({"hookSpecificOutput": {"hookEventName": "PreToolUse", "additionalContext": "hooked"}})
        )
    );
    for request_id in ["t-quick", "t-slow", "p-done", "h-done"] {
        cli.cancel(request_id).await;
    }
    cli.mcp_cancel("m-c2", json!(1)).await;
    cli.mcp_cancel("m-c3", json!(2)).await;
    cli.silent_for(150).await;

    // The session goes on, the same ids included.
    cli.send(slow("t-slow", 2, 10, "b")).await;
    assert_eq!(cli.recv().await, tool_text("t-slow", 2, "slept b", false));
    cli.send(ask("p-done", "quick", "q")).await;
    assert_eq!(cli.recv().await, allowed("p-done", "quick", "q"));
    cli.silent_for(100).await;
}

#[tokio::test]
async fn a_cancelled_tool_that_watches_its_token_answers_at_once_and_cleans_up() {
    let (log, _client, mut cli) = connect().await;
    // Answered at once, while the handler is still cleaning up (before the fix the answer
    // waited for the handler).
    cancel_once_running(&mut cli, &log, "t-w", 7, "watch", "w").await;
    assert!(log.has("cancel seen w"), "the token fired first");
    assert!(!log.has("cleaned w"), "answered before the cleanup ended");

    // The cleanup runs to its end inside the grace, its result goes nowhere.
    log.assert_cleaned_up("w").await;
    cli.silent_for(100).await;
}

#[tokio::test]
async fn a_cancelled_tool_that_ignores_its_token_answers_at_once_and_is_dropped_after_the_grace() {
    let (log, _client, mut cli) = connect().await;
    let cancelled_at = cancel_once_running(&mut cli, &log, "t-s", 8, "stubborn", "s").await;
    assert!(!log.has("dropped s"), "the handler has its grace");

    let dropped_at = log.wait_for("dropped s").await;
    assert_dropped_after_the_grace("s", dropped_at - cancelled_at, "the cancel");
    assert_eq!(log.entries_for("s"), ["start s", "dropped s"]);
    cli.silent_for(100).await;
}

#[tokio::test]
async fn a_withdrawn_tool_request_is_not_answered_and_its_tool_keeps_the_contract() {
    let (log, _client, mut cli) = connect().await;
    cli.send(act("t-w", 1, "watch", "w")).await;
    cli.send(act("t-s", 2, "stubborn", "s")).await;
    log.wait_for("start s").await;

    let withdrawn_at = Instant::now();
    cli.cancel("t-w").await;
    cli.cancel("t-s").await;
    log.wait_for("cleaned w").await;
    let dropped_at = log.wait_for("dropped s").await;
    assert!(dropped_at - withdrawn_at >= CANCEL_GRACE);
    assert_eq!(
        log.entries_for("w"),
        ["start w", "cancel seen w", "cleaned w", "dropped w"]
    );
    cli.silent_for(100).await;
}

/// Sends two host callbacks built by `request` (one that watches its token, tagged
/// `{prefix}w`, one that ignores it, tagged `{prefix}s`), withdraws both, and checks the
/// watching one runs its cancellation branch, the stubborn one is dropped once its grace is
/// over, and neither gets an answer.
async fn assert_withdrawn_callbacks_clean_up(request: fn(&str, &str, &str) -> Value, prefix: &str) {
    let (watching, stubborn) = (format!("{prefix}w"), format!("{prefix}s"));
    let (watching_id, stubborn_id) = (format!("{prefix}-w"), format!("{prefix}-s"));
    let (log, _client, mut cli) = connect().await;
    cli.send(request(&watching_id, "watch", &watching)).await;
    cli.send(request(&stubborn_id, "stubborn", &stubborn)).await;
    log.wait_for(&format!("start {stubborn}")).await;

    let withdrawn_at = Instant::now();
    cli.cancel(&watching_id).await;
    cli.cancel(&stubborn_id).await;
    log.assert_cleaned_up(&watching).await;
    // The one that never returns is dropped once its grace is over.
    let dropped_at = log.wait_for(&format!("dropped {stubborn}")).await;
    assert_dropped_after_the_grace(&stubborn, dropped_at - withdrawn_at, "the cancel");
    cli.silent_for(100).await;
}

#[tokio::test]
async fn a_withdrawn_permission_callback_runs_its_cancellation_branch_and_gets_no_answer() {
    assert_withdrawn_callbacks_clean_up(ask, "p").await;
}

#[tokio::test]
async fn a_withdrawn_hook_runs_its_cancellation_branch_and_gets_no_answer() {
    assert_withdrawn_callbacks_clean_up(hook, "h").await;
}

#[tokio::test]
async fn panicking_tools_callbacks_and_hooks_get_exactly_one_answer_each() {
    let (log, _client, mut cli) = connect().await;

    let cases = [
        (
            act("t-now", 1, "panic_now", "t1"),
            tool_text("t-now", 1, "tool `act` panicked: t1 exploded", true),
        ),
        (
            act("t-later", 2, "panic_later", "t2"),
            tool_text("t-later", 2, "tool `act` panicked: t2 exploded later", true),
        ),
        (
            ask("p-now", "panic_now", "p1"),
            failure(
                "p-now",
                "the host's `can_use_tool` handler panicked: p1 exploded",
            ),
        ),
        (
            ask("p-later", "panic_later", "p2"),
            failure(
                "p-later",
                "the host's `can_use_tool` handler panicked: p2 exploded later",
            ),
        ),
        (
            hook("h-now", "panic_now", "h1"),
            failure(
                "h-now",
                "the host's `hook_callback` handler panicked: h1 exploded",
            ),
        ),
        (
            hook("h-later", "panic_later", "h2"),
            failure(
                "h-later",
                "the host's `hook_callback` handler panicked: h2 exploded later",
            ),
        ),
    ];
    for (request, answer) in cases {
        let request_id = request["request_id"].clone();
        cli.send(request).await;
        assert_eq!(cli.recv().await, answer, "the answer to {request_id}");
    }
    cli.silent_for(200).await;
    for tag in ["t1", "t2", "p1", "p2", "h1", "h2"] {
        assert!(log.has(&format!("dropped {tag}")), "{tag} was dropped");
    }
}

#[tokio::test]
async fn a_request_id_sent_twice_while_running_is_answered_twice() {
    let (_log, _client, mut cli) = connect().await;
    cli.send(slow("dup", 1, 100, "first")).await;
    cli.send(slow("dup", 2, 200, "second")).await;
    assert_eq!(cli.recv().await, tool_text("dup", 1, "slept first", false));
    assert_eq!(cli.recv().await, tool_text("dup", 2, "slept second", false));

    // In the other order of finishing, and mixed kinds.
    cli.send(slow("dup2", 3, 200, "a")).await;
    cli.send(json!({"type": "control_request", "request_id": "dup2", "request": {"subtype": "can_use_tool",
        "tool_name": "Bash", "input": {"mode": "quick", "tag": "b"}}}))
        .await;
    assert_eq!(cli.recv().await, allowed("dup2", "quick", "b"));
    assert_eq!(cli.recv().await, tool_text("dup2", 3, "slept a", false));
    cli.silent_for(100).await;
}

#[tokio::test]
async fn a_cancel_for_a_duplicated_request_id_withdraws_every_request_under_it() {
    let (log, _client, mut cli) = connect().await;
    cli.send(ask("dup", "watch", "one")).await;
    cli.send(ask("dup", "watch", "two")).await;
    cli.send(hook("dup", "stubborn", "three")).await;
    log.wait_for("start three").await;
    cli.cancel("dup").await;
    for tag in ["one", "two"] {
        log.assert_cleaned_up(tag).await;
    }
    log.wait_for("dropped three").await;
    cli.silent_for(100).await;
}

#[tokio::test]
async fn at_the_session_end_every_running_handler_sees_its_token_and_is_dropped() {
    let baseline = alive_tasks();
    let (log, client, mut cli) = connect().await;
    cli.send(act("t-w", 1, "watch", "tw")).await;
    cli.send(act("t-s", 2, "stubborn", "ts")).await;
    cli.send(ask("p-w", "watch", "pw")).await;
    cli.send(ask("p-s", "stubborn", "ps")).await;
    cli.send(hook("h-w", "watch", "hw")).await;
    cli.send(hook("h-s", "stubborn", "hs")).await;
    for tag in ["tw", "ts", "pw", "ps", "hw", "hs"] {
        log.wait_for(&format!("start {tag}")).await;
    }

    // The CLI exits.
    let ended_at = Instant::now();
    cli.0.close();
    for tag in ["tw", "pw", "hw"] {
        log.assert_cleaned_up(tag).await;
    }
    for tag in ["ts", "ps", "hs"] {
        let held = log.wait_for(&format!("dropped {tag}")).await - ended_at;
        assert_dropped_after_the_grace(tag, held, "the end");
    }
    drop(client);
    tasks_back_to(baseline).await;
}

#[tokio::test]
async fn no_task_outlives_its_grace() {
    let (log, _client, mut cli) = connect().await;
    // The session's own tasks (reader, writer) are the baseline.
    cli.send(slow("warm", 1, 5, "warm")).await;
    assert_eq!(cli.recv().await, tool_text("warm", 1, "slept warm", false));
    let baseline = alive_tasks();

    cli.send(act("t-w", 2, "watch", "tw")).await;
    cli.send(act("t-s", 3, "stubborn", "ts")).await;
    cli.send(act("t-x", 4, "stubborn", "tx")).await;
    cli.send(ask("p-w", "watch", "pw")).await;
    cli.send(ask("p-s", "stubborn", "ps")).await;
    cli.send(hook("h-w", "watch", "hw")).await;
    cli.send(hook("h-s", "stubborn", "hs")).await;
    for tag in ["tw", "ts", "tx", "pw", "ps", "hw", "hs"] {
        log.wait_for(&format!("start {tag}")).await;
    }
    assert!(alive_tasks() > baseline);
    cli.mcp_cancel("m-1", json!(2)).await;
    assert_eq!(cli.recv().await, cancelled_answer("t-w", 2));
    cli.mcp_cancel("m-2", json!(3)).await;
    assert_eq!(cli.recv().await, cancelled_answer("t-s", 3));
    for request_id in ["t-x", "p-w", "p-s", "h-w", "h-s"] {
        cli.cancel(request_id).await;
    }
    for tag in ["tw", "ts", "tx", "pw", "ps", "hw", "hs"] {
        log.wait_for(&format!("dropped {tag}")).await;
    }
    tasks_back_to(baseline).await;
    cli.silent_for(100).await;
}

/// The router alone (as served over stdio or HTTP): the reply comes back at once, the handler's
/// grace runs on in a task of its own.
mod router {
    use super::*;

    fn router(log: &Arc<Log>) -> McpRouter {
        McpRouter::new(faults_server(log.clone()))
    }

    fn call(id: u64, mode: &str, tag: &str) -> Value {
        json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": "act", "arguments": {"mode": mode, "tag": tag}}})
    }

    fn cancel(id: u64) -> Value {
        json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": id}})
    }

    fn cancelled(id: u64) -> Value {
        json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32800, "message": "Request cancelled"}})
    }

    #[tokio::test]
    async fn a_cancelled_call_replies_at_once_and_its_handler_is_dropped_after_the_grace() {
        let log = Arc::new(Log::default());
        let router = router(&log);
        let running = tokio::spawn({
            let router = router.clone();
            async move { router.handle_json(call(1, "stubborn", "s")).await }
        });
        log.wait_for("start s").await;
        let cancelled_at = Instant::now();
        assert_eq!(router.handle_json(cancel(1)).await, None);
        let reply = tokio::time::timeout(AT_ONCE, running)
            .await
            .expect("replied at once")
            .unwrap();
        assert_eq!(reply, Some(cancelled(1)));
        assert_eq!(router.in_flight_calls(), 0);
        assert!(!log.has("dropped s"), "the handler has its grace");
        let held = log.wait_for("dropped s").await - cancelled_at;
        assert!(held >= CANCEL_GRACE, "dropped {held:?} after the cancel");
    }

    #[tokio::test]
    async fn cancel_all_replies_at_once_and_lets_watching_handlers_clean_up() {
        let log = Arc::new(Log::default());
        let router = router(&log);
        let running: Vec<_> = [(1, "a"), (2, "b")]
            .into_iter()
            .map(|(id, tag)| {
                let router = router.clone();
                tokio::spawn(async move { router.handle_json(call(id, "watch", tag)).await })
            })
            .collect();
        log.wait_for("start a").await;
        log.wait_for("start b").await;
        router.cancel_all();
        for (id, task) in [1, 2].into_iter().zip(running) {
            let reply = tokio::time::timeout(AT_ONCE, task)
                .await
                .expect("replied at once")
                .unwrap();
            assert_eq!(reply, Some(cancelled(id)));
        }
        assert!(!log.has("cleaned a") && !log.has("cleaned b"));
        for tag in ["a", "b"] {
            log.wait_for(&format!("dropped {tag}")).await;
            assert_eq!(
                log.entries_for(tag),
                [
                    format!("start {tag}"),
                    format!("cancel seen {tag}"),
                    format!("cleaned {tag}"),
                    format!("dropped {tag}")
                ]
            );
        }
    }

    #[tokio::test]
    async fn dropping_the_reply_future_gives_the_handler_its_grace() {
        let log = Arc::new(Log::default());
        let router = router(&log);
        let running = tokio::spawn({
            let router = router.clone();
            async move { router.handle_json(call(3, "watch", "w")).await }
        });
        log.wait_for("start w").await;
        running.abort();
        log.wait_for("dropped w").await;
        assert_eq!(
            log.entries_for("w"),
            ["start w", "cancel seen w", "cleaned w", "dropped w"]
        );
        assert_eq!(router.in_flight_calls(), 0);
    }
}
