//! Header-carried tool parameters (`#[arg(header = "Region")]`, MCP 2026-07-28's
//! `x-mcp-header`) with the real CLI: the CLI reads the mark in `tools/list` and sends the
//! argument in `Mcp-Param-Region` beside the body, so a gateway can act on a call from its
//! headers alone. The server is the `fleet-mcp` test binary (tests/src/bin/fleet-mcp.rs), whose
//! log holds the `Mcp-*` headers of every POST it got.
//!
//! First the CLI against one replica: the header arrives and agrees with the body (the server
//! refuses a call whose header does not). Then nginx in front of two replicas, configured only
//! on headers (`map`s of `$http_mcp_param_region` and `$http_mcp_method`/`$http_mcp_name`;
//! nginx never reads the JSON body): each region's call goes to that region's replica, and
//! `purge` is refused at the gateway with a 403, so no replica ever sees it.

use std::path::Path;
use std::process::Command;

use claude_tools_runtime::options::{ExternalServer, Options};
use claude_tools_testkit::model_server::{Script, Turn};
use claude_tools_tests::ListeningServer;
use claude_tools_tests::services::{Nginx, nginx_or_skip};
use serde_json::{Value, json};

use crate::harness::{json_lines, success_text, tr, within, world};
use crate::run_query;

const SERVER: &str = env!("CARGO_BIN_EXE_fleet-mcp");

/// One `fleet-mcp` replica named `name`, logging its POSTs to `log`.
fn replica(name: &str, log: &Path) -> ListeningServer {
    let mut command = Command::new(SERVER);
    command.arg("--replica").arg(name).arg("--log").arg(log);
    ListeningServer::start(command)
}

/// `options` with the fleet at `url` as the external HTTP server `fleet`, its tools allowed.
fn with_fleet(options: Options, url: &str) -> Options {
    options
        .external_mcp_server(
            "fleet",
            ExternalServer::Http {
                url: url.to_owned(),
                headers: Default::default(),
            },
        )
        .allowed_tools(["mcp__fleet__deploy", "mcp__fleet__purge"])
}

