//! Running drivers against the fake CLI: the interleaved matrix, RSS over many calls, and scale.

use std::ffi::OsString;
use std::fs::File;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use claude_tools_bench::env;
use claude_tools_bench::stats::RunStats;

use crate::provenance;
use crate::results::{Matrix, RssRun, Sample, ScaleRun, SoakRun, save};
use crate::tables;
use crate::{Args, Paths};

/// Longest a single driver run may take.
const RUN_TIMEOUT: Duration = Duration::from_secs(600);
/// Longest the soak may take (a million calls on a slow, busy machine).
const SOAK_TIMEOUT: Duration = Duration::from_secs(3 * 3600);

/// One way of hosting the `add` tool.
#[derive(Debug, Clone)]
pub struct Driver {
    /// Short name (`floor`, `claude-tools`, ...).
    pub name: &'static str,
    /// Program to run.
    pub program: PathBuf,
    /// Its arguments.
    pub args: Vec<OsString>,
    /// Whether the driver goes through the fake CLI (the ping-pong does not).
    pub uses_cli: bool,
}

/// Every driver, in table order; those whose program is missing are reported and left out.
pub fn drivers(paths: &Paths, wanted: &Option<Vec<String>>) -> Vec<Driver> {
    let cli: OsString = paths.fake_cli().into();
    let all = vec![
        Driver {
            name: "pingpong",
            program: paths.bin.join("ct-bench-pingpong"),
            args: vec![],
            uses_cli: false,
        },
        Driver {
            name: "floor",
            program: paths.bin.join("ct-bench-floor"),
            args: vec![cli.clone()],
            uses_cli: true,
        },
        Driver {
            name: "claude-tools",
            program: paths.bin.join("ct-bench-claude-tools"),
            args: vec![cli.clone()],
            uses_cli: true,
        },
        Driver {
            name: "typescript",
            program: "node".into(),
            args: vec![
                paths.bench.join("drivers/ts_driver.mjs").into(),
                cli.clone(),
            ],
            uses_cli: true,
        },
        Driver {
            name: "python",
            program: paths.bench.join(".venv/bin/python"),
            args: vec![paths.bench.join("drivers/py_driver.py").into(), cli],
            uses_cli: true,
        },
    ];
    let mut out = Vec::new();
    for d in all {
        if let Some(w) = wanted
            && !w.iter().any(|x| x == d.name)
        {
            continue;
        }
        let available = match d.name {
            "typescript" => paths
                .bench
                .join("node_modules/@anthropic-ai/claude-agent-sdk")
                .exists(),
            _ => d.program.exists(),
        };
        if available {
            out.push(d);
        } else {
            eprintln!(
                "ct-bench: driver {} is not available (missing {}); left out",
                d.name,
                d.program.display()
            );
        }
    }
    out
}

/// Parameters of one driver run.
#[derive(Debug, Clone)]
pub struct RunSpec<'a> {
    /// The driver.
    pub driver: &'a Driver,
    /// `same` (both on CPU 0) or `split` (driver on CPU 0, CLI on CPU 1); `None`: unpinned.
    pub placement: Option<&'a str>,
    /// Sequential calls.
    pub n: u64,
    /// Calls at K in flight.
    pub conc_n: u64,
    /// K.
    pub k: u64,
    /// RSS sampling interval (0: none).
    pub rss_every: u64,
    /// Extra arguments for the driver.
    pub extra_args: Vec<OsString>,
    /// Rounds of the concurrent phase, each of `conc_n` calls.
    pub conc_rounds: u64,
    /// Longest the run may take.
    pub timeout: Duration,
}

/// What one run gave.
#[derive(Debug, Clone)]
pub struct RunOutcome {
    /// Wall time from spawn to exit, ms.
    pub wall_ms: f64,
    /// Statistics files found (`stats`, or `stats.0`, `stats.1`, ... for several sessions).
    pub stats: Vec<RunStats>,
}

