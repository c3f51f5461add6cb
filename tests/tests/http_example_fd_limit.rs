//! The Streamable HTTP example (`examples/examples/http_server.rs`) run under a low
//! file-descriptor limit (`ulimit -n 200`) while 250 idle connections are held open: its cap on
//! connections sits under that limit, so a normal ping is answered at once (`503` with
//! `Retry-After`) instead of waiting in the listen queue until a descriptor frees, and is
//! served once the idle connections go.

#![cfg(unix)]

use std::io::{Read, Write};
use std::net::TcpStream;
use std::process::{Command, Stdio};
use std::time::Duration;

use claude_tools_tests::ListeningServer;

/// A ping on a fresh connection: the response's first line, or `None` when nothing came
/// within `wait`.
fn ping(address: &str, wait: Duration) -> Option<String> {
    let mut stream = TcpStream::connect(address).ok()?;
    stream.set_read_timeout(Some(wait)).ok()?;
    let body = r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#;
    let request = format!(
        "POST /mcp HTTP/1.1\r\nhost: {address}\r\nconnection: close\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n{body}",
        body.len()
    );
    let _ = stream.write_all(request.as_bytes());
    let mut answer = Vec::new();
    let _ = stream.read_to_end(&mut answer);
    let answer = String::from_utf8_lossy(&answer).into_owned();
    answer
        .lines()
        .next()
        .map(str::to_string)
        .filter(|line| !line.is_empty())
}

#[test]
fn under_a_low_fd_limit_a_ping_is_refused_fast_rather_than_left_waiting() {
    let binary = claude_tools_tests::example_binary("http_server");
    let mut command = Command::new("sh");
    command
        .args(["-c", "ulimit -n 200 && exec \"$0\" --listen 127.0.0.1:0"])
        .arg(binary)
        .env_remove("UNITS_MCP_TOKEN")
        .stderr(Stdio::null());
    let example = ListeningServer::start(command);
    assert!(
        example.url().ends_with("/mcp"),
        "a URL: {:?}",
        example.url()
    );
    let address = example.address().to_string();

    // More idle connections than the server has descriptors for.
    let idle: Vec<TcpStream> = (0..250)
        .map(|_| TcpStream::connect(&address).expect("connect"))
        .collect();
    std::thread::sleep(Duration::from_millis(500));
    let refused = ping(&address, Duration::from_secs(5));
    assert_eq!(
        refused.as_deref(),
        Some("HTTP/1.1 503 Service Unavailable"),
        "a ping while the server is full"
    );

    drop(idle);
    let served = (0..100).find_map(|_| {
        let line = ping(&address, Duration::from_secs(5))?;
        if line.starts_with("HTTP/1.1 200") {
            return Some(line);
        }
        std::thread::sleep(Duration::from_millis(100));
        None
    });
    assert!(
        served.is_some(),
        "a ping once the idle connections are gone"
    );
    drop(example);
}
