//! Tables of medians and in-round ratios, the targets of issue 5, and `BENCHMARKS.md`.

use std::fmt::Write as _;
use std::process::Command;

use claude_tools_bench::stats::median;

use crate::Paths;
use crate::compile::CompileResult;
use crate::http::HttpBench;
use crate::runs::{self, Matrix, RssRun, Sample, ScaleRun, SoakRun};

/// The current UTC time, `YYYY-MM-DD HH:MM UTC`.
pub fn now_utc() -> String {
    sh("date", &["-u", "+%Y-%m-%d %H:%M UTC"]).unwrap_or_else(|| "unknown date".into())
}

fn sh(program: &str, args: &[&str]) -> Option<String> {
    let out = Command::new(program).args(args).output().ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
}

/// `git rev-parse --short HEAD`, marked when the library crates have uncommitted changes.
pub fn revision(paths: &Paths) -> String {
    let root = paths.root.display().to_string();
    let head = sh("git", &["-C", &root, "rev-parse", "--short", "HEAD"])
        .unwrap_or_else(|| "unknown".into());
    let dirty = sh(
        "git",
        &[
            "-C",
            &root,
            "status",
            "--porcelain",
            "--",
            "claude-tools",
            "claude-tools-macros",
            "claude-tools-runtime",
        ],
    )
    .is_some_and(|s| !s.is_empty());
    if dirty {
        format!("{head} + uncommitted changes to the library crates")
    } else {
        head
    }
}

/// One line describing the machine and the toolchains.
pub fn machine() -> String {
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|t| {
            t.lines().find_map(|l| {
                l.strip_prefix("model name")
                    .map(|r| r.trim_start_matches([' ', '\t', ':']).to_string())
            })
        })
        .unwrap_or_else(|| "unknown CPU".into());
    let cores = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(0);
    let mem = std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|t| {
            t.lines().find_map(|l| {
                l.strip_prefix("MemTotal:")
                    .and_then(|r| r.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
            })
        })
        .map(|kib| format!("{:.0} GiB", kib as f64 / 1024.0 / 1024.0))
        .unwrap_or_default();
    let kernel = sh("uname", &["-r"]).unwrap_or_default();
    let rustc = sh("rustc", &["-V"]).unwrap_or_default();
    let node = sh("node", &["--version"]).unwrap_or_default();
    let python = sh("python3", &["--version"]).unwrap_or_default();
    format!("{cpu}, {cores} cores, {mem}, Linux {kernel}; {rustc}; node {node}; {python}")
}

fn metric(sample: &Sample, name: &str) -> Option<f64> {
    let s = sample.stats.as_ref();
    match name {
        "p50" => s.map(|s| s.seq.p50_ns as f64 / 1e3),
        "p99" => s.map(|s| s.seq.p99_ns as f64 / 1e3),
        "seq" => s.map(|s| s.seq.calls_per_s),
        "conc" => s.map(|s| s.conc.calls_per_s),
        "cpu" => s.map(|s| s.seq.host_cpu_us_per_call()),
        "handshake" => s
            .filter(|s| s.handshake_ns > 0)
            .map(|s| s.handshake_ns as f64 / 1e6),
        "startup" => sample.startup_ms,
        "rss" => s.map(|s| s.host_peak_rss_kib as f64 / 1024.0),
        _ => None,
    }
    .filter(|v| v.is_finite())
}

fn samples<'a>(
    m: &'a Matrix,
    driver: &'a str,
    placement: &'a str,
) -> impl Iterator<Item = &'a Sample> {
    m.samples
        .iter()
        .filter(move |s| s.driver == driver && s.placement == placement && s.error.is_none())
}

/// Median over rounds of one metric.
fn med(m: &Matrix, driver: &str, placement: &str, name: &str) -> Option<f64> {
    let v: Vec<f64> = samples(m, driver, placement)
        .filter_map(|s| metric(s, name))
        .collect();
    median(&v)
}

