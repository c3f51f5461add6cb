//! The demo: a Claude Code agent calling tools that run inside this process.
//!
//! ```text
//! scripts/demo                 # installs the pinned Claude Code CLI if missing, then runs this
//! scripts/demo --scripted      # the embedded scripted model even when ANTHROPIC_API_KEY is set
//! scripts/demo "my prompt"     # with ANTHROPIC_API_KEY: your own prompt to the real model
//! ```
//!
//! The real Claude Code CLI runs the agent loop. Its model is the real Anthropic API when
//! `ANTHROPIC_API_KEY` is set, and otherwise a scripted Messages API served on 127.0.0.1 by this
//! process (`claude_tools_testkit::model_server`), whose "model" calls the tools of the
//! [`triage`](claude_tools_examples::triage) board and quotes their answers. Either way the tools
//! are ordinary `#[tool]` functions sharing a `Board`, served in-process over the CLI's control
//! protocol, and the transcript shows each call with its arguments and result.
//!
//! The CLI is found through `CLAUDE_CODE_CLI` (which `scripts/demo` sets), `PATH`, or the
//! workspace's `.cache/claude-cli`. Its config, HOME and temp files go to a throwaway directory.

use std::collections::HashMap;
use std::process::ExitCode;
use std::time::Instant;

use claude_tools::options::SystemPrompt;
use claude_tools::{Message, Options, query};
use claude_tools_examples::demo_script;
use claude_tools_examples::triage::{Board, Triage};
use claude_tools_testkit::TempDir;
use claude_tools_testkit::model_server::{ModelServer, inherited_env_to_remove};

const SYSTEM_PROMPT: &str = "You triage bug reports with the triage tools: find the owning team \
of each area, file one ticket per report, then list the open tickets and summarise them briefly.";

const TOOLS: [&str; 4] = [
    "mcp__triage__find_owner",
    "mcp__triage__create_ticket",
    "mcp__triage__list_tickets",
    "mcp__triage__close_ticket",
];

/// Where the model lives.
enum Model {
    /// The real Anthropic API (`ANTHROPIC_API_KEY` is set).
    Real,
    /// The embedded scripted model on 127.0.0.1.
    Scripted(ModelServer),
}

#[tokio::main]
async fn main() -> ExitCode {
    match run().await {
        Ok(code) => code,
        Err(error) => {
            eprintln!("demo failed: {error}");
            ExitCode::FAILURE
        }
    }
}

