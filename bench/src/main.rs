//! `ct-bench`: the harness of the claude-tools benchmarks (issue 5).
//!
//! ```text
//! ct-bench run      [--rounds R] [--n N] [--py-n N] [--k K] [--drivers a,b] [--placements same,split]
//! ct-bench rss      [--n N] [--drivers a,b]          host RSS along N sequential calls
//! ct-bench scale    [--sessions 1,10,50] [--n N]      concurrent sessions in one claude-tools host
//! ct-bench soak     [--n N] [--rounds R] [--conc-n M] [--k K]
//!                   one claude-tools session: N sequential calls (default 1,000,000), then R
//!                   rounds (10) of M calls (10,000) with K in flight (100); RSS before and after
//! ct-bench compile                                    100 #[tool] fns vs rmcp's #[tool_router]
//! ct-bench all      (run, rss, scale, compile)
//! ct-bench http     [--rounds R] [--n N] [--ts-n N] [--warmup W] [--conc 1,32] [--drivers a,b]
//!                   [--placements split,same,none] [--methods tool,prompt,resource]
//!                   tools/call over MCP Streamable HTTP: claude-tools, rmcp, the floor (a bare
//!                   axum handler, no MCP logic), the TypeScript SDK
//!                   (N measured calls per level, default 20,000, TypeScript 5,000; 2,000 warm-up
//!                   calls; 3 rounds; placements split and none); with --methods also
//!                   prompts/get and resources/read on claude-tools, against its tools/call
//!                   (default: tool only)
//! ct-bench report   rewrite BENCHMARKS.md's sections from the latest results of every kind
//! ```
//!
//! Each kind of result is kept in `bench/results/<kind>.json` (git-ignored) and every command ends
//! by rewriting, in `BENCHMARKS.md` at the repository root, its introduction, "How to run" and
//! the sections of what the command measured, from the latest results; every other section (some
//! are written by hand) stays as it is.
//! With `CT_BENCH_OUT=<folder>`, both go to that folder instead.

mod compile;
mod fmt;
mod http;
mod provenance;
mod report;
mod results;
mod runs;
mod tables;

use std::path::PathBuf;
use std::process::ExitCode;

use report::Kind;

/// Paths of the things the harness runs.
#[derive(Debug, Clone)]
pub struct Paths {
    /// The `bench/` folder.
    pub bench: PathBuf,
    /// The repository root.
    pub root: PathBuf,
    /// The folder holding the bench binaries (next to this one).
    pub bin: PathBuf,
    /// Where results are kept.
    pub results: PathBuf,
    /// The report the results are written to.
    pub report: PathBuf,
}

impl Paths {
    fn discover() -> Result<Paths, String> {
        let bench = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
        let root = bench.parent().ok_or("bench has no parent")?.to_path_buf();
        let exe = std::env::current_exe().map_err(|e| format!("current_exe: {e}"))?;
        let bin = exe.parent().ok_or("exe has no parent")?.to_path_buf();
        let (results, report) = match std::env::var_os(claude_tools_bench::env::OUT) {
            Some(out) => {
                let out = PathBuf::from(out);
                (out.join("results"), out.join("BENCHMARKS.md"))
            }
            None => (bench.join("results"), root.join("BENCHMARKS.md")),
        };
        Ok(Paths {
            bench,
            root,
            bin,
            results,
            report,
        })
    }

    /// The fast fake CLI.
    pub fn fake_cli(&self) -> PathBuf {
        self.bin.join("ct-bench-fake-cli")
    }
}