/// Runs one driver to completion and collects the statistics the fake CLI(s) wrote.
pub fn run_once(paths: &Paths, spec: &RunSpec<'_>, sessions: usize) -> Result<RunOutcome, String> {
    let dir = paths.results.join("tmp");
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let stats_path = dir.join(format!(
        "stats-{}-{}.json",
        spec.driver.name,
        std::process::id()
    ));
    let stats_files: Vec<PathBuf> = if sessions > 1 {
        (0..sessions)
            .map(|i| PathBuf::from(format!("{}.{i}", stats_path.display())))
            .collect()
    } else {
        vec![stats_path.clone()]
    };
    for f in &stats_files {
        let _ = std::fs::remove_file(f);
    }
    let stderr_path = dir.join(format!("stderr-{}.txt", spec.driver.name));
    let stderr =
        File::create(&stderr_path).map_err(|e| format!("{}: {e}", stderr_path.display()))?;
    let mut command = match spec.placement {
        Some(_) => {
            let mut c = Command::new("taskset");
            c.arg("-c").arg("0").arg(&spec.driver.program);
            c
        }
        None => Command::new(&spec.driver.program),
    };
    command
        .args(&spec.driver.args)
        .args(&spec.extra_args)
        .env(env::N, spec.n.to_string())
        .env(env::CONC_N, spec.conc_n.to_string())
        .env(env::CONC_ROUNDS, spec.conc_rounds.to_string())
        .env(env::K, spec.k.to_string())
        .env(env::RSS_EVERY, spec.rss_every.to_string())
        .env(env::STATS, &stats_path)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(stderr);
    match spec.placement {
        Some("split") => command.env(env::CLI_CPU, "1"),
        _ => command.env_remove(env::CLI_CPU),
    };
    let started = Instant::now();
    let mut child = command
        .spawn()
        .map_err(|e| format!("spawning {}: {e}", spec.driver.program.display()))?;
    let pid = child.id();
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(child.wait());
    });
    let status = match rx.recv_timeout(spec.timeout) {
        Ok(status) => status.map_err(|e| format!("waiting: {e}"))?,
        Err(_) => {
            // SAFETY: kill(2) on the pid of the child we spawned and have not reaped.
            unsafe { libc::kill(pid as i32, libc::SIGKILL) };
            return Err(format!(
                "{} timed out after {:?}",
                spec.driver.name, spec.timeout
            ));
        }
    };
    let wall_ms = started.elapsed().as_secs_f64() * 1e3;
    if !status.success() {
        let tail = std::fs::read_to_string(&stderr_path).unwrap_or_default();
        let tail: String = tail
            .lines()
            .rev()
            .take(8)
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .collect::<Vec<_>>()
            .join("\n");
        return Err(format!(
            "{} exited with {status}:\n{tail}",
            spec.driver.name
        ));
    }
    let mut stats = Vec::new();
    for f in &stats_files {
        let text = std::fs::read_to_string(f)
            .map_err(|e| format!("{}: no statistics ({}): {e}", spec.driver.name, f.display()))?;
        stats.push(serde_json::from_str(&text).map_err(|e| format!("{}: {e}", f.display()))?);
        let _ = std::fs::remove_file(f);
    }
    Ok(RunOutcome { wall_ms, stats })
}

/// `ct-bench run`: every driver, interleaved, several rounds, both placements.
pub fn run_matrix(paths: &Paths, args: &Args) -> Result<(), String> {
    let drivers = drivers(paths, &args.drivers);
    if drivers.is_empty() {
        return Err("no driver to run".into());
    }
    let mut matrix = Matrix {
        date: provenance::now_utc(),
        machine: provenance::machine(),
        revision: provenance::revision(paths),
        rounds: args.rounds,
        n: args.n,
        py_n: args.py_n,
        k: args.k,
        drivers: drivers.iter().map(|d| d.name.to_string()).collect(),
        placements: args.placements.clone(),
        samples: Vec::new(),
    };
    for round in 0..args.rounds {
        for placement in &args.placements {
            // Interleave: each round starts at a different driver.
            for i in 0..drivers.len() {
                let driver = &drivers[(i + round) % drivers.len()];
                let n = if driver.name == "python" {
                    args.py_n.min(args.n)
                } else {
                    args.n
                };
                let spec = RunSpec {
                    driver,
                    placement: Some(placement),
                    n,
                    conc_n: n,
                    k: args.k,
                    rss_every: 0,
                    extra_args: vec![],
                    conc_rounds: 1,
                    timeout: RUN_TIMEOUT,
                };
                eprint!(
                    "round {}/{} {placement:5} {:12} ",
                    round + 1,
                    args.rounds,
                    driver.name
                );
                let mut sample = Sample {
                    driver: driver.name.into(),
                    placement: placement.clone(),
                    round,
                    stats: None,
                    startup_ms: None,
                    error: None,
                };
                match run_once(paths, &spec, 1) {
                    Ok(mut outcome) => sample.stats = outcome.stats.pop(),
                    Err(e) => sample.error = Some(e),
                }
                if driver.uses_cli && sample.error.is_none() {
                    let spec = RunSpec {
                        n: 0,
                        conc_n: 0,
                        ..spec
                    };
                    match run_once(paths, &spec, 1) {
                        Ok(outcome) => sample.startup_ms = Some(outcome.wall_ms),
                        Err(e) => sample.error = Some(format!("startup run: {e}")),
                    }
                }
                match (&sample.stats, &sample.error) {
                    (_, Some(e)) => eprintln!("FAILED: {e}"),
                    (Some(s), None) => eprintln!(
                        "seq p50 {:.1} µs, p99 {:.1} µs, {:.0}/s; K={} {:.0}/s; startup {}",
                        s.seq.p50_ns as f64 / 1e3,
                        s.seq.p99_ns as f64 / 1e3,
                        s.seq.calls_per_s,
                        args.k,
                        s.conc.calls_per_s,
                        sample
                            .startup_ms
                            .map(|ms| format!("{ms:.1} ms"))
                            .unwrap_or_else(|| "–".into())
                    ),
                    (None, None) => eprintln!("no statistics"),
                }
                matrix.samples.push(sample);
            }
        }
    }
    save(paths, "matrix", &matrix)?;
    println!("{}", tables::matrix_tables(&matrix));
    let failures = matrix.samples.iter().filter(|s| s.error.is_some()).count();
    if failures > 0 {
        Err(format!("{failures} run(s) failed (see above)"))
    } else {
        Ok(())
    }
}

