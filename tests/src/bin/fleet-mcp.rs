//! The MCP server of the header-parameter tests with the real CLI
//! (tests/tests/e2e/header_gateway.rs): one replica of a deployment fleet over stateless
//! Streamable HTTP, named with `--replica NAME` and printing its URL on the first line.
//!
//! `deploy` takes its region in a header as well as in the body (`#[arg(header = "Region")]`,
//! so at MCP 2026-07-28 a client sends `Mcp-Param-Region`), which is what lets a gateway send
//! each region's calls to that region's replica without reading a body. `purge` is the tool a
//! gateway refuses by its name (`Mcp-Name`). Each tool says which replica ran it.
//!
//! With `--log FILE` it appends one JSON line to `FILE` per POST it was sent (a [`Post`]): the
//! `Mcp-*` headers as they arrived, and the status of its answer. Only headers: what a gateway
//! in front of it can see too.

use std::io::Write as _;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use claude_tools::mcp::http::HttpServer;
use claude_tools::mcp::http::axum;
use claude_tools::prelude::*;
use serde::Serialize;

#[tool_server(name = "fleet", version = "1.0.0")]
struct Fleet;

/// The name this process serves as (`--replica`).
struct Replica(String);

/// Deploy a service to one region.
#[tool(server = Fleet)]
async fn deploy(
    State(replica): State<Replica>,
    /// The region to deploy to (`eu` or `us`)
    #[arg(header = "Region")]
    region: String,
    /// The service to deploy
    service: String,
) -> String {
    format!("replica {} deployed {service} in {region}", replica.0)
}

/// Delete every deployment of a service, in every region.
#[tool(server = Fleet, destructive)]
async fn purge(
    State(replica): State<Replica>,
    /// The service to purge
    service: String,
) -> String {
    format!("replica {} purged {service}", replica.0)
}

/// One POST as the server saw its headers, with the status it answered.
#[derive(Serialize)]
struct Post {
    /// `--replica`.
    replica: String,
    /// `Mcp-Method`.
    method: Option<String>,
    /// `Mcp-Name`.
    name: Option<String>,
    /// Every `Mcp-Param-*` header, by its lowercase name.
    params: std::collections::BTreeMap<String, String>,
    /// The status of the answer.
    status: u16,
}

/// The log file, shared by the connections that write to it (`None`: no `--log`).
#[derive(Clone)]
struct Log {
    replica: Arc<str>,
    file: Option<Arc<Mutex<std::fs::File>>>,
}

impl Log {
    fn write(&self, post: &Post) {
        let Some(file) = &self.file else {
            return;
        };
        let Ok(mut line) = serde_json::to_vec(post) else {
            return;
        };
        line.push(b'\n');
        // One write per line on an O_APPEND file: lines of two processes do not interleave.
        if let Ok(mut file) = file.lock() {
            let _ = file.write_all(&line);
        }
    }
}

/// The value of header `name`, when it is text.
fn header(headers: &axum::http::HeaderMap, name: &str) -> Option<String> {
    headers
        .get(name)
        .and_then(|value| value.to_str().ok())
        .map(str::to_owned)
}

async fn log_post(
    axum::extract::State(log): axum::extract::State<Log>,
    request: axum::extract::Request,
    next: axum::middleware::Next,
) -> axum::response::Response {
    if request.method() != axum::http::Method::POST {
        return next.run(request).await;
    }
    let headers = request.headers();
    let params = headers
        .iter()
        .filter(|(name, _)| name.as_str().starts_with("mcp-param-"))
        .filter_map(|(name, value)| Some((name.to_string(), value.to_str().ok()?.to_owned())))
        .collect();
    let mut post = Post {
        replica: log.replica.to_string(),
        method: header(headers, "mcp-method"),
        name: header(headers, "mcp-name"),
        params,
        status: 0,
    };
    let response = next.run(request).await;
    post.status = response.status().as_u16();
    log.write(&post);
    response
}

#[tokio::main]
async fn main() -> std::io::Result<()> {
    let mut args = std::env::args().skip(1);
    let (mut replica, mut log_path) = (String::from("solo"), None);
    while let Some(arg) = args.next() {
        match (arg.as_str(), args.next()) {
            ("--replica", Some(name)) => replica = name,
            ("--log", Some(path)) => log_path = Some(PathBuf::from(path)),
            _ => {
                eprintln!("fleet-mcp: bad argument {arg:?} (usage: [--replica NAME] [--log FILE])");
                std::process::exit(2);
            }
        }
    }
    let file = match log_path {
        Some(path) => Some(Arc::new(Mutex::new(
            std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(path)?,
        ))),
        None => None,
    };
    let log = Log {
        replica: replica.as_str().into(),
        file,
    };
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    println!("http://{}/mcp", listener.local_addr()?);
    let router = HttpServer::new(Fleet::server().with_state(Replica(replica)))
        .into_router()
        .layer(axum::middleware::from_fn_with_state(log, log_post));
    axum::serve(
        listener,
        router.into_make_service_with_connect_info::<SocketAddr>(),
    )
    .with_graceful_shutdown(claude_tools::mcp::shutdown_signal())
    .await
}
