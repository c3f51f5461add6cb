//! The step interpreter behind the `fake-claude` binary.
//!
//! One thread reads stdin line by line, appends each line to the transcript and hands it over a
//! channel; the main thread runs the steps, parsing each expected line once and flushing stdout
//! after every line it writes.

use std::collections::BTreeMap;
use std::io::{self, BufRead, BufWriter, Write};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::pattern::{Vars, match_line, substitute};
use super::script::{FakeScript, Step};
use crate::util::uuid_v4;

/// What `fake-claude --version` prints (the pinned real CLI's answer).
pub const VERSION_LINE: &str = "2.1.332 (Claude Code)";

/// Exit code when an expectation fails (mismatch, timeout, unexpected line or EOF).
pub const EXIT_MISMATCH: i32 = 3;
/// Exit code for a bad invocation or script (missing `FAKE_CLAUDE_SCRIPT`, invalid JSON, unbound variable).
pub const EXIT_BAD_SCRIPT: i32 = 2;
/// Exit code when stdout cannot be written (the host closed it).
pub const EXIT_STDOUT_CLOSED: i32 = 4;

const DEFAULT_EXPECT_TIMEOUT_MS: u64 = 30_000;

enum Input {
    Line(String),
    Eof,
}

struct Failure {
    code: i32,
    message: String,
}

fn fail(code: i32, message: impl Into<String>) -> Failure {
    Failure {
        code,
        message: message.into(),
    }
}

/// Whether an environment variable is worth recording in the transcript header.
fn recorded_env_name(name: &str) -> bool {
    (name.starts_with("CLAUDE") || name.starts_with("ANTHROPIC_") || name.starts_with("MCP_"))
        || matches!(
            name,
            "ENABLE_TOOL_SEARCH" | "HOME" | "PWD" | "HTTP_PROXY" | "HTTPS_PROXY" | "NO_PROXY"
        )
        || name.starts_with("DISABLE_")
}

fn is_secret_name(name: &str) -> bool {
    ["KEY", "TOKEN", "SECRET", "PASSWORD"]
        .iter()
        .any(|s| name.contains(s))
}

/// The transcript header record: argv, selected env (secrets redacted), cwd, pid.
fn header_record() -> Value {
    let mut argv = std::env::args_os().map(|a| a.to_string_lossy().into_owned());
    let program = argv.next().unwrap_or_default();
    let args: Vec<String> = argv.collect();
    let env: BTreeMap<String, String> = std::env::vars_os()
        .filter_map(|(k, v)| Some((k.into_string().ok()?, v.to_string_lossy().into_owned())))
        .filter(|(k, _)| recorded_env_name(k))
        .map(|(k, v)| {
            let v = if is_secret_name(&k) {
                "<redacted>".to_string()
            } else {
                v
            };
            (k, v)
        })
        .collect();
    let cwd = std::env::current_dir()
        .map(|p| p.display().to_string())
        .unwrap_or_default();
    json!({"type": "fake_claude_start", "program": program, "args": args, "env": env,
           "cwd": cwd, "pid": std::process::id()})
}

/// The transcript path with `%p` replaced by this process's pid.
fn transcript_path(raw: &std::ffi::OsStr) -> std::path::PathBuf {
    let text = raw.to_string_lossy();
    if text.contains("%p") {
        std::path::PathBuf::from(text.replace("%p", &std::process::id().to_string()))
    } else {
        std::path::PathBuf::from(raw)
    }
}