/// `ct-bench rss`: host RSS sampled every N/10 sequential calls.
pub fn run_rss(paths: &Paths, args: &Args) -> Result<(), String> {
    let n = args.n_given.unwrap_or(100_000);
    let wanted = args.drivers.clone().or_else(|| {
        Some(vec![
            "floor".into(),
            "claude-tools".into(),
            "typescript".into(),
            "python".into(),
        ])
    });
    let mut runs = Vec::new();
    for driver in drivers(paths, &wanted) {
        if !driver.uses_cli {
            continue;
        }
        eprint!("rss {:12} {n} calls ... ", driver.name);
        let spec = RunSpec {
            driver: &driver,
            placement: Some("same"),
            n,
            conc_n: 0,
            k: 1,
            rss_every: (n / 10).max(1),
            extra_args: vec![],
            conc_rounds: 1,
            timeout: RUN_TIMEOUT,
        };
        let run = match run_once(paths, &spec, 1) {
            Ok(mut outcome) => {
                let stats = outcome.stats.pop().unwrap_or_default();
                RssRun {
                    driver: driver.name.into(),
                    calls: n,
                    samples: stats.rss_samples,
                    peak_kib: stats.host_peak_rss_kib,
                    error: None,
                }
            }
            Err(e) => RssRun {
                driver: driver.name.into(),
                calls: n,
                samples: vec![],
                peak_kib: 0,
                error: Some(e),
            },
        };
        eprintln!("{}", run.error.as_deref().unwrap_or("done"));
        runs.push(run);
    }
    save(paths, "rss", &runs)?;
    println!("{}", tables::rss_table(&runs));
    Ok(())
}

/// `ct-bench scale`: S concurrent sessions (each its own fake CLI) in one claude-tools host.
pub fn run_scale(paths: &Paths, args: &Args) -> Result<(), String> {
    let Some(driver) = drivers(paths, &Some(vec!["claude-tools".into()])).pop() else {
        return Err("scale needs the claude-tools driver".into());
    };
    let per_session = (args.n / 5).max(100);
    let mut runs = Vec::new();
    for &sessions in &args.sessions {
        eprint!("scale {sessions:3} sessions × {per_session} calls ... ");
        let spec = RunSpec {
            driver: &driver,
            placement: None,
            n: per_session,
            conc_n: 0,
            k: 1,
            rss_every: 0,
            extra_args: vec!["--sessions".into(), sessions.to_string().into()],
            conc_rounds: 1,
            timeout: RUN_TIMEOUT,
        };
        let run = match run_once(paths, &spec, sessions) {
            Ok(outcome) => {
                let start = outcome
                    .stats
                    .iter()
                    .map(|s| s.calls_start_mono_ns)
                    .min()
                    .unwrap_or(0);
                let end = outcome
                    .stats
                    .iter()
                    .map(|s| s.calls_end_mono_ns)
                    .max()
                    .unwrap_or(0);
                let calls: u64 = outcome.stats.iter().map(|s| s.seq.calls).sum();
                let p50s: Vec<f64> = outcome
                    .stats
                    .iter()
                    .map(|s| s.seq.p50_ns as f64 / 1e3)
                    .collect();
                ScaleRun {
                    sessions,
                    calls_per_session: per_session,
                    aggregate_calls_per_s: if end > start {
                        calls as f64 * 1e9 / (end - start) as f64
                    } else {
                        0.0
                    },
                    host_peak_kib: outcome
                        .stats
                        .iter()
                        .map(|s| s.host_peak_rss_kib)
                        .max()
                        .unwrap_or(0),
                    p50_us: claude_tools_bench::stats::median(&p50s).unwrap_or(f64::NAN),
                    wall_ms: outcome.wall_ms,
                    error: None,
                }
            }
            Err(e) => ScaleRun {
                sessions,
                calls_per_session: per_session,
                aggregate_calls_per_s: 0.0,
                host_peak_kib: 0,
                p50_us: f64::NAN,
                wall_ms: 0.0,
                error: Some(e),
            },
        };
        eprintln!("{}", run.error.as_deref().unwrap_or("done"));
        runs.push(run);
    }
    save(paths, "scale", &runs)?;
    println!("{}", tables::scale_table(&runs));
    Ok(())
}

