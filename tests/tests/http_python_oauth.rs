//! The Streamable HTTP example run as an OAuth 2.1 resource server (`http_server --issuer URL`),
//! against a real authorization server on 127.0.0.1 (`tests/python/oauth_auth_server.py`, the
//! official MCP Python SDK's authorization-server routes issuing RS256 JWTs), logged in to by the
//! official Python SDK's OAuth client (`tests/python/oauth_client.py`): the whole flow from the
//! first `401` through discovery, registration, PKCE and the token, then a step-up on the `403
//! insufficient_scope` of the one tool that needs another scope. Then a token for another audience
//! is refused and a rotated signing key is picked up.
//!
//! Without the SDK's venv (`.cache/python-mcp`) the test skips with a banner, unless `CI` is
//! set, where it fails.

use claude_tools_tests::oauth::OAuthServers;
use serde_json::json;

#[test]
fn the_python_sdks_oauth_client_logs_in_to_the_example_through_a_real_authorization_server() {
    let Some(python) = claude_tools_tests::python_mcp("http_python_oauth") else {
        return;
    };
    let servers = OAuthServers::start(&python);
    let server = &servers.server;

    let report = claude_tools_tests::run_python_client(&python, "oauth_client.py", &[server.url()]);
    assert_eq!(report["server"], "units");
    assert_eq!(
        report["tools"],
        json!(["count_to", "to_fahrenheit", "word_stats"])
    );
    assert_eq!(
        report["to_fahrenheit"],
        json!({"text": "100 °C is 212 °F", "isError": false})
    );
    // The first login asked for the scope of the 401's challenge, for this server (RFC 8707);
    // `count_to`'s 403 made the client ask again for its scope too.
    assert_eq!(
        report["authorizations"],
        json!([
            {"scope": "units", "resource": server.url()},
            {"scope": "units units:count", "resource": server.url()}
        ])
    );
    assert_eq!(report["scope_before_step_up"], "units");
    assert_eq!(
        report["count_to"],
        json!({"text": "counted to 2", "isError": false})
    );
    assert_eq!(report["scope_after_step_up"], "units units:count");
    let token = report["access_token"].as_str().expect("a token");
    assert_eq!(servers.call_with(token).0, 200);

    // A token of the same issuer for another resource is refused.
    let elsewhere = servers.mint("http://127.0.0.1:1/mcp");
    let (status, challenge) = servers.call_with(&elsewhere);
    assert_eq!(status, 401);
    assert!(challenge.contains("error=\"invalid_token\""), "{challenge}");

    // The issuer rotates its key: a token signed with the new one is accepted (its unknown
    // `kid` makes the server fetch the key set again), the old key is gone from the set.
    servers.rotate_key();
    let rotated = servers.mint(server.url());
    assert_eq!(servers.call_with(&rotated).0, 200);
}
