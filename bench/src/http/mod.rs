//! `ct-bench http`: `tools/call` over MCP Streamable HTTP (issue 13), claude-tools against
//! rmcp's Streamable HTTP server and the official TypeScript SDK's, side by side in one run, with
//! a floor beside them: `floor` (`ct-bench-http-floor`), a bare axum handler doing the same
//! JSON-RPC `add` without MCP logic: what any server doing this JSON-RPC over HTTP on axum pays.
//!
//! Each server serves the same `add(a, b)` (integer terms, text result). In each round and
//! placement every server in turn is started fresh as a child process on a free 127.0.0.1 port
//! (it prints its URL), gets the MCP handshake a client does (`initialize`,
//! `notifications/initialized`, `tools/list`), then for each concurrency level C the load
//! generator opens C keep-alive connections, makes a warm-up of calls and then the measured
//! calls, each connection one call at a time (closed loop), checking every answer; a wrong
//! answer fails the run. The load generator is one thread (a current-thread tokio runtime and
//! a small HTTP/1.1 client, `claude_tools_bench::http_client`).
//!
//! Placements: `split` runs the server on CPU 0 (`taskset -c 0`) and the load generator on CPU
//! 1; `same` puts both on CPU 0; `none` pins nothing (the Rust servers then get two runtime
//! workers, and share both CPUs with the load generator).

use std::fmt::Write as _;

use claude_tools_bench::stats::{Phase, median};
use serde::{Deserialize, Serialize};

use crate::fmt::fmt;

/// Every server of the bench, in table order.
pub const SERVERS: [&str; 4] = ["claude-tools", "rmcp", "floor", "typescript"];

/// The floor: a bare axum handler doing the same JSON-RPC `add` without MCP logic. claude-tools
/// is compared with it like with the other servers, but it is no competitor: issue 13's goal
/// is not evaluated against it.
pub const FLOOR: &str = "floor";

/// One server at one concurrency level in one round and placement.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct HttpSample {
    /// `claude-tools`, `rmcp`, `floor` or `typescript`.
    pub server: String,
    /// `split`, `same` or `none`.
    pub placement: String,
    /// Round number (0-based).
    pub round: usize,
    /// Connections, each with one call in flight.
    pub concurrency: u64,
    /// The measured calls (`None` when the run failed).
    pub phase: Option<Phase>,
    /// `Content-Type`s of the `tools/call` replies.
    pub content_types: Vec<String>,
    /// CPU time the server process spent over the measured calls, ns (every thread).
    pub server_cpu_ns: u64,
    /// CPU time the load generator's thread spent over the measured calls, ns.
    pub client_cpu_ns: u64,
    /// The server's VmRSS after the measured calls, KiB.
    pub server_rss_kib: u64,
    /// The server's VmHWM (peak RSS) after the measured calls, KiB.
    pub server_peak_kib: u64,
    /// What went wrong, if anything.
    pub error: Option<String>,
}

impl HttpSample {
    fn metric(&self, name: &str) -> Option<f64> {
        let p = self.phase.as_ref()?;
        let per_call = |ns: u64| (p.calls > 0).then(|| ns as f64 / 1e3 / p.calls as f64);
        match name {
            "rps" => Some(p.calls_per_s),
            "p50" => Some(p.p50_ns as f64 / 1e3),
            "p99" => Some(p.p99_ns as f64 / 1e3),
            "server_cpu" => per_call(self.server_cpu_ns),
            "client_cpu" => per_call(self.client_cpu_ns),
            "rss" => Some(self.server_peak_kib as f64 / 1024.0),
            _ => None,
        }
        .filter(|v| v.is_finite())
    }
}

