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
//! With `--methods tool,prompt,resource` (issue 22) each level is measured once per method, on
//! the same running server and connections opened afresh: `tools/call add(a, b)`, a
//! `prompts/get` of the `sum` prompt and a `resources/read` of `bench://sum/{a}/{b}`, the same
//! two numbers added each time; the methods' order turns by one each round. Only claude-tools
//! serves the prompt and the resource ([`serves`]); the other servers run `tool` alone. The
//! report then compares each method with `tools/call` on the same server, round and level.
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

/// Every method the load generator can measure (`claude_tools_bench::http_load::Method`), in
/// table order.
pub const METHODS: [&str; 3] = ["tool", "prompt", "resource"];

/// The method every server serves and the default of `--methods`.
pub const TOOL: &str = "tool";

/// Whether `server` serves `method`: every server the `add` tool, only claude-tools the `sum`
/// prompt and the `bench://sum/{a}/{b}` resource.
pub fn serves(server: &str, method: &str) -> bool {
    method == TOOL || server == "claude-tools"
}

/// The JSON-RPC method of a method's name, for the report.
fn json_rpc(method: &str) -> &str {
    match method {
        "tool" => "tools/call",
        "prompt" => "prompts/get",
        "resource" => "resources/read",
        other => other,
    }
}

fn tool_method() -> String {
    TOOL.into()
}

fn tool_methods() -> Vec<String> {
    vec![TOOL.into()]
}

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
    /// What each call asked: `tool`, `prompt` or `resource` (results from before issue 22:
    /// `tool`).
    #[serde(default = "tool_method")]
    pub method: String,
    /// Round number (0-based).
    pub round: usize,
    /// Connections, each with one call in flight.
    pub concurrency: u64,
    /// The measured calls (`None` when the run failed).
    pub phase: Option<Phase>,
    /// `Content-Type`s of the replies.
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
            // The share of its one core the load generator kept busy over the phase.
            "client_busy" => Some(self.client_cpu_ns as f64 / p.wall_ns as f64),
            "rss" => Some(self.server_peak_kib as f64 / 1024.0),
            _ => None,
        }
        .filter(|v| v.is_finite())
    }
}

/// The load generator's share of its core above which a level is **client-bound**: its one
/// thread, not the server, set the pace, so the level's req/s (and every ratio taken from it)
/// says how fast the client is. At C = 32 it spends about 18 µs of CPU per call, so it cannot
/// send much more than 55,000 calls/s, less than a fast server answers (wrk, which spends far
/// less per request, finds the servers apart where this bench saw them level: BENCHMARKS.md,
/// "Why the project's HTTP bench disagreed with wrk").
pub const CLIENT_BOUND: f64 = 0.9;

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
    /// Methods measured (`tool`, `prompt`, `resource`), each on the servers that serve it.
    #[serde(default = "tool_methods")]
    pub methods: Vec<String>,
    /// Every sample.
    pub samples: Vec<HttpSample>,
}

