//! Benchmarks of claude-tools (issue 5): the shared pieces of the bench binaries.
//!
//! - [`stats`]: percentiles, medians and the per-run statistics the fake CLI writes.
//! - [`procfs`]: CPU time and memory of a process read from `/proc`, CPU pinning, a monotonic clock.
//! - [`wire`]: the borrowed envelope types the fake CLI and the hand-written floor parse.
//! - `http_client`, `http_load` (feature `http`): the Streamable HTTP bench's keep-alive client,
//!   MCP handshake and load generator.
//!
//! The binaries: `ct-bench` (the harness), `ct-bench-fake-cli` (the fast fake Claude Code CLI),
//! `ct-bench-floor` (a hand-written responder with no framework), `ct-bench-pingpong` (a raw pipe
//! ping-pong), `ct-bench-claude-tools` (the claude-tools driver, feature `claude-tools`),
//! `ct-bench-big-answer` (the host CPU of one huge tool answer, feature `claude-tools`) and
//! `ct-bench-hot-path` (the in-process hot path of a tool call, for instruction counts under
//! callgrind, feature `claude-tools`).

#[cfg(feature = "http")]
pub mod http_client;
#[cfg(feature = "http")]
pub mod http_load;
pub mod procfs;
pub mod stats;
pub mod wire;

/// Environment variables the fake CLI (and the ping-pong) read; the drivers pass their environment on.
pub mod env {
    /// Where the fake CLI writes its JSON statistics ([`crate::stats::RunStats`]).
    pub const STATS: &str = "CT_BENCH_STATS";
    /// Number of sequential calls (and of calls in the concurrent phase unless [`CONC_N`] is set).
    pub const N: &str = "CT_BENCH_N";
    /// Number of calls in flight in the concurrent phase.
    pub const K: &str = "CT_BENCH_K";
    /// Number of calls in the concurrent phase (default: [`N`]), per round.
    pub const CONC_N: &str = "CT_BENCH_CONC_N";
    /// Number of rounds of the concurrent phase (default 1), each of [`CONC_N`] calls.
    pub const CONC_ROUNDS: &str = "CT_BENCH_CONC_ROUNDS";
    /// Sample the host's RSS every this many sequential calls (0: only at the end).
    pub const RSS_EVERY: &str = "CT_BENCH_RSS_EVERY";
    /// Pin the fake CLI (the CLI side) to this CPU.
    pub const CLI_CPU: &str = "CT_BENCH_CLI_CPU";
    /// A folder for `ct-bench`'s results and report instead of `bench/results` and the
    /// repository's `BENCHMARKS.md` (for a run that must not touch the repository).
    pub const OUT: &str = "CT_BENCH_OUT";
    /// `--version` output of the fake CLI.
    pub const VERSION_TEXT: &str = "2.1.332 (Claude Code)";
}
