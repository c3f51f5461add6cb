//! Fake CLI scripts: the [`Step`]s, their JSON form, and the [`FakeScript`] builder.

use std::io;
use std::path::Path;
use std::time::Duration;

use serde_json::{Map, Value, json};

/// One step of a fake CLI script. See the [module docs](super) for the JSON form.
#[derive(Clone, Debug, PartialEq)]
pub enum Step {
    /// Read the next stdin line and match it against a JSON pattern (see [`super::pattern`]).
    Expect {
        /// The pattern.
        pattern: Value,
        /// How long to wait for the line (default: `FAKE_CLAUDE_EXPECT_TIMEOUT_MS` or 30 s).
        timeout_ms: Option<u64>,
    },
    /// Read as many lines as there are patterns; each must match a distinct pattern, in any order.
    ExpectUnordered {
        /// The patterns.
        patterns: Vec<Value>,
        /// Timeout for each line (default as for `Expect`).
        timeout_ms: Option<u64>,
    },
    /// Write a JSON line to stdout (variables substituted, `$uuid` generated).
    Send(Value),
    /// Write raw text to stdout (no substitution): `text` repeated `repeat` times (JSON key
    /// `times`), then a newline unless `newline` is false. For garbage and oversized lines.
    SendRaw {
        /// The text.
        text: String,
        /// How many times to repeat it (1 = once).
        repeat: usize,
        /// Whether to end with `\n`.
        newline: bool,
    },
    /// Bind variables to instantiated templates (e.g. `{"rid": "$uuid"}`).
    Let(Map<String, Value>),
    /// Sleep this many milliseconds.
    Sleep(u64),
    /// Write `stderr` (if any) to stderr, then exit with `code`.
    Exit {
        /// The exit code.
        code: i32,
        /// Text written to stderr first.
        stderr: Option<String>,
    },
    /// Write `stderr` (if any) to stderr, then kill this process with signal `signal` (Unix),
    /// so the host sees an exit by a signal rather than with a code.
    Signal {
        /// The signal number (e.g. 9 for `SIGKILL`, 15 for `SIGTERM`).
        signal: i32,
        /// Text written to stderr first.
        stderr: Option<String>,
    },
    /// Start a process (`argv[0]` looked up in `PATH`) that inherits this process's stdout and
    /// stderr (its stdin is `/dev/null`) and is never waited for: a grandchild of the host that
    /// may outlive the fake CLI and hold its pipes. `pid_var` (if any) is bound to its pid.
    Spawn {
        /// The program and its arguments.
        argv: Vec<String>,
        /// The variable bound to the new process's pid.
        pid_var: Option<String>,
    },
    /// Close stdout (Unix: the pipe's end is replaced by `/dev/null`) and carry on: the host
    /// reads the end of its input while this process lives.
    CloseStdout,
    /// Expect stdin to be closed (EOF) within `timeout_ms`; a line instead is a failure.
    ExpectEof {
        /// The timeout.
        timeout_ms: u64,
    },
    /// Expect the host to write nothing for this many milliseconds (EOF is fine).
    ExpectNoLineWithin(u64),
    /// Run `steps` `times` times, binding `var` (if any) to `from`, `from + 1`, …; variables
    /// bound inside the body are unbound again at the start of each iteration.
    Repeat {
        /// Iterations.
        times: u64,
        /// The counter variable.
        var: Option<String>,
        /// The counter's first value.
        from: i64,
        /// The body.
        steps: Vec<Step>,
    },
}

/// Why a script could not be read.
#[derive(Debug, thiserror::Error)]
pub enum ScriptError {
    /// A line or the whole text is not JSON.
    #[error("script is not valid JSON (line {line}): {source}")]
    Json {
        /// 1-based line (JSON lines format) or 0 (array format).
        line: usize,
        /// The parse error.
        source: serde_json::Error,
    },
    /// A step object is malformed.
    #[error("step {index}: {message}")]
    Step {
        /// 0-based step index (nested steps count within their `repeat`).
        index: usize,
        /// What is wrong.
        message: String,
    },
    /// The script file could not be read.
    #[error("cannot read script {path}: {source}")]
    Io {
        /// The path.
        path: String,
        /// The error.
        source: io::Error,
    },
}

