//! Serves a model-server script for manual runs of the Claude Code CLI.
//!
//! ```text
//! claude-tools-model-server [SCRIPT.json] [--quiet]
//! ```
//!
//! Without a script file it plays the built-in demo script (greet Alice through
//! `mcp__demo__greet`, then quote the tool's answer). It prints the base URL on the first line,
//! then the environment to give the CLI (`export NAME=value` lines), then one line per request
//! on stderr (unless `--quiet`). It serves until killed.

use std::time::Duration;

use claude_tools_testkit::model_server::{ModelServer, Script, inherited_env_to_remove};

fn usage() -> ! {
    eprintln!("usage: claude-tools-model-server [SCRIPT.json] [--quiet]");
    eprintln!("  SCRIPT.json: {{\"turns\": [...]}} or a bare array of turns (see the crate docs);");
    eprintln!("  without it the built-in demo script is served.");
    std::process::exit(2);
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let mut script_path = None;
    let mut quiet = false;
    for arg in std::env::args().skip(1) {
        match arg.as_str() {
            "--quiet" | "-q" => quiet = true,
            "--help" | "-h" => usage(),
            s if s.starts_with('-') => usage(),
            s => script_path = Some(s.to_string()),
        }
    }
    let script = match &script_path {
        None => Script::demo(),
        Some(path) => {
            let text = match std::fs::read_to_string(path) {
                Ok(t) => t,
                Err(e) => {
                    eprintln!("cannot read {path}: {e}");
                    std::process::exit(2);
                }
            };
            match Script::from_json(&text) {
                Ok(s) => s,
                Err(e) => {
                    eprintln!("{path} is not a valid script: {e}");
                    std::process::exit(2);
                }
            }
        }
    };
    let server = match ModelServer::try_start(script) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("cannot start the server: {e}");
            std::process::exit(1);
        }
    };
    let home = std::env::temp_dir().join(format!("ctk-manual-{}", server.addr().port()));
    println!("{}", server.base_url());
    println!(
        "# environment for the CLI (HOME etc. under {}):",
        home.display()
    );
    let removed = inherited_env_to_remove();
    if !removed.is_empty() {
        println!("unset {}", removed.join(" "));
    }
    for (name, value) in server.cli_env(&home) {
        println!("export {name}='{value}'");
    }
    let mut seen = 0;
    loop {
        tokio::time::sleep(Duration::from_millis(100)).await;
        let requests = server.requests();
        if !quiet {
            for r in &requests[seen.min(requests.len())..] {
                let query = r
                    .query
                    .as_deref()
                    .map(|q| format!("?{q}"))
                    .unwrap_or_default();
                eprintln!(
                    "{:>8.3}s {} {}{} -> {:?}{}",
                    r.at.as_secs_f64(),
                    r.method,
                    r.path,
                    query,
                    r.served,
                    if r.is_streaming() { " (stream)" } else { "" }
                );
            }
        }
        seen = requests.len();
    }
}
