//! `ct-bench-prewarm`: how long the first message and the first tool call of a one-shot query
//! wait, with the real CLI, when the CLI is started only once the prompt is known (`query`),
//! when it was started and initialized beforehand with every option (`startup`, then
//! `WarmQuery::query`), and when a spare was started before the session's folder was known
//! (`prewarm`, then `SpareProcess::claim`).
//!
//! `ct-bench-prewarm [--runs N]` runs N sessions of each kind (default 10), alternating, each
//! against the scripted model server on 127.0.0.1 and an isolated HOME: the model's first turn
//! calls an in-process tool, which notes when it runs. Cold: from calling `query`. Warm:
//! `startup` first (its own time is reported too), a pause standing for the user typing, then
//! from `WarmQuery::query`. Spare: `prewarm` (parked under the config home, its time reported
//! too), the pause, then from `claim` with the session's folder. Needs the real CLI
//! (`CLAUDE_CODE_CLI`).

use std::process::ExitCode;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use claude_tools::tools::{ToolDefBuilder, ToolServer};
use claude_tools_runtime::options::Options;
use claude_tools_runtime::query::{query, startup};
use claude_tools_runtime::spare::{ClaimOptions, prewarm};
use claude_tools_testkit::model_server::{ModelServer, Script, Turn, inherited_env_to_remove};
use claude_tools_testkit::{TempDir, claude_cli_path};
use serde_json::json;

/// When the tool ran, once it has.
type Called = Arc<Mutex<Option<Instant>>>;

/// How the CLI is started.
#[derive(Clone, Copy, PartialEq)]
enum Kind {
    /// `query`: started once the prompt is known.
    Cold,
    /// `startup`: started with every option before the prompt.
    Warm,
    /// `prewarm`: started before the session's folder is known, claimed with it.
    Spare,
}

struct Sample {
    startup: Option<Duration>,
    to_first_message: Duration,
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

async fn one_session(kind: Kind) -> Result<Sample, String> {
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
    let (start, startup_took, mut stream) = match kind {
        Kind::Warm => {
            let begun = Instant::now();
            let warm = startup(options.cwd(&cwd))
                .await
                .map_err(|e| e.to_string())?;
            let took = begun.elapsed();
            // The user is still typing.
            tokio::time::sleep(Duration::from_millis(500)).await;
            let start = Instant::now();
            (start, Some(took), warm.query("mark it"))
        }
        Kind::Spare => {
            // No cwd: parked under the config home until the folder is known.
            let begun = Instant::now();
            let spare = prewarm(options).await.map_err(|e| e.to_string())?;
            let took = begun.elapsed();
            tokio::time::sleep(Duration::from_millis(500)).await;
            let start = Instant::now();
            let claimed = spare
                .claim("mark it", ClaimOptions::new(&cwd))
                .await
                .map_err(|e| e.to_string())?;
            (start, Some(took), claimed.messages)
        }
        Kind::Cold => {
            let start = Instant::now();
            let stream = query("mark it", options.cwd(&cwd))
                .await
                .map_err(|e| e.to_string())?;
            (start, None, stream)
        }
    };
    let mut first_message = None;
    let mut messages = Vec::new();
    while let Some(message) = stream.next().await {
        first_message.get_or_insert_with(Instant::now);
        messages.push(message.map_err(|e| e.to_string())?);
    }
    let first_message = first_message.ok_or("the session sent no message")?;
    let at = called
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .ok_or_else(|| format!("the tool was never called: {messages:?}"))?;
    Ok(Sample {
        startup: startup_took,
        to_first_message: first_message.duration_since(start),
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
        for kind in [Kind::Cold, Kind::Warm, Kind::Spare] {
            one_session(kind).await?;
        }
        let mut samples = [Vec::new(), Vec::new(), Vec::new()];
        for _ in 0..runs {
            for (at, kind) in [Kind::Cold, Kind::Warm, Kind::Spare]
                .into_iter()
                .enumerate()
            {
                samples[at].push(one_session(kind).await?);
            }
        }
        Ok::<_, String>(samples)
    });
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    match result {
        Ok([cold, warm, spare]) => {
            println!("real CLI, scripted model on 127.0.0.1, {runs} runs of each");
            let rows = [
                ("query (cold):      query", &cold),
                ("startup (warm):    prompt", &warm),
                ("prewarm (spare):   claim", &spare),
            ];
            for (label, samples) in rows {
                let first = samples.iter().map(|s| ms(s.to_first_message)).collect();
                println!("{label} → first message   {}", spread(first));
                let calls = samples.iter().map(|s| ms(s.to_tool_call)).collect();
                println!("{label} → first tool call {}", spread(calls));
            }
            let startups = warm.iter().filter_map(|s| s.startup).map(ms).collect();
            println!(
                "startup() itself, before the prompt      {}",
                spread(startups)
            );
            let parks = spare.iter().filter_map(|s| s.startup).map(ms).collect();
            println!("prewarm() itself, before the folder      {}", spread(parks));
            ExitCode::SUCCESS
        }
        Err(error) => {
            eprintln!("ct-bench-prewarm: {error}");
            ExitCode::FAILURE
        }
    }
}
