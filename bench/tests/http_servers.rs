//! The Streamable HTTP bench's servers and load generator, with a handful of calls (the figures
//! come from `bench/run http`; these tests only check that every part does its job): each
//! server gets the handshake and answers every checked call as `application/json`, through
//! `ct-bench http` as `bench/run http` runs it (claude-tools also its `prompts/get` and
//! `resources/read`, with `--methods`); the floor answers a call with the very bytes of
//! the MCP servers; and a server that answers wrongly, or is not stateless, fails the load
//! generator instead of being timed.
//!
//! The TypeScript server needs node and the SDK `bench/install-sdks.sh` installs (`scripts/test`
//! runs it). Without them its test skips with a banner, unless `CI` is set, where it fails.
#![cfg(feature = "http")]

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

use claude_tools_bench::env;
use claude_tools_bench::http_client::Connection;
use claude_tools_bench::http_load::{self, Endpoint, Load, Method};
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

/// A report written by hand before the run: `ct-bench http` must keep it.
const HAND_WRITTEN: &str = "# Benchmarks\n\n## Written by hand\n\nkept as it is\n";

/// Runs `ct-bench http` for `servers` with a few calls at C = 1 and 4, in both default
/// placements (`split`, `none`), and `extra` arguments, its output kept in a
/// fresh folder under the temp dir (returned), which starts with `report` as its
/// `BENCHMARKS.md` if given; fails the test if the command fails.
fn ct_bench_http(name: &str, servers: &str, report: Option<&str>, extra: &[&str]) -> PathBuf {
    let out = std::env::temp_dir().join(format!("ct-bench-http-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&out);
    if let Some(report) = report {
        std::fs::create_dir_all(&out).expect("output folder");
        std::fs::write(out.join("BENCHMARKS.md"), report).expect("seeding the report");
    }
    let output = Command::new(env!("CARGO_BIN_EXE_ct-bench"))
        .args([
            "http",
            "--drivers",
            servers,
            "--rounds",
            "1",
            "--n",
            "40",
            "--warmup",
            "8",
            "--conc",
            "1,4",
        ])
        .args(extra)
        .env(env::OUT, &out)
        .output()
        .expect("running ct-bench http");
    assert!(
        output.status.success(),
        "ct-bench http --drivers {servers} failed:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    out
}

/// Every server of `servers` answered every call of `tools/call` at both levels in both
/// placements, as JSON, and the report has the section; claude-tools also every call of each
/// of `methods`.
fn assert_served(out: &Path, servers: &[&str], methods: &[&str]) {
    let path = out.join("results/http.json");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let bench: Value = serde_json::from_str(&text).expect("results/http.json is JSON");
    let samples = bench["samples"].as_array().expect("samples");
    let mut seen: Vec<(String, String, String, u64)> = Vec::new();
    for sample in samples {
        assert_eq!(sample["error"], Value::Null, "{sample}");
        let c = sample["concurrency"].as_u64().expect("concurrency");
        assert_eq!(sample["phase"]["calls"], 40, "{sample}");
        assert_eq!(sample["phase"]["in_flight"], c, "{sample}");
        assert_eq!(
            sample["content_types"],
            json!(["application/json"]),
            "{sample}"
        );
        assert!(sample["server_cpu_ns"].as_u64() > Some(0), "{sample}");
        assert!(sample["server_peak_kib"].as_u64() > Some(0), "{sample}");
        seen.push((
            sample["server"].as_str().unwrap_or("").to_string(),
            sample["method"].as_str().unwrap_or("").to_string(),
            sample["placement"].as_str().unwrap_or("").to_string(),
            c,
        ));
    }
    seen.sort();
    let mut expected: Vec<(String, String, String, u64)> = Vec::new();
    for server in servers {
        for method in ["tool"]
            .iter()
            .chain(methods.iter().filter(|_| *server == "claude-tools"))
        {
            for placement in ["split", "none"] {
                for c in [1, 4] {
                    expected.push((
                        server.to_string(),
                        method.to_string(),
                        placement.to_string(),
                        c,
                    ));
                }
            }
        }
    }
    expected.sort();
    assert_eq!(seen, expected);
    let report = std::fs::read_to_string(out.join("BENCHMARKS.md")).expect("the report");
    assert!(
        report.contains("## Remote MCP over Streamable HTTP"),
        "{report}"
    );
    for server in servers {
        assert!(
            report.contains(&format!("| {server} | `application/json` |")),
            "{report}"
        );
    }
    let _ = std::fs::remove_dir_all(out);
}

#[test]
fn the_rust_servers_answer_every_checked_call() {
    let out = ct_bench_http(
        "rust",
        "claude-tools,rmcp,floor",
        Some(HAND_WRITTEN),
        &["--methods", "resource,tool,prompt"],
    );
    let report = std::fs::read_to_string(out.join("BENCHMARKS.md")).expect("the report");
    // The hand-written section is kept byte for byte (the title and introduction above it are
    // the report's own, rewritten by every command), and the HTTP section comes after it.
    let hand = HAND_WRITTEN
        .find("## Written by hand")
        .map(|at| &HAND_WRITTEN[at..])
        .expect("a hand-written section");
    let kept = report.find(hand).expect("the hand-written section kept");
    let http = report
        .find("\n## Remote MCP over Streamable HTTP\n")
        .expect("the HTTP section");
    assert!(kept < http, "{report}");
    // Issue 22: claude-tools' prompt and resource against its tools/call; the other servers
    // serve tools/call alone.
    assert!(
        report.contains("Command: `bench/run http --rounds 1 --n 40 --ts-n 40 --warmup 8 --conc 1,4 --drivers claude-tools,rmcp,floor --placements split,none --methods resource,tool,prompt`."),
        "{report}"
    );
    for method in ["tools/call", "prompts/get", "resources/read"] {
        assert!(
            report.contains(&format!("| claude-tools | `{method}` |")),
            "{report}"
        );
    }
    assert!(report.contains("| rmcp | `tools/call` |"), "{report}");
    assert!(!report.contains("| rmcp | `prompts/get` |"), "{report}");
    assert_served(
        &out,
        &["claude-tools", "rmcp", "floor"],
        &["prompt", "resource"],
    );
}

/// A bench server started as `bench/run http` starts it (unpinned), killed when dropped.
struct Server {
    child: Child,
    endpoint: Endpoint,
}

impl Server {
    fn start(program: &str) -> Server {
        let mut child = Command::new(program)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("spawning {program}: {e}"));
        let stdout = child.stdout.take().expect("stdout");
        let mut url = String::new();
        BufReader::new(stdout)
            .read_line(&mut url)
            .unwrap_or_else(|e| panic!("{program}'s URL: {e}"));
        let endpoint = Endpoint::parse(&url).unwrap_or_else(|e| panic!("{program}: {e}"));
        Server { child, endpoint }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[tokio::test(flavor = "current_thread")]
async fn the_floor_answers_a_call_with_the_bytes_of_the_mcp_servers() {
    let floor = Server::start(env!("CARGO_BIN_EXE_ct-bench-http-floor"));
    let handshake = http_load::handshake(&floor.endpoint, &[Method::Tool])
        .await
        .expect("the floor passes the load generator's handshake");
    assert_eq!(handshake.content_type, "application/json");
    #[allow(unused_mut)]
    let mut servers = vec![(
        "rmcp",
        Server::start(env!("CARGO_BIN_EXE_ct-bench-http-rmcp")),
    )];
    #[cfg(feature = "claude-tools")]
    servers.push((
        "claude-tools",
        Server::start(env!("CARGO_BIN_EXE_ct-bench-http-claude-tools")),
    ));
    let calls = [
        r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"add","arguments":{"a":-3,"b":4}}}"#,
        r#"{"jsonrpc":"2.0","id":"x-1","method":"tools/call","params":{"name":"add","arguments":{"a":40,"b":2}}}"#,
        r#"{"jsonrpc":"2.0","id":123456789,"method":"tools/call","params":{"name":"add","arguments":{"a":9223372036854775807,"b":1}}}"#,
    ];
    async fn answer(endpoint: &Endpoint, body: &str) -> (u16, String, String) {
        let mut conn = Connection::connect(endpoint.addr, &endpoint.path)
            .await
            .expect("connect");
        conn.set_header("MCP-Protocol-Version", http_load::PROTOCOL_VERSION);
        let r = conn.post_json(body.as_bytes()).await.expect("a response");
        (
            r.status,
            r.content_type.clone(),
            String::from_utf8_lossy(r.body).into_owned(),
        )
    }
    for call in calls {
        let expected = answer(&floor.endpoint, call).await;
        assert_eq!(
            (expected.0, expected.1.as_str()),
            (200, "application/json"),
            "{call}"
        );
        for (name, server) in &servers {
            assert_eq!(
                answer(&server.endpoint, call).await,
                expected,
                "{name} and the floor answer {call} differently"
            );
        }
    }
    let mut load = Load::connect(&floor.endpoint, 2).await.expect("connect");
    let measured = load
        .run(Method::Tool, 50)
        .await
        .expect("every call checked");
    assert_eq!(measured.phase.calls, 50);
}

#[test]
fn the_typescript_sdk_server_answers_every_checked_call() {
    let bench = Path::new(env!("CARGO_MANIFEST_DIR"));
    let sdk = bench.join("node_modules/@modelcontextprotocol/sdk");
    let node = Command::new("node").arg("--version").output();
    if !sdk.exists() || !node.is_ok_and(|o| o.status.success()) {
        let message = "node or the MCP TypeScript SDK is missing; run bench/install-sdks.sh (or scripts/test)";
        assert!(std::env::var_os("CI").is_none(), "{message}, and CI is set");
        // Written to the stderr handle itself: libtest captures `eprintln!` of passing tests.
        let bar = "!".repeat(80);
        let _ = writeln!(
            std::io::stderr(),
            "\n{bar}\n!!! SKIPPED the HTTP bench's TypeScript server test: {message}\n{bar}\n"
        );
        return;
    }
    let out = ct_bench_http("typescript", "typescript", None, &[]);
    assert_served(&out, &["typescript"], &[]);
}

/// How the hand-written server of the tests below misbehaves.
#[derive(Clone, Copy, PartialEq)]
enum Fault {
    /// `add`, the `sum` prompt and the `bench://sum/{a}/{b}` resource answer one more than the
    /// sum.
    WrongSum,
    /// `initialize` issues an `Mcp-Session-Id`.
    SessionId,
    /// Neither the `sum` prompt nor the resource template is listed (both answer rightly).
    Unlisted,
}

/// A hand-written Streamable HTTP server on 127.0.0.1 that answers like a stateless MCP
/// server except for `fault`.
async fn faulty_server(fault: Fault) -> Endpoint {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let addr = listener.local_addr().expect("local addr");
    tokio::spawn(async move {
        while let Ok((socket, _)) = listener.accept().await {
            tokio::spawn(serve_connection(socket, fault));
        }
    });
    Endpoint::parse(&format!("http://{addr}/mcp")).expect("endpoint")
}

async fn serve_connection(mut socket: tokio::net::TcpStream, fault: Fault) {
    let mut input = Vec::new();
    let mut buf = vec![0u8; 4096];
    loop {
        // One request: a head with Content-Length, then the body.
        let (head_end, length) = loop {
            if let Some(end) = input.windows(4).position(|w| w == b"\r\n\r\n") {
                let head = String::from_utf8_lossy(&input[..end]).to_ascii_lowercase();
                let length = head
                    .lines()
                    .find_map(|l| l.strip_prefix("content-length:"))
                    .and_then(|v| v.trim().parse::<usize>().ok())
                    .unwrap_or(0);
                break (end + 4, length);
            }
            match socket.read(&mut buf).await {
                Ok(0) | Err(_) => return,
                Ok(n) => input.extend_from_slice(&buf[..n]),
            }
        };
        while input.len() < head_end + length {
            match socket.read(&mut buf).await {
                Ok(0) | Err(_) => return,
                Ok(n) => input.extend_from_slice(&buf[..n]),
            }
        }
        let message: Value = serde_json::from_slice(&input[head_end..head_end + length])
            .expect("the load generator sends JSON");
        input.drain(..head_end + length);
        let reply = match message["method"].as_str() {
            Some("initialize") => Some(
                json!({"protocolVersion": http_load::PROTOCOL_VERSION, "serverInfo": {"name": "faulty", "version": "0"}, "capabilities": {"tools": {}}}),
            ),
            Some("tools/list") => Some(
                json!({"tools": [{"name": "add", "inputSchema": {"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}}}}]}),
            ),
            Some("prompts/list") if fault != Fault::Unlisted => Some(
                json!({"prompts": [{"name": "sum", "arguments": [{"name": "a", "required": true}, {"name": "b", "required": true}]}]}),
            ),
            Some("prompts/list") => Some(json!({"prompts": []})),
            Some("resources/templates/list") if fault != Fault::Unlisted => Some(
                json!({"resourceTemplates": [{"uriTemplate": "bench://sum/{a}/{b}", "name": "sum_resource"}]}),
            ),
            Some("resources/templates/list") => Some(json!({"resourceTemplates": []})),
            Some("tools/call") => {
                let args = &message["params"]["arguments"];
                let sum = args["a"].as_i64().unwrap_or(0) + args["b"].as_i64().unwrap_or(0);
                let answer = sum + i64::from(fault == Fault::WrongSum);
                Some(json!({"content": [{"type": "text", "text": answer.to_string()}]}))
            }
            Some("prompts/get") => {
                let args = &message["params"]["arguments"];
                let term = |t: &str| args[t].as_str().and_then(|v| v.parse::<i64>().ok());
                let (a, b) = (term("a").unwrap_or(0), term("b").unwrap_or(0));
                let sum = a + b + i64::from(fault == Fault::WrongSum);
                let text = format!("What is {a} + {b}? It is {sum}.");
                Some(
                    json!({"messages": [{"role": "user", "content": {"type": "text", "text": text}}]}),
                )
            }
            Some("resources/read") => {
                let uri = message["params"]["uri"].as_str().unwrap_or("");
                let terms: Vec<i64> = uri
                    .strip_prefix("bench://sum/")
                    .unwrap_or("")
                    .split('/')
                    .filter_map(|t| t.parse().ok())
                    .collect();
                let answer = terms.iter().sum::<i64>() + i64::from(fault == Fault::WrongSum);
                Some(json!({"contents": [{"uri": uri, "text": answer.to_string()}]}))
            }
            _ => None,
        };
        let response = match reply {
            None => "HTTP/1.1 202 Accepted\r\nContent-Length: 0\r\n\r\n".to_string(),
            Some(result) => {
                let body =
                    json!({"jsonrpc": "2.0", "id": message["id"], "result": result}).to_string();
                let session = match (fault, message["method"].as_str()) {
                    (Fault::SessionId, Some("initialize")) => "Mcp-Session-Id: s-1\r\n",
                    _ => "",
                };
                format!(
                    "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n{session}Content-Length: {}\r\n\r\n{body}",
                    body.len()
                )
            }
        };
        if socket.write_all(response.as_bytes()).await.is_err() {
            return;
        }
    }
}

#[tokio::test(flavor = "current_thread")]
async fn a_wrong_sum_fails_the_load_instead_of_being_timed() {
    let endpoint = faulty_server(Fault::WrongSum).await;
    let handshake = http_load::handshake(&endpoint, &Method::ALL)
        .await
        .expect("handshake");
    assert_eq!(handshake.server_name, "faulty");
    let mut load = Load::connect(&endpoint, 2).await.expect("connect");
    let error = load
        .run(Method::Tool, 10)
        .await
        .expect_err("a wrong sum fails the phase");
    // Call ids start at 1,000; each connection's first call fails, whichever reports first.
    let (a, b) = http_load::call_args(1_000);
    let (a2, b2) = http_load::call_args(1_001);
    let first = format!("call 1000: add({a}, {b}) answered \"{}\"", a + b + 1);
    let second = format!("call 1001: add({a2}, {b2}) answered \"{}\"", a2 + b2 + 1);
    assert!(
        error.ends_with(&first) || error.ends_with(&second),
        "{error}"
    );
    // The prompt and the resource likewise (on a connection of their own: a failed call's
    // connection is dropped).
    let (a, b) = http_load::call_args(1_000);
    assert!(b < 0, "the URI carries a negative term: {b}");
    let mut load = Load::connect(&endpoint, 1).await.expect("connect");
    let error = load
        .run(Method::Prompt, 1)
        .await
        .expect_err("a wrong sum fails the phase");
    assert!(
        error.ends_with(&format!(
            "call 1000: prompt sum({a}, {b}) answered {:?}",
            format!("What is {a} + {b}? It is {}.", a + b + 1)
        )),
        "{error}"
    );
    let mut load = Load::connect(&endpoint, 1).await.expect("connect");
    let error = load
        .run(Method::Resource, 1)
        .await
        .expect_err("a wrong sum fails the phase");
    assert!(
        error.ends_with(&format!(
            "call 1000: resource bench://sum/{a}/{b} answered \"{}\"",
            a + b + 1
        )),
        "{error}"
    );
}

#[tokio::test(flavor = "current_thread")]
async fn an_unlisted_prompt_or_resource_fails_the_handshake() {
    let endpoint = faulty_server(Fault::Unlisted).await;
    http_load::handshake(&endpoint, &[Method::Tool])
        .await
        .expect("tools/call alone needs neither");
    let error = http_load::handshake(&endpoint, &[Method::Tool, Method::Prompt])
        .await
        .expect_err("no prompt");
    assert!(
        error.starts_with("prompts/list: no prompt `sum`"),
        "{error}"
    );
    let error = http_load::handshake(&endpoint, &[Method::Resource])
        .await
        .expect_err("no template");
    assert!(
        error.starts_with("resources/templates/list: no template \"bench://sum/{a}/{b}\""),
        "{error}"
    );
    // And the faulty server's right answers pass.
    let mut load = Load::connect(&endpoint, 1).await.expect("connect");
    for method in Method::ALL {
        load.run(method, 3).await.expect("right answers");
    }
}

#[tokio::test(flavor = "current_thread")]
async fn a_session_id_fails_the_handshake() {
    let endpoint = faulty_server(Fault::SessionId).await;
    let error = http_load::handshake(&endpoint, &[Method::Tool])
        .await
        .expect_err("not stateless");
    assert_eq!(
        error,
        "initialize: the server issued Mcp-Session-Id \"s-1\": it is not in stateless mode"
    );
}