/// Median over rounds of `metric(driver) / metric(base)` taken inside each round.
pub fn ratio(m: &Matrix, driver: &str, base: &str, placement: &str, name: &str) -> Option<f64> {
    let v: Vec<f64> = samples(m, driver, placement)
        .filter_map(|s| {
            let b = samples(m, base, placement).find(|b| b.round == s.round)?;
            let (x, y) = (metric(s, name)?, metric(b, name)?);
            (y > 0.0).then_some(x / y)
        })
        .collect();
    median(&v)
}

fn fmt(v: Option<f64>, digits: usize) -> String {
    match v {
        Some(v) if v >= 10_000.0 => {
            let s = format!("{v:.0}");
            let mut out = String::new();
            for (i, c) in s.chars().enumerate() {
                if i > 0 && (s.len() - i).is_multiple_of(3) {
                    out.push(',');
                }
                out.push(c);
            }
            out
        }
        Some(v) => format!("{v:.digits$}"),
        None => "–".into(),
    }
}

fn fmt_x(v: Option<f64>) -> String {
    match v {
        Some(v) if v >= 10.0 => format!("{v:.0}×"),
        Some(v) if v < 0.1 => format!("{v:.3}×"),
        Some(v) => format!("{v:.2}×"),
        None => "–".into(),
    }
}

fn placement_title(p: &str) -> &'static str {
    if p == "same" {
        "same CPU (`taskset -c 0` for the driver and the fake CLI)"
    } else {
        "split (driver on CPU 0, fake CLI on CPU 1)"
    }
}

/// The tables of one matrix: medians, then in-round ratios, per placement; then the targets.
pub fn matrix_tables(m: &Matrix) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{} rounds, interleaved; N = {} sequential calls and N more with K = {} in flight per run (Python: N = {}).\n",
        m.rounds,
        m.n,
        m.k,
        m.py_n.min(m.n)
    );
    for p in &m.placements {
        let _ = writeln!(out, "#### {} — medians over rounds\n", placement_title(p));
        let _ = writeln!(
            out,
            "| driver | seq p50 µs | seq p99 µs | calls/s seq | calls/s K={} | driver CPU µs/call | handshake ms | startup ms (N=0) | peak RSS MiB |",
            m.k
        );
        let _ = writeln!(out, "|---|---:|---:|---:|---:|---:|---:|---:|---:|");
        for d in &m.drivers {
            let _ = writeln!(
                out,
                "| {d} | {} | {} | {} | {} | {} | {} | {} | {} |",
                fmt(med(m, d, p, "p50"), 1),
                fmt(med(m, d, p, "p99"), 1),
                fmt(med(m, d, p, "seq"), 0),
                fmt(med(m, d, p, "conc"), 0),
                fmt(med(m, d, p, "cpu"), 2),
                fmt(med(m, d, p, "handshake"), 2),
                fmt(med(m, d, p, "startup"), 1),
                fmt(med(m, d, p, "rss"), 1),
            );
        }
        let _ = writeln!(
            out,
            "\n#### {} — ratios taken inside each round (median)\n",
            placement_title(p)
        );
        let _ = writeln!(
            out,
            "| driver | p50 / floor | p99 / floor | CPU / floor | K={} calls/s / floor | startup / floor | p50 / claude-tools' p50 |",
            m.k
        );
        let _ = writeln!(out, "|---|---:|---:|---:|---:|---:|---:|");
        for d in m.drivers.iter().filter(|d| *d != "floor") {
            let _ = writeln!(
                out,
                "| {d} | {} | {} | {} | {} | {} | {} |",
                fmt_x(ratio(m, d, "floor", p, "p50")),
                fmt_x(ratio(m, d, "floor", p, "p99")),
                fmt_x(ratio(m, d, "floor", p, "cpu")),
                fmt_x(ratio(m, d, "floor", p, "conc")),
                fmt_x(ratio(m, d, "floor", p, "startup")),
                if d == "claude-tools" {
                    "–".into()
                } else {
                    fmt_x(ratio(m, d, "claude-tools", p, "p50"))
                },
            );
        }
        let _ = writeln!(out);
    }
    let failures: Vec<&Sample> = m.samples.iter().filter(|s| s.error.is_some()).collect();
    if !failures.is_empty() {
        let _ = writeln!(out, "Failed runs (left out of the medians):\n");
        for s in failures {
            let e = s
                .error
                .as_deref()
                .unwrap_or("")
                .lines()
                .next()
                .unwrap_or("");
            let _ = writeln!(
                out,
                "- {} / {} / round {}: {e}",
                s.driver,
                s.placement,
                s.round + 1
            );
        }
        let _ = writeln!(out);
    }
    out.push_str(&targets(m));
    out
}

