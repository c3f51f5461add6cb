//! `ct-bench run` as one command, small: interleaved rounds in both placements, every sample
//! kept, and the report with its tables of medians, in-round ratios and the targets.
//! `CT_BENCH_OUT` keeps it away from the repository's results and `BENCHMARKS.md`.

use std::path::{Path, PathBuf};
use std::process::Command;

use claude_tools_bench::env;
use serde_json::Value;

/// Runs `ct-bench` with `args`, its output kept in a fresh directory named after `name` (and this
/// process) in the temp dir, which it returns; fails the test if the command fails.
fn ct_bench(name: &str, args: &[&str]) -> PathBuf {
    let out = std::env::temp_dir().join(format!("{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&out);
    let output = Command::new(env!("CARGO_BIN_EXE_ct-bench"))
        .args(args)
        .env(env::OUT, &out)
        .output()
        .expect("running ct-bench");
    assert!(
        output.status.success(),
        "ct-bench {} failed:\n{}",
        args[0],
        String::from_utf8_lossy(&output.stderr)
    );
    out
}

/// The JSON file at `file` under `out`.
fn read_json(out: &Path, file: &str) -> Value {
    let text = std::fs::read_to_string(out.join(file)).unwrap_or_else(|e| panic!("{file}: {e}"));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{file} is not JSON: {e}"))
}

#[test]
fn one_command_runs_interleaved_rounds_in_both_placements_and_writes_the_report() {
    let out = ct_bench(
        "ct-bench-harness",
        &[
            "run",
            "--rounds",
            "2",
            "--n",
            "40",
            "--k",
            "4",
            "--drivers",
            "pingpong,floor,claude-tools",
            "--placements",
            "same,split",
        ],
    );

    let matrix = read_json(&out, "results/matrix.json");
    let drivers = ["pingpong", "floor", "claude-tools"];
    let samples = matrix["samples"].as_array().expect("samples");
    assert_eq!(
        samples.len(),
        2 * 2 * drivers.len(),
        "rounds × placements × drivers"
    );
    for sample in samples {
        assert_eq!(sample["error"], Value::Null, "{sample}");
        assert_eq!(sample["stats"]["seq"]["calls"], 40, "{sample}");
        assert_eq!(sample["stats"]["conc"]["calls"], 40, "{sample}");
        let startup_measured = sample["startup_ms"].as_f64().is_some();
        assert_eq!(startup_measured, sample["driver"] != "pingpong", "{sample}");
    }
    // Interleaved: in each round and placement, the drivers run in turn, starting one further on.
    for (i, run) in samples.chunks(drivers.len()).enumerate() {
        let round = i / 2;
        let placement = if i % 2 == 0 { "same" } else { "split" };
        let order: Vec<&str> = run.iter().filter_map(|s| s["driver"].as_str()).collect();
        let expected: Vec<&str> = (0..drivers.len())
            .map(|d| drivers[(d + round) % drivers.len()])
            .collect();
        assert_eq!(order, expected, "round {round}, {placement}");
        assert!(
            run.iter()
                .all(|s| s["round"] == round && s["placement"] == placement)
        );
    }

    let report = std::fs::read_to_string(out.join("BENCHMARKS.md")).expect("the report");
    for heading in [
        "#### same CPU (`taskset -c 0` for the driver and the fake CLI) — medians over rounds",
        "#### same CPU (`taskset -c 0` for the driver and the fake CLI) — ratios taken inside each round (median)",
        "#### split (driver on CPU 0, fake CLI on CPU 1) — medians over rounds",
        "#### split (driver on CPU 0, fake CLI on CPU 1) — ratios taken inside each round (median)",
        "#### Targets of issue 5 (claude-tools, same CPU, in-round ratios)",
    ] {
        assert!(
            report.contains(heading),
            "{heading:?} missing from:\n{report}"
        );
    }
    for row in [
        "| pingpong |",
        "| floor |",
        "| claude-tools |",
        "| seq p50 ≤ 1.5× the floor |",
    ] {
        assert!(report.contains(row), "{row:?} missing from:\n{report}");
    }
    assert!(
        report.contains("Command: `bench/run run --rounds 2 --n 40"),
        "{report}"
    );
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn rss_and_scale_runs_write_their_tables() {
    let out = std::env::temp_dir().join(format!("ct-bench-harness-rs-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&out);
    for args in [
        &["rss", "--n", "500", "--drivers", "floor,claude-tools"][..],
        &["scale", "--sessions", "1,3", "--n", "50"][..],
    ] {
        let output = Command::new(env!("CARGO_BIN_EXE_ct-bench"))
            .args(args)
            .env(env::OUT, &out)
            .output()
            .expect("running ct-bench");
        assert!(
            output.status.success(),
            "ct-bench {args:?} failed:\n{}",
            String::from_utf8_lossy(&output.stderr)
        );
    }
    let report = std::fs::read_to_string(out.join("BENCHMARKS.md")).expect("the report");
    for expected in [
        "## Memory over many calls",
        "| floor |",
        "| claude-tools |",
        "## Sessions in one host",
        "| 1 |",
        "| 3 |",
    ] {
        assert!(
            report.contains(expected),
            "{expected:?} missing from:\n{report}"
        );
    }
    let rss = read_json(&out, "results/rss.json");
    let runs = rss.as_array().expect("one run per driver");
    assert_eq!(runs.len(), 2, "{rss}");
    for run in runs {
        assert_eq!(run["error"], Value::Null, "{run}");
        let sampled: Vec<u64> = run["samples"]
            .as_array()
            .expect("samples")
            .iter()
            .filter_map(|s| s[0].as_u64())
            .collect();
        let every_tenth: Vec<u64> = (1..=10).map(|i| i * 50).collect();
        assert_eq!(sampled, every_tenth, "RSS sampled along the calls: {run}");
    }
    let scale = read_json(&out, "results/scale.json");
    let sessions: Vec<u64> = scale
        .as_array()
        .expect("one run per session count")
        .iter()
        .inspect(|run| assert_eq!(run["error"], Value::Null, "{run}"))
        .filter_map(|run| run["sessions"].as_u64())
        .collect();
    assert_eq!(sessions, [1, 3], "{scale}");
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn soak_runs_one_session_through_every_phase_and_writes_its_section() {
    let out = ct_bench(
        "ct-bench-harness-soak",
        &[
            "soak", "--n", "300", "--rounds", "3", "--conc-n", "50", "--k", "8",
        ],
    );

    let soak = read_json(&out, "results/soak.json");
    assert_eq!(soak["error"], Value::Null, "{soak}");
    let stats = &soak["stats"];
    assert_eq!(
        (&stats["seq"]["calls"], &stats["seq"]["in_flight"]),
        (&Value::from(300), &Value::from(1)),
        "{soak}"
    );
    let rounds: Vec<(u64, u64)> = stats["conc_rounds"]
        .as_array()
        .expect("conc_rounds")
        .iter()
        .map(|r| {
            assert!(r["host_rss_kib"].as_u64() > Some(0), "{r}");
            (
                r["phase"]["calls"].as_u64().unwrap_or(0),
                r["phase"]["in_flight"].as_u64().unwrap_or(0),
            )
        })
        .collect();
    assert_eq!(rounds, [(50, 8), (50, 8), (50, 8)], "{soak}");
    assert_eq!(stats["conc"]["calls"], 150, "{soak}");
    let sampled: Vec<u64> = stats["rss_samples"]
        .as_array()
        .expect("rss_samples")
        .iter()
        .filter_map(|s| s[0].as_u64())
        .collect();
    assert_eq!(sampled, (1..=10).map(|i| i * 30).collect::<Vec<_>>());
    for field in ["host_rss_start_kib", "host_rss_kib", "host_peak_rss_kib"] {
        assert!(stats[field].as_u64() > Some(0), "{field}: {soak}");
    }

    let report = std::fs::read_to_string(out.join("BENCHMARKS.md")).expect("the report");
    for expected in [
        "## Soak: one session, many calls",
        "Command: `bench/run soak --n 300 --rounds 3 --conc-n 50 --k 8`.",
        "| before the first call |",
        "| sequential | 300 | 1 |",
        "| round 1 | 50 | 8 |",
        "| round 3 | 50 | 8 |",
        "Answers checked: 450; wrong answers or errors: 0.",
    ] {
        assert!(
            report.contains(expected),
            "{expected:?} missing from:\n{report}"
        );
    }
    let _ = std::fs::remove_dir_all(&out);
}
