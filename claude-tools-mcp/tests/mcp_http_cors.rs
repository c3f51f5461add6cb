//! Where requests may come from, over raw HTTP/1.1 on 127.0.0.1: the `Host` check (DNS
//! rebinding) and CORS (preflights, and the headers on every response to an allowed origin,
//! refusals included). The same server driven by a real browser is in `mcp_http_browser.rs`.

mod common;

use std::net::SocketAddr;

use claude_tools::mcp::http::{HttpServer, axum};
use claude_tools::tools::{ToolDefBuilder, ToolServer};
use common::*;
use serde_json::json;
use tokio::net::TcpListener;
use tokio::sync::oneshot;

fn tools() -> ToolServer {
    ToolServer::new("cors", "1.0.0")
        .with_tool(ToolDefBuilder::new("hello"), |_| async { "hi" })
        .unwrap()
}

/// A server under test on 127.0.0.1; stops when the sender is dropped.
async fn start(
    configure: impl FnOnce(HttpServer) -> HttpServer,
) -> (SocketAddr, oneshot::Sender<()>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let (shutdown, signal) = oneshot::channel::<()>();
    let serve = configure(HttpServer::new(tools()))
        .serve(listener)
        .with_graceful_shutdown(async {
            let _ = signal.await;
        });
    tokio::spawn(serve.into_future());
    (addr, shutdown)
}

const HELLO: &str = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"hello"}}"#;

fn hello_result() -> serde_json::Value {
    text_result(json!(1), "hi", false)
}

/// A `tools/call` naming `Host: host`.
async fn hello_to(addr: SocketAddr, host: &str) -> Reply {
    exchange(addr, &request_to(host, "POST", "/mcp", &MCP_HEADERS, HELLO)).await
}

// ---------------------------------------------------------------------------------------------
// Host.

#[tokio::test]
async fn on_a_loopback_listener_only_loopback_hosts_pass() {
    let (addr, _stop) = start(|http| http).await;
    let port = addr.port();
    for host in [
        format!("127.0.0.1:{port}"),
        format!("localhost:{port}"),
        format!("LocalHost:{port}"),
        format!("[::1]:{port}"),
        "localhost".to_string(),
    ] {
        hello_to(addr, &host).await.assert_json(200, hello_result());
    }
    for host in [
        format!("evil.example:{port}"),
        "evil.example".to_string(),
        format!("localhost.evil.example:{port}"),
        format!("127.0.0.1.nip.io:{port}"),
    ] {
        hello_to(addr, &host).await.assert_json(
            403,
            refusal(
                -32000,
                "Forbidden",
                &format!("host `{host}` is not allowed"),
            ),
        );
    }
    // No Host at all (HTTP/1.0 allows that).
    let reply = exchange(
        addr,
        format!(
            "POST /mcp HTTP/1.0\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n{HELLO}",
            HELLO.len()
        )
        .as_bytes(),
    )
    .await;
    reply.assert_json(
        403,
        refusal(-32000, "Forbidden", "the request has no Host header"),
    );
}

#[tokio::test]
async fn every_request_of_a_keep_alive_connection_has_its_host_checked() {
    // The server remembers a connection's last allowed `Host` to skip re-reading it: a request
    // naming another host on the same connection must still be refused.
    let (addr, _stop) = start(|http| http).await;
    let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
    let post = |host: &str| {
        format!(
            "POST /mcp HTTP/1.1\r\nhost: {host}\r\ncontent-type: application/json\r\naccept: application/json, text/event-stream\r\ncontent-length: {}\r\n\r\n{HELLO}",
            HELLO.len()
        )
    };
    let port = addr.port();
    for (host, allowed) in [
        (format!("localhost:{port}"), true),
        (format!("localhost:{port}"), true),
        ("evil.example".to_string(), false),
        (format!("127.0.0.1:{port}"), true),
        (format!("localhost.evil.example:{port}"), false),
        (format!("127.0.0.1:{port}"), true),
    ] {
        tokio::io::AsyncWriteExt::write_all(&mut stream, post(&host).as_bytes())
            .await
            .unwrap();
        let reply = tokio::time::timeout(WAIT, read_reply(&mut stream))
            .await
            .expect("answered");
        if allowed {
            reply.assert_json(200, hello_result());
        } else {
            reply.assert_json(
                403,
                refusal(
                    -32000,
                    "Forbidden",
                    &format!("host `{host}` is not allowed"),
                ),
            );
        }
    }
}

