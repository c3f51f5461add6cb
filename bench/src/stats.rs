//! Percentiles, medians and the statistics one fake-CLI run writes.

use serde::{Deserialize, Serialize};

/// Statistics of one phase of calls (sequential, or K in flight).
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct Phase {
    /// Calls made.
    pub calls: u64,
    /// Calls in flight at once.
    pub in_flight: u64,
    /// Wall time of the phase, ns.
    pub wall_ns: u64,
    /// Calls per second over the phase.
    pub calls_per_s: f64,
    /// Round-trip latency percentiles, ns.
    pub p50_ns: u64,
    /// 90th percentile, ns.
    pub p90_ns: u64,
    /// 99th percentile, ns.
    pub p99_ns: u64,
    /// 99.9th percentile, ns.
    pub p999_ns: u64,
    /// Largest round trip, ns.
    pub max_ns: u64,
    /// Mean round trip, ns.
    pub mean_ns: f64,
    /// CPU time the host (driver) process spent during the phase, ns (all its threads).
    pub host_cpu_ns: u64,
    /// CPU time the fake CLI spent during the phase, ns.
    pub cli_cpu_ns: u64,
}

impl Phase {
    /// Builds a phase from its latencies (ns, any order; sorted in place).
    pub fn from_latencies(latencies: &mut [u64], in_flight: u64, wall_ns: u64) -> Phase {
        latencies.sort_unstable();
        let calls = latencies.len() as u64;
        let sum: u128 = latencies.iter().map(|&l| u128::from(l)).sum();
        Phase {
            calls,
            in_flight,
            wall_ns,
            calls_per_s: if wall_ns == 0 {
                0.0
            } else {
                calls as f64 * 1e9 / wall_ns as f64
            },
            p50_ns: percentile_sorted(latencies, 50.0),
            p90_ns: percentile_sorted(latencies, 90.0),
            p99_ns: percentile_sorted(latencies, 99.0),
            p999_ns: percentile_sorted(latencies, 99.9),
            max_ns: latencies.last().copied().unwrap_or(0),
            mean_ns: if calls == 0 {
                0.0
            } else {
                sum as f64 / calls as f64
            },
            host_cpu_ns: 0,
            cli_cpu_ns: 0,
        }
    }

    /// Host CPU per call, µs (0 with no calls).
    pub fn host_cpu_us_per_call(&self) -> f64 {
        if self.calls == 0 {
            0.0
        } else {
            self.host_cpu_ns as f64 / 1e3 / self.calls as f64
        }
    }
}

/// What the fake CLI (or the ping-pong) writes at the end of a run.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct RunStats {
    /// Process id of the host (driver) process: the fake CLI's parent.
    pub host_pid: u32,
    /// The MCP server name the host announced.
    pub server: String,
    /// Fake CLI start → the host's `initialize` control request read, ns.
    pub init_wait_ns: u64,
    /// The host's `initialize` read → `tools/list` answered (MCP initialize, the initialize reply,
    /// the user message, `notifications/initialized` and `tools/list`), ns.
    pub handshake_ns: u64,
    /// Sequential calls.
    pub seq: Phase,
    /// Calls with K in flight (every round of the phase together).
    pub conc: Phase,
    /// Each round of the concurrent phase (one unless `CT_BENCH_CONC_ROUNDS` asks for more).
    #[serde(default)]
    pub conc_rounds: Vec<ConcRound>,
    /// Host's RSS (VmRSS), KiB, read after the handshake, before the first call.
    #[serde(default)]
    pub host_rss_start_kib: u64,
    /// Host's peak RSS (VmHWM), KiB, read at the end of the calls.
    pub host_peak_rss_kib: u64,
    /// Host's RSS (VmRSS), KiB, read at the end of the calls.
    pub host_rss_kib: u64,
    /// `(calls done, host VmRSS KiB)` samples along the sequential phase.
    pub rss_samples: Vec<(u64, u64)>,
    /// Monotonic clock (ns) at the start of the sequential phase.
    pub calls_start_mono_ns: u64,
    /// Monotonic clock (ns) at the end of the last phase.
    pub calls_end_mono_ns: u64,
}

/// One round of the concurrent phase.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct ConcRound {
    /// The round's calls.
    pub phase: Phase,
    /// Host's RSS (VmRSS), KiB, read at the end of the round.
    pub host_rss_kib: u64,
}

/// Nearest-rank percentile of sorted data (`p` in 0..=100); 0 for no data.
pub fn percentile_sorted(sorted: &[u64], p: f64) -> u64 {
    if sorted.is_empty() {
        return 0;
    }
    let rank = ((p / 100.0) * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

/// Median of floats (mean of the two middle values for an even count); `None` for no data or NaN.
pub fn median(values: &[f64]) -> Option<f64> {
    let mut v: Vec<f64> = values.iter().copied().filter(|x| !x.is_nan()).collect();
    if v.is_empty() {
        return None;
    }
    v.sort_by(f64::total_cmp);
    let mid = v.len() / 2;
    Some(if v.len().is_multiple_of(2) {
        (v[mid - 1] + v[mid]) / 2.0
    } else {
        v[mid]
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearest_rank_percentiles() {
        let data: Vec<u64> = (1..=100).collect();
        assert_eq!(percentile_sorted(&data, 50.0), 50);
        assert_eq!(percentile_sorted(&data, 99.0), 99);
        assert_eq!(percentile_sorted(&data, 99.9), 100);
        assert_eq!(percentile_sorted(&data, 0.0), 1);
        assert_eq!(percentile_sorted(&[], 50.0), 0);
        assert_eq!(percentile_sorted(&[7], 99.0), 7);
    }

    #[test]
    fn medians() {
        assert_eq!(median(&[3.0, 1.0, 2.0]), Some(2.0));
        assert_eq!(median(&[4.0, 1.0, 2.0, 3.0]), Some(2.5));
        assert_eq!(median(&[f64::NAN, 1.0]), Some(1.0));
        assert_eq!(median(&[]), None);
    }

    #[test]
    fn phase_from_latencies() {
        let mut l = vec![30, 10, 20, 40];
        let p = Phase::from_latencies(&mut l, 1, 1_000_000);
        assert_eq!(p.calls, 4);
        assert_eq!(p.p50_ns, 20);
        assert_eq!(p.max_ns, 40);
        assert_eq!(p.mean_ns, 25.0);
        assert!((p.calls_per_s - 4000.0).abs() < 1e-9);
    }
}
