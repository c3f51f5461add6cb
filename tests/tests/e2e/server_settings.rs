//! Per-server MCP settings (`Options::mcp_server_settings`) through the real CLI 2.1.332 and
//! the scripted model: what the CLI does with each, for in-process servers and external ones
//! (the testkit's stdio `echo-mcp`, and a tool server of this test over Streamable HTTP on
//! 127.0.0.1), each against the same run without the setting; and the settings the CLI ignores
//! refused before it starts.
//!
//! The tools that run too long wait on a gate the test opens, never on a fixed sleep.

use std::sync::Arc;
use std::time::{Duration, Instant};

use claude_tools::{ToolCall, ToolDefBuilder, ToolServer};
use claude_tools_runtime::client::Client;
use claude_tools_runtime::elicitation::ElicitationAnswer;
use claude_tools_runtime::options::{
    ConfigDelivery, ExternalServer, McpServerEntry, McpServerSettings, Options, PermissionMode,
    ToolPermissionPolicy,
};
use claude_tools_runtime::permission::PermissionDecision;
use claude_tools_testkit::model_server::{Script, Turn};
use serde_json::json;
use tokio::sync::watch;

use crate::harness::{success_text, within, world};
use crate::run_query;

/// The timeout the tests set: over the CLI's one-second floor, far under the default.
const TIMEOUT: Duration = Duration::from_millis(1500);

/// What the gate's tools saw, in order.
#[derive(Debug, Clone, PartialEq)]
enum Seen {
    /// `hold` started, with the call's tool_use id.
    HoldStarted(Option<String>, Instant),
    /// `hold`'s cancellation token fired.
    HoldCancelled,
    /// `hold` returned its answer (after the gate opened).
    HoldReturned,
    /// `hold`'s future was dropped before it returned.
    HoldDropped,
    /// `ping` ran.
    Ping,
}

/// A tool server `name` with two tools: `hold`, which answers only once the test opens the
/// gate (noting when its cancellation token fires, and waiting on), and `ping`, which answers
/// `pong` at once.
struct Gate {
    open: watch::Sender<bool>,
    seen: watch::Sender<Vec<Seen>>,
}

impl Gate {
    /// The server and its gate. With `always_load` false the tools leave
    /// `_meta["anthropic/alwaysLoad"]` out (so tool search defers them by default); with
    /// `true` they carry it, as every tool of a `ToolServer` does by default.
    fn server(name: &str, always_load: bool) -> (ToolServer, Arc<Gate>) {
        let gate = Arc::new(Gate {
            open: watch::Sender::new(false),
            seen: watch::Sender::new(Vec::new()),
        });
        let def = |tool: &str| {
            let mut def = ToolDefBuilder::new(tool);
            def.always_load(always_load);
            def
        };
        let (for_hold, for_ping) = (gate.clone(), gate.clone());
        let server = ToolServer::new(name, "1.0.0")
            .with_tool(def("hold"), move |call: ToolCall| {
                let gate = for_hold.clone();
                async move { gate.hold(call).await }
            })
            .expect("hold")
            .with_tool(def("ping"), move |_call: ToolCall| {
                for_ping.note(Seen::Ping);
                async { "pong" }
            })
            .expect("ping");
        (server, gate)
    }

    async fn hold(&self, call: ToolCall) -> &'static str {
        let ctx = call.context().clone();
        self.note(Seen::HoldStarted(
            ctx.tool_use_id().map(str::to_string),
            Instant::now(),
        ));
        let mut ended = DropNote {
            gate: self,
            returned: false,
        };
        let mut open = self.open.subscribe();
        let cancelled = ctx.cancelled();
        tokio::pin!(cancelled);
        let mut saw_cancel = false;
        loop {
            tokio::select! {
                _ = &mut cancelled, if !saw_cancel => {
                    saw_cancel = true;
                    self.note(Seen::HoldCancelled);
                }
                _ = open.wait_for(|open| *open) => break,
            }
        }
        ended.returned = true;
        self.note(Seen::HoldReturned);
        "hold: the gate opened"
    }

    fn note(&self, seen: Seen) {
        self.seen.send_modify(|all| all.push(seen));
    }

    fn seen(&self) -> Vec<Seen> {
        self.seen.borrow().clone()
    }

    /// Waits until `pred` holds for what the tools saw (the scenario's timeout is the net).
    async fn wait_until(&self, what: &str, pred: impl Fn(&[Seen]) -> bool) {
        let mut seen = self.seen.subscribe();
        within(what, seen.wait_for(|all| pred(all)))
            .await
            .expect("the gate lives");
    }

    fn open(&self) {
        self.open.send_replace(true);
    }

    /// When `hold` started.
    fn hold_started(&self) -> Option<Instant> {
        self.seen().iter().find_map(|seen| match seen {
            Seen::HoldStarted(_, at) => Some(*at),
            _ => None,
        })
    }
}