#[tokio::test]
async fn get_and_delete_of_a_session_are_host_checked_too() {
    let (addr, _stop) = start(|http| http.sessions(true)).await;
    let init = exchange(addr, &request("POST", "/mcp", &MCP_HEADERS, INITIALIZE)).await;
    let id = init.header("mcp-session-id").unwrap().to_string();
    let forbidden = refusal(-32000, "Forbidden", "host `evil.example` is not allowed");
    let get = [
        ("accept", "text/event-stream"),
        ("mcp-session-id", id.as_str()),
    ];
    exchange(addr, &request_to("evil.example", "GET", "/mcp", &get, ""))
        .await
        .assert_json(403, forbidden.clone());
    exchange(
        addr,
        &request_to(
            "evil.example",
            "DELETE",
            "/mcp",
            &[("mcp-session-id", &id)],
            "",
        ),
    )
    .await
    .assert_json(403, forbidden);
    // The session lives on.
    let in_session = with(&[("mcp-session-id", &id)]);
    let listed = exchange(addr, &request("POST", "/mcp", &in_session, TOOLS_LIST)).await;
    assert_eq!(listed.status, 200);
}

#[tokio::test]
async fn allowed_hosts_replace_the_default() {
    let (addr, _stop) =
        start(|http| http.allowed_hosts(["MCP.example.com", "api.example.com:8443"])).await;
    hello_to(addr, "mcp.example.com:1234")
        .await
        .assert_json(200, hello_result());
    hello_to(addr, "api.example.com:8443")
        .await
        .assert_json(200, hello_result());
    for host in ["api.example.com:443", "127.0.0.1"] {
        assert_eq!(hello_to(addr, host).await.status, 403, "{host}");
    }
    let (addr, _stop) = start(|http| http.allowed_hosts(["*"])).await;
    hello_to(addr, "anything.example")
        .await
        .assert_json(200, hello_result());
}

#[tokio::test]
async fn a_mounted_router_answers_loopback_hosts_unless_told_otherwise() {
    async fn mount(http: HttpServer) -> SocketAddr {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        tokio::spawn(axum::serve(listener, http.into_router()).into_future());
        addr
    }
    let addr = mount(HttpServer::new(tools())).await;
    hello_to(addr, "localhost")
        .await
        .assert_json(200, hello_result());
    assert_eq!(hello_to(addr, "mcp.example.com").await.status, 403);
    let addr = mount(HttpServer::new(tools()).allowed_hosts(["mcp.example.com"])).await;
    hello_to(addr, "mcp.example.com")
        .await
        .assert_json(200, hello_result());
}

// ---------------------------------------------------------------------------------------------
// CORS.

const PAGE: &str = "http://127.0.0.1:5173";

fn preflight_from(origin: &str, method: &str) -> Vec<u8> {
    request(
        "OPTIONS",
        "/mcp",
        &[
            ("origin", origin),
            ("access-control-request-method", method),
            (
                "access-control-request-headers",
                "authorization,content-type,mcp-protocol-version,mcp-session-id",
            ),
        ],
        "",
    )
}

fn cors_headers(reply: &Reply) -> Vec<&(String, String)> {
    reply
        .headers
        .iter()
        .filter(|(name, _)| name.starts_with("access-control-"))
        .collect()
}

#[tokio::test]
async fn a_preflight_from_an_allowed_origin_is_granted_with_the_modes_methods() {
    let (addr, _stop) = start(|http| http.allowed_origins([PAGE])).await;
    let reply = exchange(addr, &preflight_from(PAGE, "POST")).await;
    assert_eq!(reply.status, 204, "{reply:?}");
    assert_eq!(reply.header("access-control-allow-origin"), Some(PAGE));
    assert_eq!(reply.header("access-control-allow-methods"), Some("POST"));
    let allowed = reply.header("access-control-allow-headers").unwrap();
    for name in [
        "content-type",
        "authorization",
        "mcp-protocol-version",
        "mcp-session-id",
        "last-event-id",
    ] {
        assert!(
            allowed.split(", ").any(|h| h == name),
            "{name} in {allowed}"
        );
    }
    assert_eq!(reply.header("access-control-max-age"), Some("7200"));
    assert_eq!(reply.header("vary"), Some("origin"));

    // With sessions, GET and DELETE too.
    let (addr, _stop) = start(|http| http.allowed_origins([PAGE]).sessions(true)).await;
    let reply = exchange(addr, &preflight_from(PAGE, "DELETE")).await;
    assert_eq!(reply.status, 204, "{reply:?}");
    assert_eq!(
        reply.header("access-control-allow-methods"),
        Some("GET, POST, DELETE")
    );
}

#[tokio::test]
async fn a_preflight_from_another_origin_is_403_without_cors_headers() {
    let (addr, _stop) = start(|http| http.allowed_origins([PAGE])).await;
    let reply = exchange(addr, &preflight_from("http://evil.example", "POST")).await;
    reply.assert_json(
        403,
        refusal(
            -32000,
            "Forbidden",
            "origin `http://evil.example` is not allowed",
        ),
    );
    assert!(cors_headers(&reply).is_empty(), "{reply:?}");
    // The default (loopback origins) grants a loopback page.
    let (addr, _stop) = start(|http| http).await;
    let reply = exchange(addr, &preflight_from("http://localhost:3000", "POST")).await;
    assert_eq!(reply.status, 204);
    assert_eq!(
        reply.header("access-control-allow-origin"),
        Some("http://localhost:3000")
    );
}