/// Runs the fake CLI from the process's argv and environment; returns the exit code.
///
/// `--version` / `-v` anywhere in argv prints [`VERSION_LINE`]. Otherwise the script at
/// `$FAKE_CLAUDE_SCRIPT` is played; `$FAKE_CLAUDE_TRANSCRIPT` (optional; `%p` in it becomes the pid) receives a header
/// record and then every stdin line; `$FAKE_CLAUDE_EXPECT_TIMEOUT_MS` overrides the default
/// 30 s wait of `expect` steps. Diagnostics go to stderr, prefixed `fake-claude:`.
pub fn run_from_env() -> i32 {
    if std::env::args()
        .skip(1)
        .any(|a| a == "--version" || a == "-v")
    {
        println!("{VERSION_LINE}");
        return 0;
    }
    let mut transcript = match std::env::var_os("FAKE_CLAUDE_TRANSCRIPT") {
        None => None,
        Some(path) => match std::fs::File::create(transcript_path(&path)) {
            Ok(f) => {
                let mut w = BufWriter::new(f);
                if writeln!(w, "{}", header_record())
                    .and_then(|_| w.flush())
                    .is_err()
                {
                    eprintln!(
                        "fake-claude: cannot write the transcript {}",
                        path.to_string_lossy()
                    );
                    return EXIT_BAD_SCRIPT;
                }
                Some(w)
            }
            Err(e) => {
                eprintln!(
                    "fake-claude: cannot create the transcript {}: {e}",
                    path.to_string_lossy()
                );
                return EXIT_BAD_SCRIPT;
            }
        },
    };
    let Some(script_path) = std::env::var_os("FAKE_CLAUDE_SCRIPT") else {
        eprintln!("fake-claude: FAKE_CLAUDE_SCRIPT is not set (path of the script to play)");
        return EXIT_BAD_SCRIPT;
    };
    let script = match FakeScript::read_from(&script_path) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("fake-claude: {e}");
            return EXIT_BAD_SCRIPT;
        }
    };
    let default_timeout = std::env::var("FAKE_CLAUDE_EXPECT_TIMEOUT_MS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(DEFAULT_EXPECT_TIMEOUT_MS);

    let (tx, rx) = mpsc::channel();
    let reader = std::thread::Builder::new()
        .name("stdin".into())
        .spawn(move || {
            let stdin = io::stdin();
            let mut r = stdin.lock();
            let mut buf = Vec::with_capacity(8192);
            loop {
                buf.clear();
                match r.read_until(b'\n', &mut buf) {
                    Ok(0) | Err(_) => {
                        let _ = tx.send(Input::Eof);
                        return;
                    }
                    Ok(_) => {
                        while matches!(buf.last(), Some(b'\n' | b'\r')) {
                            buf.pop();
                        }
                        let line = String::from_utf8_lossy(&buf).into_owned();
                        if let Some(t) = transcript.as_mut() {
                            let _ = writeln!(t, "{line}").and_then(|_| t.flush());
                        }
                        if tx.send(Input::Line(line)).is_err() {
                            return;
                        }
                    }
                }
            }
        });
    if let Err(e) = reader {
        eprintln!("fake-claude: cannot start the stdin reader: {e}");
        return EXIT_BAD_SCRIPT;
    }

    let mut vars = Vars::new();
    vars.insert("pid".into(), json!(std::process::id()));
    vars.insert("session_id".into(), json!(uuid_v4()));
    let stdout = io::stdout();
    let mut interp = Interp {
        rx,
        eof: false,
        vars,
        out: BufWriter::with_capacity(64 * 1024, stdout.lock()),
        default_timeout: Duration::from_millis(default_timeout),
    };
    let result = interp.run(script.steps(), "");
    let _ = interp.out.flush();
    match result {
        Ok(()) => 0,
        Err(f) => {
            if !f.message.is_empty() {
                eprintln!("{}", f.message);
            }
            f.code
        }
    }
}

struct Interp<W: Write> {
    rx: Receiver<Input>,
    eof: bool,
    vars: Vars,
    out: W,
    default_timeout: Duration,
}

impl<W: Write> Interp<W> {
    fn next_line(&mut self, timeout: Duration) -> Result<Option<String>, RecvTimeoutError> {
        if self.eof {
            return Ok(None);
        }
        match self.rx.recv_timeout(timeout) {
            Ok(Input::Line(l)) => Ok(Some(l)),
            Ok(Input::Eof) | Err(RecvTimeoutError::Disconnected) => {
                self.eof = true;
                Ok(None)
            }
            Err(RecvTimeoutError::Timeout) => Err(RecvTimeoutError::Timeout),
        }
    }

    fn write_line(&mut self, text: &str) -> Result<(), Failure> {
        self.out
            .write_all(text.as_bytes())
            .and_then(|_| self.out.write_all(b"\n"))
            .and_then(|_| self.out.flush())
            .map_err(|e| {
                fail(
                    EXIT_STDOUT_CLOSED,
                    format!("fake-claude: cannot write stdout: {e}"),
                )
            })
    }