/// Command-line options shared by the subcommands.
#[derive(Debug, Clone)]
pub struct Args {
    /// Interleaved rounds.
    pub rounds: usize,
    /// Sequential calls (and calls at K in flight) per run.
    pub n: u64,
    /// Calls per run for the Python SDK (slow: ~1 ms per call).
    pub py_n: u64,
    /// Calls in flight in the concurrent phase.
    pub k: u64,
    /// Drivers to run (`None`: every available one).
    pub drivers: Option<Vec<String>>,
    /// Placements to run.
    pub placements: Vec<String>,
    /// Session counts of `scale`.
    pub sessions: Vec<usize>,
    /// `--n` as given (`None`: each command's default; `rss`: 100,000).
    pub n_given: Option<u64>,
    /// `--rounds` as given (`None`: each command's default).
    pub rounds_given: Option<usize>,
    /// `--k` as given (`None`: each command's default).
    pub k_given: Option<u64>,
    /// Calls per round of the soak's concurrent phase (`None`: 10,000).
    pub conc_n: Option<u64>,
    /// Whether `--placements` was given (`http` defaults to `split,none`).
    pub placements_given: bool,
    /// `http`: warm-up calls before each measured level (`None`: 2,000).
    pub warmup: Option<u64>,
    /// `http`: concurrency levels (`None`: 1 and 32).
    pub conc: Option<Vec<u64>>,
    /// `http`: measured calls per level for the TypeScript server (`None`: 5,000, at most N).
    pub ts_n: Option<u64>,
    /// `http`: the methods measured, `tool`, `prompt`, `resource` (`None`: `tool` only).
    pub methods: Option<Vec<String>>,
}

impl Default for Args {
    fn default() -> Self {
        Args {
            rounds: 5,
            n: 10_000,
            py_n: 2_000,
            k: 32,
            drivers: None,
            placements: vec!["same".into(), "split".into()],
            sessions: vec![1, 10, 50],
            n_given: None,
            rounds_given: None,
            k_given: None,
            conc_n: None,
            placements_given: false,
            warmup: None,
            conc: None,
            ts_n: None,
            methods: None,
        }
    }
}

fn parse_args(raw: &[String]) -> Result<(String, Args), String> {
    let mut args = Args::default();
    let mut command = None;
    let mut it = raw.iter();
    while let Some(arg) = it.next() {
        let mut value = |name: &str| it.next().cloned().ok_or(format!("{name} needs a value"));
        let number = |name: &str, v: String| {
            v.parse::<u64>()
                .map_err(|_| format!("{name}: {v} is not a number"))
        };
        match arg.as_str() {
            "--rounds" => {
                args.rounds = number("--rounds", value("--rounds")?)? as usize;
                args.rounds_given = Some(args.rounds);
            }
            "--n" => {
                let n = number("--n", value("--n")?)?;
                args.n = n;
                args.n_given = Some(n);
            }
            "--py-n" => args.py_n = number("--py-n", value("--py-n")?)?,
            "--k" => {
                args.k = number("--k", value("--k")?)?;
                args.k_given = Some(args.k);
            }
            "--conc-n" => args.conc_n = Some(number("--conc-n", value("--conc-n")?)?),
            "--drivers" => {
                args.drivers = Some(value("--drivers")?.split(',').map(str::to_string).collect())
            }
            "--placements" => {
                args.placements = value("--placements")?
                    .split(',')
                    .map(str::to_string)
                    .collect();
                args.placements_given = true;
            }
            "--warmup" => args.warmup = Some(number("--warmup", value("--warmup")?)?),
            "--ts-n" => args.ts_n = Some(number("--ts-n", value("--ts-n")?)?),
            "--conc" => {
                args.conc = Some(
                    value("--conc")?
                        .split(',')
                        .map(|c| number("--conc", c.to_string()))
                        .collect::<Result<_, _>>()?,
                )
            }
            "--methods" => {
                let mut methods: Vec<String> = Vec::new();
                for m in value("--methods")?.split(',') {
                    if !http::METHODS.contains(&m) {
                        return Err(format!(
                            "--methods: unknown method {m} ({})",
                            http::METHODS.join(", ")
                        ));
                    }
                    if methods.iter().any(|x| x == m) {
                        return Err(format!("--methods: {m} given twice"));
                    }
                    methods.push(m.to_string());
                }
                args.methods = Some(methods);
            }
            "--sessions" => {
                args.sessions = value("--sessions")?
                    .split(',')
                    .map(|s| {
                        s.parse()
                            .map_err(|_| format!("--sessions: {s} is not a number"))
                    })
                    .collect::<Result<_, _>>()?
            }
            "-h" | "--help" => return Ok(("help".into(), args)),
            flag if flag.starts_with('-') => return Err(format!("unknown option {flag}")),
            word if command.is_none() => command = Some(word.to_string()),
            word => return Err(format!("unexpected argument {word}")),
        }
    }
    let command = command.unwrap_or_else(|| "run".into());
    // `none` (nothing pinned) is the HTTP bench's alone: the in-process matrix always pins.
    let known: &[&str] = if command == "http" {
        &["same", "split", "none"]
    } else {
        &["same", "split"]
    };
    for p in &args.placements {
        if !known.contains(&p.as_str()) {
            return Err(format!("unknown placement {p} ({})", known.join(", ")));
        }
    }
    Ok((command, args))
}

