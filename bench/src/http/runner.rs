//! Running the HTTP bench: starting each server, the handshake, the load at each concurrency
//! level, and the samples it records (the report's tables are in the parent module).

use std::ffi::OsString;
use std::fs::File;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use claude_tools_bench::http_load::{self, Endpoint, Load, Method};
use claude_tools_bench::procfs;

use super::{HttpBench, HttpSample, SERVERS, TOOL, serves, tables};
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
    method: Method,
}

/// The handshake (checking that what `levels` call is listed), then every level (a
/// concurrency level and a method) against one running server, on a current-thread runtime in
/// the calling thread. A failing level ends the server's run (its later levels are reported as
/// not run).
fn drive(
    server_pid: u32,
    endpoint: &Endpoint,
    levels: &[Level<'_>],
    warmup: u64,
    requests: u64,
) -> Vec<HttpSample> {
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
                    ..blank_sample(l)
                })
                .collect();
        }
    };
    runtime.block_on(async {
        let mut out = Vec::new();
        let mut methods: Vec<Method> = levels.iter().map(|l| l.method).collect();
        methods.sort_unstable();
        methods.dedup();
        let mut failed = match http_load::handshake(endpoint, &methods).await {
            Ok(_) => None,
            Err(e) => Some(format!("handshake: {e}")),
        };
        for level in levels {
            let mut s = blank_sample(level);
            if let Some(e) = &failed {
                s.error = Some(e.clone());
                out.push(s);
                continue;
            }
            let measured = measure(
                server_pid,
                endpoint,
                level.method,
                level.concurrency,
                warmup,
                requests,
            )
            .await;
            match measured {
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
                    failed = Some(format!(
                        "C = {} ({}) failed before: {e}",
                        level.concurrency,
                        level.method.json_rpc()
                    ));
                    s.error = Some(e);
                }
            }
            out.push(s);
        }
        out
    })
}

/// One level: connect, warm up, measure `method`; with the server's and this thread's CPU time
/// over the measured calls.
async fn measure(
    server_pid: u32,
    endpoint: &Endpoint,
    method: Method,
    concurrency: u64,
    warmup: u64,
    requests: u64,
) -> Result<(http_load::Measured, u64, u64), String> {
    let mut load = Load::connect(endpoint, concurrency as usize).await?;
    load.run(method, warmup)
        .await
        .map_err(|e| format!("warm-up: {e}"))?;
    let server_cpu = || procfs::cpu_ns(server_pid).unwrap_or(0);
    let (server_before, client_before) = (server_cpu(), thread_cpu_ns());
    let measured = load.run(method, requests).await?;
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
    let methods = args.methods.clone().unwrap_or_else(|| vec![TOOL.into()]);
    let parsed: Vec<Method> = methods
        .iter()
        .map(|m| Method::from_name(m).ok_or_else(|| format!("--methods: unknown method {m}")))
        .collect::<Result<_, _>>()?;
    if parsed.is_empty() {
        return Err("--methods: no method".into());
    }
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
        methods: methods.clone(),
        samples: Vec::new(),
    };
    for round in 0..rounds {
        for placement in &placements {
            for i in 0..specs.len() {
                let spec = &specs[(i + round) % specs.len()];
                // The methods this server serves, their order turned by one each round.
                let served: Vec<Method> = parsed
                    .iter()
                    .copied()
                    .filter(|m| serves(spec.name, m.name()))
                    .collect();
                let levels: Vec<Level<'_>> = concurrency
                    .iter()
                    .flat_map(|&c| {
                        let served = &served;
                        (0..served.len()).map(move |j| (c, served[(j + round) % served.len()]))
                    })
                    .map(|(c, method)| Level {
                        server: spec.name,
                        placement,
                        round,
                        concurrency: c,
                        method,
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
                            "round {}/{rounds} {placement:5} C={:<3} {:12} {:8} FAILED: {e}",
                            round + 1,
                            s.concurrency,
                            s.server,
                            s.method
                        ),
                        (Some(p), None) => eprintln!(
                            "round {}/{rounds} {placement:5} C={:<3} {:12} {:8} {:>8.0} req/s  p50 {:>7.1} µs  p99 {:>7.1} µs  {}",
                            round + 1,
                            s.concurrency,
                            s.server,
                            s.method,
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

/// A sample of `level` with nothing measured yet.
fn blank_sample(level: &Level<'_>) -> HttpSample {
    HttpSample {
        server: level.server.into(),
        placement: level.placement.into(),
        method: level.method.name().into(),
        round: level.round,
        concurrency: level.concurrency,
        phase: None,
        content_types: vec![],
        server_cpu_ns: 0,
        client_cpu_ns: 0,
        server_rss_kib: 0,
        server_peak_kib: 0,
        error: None,
    }
}

fn failed_sample(level: &Level<'_>, error: String) -> HttpSample {
    HttpSample {
        error: Some(error),
        ..blank_sample(level)
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
    let owned: Vec<(String, String, usize, u64, Method)> = levels
        .iter()
        .map(|l| {
            (
                l.server.to_string(),
                l.placement.to_string(),
                l.round,
                l.concurrency,
                l.method,
            )
        })
        .collect();
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let levels: Vec<Level<'_>> = owned
            .iter()
            .map(|(server, placement, round, concurrency, method)| Level {
                server,
                placement,
                round: *round,
                concurrency: *concurrency,
                method: *method,
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