    /// Reads one line for an expectation and parses it.
    fn read_json(
        &mut self,
        at: &str,
        what: &str,
        timeout: Duration,
    ) -> Result<(String, Value), Failure> {
        match self.next_line(timeout) {
            Err(_) => Err(fail(
                EXIT_MISMATCH,
                format!(
                    "fake-claude: step {at} ({what}): no line from the host within {} ms",
                    timeout.as_millis()
                ),
            )),
            Ok(None) => Err(fail(
                EXIT_MISMATCH,
                format!("fake-claude: step {at} ({what}): stdin closed while a line was expected"),
            )),
            Ok(Some(line)) => match serde_json::from_str::<Value>(&line) {
                Ok(v) => Ok((line, v)),
                Err(e) => Err(fail(
                    EXIT_MISMATCH,
                    format!(
                        "fake-claude: step {at} ({what}): the host wrote a line that is not JSON ({e})\n  line: {line}"
                    ),
                )),
            },
        }
    }

    fn run(&mut self, steps: &[Step], prefix: &str) -> Result<(), Failure> {
        for (i, step) in steps.iter().enumerate() {
            let at = format!("{prefix}{i}");
            self.step(step, &at)?;
        }
        Ok(())
    }

    fn timeout(&self, t: Option<u64>) -> Duration {
        t.map(Duration::from_millis).unwrap_or(self.default_timeout)
    }

    fn step(&mut self, step: &Step, at: &str) -> Result<(), Failure> {
        match step {
            Step::Expect {
                pattern,
                timeout_ms,
            } => {
                let (line, value) = self.read_json(at, "expect", self.timeout(*timeout_ms))?;
                match match_line(pattern, &value, &self.vars) {
                    Ok(caps) => {
                        self.vars.extend(caps);
                        Ok(())
                    }
                    Err(m) => Err(fail(
                        EXIT_MISMATCH,
                        format!(
                            "fake-claude: step {at} (expect): line did not match: {m}\n  pattern: {pattern}\n  line:    {line}"
                        ),
                    )),
                }
            }
            Step::ExpectUnordered {
                patterns,
                timeout_ms,
            } => {
                let mut open: Vec<&Value> = patterns.iter().collect();
                while !open.is_empty() {
                    let (line, value) =
                        self.read_json(at, "expect_unordered", self.timeout(*timeout_ms))?;
                    let mut errors = Vec::new();
                    let mut hit = None;
                    for (k, p) in open.iter().enumerate() {
                        match match_line(p, &value, &self.vars) {
                            Ok(caps) => {
                                hit = Some((k, caps));
                                break;
                            }
                            Err(m) => errors.push(format!("  pattern {p}\n    {m}")),
                        }
                    }
                    match hit {
                        Some((k, caps)) => {
                            self.vars.extend(caps);
                            open.remove(k);
                        }
                        None => {
                            return Err(fail(
                                EXIT_MISMATCH,
                                format!(
                                    "fake-claude: step {at} (expect_unordered): line matched none of the {} pattern(s) still open\n  line: {line}\n{}",
                                    open.len(),
                                    errors.join("\n")
                                ),
                            ));
                        }
                    }
                }
                Ok(())
            }
            Step::Send(template) => {
                let value = substitute(template, &self.vars).map_err(|e| {
                    fail(
                        EXIT_BAD_SCRIPT,
                        format!("fake-claude: step {at} (send): {e}"),
                    )
                })?;
                self.write_line(&value.to_string())
            }
            Step::SendRaw {
                text,
                repeat,
                newline,
            } => {
                let mut s = text.repeat(*repeat);
                if *newline {
                    s.push('\n');
                }
                self.out
                    .write_all(s.as_bytes())
                    .and_then(|_| self.out.flush())
                    .map_err(|e| {
                        fail(
                            EXIT_STDOUT_CLOSED,
                            format!("fake-claude: cannot write stdout: {e}"),
                        )
                    })
            }
            Step::Let(bindings) => {
                for (name, template) in bindings {
                    let v = substitute(template, &self.vars).map_err(|e| {
                        fail(
                            EXIT_BAD_SCRIPT,
                            format!("fake-claude: step {at} (let): {e}"),
                        )
                    })?;
                    self.vars.insert(name.clone(), v);
                }
                Ok(())
            }
            Step::Sleep(ms) => {
                std::thread::sleep(Duration::from_millis(*ms));
                Ok(())
            }
            Step::Exit { code, stderr } => {
                let _ = self.out.flush();
                write_stderr(stderr.as_deref());
                Err(fail(*code, ""))
            }
            Step::Signal { signal, stderr } => {
                let _ = self.out.flush();
                write_stderr(stderr.as_deref());
                kill_self(*signal);
                // Only reached when the signal is ignored, caught or not fatal.
                std::thread::sleep(Duration::from_secs(5));
                Err(fail(
                    EXIT_BAD_SCRIPT,
                    format!(
                        "fake-claude: step {at} (signal): signal {signal} did not end the process"
                    ),
                ))
            }
            Step::Spawn { argv, pid_var } => {
                // What was written before must reach the host before anything the child writes.
                self.out.flush().map_err(|e| {
                    fail(
                        EXIT_STDOUT_CLOSED,
                        format!("fake-claude: cannot write stdout: {e}"),
                    )
                })?;
                let child = std::process::Command::new(&argv[0])
                    .args(&argv[1..])
                    .stdin(std::process::Stdio::null())
                    .spawn()
                    .map_err(|e| {
                        fail(
                            EXIT_BAD_SCRIPT,
                            format!("fake-claude: step {at} (spawn): cannot start {argv:?}: {e}"),
                        )
                    })?;
                if let Some(var) = pid_var {
                    self.vars.insert(var.clone(), json!(child.id()));
                }
                // Never waited for: it is the host's grandchild, and may outlive this process.
                drop(child);
                Ok(())
            }
            Step::CloseStdout => {
                let _ = self.out.flush();
                close_stdout().map_err(|e| {
                    fail(
                        EXIT_BAD_SCRIPT,
                        format!("fake-claude: step {at} (close_stdout): {e}"),
                    )
                })
            }
            Step::ExpectEof { timeout_ms } => {
                let deadline = Instant::now() + Duration::from_millis(*timeout_ms);
                match self.next_line(deadline.saturating_duration_since(Instant::now())) {
                    Ok(None) => Ok(()),
                    Ok(Some(line)) => Err(fail(
                        EXIT_MISMATCH,
                        format!(
                            "fake-claude: step {at} (expect_eof): expected stdin to close, got a line\n  line: {line}"
                        ),
                    )),
                    Err(_) => Err(fail(
                        EXIT_MISMATCH,
                        format!(
                            "fake-claude: step {at} (expect_eof): stdin still open after {timeout_ms} ms"
                        ),
                    )),
                }
            }
            Step::ExpectNoLineWithin(ms) => match self.next_line(Duration::from_millis(*ms)) {
                Err(_) => Ok(()),
                Ok(None) => Ok(()),
                Ok(Some(line)) => Err(fail(
                    EXIT_MISMATCH,
                    format!(
                        "fake-claude: step {at} (expect_no_line_within {ms} ms): the host wrote a line\n  line: {line}"
                    ),
                )),
            },
            Step::Repeat {
                times,
                var,
                from,
                steps,
            } => {
                let outer: Vec<String> = self.vars.keys().cloned().collect();
                for k in 0..*times {
                    if self.vars.len() != outer.len() {
                        self.vars.retain(|name, _| outer.contains(name));
                    }
                    if let Some(var) = var {
                        self.vars
                            .insert(var.clone(), json!(from.saturating_add(k as i64)));
                    }
                    self.run(steps, &format!("{at}[iteration {k}]."))?;
                }
                if let Some(var) = var
                    && !outer.contains(var)
                {
                    self.vars.remove(var);
                }
                Ok(())
            }
        }
    }
}

