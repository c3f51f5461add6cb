//! `ct-bench-big-answer`: the host CPU a session spends writing one huge tool answer (issue 10).
//!
//! `ct-bench-big-answer [--mib M]` (default 200) serves a tool returning an M MiB text to a CLI
//! played by a thread of this process over real OS pipes (64 KiB each, so the answer goes out in
//! thousands of partial writes, as to the real CLI). The thread asks for the tool once and drains
//! the answer with plain `read`s. Reported: the host's CPU time for the call (the process's CPU
//! time from `getrusage` minus the CLI thread's own), the wall time, and whether the whole answer
//! arrived intact.

use std::fs::File;
use std::io::{Read, Write};
use std::os::fd::{FromRawFd, OwnedFd};
use std::pin::Pin;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::{Duration, Instant};

use claude_tools::tools::{ToolCall, ToolDefBuilder, ToolServer};
use claude_tools_runtime::client::Client;
use claude_tools_runtime::message::Message;
use claude_tools_runtime::options::Options;
use claude_tools_runtime::transport::{
    BoxFuture, Connection, ExitInfo, LaunchSpec, ProcessHandle, Transport,
};
use tokio::io::{AsyncRead, AsyncWrite};

const MIB: usize = 1024 * 1024;

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let mut mib = 200usize;
    while let Some(arg) = args.next() {
        match (arg.as_str(), args.next().and_then(|v| v.parse().ok())) {
            ("--mib", Some(m)) => mib = m,
            _ => {
                eprintln!("usage: ct-bench-big-answer [--mib M]");
                return ExitCode::from(2);
            }
        }
    }
    match run(mib * MIB) {
        Ok(report) => {
            println!("{report}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("ct-bench-big-answer: {e}");
            ExitCode::from(1)
        }
    }
}

fn run(size: usize) -> Result<String, String> {
    let (cli_stdin, host_stdin) = pipe()?;
    let (host_stdout, cli_stdout) = pipe()?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("runtime: {e}"))?;
    let cli = std::thread::spawn(move || play_cli(cli_stdin, cli_stdout, size));
    runtime.block_on(async move {
        let text = Arc::new("x".repeat(size));
        let tool = ToolDefBuilder::new("big");
        let server = ToolServer::new("bench", "1.0.0")
            .with_tool(tool, move |_call: ToolCall| {
                let text = text.clone();
                async move { String::clone(&text) }
            })
            .map_err(|e| format!("tool: {e}"))?;
        let transport = PipeTransport::new(host_stdout, host_stdin)?;
        let mut client = Client::connect_with(Options::new().mcp_server(server), transport)
            .await
            .map_err(|e| format!("connect: {e}"))?;
        // Up to the result, then a clean end: the host closes stdin, the CLI closes stdout.
        loop {
            match client.next_message().await {
                Some(Ok(Message::Result(_))) => break,
                Some(Ok(_)) => {}
                Some(Err(e)) => return Err(format!("message: {e}")),
                None => return Err("the session ended before the result".into()),
            }
        }
        client
            .disconnect()
            .await
            .map_err(|e| format!("disconnect: {e}"))?;
        Ok::<(), String>(())
    })?;
    cli.join()
        .map_err(|_| "the CLI thread panicked".to_string())?
}