const KINDS: [&str; 13] = [
    "expect",
    "expect_unordered",
    "send",
    "send_raw",
    "let",
    "sleep",
    "exit",
    "signal",
    "spawn",
    "close_stdout",
    "expect_eof",
    "expect_no_line_within",
    "repeat",
];

fn opt_u64(obj: &Map<String, Value>, key: &str) -> Result<Option<u64>, String> {
    match obj.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(v) => v
            .as_u64()
            .map(Some)
            .ok_or_else(|| format!("`{key}` must be a non-negative integer")),
    }
}

fn opt_string(obj: &Map<String, Value>, key: &str) -> Result<Option<String>, String> {
    match obj.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(v) => v
            .as_str()
            .map(|s| Some(s.to_string()))
            .ok_or_else(|| format!("`{key}` must be a string")),
    }
}

impl Step {
    /// Reads a step from its JSON object form.
    pub fn from_json(value: &Value) -> Result<Step, String> {
        let obj = value.as_object().ok_or("a step must be a JSON object")?;
        let kinds: Vec<&str> = KINDS
            .iter()
            .copied()
            .filter(|k| obj.contains_key(*k))
            .collect();
        let kind = match kinds.as_slice() {
            [k] => *k,
            [] => return Err(format!("no step kind; expected one of {KINDS:?}")),
            many => return Err(format!("several step kinds in one step: {many:?}")),
        };
        let main = &obj[kind];
        let num = |what: &str| -> Result<u64, String> {
            main.as_u64()
                .ok_or_else(|| format!("`{what}` takes a non-negative integer"))
        };
        Ok(match kind {
            "expect" => Step::Expect {
                pattern: main.clone(),
                timeout_ms: opt_u64(obj, "timeout_ms")?,
            },
            "expect_unordered" => Step::ExpectUnordered {
                patterns: main
                    .as_array()
                    .ok_or("`expect_unordered` takes an array of patterns")?
                    .clone(),
                timeout_ms: opt_u64(obj, "timeout_ms")?,
            },
            "send" => Step::Send(main.clone()),
            "send_raw" => Step::SendRaw {
                text: main
                    .as_str()
                    .ok_or("`send_raw` takes a string")?
                    .to_string(),
                repeat: opt_u64(obj, "times")?.unwrap_or(1) as usize,
                newline: match obj.get("newline") {
                    None => true,
                    Some(v) => v.as_bool().ok_or("`newline` must be a boolean")?,
                },
            },
            "let" => Step::Let(main.as_object().ok_or("`let` takes an object")?.clone()),
            "sleep" => Step::Sleep(num("sleep")?),
            "exit" => Step::Exit {
                code: main
                    .as_i64()
                    .and_then(|c| i32::try_from(c).ok())
                    .ok_or("`exit` takes an integer code")?,
                stderr: opt_string(obj, "stderr")?,
            },
            "signal" => Step::Signal {
                signal: main
                    .as_i64()
                    .and_then(|c| i32::try_from(c).ok())
                    .filter(|c| *c > 0)
                    .ok_or("`signal` takes a positive signal number")?,
                stderr: opt_string(obj, "stderr")?,
            },
            "spawn" => Step::Spawn {
                argv: main
                    .as_array()
                    .and_then(|argv| {
                        argv.iter()
                            .map(|a| a.as_str().map(str::to_string))
                            .collect::<Option<Vec<_>>>()
                    })
                    .filter(|argv| !argv.is_empty())
                    .ok_or("`spawn` takes a non-empty array of strings (the argv)")?,
                pid_var: opt_string(obj, "pid_var")?,
            },
            "close_stdout" => match main {
                Value::Bool(true) => Step::CloseStdout,
                _ => return Err("`close_stdout` takes `true`".into()),
            },
            "expect_eof" => Step::ExpectEof {
                timeout_ms: num("expect_eof")?,
            },
            "expect_no_line_within" => Step::ExpectNoLineWithin(num("expect_no_line_within")?),
            "repeat" => {
                let steps = obj
                    .get("steps")
                    .and_then(Value::as_array)
                    .ok_or("`repeat` needs `steps`: an array of steps")?;
                let steps = steps
                    .iter()
                    .enumerate()
                    .map(|(i, s)| {
                        Step::from_json(s).map_err(|e| format!("in repeat, step {i}: {e}"))
                    })
                    .collect::<Result<Vec<_>, _>>()?;
                Step::Repeat {
                    times: num("repeat")?,
                    var: opt_string(obj, "var")?,
                    from: match obj.get("from") {
                        None => 0,
                        Some(v) => v.as_i64().ok_or("`from` must be an integer")?,
                    },
                    steps,
                }
            }
            _ => unreachable!("kind comes from KINDS"),
        })
    }

