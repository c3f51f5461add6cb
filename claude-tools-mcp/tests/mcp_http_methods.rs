//! Every method other than those the endpoint serves gets `405` with an `Allow` that lists only
//! methods that are served (issue 20, item 11): stateless, `POST` and `OPTIONS`; with sessions,
//! `GET`, `POST`, `DELETE` and `OPTIONS`. A `HEAD` never opens a session stream.

mod common;

use std::net::SocketAddr;

use claude_tools::mcp::http::HttpServer;
use claude_tools::tools::{ToolDefBuilder, ToolServer};
use common::*;
use tokio::net::TcpListener;

fn tools() -> ToolServer {
    ToolServer::new("methods", "1.0.0")
        .with_tool(ToolDefBuilder::new("hello"), |_| async { "hi" })
        .unwrap()
}

async fn start(sessions: bool) -> SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(
        HttpServer::new(tools())
            .sessions(sessions)
            .serve(listener)
            .into_future(),
    );
    addr
}

/// The methods an `Allow` header lists, in upper case, sorted.
fn allowed(reply: &Reply) -> Vec<String> {
    let allow = reply
        .header("allow")
        .unwrap_or_else(|| panic!("a 405 without Allow: {reply:?}"));
    let mut methods: Vec<String> = allow
        .split(',')
        .map(|method| method.trim().to_ascii_uppercase())
        .collect();
    methods.sort();
    methods
}

/// Sends `method` to the endpoint without a body. A `HEAD`'s answer has a head only.
async fn send(addr: SocketAddr, method: &str, headers: &[(&str, &str)]) -> Reply {
    if method != "HEAD" {
        return exchange(addr, &request(method, "/mcp", headers, "")).await;
    }
    let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
    tokio::io::AsyncWriteExt::write_all(&mut stream, &request(method, "/mcp", headers, ""))
        .await
        .unwrap();
    let (status, headers, _) = tokio::time::timeout(WAIT, read_head(&mut stream))
        .await
        .expect("a head in time");
    Reply {
        status,
        headers,
        body: String::new(),
    }
}

#[tokio::test]
async fn a_stateless_server_allows_post_and_options_only() {
    let addr = start(false).await;
    for method in ["GET", "HEAD", "DELETE", "PUT", "PATCH"] {
        let reply = send(addr, method, &[]).await;
        assert_eq!(reply.status, 405, "{method}: {reply:?}");
        assert_eq!(allowed(&reply), ["OPTIONS", "POST"], "{method}");
        if method != "HEAD" {
            assert_eq!(reply.json()["error"]["code"], -32000, "{method}: {reply:?}");
        }
    }
    // What `Allow` names is served.
    let options = send(addr, "OPTIONS", &[]).await;
    assert!(options.status < 300, "{options:?}");
    let post = exchange(addr, &request("POST", "/mcp", &MCP_HEADERS, TOOLS_LIST)).await;
    assert_eq!(post.status, 200, "{post:?}");
}

#[tokio::test]
async fn with_sessions_the_other_methods_are_refused_and_head_opens_no_stream() {
    let addr = start(true).await;
    for method in ["HEAD", "PUT", "PATCH"] {
        let reply = send(addr, method, &[("accept", "text/event-stream")]).await;
        assert_eq!(reply.status, 405, "{method}: {reply:?}");
        assert_eq!(
            allowed(&reply),
            ["DELETE", "GET", "OPTIONS", "POST"],
            "{method}"
        );
    }
}