/// The targets of issue 5 (same-CPU placement, in-round ratios), met or missed.
pub fn targets(m: &Matrix) -> String {
    let p = "same";
    let ct = "claude-tools";
    if !m.drivers.iter().any(|d| d == ct) || !m.placements.iter().any(|x| x == p) {
        return "Targets: not evaluated (needs the claude-tools driver and the same-CPU placement).\n".into();
    }
    let rows: Vec<(&str, Option<f64>, f64, bool)> = vec![
        (
            "seq p50 ≤ 1.5× the floor",
            ratio(m, ct, "floor", p, "p50"),
            1.5,
            false,
        ),
        (
            "seq p99 ≤ 3× the floor's p99",
            ratio(m, ct, "floor", p, "p99"),
            3.0,
            false,
        ),
        (
            "driver CPU per call ≤ 2× the floor",
            ratio(m, ct, "floor", p, "cpu"),
            2.0,
            false,
        ),
        (
            "K=32 throughput ≥ 0.7× the floor",
            ratio(m, ct, "floor", p, "conc"),
            0.7,
            true,
        ),
        (
            "startup ≤ 3× the floor",
            ratio(m, ct, "floor", p, "startup"),
            3.0,
            false,
        ),
        ("peak RSS ≤ 6 MiB", med(m, ct, p, "rss"), 6.0, false),
        (
            "seq p50 ≥ 50× better than the Python SDK",
            ratio(m, "python", ct, p, "p50"),
            50.0,
            true,
        ),
        (
            "seq p50 ≥ 3.5× better than the TypeScript SDK",
            ratio(m, "typescript", ct, p, "p50"),
            3.5,
            true,
        ),
    ];
    let mut out = String::from(
        "#### Targets of issue 5 (claude-tools, same CPU, in-round ratios)\n\n| target | measured | |\n|---|---:|---|\n",
    );
    for (name, value, bound, at_least) in rows {
        let verdict = match value {
            None => "not measured",
            Some(v) if (at_least && v >= bound) || (!at_least && v <= bound) => "met",
            Some(_) => "**missed**",
        };
        let shown = if name.contains("MiB") {
            format!("{} MiB", fmt(value, 1))
        } else {
            fmt_x(value)
        };
        let _ = writeln!(out, "| {name} | {shown} | {verdict} |");
    }
    out
}

/// RSS along many calls.
pub fn rss_table(runs: &[RssRun]) -> String {
    let mut out = String::new();
    let Some(first) = runs.first() else {
        return out;
    };
    let _ = writeln!(
        out,
        "Host VmRSS (MiB) sampled along {} sequential calls (same CPU):\n",
        first.calls
    );
    let marks: Vec<u64> = first.samples.iter().map(|(c, _)| *c).collect();
    let _ = write!(out, "| driver |");
    for c in &marks {
        let _ = write!(out, " {}k |", c / 1000);
    }
    let _ = writeln!(out, " peak | growth after the first sample |");
    let _ = writeln!(out, "|---|{}---:|---:|", "---:|".repeat(marks.len()));
    for r in runs {
        if let Some(e) = &r.error {
            let _ = writeln!(
                out,
                "| {} | failed: {} |",
                r.driver,
                e.lines().next().unwrap_or("")
            );
            continue;
        }
        let _ = write!(out, "| {} |", r.driver);
        for c in &marks {
            let v = r
                .samples
                .iter()
                .find(|(x, _)| x == c)
                .map(|(_, kib)| *kib as f64 / 1024.0);
            let _ = write!(out, " {} |", fmt(v, 1));
        }
        let growth = match (r.samples.first(), r.samples.last()) {
            (Some((_, a)), Some((_, b))) => Some((*b as f64 - *a as f64) / 1024.0),
            _ => None,
        };
        let _ = writeln!(
            out,
            " {} | {} MiB |",
            fmt(Some(r.peak_kib as f64 / 1024.0), 1),
            fmt(growth, 2)
        );
    }
    out
}