    /// The step's JSON object form.
    pub fn to_json(&self) -> Value {
        match self {
            Step::Expect {
                pattern,
                timeout_ms,
            } => {
                let mut v = json!({"expect": pattern});
                if let Some(t) = timeout_ms {
                    v["timeout_ms"] = json!(t);
                }
                v
            }
            Step::ExpectUnordered {
                patterns,
                timeout_ms,
            } => {
                let mut v = json!({"expect_unordered": patterns});
                if let Some(t) = timeout_ms {
                    v["timeout_ms"] = json!(t);
                }
                v
            }
            Step::Send(t) => json!({"send": t}),
            Step::SendRaw {
                text,
                repeat,
                newline,
            } => {
                json!({"send_raw": text, "times": repeat, "newline": newline})
            }
            Step::Let(m) => json!({"let": m}),
            Step::Sleep(ms) => json!({"sleep": ms}),
            Step::Exit { code, stderr } => match stderr {
                Some(s) => json!({"exit": code, "stderr": s}),
                None => json!({"exit": code}),
            },
            Step::Signal { signal, stderr } => match stderr {
                Some(s) => json!({"signal": signal, "stderr": s}),
                None => json!({"signal": signal}),
            },
            Step::Spawn { argv, pid_var } => match pid_var {
                Some(var) => json!({"spawn": argv, "pid_var": var}),
                None => json!({"spawn": argv}),
            },
            Step::CloseStdout => json!({"close_stdout": true}),
            Step::ExpectEof { timeout_ms } => json!({"expect_eof": timeout_ms}),
            Step::ExpectNoLineWithin(ms) => json!({"expect_no_line_within": ms}),
            Step::Repeat {
                times,
                var,
                from,
                steps,
            } => json!({
                "repeat": times, "var": var, "from": from,
                "steps": steps.iter().map(Step::to_json).collect::<Vec<_>>(),
            }),
        }
    }
}

fn ms(d: Duration) -> u64 {
    d.as_millis().min(u128::from(u64::MAX)) as u64
}

/// A fake CLI script under construction (or parsed from a file).
///
/// ```
/// use claude_tools_testkit::fake_cli::{FakeScript, canned};
/// use serde_json::json;
/// let script = FakeScript::new()
///     .then(canned::initialize())
///     .expect(json!({"type": "user", "message": {"role": "user", "content": "hi"}}))
///     .then(canned::result("done"))
///     .expect_eof(std::time::Duration::from_secs(5));
/// assert!(script.to_json().starts_with('['));
/// ```
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FakeScript {
    steps: Vec<Step>,
}

impl FakeScript {
    /// An empty script (the fake exits 0 at once).
    pub fn new() -> FakeScript {
        FakeScript::default()
    }

    /// The steps.
    pub fn steps(&self) -> &[Step] {
        &self.steps
    }

    /// Appends a step.
    pub fn step(mut self, step: Step) -> FakeScript {
        self.steps.push(step);
        self
    }

    /// Appends all steps of another script (e.g. a [`canned`](super::canned) sequence).
    pub fn then(mut self, other: FakeScript) -> FakeScript {
        self.steps.extend(other.steps);
        self
    }

    /// Expects the next stdin line to match `pattern`.
    pub fn expect(self, pattern: Value) -> FakeScript {
        self.step(Step::Expect {
            pattern,
            timeout_ms: None,
        })
    }

    /// Expects the next stdin line to match `pattern` within `timeout`.
    pub fn expect_within(self, pattern: Value, timeout: Duration) -> FakeScript {
        self.step(Step::Expect {
            pattern,
            timeout_ms: Some(ms(timeout)),
        })
    }

