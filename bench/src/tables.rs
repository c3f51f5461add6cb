//! The tables of the in-process results: medians and in-round ratios of the matrix, the targets
//! of issue 5, RSS over many calls, sessions in one host, and the soak.

use std::fmt::Write as _;

use claude_tools_bench::stats::median;

use crate::fmt::fmt;
use crate::results::{Matrix, RssRun, Sample, ScaleRun, SoakRun};

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

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use claude_tools_bench::stats::{Phase, RunStats};

    /// A matrix sample whose sequential p50 is `p50_us` (also used by the report's tests).
    pub(crate) fn sample(driver: &str, round: usize, p50_us: u64) -> Sample {
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
    fn numbers_format() {
        assert_eq!(fmt(Some(123_456.7), 0), "123,457");
        assert_eq!(fmt(Some(12.345), 1), "12.3");
        assert_eq!(fmt(None, 1), "–");
        assert_eq!(fmt_x(Some(87.2)), "87×");
        assert_eq!(fmt_x(Some(1.234)), "1.23×");
    }
}