/// A whole `ct-bench http` run.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct HttpBench {
    /// When it ran (UTC).
    pub date: String,
    /// The machine.
    pub machine: String,
    /// The repository's revision.
    pub revision: String,
    /// The machine's 1-minute load average when the run started and when it ended (other
    /// work on the machine moves every figure).
    #[serde(default)]
    pub load_average: (f64, f64),
    /// Versions of what was compared (`rmcp 3.11.0`, `@modelcontextprotocol/sdk 1.32.2`, ...).
    pub versions: Vec<String>,
    /// Rounds.
    pub rounds: usize,
    /// Measured calls per server, concurrency level and round.
    pub requests: u64,
    /// Measured calls for the TypeScript server (slow: ~2 ms per call on the 2-core VM).
    #[serde(default)]
    pub ts_requests: u64,
    /// Warm-up calls before them.
    pub warmup: u64,
    /// Concurrency levels.
    pub concurrency: Vec<u64>,
    /// Servers in table order.
    pub servers: Vec<String>,
    /// Placements.
    pub placements: Vec<String>,
    /// Every sample.
    pub samples: Vec<HttpSample>,
}

impl HttpBench {
    fn ok_samples<'a>(
        &'a self,
        server: &'a str,
        placement: &'a str,
        c: u64,
    ) -> impl Iterator<Item = &'a HttpSample> {
        self.samples.iter().filter(move |s| {
            s.server == server
                && s.placement == placement
                && s.concurrency == c
                && s.error.is_none()
        })
    }

    /// Median over rounds of one metric.
    pub fn median(&self, server: &str, placement: &str, c: u64, name: &str) -> Option<f64> {
        let v: Vec<f64> = self
            .ok_samples(server, placement, c)
            .filter_map(|s| s.metric(name))
            .collect();
        median(&v)
    }

    /// Median over rounds of `metric(server) / metric(base)`, taken inside each round.
    pub fn ratio(
        &self,
        server: &str,
        base: &str,
        placement: &str,
        c: u64,
        name: &str,
    ) -> Option<f64> {
        let v: Vec<f64> = self
            .ok_samples(server, placement, c)
            .filter_map(|s| {
                let b = self
                    .ok_samples(base, placement, c)
                    .find(|b| b.round == s.round)?;
                let (x, y) = (s.metric(name)?, b.metric(name)?);
                (y > 0.0).then_some(x / y)
            })
            .collect();
        median(&v)
    }

    fn content_types(&self, server: &str, placement: &str, c: u64) -> String {
        let mut types: Vec<&str> = self
            .ok_samples(server, placement, c)
            .flat_map(|s| s.content_types.iter().map(String::as_str))
            .collect();
        types.sort_unstable();
        types.dedup();
        if types.is_empty() {
            "–".into()
        } else {
            types
                .iter()
                .map(|t| format!("`{t}`"))
                .collect::<Vec<_>>()
                .join(", ")
        }
    }
}

fn placement_title(p: &str) -> &'static str {
    match p {
        "split" => "server on CPU 0, load generator on CPU 1",
        "same" => "server and load generator both on CPU 0",
        _ => "unpinned (servers and load generator share both CPUs)",
    }
}

fn fmt_x(v: Option<f64>) -> String {
    v.map(|v| format!("{v:.2}×")).unwrap_or_else(|| "–".into())
}