    /// Expects one line per pattern, in any order.
    pub fn expect_unordered(self, patterns: Vec<Value>) -> FakeScript {
        self.step(Step::ExpectUnordered {
            patterns,
            timeout_ms: None,
        })
    }

    /// Writes a JSON line (template) to stdout.
    pub fn send(self, template: Value) -> FakeScript {
        self.step(Step::Send(template))
    }

    /// Writes `text` and a newline to stdout, verbatim.
    pub fn send_raw(self, text: impl Into<String>) -> FakeScript {
        self.step(Step::SendRaw {
            text: text.into(),
            repeat: 1,
            newline: true,
        })
    }

    /// Writes one line of `len` bytes (`x` repeated) to stdout: an oversized line.
    pub fn send_oversized(self, len: usize) -> FakeScript {
        self.step(Step::SendRaw {
            text: "x".into(),
            repeat: len,
            newline: true,
        })
    }

    /// Binds a variable to an instantiated template (`"$uuid"` for a fresh id).
    pub fn let_var(self, name: &str, template: Value) -> FakeScript {
        let mut m = Map::new();
        m.insert(name.to_string(), template);
        self.step(Step::Let(m))
    }

    /// Sleeps.
    pub fn sleep(self, d: Duration) -> FakeScript {
        self.step(Step::Sleep(ms(d)))
    }

    /// Exits with `code`.
    pub fn exit(self, code: i32) -> FakeScript {
        self.step(Step::Exit { code, stderr: None })
    }

    /// Writes `stderr` to stderr, then exits with `code`.
    pub fn exit_with_stderr(self, code: i32, stderr: impl Into<String>) -> FakeScript {
        self.step(Step::Exit {
            code,
            stderr: Some(stderr.into()),
        })
    }

    /// Writes `stderr` to stderr, then kills the fake with `signal` (Unix).
    pub fn signal_with_stderr(self, signal: i32, stderr: impl Into<String>) -> FakeScript {
        self.step(Step::Signal {
            signal,
            stderr: Some(stderr.into()),
        })
    }

    /// Starts `argv` as a grandchild of the host holding the fake's stdout and stderr, and
    /// binds its pid to `pid_var`.
    pub fn spawn(self, argv: &[&str], pid_var: &str) -> FakeScript {
        self.step(Step::Spawn {
            argv: argv.iter().map(|a| a.to_string()).collect(),
            pid_var: Some(pid_var.to_string()),
        })
    }

    /// Closes the fake's stdout (it goes on running).
    pub fn close_stdout(self) -> FakeScript {
        self.step(Step::CloseStdout)
    }

    /// Expects stdin to be closed within `timeout`.
    pub fn expect_eof(self, timeout: Duration) -> FakeScript {
        self.step(Step::ExpectEof {
            timeout_ms: ms(timeout),
        })
    }

    /// Expects no stdin line for `d`.
    pub fn expect_no_line_within(self, d: Duration) -> FakeScript {
        self.step(Step::ExpectNoLineWithin(ms(d)))
    }

    /// Repeats `body` `times` times with the counter `var` running from `from`.
    pub fn repeat(self, times: u64, var: &str, from: i64, body: FakeScript) -> FakeScript {
        self.step(Step::Repeat {
            times,
            var: Some(var.to_string()),
            from,
            steps: body.steps,
        })
    }

    /// The script as a pretty JSON array.
    pub fn to_json(&self) -> String {
        let steps: Vec<Value> = self.steps.iter().map(Step::to_json).collect();
        serde_json::to_string_pretty(&steps).unwrap_or_default()
    }

    /// The script as JSON lines (one step per line).
    pub fn to_json_lines(&self) -> String {
        let mut out = String::new();
        for s in &self.steps {
            out.push_str(&s.to_json().to_string());
            out.push('\n');
        }
        out
    }

    /// Writes the script (JSON array) to `path`, for `FAKE_CLAUDE_SCRIPT`.
    pub fn write_to(&self, path: impl AsRef<Path>) -> io::Result<()> {
        std::fs::write(path, self.to_json())
    }

