//! MCP 2026-07-28 interop with the official SDKs' clients, which no one here wrote: the Python
//! SDK's `Client` (PyPI `mcp` 2.3.0, `scripts/install-python-mcp`) and the TypeScript client v2
//! (npm `@modelcontextprotocol/client` 2.4.0, `scripts/install-ts-mcp-client`), each over stdio
//! and over Streamable HTTP, against the `interop-mcp` test server (tests/src/bin/interop-mcp.rs;
//! over HTTP with sessions on, so that one endpoint serves both revisions).
//!
//! At 2026-07-28 (each SDK's negotiating mode: a `server/discover` probe) the client calls a
//! tool, lists the tools with the cache hints it reads (`ttlMs` 60 000, `public`: its second list
//! is served from its own cache, so the server sees one `tools/list`), and calls a tool that asks
//! the user: the server answers `input_required`, the client's elicitation handler answers, the
//! client retries with the answer and the `requestState`, and the tool gets the answer. Forced to
//! the 2025-11-25 handshake, the same client is served as before: `initialize`, no cache hints,
//! no `resultType`, and the question sent as an `elicitation/create` request. Last, at
//! 2026-07-28, the client opens a `subscriptions/listen` stream for tool-list changes and calls
//! a tool that adds a tool: the change arrives on the stream (after its acknowledgement), evicts
//! the client's cached list, and the client's next list has the new tool.
//!
//! The server's own log of its traffic (one line per message, with its answer) is what the
//! tests read for the wire: which methods, which revision each claimed, which rounds a call took.
//!
//! Without an SDK (or `node`) its tests skip with a banner, unless `CI` is set, where they fail.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use claude_tools_tests::{ListeningServer, run_node_client, ts_mcp_client};
use serde::Deserialize;
use serde_json::{Value, json};

const SERVER: &str = env!("CARGO_BIN_EXE_interop-mcp");

/// The server's tools, as listed (before `unlock` adds `vault`).
const TOOLS: [&str; 3] = ["deploy", "shout", "unlock"];

// ---------------------------------------------------------------------------------------------
// The server's log.

/// One line of the server's log (see `Exchange` in tests/src/bin/interop-mcp.rs).
#[derive(Deserialize, Debug)]
struct Exchange {
    from: String,
    kind: String,
    method: Option<String>,
    name: Option<String>,
    revision: Option<String>,
    input_responses: bool,
    request_state: bool,
    status: Option<u16>,
    outcome: Option<String>,
}

impl Exchange {
    /// One line a person reads: who, what, at which revision, with what, answered how.
    fn summary(&self) -> String {
        let mut line = format!(
            "{} {}",
            self.from,
            self.method.as_deref().unwrap_or("(response)")
        );
        for part in [&self.name, &self.revision.as_ref().map(|r| format!("@{r}"))]
            .into_iter()
            .flatten()
        {
            line.push(' ');
            line.push_str(part);
        }
        if self.input_responses {
            line.push_str(" +inputResponses");
        }
        if self.request_state {
            line.push_str(" +requestState");
        }
        if let Some(outcome) = &self.outcome {
            line.push_str(" -> ");
            line.push_str(outcome);
        }
        if let Some(status) = self.status {
            line.push_str(&format!(" ({status})"));
        }
        line
    }
}

/// The log's lines from `skip` on.
fn traffic(log: &Path, skip: usize) -> Vec<Exchange> {
    std::fs::read_to_string(log)
        .unwrap_or_default()
        .lines()
        .skip(skip)
        .map(|line| serde_json::from_str(line).expect("a line of the server's log"))
        .collect()
}

