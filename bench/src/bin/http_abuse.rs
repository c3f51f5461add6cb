//! `ct-http-abuse`: what abusive clients make a Streamable HTTP MCP server hold (issue 20).
//! Runs one scenario at a time against a server on 127.0.0.1 and prints the server's resident
//! memory (`VmRSS` of `/proc/PID/status`) and open file descriptors (`/proc/PID/fd`) before the
//! scenario, at their peak during it, and `--after` seconds after it (the abusive connections
//! still open, as an attacker keeps them).
//!
//! ```text
//! ct-http-abuse <scenario> --url http://127.0.0.1:PORT/mcp --pid PID [--after SECS] [--n N]
//!
//!   unread        N (20) connections each POST a request with a 4 MiB method name and never
//!                 read the answer
//!   slow-upload   N (50) connections each declare a 4 MiB body and send most of it slowly
//!                 (over 8 s), never the end; a ping's latency during it
//!   slow-headers  N (200) connections each send ~355 KB of headers slowly (over 8 s), never
//!                 the end; a ping's latency during it
//!   sessions      POST `initialize` as fast as possible (32 at a time), N (10,000) times
//!                 (start the server with sessions on); then whether a fresh client's
//!                 `initialize` succeeds
//!   oversize      one 5 MiB body (over a 4 MiB cap), sent whole while reading: whether the
//!                 client reads a 413
//! ```
//!
//! Only for servers on 127.0.0.1: the URL must name that address.

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpSocket, TcpStream};
use tokio::task::JoinSet;

const MIB: usize = 1024 * 1024;

struct Config {
    scenario: String,
    addr: SocketAddr,
    pid: u32,
    after: Duration,
    n: Option<usize>,
}

fn parse() -> Result<Config, String> {
    let mut args = std::env::args().skip(1);
    let scenario = args.next().ok_or("a scenario first (see the docs)")?;
    let (mut url, mut pid, mut after, mut n) = (None, None, 30, None);
    while let Some(flag) = args.next() {
        let value = args.next().ok_or(format!("{flag} needs a value"))?;
        match flag.as_str() {
            "--url" => url = Some(value),
            "--pid" => pid = Some(value.parse().map_err(|e| format!("--pid: {e}"))?),
            "--after" => after = value.parse().map_err(|e| format!("--after: {e}"))?,
            "--n" => n = Some(value.parse().map_err(|e| format!("--n: {e}"))?),
            other => return Err(format!("unknown flag {other}")),
        }
    }
    let url = url.ok_or("--url http://127.0.0.1:PORT/mcp")?;
    let authority = url
        .strip_prefix("http://")
        .and_then(|rest| rest.split('/').next())
        .ok_or("the URL must be http://127.0.0.1:PORT/…")?;
    let addr: SocketAddr = authority
        .parse()
        .map_err(|e| format!("the URL's address: {e}"))?;
    if !addr.ip().is_loopback() {
        return Err("only servers on 127.0.0.1 are abused".into());
    }
    Ok(Config {
        scenario,
        addr,
        pid: pid.ok_or("--pid PID of the server")?,
        after: Duration::from_secs(after),
        n,
    })
}

#[tokio::main]
async fn main() -> std::process::ExitCode {
    let config = match parse() {
        Ok(config) => config,
        Err(error) => {
            eprintln!("ct-http-abuse: {error}");
            return std::process::ExitCode::FAILURE;
        }
    };
    let before = sample(config.pid);
    let watch = Watch::start(config.pid);
    println!(
        "scenario {} against {} (pid {})",
        config.scenario, config.addr, config.pid
    );
    let held = match config.scenario.as_str() {
        "unread" => unread(&config).await,
        "slow-upload" => slow_upload(&config).await,
        "slow-headers" => slow_headers(&config).await,
        "sessions" => sessions(&config).await,
        "oversize" => oversize(&config).await,
        other => {
            eprintln!("ct-http-abuse: unknown scenario {other}");
            return std::process::ExitCode::FAILURE;
        }
    };
    let peak_during = watch.peak();
    tokio::time::sleep(config.after).await;
    let after = sample(config.pid);
    let peak = watch.stop().max(peak_during);
    println!(
        "rss_mib before {:.1} peak {:.1} after_{}s {:.1}",
        mib(before.rss_kib),
        mib(peak.0),
        config.after.as_secs(),
        mib(after.rss_kib)
    );
    println!(
        "fds before {} peak {} after_{}s {}",
        before.fds,
        peak.1,
        config.after.as_secs(),
        after.fds
    );
    drop(held);
    std::process::ExitCode::SUCCESS
}