    /// Parses a script: a JSON array of steps, or JSON lines (one step per line; blank lines and
    /// lines starting with `#` or `//` are skipped).
    pub fn from_json(text: &str) -> Result<FakeScript, ScriptError> {
        let values: Vec<Value> = if text.trim_start().starts_with('[') {
            serde_json::from_str(text).map_err(|source| ScriptError::Json { line: 0, source })?
        } else {
            let mut v = Vec::new();
            for (i, line) in text.lines().enumerate() {
                let t = line.trim();
                if t.is_empty() || t.starts_with('#') || t.starts_with("//") {
                    continue;
                }
                v.push(serde_json::from_str(t).map_err(|source| ScriptError::Json {
                    line: i + 1,
                    source,
                })?);
            }
            v
        };
        let steps = values
            .iter()
            .enumerate()
            .map(|(index, v)| {
                Step::from_json(v).map_err(|message| ScriptError::Step { index, message })
            })
            .collect::<Result<_, _>>()?;
        Ok(FakeScript { steps })
    }

    /// Reads a script file (see [`FakeScript::from_json`]).
    pub fn read_from(path: impl AsRef<Path>) -> Result<FakeScript, ScriptError> {
        let path = path.as_ref();
        let text = std::fs::read_to_string(path).map_err(|source| ScriptError::Io {
            path: path.display().to_string(),
            source,
        })?;
        FakeScript::from_json(&text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_round_trip_both_formats() {
        let s = FakeScript::new()
            .expect(json!({"type": "user"}))
            .expect_within(json!({"a": 1}), Duration::from_millis(5))
            .expect_unordered(vec![json!({"a": 1}), json!({"b": 2})])
            .send(json!({"x": "$uuid"}))
            .send_raw("garbage")
            .send_oversized(10)
            .let_var("rid", json!("$uuid"))
            .sleep(Duration::from_millis(3))
            .expect_no_line_within(Duration::from_millis(4))
            .repeat(3, "i", 2, FakeScript::new().send(json!({"i": "$i"})))
            .expect_eof(Duration::from_secs(1))
            .exit_with_stderr(1, "bye")
            .signal_with_stderr(9, "killed")
            .spawn(&["sleep", "30"], "gc")
            .step(Step::Spawn {
                argv: vec!["true".into()],
                pid_var: None,
            })
            .close_stdout()
            .exit(0);
        assert_eq!(FakeScript::from_json(&s.to_json()).unwrap(), s);
        assert_eq!(FakeScript::from_json(&s.to_json_lines()).unwrap(), s);
        let lines = "# comment\n{\"sleep\": 1}\n\n// other\n{\"exit\": 2, \"stderr\": \"e\"}\n";
        assert_eq!(
            FakeScript::from_json(lines).unwrap(),
            FakeScript::new()
                .sleep(Duration::from_millis(1))
                .exit_with_stderr(2, "e")
        );
    }

    #[test]
    fn bad_steps_are_reported() {
        let e = FakeScript::from_json(r#"[{"sleep": 1}, {"wat": 1}]"#).unwrap_err();
        assert!(e.to_string().starts_with("step 1: no step kind"), "{e}");
        let e = FakeScript::from_json(r#"[{"send": 1, "sleep": 2}]"#).unwrap_err();
        assert_eq!(
            e.to_string(),
            r#"step 0: several step kinds in one step: ["send", "sleep"]"#
        );
        let e = FakeScript::from_json("{\"sleep\": 1}\nnot json").unwrap_err();
        assert!(
            e.to_string()
                .starts_with("script is not valid JSON (line 2)"),
            "{e}"
        );
        let e = FakeScript::from_json(r#"[{"spawn": []}]"#).unwrap_err();
        assert_eq!(
            e.to_string(),
            "step 0: `spawn` takes a non-empty array of strings (the argv)"
        );
        let e = FakeScript::from_json(r#"[{"signal": 0}]"#).unwrap_err();
        assert_eq!(
            e.to_string(),
            "step 0: `signal` takes a positive signal number"
        );
        let e = FakeScript::from_json(r#"[{"repeat": 2, "steps": [{"sleep": "x"}]}]"#).unwrap_err();
        assert_eq!(
            e.to_string(),
            "step 0: in repeat, step 0: `sleep` takes a non-negative integer"
        );
    }
}