/// The `tools/call` POSTs of a log: `(Mcp-Name, Mcp-Param-Region, status)`.
fn calls(log: &[Value]) -> Vec<(String, Option<String>, u64)> {
    log.iter()
        .filter(|post| post["method"] == "tools/call")
        .map(|post| {
            (
                post["name"].as_str().unwrap_or_default().to_owned(),
                post["params"]["mcp-param-region"]
                    .as_str()
                    .map(str::to_owned),
                post["status"].as_u64().unwrap_or_default(),
            )
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_cli_sends_a_header_parameter_to_a_claude_tools_http_server() {
    let script = Script::new()
        .turn(Turn::text("Deploying.").and_tool_use(
            "toolu_fleet_deploy",
            "mcp__fleet__deploy",
            json!({"region": "eu", "service": "billing-api"}),
        ))
        .turn(Turn::text("{{tool_result:toolu_fleet_deploy}}"));
    let Some(w) = world("header_param_cli", script).await else {
        return;
    };
    let log_path = w.path("fleet.jsonl");
    let fleet = replica("solo", &log_path);
    let messages = within(
        "a deploy through the CLI",
        run_query(
            "deploy billing-api to eu",
            with_fleet(w.options(), fleet.url()),
        ),
    )
    .await;
    let log = json_lines(&log_path);
    assert_eq!(
        success_text(&messages),
        "replica solo deployed billing-api in eu",
        "the server saw: {log:#?}"
    );
    assert_eq!(
        calls(&log),
        [("deploy".to_owned(), Some("eu".to_owned()), 200)],
        "the call carried its region in Mcp-Param-Region: {log:#?}"
    );
    // Only the marked parameter travels in a header.
    let call = log.iter().find(|post| post["method"] == "tools/call");
    assert_eq!(
        call.map(|post| &post["params"]),
        Some(&json!({"mcp-param-region": "eu"})),
        "{log:#?}"
    );
    w.assert_offline();
}

/// The gateway: `Mcp-Param-Region` picks the replica, `Mcp-Method` and `Mcp-Name` refuse
/// `purge`; everything else (`server/discover`, `tools/list`, listen streams) goes to either
/// replica, as stateless 2026-07-28 traffic may.
fn gateway(eu: &str, us: &str) -> (String, String) {
    let http = format!(
        "    upstream fleet_eu {{ server {eu}; }}
    upstream fleet_us {{ server {us}; }}
    upstream fleet_any {{ server {eu}; server {us}; }}
    map $http_mcp_param_region $fleet {{
        eu fleet_eu;
        us fleet_us;
        default fleet_any;
    }}
    map \"$http_mcp_method $http_mcp_name\" $fleet_refused {{
        \"tools/call purge\" 1;
        default 0;
    }}
"
    );
    let server = "        default_type text/plain;
        location / {
            if ($fleet_refused) {
                # What the CLI hands the model as the call's error.
                return 403 \"purge is refused at the gateway\";
            }
            proxy_pass http://$fleet;
            proxy_http_version 1.1;
            proxy_set_header Connection \"\";
            proxy_set_header Host $http_host;
            # The body streams through as it comes: nginx decides before reading it.
            proxy_request_buffering off;
            proxy_buffering off;
            proxy_read_timeout 60s;
        }
"
    .to_owned();
    (http, server)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_gateway_routes_and_refuses_the_clis_calls_on_their_headers() {
    if !nginx_or_skip("a_gateway_routes_and_refuses_the_clis_calls_on_their_headers") {
        return;
    }
    let script = Script::new()
        .turn(
            Turn::text("Deploying in both regions, then purging.")
                .and_tool_use(
                    "toolu_fleet_eu",
                    "mcp__fleet__deploy",
                    json!({"region": "eu", "service": "billing-api"}),
                )
                .and_tool_use(
                    "toolu_fleet_us",
                    "mcp__fleet__deploy",
                    json!({"region": "us", "service": "billing-api"}),
                )
                .and_tool_use(
                    "toolu_fleet_purge",
                    "mcp__fleet__purge",
                    json!({"service": "billing-api"}),
                ),
        )
        .turn(Turn::text(
            "{{tool_result:toolu_fleet_eu}} / {{tool_result:toolu_fleet_us}}",
        ));
    let Some(w) = world("header_param_gateway", script).await else {
        return;
    };
    let (eu_log, us_log) = (w.path("fleet-eu.jsonl"), w.path("fleet-us.jsonl"));
    let eu = replica("eu", &eu_log);
    let us = replica("us", &us_log);
    let (http, server) = gateway(eu.address(), us.address());
    let nginx = Nginx::start_with(&http, &server).expect("nginx starts");
    let messages = within(
        "deploys and a purge through the gateway",
        run_query(
            "deploy billing-api in eu and us, then purge it",
            with_fleet(w.options(), &nginx.url("/mcp")),
        ),
    )
    .await;
    let (eu_log, us_log) = (json_lines(&eu_log), json_lines(&us_log));
    assert_eq!(
        success_text(&messages),
        "replica eu deployed billing-api in eu / replica us deployed billing-api in us",
        "eu saw {eu_log:#?}\nus saw {us_log:#?}"
    );
    assert_eq!(
        calls(&eu_log),
        [("deploy".to_owned(), Some("eu".to_owned()), 200)],
        "eu gets the eu call and nothing else: {eu_log:#?}"
    );
    assert_eq!(
        calls(&us_log),
        [("deploy".to_owned(), Some("us".to_owned()), 200)],
        "us gets the us call and nothing else: {us_log:#?}"
    );
    // The purge never reached a replica; the model read the gateway's reason as its error.
    let mut results = w.tool_results();
    results.sort();
    assert_eq!(
        results,
        [
            tr(
                "toolu_fleet_eu",
                "replica eu deployed billing-api in eu",
                false
            ),
            tr(
                "toolu_fleet_purge",
                "Error POSTing to endpoint: purge is refused at the gateway",
                true
            ),
            tr(
                "toolu_fleet_us",
                "replica us deployed billing-api in us",
                false
            ),
        ]
    );
    w.assert_offline();
}
