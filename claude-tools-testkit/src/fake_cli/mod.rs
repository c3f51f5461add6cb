//! A deterministic stand-in for the Claude Code CLI's side of the control protocol: the
//! `fake-claude` binary plays a script of steps over stdin/stdout.
//!
//! # Launching
//!
//! Launch it exactly like the real CLI: every flag is accepted and recorded, none is
//! interpreted, except `--version` / `-v`, which prints `2.1.332 (Claude Code)`. Environment:
//!
//! | variable | meaning |
//! |---|---|
//! | `FAKE_CLAUDE_SCRIPT` | path of the script (required) |
//! | `FAKE_CLAUDE_TRANSCRIPT` | optional path: first line a JSON header `{"type":"fake_claude_start","program","args","env","cwd","pid"}` (env: `CLAUDE*`, `ANTHROPIC_*`, `MCP_*`, `DISABLE_*`, `ENABLE_TOOL_SEARCH`, `HOME`, `PWD`, proxies; values of names containing KEY/TOKEN/SECRET/PASSWORD are `<redacted>`), then every stdin line verbatim, as received. `%p` in the path is replaced by the pid (one transcript per spawn when a host restarts the CLI). Read it with [`Transcript`]. |
//! | `FAKE_CLAUDE_EXPECT_TIMEOUT_MS` | default wait of `expect` steps (30 000) |
//!
//! Exit codes: 0 when the script ends (or at an `exit` step with 0); 2 bad invocation or
//! script (also an unbound variable); 3 an expectation failed (mismatch, timeout, unexpected
//! line or EOF), with a diagnostic on stderr; 4 stdout closed; an `exit` step's own code.
//!
//! # Script format
//!
//! A JSON array of steps, or JSON lines with one step per line (blank lines and lines starting
//! with `#` or `//` skipped). Each step is an object with exactly one kind key:
//!
//! | step | meaning |
//! |---|---|
//! | `{"expect": PATTERN, "timeout_ms"?: n}` | read the next stdin line, match it |
//! | `{"expect_unordered": [PATTERN…], "timeout_ms"?: n}` | read one line per pattern, in any order |
//! | `{"send": TEMPLATE}` | write a JSON line |
//! | `{"send_raw": "text", "times"?: n, "newline"?: true}` | write raw text (garbage, oversized lines) |
//! | `{"let": {"name": TEMPLATE, …}}` | bind variables (`{"rid": "$uuid"}`) |
//! | `{"sleep": ms}` | sleep |
//! | `{"exit": code, "stderr"?: "text"}` | write stderr, exit |
//! | `{"signal": n, "stderr"?: "text"}` | write stderr, kill itself with signal n (Unix; exit 2 if the signal does not end it) |
//! | `{"spawn": ["prog", "arg"…], "pid_var"?: "name"}` | start a process that inherits stdout and stderr (stdin `/dev/null`) and is never waited for; bind its pid |
//! | `{"close_stdout": true}` | close stdout (Unix: replaced by `/dev/null`) and go on |
//! | `{"expect_eof": ms}` | stdin must close within ms |
//! | `{"expect_no_line_within": ms}` | the host must write nothing for ms |
//! | `{"repeat": n, "var"?: "i", "from"?: 0, "steps": [STEP…]}` | loop (variables bound in the body are reset each iteration) |
//!
//! Patterns and templates: see [`pattern`] (`$any`, `$absent`, `$name` compare-or-capture,
//! `$>name` capture, `$uuid`, `${name}` splices). Predefined variables: `$pid`, `$session_id`.
//! The script ends with exit code 0 after the last step (write `expect_eof` to wait for the
//! host to close stdin, as the real CLI does).
//!
//! Build scripts in Rust with [`FakeScript`] and the [`canned`] sequences.

pub mod canned;
mod interp;
pub mod pattern;
mod script;

pub use interp::{EXIT_BAD_SCRIPT, EXIT_MISMATCH, EXIT_STDOUT_CLOSED, VERSION_LINE, run_from_env};
pub use script::{FakeScript, ScriptError, Step};

use std::collections::BTreeMap;
use std::io;
use std::path::{Path, PathBuf};

use serde_json::Value;

/// What a `fake-claude` run recorded (see `FAKE_CLAUDE_TRANSCRIPT`).
#[derive(Clone, Debug, PartialEq)]
pub struct Transcript {
    /// `argv[0]`.
    pub program: String,
    /// The arguments after `argv[0]`.
    pub args: Vec<String>,
    /// The selected environment (secrets redacted).
    pub env: BTreeMap<String, String>,
    /// The working directory.
    pub cwd: String,
    /// Every line the host wrote to stdin, without the newline, in order.
    pub lines: Vec<String>,
}

impl Transcript {
    /// Reads a transcript file.
    pub fn read(path: impl AsRef<Path>) -> io::Result<Transcript> {
        let text = std::fs::read_to_string(path)?;
        let mut lines = text.lines();
        let header: Value = lines
            .next()
            .and_then(|l| serde_json::from_str(l).ok())
            .ok_or_else(|| {
                io::Error::new(
                    io::ErrorKind::InvalidData,
                    "transcript has no header record",
                )
            })?;
        let strings = |v: &Value| -> Vec<String> {
            v.as_array()
                .map(|a| {
                    a.iter()
                        .filter_map(Value::as_str)
                        .map(str::to_string)
                        .collect()
                })
                .unwrap_or_default()
        };
        Ok(Transcript {
            program: header["program"].as_str().unwrap_or_default().to_string(),
            args: strings(&header["args"]),
            env: header["env"]
                .as_object()
                .map(|m| {
                    m.iter()
                        .map(|(k, v)| (k.clone(), v.as_str().unwrap_or_default().to_string()))
                        .collect()
                })
                .unwrap_or_default(),
            cwd: header["cwd"].as_str().unwrap_or_default().to_string(),
            lines: lines.map(str::to_string).collect(),
        })
    }

    /// The host's lines parsed as JSON (fails on the first line that is not JSON).
    pub fn json_lines(&self) -> Result<Vec<Value>, serde_json::Error> {
        self.lines.iter().map(|l| serde_json::from_str(l)).collect()
    }

    /// The value after flag `flag` in the arguments (`--model X` → `X`).
    pub fn arg_value(&self, flag: &str) -> Option<&str> {
        self.args
            .iter()
            .position(|a| a == flag)
            .and_then(|i| self.args.get(i + 1))
            .map(String::as_str)
    }

    /// Whether flag `flag` is among the arguments.
    pub fn has_arg(&self, flag: &str) -> bool {
        self.args.iter().any(|a| a == flag)
    }
}

/// Path of the `fake-claude` binary: `$FAKE_CLAUDE_BIN` if set, else `fake-claude` in the
/// cargo target directory of the running test (the parent of `target/<profile>/deps`).
/// Cargo builds it for this crate's own tests; other crates' tests need
/// `cargo build -p claude-tools-testkit --bin fake-claude` first. `None` if not found.
pub fn fake_claude_path() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("FAKE_CLAUDE_BIN") {
        return Some(PathBuf::from(p));
    }
    let exe = std::env::current_exe().ok()?;
    let mut dir = exe.parent()?;
    if dir.ends_with("deps") {
        dir = dir.parent()?;
    }
    let candidate = dir.join(format!("fake-claude{}", std::env::consts::EXE_SUFFIX));
    candidate.exists().then_some(candidate)
}