#[tokio::test]
async fn every_response_to_an_allowed_origin_carries_cors_headers_refusals_included() {
    let (addr, _stop) = start(|http| {
        http.allowed_origins([PAGE])
            .bearer_token("t0ken")
            .sessions(true)
    })
    .await;
    let assert_cors = |reply: &Reply| {
        assert_eq!(
            reply.header("access-control-allow-origin"),
            Some(PAGE),
            "{reply:?}"
        );
        let exposed = reply.header("access-control-expose-headers").unwrap();
        assert!(
            exposed.split(", ").any(|h| h == "mcp-session-id"),
            "{exposed}"
        );
        assert!(
            exposed.split(", ").any(|h| h == "www-authenticate"),
            "{exposed}"
        );
        assert_eq!(reply.header("vary"), Some("origin"));
    };
    // A session opened: the page can read its id.
    let headers = with(&[("origin", PAGE), ("authorization", "Bearer t0ken")]);
    let init = exchange(addr, &request("POST", "/mcp", &headers, INITIALIZE)).await;
    assert_eq!(init.status, 200);
    assert!(init.header("mcp-session-id").is_some());
    assert_cors(&init);
    // A 401: the page can read why.
    let refused = exchange(
        addr,
        &request("POST", "/mcp", &with(&[("origin", PAGE)]), INITIALIZE),
    )
    .await;
    assert_eq!(refused.status, 401);
    assert_cors(&refused);
    // A 400 of the session layer.
    let no_session = exchange(
        addr,
        &request(
            "POST",
            "/mcp",
            &with(&[("origin", PAGE), ("authorization", "Bearer t0ken")]),
            TOOLS_LIST,
        ),
    )
    .await;
    assert_eq!(no_session.status, 400);
    assert_cors(&no_session);
}

#[tokio::test]
async fn responses_to_another_origin_or_to_no_origin_carry_no_cors_grant() {
    let (addr, _stop) = start(|http| http.allowed_origins([PAGE])).await;
    let foreign = exchange(
        addr,
        &request(
            "POST",
            "/mcp",
            &with(&[("origin", "http://evil.example")]),
            HELLO,
        ),
    )
    .await;
    assert_eq!(foreign.status, 403);
    assert!(cors_headers(&foreign).is_empty(), "{foreign:?}");
    let plain = exchange(addr, &request("POST", "/mcp", &MCP_HEADERS, HELLO)).await;
    plain.assert_json(200, hello_result());
    assert!(cors_headers(&plain).is_empty(), "{plain:?}");
    // A non-browser OPTIONS (no Origin) learns the methods.
    let options = exchange(addr, &request("OPTIONS", "/mcp", &[], "")).await;
    assert_eq!(options.status, 204);
    assert_eq!(options.header("allow"), Some("OPTIONS, POST"));
}

// ---------------------------------------------------------------------------------------------
// `serve` answers a `POST` without axum's routing (issue 28): the same answer as the router.

/// The status, headers (but `date`) and body of `reply`, headers sorted.
fn comparable(reply: Reply) -> (u16, Vec<(String, String)>, String) {
    let mut headers: Vec<_> = reply
        .headers
        .into_iter()
        .filter(|(name, _)| !name.eq_ignore_ascii_case("date"))
        .map(|(name, value)| (name.to_ascii_lowercase(), value))
        .collect();
    headers.sort();
    (reply.status, headers, reply.body)
}

#[tokio::test]
async fn serve_and_a_mounted_router_answer_a_post_alike() {
    let configure = |http: HttpServer| http.allowed_origins([PAGE]);
    let (served, _stop) = start(configure).await;
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let mounted = listener.local_addr().unwrap();
    // A mounted router answers only loopback hosts by default: the same host list for both.
    let router = configure(HttpServer::new(tools()))
        .allowed_hosts(["localhost"])
        .into_router();
    tokio::spawn(axum::serve(listener, router).into_future());
    let bad_body = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":"#;
    let cases: Vec<(Vec<(&str, &str)>, &str)> = vec![
        (MCP_HEADERS.to_vec(), HELLO),
        (
            [MCP_HEADERS.as_slice(), &[("origin", PAGE)]].concat(),
            HELLO,
        ),
        (
            [
                MCP_HEADERS.as_slice(),
                &[("origin", "https://evil.example")],
            ]
            .concat(),
            HELLO,
        ),
        (MCP_HEADERS.to_vec(), bad_body),
        (vec![("content-type", "text/plain")], HELLO),
        (
            [
                MCP_HEADERS.as_slice(),
                &[("mcp-protocol-version", "1999-01-01")],
            ]
            .concat(),
            HELLO,
        ),
    ];
    for (headers, body) in cases {
        let send = |addr: SocketAddr| {
            let request = request_to("localhost", "POST", "/mcp", &headers, body);
            async move { comparable(exchange(addr, &request).await) }
        };
        let (from_serve, from_router) = (send(served).await, send(mounted).await);
        assert_eq!(from_serve, from_router, "{headers:?} {body}");
    }
}
