//! `BENCHMARKS.md`: its sections from the latest results of every kind, written or updated in
//! place.

use std::fmt::Write as _;

use crate::Paths;
use crate::compile::CompileResult;
use crate::http::HttpBench;
use crate::results::{self, Matrix, RssRun, ScaleRun, SoakRun};
use crate::tables;

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
            matrix: results::load(paths, "matrix"),
            rss: results::load(paths, "rss"),
            scale: results::load(paths, "scale"),
            soak: results::load(paths, "soak"),
            http: results::load(paths, "http"),
            compile: results::load(paths, "compile"),
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
            out.push_str(&tables::matrix_tables(m));
        }
        None => {
            let _ = write!(out, "{MATRIX_HEADING}\n\nNot run yet.\n");
        }
    }
    if let Some(r) = &results.rss {
        let _ = writeln!(out, "\n{RSS_HEADING}\n\nCommand: `bench/run rss`.\n");
        out.push_str(&tables::rss_table(r));
    }
    if let Some(s) = &results.scale {
        let _ = writeln!(out, "\n{SCALE_HEADING}\n\nCommand: `bench/run scale`.\n");
        out.push_str(&tables::scale_table(s));
    }
    if let Some(soak) = &results.soak {
        let _ = writeln!(out, "\n{SOAK_HEADING}\n");
        out.push_str(&tables::soak_table(soak));
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
    let methods = if h.methods.iter().all(|m| m == crate::http::TOOL) {
        String::new()
    } else {
        format!(" --methods {}", h.methods.join(","))
    };
    let command = format!(
        "bench/run http --rounds {} --n {} --ts-n {} --warmup {} --conc {} --drivers {} --placements {}{methods}",
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
         is not what limits throughput. Only in-round ratios compare well across runs. With \
         `--methods tool,prompt,resource` (issue 22), claude-tools also serves the `sum` prompt \
         and the `bench://sum/{{a}}/{{b}}` resource template of `ct-bench-hot-path`, and each \
         level is measured with `prompts/get` (the two numbers as string arguments) and \
         `resources/read` (the numbers in the URI) as well, every answer checked to the sum; \
         the servers' tables stay those of `tools/call`.\n\n\
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
    use crate::tables::tests::sample;

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
                methods: vec!["tool".into()],
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
}