/// Concurrent sessions in one host.
pub fn scale_table(runs: &[ScaleRun]) -> String {
    let mut out = String::new();
    let Some(one) = runs.iter().find(|r| r.sessions == 1 && r.error.is_none()) else {
        let _ = writeln!(out, "Scale: no successful single-session run.");
        return out;
    };
    let _ = writeln!(
        out,
        "claude-tools host, S concurrent sessions (each its own fake CLI process, {} sequential calls each) sharing one `ToolServer`; unpinned:\n",
        one.calls_per_session
    );
    let _ = writeln!(
        out,
        "| sessions | aggregate calls/s | median session p50 µs | host peak RSS MiB | per extra session KiB | wall ms |"
    );
    let _ = writeln!(out, "|---:|---:|---:|---:|---:|---:|");
    for r in runs {
        if let Some(e) = &r.error {
            let _ = writeln!(
                out,
                "| {} | failed: {} |",
                r.sessions,
                e.lines().next().unwrap_or("")
            );
            continue;
        }
        let per = (r.sessions > 1)
            .then(|| (r.host_peak_kib as f64 - one.host_peak_kib as f64) / (r.sessions - 1) as f64);
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} | {} |",
            r.sessions,
            fmt(Some(r.aggregate_calls_per_s), 0),
            fmt(Some(r.p50_us), 1),
            fmt(Some(r.host_peak_kib as f64 / 1024.0), 1),
            fmt(per, 0),
            fmt(Some(r.wall_ms), 0)
        );
    }
    out
}

/// The soak: one session, its phases, and the host's RSS before, along and after.
pub fn soak_table(run: &SoakRun) -> String {
    let mut out = String::new();
    let mib = |kib: u64| Some(kib as f64 / 1024.0);
    let _ = writeln!(
        out,
        "Date: {}. Machine: {}.\nRevision: {}.\nCommand: `bench/run soak --n {} --rounds {} --conc-n {} --k {}`.\n",
        run.date, run.machine, run.revision, run.seq_calls, run.rounds, run.calls_per_round, run.k
    );
    let Some(stats) = run.stats.as_ref().filter(|_| run.error.is_none()) else {
        let error = run.error.as_deref().unwrap_or("no statistics");
        let _ = writeln!(out, "Failed: {}", error.lines().next().unwrap_or(""));
        return out;
    };
    let _ = writeln!(
        out,
        "One claude-tools session (one process, one `query`, unpinned) serving the fake CLI: {} \
         sequential calls, then {} rounds of {} calls with {} in flight. The fake CLI checks every \
         answer (control `request_id`, JSON-RPC id, `isError`, the sum) and stops at the first \
         wrong one.\n",
        fmt(Some(run.seq_calls as f64), 0),
        run.rounds,
        fmt(Some(run.calls_per_round as f64), 0),
        run.k
    );
    let _ = writeln!(
        out,
        "| phase | calls | in flight | calls/s | p50 µs | p99 µs | max µs | host VmRSS after, MiB |"
    );
    let _ = writeln!(out, "|---|---:|---:|---:|---:|---:|---:|---:|");
    let _ = writeln!(
        out,
        "| before the first call | | | | | | | {} |",
        fmt(mib(stats.host_rss_start_kib), 1)
    );
    let seq_rss_after = stats.rss_samples.last().map(|(_, kib)| *kib);
    let rows = std::iter::once(("sequential".to_string(), &stats.seq, seq_rss_after)).chain(
        stats.conc_rounds.iter().enumerate().map(|(i, round)| {
            (
                format!("round {}", i + 1),
                &round.phase,
                Some(round.host_rss_kib),
            )
        }),
    );
    for (name, phase, rss) in rows {
        let _ = writeln!(
            out,
            "| {name} | {} | {} | {} | {} | {} | {} | {} |",
            fmt(Some(phase.calls as f64), 0),
            phase.in_flight,
            fmt(Some(phase.calls_per_s), 0),
            fmt(Some(phase.p50_ns as f64 / 1e3), 1),
            fmt(Some(phase.p99_ns as f64 / 1e3), 1),
            fmt(Some(phase.max_ns as f64 / 1e3), 0),
            fmt(rss.and_then(mib), 1)
        );
    }
    let calls = stats.seq.calls + stats.conc.calls;
    let _ = writeln!(
        out,
        "\nAnswers checked: {}; wrong answers or errors: 0. Host VmRSS before the first call {} MiB, \
         after the last {} MiB ({:+.2} MiB), peak (VmHWM) {} MiB. Wall time {} s.\n",
        fmt(Some(calls as f64), 0),
        fmt(mib(stats.host_rss_start_kib), 1),
        fmt(mib(stats.host_rss_kib), 1),
        (stats.host_rss_kib as f64 - stats.host_rss_start_kib as f64) / 1024.0,
        fmt(mib(stats.host_peak_rss_kib), 1),
        fmt(Some(run.wall_ms / 1e3), 1)
    );
    if !stats.rss_samples.is_empty() {
        let along: Vec<String> = stats
            .rss_samples
            .iter()
            .map(|(call, kib)| format!("{}: {}", fmt(Some(*call as f64), 0), fmt(mib(*kib), 1)))
            .collect();
        let _ = writeln!(
            out,
            "Host VmRSS (MiB) along the sequential calls: {}.",
            along.join(", ")
        );
    }
    out
}