const USAGE: &str = "usage: ct-bench [run|rss|scale|soak|compile|all|http|report] [--rounds R] [--n N] [--py-n N] [--k K] \
[--conc-n M] [--drivers pingpong,floor,claude-tools,typescript,python] [--placements same,split] [--sessions 1,10,50]\n\
       ct-bench http [--rounds R] [--n N] [--ts-n N] [--warmup W] [--conc 1,32] [--drivers claude-tools,rmcp,floor,typescript] \
[--placements split,same,none] [--methods tool,prompt,resource]";

/// The kinds of results `command` measures, whose sections of `BENCHMARKS.md` it rewrites
/// (`report`: every kind); `None` for a command that is not one.
fn measured_kinds(command: &str) -> Option<&'static [Kind]> {
    Some(match command {
        "run" => &[Kind::Matrix],
        "rss" => &[Kind::Rss],
        "scale" => &[Kind::Scale],
        "soak" => &[Kind::Soak],
        "compile" => &[Kind::Compile],
        "all" => &[Kind::Matrix, Kind::Rss, Kind::Scale, Kind::Compile],
        "http" => &[Kind::Http],
        "report" => &Kind::ALL,
        _ => return None,
    })
}

fn main() -> ExitCode {
    let raw: Vec<String> = std::env::args().skip(1).collect();
    let (command, args) = match parse_args(&raw) {
        Ok(parsed) => parsed,
        Err(e) => {
            eprintln!("ct-bench: {e}\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    let paths = match Paths::discover() {
        Ok(paths) => paths,
        Err(e) => {
            eprintln!("ct-bench: {e}");
            return ExitCode::from(2);
        }
    };
    let result = match command.as_str() {
        "help" => {
            println!("{USAGE}");
            return ExitCode::SUCCESS;
        }
        "run" => runs::run_matrix(&paths, &args),
        "rss" => runs::run_rss(&paths, &args),
        "scale" => runs::run_scale(&paths, &args),
        "soak" => runs::run_soak(&paths, &args),
        "compile" => compile::run_compile(&paths),
        "all" => runs::run_matrix(&paths, &args)
            .and_then(|()| runs::run_rss(&paths, &args))
            .and_then(|()| runs::run_scale(&paths, &args))
            .and_then(|()| compile::run_compile(&paths)),
        #[cfg(feature = "http")]
        "http" => http::run_http(&paths, &args),
        #[cfg(not(feature = "http"))]
        "http" => Err("ct-bench was built without the `http` feature".into()),
        "report" => Ok(()),
        other => Err(format!("unknown command {other}\n{USAGE}")),
    };
    // Each command rewrites only its own sections: BENCHMARKS.md also holds sections written by hand.
    let written = match measured_kinds(&command) {
        Some(kinds) => report::update_benchmarks_md(&paths, kinds),
        None => Ok(()),
    };
    match (result, written) {
        (Ok(()), Ok(())) => ExitCode::SUCCESS,
        (Err(e), _) | (_, Err(e)) => {
            eprintln!("ct-bench: {e}");
            ExitCode::from(1)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn each_command_rewrites_the_sections_of_what_it_measures() {
        assert_eq!(measured_kinds("run"), Some(&[Kind::Matrix][..]));
        assert_eq!(measured_kinds("rss"), Some(&[Kind::Rss][..]));
        assert_eq!(measured_kinds("scale"), Some(&[Kind::Scale][..]));
        assert_eq!(measured_kinds("soak"), Some(&[Kind::Soak][..]));
        assert_eq!(measured_kinds("compile"), Some(&[Kind::Compile][..]));
        assert_eq!(
            measured_kinds("all"),
            Some(&[Kind::Matrix, Kind::Rss, Kind::Scale, Kind::Compile][..])
        );
        assert_eq!(measured_kinds("http"), Some(&[Kind::Http][..]));
        assert_eq!(measured_kinds("report"), Some(&Kind::ALL[..]));
        assert_eq!(measured_kinds("elsewhere"), None);
    }

    #[test]
    fn parses_commands_and_options() {
        let (cmd, args) = parse_args(&strings(&[
            "run",
            "--rounds",
            "3",
            "--drivers",
            "floor,python",
            "--placements",
            "same",
        ]))
        .unwrap();
        assert_eq!(cmd, "run");
        assert_eq!(args.rounds, 3);
        assert_eq!(args.drivers, Some(strings(&["floor", "python"])));
        assert_eq!(args.placements, strings(&["same"]));
        let (cmd, args) = parse_args(&[]).unwrap();
        assert_eq!(cmd, "run");
        assert_eq!(args.n, 10_000);
        assert!(parse_args(&strings(&["--placements", "elsewhere"])).is_err());
        assert!(parse_args(&strings(&["--rounds"])).is_err());
        let (_, args) = parse_args(&strings(&["scale", "--sessions", "1,5"])).unwrap();
        assert_eq!(args.sessions, vec![1, 5]);
        assert_eq!(
            (args.n_given, args.rounds_given, args.k_given),
            (None, None, None)
        );
        let (cmd, args) = parse_args(&strings(&[
            "http",
            "--conc",
            "1,8",
            "--warmup",
            "5",
            "--ts-n",
            "7",
            "--placements",
            "none,split",
        ]))
        .unwrap();
        assert_eq!(cmd, "http");
        assert_eq!(
            (args.conc, args.warmup, args.ts_n, args.placements_given),
            (Some(vec![1, 8]), Some(5), Some(7), true)
        );
        assert_eq!(args.placements, strings(&["none", "split"]));
        assert!(parse_args(&strings(&["run", "--placements", "none"])).is_err());
        assert!(parse_args(&strings(&["http", "--conc", "1,x"])).is_err());
        assert_eq!(args.methods, None);
        let (_, args) =
            parse_args(&strings(&["http", "--methods", "tool,resource,prompt"])).unwrap();
        assert_eq!(args.methods, Some(strings(&["tool", "resource", "prompt"])));
        assert!(parse_args(&strings(&["http", "--methods", "tool,tools/call"])).is_err());
        assert!(parse_args(&strings(&["http", "--methods", "prompt,prompt"])).is_err());
        let (cmd, args) = parse_args(&strings(&[
            "soak", "--n", "500", "--rounds", "2", "--conc-n", "50", "--k", "8",
        ]))
        .unwrap();
        assert_eq!(cmd, "soak");
        assert_eq!(
            (args.n_given, args.rounds_given, args.conc_n, args.k_given),
            (Some(500), Some(2), Some(50), Some(8))
        );
    }
}
