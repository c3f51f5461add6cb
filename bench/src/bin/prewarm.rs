//! `ct-bench-prewarm`: how long the first tool call of a one-shot query waits, with the real
//! CLI, when the CLI is started only once the prompt is known (`query`) and when it was started
//! and initialized beforehand (`startup`, then `WarmQuery::query`), on demand.
//!
//! `ct-bench-prewarm [--runs N]` runs N sessions of each kind (default 10), alternating, each
//! against the scripted model server on 127.0.0.1 and an isolated HOME: the model's first turn
//! calls an in-process tool, which notes when it runs. Cold: from calling `query` to the tool
//! call. Warm: `startup` first (its own time is reported too), a pause standing for the user
//! typing, then from `WarmQuery::query` to the tool call. Needs the real CLI
//! (`CLAUDE_CODE_CLI`).

use std::process::ExitCode;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use claude_tools::tools::{ToolDefBuilder, ToolServer};
use claude_tools_runtime::options::Options;
use claude_tools_runtime::query::{query, startup};
use claude_tools_testkit::model_server::{ModelServer, Script, Turn, inherited_env_to_remove};
use claude_tools_testkit::{TempDir, claude_cli_path};
use serde_json::json;

/// When the tool ran, once it has.
type Called = Arc<Mutex<Option<Instant>>>;

struct Sample {
    startup: Option<Duration>,
    to_tool_call: Duration,
}

fn server(called: Called) -> Result<ToolServer, String> {
    let mut mark = ToolDefBuilder::new("mark");
    mark.description("Note that the call arrived");
    ToolServer::new("bench", "1.0.0")
        .with_tool(mark, move |_call| {
            let called = called.clone();
            async move {
                let mut slot = called.lock().unwrap_or_else(|p| p.into_inner());
                slot.get_or_insert_with(Instant::now);
                "marked"
            }
        })
        .map_err(|e| e.to_string())
}

async fn one_session(warm: bool) -> Result<Sample, String> {
    let cli = claude_cli_path().ok_or("no CLI: set CLAUDE_CODE_CLI")?;
    let script = Script::new()
        .turn(Turn::tool_use("toolu_mark", "mcp__bench__mark", json!({})))
        .turn(Turn::text("done"));
    let model = ModelServer::start(script).await;
    let home = TempDir::new("prewarm-bench").map_err(|e| e.to_string())?;
    let cwd = home.path().join("work");
    std::fs::create_dir_all(&cwd).map_err(|e| e.to_string())?;
    let called = Called::default();
    let mut options = Options::new()
        .cli_path(cli)
        .cwd(&cwd)
        .setting_sources([])
        .strict_mcp_config()
        .max_turns(2)
        .mcp_server(server(called.clone())?)
        .allowed_tools(["mcp__bench__mark"]);
    for name in inherited_env_to_remove() {
        options = options.env_remove(name);
    }
    for (name, value) in model.cli_env(home.path()) {
        options = options.env(name, value);
    }
    let (start, startup_took, stream) = if warm {
        let begun = Instant::now();
        let warm = startup(options).await.map_err(|e| e.to_string())?;
        let took = begun.elapsed();
        // The user is still typing.
        tokio::time::sleep(Duration::from_millis(500)).await;
        let start = Instant::now();
        (start, Some(took), warm.query("mark it"))
    } else {
        let start = Instant::now();
        let stream = query("mark it", options).await.map_err(|e| e.to_string())?;
        (start, None, stream)
    };
    let messages = stream.collect().await.map_err(|e| e.to_string())?;
    let at = called
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .ok_or_else(|| format!("the tool was never called: {messages:?}"))?;
    Ok(Sample {
        startup: startup_took,
        to_tool_call: at.duration_since(start),
    })
}

/// `median (p25, p75, min, max)` in milliseconds.
fn spread(mut values: Vec<f64>) -> String {
    values.sort_by(f64::total_cmp);
    let at = |q: f64| values[((values.len() - 1) as f64 * q).round() as usize];
    format!(
        "median {:7.1} ms  (p25 {:7.1}, p75 {:7.1}, min {:7.1}, max {:7.1})",
        at(0.5),
        at(0.25),
        at(0.75),
        at(0.0),
        at(1.0)
    )
}

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let mut runs = 10usize;
    while let Some(arg) = args.next() {
        match (arg.as_str(), args.next().and_then(|v| v.parse().ok())) {
            ("--runs", Some(n)) if n > 0 => runs = n,
            _ => {
                eprintln!("usage: ct-bench-prewarm [--runs N]");
                return ExitCode::from(2);
            }
        }
    }
    let runtime = match tokio::runtime::Runtime::new() {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("ct-bench-prewarm: {error}");
            return ExitCode::FAILURE;
        }
    };
    let result = runtime.block_on(async {
        // One warm-up session of each kind: the first spawn of a cold binary is slower.
        one_session(false).await?;
        one_session(true).await?;
        let (mut cold, mut warm) = (Vec::new(), Vec::new());
        for _ in 0..runs {
            cold.push(one_session(false).await?);
            warm.push(one_session(true).await?);
        }
        Ok::<_, String>((cold, warm))
    });
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    match result {
        Ok((cold, warm)) => {
            println!("real CLI, scripted model on 127.0.0.1, {runs} runs of each");
            let cold_calls = cold.iter().map(|s| ms(s.to_tool_call)).collect();
            println!(
                "query (cold):      query → first tool call   {}",
                spread(cold_calls)
            );
            let warm_calls = warm.iter().map(|s| ms(s.to_tool_call)).collect();
            println!(
                "startup (warm):    prompt → first tool call  {}",
                spread(warm_calls)
            );
            let startups = warm.iter().filter_map(|s| s.startup).map(ms).collect();
            println!(
                "                   startup() itself          {}",
                spread(startups)
            );
            ExitCode::SUCCESS
        }
        Err(error) => {
            eprintln!("ct-bench-prewarm: {error}");
            ExitCode::FAILURE
        }
    }
}