/// Notes a `hold` that ended without returning (its future dropped).
struct DropNote<'a> {
    gate: &'a Gate,
    returned: bool,
}

impl Drop for DropNote<'_> {
    fn drop(&mut self) {
        if !self.returned {
            self.gate.note(Seen::HoldDropped);
        }
    }
}

/// Serves `server` over Streamable HTTP on 127.0.0.1: its URL.
async fn serve_http(server: ToolServer) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("a port on 127.0.0.1");
    let url = format!("http://{}/mcp", listener.local_addr().expect("its address"));
    let serving = claude_tools::mcp::http::HttpServer::new(server).serve(listener);
    tokio::spawn(std::future::IntoFuture::into_future(serving));
    url
}

/// The model calls `hold`, then `ping`, then says "done".
fn hold_then_ping(server: &str) -> Script {
    Script::new()
        .turn(Turn::tool_use(
            "toolu_hold",
            format!("mcp__{server}__hold"),
            json!({}),
        ))
        .turn(Turn::tool_use(
            "toolu_ping",
            format!("mcp__{server}__ping"),
            json!({}),
        ))
        .turn(Turn::text("done"))
}

/// The model calls `ping`, then says "done".
fn ping(server: &str) -> Script {
    Script::new()
        .turn(Turn::tool_use(
            "toolu_ping",
            format!("mcp__{server}__ping"),
            json!({}),
        ))
        .turn(Turn::text("done"))
}

/// The tool_result the model got for `id`: `(text, is_error)`, failing when there is not
/// exactly one.
fn result_for(w: &crate::harness::World, id: &str) -> (String, bool) {
    let results: Vec<_> = w
        .tool_results()
        .into_iter()
        .filter(|(tool_use_id, _, _)| tool_use_id == id)
        .map(|(_, text, is_error)| (text, is_error))
        .collect();
    assert_eq!(results.len(), 1, "{id}: {:#?}", w.tool_results());
    results[0].clone()
}

/// The refusal `query()` gives `options` before any CLI starts.
async fn refusal(options: Options) -> String {
    match within(
        "a refused query",
        claude_tools_runtime::query::query("go", options),
    )
    .await
    {
        Ok(_) => panic!("the options were taken"),
        Err(error @ claude_tools_runtime::Error::InvalidOptions(_)) => error.to_string(),
        Err(error) => panic!("not an InvalidOptions: {error}"),
    }
}