const HEADER: &str = "# Benchmarks

Per-call overhead of in-process tools (issue 5): claude-tools against the official Python
(`claude-agent-sdk`) and TypeScript (`@anthropic-ai/claude-agent-sdk`) SDKs, a hand-written Rust
host with no framework (**floor**: read a line, parse it once, answer, one `write`) and a raw pipe
ping-pong with no JSON (**pingpong**: the OS floor).

Every driver serves the same `add(a, b)` tool to the same fast fake Claude Code CLI
(`bench/src/bin/fake_cli.rs`), which does the real handshake (`initialize`, MCP `initialize`,
`notifications/initialized`, `tools/list` over `mcp_message`), then times N sequential
`tools/call` round trips and N more with K in flight, checking every answer (control
`request_id`, JSON-RPC id, `isError`, the sum). The driver's CPU time is read from
`/proc/<pid>/task/*/schedstat` over each phase, its peak RSS from `VmHWM`. Startup is the wall
time of a whole driver process (spawn to exit) with N = 0. Ratios are taken inside each round
(driver and floor measured back to back) and their median is shown; medians of raw figures
move with the machine's load, the ratios much less.

The real CLI also streams `assistant`/`user` frames around each call and waits for the model; the
fake CLI sends nothing but the round trips, so the figures are the host's own overhead. The
TypeScript SDK speeds up as V8 optimises its code (over 2,000 calls its p50 was ~55 µs, over
10,000 ~31 µs on one VM), and it moves between VMs of the same kind far more than the Rust
drivers do: its p50 over 10,000 calls has measured from ~31 µs to ~100 µs while the floor moved
from 7.3 µs to 10.1 µs. Compare ratios from one run, never figures from different machines.
Python runs fewer calls per phase (`--py-n`) because each takes ~1 ms.

The **same CPU** placement is the one the targets refer to: on this kind of 2-core VM a
cross-CPU wake-up costs ~40 µs, so the split placement measures the scheduler more than the host.
Run it on an otherwise idle machine: a build or test run alongside moves every figure.
";

