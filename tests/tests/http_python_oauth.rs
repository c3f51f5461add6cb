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

use std::io::{Read, Write};
use std::net::TcpStream;
use std::process::Command;
use std::time::Duration;

use claude_tools_tests::ListeningServer;
use serde_json::{Value, json};

/// A `POST` of `body` to `url` (on 127.0.0.1) with `headers`: the status and the body.
fn post(url: &str, headers: &[(&str, &str)], body: &str) -> (u16, String, String) {
    let rest = url.trim_start_matches("http://");
    let (address, path) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
    let path = if path.is_empty() { "/" } else { path };
    let mut stream = TcpStream::connect(address).expect("connect");
    stream
        .set_read_timeout(Some(Duration::from_secs(30)))
        .expect("a read timeout");
    let mut request = format!(
        "POST {path} HTTP/1.1\r\nhost: {address}\r\nconnection: close\r\ncontent-length: {}\r\n",
        body.len()
    );
    for (name, value) in headers {
        request.push_str(&format!("{name}: {value}\r\n"));
    }
    request.push_str("\r\n");
    request.push_str(body);
    stream.write_all(request.as_bytes()).expect("send");
    let mut reply = String::new();
    stream.read_to_string(&mut reply).expect("read the reply");
    let (head, body) = reply.split_once("\r\n\r\n").unwrap_or((&reply, ""));
    let status = head
        .split(' ')
        .nth(1)
        .and_then(|status| status.parse().ok())
        .unwrap_or(0);
    let challenge = head
        .lines()
        .find_map(|line| {
            let (name, value) = line.split_once(':')?;
            name.eq_ignore_ascii_case("www-authenticate")
                .then(|| value.trim().to_string())
        })
        .unwrap_or_default();
    (status, challenge, body.to_string())
}

/// A token the authorization server signs directly (its test endpoint), for `aud`.
fn mint(issuer: &str, aud: &str) -> String {
    let (status, _, body) = post(
        &format!("{issuer}/test/mint"),
        &[("content-type", "application/json")],
        &json!({"aud": aud, "scope": "units"}).to_string(),
    );
    assert_eq!(status, 200, "{body}");
    let minted: Value = serde_json::from_str(&body).expect("JSON");
    minted["access_token"]
        .as_str()
        .expect("a token")
        .to_string()
}

/// A `tools/call` of `to_fahrenheit` with `token`: the status and the `WWW-Authenticate`.
fn call_with(server: &str, token: &str) -> (u16, String) {
    let authorization = format!("Bearer {token}");
    let (status, challenge, _) = post(
        server,
        &[
            ("content-type", "application/json"),
            ("accept", "application/json, text/event-stream"),
            ("authorization", &authorization),
        ],
        &json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                "params": {"name": "to_fahrenheit", "arguments": {"celsius": 0}}})
        .to_string(),
    );
    (status, challenge)
}

#[test]
fn the_python_sdks_oauth_client_logs_in_to_the_example_through_a_real_authorization_server() {
    let Some(python) = claude_tools_tests::python_mcp("http_python_oauth") else {
        return;
    };
    let script = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("python")
        .join("oauth_auth_server.py");
    let mut issuer = Command::new(&python);
    issuer.arg(script);
    let issuer = ListeningServer::start(issuer);
    let mut server = Command::new(claude_tools_tests::example_binary("http_server"));
    server.args([
        "--listen",
        "127.0.0.1:0",
        "--issuer",
        issuer.url(),
        "--jwks-min-refresh",
        "0",
    ]);
    let server = ListeningServer::start(server);

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
    assert_eq!(call_with(server.url(), token).0, 200);

    // A token of the same issuer for another resource is refused.
    let elsewhere = mint(issuer.url(), "http://127.0.0.1:1/mcp");
    let (status, challenge) = call_with(server.url(), &elsewhere);
    assert_eq!(status, 401);
    assert!(challenge.contains("error=\"invalid_token\""), "{challenge}");

    // The issuer rotates its key: a token signed with the new one is accepted (its unknown
    // `kid` makes the server fetch the key set again), the old key is gone from the set.
    let (status, _, _) = post(&format!("{}/test/rotate", issuer.url()), &[], "");
    assert_eq!(status, 200);
    let rotated = mint(issuer.url(), server.url());
    assert_eq!(call_with(server.url(), &rotated).0, 200);
}