// ---------------------------------------------------------------------------------------------
// In-process servers: timeout.

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_in_process_servers_timeout_ends_a_long_call_and_the_session_goes_on() {
    // Both ways the server reaches the CLI: its `--mcp-config` entry, and `initialize` (with
    // handshake manifests).
    for manifests in [false, true] {
        let Some(w) = world("sdk_timeout", hold_then_ping("gate")).await else {
            return;
        };
        let (server, gate) = Gate::server("gate", true);
        let options = w
            .options()
            .mcp_server(server)
            .handshake_manifests(manifests)
            .mcp_server_settings("gate", McpServerSettings::new().timeout(TIMEOUT))
            .allowed_tools(["mcp__gate__hold", "mcp__gate__ping"]);
        // The CLI gives up on `hold` and cancels it (`notifications/cancelled`, reason
        // "SdkError: Request timed out"); the tool sees its token fire, and only then does the
        // test open the gate, so that `hold` answers late. The session answered the
        // cancellation (`-32800`) already: the late answer goes nowhere.
        let (messages, ()) = tokio::join!(run_query("hold, then ping", options), async {
            gate.wait_until("hold cancelled", |seen| seen.contains(&Seen::HoldCancelled))
                .await;
            gate.open();
        });

        assert_eq!(success_text(&messages), "done", "manifests: {manifests}");
        let (text, is_error) = result_for(&w, "toolu_hold");
        assert!(is_error, "manifests: {manifests}: {text}");
        assert!(
            text.contains(r#"MCP server "gate" tool "hold" timed out after 1s"#),
            "manifests: {manifests}: {text}"
        );
        // The session goes on: the next tool of the same session runs.
        assert_eq!(
            result_for(&w, "toolu_ping"),
            ("pong".to_string(), false),
            "manifests: {manifests}"
        );
        let seen = gate.seen();
        assert!(
            matches!(&seen[0], Seen::HoldStarted(Some(id), _) if id == "toolu_hold"),
            "{seen:?}"
        );
        assert_eq!(seen[1], Seen::HoldCancelled, "{seen:?}");
        assert!(seen.contains(&Seen::Ping), "{seen:?}");
        // The late answer reached no one.
        assert!(
            w.tool_results()
                .iter()
                .all(|(_, text, _)| !text.contains("the gate opened")),
            "{:#?}",
            w.tool_results()
        );
        w.assert_offline();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_a_timeout_the_same_in_process_call_runs_past_it_and_completes() {
    let Some(w) = world("sdk_no_timeout", hold_then_ping("gate")).await else {
        return;
    };
    let (server, gate) = Gate::server("gate", true);
    let options = w
        .options()
        .mcp_server(server)
        .allowed_tools(["mcp__gate__hold", "mcp__gate__ping"]);
    // The gate opens once `hold` has run twice as long as the timeout above: the call must
    // outlive it (that is what this test shows), so this wait is the point, not a sync.
    let (messages, ()) = tokio::join!(run_query("hold, then ping", options), async {
        gate.wait_until("hold started", |seen| {
            seen.iter().any(|s| matches!(s, Seen::HoldStarted(..)))
        })
        .await;
        tokio::time::sleep(TIMEOUT * 2).await;
        gate.open();
    });

    assert_eq!(success_text(&messages), "done");
    assert_eq!(
        result_for(&w, "toolu_hold"),
        ("hold: the gate opened".to_string(), false)
    );
    assert_eq!(result_for(&w, "toolu_ping"), ("pong".to_string(), false));
    assert!(
        !gate.seen().contains(&Seen::HoldCancelled),
        "{:?}",
        gate.seen()
    );
    let started = gate.hold_started().expect("hold started");
    assert!(started.elapsed() >= TIMEOUT * 2);
}

// ---------------------------------------------------------------------------------------------
// In-process servers: tool permission policies.

/// The two ways a call would run unasked: a rule allowing the tool, and `bypassPermissions`.
#[derive(Debug, Clone, Copy)]
enum Allowed {
    ByRule,
    ByMode,
}

/// The questions `can_use_tool` was asked: `(tool name, tool_use id)`.
type Asked = Arc<std::sync::Mutex<Vec<(String, Option<String>)>>>;

/// Options for `ping` of server `gate`, allowed as `allowed` says, whose `can_use_tool` notes
/// each question and denies.
fn allowed_ping(options: Options, allowed: Allowed) -> (Options, Asked) {
    let asked: Asked = Arc::default();
    let seen = asked.clone();
    let options = options.can_use_tool(move |request| {
        seen.lock()
            .unwrap()
            .push((request.tool_name.clone(), request.tool_use_id.clone()));
        async { PermissionDecision::deny("the host says no") }
    });
    let options = match allowed {
        Allowed::ByRule => options.allowed_tools(["mcp__gate__ping"]),
        // The CLI refuses bypassPermissions to root unless IS_SANDBOX=1 (containers run as
        // root); the variable changes nothing else these tests see.
        Allowed::ByMode => options
            .permission_mode(PermissionMode::BypassPermissions)
            .allow_dangerously_skip_permissions()
            .env("IS_SANDBOX", "1"),
    };
    (options, asked)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn always_ask_has_the_host_asked_where_a_rule_or_the_mode_would_let_the_tool_run() {
    for manifests in [false, true] {
        for allowed in [Allowed::ByRule, Allowed::ByMode] {
            let Some(w) = world("sdk_always_ask", ping("gate")).await else {
                return;
            };
            let (server, gate) = Gate::server("gate", true);
            let policy =
                McpServerSettings::new().tool_policy("ping", ToolPermissionPolicy::AlwaysAsk);
            let (options, asked) = allowed_ping(
                w.options()
                    .mcp_server(server)
                    .handshake_manifests(manifests)
                    .mcp_server_settings("gate", policy),
                allowed,
            );
            let messages = run_query("ping", options).await;

            let case = format!("manifests: {manifests}, {allowed:?}");
            assert_eq!(success_text(&messages), "done", "{case}");
            assert_eq!(
                *asked.lock().unwrap(),
                [(
                    "mcp__gate__ping".to_string(),
                    Some("toolu_ping".to_string())
                )],
                "{case}"
            );
            // The host's answer stands: denied, so `ping` never ran.
            assert_eq!(
                result_for(&w, "toolu_ping"),
                ("the host says no".to_string(), true),
                "{case}"
            );
            assert_eq!(gate.seen(), [], "{case}");
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn always_deny_refuses_the_tool_without_asking_or_running_it() {
    for manifests in [false, true] {
        for allowed in [Allowed::ByRule, Allowed::ByMode] {
            let Some(w) = world("sdk_always_deny", ping("gate")).await else {
                return;
            };
            let (server, gate) = Gate::server("gate", true);
            let policy =
                McpServerSettings::new().tool_policy("ping", ToolPermissionPolicy::AlwaysDeny);
            let (options, asked) = allowed_ping(
                w.options()
                    .mcp_server(server)
                    .handshake_manifests(manifests)
                    .mcp_server_settings("gate", policy),
                allowed,
            );
            let messages = run_query("ping", options).await;

            let case = format!("manifests: {manifests}, {allowed:?}");
            assert_eq!(success_text(&messages), "done", "{case}");
            // The CLI leaves the tool out of the model's tools…
            let offered = w.server.tools_offered(0).expect("a first turn");
            assert!(
                offered.contains(&"mcp__gate__hold".to_string()),
                "{case}: {offered:?}"
            );
            assert!(
                !offered.contains(&"mcp__gate__ping".to_string()),
                "{case}: {offered:?}"
            );
            // …and refuses a call of it anyway, asking no one and running nothing.
            let (text, is_error) = result_for(&w, "toolu_ping");
            assert!(is_error, "{case}: {text}");
            assert!(
                text.contains("No such tool available: mcp__gate__ping"),
                "{case}: {text}"
            );
            assert!(asked.lock().unwrap().is_empty(), "{case}: {asked:?}");
            assert_eq!(gate.seen(), [], "{case}");
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_a_policy_a_rule_or_the_mode_lets_the_tool_run_unasked() {
    for allowed in [Allowed::ByRule, Allowed::ByMode] {
        let Some(w) = world("sdk_no_policy", ping("gate")).await else {
            return;
        };
        let (server, gate) = Gate::server("gate", true);
        let (options, asked) = allowed_ping(w.options().mcp_server(server), allowed);
        let messages = run_query("ping", options).await;

        assert_eq!(success_text(&messages), "done", "{allowed:?}");
        assert!(asked.lock().unwrap().is_empty(), "{allowed:?}: {asked:?}");
        assert_eq!(
            result_for(&w, "toolu_ping"),
            ("pong".to_string(), false),
            "{allowed:?}"
        );
        assert_eq!(gate.seen(), [Seen::Ping], "{allowed:?}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn always_allow_for_an_in_process_tool_is_refused_before_the_cli_starts() {
    // The CLI 2.1.332 ignores it for an in-process server (it still asked `can_use_tool`, from
    // `--mcp-config` and from `initialize` alike), so it is not passed on.
    let Some(w) = world("sdk_always_allow", ping("gate")).await else {
        return;
    };
    let (server, gate) = Gate::server("gate", true);
    let options = w.options().mcp_server(server).mcp_server_settings(
        "gate",
        McpServerSettings::new().tool_policy("ping", ToolPermissionPolicy::AlwaysAllow),
    );
    let error = refusal(options).await;
    assert!(
        error.contains(
            r#"mcp_server_settings("gate"): an in-process server's tools cannot be AlwaysAllow"#
        ),
        "{error}"
    );
    assert!(w.turns().is_empty());
    assert_eq!(gate.seen(), []);
}

// ---------------------------------------------------------------------------------------------
// In-process servers: always_load.

/// The `mcp__gate__*` tools of the first request (with the CLI's tool search on).
async fn gate_tools_offered(w: &crate::harness::World, options: Options) -> Vec<String> {
    let messages = run_query("go", options).await;
    assert_eq!(success_text(&messages), "done");
    let offered = w.server.tools_offered(0).expect("a first turn");
    assert!(
        offered.contains(&"ToolSearch".to_string()),
        "tool search is off: {offered:?}"
    );
    let mut gate: Vec<String> = offered
        .into_iter()
        .filter(|name| name.starts_with("mcp__gate__"))
        .collect();
    gate.sort();
    gate
}

const BOTH: [&str; 2] = ["mcp__gate__hold", "mcp__gate__ping"];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn always_load_false_defers_an_in_process_servers_tools() {
    // The tools say `alwaysLoad` themselves, so tool search offers them up front…
    let Some(w) = world(
        "sdk_always_load_unset",
        Script::new().turn(Turn::text("done")),
    )
    .await
    else {
        return;
    };
    let (server, _gate) = Gate::server("gate", true);
    let options = w.options_keep_tool_search().mcp_server(server);
    assert_eq!(gate_tools_offered(&w, options).await, BOTH);

    // …unless the server says `alwaysLoad: false`.
    let Some(w) = world(
        "sdk_always_load_false",
        Script::new().turn(Turn::text("done")),
    )
    .await
    else {
        return;
    };
    let (server, _gate) = Gate::server("gate", true);
    let options = w
        .options_keep_tool_search()
        .mcp_server(server)
        .mcp_server_settings("gate", McpServerSettings::new().always_load(false));
    assert_eq!(gate_tools_offered(&w, options).await, Vec::<String>::new());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn always_load_true_offers_an_in_process_servers_tools_that_would_be_deferred() {
    // The tools do not say `alwaysLoad`, so tool search defers them…
    let Some(w) = world(
        "sdk_always_load_unset",
        Script::new().turn(Turn::text("done")),
    )
    .await
    else {
        return;
    };
    let (server, _gate) = Gate::server("gate", false);
    let options = w.options_keep_tool_search().mcp_server(server);
    assert_eq!(gate_tools_offered(&w, options).await, Vec::<String>::new());

    // …unless the server says `alwaysLoad: true`; also when a tool policy names the server in
    // `initialize` as well.
    for with_policy in [false, true] {
        let Some(w) = world(
            "sdk_always_load_true",
            Script::new().turn(Turn::text("done")),
        )
        .await
        else {
            return;
        };
        let (server, _gate) = Gate::server("gate", false);
        let mut settings = McpServerSettings::new().always_load(true);
        if with_policy {
            settings = settings.tool_policy("hold", ToolPermissionPolicy::AlwaysAsk);
        }
        let options = w
            .options_keep_tool_search()
            .mcp_server(server)
            .mcp_server_settings("gate", settings);
        assert_eq!(
            gate_tools_offered(&w, options).await,
            BOTH,
            "with a policy: {with_policy}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn always_load_for_an_in_process_server_with_handshake_manifests_is_refused() {
    // Manifests name the server in `initialize`, where the CLI 2.1.332 ignores `alwaysLoad`
    // (the tools stayed as they were), so it is not passed on.
    let Some(w) = world(
        "sdk_always_load_manifests",
        Script::new().turn(Turn::text("done")),
    )
    .await
    else {
        return;
    };
    let (server, _gate) = Gate::server("gate", true);
    let options = w
        .options_keep_tool_search()
        .mcp_server(server)
        .handshake_manifests(true)
        .mcp_server_settings("gate", McpServerSettings::new().always_load(false));
    let error = refusal(options).await;
    assert!(
        error.contains(r#"mcp_server_settings("gate"): the CLI ignores always_load for an in-process server named in initialize"#),
        "{error}"
    );
    assert!(w.turns().is_empty());
}

// ---------------------------------------------------------------------------------------------
// External servers.

/// The testkit's stdio server, whose `echo` and `confirm` tools say nothing of `alwaysLoad`.
fn echo_mcp() -> ExternalServer {
    ExternalServer::stdio(env!("CARGO_BIN_EXE_echo-mcp"), Vec::<String>::new())
}

/// The model calls `confirm` (which asks the host a question and waits for the answer), then
/// `echo`, then says "done".
fn confirm_then_echo() -> Script {
    Script::new()
        .turn(Turn::tool_use(
            "toolu_confirm",
            "mcp__echo__confirm",
            json!({"question": "Go ahead?"}),
        ))
        .turn(Turn::tool_use(
            "toolu_echo",
            "mcp__echo__echo",
            json!({"text": "still here"}),
        ))
        .turn(Turn::text("done"))
}

/// Options with `echo-mcp` as server `echo`, both tools allowed, whose question `confirm` asks
/// is answered (approved) only once `answer` says so; `asked` is told when it is asked.
fn with_echo(
    options: Options,
    answer: watch::Receiver<bool>,
    asked: tokio::sync::mpsc::UnboundedSender<Instant>,
) -> Options {
    options
        .external_mcp_server("echo", echo_mcp())
        .allowed_tools(["mcp__echo__confirm", "mcp__echo__echo"])
        .on_elicitation(move |request| {
            let _ = asked.send(Instant::now());
            let mut answer = answer.clone();
            async move {
                let _ = answer.wait_for(|go| *go).await;
                ElicitationAnswer::accept(&request, json!({"approve": true}))
                    .expect("the answer fits the form")
            }
        })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_external_stdio_servers_timeout_ends_a_call_still_waiting_and_the_session_goes_on() {
    for delivery in [ConfigDelivery::Initialize, ConfigDelivery::Argv] {
        let Some(w) = world("stdio_timeout", confirm_then_echo()).await else {
            return;
        };
        // The question is never answered while the session runs.
        let (answer, answered) = watch::channel(false);
        let (asked, _) = tokio::sync::mpsc::unbounded_channel();
        let options = with_echo(w.options(), answered, asked)
            .config_delivery(delivery)
            .mcp_server_settings("echo", McpServerSettings::new().timeout(TIMEOUT));
        let messages = run_query("confirm, then echo", options).await;
        answer.send_replace(true);

        assert_eq!(success_text(&messages), "done", "{delivery:?}");
        let (text, is_error) = result_for(&w, "toolu_confirm");
        assert!(is_error, "{delivery:?}: {text}");
        assert!(
            text.contains(r#"MCP server "echo" tool "confirm" timed out after 1s"#),
            "{delivery:?}: {text}"
        );
        assert_eq!(
            result_for(&w, "toolu_echo"),
            ("echo: still here".to_string(), false),
            "{delivery:?}"
        );
        w.assert_offline();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_a_timeout_the_same_external_call_waits_past_it_for_the_answer() {
    let Some(w) = world("stdio_no_timeout", confirm_then_echo()).await else {
        return;
    };
    let (answer, answered) = watch::channel(false);
    let (asked, mut question) = tokio::sync::mpsc::unbounded_channel();
    let options = with_echo(w.options(), answered, asked);
    // The answer comes once the call has waited twice the timeout above: the call must
    // outlive it (that is what this test shows), so this wait is the point, not a sync.
    let (messages, asked_at) = tokio::join!(run_query("confirm, then echo", options), async {
        let asked_at = within("the question", question.recv())
            .await
            .expect("the question came");
        tokio::time::sleep(TIMEOUT * 2).await;
        answer.send_replace(true);
        asked_at
    });

    assert_eq!(success_text(&messages), "done");
    assert_eq!(
        result_for(&w, "toolu_confirm"),
        (r#"confirm: accept {"approve":true}"#.to_string(), false)
    );
    assert_eq!(
        result_for(&w, "toolu_echo"),
        ("echo: still here".to_string(), false)
    );
    assert!(asked_at.elapsed() >= TIMEOUT * 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_external_http_servers_timeout_closes_the_call_and_its_tool_sees_the_cancellation() {
    let Some(w) = world("http_timeout", hold_then_ping("remote")).await else {
        return;
    };
    let (server, gate) = Gate::server("remote", true);
    let url = serve_http(server).await;
    let options = w
        .options()
        .external_mcp_server("remote", ExternalServer::http(url))
        .mcp_server_settings("remote", McpServerSettings::new().timeout(TIMEOUT))
        .allowed_tools(["mcp__remote__hold", "mcp__remote__ping"]);
    // The CLI gives up on `hold` and closes its request; the server cancels the call.
    let (messages, ()) = tokio::join!(run_query("hold, then ping", options), async {
        gate.wait_until("hold cancelled", |seen| seen.contains(&Seen::HoldCancelled))
            .await;
        gate.open();
    });

    assert_eq!(success_text(&messages), "done");
    let (text, is_error) = result_for(&w, "toolu_hold");
    assert!(is_error, "{text}");
    assert!(
        text.contains(r#"MCP server "remote" tool "hold" timed out after 1s"#),
        "{text}"
    );
    assert_eq!(result_for(&w, "toolu_ping"), ("pong".to_string(), false));
    let seen = gate.seen();
    assert!(
        matches!(&seen[0], Seen::HoldStarted(Some(id), _) if id == "toolu_hold"),
        "{seen:?}"
    );
    assert!(seen.contains(&Seen::HoldCancelled), "{seen:?}");
    w.assert_offline();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn always_load_true_offers_an_external_servers_tools_that_would_be_deferred() {
    let script = || Script::new().turn(Turn::text("done"));
    let echo_tools = |w: &crate::harness::World| {
        let mut tools: Vec<String> = w
            .server
            .tools_offered(0)
            .expect("a first turn")
            .into_iter()
            .filter(|name| name.starts_with("mcp__echo__"))
            .collect();
        tools.sort();
        tools
    };
    // Without the setting tool search defers them…
    let Some(w) = world("stdio_always_load_unset", script()).await else {
        return;
    };
    let options = w
        .options_keep_tool_search()
        .external_mcp_server("echo", echo_mcp());
    assert_eq!(success_text(&run_query("go", options).await), "done");
    assert_eq!(echo_tools(&w), Vec::<String>::new());
    assert!(
        w.server
            .tools_offered(0)
            .unwrap()
            .contains(&"ToolSearch".to_string())
    );
    // …with it they are in the first request.
    for delivery in [ConfigDelivery::Initialize, ConfigDelivery::Argv] {
        let Some(w) = world("stdio_always_load_true", script()).await else {
            return;
        };
        let options = w
            .options_keep_tool_search()
            .config_delivery(delivery)
            .external_mcp_server("echo", echo_mcp())
            .mcp_server_settings("echo", McpServerSettings::new().always_load(true));
        assert_eq!(success_text(&run_query("go", options).await), "done");
        assert_eq!(
            echo_tools(&w),
            ["mcp__echo__confirm", "mcp__echo__echo"],
            "{delivery:?}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn always_load_false_defers_an_external_servers_tools() {
    let script = || Script::new().turn(Turn::text("done"));
    let remote_tools = |w: &crate::harness::World| {
        let mut tools: Vec<String> = w
            .server
            .tools_offered(0)
            .expect("a first turn")
            .into_iter()
            .filter(|name| name.starts_with("mcp__remote__"))
            .collect();
        tools.sort();
        tools
    };
    // The tools say `alwaysLoad` themselves: offered up front…
    let Some(w) = world("http_always_load_unset", script()).await else {
        return;
    };
    let url = serve_http(Gate::server("remote", true).0).await;
    let options = w
        .options_keep_tool_search()
        .external_mcp_server("remote", ExternalServer::http(url));
    assert_eq!(success_text(&run_query("go", options).await), "done");
    assert_eq!(remote_tools(&w), ["mcp__remote__hold", "mcp__remote__ping"]);
    // …unless the server's configuration says `alwaysLoad: false`.
    let Some(w) = world("http_always_load_false", script()).await else {
        return;
    };
    let url = serve_http(Gate::server("remote", true).0).await;
    let options = w
        .options_keep_tool_search()
        .external_mcp_server("remote", ExternalServer::http(url))
        .mcp_server_settings("remote", McpServerSettings::new().always_load(false));
    assert_eq!(success_text(&run_query("go", options).await), "done");
    assert_eq!(remote_tools(&w), Vec::<String>::new());
    assert!(
        w.server
            .tools_offered(0)
            .unwrap()
            .contains(&"ToolSearch".to_string())
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tool_policies_for_an_external_server_are_refused_before_the_cli_starts() {
    // The CLI 2.1.332 ignores every policy of an HTTP server it is started with (it asked
    // `can_use_tool` under each of the three, from `--mcp-config` and `initialize` alike), and
    // stdio servers have none.
    let Some(w) = world("external_policies", ping("remote")).await else {
        return;
    };
    let (server, gate) = Gate::server("remote", true);
    let url = serve_http(server).await;
    for (name, server) in [("remote", ExternalServer::http(url)), ("echo", echo_mcp())] {
        for policy in [
            ToolPermissionPolicy::AlwaysAllow,
            ToolPermissionPolicy::AlwaysAsk,
            ToolPermissionPolicy::AlwaysDeny,
        ] {
            let options = w
                .options()
                .external_mcp_server(name, server.clone())
                .mcp_server_settings(name, McpServerSettings::new().tool_policy("ping", policy));
            let error = refusal(options).await;
            assert!(
                error.contains(&format!(
                    r#"mcp_server_settings("{name}"): the CLI ignores the tool policies of an external server"#
                )),
                "{policy:?}: {error}"
            );
        }
    }
    assert!(w.turns().is_empty());
    assert_eq!(gate.seen(), []);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_http_server_set_at_run_time_has_its_tool_policy_applied() {
    // Unlike at the start, the CLI applies the policy of a server `mcp_set_servers` sets: with
    // `AlwaysDeny` the tool is left out of the model's tools and a call of it runs nothing;
    // without it, the same call runs.
    for deny in [true, false] {
        let Some(w) = world("dynamic_policy", ping("remote")).await else {
            return;
        };
        let (server, gate) = Gate::server("remote", true);
        let url = serve_http(server).await;
        let settings = if deny {
            McpServerSettings::new().tool_policy("ping", ToolPermissionPolicy::AlwaysDeny)
        } else {
            McpServerSettings::new()
        };
        let entry = McpServerEntry::new(ExternalServer::http(url)).settings(settings);
        let options = w.options().allowed_tools(["mcp__remote__ping"]);
        within("a policy set at run time", async {
            let mut client = Client::connect(options).await.expect("connect");
            let receipt = client
                .set_mcp_servers([("remote", entry)])
                .await
                .expect("set servers");
            assert!(receipt.errors.is_empty(), "{receipt:?}");
            client.query("ping").await.unwrap();
            let messages = client.receive_response().await.expect("the response");
            assert_eq!(success_text(&messages), "done");
            client.disconnect().await.expect("disconnect");
        })
        .await;
        let offered = w.server.tools_offered(0).expect("a first turn");
        assert_eq!(
            offered.contains(&"mcp__remote__ping".to_string()),
            !deny,
            "deny: {deny}: {offered:?}"
        );
        let (text, is_error) = result_for(&w, "toolu_ping");
        if deny {
            assert!(is_error, "{text}");
            assert_eq!(gate.seen(), []);
        } else {
            assert!(!is_error, "{text}");
            assert_eq!(gate.seen(), [Seen::Ping]);
        }
    }
}