async fn run() -> Result<ExitCode, Box<dyn std::error::Error>> {
    let mut force_scripted = false;
    let mut words = Vec::new();
    for arg in std::env::args().skip(1) {
        match arg.as_str() {
            "--scripted" => force_scripted = true,
            "-h" | "--help" => {
                println!("usage: demo [--scripted] [PROMPT...]");
                return Ok(ExitCode::SUCCESS);
            }
            _ => words.push(arg),
        }
    }
    let has_key = std::env::var_os("ANTHROPIC_API_KEY").is_some_and(|k| !k.is_empty());
    let model = if has_key && !force_scripted {
        Model::Real
    } else {
        Model::Scripted(ModelServer::try_start(demo_script::script())?)
    };
    let mut prompt = demo_script::PROMPT.to_string();
    if !words.is_empty() {
        match model {
            Model::Real => prompt = words.join(" "),
            Model::Scripted(_) => eprintln!(
                "note: the scripted model plays a fixed script, so it gets the demo's prompt; \
                 set ANTHROPIC_API_KEY to use your own"
            ),
        }
    }

    let home = TempDir::new("demo")?;
    let work = home.path().join("work");
    std::fs::create_dir_all(&work)?;
    let mut options = Options::new()
        .system_prompt(SystemPrompt::Text(SYSTEM_PROMPT.to_string()))
        .mcp_server(Triage::server().with_state(Board::with_default_owners()))
        .allowed_tools(TOOLS)
        .setting_sources([])
        .strict_mcp_config()
        .max_turns(10)
        .cwd(&work);
    match &model {
        Model::Scripted(server) => {
            // Nothing inherited may steer the CLI elsewhere: it talks to our server only.
            for name in inherited_env_to_remove() {
                options = options.env_remove(name);
            }
            for (name, value) in server.cli_env(home.path()) {
                options = options.env(name, value);
            }
        }
        Model::Real => {
            let config = home.path().join(".claude");
            let tmp = home.path().join("tmp");
            std::fs::create_dir_all(&config)?;
            std::fs::create_dir_all(&tmp)?;
            options = options
                .env("CLAUDE_CONFIG_DIR", config.display().to_string())
                .env("CLAUDE_CODE_TMPDIR", tmp.display().to_string())
                .env("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")
                .env("DISABLE_AUTOUPDATER", "1");
        }
    }

    match &model {
        Model::Real => println!("model:  the Anthropic API (ANTHROPIC_API_KEY is set)"),
        Model::Scripted(server) => println!(
            "model:  scripted, served by this process on {} (set ANTHROPIC_API_KEY for the real one)",
            server.base_url()
        ),
    }
    println!("tools:  {}", TOOLS.join(", "));
    println!("\n> {prompt}\n");

    let started = Instant::now();
    let mut stream = query(prompt.as_str(), options).await?;
    let mut names: HashMap<String, String> = HashMap::new();
    let mut replies: Vec<String> = Vec::new();
    // The latest assistant text, printed once something follows it (the last one is the final
    // answer, printed with the result).
    let mut pending: Option<String> = None;
    let flush = |pending: &mut Option<String>| {
        if let Some(text) = pending.take() {
            println!("assistant: {text}");
        }
    };
    let mut outcome = None;
    while let Some(item) = stream.next().await {
        // A fatal error ends the session; a survivable one (a bad line from the CLI) is one
        // skipped item, and the session goes on.
        let message = match item {
            Ok(message) => message,
            Err(error) if error.is_fatal() => return Err(error.into()),
            Err(error) => {
                eprintln!("[skipped: {error}]");
                continue;
            }
        };
        match message {
            Message::System(system) => {
                if let Some(init) = system.init() {
                    let version = init.claude_code_version.as_deref().unwrap_or("?");
                    let triage = init
                        .mcp_server("triage")
                        .map_or("missing", |s| s.status.as_str());
                    println!("[Claude Code {version}; in-process server `triage`: {triage}]\n");
                }
            }
            Message::Assistant(assistant) => {
                if let Some(id) = &assistant.message.id
                    && !replies.contains(id)
                {
                    replies.push(id.clone());
                }
                let text = assistant.text();
                if !text.trim().is_empty() {
                    flush(&mut pending);
                    pending = Some(text.trim().to_string());
                }
                for (id, name, input) in assistant.tool_uses() {
                    flush(&mut pending);
                    let short = name.strip_prefix("mcp__triage__").unwrap_or(name);
                    names.insert(id.to_string(), short.to_string());
                    println!("  -> {short} {input}");
                }
            }
            Message::User(user) => {
                for (id, content, is_error) in user.tool_results() {
                    flush(&mut pending);
                    let name = names.get(id).map_or("?", String::as_str);
                    let text = content.map(|c| c.text()).unwrap_or_default();
                    let mark = if is_error { "ERROR " } else { "" };
                    println!("  <- {name}: {mark}{}", text.trim());
                }
            }
            Message::Result(result) => {
                if pending.as_deref() != result.result.as_deref().map(str::trim) {
                    flush(&mut pending);
                }
                pending = None;
                outcome = Some(result);
            }
            _ => {}
        }
    }
    let elapsed = started.elapsed();
    let Some(result) = outcome else {
        eprintln!("the CLI ended without a result");
        return Ok(ExitCode::FAILURE);
    };
    println!(
        "\n== final answer\n{}\n",
        result.result.as_deref().unwrap_or("").trim()
    );
    let cost = match (&model, result.total_cost_usd) {
        (Model::Real, Some(usd)) => format!("${usd:.4}"),
        _ => "n/a (scripted)".to_string(),
    };
    println!(
        "model replies: {} (the CLI counts {} turns) | duration: {:.2} s (CLI: {} ms) | cost: {cost} | {}",
        replies.len(),
        result.num_turns,
        elapsed.as_secs_f64(),
        result.duration_ms,
        if result.is_success() {
            "success".to_string()
        } else {
            format!("{} (error)", result.subtype)
        }
    );
    if let Model::Scripted(server) = &model {
        let outside = server.proxy_attempts().len();
        println!(
            "network: {} model requests to 127.0.0.1, {outside} attempts to go anywhere else",
            server.message_requests().len()
        );
    }
    Ok(if result.is_success() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}