impl HttpBench {
    /// The samples of `tools/call` (what the servers are compared on).
    fn ok_samples<'a>(
        &'a self,
        server: &'a str,
        placement: &'a str,
        c: u64,
    ) -> impl Iterator<Item = &'a HttpSample> {
        self.ok_method_samples(server, TOOL, placement, c)
    }

    fn ok_method_samples<'a>(
        &'a self,
        server: &'a str,
        method: &'a str,
        placement: &'a str,
        c: u64,
    ) -> impl Iterator<Item = &'a HttpSample> {
        self.samples.iter().filter(move |s| {
            s.server == server
                && s.method == method
                && s.placement == placement
                && s.concurrency == c
                && s.error.is_none()
        })
    }

    /// Median over rounds of one metric of `tools/call`.
    pub fn median(&self, server: &str, placement: &str, c: u64, name: &str) -> Option<f64> {
        self.method_median(server, TOOL, placement, c, name)
    }

    /// Median over rounds of one metric of `method`.
    pub fn method_median(
        &self,
        server: &str,
        method: &str,
        placement: &str,
        c: u64,
        name: &str,
    ) -> Option<f64> {
        let v: Vec<f64> = self
            .ok_method_samples(server, method, placement, c)
            .filter_map(|s| s.metric(name))
            .collect();
        median(&v)
    }

    /// Median over rounds of `metric(method) / metric(tools/call)` on one server, taken inside
    /// each round (the same running server, one level after the other).
    pub fn method_ratio(
        &self,
        server: &str,
        method: &str,
        placement: &str,
        c: u64,
        name: &str,
    ) -> Option<f64> {
        let v: Vec<f64> = self
            .ok_method_samples(server, method, placement, c)
            .filter_map(|s| {
                let b = self
                    .ok_samples(server, placement, c)
                    .find(|b| b.round == s.round)?;
                let (x, y) = (s.metric(name)?, b.metric(name)?);
                (y > 0.0).then_some(x / y)
            })
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

    /// Whether the load generator was the bottleneck of `server`'s `tools/call` at one level:
    /// its median share of its core at or above [`CLIENT_BOUND`].
    pub fn client_bound(&self, server: &str, placement: &str, c: u64) -> bool {
        self.median(server, placement, c, "client_busy")
            .is_some_and(|busy| busy >= CLIENT_BOUND)
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

/// The load generator's share of its core, marked when it was the bottleneck.
fn fmt_busy(b: &HttpBench, server: &str, placement: &str, c: u64) -> String {
    match b.median(server, placement, c, "client_busy") {
        None => "–".into(),
        Some(busy) if busy >= CLIENT_BOUND => format!("**{:.0} %: client-bound**", busy * 100.0),
        Some(busy) => format!("{:.0} %", busy * 100.0),
    }
}

fn fmt_x(v: Option<f64>) -> String {
    v.map(|v| format!("{v:.2}×")).unwrap_or_else(|| "–".into())
}

/// The tables of one run: per placement and concurrency, medians over rounds; then claude-tools
/// against each other server (in-round ratios) and the issue's goal.
pub fn tables(b: &HttpBench) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{} rounds, servers interleaved (each round starts one server further on), each server \
         started fresh per round; per concurrency level C: C keep-alive connections, {} warm-up \
         calls, then {} measured calls (TypeScript: {}), every answer checked. Medians over \
         rounds. The load generator is one thread: where it kept its core {:.0} % busy or more \
         the row is **client-bound** (the client, not the server, set its req/s), and the \
         comparisons drawn from it are not verdicts on the servers.\n",
        b.rounds,
        fmt(Some(b.warmup as f64), 0),
        fmt(Some(b.requests as f64), 0),
        fmt(Some(b.ts_requests.min(b.requests) as f64), 0),
        CLIENT_BOUND * 100.0
    );
    for p in &b.placements {
        for &c in &b.concurrency {
            let _ = writeln!(out, "#### C = {c}, {}\n", placement_title(p));
            let _ = writeln!(
                out,
                "| server | content type | req/s | p50 µs | p99 µs | server CPU µs/call | load generator CPU µs/call | server peak RSS MiB | load generator busy |"
            );
            let _ = writeln!(out, "|---|---|---:|---:|---:|---:|---:|---:|---:|");
            for s in &b.servers {
                let _ = writeln!(
                    out,
                    "| {s} | {} | {} | {} | {} | {} | {} | {} | {} |",
                    b.content_types(s, p, c),
                    fmt(b.median(s, p, c, "rps"), 0),
                    fmt(b.median(s, p, c, "p50"), 1),
                    fmt(b.median(s, p, c, "p99"), 1),
                    fmt(b.median(s, p, c, "server_cpu"), 1),
                    fmt(b.median(s, p, c, "client_cpu"), 1),
                    fmt(b.median(s, p, c, "rss"), 1),
                    fmt_busy(b, s, p, c),
                );
            }
            let _ = writeln!(out);
        }
    }
    out.push_str(&methods_tables(b));
    let failures: Vec<&HttpSample> = b.samples.iter().filter(|s| s.error.is_some()).collect();
    if !failures.is_empty() {
        let _ = writeln!(out, "Failed runs (left out of the medians):\n");
        for s in failures {
            let e = s.error.as_deref().unwrap_or("");
            let method = if s.method == TOOL {
                String::new()
            } else {
                format!(" / {}", json_rpc(&s.method))
            };
            let _ = writeln!(
                out,
                "- {}{method} / {} / C = {} / round {}: {}",
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

/// Issue 22: each method against `tools/call` on the same server, per placement and level
/// (empty when only `tool` was measured). Ratios are taken inside each round: req/s and p50 of
/// the method over those of `tools/call`, and the server's CPU per call likewise (above 1× the
/// method costs more).
pub fn methods_tables(b: &HttpBench) -> String {
    if b.methods.iter().all(|m| m == TOOL) {
        return String::new();
    }
    let mut out = String::new();
    let tool_only: Vec<&str> = b
        .servers
        .iter()
        .filter(|s| b.methods.iter().any(|m| !serves(s, m)))
        .map(String::as_str)
        .collect();
    let _ = write!(
        out,
        "#### Each method against `tools/call` on the same server (issue 22)\n\n\
         Methods measured: {}; every answer checked (the sum in the tool's text block, in the \
         prompt message's text, in the resource contents' text). Per method the same level on \
         the same running server, fresh connections, the same warm-up and measured calls; the \
         methods' order turns by one each round. Ratios are the method's figure over \
         `tools/call`'s in the same round (median over rounds): above 1× the method gives more \
         req/s, takes longer (p50) or costs the server more CPU per call.",
        b.methods
            .iter()
            .map(|m| format!("`{}`", json_rpc(m)))
            .collect::<Vec<_>>()
            .join(", ")
    );
    if !tool_only.is_empty() {
        let _ = write!(
            out,
            " {} serve{} only `tools/call` here.",
            tool_only.join(", "),
            if tool_only.len() == 1 { "s" } else { "" }
        );
    }
    out.push_str("\n\n");
    for p in &b.placements {
        for &c in &b.concurrency {
            let _ = writeln!(
                out,
                "##### Methods, C = {c}, {}\n\n\
                 | server | method | req/s | p50 µs | p99 µs | server CPU µs/call | req/s / `tools/call` | p50 / `tools/call` | server CPU / `tools/call` |\n\
                 |---|---|---:|---:|---:|---:|---:|---:|---:|",
                placement_title(p)
            );
            for s in &b.servers {
                for m in b.methods.iter().filter(|m| serves(s, m)) {
                    let ratio = |name| {
                        if m == TOOL {
                            b.method_median(s, m, p, c, name).map(|_| 1.0)
                        } else {
                            b.method_ratio(s, m, p, c, name)
                        }
                    };
                    let _ = writeln!(
                        out,
                        "| {s} | `{}` | {} | {} | {} | {} | {} | {} | {} |",
                        json_rpc(m),
                        fmt(b.method_median(s, m, p, c, "rps"), 0),
                        fmt(b.method_median(s, m, p, c, "p50"), 1),
                        fmt(b.method_median(s, m, p, c, "p99"), 1),
                        fmt(b.method_median(s, m, p, c, "server_cpu"), 1),
                        fmt_x(ratio("rps")),
                        fmt_x(ratio("p50")),
                        fmt_x(ratio("server_cpu")),
                    );
                }
            }
            let _ = writeln!(out);
        }
    }
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
                    _ if b.client_bound(ct, p, c) || b.client_bound(other, p, c) => {
                        "– (client-bound: the load generator set the pace)"
                    }
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
mod runner;

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(server: &str, round: usize, rps: f64, p99_us: u64) -> HttpSample {
        HttpSample {
            server: server.into(),
            placement: "split".into(),
            method: TOOL.into(),
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

    /// A run at one concurrency (1) and placement (`split`) of `servers` and `methods`.
    fn bench(
        rounds: usize,
        servers: Vec<String>,
        methods: Vec<String>,
        samples: Vec<HttpSample>,
    ) -> HttpBench {
        HttpBench {
            date: String::new(),
            machine: String::new(),
            revision: String::new(),
            load_average: (0.0, 0.0),
            versions: vec![],
            rounds,
            requests: 100,
            ts_requests: 100,
            warmup: 10,
            concurrency: vec![1],
            servers,
            placements: vec!["split".into()],
            methods,
            samples,
        }
    }

    #[test]
    fn tables_give_medians_ratios_and_the_goal() {
        let b = bench(
            2,
            vec!["claude-tools".into(), "rmcp".into(), "floor".into()],
            vec![TOOL.into()],
            vec![
                sample("claude-tools", 0, 20_000.0, 100),
                sample("rmcp", 0, 10_000.0, 200),
                sample("floor", 0, 50_000.0, 50),
                sample("claude-tools", 1, 30_000.0, 100),
                sample("rmcp", 1, 10_000.0, 50),
                sample("floor", 1, 50_000.0, 50),
            ],
        );
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

    /// A level whose load generator kept its core busy is marked client-bound, and no
    /// verdict is drawn from it; a level with room to spare is not.
    #[test]
    fn client_bound_levels_are_marked() {
        let level = |server: &str, rps: f64, busy: f64| {
            let mut s = sample(server, 0, rps, 100);
            if let Some(phase) = s.phase.as_mut() {
                phase.wall_ns = 1_000_000_000;
            }
            s.client_cpu_ns = (busy * 1e9) as u64;
            s
        };
        let b = bench(
            1,
            vec!["claude-tools".into(), "rmcp".into(), "floor".into()],
            vec![TOOL.into()],
            vec![
                level("claude-tools", 50_000.0, 0.97),
                level("rmcp", 20_000.0, 0.40),
                level("floor", 52_000.0, 0.98),
            ],
        );
        assert!(b.client_bound("claude-tools", "split", 1));
        assert!(!b.client_bound("rmcp", "split", 1));
        let text = tables(&b);
        assert!(
            text.contains("| 9700.0 | 5.0 | **97 %: client-bound** |"),
            "{text}"
        );
        assert!(text.contains("| 4000.0 | 5.0 | 40 % |"), "{text}");
        assert!(
            text.contains("| split | 1 | rmcp | 2.50× | 1.00× | – (client-bound: the load generator set the pace) |"),
            "{text}"
        );
        assert!(
            text.contains("| split | 1 | floor | 0.96× | 1.00× | – (client-bound: the load generator set the pace) |"),
            "{text}"
        );
    }

    #[test]
    fn failed_samples_are_listed_and_left_out() {
        let mut failed = sample("rmcp", 0, 1.0, 1);
        failed.phase = None;
        failed.error = Some("call 3: add(1, 2) answered \"4\"\nmore".into());
        let b = bench(
            1,
            vec!["claude-tools".into(), "rmcp".into()],
            vec![TOOL.into()],
            vec![sample("claude-tools", 0, 1.0, 1), failed],
        );
        let text = tables(&b);
        assert!(
            text.contains("- rmcp / split / C = 1 / round 1: call 3: add(1, 2) answered \"4\""),
            "{text}"
        );
        assert!(text.contains("| rmcp | – | – |"), "{text}");
        // Only `tool` measured: no table of methods.
        assert!(!text.contains("against `tools/call`"), "{text}");
        assert!(
            text.contains("| split | 1 | rmcp | – | – | not measured |"),
            "{text}"
        );
    }

    fn method_sample(
        server: &str,
        method: &str,
        round: usize,
        rps: f64,
        cpu_us: u64,
    ) -> HttpSample {
        HttpSample {
            method: method.into(),
            server_cpu_ns: 100 * cpu_us * 1000,
            ..sample(server, round, rps, 100)
        }
    }

    #[test]
    fn methods_are_compared_with_tools_call_in_round() {
        let mut failed = method_sample("claude-tools", "resource", 1, 1.0, 1);
        failed.phase = None;
        failed.error = Some("call 1005: resource bench://sum/2015/-45 answered \"0\"".into());
        let b = bench(
            2,
            vec!["claude-tools".into(), "rmcp".into()],
            vec!["tool".into(), "prompt".into(), "resource".into()],
            vec![
                method_sample("claude-tools", "tool", 0, 20_000.0, 50),
                method_sample("claude-tools", "prompt", 0, 10_000.0, 100),
                method_sample("claude-tools", "resource", 0, 16_000.0, 60),
                method_sample("rmcp", "tool", 0, 10_000.0, 100),
                method_sample("claude-tools", "tool", 1, 40_000.0, 25),
                method_sample("claude-tools", "prompt", 1, 30_000.0, 50),
                failed,
                method_sample("rmcp", "tool", 1, 10_000.0, 100),
            ],
        );
        // Round 0: 0.5×, round 1: 0.75×; the median of the in-round ratios.
        assert_eq!(
            b.method_ratio("claude-tools", "prompt", "split", 1, "rps"),
            Some(0.625)
        );
        assert_eq!(
            b.method_ratio("claude-tools", "prompt", "split", 1, "server_cpu"),
            Some(2.0)
        );
        // The servers' tables and ratios stay those of `tools/call`.
        assert_eq!(b.median("claude-tools", "split", 1, "rps"), Some(30_000.0));
        assert_eq!(
            b.ratio("claude-tools", "rmcp", "split", 1, "rps"),
            Some(3.0)
        );
        let text = tables(&b);
        assert!(
            text.contains("| claude-tools | `tools/call` | 30,000 | 50.0 | 100.0 | 37.5 | 1.00× | 1.00× | 1.00× |"),
            "{text}"
        );
        assert!(
            text.contains("| claude-tools | `prompts/get` | 20,000 | 50.0 | 100.0 | 75.0 | 0.62× | 1.00× | 2.00× |"),
            "{text}"
        );
        assert!(
            text.contains("| claude-tools | `resources/read` | 16,000 | 50.0 | 100.0 | 60.0 | 0.80× | 1.00× | 1.20× |"),
            "{text}"
        );
        assert!(text.contains("| rmcp | `tools/call` | 10,000 |"), "{text}");
        assert!(!text.contains("| rmcp | `prompts/get`"), "{text}");
        assert!(
            text.contains("rmcp serves only `tools/call` here."),
            "{text}"
        );
        assert!(
            text.contains("- claude-tools / resources/read / split / C = 1 / round 2: call 1005"),
            "{text}"
        );
    }

    #[test]
    fn old_results_are_tools_call() {
        let sample: HttpSample = serde_json::from_str(
            r#"{"server":"rmcp","placement":"split","round":0,"concurrency":1,"phase":null,
                "content_types":[],"server_cpu_ns":0,"client_cpu_ns":0,"server_rss_kib":0,
                "server_peak_kib":0,"error":null}"#,
        )
        .unwrap();
        assert_eq!(sample.method, "tool");
        assert!(serves("claude-tools", "prompt") && serves("rmcp", "tool"));
        assert!(!serves("rmcp", "resource") && !serves("typescript", "prompt"));
    }
}
