//! The results `ct-bench` keeps in `bench/results/<kind>.json`: the in-process matrix and the
//! RSS, scale and soak runs, and saving and loading them.

use claude_tools_bench::stats::RunStats;
use serde::{Deserialize, Serialize};

use crate::Paths;

/// One driver in one placement in one round of the matrix.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Sample {
    /// Driver name.
    pub driver: String,
    /// `same` or `split`.
    pub placement: String,
    /// Round number (0-based).
    pub round: usize,
    /// Statistics of the N-call run.
    pub stats: Option<RunStats>,
    /// Wall time of a run with N = 0 (whole process: spawn to exit), ms.
    pub startup_ms: Option<f64>,
    /// What went wrong, if anything.
    pub error: Option<String>,
}

/// The interleaved matrix.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Matrix {
    /// When it ran (UTC).
    pub date: String,
    /// The machine.
    pub machine: String,
    /// The repository's revision (and whether the library crates had uncommitted changes).
    #[serde(default)]
    pub revision: String,
    /// Rounds.
    pub rounds: usize,
    /// Calls per phase.
    pub n: u64,
    /// Calls per phase for Python.
    pub py_n: u64,
    /// K.
    pub k: u64,
    /// Driver names in table order.
    pub drivers: Vec<String>,
    /// Placements.
    pub placements: Vec<String>,
    /// Every sample.
    pub samples: Vec<Sample>,
}

/// `bench/results/<kind>.json`.
pub fn save<T: Serialize>(paths: &Paths, kind: &str, value: &T) -> Result<(), String> {
    let dir = &paths.results;
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let path = dir.join(format!("{kind}.json"));
    let text = serde_json::to_string_pretty(value).map_err(|e| e.to_string())?;
    std::fs::write(&path, text).map_err(|e| format!("{}: {e}", path.display()))
}

/// Loads `bench/results/<kind>.json`, if present and readable.
pub fn load<T: for<'de> Deserialize<'de>>(paths: &Paths, kind: &str) -> Option<T> {
    let text = std::fs::read_to_string(paths.results.join(format!("{kind}.json"))).ok()?;
    serde_json::from_str(&text).ok()
}

/// RSS of one driver along many calls.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct RssRun {
    /// Driver name.
    pub driver: String,
    /// Calls made.
    pub calls: u64,
    /// `(calls done, VmRSS KiB)`.
    pub samples: Vec<(u64, u64)>,
    /// VmHWM at the end, KiB.
    pub peak_kib: u64,
    /// What went wrong, if anything.
    pub error: Option<String>,
}

/// One session count of the scale run.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ScaleRun {
    /// Concurrent sessions.
    pub sessions: usize,
    /// Sequential calls per session.
    pub calls_per_session: u64,
    /// Aggregate calls per second over the span of all sessions' calls.
    pub aggregate_calls_per_s: f64,
    /// Host peak RSS, KiB.
    pub host_peak_kib: u64,
    /// Median of the sessions' sequential p50, µs.
    pub p50_us: f64,
    /// Whole process wall time, ms.
    pub wall_ms: f64,
    /// What went wrong, if anything.
    pub error: Option<String>,
}

/// The soak: one claude-tools session through many sequential calls, then rounds of calls with
/// many in flight, every answer checked by the fake CLI.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct SoakRun {
    /// When it ran (UTC).
    pub date: String,
    /// The machine.
    pub machine: String,
    /// The repository's revision.
    pub revision: String,
    /// Sequential calls.
    pub seq_calls: u64,
    /// Rounds of the concurrent phase.
    pub rounds: u64,
    /// Calls per round.
    pub calls_per_round: u64,
    /// Calls in flight in the rounds.
    pub k: u64,
    /// What the fake CLI measured (`None` when the run failed).
    pub stats: Option<RunStats>,
    /// Whole process wall time, ms.
    pub wall_ms: f64,
    /// What went wrong, if anything.
    pub error: Option<String>,
}