/// The CLI: answers `initialize`, asks for the tool, drains and checks its answer, ends.
fn play_cli(stdin: OwnedFd, stdout: OwnedFd, size: usize) -> Result<String, String> {
    let mut input = File::from(stdin);
    let mut output = File::from(stdout);
    let mut buf = vec![0u8; MIB];
    let mut line = Vec::new();
    // The host's initialize.
    read_small_line(&mut input, &mut buf, &mut line)?;
    let init: serde_json::Value =
        serde_json::from_slice(&line).map_err(|e| format!("initialize: {e}"))?;
    let id = init["request_id"].as_str().unwrap_or_default().to_string();
    writeln!(
        output,
        r#"{{"type":"control_response","response":{{"subtype":"success","request_id":"{id}","response":{{}}}}}}"#
    )
    .map_err(|e| e.to_string())?;
    line.clear();

    let (cpu_before, thread_before) = (process_cpu(), thread_cpu());
    let started = Instant::now();
    writeln!(
        output,
        r#"{{"type":"control_request","request_id":"big-1","request":{{"subtype":"mcp_message","server_name":"bench","message":{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"big","arguments":{{}}}}}}}}}}"#
    )
    .map_err(|e| e.to_string())?;
    // Drain the answer: count its `x`s and keep only its two ends.
    let (mut length, mut xs, mut head) = (0usize, 0usize, Vec::new());
    let mut tail = Vec::new();
    loop {
        let n = input.read(&mut buf).map_err(|e| e.to_string())?;
        if n == 0 {
            return Err("stdin closed before the answer ended".into());
        }
        let chunk = &buf[..n];
        let end = chunk.iter().position(|&b| b == b'\n');
        let part = &chunk[..end.unwrap_or(n)];
        length += part.len();
        xs += part.iter().filter(|&&b| b == b'x').count();
        if head.len() < 200 {
            head.extend_from_slice(&part[..part.len().min(200)]);
        }
        tail.extend_from_slice(part);
        let keep = tail.len().saturating_sub(200);
        tail.drain(..keep);
        if end.is_some() {
            break;
        }
    }
    let wall = started.elapsed();
    let cli_cpu = thread_cpu().saturating_sub(thread_before);
    let host_cpu = process_cpu()
        .saturating_sub(cpu_before)
        .saturating_sub(cli_cpu);
    let head = String::from_utf8_lossy(&head);
    // The answer's only other `x`s are the two of `"type":"text","text"`.
    let intact = head.contains(r#""request_id":"big-1""#)
        && head.contains(r#""text":"xxx"#)
        && xs == size + 2;
    writeln!(
        output,
        r#"{{"type":"result","subtype":"success","is_error":false,"result":"ok","session_id":"s"}}"#
    )
    .map_err(|e| e.to_string())?;
    // The host closes stdin after the result; then the CLI "exits".
    while input.read(&mut buf).map_err(|e| e.to_string())? > 0 {}
    drop(output);
    if !intact {
        return Err(format!(
            "the answer arrived damaged: {length} bytes, {xs} x's of {size}; head {head}, tail {}",
            String::from_utf8_lossy(&tail)
        ));
    }
    Ok(format!(
        "answer of {} MiB ({length} bytes on the wire): host CPU {:.3} s, wall {:.3} s",
        size / MIB,
        host_cpu.as_secs_f64(),
        wall.as_secs_f64()
    ))
}

/// Reads one line that fits in `buf` (the host's first line).
fn read_small_line(input: &mut File, buf: &mut [u8], line: &mut Vec<u8>) -> Result<(), String> {
    loop {
        let n = input.read(buf).map_err(|e| e.to_string())?;
        if n == 0 {
            return Err("stdin closed".into());
        }
        line.extend_from_slice(&buf[..n]);
        if let Some(end) = line.iter().position(|&b| b == b'\n') {
            line.truncate(end);
            return Ok(());
        }
    }
}

fn pipe() -> Result<(OwnedFd, OwnedFd), String> {
    let mut fds = [0; 2];
    // SAFETY: `fds` has room for the two descriptors pipe(2) writes.
    if unsafe { libc::pipe(fds.as_mut_ptr()) } != 0 {
        return Err(format!("pipe: {}", std::io::Error::last_os_error()));
    }
    // SAFETY: both descriptors were just created and are owned by nobody else.
    Ok(unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) })
}

fn rusage(who: libc::c_int) -> Duration {
    // SAFETY: a zeroed rusage is valid and getrusage fills it.
    let usage = unsafe {
        let mut usage: libc::rusage = std::mem::zeroed();
        libc::getrusage(who, &mut usage);
        usage
    };
    let time = |t: libc::timeval| Duration::new(t.tv_sec as u64, t.tv_usec as u32 * 1000);
    time(usage.ru_utime) + time(usage.ru_stime)
}

fn process_cpu() -> Duration {
    rusage(libc::RUSAGE_SELF)
}

fn thread_cpu() -> Duration {
    rusage(libc::RUSAGE_THREAD)
}

/// The host's ends of the two pipes, as a transport.
struct PipeTransport {
    reader: tokio::net::unix::pipe::Receiver,
    writer: tokio::net::unix::pipe::Sender,
}

impl PipeTransport {
    fn new(stdout: OwnedFd, stdin: OwnedFd) -> Result<Self, String> {
        // `from_file` must run inside the runtime; it makes the descriptors non-blocking.
        let reader = tokio::net::unix::pipe::Receiver::from_file(File::from(stdout))
            .map_err(|e| format!("stdout pipe: {e}"))?;
        let writer = tokio::net::unix::pipe::Sender::from_file(File::from(stdin))
            .map_err(|e| format!("stdin pipe: {e}"))?;
        Ok(Self { reader, writer })
    }
}

impl Transport for PipeTransport {
    fn connect(
        self: Box<Self>,
        _launch: LaunchSpec,
    ) -> BoxFuture<'static, claude_tools_runtime::Result<Connection>> {
        Box::pin(async move {
            let reader: Pin<Box<dyn AsyncRead + Send>> = Box::pin(self.reader);
            let writer: Pin<Box<dyn AsyncWrite + Send>> = Box::pin(self.writer);
            Ok(Connection {
                reader,
                writer,
                process: Box::new(NoProcess),
            })
        })
    }
}

/// The CLI is a thread: it has ended once it closed its stdout.
struct NoProcess;

impl ProcessHandle for NoProcess {
    fn wait(&mut self) -> BoxFuture<'_, ExitInfo> {
        Box::pin(async { ExitInfo::new(Some(0), None, String::new()) })
    }

    fn kill(&mut self) {}

    fn stderr_tail(&self) -> String {
        String::new()
    }
}