/// Rewrites `BENCHMARKS.md` from the latest results of every kind.
pub fn write_benchmarks_md(paths: &Paths) -> Result<(), String> {
    let mut out = String::from(HEADER);
    let matrix: Option<Matrix> = runs::load(paths, "matrix");
    let rss: Option<Vec<RssRun>> = runs::load(paths, "rss");
    let scale: Option<Vec<ScaleRun>> = runs::load(paths, "scale");
    let compile: Option<CompileResult> = runs::load(paths, "compile");
    let soak: Option<SoakRun> = runs::load(paths, "soak");
    let http: Option<HttpBench> = runs::load(paths, "http");
    let _ = writeln!(
        out,
        "\n## How to run\n\n```sh\nbench/run            # the matrix below: every driver, interleaved rounds, both placements\nbench/run all        # plus RSS over 100k calls, multi-session scale and macro compile cost\nbench/run run --rounds 3 --drivers floor,claude-tools --placements same   # a subset\nbench/run soak       # on demand: one session through 1,000,000 calls, then 10 × 10,000 with 100 in flight\nbench/run http       # on demand: tools/call over MCP Streamable HTTP against rmcp and the TypeScript SDK\n```\n"
    );
    let _ = writeln!(
        out,
        "`bench/run` builds the bench in release mode, installs the pinned SDKs into git-ignored folders \
         (`bench/.venv`: claude-agent-sdk 0.2.187; `bench/node_modules`: @anthropic-ai/claude-agent-sdk 0.3.330, zod 4.6.7, \
         and for the HTTP bench @modelcontextprotocol/sdk 1.32.2) \
         and runs `ct-bench` with the arguments given. Results are kept in `bench/results/` (git-ignored) and this file is rewritten \
         from them (`bench/run http` replaces only its own section).\n"
    );
    match &matrix {
        Some(m) => {
            let _ = writeln!(
                out,
                "## Per-call overhead\n\nDate: {}. Machine: {}.\nRevision: {}.\nCommand: `bench/run run --rounds {} --n {} --py-n {} --k {} --placements {}`.\n",
                m.date,
                m.machine,
                if m.revision.is_empty() {
                    "not recorded"
                } else {
                    &m.revision
                },
                m.rounds,
                m.n,
                m.py_n,
                m.k,
                m.placements.join(",")
            );
            out.push_str(&matrix_tables(m));
        }
        None => out.push_str("## Per-call overhead\n\nNot run yet.\n"),
    }
    if let Some(r) = &rss {
        let _ = writeln!(
            out,
            "\n## Memory over many calls\n\nCommand: `bench/run rss`.\n"
        );
        out.push_str(&rss_table(r));
    }
    if let Some(s) = &scale {
        let _ = writeln!(
            out,
            "\n## Sessions in one host\n\nCommand: `bench/run scale`.\n"
        );
        out.push_str(&scale_table(s));
    }
    if let Some(soak) = &soak {
        let _ = writeln!(out, "\n## Soak: one session, many calls\n");
        out.push_str(&soak_table(soak));
    }
    if let Some(h) = &http {
        out.push_str(&http_section(h));
    }
    if let Some(c) = &compile {
        let _ = writeln!(
            out,
            "\n## Compile cost of the macros\n\nCommand: `bench/run compile`.\n"
        );
        out.push_str(&crate::compile::table(c));
    }
    std::fs::write(&paths.report, out).map_err(|e| format!("{}: {e}", paths.report.display()))
}

/// The heading of the Streamable HTTP section.
const HTTP_HEADING: &str = "## Remote MCP over Streamable HTTP";

/// `ct-bench http`'s report: only the Streamable HTTP section of `BENCHMARKS.md` is replaced
/// (or inserted before the compile cost, or appended), so sections written by hand and the
/// other kinds' figures stay as they are. Without a report yet, the whole report is written.
pub fn write_http_section(paths: &Paths) -> Result<(), String> {
    let Some(h) = runs::load::<HttpBench>(paths, "http") else {
        return Ok(());
    };
    let Ok(doc) = std::fs::read_to_string(&paths.report) else {
        return write_benchmarks_md(paths);
    };
    let updated = splice_section(&doc, HTTP_HEADING, &http_section(&h));
    std::fs::write(&paths.report, updated).map_err(|e| format!("{}: {e}", paths.report.display()))
}

