//! `ct-bench-manifests`: spawn → `system/init` of the real CLI with and without
//! `Options::handshake_manifests`, on demand.
//!
//! `ct-bench-manifests [--runs N] [--servers S]` runs N sessions of each kind (default 15),
//! alternating, each with S in-process servers (default 1) of one tool, against the scripted model
//! server on 127.0.0.1 and an isolated HOME. Per kind it prints the median, quartiles and range of
//! spawn → `initialize` answer and spawn → `system/init` (the prompt is sent as soon as the client
//! is connected, as an application would). Needs the real CLI (`CLAUDE_CODE_CLI`). Which
//! `mcp_message` round trips the CLI skips is shown by the e2e test `handshake_manifests`.

use std::process::ExitCode;
use std::time::{Duration, Instant};

use claude_tools::tools::{ToolDefBuilder, ToolServer};
use claude_tools_runtime::client::Client;
use claude_tools_runtime::options::Options;
use claude_tools_testkit::model_server::{ModelServer, Script, Turn, inherited_env_to_remove};
use claude_tools_testkit::{TempDir, claude_cli_path};

/// One session's figures.
struct Sample {
    initialize: Duration,
    system_init: Duration,
}

/// `count` in-process servers of one tool each.
fn servers(count: usize) -> Vec<ToolServer> {
    (0..count)
        .map(|i| {
            let mut echo = ToolDefBuilder::new("echo");
            echo.description("Echo the text back");
            echo.input().property::<String>("text", None, true);
            ToolServer::new(format!("s{i}"), "1.0.0")
                .with_tool(echo, |_call| async { "echo" })
                .expect("one tool")
        })
        .collect()
}

async fn one_session(manifests: bool, servers_n: usize) -> Result<Sample, String> {
    let cli = claude_cli_path().ok_or("no CLI: set CLAUDE_CODE_CLI")?;
    let server = ModelServer::start(Script::new().turn(Turn::text("Hi."))).await;
    let home = TempDir::new("manifest-bench").map_err(|e| e.to_string())?;
    let cwd = home.path().join("work");
    std::fs::create_dir_all(&cwd).map_err(|e| e.to_string())?;
    let mut options = Options::new()
        .cli_path(cli)
        .cwd(&cwd)
        .setting_sources([])
        .strict_mcp_config()
        .max_turns(1)
        .handshake_manifests(manifests);
    for name in inherited_env_to_remove() {
        options = options.env_remove(name);
    }
    for (name, value) in server.cli_env(home.path()) {
        options = options.env(name, value);
    }
    for tool_server in servers(servers_n) {
        options = options.mcp_server(tool_server);
    }
    let start = Instant::now();
    let mut client = Client::connect(options).await.map_err(|e| e.to_string())?;
    let initialize = start.elapsed();
    client.query("hi").await.map_err(|e| e.to_string())?;
    let system_init = loop {
        match client.next_message().await {
            Some(Ok(message)) => {
                let value = message.to_value();
                if value["type"] == "system" && value["subtype"] == "init" {
                    break start.elapsed();
                }
            }
            Some(Err(error)) if !error.is_fatal() => continue,
            Some(Err(error)) => return Err(error.to_string()),
            None => return Err("the CLI ended before system/init".into()),
        }
    };
    client.receive_response().await.map_err(|e| e.to_string())?;
    client.disconnect().await.map_err(|e| e.to_string())?;
    Ok(Sample {
        initialize,
        system_init,
    })
}

/// `min / p25 / median / p75 / max` in milliseconds.
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

fn report(kind: &str, samples: &[Sample]) {
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    println!("{kind} ({} runs)", samples.len());
    let initialize = samples.iter().map(|s| ms(s.initialize)).collect();
    println!("  spawn → initialize answer  {}", spread(initialize));
    let system_init = samples.iter().map(|s| ms(s.system_init)).collect();
    println!("  spawn → system/init        {}", spread(system_init));
}

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let (mut runs, mut servers_n) = (15usize, 1usize);
    while let Some(arg) = args.next() {
        let value = args.next().and_then(|v| v.parse().ok());
        match (arg.as_str(), value) {
            ("--runs", Some(n)) if n > 0 => runs = n,
            ("--servers", Some(n)) => servers_n = n,
            _ => {
                eprintln!("usage: ct-bench-manifests [--runs N] [--servers S]");
                return ExitCode::from(2);
            }
        }
    }
    let runtime = match tokio::runtime::Runtime::new() {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("ct-bench-manifests: {error}");
            return ExitCode::FAILURE;
        }
    };
    let result = runtime.block_on(async {
        // One warm-up session of each kind: the first spawn of a cold binary is ~1 s slower.
        one_session(false, servers_n).await?;
        one_session(true, servers_n).await?;
        let (mut off, mut on) = (Vec::new(), Vec::new());
        for _ in 0..runs {
            off.push(one_session(false, servers_n).await?);
            on.push(one_session(true, servers_n).await?);
        }
        Ok::<_, String>((off, on))
    });
    match result {
        Ok((off, on)) => {
            println!("{servers_n} in-process server(s), real CLI, scripted model on 127.0.0.1");
            report("manifests off (handshake over mcp_message)", &off);
            report("manifests on (sdkMcpServerManifests)", &on);
            ExitCode::SUCCESS
        }
        Err(error) => {
            eprintln!("ct-bench-manifests: {error}");
            ExitCode::FAILURE
        }
    }
}