/// Writes `text` (if any) to stderr, ending it with a newline.
fn write_stderr(text: Option<&str>) {
    if let Some(text) = text {
        let mut e = io::stderr().lock();
        let _ = e.write_all(text.as_bytes());
        if !text.ends_with('\n') {
            let _ = e.write_all(b"\n");
        }
        let _ = e.flush();
    }
}

/// Sends `signal` to this process.
#[cfg(unix)]
fn kill_self(signal: i32) {
    // SAFETY: plain system calls on this process's own pid; no memory is involved.
    unsafe {
        libc::kill(libc::getpid(), signal);
    }
}

#[cfg(not(unix))]
fn kill_self(_signal: i32) {}

/// Replaces stdout with `/dev/null`: the pipe to the host is closed, later writes vanish.
#[cfg(unix)]
fn close_stdout() -> io::Result<()> {
    use std::os::fd::AsRawFd;
    let null = std::fs::OpenOptions::new().write(true).open("/dev/null")?;
    // SAFETY: dup2 onto fd 1, which this process owns; `null` stays open for the call.
    if unsafe { libc::dup2(null.as_raw_fd(), 1) } < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

#[cfg(not(unix))]
fn close_stdout() -> io::Result<()> {
    Err(io::Error::new(
        io::ErrorKind::Unsupported,
        "close_stdout needs Unix",
    ))
}
