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

/// The title and introduction: the part of the report before its first level-2 heading.
const PREAMBLE: &str = "";
/// The heading of the section on running the benchmarks.
const HOW_TO_RUN_HEADING: &str = "## How to run";
/// The heading of the in-process matrix's section.
const MATRIX_HEADING: &str = "## Per-call overhead";
/// The heading of the section on RSS over many calls.
const RSS_HEADING: &str = "## Memory over many calls";
/// The heading of the multi-session section.
const SCALE_HEADING: &str = "## Sessions in one host";
/// The heading of the soak's section.
const SOAK_HEADING: &str = "## Soak: one session, many calls";
/// The heading of the Streamable HTTP section.
const HTTP_HEADING: &str = "## Remote MCP over Streamable HTTP";
/// The heading of the macros' compile cost section.
const COMPILE_HEADING: &str = "## Compile cost of the macros";

/// Every level-2 section `ct-bench` writes, in the report's order.
const GENERATED_ORDER: [&str; 7] = [
    HOW_TO_RUN_HEADING,
    MATRIX_HEADING,
    RSS_HEADING,
    SCALE_HEADING,
    SOAK_HEADING,
    HTTP_HEADING,
    COMPILE_HEADING,
];

/// A kind of result: the file it is kept in and the section of `BENCHMARKS.md` it fills.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// `ct-bench run`: the in-process matrix.
    Matrix,
    /// `ct-bench rss`: RSS over many calls.
    Rss,
    /// `ct-bench scale`: sessions in one host.
    Scale,
    /// `ct-bench soak`: one session, many calls.
    Soak,
    /// `ct-bench http`: tools/call over Streamable HTTP.
    Http,
    /// `ct-bench compile`: the macros' compile cost.
    Compile,
}

impl Kind {
    /// Every kind, in the report's order.
    pub const ALL: [Kind; 6] = [
        Kind::Matrix,
        Kind::Rss,
        Kind::Scale,
        Kind::Soak,
        Kind::Http,
        Kind::Compile,
    ];

    /// The heading of the kind's section.
    fn heading(self) -> &'static str {
        match self {
            Kind::Matrix => MATRIX_HEADING,
            Kind::Rss => RSS_HEADING,
            Kind::Scale => SCALE_HEADING,
            Kind::Soak => SOAK_HEADING,
            Kind::Http => HTTP_HEADING,
            Kind::Compile => COMPILE_HEADING,
        }
    }
}

/// The latest results of every kind (`None`: that kind has not run, or its file is unreadable).
#[derive(Debug, Default)]
struct Results {
    matrix: Option<Matrix>,
    rss: Option<Vec<RssRun>>,
    scale: Option<Vec<ScaleRun>>,
    soak: Option<SoakRun>,
    http: Option<HttpBench>,
    compile: Option<CompileResult>,
}

impl Results {
    fn load(paths: &Paths) -> Results {
        Results {
            matrix: runs::load(paths, "matrix"),
            rss: runs::load(paths, "rss"),
            scale: runs::load(paths, "scale"),
            soak: runs::load(paths, "soak"),
            http: runs::load(paths, "http"),
            compile: runs::load(paths, "compile"),
        }
    }

    fn has(&self, kind: Kind) -> bool {
        match kind {
            Kind::Matrix => self.matrix.is_some(),
            Kind::Rss => self.rss.is_some(),
            Kind::Scale => self.scale.is_some(),
            Kind::Soak => self.soak.is_some(),
            Kind::Http => self.http.is_some(),
            Kind::Compile => self.compile.is_some(),
        }
    }
}