/// The log's lines from `skip` on, once `done` holds of them (within 10 s: over HTTP a listen
/// stream is logged when it ends, which may be just after its client has exited).
fn traffic_until(log: &Path, skip: usize, done: impl Fn(&[Exchange]) -> bool) -> Vec<Exchange> {
    let started = Instant::now();
    loop {
        let traffic = traffic(log, skip);
        if done(&traffic) || started.elapsed() > Duration::from_secs(10) {
            return traffic;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn has_listen(traffic: &[Exchange]) -> bool {
    traffic
        .iter()
        .any(|exchange| exchange.method.as_deref() == Some("subscriptions/listen"))
}

/// What a listening 2026-07-28 client's session looks like from the server: its requests (in
/// any order: over HTTP the listen stream is logged as it ends), all at 2026-07-28 and, over
/// HTTP, all accepted (a `2xx`, notifications included); the listen stream's acknowledgement
/// and then the change, and no request of the server's. Two `tools/list`: the change evicted
/// the first from the client's cache.
fn assert_listen_traffic(traffic: &[Exchange], http: bool) {
    let mut requests: Vec<String> = traffic
        .iter()
        .filter(|exchange| exchange.from == "client" && exchange.kind == "request")
        .map(|exchange| {
            assert_eq!(
                exchange.revision.as_deref(),
                Some("2026-07-28"),
                "{exchange:?}"
            );
            format!(
                "{} {}",
                exchange.method.as_deref().unwrap_or(""),
                exchange.name.as_deref().unwrap_or("")
            )
        })
        .collect();
    requests.sort();
    assert_eq!(
        requests,
        [
            "server/discover ",
            "subscriptions/listen ",
            "tools/call unlock",
            "tools/list ",
            "tools/list ",
        ],
        "{traffic:#?}"
    );
    let from_server: Vec<(&str, &str)> = traffic
        .iter()
        .filter(|exchange| exchange.from == "server")
        .map(|exchange| {
            (
                exchange.kind.as_str(),
                exchange.method.as_deref().unwrap_or(""),
            )
        })
        .collect();
    assert_eq!(
        from_server,
        [
            ("notification", "notifications/subscriptions/acknowledged"),
            ("notification", "notifications/tools/list_changed"),
        ],
        "{traffic:#?}"
    );
    if http {
        for exchange in traffic.iter().filter(|exchange| exchange.from == "client") {
            let status = exchange.status.unwrap_or_default();
            assert!(
                (200..300).contains(&status),
                "refused: {exchange:?}\n{traffic:#?}"
            );
        }
    }
}

/// What a 2026-07-28 client's session looks like from the server: the probe answered, no
/// `initialize`, every request at 2026-07-28, one `tools/list` (the second was the client's
/// cache's), and the question's call in two rounds. `http` adds each answer's status.
fn modern_traffic(http: bool) -> Vec<String> {
    let status = if http { " (200)" } else { "" };
    [
        "client server/discover @2026-07-28 -> complete",
        "client tools/list @2026-07-28 -> complete",
        "client tools/call shout @2026-07-28 -> complete",
        "client tools/call deploy @2026-07-28 -> input_required",
        "client tools/call deploy @2026-07-28 +inputResponses +requestState -> complete",
    ]
    .iter()
    .map(|line| format!("{line}{status}"))
    .collect()
}

/// What a 2025-11-25 client's session looks like: `initialize`, two `tools/list` (no cache
/// hints, nothing cached), results without `resultType`, and the question as the server's
/// own `elicitation/create` request (answered by the client's response).
fn assert_legacy_traffic(traffic: &[Exchange]) {
    let requests: Vec<String> = traffic
        .iter()
        .filter(|exchange| exchange.from == "client" && exchange.method.is_some())
        .map(|exchange| {
            let name = exchange.name.as_deref().unwrap_or("");
            let outcome = exchange.outcome.as_deref().unwrap_or("-");
            format!(
                "{} {name} -> {outcome}",
                exchange.method.as_deref().unwrap_or("")
            )
        })
        .collect();
    assert_eq!(
        requests,
        [
            "initialize  -> result",
            "notifications/initialized  -> -",
            "tools/list  -> result",
            "tools/list  -> result",
            "tools/call shout -> result",
            "tools/call deploy -> result",
        ],
        "{traffic:#?}"
    );
    let from_server: Vec<&str> = traffic
        .iter()
        .filter(|exchange| exchange.from == "server")
        .filter_map(|exchange| exchange.method.as_deref())
        .collect();
    assert_eq!(from_server, ["elicitation/create"], "{traffic:#?}");
    let responses = traffic
        .iter()
        .filter(|exchange| exchange.from == "client" && exchange.method.is_none())
        .count();
    assert_eq!(
        responses, 1,
        "the client answered the question: {traffic:#?}"
    );
    for exchange in traffic {
        assert_ne!(
            exchange.revision.as_deref(),
            Some("2026-07-28"),
            "{exchange:?}"
        );
        assert!(
            !exchange.input_responses && !exchange.request_state,
            "{exchange:?}"
        );
    }
}

fn summaries(traffic: &[Exchange]) -> Vec<String> {
    traffic.iter().map(Exchange::summary).collect()
}

// ---------------------------------------------------------------------------------------------
// What the clients report.

/// The form `deploy` asks for, as each client's handler was given it.
fn deploy_question() -> Value {
    json!({
        "message": "Deploy billing-api to production?",
        "requestedSchema": {
            "type": "object",
            "properties": {
                "approve": {"type": "boolean", "description": "Go ahead?"},
                "note": {"type": "string", "description": "A note for the deploy log"}
            },
            "required": ["approve"]
        }
    })
}

/// A call result's text and `isError`, whatever else the SDK adds to it.
fn text_of(result: &Value) -> (String, bool) {
    let text = result["content"][0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("no text in {result}"));
    (text.to_string(), result["isError"] == true)
}

/// The server over HTTP, sessions on (both revisions on one endpoint), logging to `log`.
fn start_http(log: &Path) -> ListeningServer {
    let mut command = Command::new(SERVER);
    command.args(["--http", "--sessions", "--log"]).arg(log);
    ListeningServer::start(command)
}

/// A log file of its own for one server, in a directory dropped with the returned guard.
fn log_file(test: &str) -> (claude_tools_testkit::TempDir, PathBuf) {
    let dir = claude_tools_testkit::TempDir::new(test).expect("a temporary directory");
    let log = dir.path().join("traffic.jsonl");
    (dir, log)
}

// ---------------------------------------------------------------------------------------------
// Python.

/// Runs tests/python/interop_client.py in `mode` (`auto`, `legacy`) with `args`.
fn run_python(python: &Path, mode: &str, args: &[&str]) -> Value {
    let mut all = vec![mode];
    all.extend_from_slice(args);
    claude_tools_tests::run_python_client(python, "interop_client.py", &all)
}

/// What the Python client reports of a 2026-07-28 session.
fn assert_python_modern(report: &Value) {
    assert_eq!(report["protocol_version"], "2026-07-28", "{report}");
    assert_eq!(
        report["server_info"],
        json!({"name": "interop", "version": "1.0.0"}),
        "read from the results' _meta"
    );
    assert_eq!(
        report["tools_list"],
        json!({"names": TOOLS, "ttlMs": 60000, "cacheScope": "public"})
    );
    assert_eq!(report["tools_list_again"], json!(TOOLS));
    assert_eq!(report["shout"]["resultType"], "complete");
    assert_eq!(text_of(&report["shout"]), ("HELLO!".into(), false));
    assert_eq!(
        text_of(&report["deploy"]),
        ("deployed billing-api (from python)".into(), false)
    );
    let mut question = deploy_question();
    question["mode"] = json!("form");
    assert_eq!(report["asked"], json!([question]));
}

/// What the Python client reports of a 2025-11-25 session (the SDK's model gives a result
/// without cache hints its defaults, 0 and `private`).
fn assert_python_legacy(report: &Value) {
    assert_eq!(report["protocol_version"], "2025-11-25", "{report}");
    assert_eq!(
        report["tools_list"],
        json!({"names": TOOLS, "ttlMs": 0, "cacheScope": "private"})
    );
    assert_eq!(text_of(&report["shout"]), ("HELLO!".into(), false));
    assert_eq!(
        text_of(&report["deploy"]),
        ("deployed billing-api (from python)".into(), false)
    );
    let mut question = deploy_question();
    question["mode"] = json!("form");
    assert_eq!(report["asked"], json!([question]));
}

/// What the Python client reports of its listen stream.
fn assert_python_listen(report: &Value) {
    assert_eq!(report["protocol_version"], "2026-07-28", "{report}");
    assert_eq!(report["before"], json!(TOOLS));
    assert_eq!(report["honored"], json!({"toolsListChanged": true}));
    assert_eq!(text_of(&report["unlock"]), ("unlocked vault".into(), false));
    assert_eq!(report["event"], "ToolsListChanged");
    assert_eq!(
        report["after"],
        json!(["deploy", "shout", "unlock", "vault"])
    );
}

#[test]
fn the_python_sdk_speaks_2026_07_28_and_2025_11_25_to_a_stdio_server() {
    let Some(python) = claude_tools_tests::python_mcp("interop_python_stdio") else {
        return;
    };
    let (_dir, modern_log) = log_file("interop-python-stdio");
    let log_arg = modern_log.display().to_string();
    let report = run_python(&python, "auto", &["stdio", SERVER, "--log", &log_arg]);
    assert_python_modern(&report);
    assert_eq!(summaries(&traffic(&modern_log, 0)), modern_traffic(false));

    let legacy_log = modern_log.with_file_name("legacy.jsonl");
    let log_arg = legacy_log.display().to_string();
    let report = run_python(&python, "legacy", &["stdio", SERVER, "--log", &log_arg]);
    assert_python_legacy(&report);
    assert_legacy_traffic(&traffic(&legacy_log, 0));

    let listen_log = modern_log.with_file_name("listen.jsonl");
    let log_arg = listen_log.display().to_string();
    let report = run_python(&python, "listen", &["stdio", SERVER, "--log", &log_arg]);
    assert_python_listen(&report);
    assert_listen_traffic(&traffic(&listen_log, 0), false);
}

#[test]
fn the_python_sdk_speaks_2026_07_28_and_2025_11_25_to_an_http_server() {
    let Some(python) = claude_tools_tests::python_mcp("interop_python_http") else {
        return;
    };
    let (_dir, log) = log_file("interop-python-http");
    let server = start_http(&log);
    let report = run_python(&python, "auto", &["http", server.url()]);
    assert_python_modern(&report);
    let modern = traffic(&log, 0);
    assert_eq!(summaries(&modern), modern_traffic(true));

    let report = run_python(&python, "legacy", &["http", server.url()]);
    assert_python_legacy(&report);
    let legacy = traffic(&log, modern.len());
    assert_legacy_traffic(&legacy);

    // Last: it changes the served tools.
    let report = run_python(&python, "listen", &["http", server.url()]);
    assert_python_listen(&report);
    let skip = modern.len() + legacy.len();
    assert_listen_traffic(&traffic_until(&log, skip, has_listen), true);
}

// ---------------------------------------------------------------------------------------------
// TypeScript.

/// Runs tests/node/interop_client.mjs in `mode` (`auto`, `legacy`) with `args` and returns its
/// report, failing the test when it does not finish within a minute, fails, or prints no JSON.
fn run_ts(node_modules: &Path, mode: &str, args: &[&str]) -> Value {
    let mut script_args = vec![mode, node_modules.to_str().expect("a UTF-8 path")];
    script_args.extend_from_slice(args);
    run_node_client("interop_client.mjs", &script_args)
}

/// What the TypeScript client reports of a session at `era` (`modern`: 2026-07-28 with cache
/// hints; `legacy`: 2025-11-25, none).
fn assert_ts(report: &Value, era: &str) {
    let (version, ttl, scope) = match era {
        "modern" => ("2026-07-28", json!(60000), json!("public")),
        _ => ("2025-11-25", Value::Null, Value::Null),
    };
    assert_eq!(report["era"], era, "{report}");
    assert_eq!(report["protocolVersion"], version);
    assert_eq!(
        report["serverInfo"],
        json!({"name": "interop", "version": "1.0.0"})
    );
    assert_eq!(
        report["toolsList"],
        json!({"names": TOOLS, "ttlMs": ttl, "cacheScope": scope})
    );
    assert_eq!(report["toolsListAgain"], json!(TOOLS));
    assert_eq!(text_of(&report["shout"]), ("HELLO!".into(), false));
    assert_eq!(
        text_of(&report["deploy"]),
        ("deployed billing-api (from typescript)".into(), false)
    );
    assert_eq!(report["asked"], json!([deploy_question()]));
}

/// What the TypeScript client reports of its listen stream.
fn assert_ts_listen(report: &Value) {
    assert_eq!(report["protocolVersion"], "2026-07-28", "{report}");
    assert_eq!(report["before"], json!(TOOLS));
    assert_eq!(report["honored"], json!({"toolsListChanged": true}));
    assert_eq!(text_of(&report["unlock"]), ("unlocked vault".into(), false));
    assert_eq!(report["event"], "notifications/tools/list_changed");
    assert_eq!(
        report["after"],
        json!(["deploy", "shout", "unlock", "vault"])
    );
}

#[test]
fn the_typescript_client_speaks_2026_07_28_and_2025_11_25_to_a_stdio_server() {
    let Some(node_modules) = ts_mcp_client("interop_ts_stdio") else {
        return;
    };
    let (_dir, modern_log) = log_file("interop-ts-stdio");
    let log_arg = modern_log.display().to_string();
    // The client probes on a process of its own, then speaks 2026-07-28 on a second one.
    let report = run_ts(&node_modules, "auto", &["stdio", SERVER, "--log", &log_arg]);
    assert_ts(&report, "modern");
    assert_eq!(summaries(&traffic(&modern_log, 0)), modern_traffic(false));

    let legacy_log = modern_log.with_file_name("legacy.jsonl");
    let log_arg = legacy_log.display().to_string();
    let report = run_ts(
        &node_modules,
        "legacy",
        &["stdio", SERVER, "--log", &log_arg],
    );
    assert_ts(&report, "legacy");
    assert_legacy_traffic(&traffic(&legacy_log, 0));

    let listen_log = modern_log.with_file_name("listen.jsonl");
    let log_arg = listen_log.display().to_string();
    let report = run_ts(
        &node_modules,
        "listen",
        &["stdio", SERVER, "--log", &log_arg],
    );
    assert_ts_listen(&report);
    assert_listen_traffic(&traffic(&listen_log, 0), false);
}

#[test]
fn the_typescript_client_speaks_2026_07_28_and_2025_11_25_to_an_http_server() {
    let Some(node_modules) = ts_mcp_client("interop_ts_http") else {
        return;
    };
    let (_dir, log) = log_file("interop-ts-http");
    let server = start_http(&log);
    let report = run_ts(&node_modules, "auto", &["http", server.url()]);
    assert_ts(&report, "modern");
    let modern = traffic(&log, 0);
    assert_eq!(summaries(&modern), modern_traffic(true));

    let report = run_ts(&node_modules, "legacy", &["http", server.url()]);
    assert_ts(&report, "legacy");
    let legacy = traffic(&log, modern.len());
    assert_legacy_traffic(&legacy);

    // Last: it changes the served tools.
    let report = run_ts(&node_modules, "listen", &["http", server.url()]);
    assert_ts_listen(&report);
    let skip = modern.len() + legacy.len();
    assert_listen_traffic(&traffic_until(&log, skip, has_listen), true);
}

/// The official TypeScript client's skills extension (`SkillsClient`) against a claude-tools
/// server serving a compiled-in skill: it lists the skills (the client refuses a 2026-07-28
/// listing without its cache hint), gets one, reads and verifies its `SKILL.md` (size, digest,
/// front matter equal to the listed entry) and its other file, and reads its directory.
fn assert_ts_skills(report: &Value) {
    assert_eq!(report["errors"], json!({}), "{report}");
    assert_eq!(report["protocolVersion"], "2026-07-28");
    assert_eq!(report["supported"], true);
    assert_eq!(report["directoryRead"], true);
    assert_eq!(
        report["listed"],
        json!([{"name": "loud-greeting", "uri": "skill://loud-greeting/SKILL.md"}])
    );
    assert_eq!(
        report["listCache"],
        json!({"ttlMs": 0, "cacheScope": "private"})
    );
    assert_eq!(report["got"], "skill://loud-greeting/SKILL.md");
    assert_eq!(report["skillMd"]["verified"], true);
    assert_eq!(report["skillMd"]["frontmatter"]["name"], "loud-greeting");
    assert_eq!(report["skillMd"]["bodyStart"], "# Loud greeting");
    assert_eq!(report["reference"]["verified"], true);
    assert_eq!(
        report["directory"],
        json!([
            "skill://loud-greeting/SKILL.md",
            "skill://loud-greeting/reference"
        ])
    );
}

#[test]
fn the_typescript_clients_skills_extension_loads_a_skill_over_stdio() {
    let Some(node_modules) = ts_mcp_client("interop_ts_skills_stdio") else {
        return;
    };
    let modules = node_modules.display().to_string();
    let report = run_node_client(
        "skills_client.mjs",
        &[&modules, "stdio", SERVER, "--skills"],
    );
    assert_ts_skills(&report);
}

#[test]
fn the_typescript_clients_skills_extension_loads_a_skill_over_http() {
    let Some(node_modules) = ts_mcp_client("interop_ts_skills_http") else {
        return;
    };
    let mut command = Command::new(SERVER);
    command.args(["--http", "--skills"]);
    let server = ListeningServer::start(command);
    let modules = node_modules.display().to_string();
    let report = run_node_client("skills_client.mjs", &[&modules, "http", server.url()]);
    assert_ts_skills(&report);
}