fn mib(kib: u64) -> f64 {
    kib as f64 / 1024.0
}

/// The server's resident memory (KiB) and open file descriptors.
#[derive(Debug, Clone, Copy, Default)]
struct Sample {
    rss_kib: u64,
    fds: u64,
}

fn sample(pid: u32) -> Sample {
    let rss_kib = std::fs::read_to_string(format!("/proc/{pid}/status"))
        .ok()
        .and_then(|status| {
            status
                .lines()
                .find_map(|line| line.strip_prefix("VmRSS:"))
                .and_then(|value| value.split_whitespace().next()?.parse().ok())
        })
        .unwrap_or(0);
    let fds = std::fs::read_dir(format!("/proc/{pid}/fd")).map_or(0, |dir| dir.count() as u64);
    Sample { rss_kib, fds }
}

/// Samples the server every 50 ms, keeping the peaks.
struct Watch {
    rss: Arc<AtomicU64>,
    fds: Arc<AtomicU64>,
    running: Arc<AtomicBool>,
}

impl Watch {
    fn start(pid: u32) -> Watch {
        let watch = Watch {
            rss: Arc::default(),
            fds: Arc::default(),
            running: Arc::new(AtomicBool::new(true)),
        };
        let (rss, fds, running) = (watch.rss.clone(), watch.fds.clone(), watch.running.clone());
        std::thread::spawn(move || {
            while running.load(Ordering::Relaxed) {
                let now = sample(pid);
                rss.fetch_max(now.rss_kib, Ordering::Relaxed);
                fds.fetch_max(now.fds, Ordering::Relaxed);
                std::thread::sleep(Duration::from_millis(50));
            }
        });
        watch
    }

    fn peak(&self) -> (u64, u64) {
        (
            self.rss.load(Ordering::Relaxed),
            self.fds.load(Ordering::Relaxed),
        )
    }

    fn stop(self) -> (u64, u64) {
        self.running.store(false, Ordering::Relaxed);
        self.peak()
    }
}

/// The abusive connections, kept open until the end.
type Held = Vec<TcpStream>;

fn head(addr: SocketAddr, length: usize, extra: &str) -> String {
    format!(
        "POST /mcp HTTP/1.1\r\nhost: {addr}\r\ncontent-type: application/json\r\naccept: application/json, text/event-stream\r\n{extra}content-length: {length}\r\n\r\n"
    )
}

async fn connect_small_window(addr: SocketAddr) -> std::io::Result<TcpStream> {
    let socket = TcpSocket::new_v4()?;
    socket.set_recv_buffer_size(4096)?;
    socket.connect(addr).await
}

/// (a) A request with a 4 MiB method name on each of N connections; the answers never read.
async fn unread(config: &Config) -> Held {
    let n = config.n.unwrap_or(20);
    let prefix = r#"{"jsonrpc":"2.0","id":1,"method":""#;
    let suffix = r#""}"#;
    let method = "m".repeat(4 * MIB - prefix.len() - suffix.len());
    let body = format!("{prefix}{method}{suffix}");
    let request = Arc::new(format!("{}{body}", head(config.addr, body.len(), "")));
    let started = Instant::now();
    let mut tasks = JoinSet::new();
    for _ in 0..n {
        let (request, addr) = (request.clone(), config.addr);
        tasks.spawn(async move {
            let mut stream = connect_small_window(addr).await.ok()?;
            stream.write_all(request.as_bytes()).await.ok()?;
            Some(stream)
        });
    }
    let held: Held = tasks.join_all().await.into_iter().flatten().collect();
    println!(
        "sent {} requests of {} bytes in {:.1} s; answers never read",
        held.len(),
        body.len(),
        started.elapsed().as_secs_f64()
    );
    held
}

/// Sends `total` bytes of `fill` to each stream, spread over `over`, in `pieces` steps; the
/// streams whose sends failed are dropped.
async fn trickle(streams: Held, total: usize, pieces: usize, over: Duration, fill: &[u8]) -> Held {
    let piece = fill.repeat((total / pieces).div_ceil(fill.len()));
    let piece = &piece[..total / pieces];
    let mut alive: Vec<Option<TcpStream>> = streams.into_iter().map(Some).collect();
    for _ in 0..pieces {
        let step = Instant::now();
        for slot in &mut alive {
            if let Some(stream) = slot {
                let sent =
                    tokio::time::timeout(Duration::from_millis(200), stream.write_all(piece)).await;
                if !matches!(sent, Ok(Ok(()))) {
                    *slot = None;
                }
            }
        }
        tokio::time::sleep((over / pieces as u32).saturating_sub(step.elapsed())).await;
    }
    alive.into_iter().flatten().collect()
}