/// Updates `BENCHMARKS.md` after a command that measured `kinds`: its title and introduction,
/// "How to run" and the sections of those of `kinds` that have results are rewritten in place
/// (or inserted where the whole report has them); every other section, such as those written
/// by hand, stays as it is, in its place. Without a report yet, the whole report is written.
pub fn update_benchmarks_md(paths: &Paths, kinds: &[Kind]) -> Result<(), String> {
    let results = Results::load(paths);
    let report = render(&results);
    let updated = match std::fs::read_to_string(&paths.report) {
        Ok(doc) => {
            let headings = rewritten_headings(&results, kinds);
            splice_sections(&doc, &report, &headings)
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => report,
        // Rewriting a report that could not be read would lose its hand-written sections.
        Err(e) => return Err(format!("{}: {e}", paths.report.display())),
    };
    std::fs::write(&paths.report, updated).map_err(|e| format!("{}: {e}", paths.report.display()))
}

/// The parts a command that measured `kinds` rewrites: the introduction, "How to run", and the
/// sections of those kinds with results (a kind without results keeps what the report says).
fn rewritten_headings(results: &Results, kinds: &[Kind]) -> Vec<&'static str> {
    let measured = kinds
        .iter()
        .filter(|k| results.has(**k))
        .map(|k| k.heading());
    [PREAMBLE, HOW_TO_RUN_HEADING]
        .into_iter()
        .chain(measured)
        .collect()
}

/// The whole report from `results`.
fn render(results: &Results) -> String {
    let mut out = String::from(HEADER);
    let _ = writeln!(
        out,
        "\n{HOW_TO_RUN_HEADING}\n\n```sh\nbench/run            # the matrix below: every driver, interleaved rounds, both placements\nbench/run all        # plus RSS over 100k calls, multi-session scale and macro compile cost\nbench/run run --rounds 3 --drivers floor,claude-tools --placements same   # a subset\nbench/run soak       # on demand: one session through 1,000,000 calls, then 10 × 10,000 with 100 in flight\nbench/run http       # on demand: tools/call over MCP Streamable HTTP against rmcp and the TypeScript SDK\n```\n"
    );
    let _ = writeln!(
        out,
        "`bench/run` builds the bench in release mode, installs the pinned SDKs into git-ignored folders \
         (`bench/.venv`: claude-agent-sdk 0.2.189; `bench/node_modules`: @anthropic-ai/claude-agent-sdk 0.3.332, zod 4.6.7, \
         and for the HTTP bench @modelcontextprotocol/sdk 1.32.2) \
         and runs `ct-bench` with the arguments given. Results are kept in `bench/results/` (git-ignored). \
         Each command then rewrites, in this file, the introduction, this section and the sections of what it \
         measured (`bench/run report`: of every kind with results), and leaves every other section, such as \
         those written by hand, as it is.\n"
    );
    match &results.matrix {
        Some(m) => {
            let _ = writeln!(
                out,
                "{MATRIX_HEADING}\n\nDate: {}. Machine: {}.\nRevision: {}.\nCommand: `bench/run run --rounds {} --n {} --py-n {} --k {} --placements {}`.\n",
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
        None => {
            let _ = write!(out, "{MATRIX_HEADING}\n\nNot run yet.\n");
        }
    }
    if let Some(r) = &results.rss {
        let _ = writeln!(out, "\n{RSS_HEADING}\n\nCommand: `bench/run rss`.\n");
        out.push_str(&rss_table(r));
    }
    if let Some(s) = &results.scale {
        let _ = writeln!(out, "\n{SCALE_HEADING}\n\nCommand: `bench/run scale`.\n");
        out.push_str(&scale_table(s));
    }
    if let Some(soak) = &results.soak {
        let _ = writeln!(out, "\n{SOAK_HEADING}\n");
        out.push_str(&soak_table(soak));
    }
    if let Some(h) = &results.http {
        out.push_str(&http_section(h));
    }
    if let Some(c) = &results.compile {
        let _ = writeln!(
            out,
            "\n{COMPILE_HEADING}\n\nCommand: `bench/run compile`.\n"
        );
        out.push_str(&crate::compile::table(c));
    }
    out
}

/// A part of a Markdown document: the text before its first level-2 heading (`heading` is
/// [`PREAMBLE`]), or a level-2 section from its heading line up to the next level-2 heading
/// (the blank lines before that heading included).
#[derive(Debug, Clone, Copy)]
struct Part<'a> {
    heading: &'a str,
    text: &'a str,
}

/// `doc` cut into its parts; the first is the preamble (empty when `doc` starts with a section).
/// Lines inside ```` ``` ```` fences are not headings (a shell comment may start with `## `).
fn parts(doc: &str) -> Vec<Part<'_>> {
    let mut starts = vec![0];
    let mut in_fence = false;
    let mut at = 0;
    for line in doc.split_inclusive('\n') {
        if line.starts_with("```") {
            in_fence = !in_fence;
        } else if !in_fence && line.starts_with("## ") {
            starts.push(at);
        }
        at += line.len();
    }
    starts.push(doc.len());
    starts
        .windows(2)
        .enumerate()
        .map(|(i, w)| {
            let text = &doc[w[0]..w[1]];
            let heading = if i == 0 {
                PREAMBLE
            } else {
                text.lines().next().unwrap_or_default().trim_end()
            };
            Part { heading, text }
        })
        .collect()
}