/// The soak's defaults: 1,000,000 sequential calls, then 10 rounds of 10,000 with 100 in flight.
pub const SOAK_DEFAULTS: (u64, usize, u64, u64) = (1_000_000, 10, 10_000, 100);

/// `ct-bench soak`: one claude-tools session (one process, one `query`) through `--n`
/// sequential calls, then `--rounds` rounds of `--conc-n` calls with `--k` in flight. The fake
/// CLI checks every answer and stops at the first wrong one, so a run that completes with every
/// call counted had no error. Host RSS before the first call, every N/10 sequential calls, after
/// each round, and its peak.
pub fn run_soak(paths: &Paths, args: &Args) -> Result<(), String> {
    let Some(driver) = drivers(paths, &Some(vec!["claude-tools".into()])).pop() else {
        return Err("soak needs the claude-tools driver".into());
    };
    let (default_n, default_rounds, default_conc_n, default_k) = SOAK_DEFAULTS;
    let n = args.n_given.unwrap_or(default_n);
    let rounds = args.rounds_given.unwrap_or(default_rounds) as u64;
    let conc_n = args.conc_n.unwrap_or(default_conc_n);
    let k = args.k_given.unwrap_or(default_k);
    eprint!("soak: {n} sequential calls, then {rounds} × {conc_n} with {k} in flight ... ");
    let spec = RunSpec {
        driver: &driver,
        placement: None,
        n,
        conc_n,
        k,
        rss_every: (n / 10).max(1),
        extra_args: vec![],
        conc_rounds: rounds,
        timeout: SOAK_TIMEOUT,
    };
    let mut run = SoakRun {
        date: provenance::now_utc(),
        machine: provenance::machine(),
        revision: provenance::revision(paths),
        seq_calls: n,
        rounds,
        calls_per_round: conc_n,
        k,
        stats: None,
        wall_ms: 0.0,
        error: None,
    };
    match run_once(paths, &spec, 1) {
        Ok(mut outcome) => {
            run.wall_ms = outcome.wall_ms;
            let stats = outcome.stats.pop().unwrap_or_default();
            run.error = soak_shortfall(&stats, n, rounds, conc_n);
            run.stats = Some(stats);
        }
        Err(e) => run.error = Some(e),
    }
    eprintln!("{}", run.error.as_deref().unwrap_or("done"));
    save(paths, "soak", &run)?;
    println!("{}", tables::soak_table(&run));
    match &run.error {
        Some(e) => Err(format!("soak failed: {e}")),
        None => Ok(()),
    }
}

/// Whether the statistics count every call the soak asked for (the fake CLI checked each one).
fn soak_shortfall(stats: &RunStats, n: u64, rounds: u64, conc_n: u64) -> Option<String> {
    let round_calls: Vec<u64> = stats.conc_rounds.iter().map(|r| r.phase.calls).collect();
    let expected_rounds = vec![conc_n; rounds as usize];
    (stats.seq.calls != n || round_calls != expected_rounds).then(|| {
        format!(
            "expected {n} sequential calls and rounds of {expected_rounds:?}, \
             the fake CLI counted {} and {round_calls:?}",
            stats.seq.calls
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use claude_tools_bench::stats::{ConcRound, Phase};

    fn stats(seq: u64, rounds: &[u64]) -> RunStats {
        let phase = |calls| Phase {
            calls,
            ..Phase::default()
        };
        RunStats {
            seq: phase(seq),
            conc_rounds: rounds
                .iter()
                .map(|&calls| ConcRound {
                    phase: phase(calls),
                    host_rss_kib: 1,
                })
                .collect(),
            ..RunStats::default()
        }
    }

    #[test]
    fn a_soak_counts_every_call_it_asked_for() {
        assert_eq!(soak_shortfall(&stats(100, &[10, 10]), 100, 2, 10), None);
        assert_eq!(
            soak_shortfall(&stats(99, &[10, 10]), 100, 2, 10).as_deref(),
            Some(
                "expected 100 sequential calls and rounds of [10, 10], the fake CLI counted 99 and [10, 10]"
            )
        );
        assert!(soak_shortfall(&stats(100, &[10]), 100, 2, 10).is_some());
    }
}
