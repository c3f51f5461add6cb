//! `ct-bench-claude-tools`: the claude-tools driver — a `#[tool]` `add` served to the fake CLI.
//!
//! `ct-bench-claude-tools <cli> [--sessions S] [--current-thread]` runs S concurrent one-shot
//! `query` sessions (default 1) in one process, all sharing one `ToolServer`. With S > 1 session i
//! gets `$CT_BENCH_STATS.<i>` as its statistics path. The runtime is tokio's default multi-thread
//! one (what `#[tokio::main]` gives), or the current-thread one with `--current-thread`.

use std::process::ExitCode;

use claude_tools::prelude::*;
use claude_tools_bench::env;
use claude_tools_runtime::options::Options;
use claude_tools_runtime::query::query;

/// The bench server.
#[tool_server(name = "bench", version = "1.0.0")]
pub struct Bench;

/// Add two integers.
#[tool(server = Bench, read_only)]
async fn add(
    /// The first term
    a: i64,
    /// The second term
    b: i64,
) -> i64 {
    a.wrapping_add(b)
}

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let mut cli = None;
    let mut sessions = 1usize;
    let mut current_thread = false;
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--sessions" => match args.next().and_then(|v| v.parse().ok()) {
                Some(s) => sessions = s,
                None => return usage(),
            },
            "--current-thread" => current_thread = true,
            _ if cli.is_none() => cli = Some(arg),
            _ => return usage(),
        }
    }
    let Some(cli) = cli else { return usage() };
    let runtime = if current_thread {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
    } else {
        tokio::runtime::Builder::new_multi_thread()
            .enable_all()
            .build()
    };
    let runtime = match runtime {
        Ok(runtime) => runtime,
        Err(e) => {
            eprintln!("ct-bench-claude-tools: runtime: {e}");
            return ExitCode::from(2);
        }
    };
    let stats = std::env::var(env::STATS).ok();
    let failures = runtime.block_on(async move {
        let server = Bench::server();
        let mut tasks = Vec::with_capacity(sessions);
        for i in 0..sessions {
            let mut options = Options::new().cli_path(&cli).mcp_server(server.clone());
            if let Some(path) = &stats
                && sessions > 1
            {
                options = options.env(env::STATS, format!("{path}.{i}"));
            }
            tasks.push(tokio::spawn(run(options)));
        }
        let mut failures = 0;
        for task in tasks {
            match task.await {
                Ok(Ok(())) => {}
                Ok(Err(e)) => {
                    eprintln!("ct-bench-claude-tools: {e}");
                    failures += 1;
                }
                Err(e) => {
                    eprintln!("ct-bench-claude-tools: session task: {e}");
                    failures += 1;
                }
            }
        }
        failures
    });
    if failures == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}

async fn run(options: Options) -> Result<(), String> {
    let mut stream = query("go", options)
        .await
        .map_err(|e| format!("query: {e}"))?;
    while let Some(message) = stream.next().await {
        message.map_err(|e| format!("message: {e}"))?;
    }
    Ok(())
}

fn usage() -> ExitCode {
    eprintln!("usage: ct-bench-claude-tools <path to the CLI> [--sessions S] [--current-thread]");
    ExitCode::from(2)
}