/// A part of the updated document, and whether it came from the report followed by more.
struct Placed<'a> {
    part: Part<'a>,
    followed_in_report: bool,
}

/// `doc` with the parts of `report` titled by `headings` ([`PREAMBLE`] for the text before the
/// first section) put in place of `doc`'s parts of the same titles, every other part of `doc`
/// kept byte for byte and in its order. A section `doc` lacks goes before the first section
/// that follows it in the report's order and that `doc` has, or last. Sections are kept apart
/// by a blank line; the document ends as the report's last section does.
fn splice_sections(doc: &str, report: &str, headings: &[&str]) -> String {
    let generated = parts(report);
    let mut placed: Vec<Placed> = parts(doc)
        .into_iter()
        .map(|part| Placed {
            part,
            followed_in_report: false,
        })
        .collect();
    for (i, &part) in generated.iter().enumerate() {
        if !headings.contains(&part.heading) {
            continue;
        }
        let new = Placed {
            part,
            followed_in_report: i + 1 < generated.len(),
        };
        match placed.iter().position(|p| p.part.heading == part.heading) {
            Some(at) => placed[at] = new,
            None => {
                let at = insertion_point(&placed, part.heading);
                placed.insert(at, new);
            }
        }
    }
    join(&placed)
}

/// Where a section missing from the document goes: before the first section after it in the
/// report's order that the document has, or last.
fn insertion_point(placed: &[Placed], heading: &str) -> usize {
    GENERATED_ORDER
        .iter()
        .skip_while(|h| **h != heading)
        .skip(1)
        .find_map(|next| placed.iter().position(|p| p.part.heading == *next))
        .unwrap_or(placed.len())
}