/// Pings every 500 ms while `attack` runs; prints how they were answered and how fast.
async fn with_pings(addr: SocketAddr, attack: impl Future<Output = Held>) -> Held {
    let pinging = Arc::new(AtomicBool::new(true));
    let flag = pinging.clone();
    let pings = tokio::spawn(async move {
        let mut answers = Vec::new();
        while flag.load(Ordering::Relaxed) {
            answers.push(ping(addr).await);
            tokio::time::sleep(Duration::from_millis(500)).await;
        }
        answers
    });
    let held = attack.await;
    pinging.store(false, Ordering::Relaxed);
    let answers = pings.await.unwrap_or_default();
    let slowest = |wanted: fn(u16) -> bool| {
        answers
            .iter()
            .flatten()
            .filter(|(status, _)| wanted(*status))
            .map(|(_, ms)| *ms)
            .fold(None, |max: Option<f64>, ms| {
                Some(max.map_or(ms, |max| max.max(ms)))
            })
    };
    let count = |wanted: fn(u16) -> bool| {
        answers
            .iter()
            .flatten()
            .filter(|(status, _)| wanted(*status))
            .count()
    };
    let show = |ms: Option<f64>| ms.map_or("-".to_string(), |ms| format!("{ms:.1} ms"));
    println!(
        "pings during the attack: {} sent; {} answered 200 (slowest {}), {} refused (slowest {}), {} unanswered in 60 s",
        answers.len(),
        count(|status| status == 200),
        show(slowest(|status| status == 200)),
        count(|status| status != 200),
        show(slowest(|status| status != 200)),
        answers.iter().filter(|answer| answer.is_none()).count(),
    );
    held
}

/// A ping on a fresh connection: its status (`0`: the connection ended without one) and
/// latency in ms, or `None` with no answer within 60 s.
async fn ping(addr: SocketAddr) -> Option<(u16, f64)> {
    let body = r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#;
    let started = Instant::now();
    let exchange = async {
        let mut stream = TcpStream::connect(addr).await.ok()?;
        let request = format!("{}{body}", head(addr, body.len(), "connection: close\r\n"));
        let _ = stream.write_all(request.as_bytes()).await;
        let mut answer = Vec::new();
        let _ = stream.read_to_end(&mut answer).await;
        let status = std::str::from_utf8(answer.get(9..12).unwrap_or_default())
            .ok()
            .and_then(|status| status.parse().ok())
            .unwrap_or(0);
        Some(status)
    };
    let status = tokio::time::timeout(Duration::from_secs(60), exchange)
        .await
        .ok()
        .flatten()?;
    Some((status, started.elapsed().as_secs_f64() * 1000.0))
}

/// (b) N uploads of a declared 4 MiB body, all but 64 KiB of it sent over 8 s, never finished.
async fn slow_upload(config: &Config) -> Held {
    let n = config.n.unwrap_or(50);
    let addr = config.addr;
    with_pings(addr, async move {
        let mut streams = Vec::new();
        for _ in 0..n {
            if let Ok(mut stream) = TcpStream::connect(addr).await {
                let declared = head(addr, 4 * MIB, "");
                if stream.write_all(declared.as_bytes()).await.is_ok() {
                    streams.push(stream);
                }
            }
        }
        let held = trickle(
            streams,
            4 * MIB - 64 * 1024,
            40,
            Duration::from_secs(8),
            b" ",
        )
        .await;
        println!("{} of {n} uploads still open after sending", held.len());
        held
    })
    .await
}

/// (c) N heads of ~355 KB, sent over 8 s, never finished.
async fn slow_headers(config: &Config) -> Held {
    let n = config.n.unwrap_or(200);
    let addr = config.addr;
    with_pings(addr, async move {
        let mut streams = Vec::new();
        for _ in 0..n {
            if let Ok(mut stream) = TcpStream::connect(addr).await {
                let start = format!("POST /mcp HTTP/1.1\r\nhost: {addr}\r\n");
                if stream.write_all(start.as_bytes()).await.is_ok() {
                    streams.push(stream);
                }
            }
        }
        // Header lines of 1 KiB: `x-a: aaa…\r\n`.
        let mut line = b"x-a: ".to_vec();
        line.extend(std::iter::repeat_n(b'a', 1024 - 7));
        line.extend_from_slice(b"\r\n");
        let held = trickle(streams, 355 * 1024, 40, Duration::from_secs(8), &line).await;
        println!("{} of {n} heads still open after sending", held.len());
        held
    })
    .await
}

