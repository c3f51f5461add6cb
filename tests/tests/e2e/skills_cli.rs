//! Skills over MCP with the real CLI 2.1.332: the `interop-mcp` test server with `--skills`
//! serves the skill `loud-greeting` (compiled in with `include_skill!` from `tests/skills/`),
//! over stdio and over HTTP.
//!
//! What the CLI 2.1.332 does, observed: it negotiates 2026-07-28, reads the server's
//! `server/discover` (the skills extension and, for the skill files, `resources`), lists the
//! resources (the skill's `SKILL.md` among them) and the tools, and runs a tool call. It does
//! **not** send `skills/list`: its MCP skills are behind its feature flag `tengu_wiggly_crystal`
//! (false by default; with it off, invoking one says "MCP skills are turned off for now"), and
//! neither a cached flag in its global config nor `CLAUDE_INTERNAL_FC_OVERRIDES` turns it on for
//! an offline, API-key session (tried). The test pins that: when a CLI turns MCP skills on, its
//! `skills/list` assertion fails, and the skill scenario (list, invoke, `resources/read` of the
//! `SKILL.md`, a call of `shout`) should replace it. The wire the CLI would use is covered,
//! reply by reply, against the CLI's own checks (name, URI, manifest, size, digest, front
//! matter) in `claude-tools-core/tests/mcp_skills.rs`.

use claude_tools_runtime::options::{ExternalServer, Options};
use claude_tools_testkit::model_server::{Script, Turn};
use serde_json::{Value, json};

use crate::harness::{World, json_lines, success_text, within, world};
use crate::run_query;

const SERVER: &str = env!("CARGO_BIN_EXE_interop-mcp");

fn script() -> Script {
    Script::new()
        .turn(Turn::text("Shouting.").and_tool_use(
            "toolu_skill_shout",
            "mcp__interop__shout",
            json!({"text": "hello ada"}),
        ))
        .turn(Turn::text("{{tool_result:toolu_skill_shout}}"))
}

fn with_interop(options: Options, server: ExternalServer) -> Options {
    options
        .external_mcp_server("interop", server)
        .allowed_tools(["mcp__interop__shout"])
}

async fn run_and_check(w: &World, server: ExternalServer, log: &std::path::Path) {
    let messages = within(
        "the skills scenario",
        run_query("greet ada loudly", with_interop(w.options(), server)),
    )
    .await;
    let traffic = json_lines(log);
    let requests: Vec<(&str, &Value, &Value)> = traffic
        .iter()
        .filter(|exchange| exchange["from"] == "client" && exchange["kind"] == "request")
        .filter_map(|exchange| {
            Some((
                exchange["method"].as_str()?,
                &exchange["revision"],
                &exchange["outcome"],
            ))
        })
        .collect();
    let modern = json!("2026-07-28");
    let complete = json!("complete");
    // `resources/list` is sent because `server/discover` announced `resources`, which the
    // server does for its skill's files (it has no other resource).
    for method in [
        "server/discover",
        "resources/list",
        "tools/list",
        "tools/call",
    ] {
        assert!(
            requests.contains(&(method, &modern, &complete)),
            "{method} at 2026-07-28, answered: {requests:#?}"
        );
    }
    assert!(
        !requests
            .iter()
            .any(|(method, ..)| method.starts_with("skills/")),
        "the CLI 2.1.332 keeps MCP skills off by default; if it now lists them, turn this test \
         into the skill scenario: {requests:#?}"
    );
    assert_eq!(success_text(&messages), "HELLO ADA!", "{requests:#?}");
    w.assert_offline();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_cli_connects_to_a_claude_tools_stdio_server_with_skills() {
    let Some(w) = world("skills_cli_stdio", script()).await else {
        return;
    };
    let log = w.home.path().join("skills-stdio.jsonl");
    let server = ExternalServer::stdio(
        SERVER,
        [
            "--skills".to_string(),
            "--log".to_string(),
            log.display().to_string(),
        ],
    );
    run_and_check(&w, server, &log).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_cli_connects_to_a_claude_tools_http_server_with_skills() {
    let Some(w) = world("skills_cli_http", script()).await else {
        return;
    };
    let log = w.home.path().join("skills-http.jsonl");
    let mut command = std::process::Command::new(SERVER);
    command.arg("--http").arg("--skills").arg("--log").arg(&log);
    let http = claude_tools_tests::ListeningServer::start(command);
    let server = ExternalServer::Http {
        url: http.url().to_string(),
        headers: Default::default(),
    };
    run_and_check(&w, server, &log).await;
}