/// The parts one after the other, each but the last ending with a blank line (only added, so
/// a part's own spacing is kept byte for byte).
fn join(placed: &[Placed]) -> String {
    let mut out = String::new();
    for (i, p) in placed.iter().enumerate() {
        let last = i + 1 == placed.len();
        if last && p.followed_in_report {
            // It ended with the blank line before the report's next section.
            out.push_str(p.part.text.trim_end());
            out.push('\n');
        } else {
            out.push_str(p.part.text);
        }
        if !last && !out.is_empty() {
            while !out.ends_with("\n\n") {
                out.push('\n');
            }
        }
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
         Beside them, **floor** (`ct-bench-http-floor`) is a floor, not a competitor: a bare \
         axum handler doing the same JSON-RPC add without MCP logic (served by `axum::serve` on \
         the same tokio runtime; it reads the body, parses it with serde into a small typed \
         struct and answers the same bytes as claude-tools and rmcp; no header checks, sessions, \
         tool registry or schemas, and minimal answers to the handshake). It is what any server \
         doing this JSON-RPC over HTTP on axum must pay; what claude-tools and rmcp spend above \
         it goes to their MCP logic and their transport's own work. claude-tools' ratios to it \
         are in the last table, with no verdict.\n\n\
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

    /// Results of every kind; `figure` changes every section's text.
    fn results(figure: u64) -> Results {
        let date = format!("day {figure}");
        Results {
            matrix: Some(Matrix {
                date: date.clone(),
                machine: "m".into(),
                revision: "abc".into(),
                rounds: 1,
                n: 10,
                py_n: 10,
                k: 32,
                drivers: vec!["floor".into(), "claude-tools".into()],
                placements: vec!["same".into()],
                samples: vec![sample("floor", 0, 10), sample("claude-tools", 0, figure)],
            }),
            rss: Some(vec![RssRun {
                driver: "claude-tools".into(),
                calls: 100,
                samples: vec![(10, 2048), (100, 2048 + figure)],
                peak_kib: 4096,
                error: None,
            }]),
            scale: Some(vec![ScaleRun {
                sessions: 1,
                calls_per_session: 100,
                aggregate_calls_per_s: figure as f64,
                host_peak_kib: 4096,
                p50_us: 12.0,
                wall_ms: 50.0,
                error: None,
            }]),
            soak: Some(SoakRun {
                date: date.clone(),
                machine: "m".into(),
                revision: "abc".into(),
                seq_calls: 10,
                rounds: 1,
                calls_per_round: 10,
                k: 2,
                stats: None,
                wall_ms: 1.0,
                error: Some("boom".into()),
            }),
            http: Some(HttpBench {
                date: date.clone(),
                machine: "m".into(),
                revision: "abc".into(),
                load_average: (0.1, 0.2),
                versions: vec![],
                rounds: 1,
                requests: 10,
                ts_requests: 5,
                warmup: 1,
                concurrency: vec![1],
                servers: vec!["claude-tools".into()],
                placements: vec!["split".into()],
                samples: vec![],
            }),
            compile: Some(CompileResult {
                date,
                rmcp_version: "1.0.0".into(),
                ..CompileResult::default()
            }),
        }
    }

    /// The text of the part of `report` titled `heading`.
    fn part<'a>(report: &'a str, heading: &str) -> &'a str {
        parts(report)
            .into_iter()
            .find(|p| p.heading == heading)
            .map(|p| p.text)
            .unwrap_or_else(|| panic!("no {heading:?} in the report"))
    }

    fn all_headings(results: &Results) -> Vec<&'static str> {
        rewritten_headings(results, &Kind::ALL)
    }

    /// The value of `NAME="…"` in bench/install-sdks.sh.
    fn pinned(name: &str) -> &'static str {
        let script = include_str!("../install-sdks.sh");
        let prefix = format!("{name}=\"");
        script
            .lines()
            .find_map(|line| line.strip_prefix(prefix.as_str())?.strip_suffix('"'))
            .unwrap_or_else(|| panic!("install-sdks.sh pins no {name}"))
    }

    #[test]
    fn the_report_names_the_versions_install_sdks_pins() {
        let report = render(&results(1));
        for named in [
            format!("claude-agent-sdk {}", pinned("PY_SDK_VERSION")),
            format!(
                "@anthropic-ai/claude-agent-sdk {}",
                pinned("TS_SDK_VERSION")
            ),
            format!("zod {}", pinned("ZOD_VERSION")),
            format!("@modelcontextprotocol/sdk {}", pinned("MCP_TS_VERSION")),
        ] {
            assert!(report.contains(&named), "the report does not name {named}");
        }
    }

    #[test]
    fn the_report_has_every_generated_section_in_order() {
        let report = render(&results(1));
        let headings: Vec<&str> = parts(&report).iter().map(|p| p.heading).collect();
        let expected: Vec<&str> = std::iter::once(PREAMBLE).chain(GENERATED_ORDER).collect();
        assert_eq!(headings, expected);
        assert_eq!(part(&report, PREAMBLE), format!("{HEADER}\n"));
    }

    #[test]
    fn a_report_without_hand_sections_comes_out_as_the_whole_report_would() {
        let (old, new) = (render(&results(1)), render(&results(2)));
        assert_ne!(old, new);
        assert_eq!(splice_sections(&old, &new, &all_headings(&results(2))), new);
        assert_eq!(splice_sections(&new, &new, &all_headings(&results(2))), new);
        // Without the matrix, the whole report says "Not run yet."; rewriting keeps that.
        let no_matrix = Results {
            matrix: None,
            ..results(1)
        };
        let report = render(&no_matrix);
        assert!(report.contains("## Per-call overhead\n\nNot run yet.\n\n## Memory"));
        assert_eq!(
            splice_sections(&report, &report, &all_headings(&no_matrix)),
            report
        );
        // `rss` rewrites the RSS section (and the introduction): as a whole report with the
        // new RSS figures and the old others.
        let rss_only = Results {
            rss: results(2).rss,
            ..results(1)
        };
        assert_eq!(
            splice_sections(
                &old,
                &render(&results(2)),
                &rewritten_headings(&results(2), &[Kind::Rss])
            ),
            render(&rss_only)
        );
    }

    #[test]
    fn generated_sections_are_replaced_in_place_and_hand_sections_kept() {
        let old = render(&results(1));
        let g = |heading| part(&old, heading);
        let before = "## Before, by hand\n\nb\n\n";
        let between = "## Cost of declaration order\n\n```sh\n## not a heading\n```\n\n";
        let between_http = "## Streamable HTTP: where the time goes\n\nw\n\n\n";
        let after = "## After, by hand\n\nlast line without a newline";
        let doc = [
            g(PREAMBLE),
            before,
            g(HOW_TO_RUN_HEADING),
            g(MATRIX_HEADING),
            between,
            g(RSS_HEADING),
            g(SCALE_HEADING),
            g(SOAK_HEADING),
            g(HTTP_HEADING),
            between_http,
            g(COMPILE_HEADING),
            "\n",
            after,
        ]
        .concat();
        let new = render(&results(2));
        let n = |heading| part(&new, heading);
        let expected = [
            n(PREAMBLE),
            before,
            n(HOW_TO_RUN_HEADING),
            n(MATRIX_HEADING),
            between,
            n(RSS_HEADING),
            n(SCALE_HEADING),
            n(SOAK_HEADING),
            n(HTTP_HEADING),
            between_http,
            n(COMPILE_HEADING),
            "\n",
            after,
        ]
        .concat();
        assert_eq!(
            splice_sections(&doc, &new, &all_headings(&results(2))),
            expected
        );
        // `http`: its section only (with the introduction); the other figures stay old.
        let expected = [
            n(PREAMBLE),
            before,
            n(HOW_TO_RUN_HEADING),
            g(MATRIX_HEADING),
            between,
            g(RSS_HEADING),
            g(SCALE_HEADING),
            g(SOAK_HEADING),
            n(HTTP_HEADING),
            between_http,
            g(COMPILE_HEADING),
            "\n",
            after,
        ]
        .concat();
        assert_eq!(
            splice_sections(&doc, &new, &rewritten_headings(&results(2), &[Kind::Http])),
            expected
        );
    }

    #[test]
    fn a_kind_without_results_keeps_its_section() {
        let doc = render(&results(1));
        let no_matrix = Results {
            matrix: None,
            ..results(2)
        };
        let out = splice_sections(&doc, &render(&no_matrix), &all_headings(&no_matrix));
        assert_eq!(part(&out, MATRIX_HEADING), part(&doc, MATRIX_HEADING));
        assert_eq!(
            part(&out, RSS_HEADING),
            part(&render(&results(2)), RSS_HEADING)
        );
    }

    /// A small report with every generated section, for exact expectations.
    const REPORT: &str = "# T\n\nintro\n\n## How to run\n\nh\n\n## Per-call overhead\n\np\n\n\
        ## Memory over many calls\n\nm\n\n## Sessions in one host\n\ns\n\n\
        ## Soak: one session, many calls\n\nk\n\n## Remote MCP over Streamable HTTP\n\nnew\n\n\
        ## Compile cost of the macros\n\nc\n";

    #[test]
    fn a_missing_section_goes_where_the_whole_report_has_it() {
        let http = [PREAMBLE, HOW_TO_RUN_HEADING, HTTP_HEADING];
        // Before the next generated section the document has, after the hand sections before it.
        let doc = "# T\n\nold intro\n\n## How to run\n\nold\n\n## Soak: one session, many calls\n\nold\n\n\
                   ## By hand\n\nkeep\n\n## Compile cost of the macros\n\nold\n";
        assert_eq!(
            splice_sections(doc, REPORT, &http),
            "# T\n\nintro\n\n## How to run\n\nh\n\n## Soak: one session, many calls\n\nold\n\n\
             ## By hand\n\nkeep\n\n## Remote MCP over Streamable HTTP\n\nnew\n\n\
             ## Compile cost of the macros\n\nold\n"
        );
        // Nothing after it in the document: last, one blank line after the hand section, and
        // the document ends with one newline.
        let doc = "# T\n\n## Soak: one session, many calls\n\nold\n\n## By hand\n\nkeep";
        assert_eq!(
            splice_sections(doc, REPORT, &http),
            "# T\n\nintro\n\n## How to run\n\nh\n\n## Soak: one session, many calls\n\nold\n\n\
             ## By hand\n\nkeep\n\n## Remote MCP over Streamable HTTP\n\nnew\n"
        );
        // "How to run" missing: before the first generated section the document has.
        let doc = "# T\n\n## By hand\n\nkeep\n\n## Per-call overhead\n\nold\n";
        assert_eq!(
            splice_sections(doc, REPORT, &[PREAMBLE, HOW_TO_RUN_HEADING]),
            "# T\n\nintro\n\n## By hand\n\nkeep\n\n## How to run\n\nh\n\n## Per-call overhead\n\nold\n"
        );
    }

    #[test]
    fn an_empty_document_gets_the_introduction_and_the_measured_sections() {
        assert_eq!(
            splice_sections("", REPORT, &[PREAMBLE, HOW_TO_RUN_HEADING, RSS_HEADING]),
            "# T\n\nintro\n\n## How to run\n\nh\n\n## Memory over many calls\n\nm\n"
        );
        assert_eq!(
            splice_sections("", REPORT, &all_headings(&results(1))),
            REPORT
        );
        assert_eq!(splice_sections("", REPORT, &[]), "");
    }

    #[test]
    fn the_report_file_is_written_whole_only_when_missing() {
        let dir = std::env::temp_dir().join(format!("ct-bench-report-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let paths = Paths {
            bench: dir.clone(),
            root: dir.clone(),
            bin: dir.clone(),
            results: dir.join("results"),
            report: dir.join("BENCHMARKS.md"),
        };
        update_benchmarks_md(&paths, &Kind::ALL).unwrap();
        let whole = render(&Results::default());
        assert_eq!(std::fs::read_to_string(&paths.report).unwrap(), whole);
        // No results: the introduction and "How to run" are rewritten, the figures kept.
        let doc = "# Old\n\n## How to run\n\nold\n\n## Per-call overhead\n\nfigures\n\n## By hand\n\nkeep\n";
        std::fs::write(&paths.report, doc).unwrap();
        update_benchmarks_md(&paths, &Kind::ALL).unwrap();
        let expected = [
            part(&whole, PREAMBLE),
            part(&whole, HOW_TO_RUN_HEADING),
            "## Per-call overhead\n\nfigures\n\n## By hand\n\nkeep\n",
        ]
        .concat();
        assert_eq!(std::fs::read_to_string(&paths.report).unwrap(), expected);
        // A report that cannot be read is left alone.
        std::fs::remove_file(&paths.report).unwrap();
        std::fs::create_dir(&paths.report).unwrap();
        let err = update_benchmarks_md(&paths, &Kind::ALL).unwrap_err();
        assert!(
            err.starts_with(&paths.report.display().to_string()),
            "{err}"
        );
        assert!(paths.report.is_dir());
        std::fs::remove_dir_all(&dir).unwrap();
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