/// The tables of one run: per placement and concurrency, medians over rounds; then claude-tools
/// against each other server (in-round ratios) and the goal.
pub fn tables(b: &HttpBench) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{} rounds, servers interleaved (each round starts one server further on), each server \
         started fresh per round; per concurrency level C: C keep-alive connections, {} warm-up \
         calls, then {} measured calls (TypeScript: {}), every answer checked. Medians over \
         rounds.\n",
        b.rounds,
        fmt(Some(b.warmup as f64), 0),
        fmt(Some(b.requests as f64), 0),
        fmt(Some(b.ts_requests.min(b.requests) as f64), 0)
    );
    for p in &b.placements {
        for &c in &b.concurrency {
            let _ = writeln!(out, "#### C = {c}, {}\n", placement_title(p));
            let _ = writeln!(
                out,
                "| server | content type | req/s | p50 µs | p99 µs | server CPU µs/call | load generator CPU µs/call | server peak RSS MiB |"
            );
            let _ = writeln!(out, "|---|---|---:|---:|---:|---:|---:|---:|");
            for s in &b.servers {
                let _ = writeln!(
                    out,
                    "| {s} | {} | {} | {} | {} | {} | {} | {} |",
                    b.content_types(s, p, c),
                    fmt(b.median(s, p, c, "rps"), 0),
                    fmt(b.median(s, p, c, "p50"), 1),
                    fmt(b.median(s, p, c, "p99"), 1),
                    fmt(b.median(s, p, c, "server_cpu"), 1),
                    fmt(b.median(s, p, c, "client_cpu"), 1),
                    fmt(b.median(s, p, c, "rss"), 1),
                );
            }
            let _ = writeln!(out);
        }
    }
    let failures: Vec<&HttpSample> = b.samples.iter().filter(|s| s.error.is_some()).collect();
    if !failures.is_empty() {
        let _ = writeln!(out, "Failed runs (left out of the medians):\n");
        for s in failures {
            let e = s.error.as_deref().unwrap_or("");
            let _ = writeln!(
                out,
                "- {} / {} / C = {} / round {}: {}",
                s.server,
                s.placement,
                s.concurrency,
                s.round + 1,
                e.lines().next().unwrap_or("")
            );
        }
        let _ = writeln!(out);
    }
    out.push_str(&goal(b));
    out
}

/// Issue 13's goal: claude-tools ahead of both other servers on throughput and p99, as in-round
/// ratios (req/s: claude-tools / other, above 1 is ahead; p99: other / claude-tools, likewise).
/// The floor gets its ratios in the same table, with no verdict: no server can be ahead of it.
pub fn goal(b: &HttpBench) -> String {
    let ct = "claude-tools";
    let others: Vec<&String> = b.servers.iter().filter(|s| *s != ct).collect();
    if !b.servers.iter().any(|s| s == ct) || others.is_empty() {
        return "Goal of issue 13: not evaluated (needs claude-tools and another server).\n".into();
    }
    let mut out = String::from(
        "#### claude-tools against the others (in-round ratios, medians; above 1× is ahead)\n\n\
         | placement | C | against | req/s: claude-tools / other | p99: other / claude-tools | ahead on both |\n\
         |---|---:|---|---:|---:|---|\n",
    );
    for p in &b.placements {
        for &c in &b.concurrency {
            for other in &others {
                let rps = b.ratio(ct, other, p, c, "rps");
                let p99 = b.ratio(other, ct, p, c, "p99");
                let verdict = match (rps, p99) {
                    _ if *other == FLOOR => "– (the floor)",
                    (Some(r), Some(q)) if r > 1.0 && q > 1.0 => "yes",
                    (Some(_), Some(_)) => "**no**",
                    _ => "not measured",
                };
                let _ = writeln!(
                    out,
                    "| {p} | {c} | {other} | {} | {} | {verdict} |",
                    fmt_x(rps),
                    fmt_x(p99)
                );
            }
        }
    }
    out
}

#[cfg(feature = "http")]
pub use runner::run_http;

#[cfg(feature = "http")]
mod runner {
    use std::ffi::OsString;
    use std::fs::File;
    use std::io::{BufRead, BufReader};
    use std::path::{Path, PathBuf};
    use std::process::{Child, Command, Stdio};
    use std::sync::mpsc;
    use std::time::Duration;

    use claude_tools_bench::http_load::{self, Endpoint, Load};
    use claude_tools_bench::procfs;

    use super::{HttpBench, HttpSample, SERVERS, tables};
    use crate::results::save;
    use crate::{Args, Paths, provenance};