/// `doc` with the level-2 section titled `heading` replaced by `section` (itself starting
/// with that heading); without one, `section` goes before the compile cost section, or last.
fn splice_section(doc: &str, heading: &str, section: &str) -> String {
    let section = section.trim();
    let line_start = |pos: usize| pos == 0 || doc.as_bytes()[pos - 1] == b'\n';
    let found = doc
        .match_indices(heading)
        .map(|(i, _)| i)
        .find(|&i| line_start(i) && doc[i + heading.len()..].starts_with('\n'));
    let (before, after) = match found {
        Some(start) => {
            let body = start + heading.len();
            let end = doc[body..].find("\n## ").map(|i| body + i + 1);
            (&doc[..start], end.map(|end| &doc[end..]))
        }
        None => match doc.find("\n## Compile cost of the macros\n") {
            Some(i) => (&doc[..i + 1], Some(&doc[i + 1..])),
            None => (doc, None),
        },
    };
    let mut out = before.trim_end().to_string();
    out.push_str("\n\n");
    out.push_str(section);
    out.push('\n');
    if let Some(after) = after {
        out.push('\n');
        out.push_str(after);
    }
    out
}

/// The Streamable HTTP section: what is measured and how, then the tables of the latest run.
pub fn http_section(h: &HttpBench) -> String {
    let mut out = String::new();
    let command = format!(
        "bench/run http --rounds {} --n {} --ts-n {} --warmup {} --conc {} --drivers {} --placements {}",
        h.rounds,
        h.requests,
        h.ts_requests,
        h.warmup,
        h.concurrency
            .iter()
            .map(u64::to_string)
            .collect::<Vec<_>>()
            .join(","),
        h.servers.join(","),
        h.placements.join(",")
    );
    let _ = writeln!(
        out,
        "\n{HTTP_HEADING}\n\n\
         `tools/call` of the same `add(a, b)` (integer terms, the sum as text) over MCP Streamable \
         HTTP, stateless, against three servers: **claude-tools** (`ct-bench-http-claude-tools`: \
         `claude_tools::mcp::http` with its defaults), **rmcp** (`ct-bench-http-rmcp`: rmcp's \
         `StreamableHttpService` on axum, `legacy_session_mode` off, `json_response` on) and \
         **typescript** (`bench/drivers/http_ts_server.mjs`: the official SDK's \
         `StreamableHTTPServerTransport` with `sessionIdGenerator: undefined` and \
         `enableJsonResponse: true`, a fresh server and transport per request on \
         `createMcpExpressApp()`, as the SDK's stateless example does). Each is started fresh \
         per round as a child process on a free 127.0.0.1 port and gets a client's handshake \
         (`initialize`, `notifications/initialized`, `tools/list`: no session id may be issued, \
         `add` must be listed with integer `a` and `b`). The load generator is one Rust thread \
         (a current-thread tokio runtime driving C keep-alive HTTP/1.1 connections, each with \
         one call in flight) that checks every answer (status, JSON-RPC id, `isError`, the sum); \
         a wrong answer fails the run. Latency is from the request's write to the end of its \
         response.\n\n\
         The machine has 2 cores, so the load generator and the server share them. Two \
         placements: `split` (`taskset -c 0` for the server, the load generator pinned to CPU \
         1) keeps them from competing for one core and gives each server exactly one core (the \
         Rust servers' tokio runtimes then run one worker, like node's one thread); `none` pins \
         nothing (the Rust servers run two workers). On an idle machine `split` is the cleaner \
         measure; with other work on the machine (see the load average below) a pinned server \
         cannot leave a busy core, and its p99 then measures the other work's time slices, so \
         `none` is steadier there. The load generator's own CPU per call is shown: it stays a \
         fraction of the time per call (its one thread keeps well under one core busy), so it \
         is not what limits throughput. Only in-round ratios compare well across runs.\n\n\
         Date: {}. Machine: {}; 1-minute load average {:.1} at the start, {:.1} at the end.\n\
         Revision: {}. Compared: {}.\nCommand: `{command}`.\n",
        h.date,
        h.machine,
        h.load_average.0,
        h.load_average.1,
        if h.revision.is_empty() {
            "not recorded"
        } else {
            &h.revision
        },
        if h.versions.is_empty() {
            "not recorded".to_string()
        } else {
            h.versions.join(", ")
        }
    );
    out.push_str(&crate::http::tables(h));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use claude_tools_bench::stats::{Phase, RunStats};

    fn sample(driver: &str, round: usize, p50_us: u64) -> Sample {
        Sample {
            driver: driver.into(),
            placement: "same".into(),
            round,
            stats: Some(RunStats {
                seq: Phase {
                    p50_ns: p50_us * 1000,
                    calls: 10,
                    host_cpu_ns: p50_us * 10_000,
                    ..Phase::default()
                },
                ..RunStats::default()
            }),
            startup_ms: Some(1.0),
            error: None,
        }
    }

    #[test]
    fn ratios_are_taken_inside_rounds() {
        let m = Matrix {
            date: String::new(),
            machine: String::new(),
            revision: String::new(),
            rounds: 3,
            n: 10,
            py_n: 10,
            k: 32,
            drivers: vec!["floor".into(), "claude-tools".into()],
            placements: vec!["same".into()],
            samples: vec![
                sample("floor", 0, 10),
                sample("claude-tools", 0, 12),
                sample("floor", 1, 20),
                sample("claude-tools", 1, 30),
                sample("floor", 2, 10),
                sample("claude-tools", 2, 11),
            ],
        };
        assert_eq!(ratio(&m, "claude-tools", "floor", "same", "p50"), Some(1.2));
        assert_eq!(med(&m, "claude-tools", "same", "p50"), Some(12.0));
        assert_eq!(ratio(&m, "claude-tools", "floor", "same", "cpu"), Some(1.2));
        let text = matrix_tables(&m);
        assert!(text.contains("| claude-tools | 1.20× |"), "{text}");
        assert!(
            text.contains("seq p50 ≤ 1.5× the floor | 1.20× | met"),
            "{text}"
        );
    }

    #[test]
    fn the_http_section_is_replaced_in_place_or_inserted() {
        let section = "## Remote MCP over Streamable HTTP\n\nnew figures\n";
        let doc = "# B\n\n## Hand-written\n\nkeep\n\n## Remote MCP over Streamable HTTP\n\nold\n\n## Compile cost of the macros\n\nc\n";
        assert_eq!(
            splice_section(doc, HTTP_HEADING, section),
            "# B\n\n## Hand-written\n\nkeep\n\n## Remote MCP over Streamable HTTP\n\nnew figures\n\n## Compile cost of the macros\n\nc\n"
        );
        let last = "# B\n\n## Remote MCP over Streamable HTTP\n\nold\n";
        assert_eq!(
            splice_section(last, HTTP_HEADING, section),
            "# B\n\n## Remote MCP over Streamable HTTP\n\nnew figures\n"
        );
        let without = "# B\n\n## Soak\n\ns\n\n## Compile cost of the macros\n\nc\n";
        assert_eq!(
            splice_section(without, HTTP_HEADING, section),
            "# B\n\n## Soak\n\ns\n\n## Remote MCP over Streamable HTTP\n\nnew figures\n\n## Compile cost of the macros\n\nc\n"
        );
        assert_eq!(
            splice_section("# B\n", HTTP_HEADING, section),
            "# B\n\n## Remote MCP over Streamable HTTP\n\nnew figures\n"
        );
    }

    #[test]
    fn numbers_format() {
        assert_eq!(fmt(Some(123_456.7), 0), "123,457");
        assert_eq!(fmt(Some(12.345), 1), "12.3");
        assert_eq!(fmt(None, 1), "–");
        assert_eq!(fmt_x(Some(87.2)), "87×");
        assert_eq!(fmt_x(Some(1.234)), "1.23×");
    }
}
