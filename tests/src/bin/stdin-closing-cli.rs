//! A stand-in for the Claude Code CLI that answers the host's `initialize`, then closes its stdin
//! and lives on (for 30 s, or until the host kills it), as a CLI that stopped reading does. It
//! writes `{"type":"x_stdin_closed"}` once its stdin is closed, so a test knows that every write
//! of the host's from then on fails with a broken pipe.

use std::io::{BufRead, Write};
use std::time::Duration;

use serde_json::{Value, json};

fn main() {
    let mut line = String::new();
    if std::io::stdin().lock().read_line(&mut line).is_err() {
        std::process::exit(2);
    }
    let request: Value = serde_json::from_str(&line).unwrap_or_default();
    let answer = json!({"type": "control_response", "response": {"subtype": "success",
        "request_id": request["request_id"], "response": {}}});
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "{answer}").and_then(|()| out.flush());
    // SAFETY: close(2) on fd 0, which this process owns and nothing in it reads any more.
    if unsafe { libc::close(0) } != 0 {
        std::process::exit(2);
    }
    let _ = writeln!(out, "{}", json!({"type": "x_stdin_closed"})).and_then(|()| out.flush());
    std::thread::sleep(Duration::from_secs(30));
}