    /// Longest a server may take to print its URL (node loads the SDK first; the machine may
    /// be busy).
    const START_TIMEOUT: Duration = Duration::from_secs(60);
    /// Longest one server's whole run (handshake and every level) may take.
    const SERVER_RUN_TIMEOUT: Duration = Duration::from_secs(600);
    /// How long a server gets to exit after SIGTERM before SIGKILL.
    const STOP_GRACE: Duration = Duration::from_secs(2);

    /// How to start one server.
    struct ServerSpec {
        name: &'static str,
        program: PathBuf,
        args: Vec<OsString>,
    }

    /// The servers asked for; those that cannot run here are reported and left out.
    fn servers(paths: &Paths, wanted: &Option<Vec<String>>) -> Result<Vec<ServerSpec>, String> {
        if let Some(w) = wanted
            && let Some(unknown) = w.iter().find(|w| !SERVERS.contains(&w.as_str()))
        {
            return Err(format!("unknown server {unknown} ({})", SERVERS.join(", ")));
        }
        let mut out = Vec::new();
        for name in SERVERS {
            if wanted
                .as_ref()
                .is_some_and(|w| !w.iter().any(|x| x == name))
            {
                continue;
            }
            let spec = match name {
                "claude-tools" => ServerSpec {
                    name,
                    program: paths.bin.join("ct-bench-http-claude-tools"),
                    args: vec![],
                },
                "rmcp" => ServerSpec {
                    name,
                    program: paths.bin.join("ct-bench-http-rmcp"),
                    args: vec![],
                },
                "floor" => ServerSpec {
                    name,
                    program: paths.bin.join("ct-bench-http-floor"),
                    args: vec![],
                },
                _ => ServerSpec {
                    name,
                    program: "node".into(),
                    args: vec![paths.bench.join("drivers/http_ts_server.mjs").into()],
                },
            };
            match missing(paths, &spec) {
                None => out.push(spec),
                Some(why) => {
                    eprintln!("ct-bench http: server {name} is not available ({why}); left out")
                }
            }
        }
        Ok(out)
    }

    /// Why a server cannot run here, if it cannot.
    fn missing(paths: &Paths, spec: &ServerSpec) -> Option<String> {
        if spec.name == "typescript" {
            let sdk = paths.bench.join("node_modules/@modelcontextprotocol/sdk");
            if !sdk.exists() {
                return Some(format!(
                    "missing {}; run bench/install-sdks.sh",
                    sdk.display()
                ));
            }
            let node = Command::new("node").arg("--version").output();
            if !node.is_ok_and(|o| o.status.success()) {
                return Some("`node --version` fails".into());
            }
            return None;
        }
        (!spec.program.exists()).then(|| format!("missing {}", spec.program.display()))
    }

    /// A server child process, stopped when dropped.
    struct Running {
        child: Child,
        endpoint: Endpoint,
    }

    impl Running {
        fn pid(&self) -> u32 {
            self.child.id()
        }
    }

    impl Drop for Running {
        fn drop(&mut self) {
            let pid = self.child.id() as i32;
            // SAFETY: kill(2) on the pid of our own child, not reaped yet (try_wait reaps it
            // only once it has exited, after which we no longer signal it).
            unsafe { libc::kill(pid, libc::SIGTERM) };
            let deadline = std::time::Instant::now() + STOP_GRACE;
            loop {
                match self.child.try_wait() {
                    Ok(Some(_)) | Err(_) => return,
                    Ok(None) if std::time::Instant::now() >= deadline => break,
                    Ok(None) => std::thread::sleep(Duration::from_millis(10)),
                }
            }
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }

