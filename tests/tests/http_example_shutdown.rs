//! The Streamable HTTP example (`examples/examples/http_server.rs`) stopped the way process
//! managers stop a server, with `SIGTERM`, while a call is in flight: the call is answered and
//! the example exits 0 (it shuts down gracefully, through `claude_tools::mcp::shutdown_signal`).

#![cfg(unix)]

use std::io::{Read, Write};
use std::net::TcpStream;
use std::process::Command;

use claude_tools_tests::ListeningServer;
use std::time::{Duration, Instant};

/// Bounds every wait: long enough for a loaded machine, short enough that a hang fails.
const WAIT: Duration = Duration::from_secs(20);

#[test]
fn sigterm_lets_the_call_in_flight_finish_and_the_example_exits_0() {
    let mut command = Command::new(claude_tools_tests::example_binary("http_server"));
    command
        .args(["--listen", "127.0.0.1:0"])
        .env_remove("UNITS_MCP_TOKEN");
    let mut example = ListeningServer::start(command);
    assert!(
        example.url().ends_with("/mcp"),
        "a URL: {:?}",
        example.url()
    );
    let address = example.address().to_string();

    // `count_to` 30 takes 1.5 s and reports progress at each step, streamed as SSE.
    let body = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"count_to","arguments":{"n":30},"_meta":{"progressToken":"p"}}}"#;
    let mut stream = TcpStream::connect(&address).expect("connect");
    stream.set_read_timeout(Some(WAIT)).unwrap();
    write!(
        stream,
        "POST /mcp HTTP/1.1\r\nhost: {address}\r\ncontent-type: application/json\r\naccept: application/json, text/event-stream\r\ncontent-length: {}\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    // The call runs: its first progress event has arrived.
    let mut seen = Vec::new();
    let mut chunk = [0u8; 4096];
    while !String::from_utf8_lossy(&seen).contains("notifications/progress") {
        let read = stream.read(&mut chunk).expect("the call's first progress");
        assert!(
            read > 0,
            "the stream ended: {}",
            String::from_utf8_lossy(&seen)
        );
        seen.extend_from_slice(&chunk[..read]);
    }

    // SAFETY: kill(2) on the child's own pid; no memory is shared.
    let sent = unsafe { libc::kill(example.child().id() as libc::pid_t, libc::SIGTERM) };
    assert_eq!(sent, 0, "SIGTERM sent");

    // The call is answered in full, then the connection ends.
    loop {
        match stream.read(&mut chunk) {
            Ok(0) | Err(_) => break,
            Ok(read) => seen.extend_from_slice(&chunk[..read]),
        }
    }
    let seen = String::from_utf8_lossy(&seen);
    assert!(seen.contains("counted to 30"), "the call's answer: {seen}");

    let started = Instant::now();
    let status = loop {
        if let Some(status) = example.child().try_wait().expect("wait on the example") {
            break status;
        }
        if started.elapsed() > WAIT {
            panic!("the example did not exit within {WAIT:?} of SIGTERM");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    assert!(status.success(), "the example exited with {status:?}");
}