const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"abuse","version":"1"}}}"#;

/// One `initialize` on `stream` (kept alive): its status.
async fn initialize_on(stream: &mut TcpStream, addr: SocketAddr) -> Option<u16> {
    let request = format!("{}{INITIALIZE}", head(addr, INITIALIZE.len(), ""));
    stream.write_all(request.as_bytes()).await.ok()?;
    let mut answer = Vec::new();
    let mut chunk = [0u8; 4096];
    loop {
        let read = stream.read(&mut chunk).await.ok()?;
        if read == 0 {
            return None;
        }
        answer.extend_from_slice(&chunk[..read]);
        let text = String::from_utf8_lossy(&answer);
        let Some(end) = text.find("\r\n\r\n") else {
            continue;
        };
        let length: usize = text[..end]
            .lines()
            .find_map(|line| {
                let (name, value) = line.split_once(':')?;
                name.eq_ignore_ascii_case("content-length")
                    .then(|| value.trim().parse().ok())?
            })
            .unwrap_or(0);
        if answer.len() >= end + 4 + length {
            return text.get(9..12)?.parse().ok();
        }
    }
}

/// (d) N `initialize`s, 32 at a time on kept-alive connections; then a fresh client's.
async fn sessions(config: &Config) -> Held {
    let n = config.n.unwrap_or(10_000);
    let addr = config.addr;
    let next = Arc::new(AtomicU64::new(0));
    let started = Instant::now();
    let mut workers = JoinSet::new();
    for _ in 0..32 {
        let next = next.clone();
        workers.spawn(async move {
            let (mut made, mut refused, mut failed) = (0u64, 0u64, 0u64);
            let mut stream = None;
            while next.fetch_add(1, Ordering::Relaxed) < n as u64 {
                if stream.is_none() {
                    stream = TcpStream::connect(addr).await.ok();
                }
                let Some(open) = stream.as_mut() else {
                    failed += 1;
                    continue;
                };
                match initialize_on(open, addr).await {
                    Some(200) => made += 1,
                    Some(_) => refused += 1,
                    None => {
                        failed += 1;
                        stream = None;
                    }
                }
            }
            (made, refused, failed)
        });
    }
    let (mut made, mut refused, mut failed) = (0, 0, 0);
    for (m, r, f) in workers.join_all().await {
        made += m;
        refused += r;
        failed += f;
    }
    println!(
        "initialize x{n}: {made} sessions made, {refused} refused, {failed} failed, in {:.1} s",
        started.elapsed().as_secs_f64()
    );
    let fresh = match TcpStream::connect(addr).await {
        Ok(mut stream) => initialize_on(&mut stream, addr).await,
        Err(_) => None,
    };
    println!("a fresh client's initialize then: {fresh:?}");
    Vec::new()
}

/// (e) A 5 MiB body sent whole while the answer is read.
async fn oversize(config: &Config) -> Held {
    let addr = config.addr;
    let body = " ".repeat(5 * MIB);
    let Ok(stream) = TcpStream::connect(addr).await else {
        println!("could not connect");
        return Vec::new();
    };
    let (mut reader, mut writer) = stream.into_split();
    let upload = async {
        writer
            .write_all(head(addr, body.len(), "").as_bytes())
            .await?;
        writer.write_all(body.as_bytes()).await
    };
    let answer = async {
        let mut answer = Vec::new();
        let read =
            tokio::time::timeout(Duration::from_secs(30), reader.read_to_end(&mut answer)).await;
        (answer, read)
    };
    let (uploaded, (answer, read)) = tokio::join!(upload, answer);
    let status = String::from_utf8_lossy(answer.get(..12).unwrap_or_default()).into_owned();
    println!(
        "upload: {}; answer read: {:?} ({} bytes{})",
        match &uploaded {
            Ok(()) => "whole".to_string(),
            Err(error) => format!("failed: {error}"),
        },
        status,
        answer.len(),
        match read {
            Ok(Ok(_)) => String::new(),
            Ok(Err(error)) => format!(", then {error}"),
            Err(_) => ", then no end within 30 s".into(),
        }
    );
    Vec::new()
}