    /// Starts `spec` (on CPU 0 unless unpinned), waits for the URL it prints, and keeps
    /// draining its stdout; its stderr goes to `stderr_path`.
    fn start(spec: &ServerSpec, pinned: bool, stderr_path: &Path) -> Result<Running, String> {
        let stderr =
            File::create(stderr_path).map_err(|e| format!("{}: {e}", stderr_path.display()))?;
        let mut command = if pinned {
            let mut c = Command::new("taskset");
            c.arg("-c").arg("0").arg(&spec.program);
            c
        } else {
            Command::new(&spec.program)
        };
        let mut child = command
            .args(&spec.args)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(stderr)
            .spawn()
            .map_err(|e| format!("spawning {}: {e}", spec.program.display()))?;
        let Some(stdout) = child.stdout.take() else {
            let _ = child.kill();
            let _ = child.wait();
            return Err("no stdout".into());
        };
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            let mut lines = BufReader::new(stdout).lines();
            let _ = tx.send(lines.next());
            // Drain the rest so a chatty server never blocks on a full pipe.
            for _ in lines {}
        });
        let running_url = rx.recv_timeout(START_TIMEOUT);
        let url = match running_url {
            Ok(Some(Ok(line))) => line,
            other => {
                let _ = child.kill();
                let _ = child.wait();
                let tail = std::fs::read_to_string(stderr_path).unwrap_or_default();
                let why = match other {
                    Err(_) => format!("printed no URL within {START_TIMEOUT:?}"),
                    _ => "exited without printing its URL".into(),
                };
                return Err(format!("{} {why}:\n{}", spec.name, tail.trim_end()));
            }
        };
        let endpoint = match Endpoint::parse(&url) {
            Ok(endpoint) => endpoint,
            Err(e) => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(format!("{}: {e}", spec.name));
            }
        };
        Ok(Running { child, endpoint })
    }

    /// CPU time of the calling thread, ns.
    fn thread_cpu_ns() -> u64 {
        let mut ts = libc::timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        // SAFETY: ts is a valid timespec to write into.
        unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
        ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
    }

    /// What one level needs to know about the run it is part of.
    struct Level<'a> {
        server: &'a str,
        placement: &'a str,
        round: usize,
        concurrency: u64,
    }

    /// The handshake, then every concurrency level against one running server, on a
    /// current-thread runtime in the calling thread. A failing level ends the server's run
    /// (its later levels are reported as not run).
    fn drive(
        server_pid: u32,
        endpoint: &Endpoint,
        levels: &[Level<'_>],
        warmup: u64,
        requests: u64,
    ) -> Vec<HttpSample> {
        let sample = |level: &Level<'_>| HttpSample {
            server: level.server.into(),
            placement: level.placement.into(),
            round: level.round,
            concurrency: level.concurrency,
            phase: None,
            content_types: vec![],
            server_cpu_ns: 0,
            client_cpu_ns: 0,
            server_rss_kib: 0,
            server_peak_kib: 0,
            error: None,
        };
        let runtime = match tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
        {
            Ok(runtime) => runtime,
            Err(e) => {
                return levels
                    .iter()
                    .map(|l| HttpSample {
                        error: Some(format!("load generator runtime: {e}")),
                        ..sample(l)
                    })
                    .collect();
            }
        };
        runtime.block_on(async {
            let mut out = Vec::new();
            let mut failed = match http_load::handshake(endpoint).await {
                Ok(_) => None,
                Err(e) => Some(format!("handshake: {e}")),
            };
            for level in levels {
                let mut s = sample(level);
                if let Some(e) = &failed {
                    s.error = Some(e.clone());
                    out.push(s);
                    continue;
                }
                match measure(server_pid, endpoint, level.concurrency, warmup, requests).await {
                    Ok(measured) => {
                        let (rss, peak) = procfs::rss_kib(server_pid).unwrap_or((0, 0));
                        s.server_rss_kib = rss;
                        s.server_peak_kib = peak;
                        s.server_cpu_ns = measured.1;
                        s.client_cpu_ns = measured.2;
                        s.content_types = measured.0.content_types.into_iter().collect();
                        s.phase = Some(measured.0.phase);
                    }
                    Err(e) => {
                        failed = Some(format!("C = {} failed before: {e}", level.concurrency));
                        s.error = Some(e);
                    }
                }
                out.push(s);
            }
            out
        })
    }

    /// One level: connect, warm up, measure; with the server's and this thread's CPU time over
    /// the measured calls.
    async fn measure(
        server_pid: u32,
        endpoint: &Endpoint,
        concurrency: u64,
        warmup: u64,
        requests: u64,
    ) -> Result<(http_load::Measured, u64, u64), String> {
        let mut load = Load::connect(endpoint, concurrency as usize).await?;
        load.run(warmup)
            .await
            .map_err(|e| format!("warm-up: {e}"))?;
        let server_cpu = || procfs::cpu_ns(server_pid).unwrap_or(0);
        let (server_before, client_before) = (server_cpu(), thread_cpu_ns());
        let measured = load.run(requests).await?;
        let (server_after, client_after) = (server_cpu(), thread_cpu_ns());
        Ok((
            measured,
            server_after.saturating_sub(server_before),
            client_after.saturating_sub(client_before),
        ))
    }

    /// The 1-minute load average from `/proc/loadavg` (NaN when unreadable).
    fn load_average() -> f64 {
        std::fs::read_to_string("/proc/loadavg")
            .ok()
            .and_then(|t| t.split_whitespace().next()?.parse().ok())
            .unwrap_or(f64::NAN)
    }

    /// `rmcp x.y.z` from the workspace's Cargo.lock, `@modelcontextprotocol/sdk x.y.z` and
    /// `express x.y.z` from bench/node_modules.
    fn versions(paths: &Paths) -> Vec<String> {
        let mut out = Vec::new();
        let lock = std::fs::read_to_string(paths.root.join("Cargo.lock")).unwrap_or_default();
        let mut lines = lock.lines();
        while let Some(line) = lines.next() {
            if line == "name = \"rmcp\""
                && let Some(v) = lines.next().and_then(|l| l.strip_prefix("version = "))
            {
                out.push(format!("rmcp {}", v.trim_matches('"')));
            }
        }
        // express comes with the SDK (a dependency of it, not pinned by install-sdks.sh).
        for package in ["@modelcontextprotocol/sdk", "express"] {
            let manifest = paths
                .bench
                .join("node_modules")
                .join(package)
                .join("package.json");
            if let Some(v) = std::fs::read_to_string(manifest)
                .ok()
                .and_then(|t| serde_json::from_str::<serde_json::Value>(&t).ok())
                .and_then(|v| v["version"].as_str().map(str::to_string))
            {
                out.push(format!("{package} {v}"));
            }
        }
        out
    }

    /// `ct-bench http`.
    pub fn run_http(paths: &Paths, args: &Args) -> Result<(), String> {
        let specs = servers(paths, &args.drivers)?;
        if specs.is_empty() {
            return Err("no server to run".into());
        }
        let rounds = args.rounds_given.unwrap_or(3);
        let requests = args.n_given.unwrap_or(20_000);
        let ts_requests = args.ts_n.unwrap_or(5_000).min(requests);
        let warmup = args.warmup.unwrap_or(2_000);
        let concurrency = args.conc.clone().unwrap_or_else(|| vec![1, 32]);
        if concurrency.contains(&0) {
            return Err("--conc: a concurrency level must be at least 1".into());
        }
        let placements = if args.placements_given {
            args.placements.clone()
        } else {
            vec!["split".into(), "none".into()]
        };
        let tmp = paths.results.join("tmp");
        std::fs::create_dir_all(&tmp).map_err(|e| format!("{}: {e}", tmp.display()))?;
        let mut bench = HttpBench {
            date: provenance::now_utc(),
            machine: provenance::machine(),
            revision: provenance::revision(paths),
            load_average: (load_average(), 0.0),
            versions: versions(paths),
            rounds,
            requests,
            ts_requests,
            warmup,
            concurrency: concurrency.clone(),
            servers: specs.iter().map(|s| s.name.to_string()).collect(),
            placements: placements.clone(),
            samples: Vec::new(),
        };
        for round in 0..rounds {
            for placement in &placements {
                for i in 0..specs.len() {
                    let spec = &specs[(i + round) % specs.len()];
                    let levels: Vec<Level<'_>> = concurrency
                        .iter()
                        .map(|&c| Level {
                            server: spec.name,
                            placement,
                            round,
                            concurrency: c,
                        })
                        .collect();
                    let stderr_path = tmp.join(format!("http-{}.stderr", spec.name));
                    let samples = match start(spec, placement != "none", &stderr_path) {
                        Ok(running) => {
                            let n = if spec.name == "typescript" {
                                ts_requests
                            } else {
                                requests
                            };
                            run_server(&running, placement, &levels, warmup, n)
                        }
                        Err(e) => levels.iter().map(|l| failed_sample(l, e.clone())).collect(),
                    };
                    for s in samples {
                        match (&s.phase, &s.error) {
                            (_, Some(e)) => eprintln!(
                                "round {}/{rounds} {placement:5} C={:<3} {:12} FAILED: {e}",
                                round + 1,
                                s.concurrency,
                                s.server
                            ),
                            (Some(p), None) => eprintln!(
                                "round {}/{rounds} {placement:5} C={:<3} {:12} {:>8.0} req/s  p50 {:>7.1} µs  p99 {:>7.1} µs  {}",
                                round + 1,
                                s.concurrency,
                                s.server,
                                p.calls_per_s,
                                p.p50_ns as f64 / 1e3,
                                p.p99_ns as f64 / 1e3,
                                s.content_types.join(",")
                            ),
                            (None, None) => {}
                        }
                        bench.samples.push(s);
                    }
                }
            }
        }
        bench.load_average.1 = load_average();
        save(paths, "http", &bench)?;
        println!("{}", tables(&bench));
        let failures = bench.samples.iter().filter(|s| s.error.is_some()).count();
        if failures > 0 {
            Err(format!("{failures} HTTP run(s) failed (see above)"))
        } else {
            Ok(())
        }
    }

    fn failed_sample(level: &Level<'_>, error: String) -> HttpSample {
        HttpSample {
            server: level.server.into(),
            placement: level.placement.into(),
            round: level.round,
            concurrency: level.concurrency,
            phase: None,
            content_types: vec![],
            server_cpu_ns: 0,
            client_cpu_ns: 0,
            server_rss_kib: 0,
            server_peak_kib: 0,
            error: Some(error),
        }
    }

    /// Drives one running server from a thread of its own (pinned per the placement), bounded
    /// by [`SERVER_RUN_TIMEOUT`].
    fn run_server(
        running: &Running,
        placement: &str,
        levels: &[Level<'_>],
        warmup: u64,
        requests: u64,
    ) -> Vec<HttpSample> {
        let cpu = match placement {
            "split" => Some(1),
            "same" => Some(0),
            _ => None,
        };
        let pid = running.pid();
        let endpoint = running.endpoint.clone();
        let owned: Vec<(String, String, usize, u64)> = levels
            .iter()
            .map(|l| {
                (
                    l.server.to_string(),
                    l.placement.to_string(),
                    l.round,
                    l.concurrency,
                )
            })
            .collect();
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            let levels: Vec<Level<'_>> = owned
                .iter()
                .map(|(server, placement, round, concurrency)| Level {
                    server,
                    placement,
                    round: *round,
                    concurrency: *concurrency,
                })
                .collect();
            let samples = match cpu.map(procfs::pin_to_cpu) {
                Some(Err(e)) => levels
                    .iter()
                    .map(|l| failed_sample(l, format!("pinning the load generator: {e}")))
                    .collect(),
                _ => drive(pid, &endpoint, &levels, warmup, requests),
            };
            let _ = tx.send(samples);
        });
        match rx.recv_timeout(SERVER_RUN_TIMEOUT) {
            Ok(samples) => samples,
            // The thread is left behind; the server is stopped when `running` drops, which
            // fails its connections and ends it.
            Err(_) => levels
                .iter()
                .map(|l| failed_sample(l, format!("no result within {SERVER_RUN_TIMEOUT:?}")))
                .collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(server: &str, round: usize, rps: f64, p99_us: u64) -> HttpSample {
        HttpSample {
            server: server.into(),
            placement: "split".into(),
            round,
            concurrency: 1,
            phase: Some(Phase {
                calls: 100,
                calls_per_s: rps,
                p50_ns: p99_us * 500,
                p99_ns: p99_us * 1000,
                ..Phase::default()
            }),
            content_types: vec!["application/json".into()],
            server_cpu_ns: 100 * 20_000,
            client_cpu_ns: 100 * 5_000,
            server_rss_kib: 4096,
            server_peak_kib: 5120,
            error: None,
        }
    }

    #[test]
    fn tables_give_medians_ratios_and_the_goal() {
        let b = HttpBench {
            date: String::new(),
            machine: String::new(),
            revision: String::new(),
            load_average: (0.0, 0.0),
            versions: vec![],
            rounds: 2,
            requests: 100,
            ts_requests: 100,
            warmup: 10,
            concurrency: vec![1],
            servers: vec!["claude-tools".into(), "rmcp".into(), "floor".into()],
            placements: vec!["split".into()],
            samples: vec![
                sample("claude-tools", 0, 20_000.0, 100),
                sample("rmcp", 0, 10_000.0, 200),
                sample("floor", 0, 50_000.0, 50),
                sample("claude-tools", 1, 30_000.0, 100),
                sample("rmcp", 1, 10_000.0, 50),
                sample("floor", 1, 50_000.0, 50),
            ],
        };
        assert_eq!(b.median("claude-tools", "split", 1, "rps"), Some(25_000.0));
        assert_eq!(
            b.ratio("claude-tools", "rmcp", "split", 1, "rps"),
            Some(2.5)
        );
        assert_eq!(
            b.ratio("rmcp", "claude-tools", "split", 1, "p99"),
            Some(1.25)
        );
        let text = tables(&b);
        assert!(
            text.contains(
                "| claude-tools | `application/json` | 25,000 | 50.0 | 100.0 | 20.0 | 5.0 | 5.0 |"
            ),
            "{text}"
        );
        assert!(
            text.contains("| split | 1 | rmcp | 2.50× | 1.25× | yes |"),
            "{text}"
        );
        assert!(
            text.contains("| floor | `application/json` | 50,000 | 25.0 | 50.0 |"),
            "{text}"
        );
        // The floor's ratios are shown; it has no verdict (nothing can be ahead of it).
        assert!(
            text.contains("| split | 1 | floor | 0.50× | 0.50× | – (the floor) |"),
            "{text}"
        );
    }

    #[test]
    fn failed_samples_are_listed_and_left_out() {
        let mut failed = sample("rmcp", 0, 1.0, 1);
        failed.phase = None;
        failed.error = Some("call 3: add(1, 2) answered \"4\"\nmore".into());
        let b = HttpBench {
            date: String::new(),
            machine: String::new(),
            revision: String::new(),
            load_average: (0.0, 0.0),
            versions: vec![],
            rounds: 1,
            requests: 100,
            ts_requests: 100,
            warmup: 10,
            concurrency: vec![1],
            servers: vec!["claude-tools".into(), "rmcp".into()],
            placements: vec!["split".into()],
            samples: vec![sample("claude-tools", 0, 1.0, 1), failed],
        };
        let text = tables(&b);
        assert!(
            text.contains("- rmcp / split / C = 1 / round 1: call 3: add(1, 2) answered \"4\""),
            "{text}"
        );
        assert!(text.contains("| rmcp | – | – |"), "{text}");
        assert!(
            text.contains("| split | 1 | rmcp | – | – | not measured |"),
            "{text}"
        );
    }
}
