//! The Streamable HTTP example run as an OAuth 2.1 resource server (`http_server --issuer URL`),
//! against a real authorization server on 127.0.0.1 (`tests/python/oauth_auth_server.py`, the
//! official MCP Python SDK's authorization-server routes issuing RS256 JWTs), logged in to by the
//! official TypeScript client, v2 (`@modelcontextprotocol/client` 2.4.0, driven by
//! `tests/node/oauth_client.mjs` with an in-memory `OAuthClientProvider` and no browser): the
//! whole flow from the first `401` through discovery, registration, PKCE and the token, then a
//! step-up on the `403 insufficient_scope` of the one tool that needs another scope. A token for
//! another audience is refused (a client holding one logs in again), and a rotated signing key is
//! picked up by the next login's token.
//!
//! Without node and the TypeScript client (`.cache/ts-mcp-client`), or the Python SDK's venv
//! (`.cache/python-mcp`) that runs the authorization server, the test skips with a banner,
//! unless `CI` is set, where it fails.

use std::path::Path;

use claude_tools_tests::oauth::OAuthServers;
use serde_json::{Value, json};

/// Runs the TypeScript client against the example, holding `stale` (a token and its issuer) as
/// its saved login when given, and returns its report.
fn log_in(node_modules: &Path, servers: &OAuthServers, stale: Option<&str>) -> Value {
    let node_modules = node_modules.to_str().expect("a UTF-8 path");
    let mut args = vec![servers.server.url(), node_modules];
    if let Some(token) = stale {
        args.extend([token, servers.issuer.url()]);
    }
    claude_tools_tests::run_node_client("oauth_client.mjs", &args)
}

/// The client's HTTP requests (`METHOD /path status [error]`), in order.
fn requests(report: &Value) -> Vec<&str> {
    report["requests"]
        .as_array()
        .expect("the requests")
        .iter()
        .map(|line| line.as_str().expect("a request line"))
        .collect()
}

/// Asserts that `steps` happen in `requests` in this order (other requests between them, such
/// as the notification's `202` and the listen `GET`, are the transport's own business).
fn assert_in_order(requests: &[&str], steps: &[&str]) {
    let mut rest = requests.iter();
    for step in steps {
        assert!(
            rest.any(|request| request == step),
            "`{step}` is missing, or out of order, in {requests:#?}"
        );
    }
}

/// Asserts what every login of the client saw, the step-up included.
fn assert_logged_in(report: &Value, server: &str) {
    assert_eq!(report["server"], "units");
    assert_eq!(
        report["tools"],
        json!(["count_to", "to_fahrenheit", "word_stats"])
    );
    assert_eq!(
        report["to_fahrenheit"],
        json!({"text": "100 °C is 212 °F", "isError": false})
    );
    // The first login asked for the scope of the 401's challenge, for this server (RFC 8707),
    // with PKCE; `count_to`'s 403 made the client ask again for the union with its scope.
    assert_eq!(
        report["authorizations"],
        json!([
            {"scope": "units", "resource": server, "pkce": "S256"},
            {"scope": "units units:count", "resource": server, "pkce": "S256"}
        ])
    );
    assert_eq!(report["scope_before_step_up"], "units");
    assert_eq!(
        report["count_to"],
        json!({"text": "counted to 2", "isError": false})
    );
    assert_eq!(report["scope_after_step_up"], "units units:count");
    let requests = requests(report);
    assert_in_order(
        &requests,
        &[
            "POST /register 201",
            "GET /authorize 302",
            "POST /token 200",
            "POST /mcp 200",
            "POST /mcp 403 insufficient_scope",
            "GET /authorize 302",
            "POST /token 200",
        ],
    );
    assert_eq!(requests.last(), Some(&"POST /mcp 200"), "{requests:#?}");
}

#[test]
fn the_typescript_clients_oauth_flow_logs_in_to_the_example_through_a_real_authorization_server() {
    let Some(node_modules) = claude_tools_tests::ts_mcp_client("http_ts_oauth") else {
        return;
    };
    let Some(python) = claude_tools_tests::python_mcp("http_ts_oauth") else {
        return;
    };
    let servers = OAuthServers::start(&python);
    let server = servers.server.url();

    // A client with no login: the bare 401 names the protected-resource metadata, which names
    // the authorization server.
    let first = log_in(&node_modules, &servers, None);
    assert_logged_in(&first, server);
    assert_in_order(
        &requests(&first),
        &[
            "POST /mcp 401",
            "GET /.well-known/oauth-protected-resource/mcp 200",
            "GET /.well-known/oauth-authorization-server 200",
            "POST /register 201",
        ],
    );
    let token = first["access_token"].as_str().expect("a token");
    assert_eq!(servers.call_with(token).0, 200);

    // A token of the same issuer for another resource is refused; a client holding one (a login
    // that no longer holds) is told `invalid_token` and logs in again.
    let elsewhere = servers.mint("http://127.0.0.1:1/mcp");
    let (status, challenge) = servers.call_with(&elsewhere);
    assert_eq!(status, 401);
    assert!(challenge.contains("error=\"invalid_token\""), "{challenge}");
    let stale = log_in(&node_modules, &servers, Some(&elsewhere));
    assert_eq!(
        requests(&stale).first(),
        Some(&"POST /mcp 401 invalid_token")
    );
    assert_logged_in(&stale, server);

    // The issuer rotates its key: the next login's token is signed with the new one, which the
    // server fetches on its unknown `kid`; the old key is gone from the set, and so are its
    // tokens.
    servers.rotate_key();
    let rotated = log_in(&node_modules, &servers, None);
    assert_logged_in(&rotated, server);
    assert_ne!(rotated["token_kid"], first["token_kid"]);
    assert_eq!(
        servers
            .call_with(rotated["access_token"].as_str().expect("a token"))
            .0,
        200
    );
    assert_eq!(servers.call_with(token).0, 401);
}
