//! `claude-tools`: installs the Claude Code CLI without npm or Node (`claude-tools install-cli`)
//! and says which CLI a claude-tools program would run (`claude-tools where`). See `--help`.

mod args;
mod progress;

use std::path::Path;
use std::process::ExitCode;
use std::time::Instant;

use claude_tools_runtime::install::{Installed, Installer};
use claude_tools_runtime::transport::CliSearch;

use args::{Command, InstallArgs, USAGE};

fn main() -> ExitCode {
    let command = match args::parse(std::env::args_os().skip(1)) {
        Ok(command) => command,
        Err(message) => {
            eprintln!("claude-tools: {message}\n\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    match command {
        Command::Help => {
            print!("{USAGE}");
            ExitCode::SUCCESS
        }
        Command::Version => {
            println!(
                "claude-tools {} (installs Claude Code {})",
                env!("CARGO_PKG_VERSION"),
                claude_tools_runtime::transport::process::CLI_VERSION
            );
            ExitCode::SUCCESS
        }
        Command::Where => match CliSearch::from_env().find(None) {
            Ok(path) => {
                println!("{}", path.display());
                ExitCode::SUCCESS
            }
            Err(error) => {
                eprintln!("claude-tools: {error}");
                ExitCode::FAILURE
            }
        },
        Command::Install(args) => install(args),
    }
}

fn install(args: InstallArgs) -> ExitCode {
    let mut installer = Installer::new();
    if let Some(version) = args.version {
        installer = installer.version(version);
    }
    if let Some(registry) = args.registry {
        installer = installer.registry(registry);
    }
    if let Some(dir) = args.dir {
        installer = installer.dir(dir);
    }
    if let Some(platform) = args.platform {
        installer = installer.platform(platform);
    }
    if args.check {
        return match installer.installed() {
            Ok(Some(installed)) => {
                println!("{}", installed.executable.display());
                ExitCode::SUCCESS
            }
            Ok(None) => {
                let at = installer
                    .executable()
                    .map(|path| path.display().to_string())
                    .unwrap_or_default();
                eprintln!("claude-tools: the Claude Code CLI is not installed at {at}");
                ExitCode::FAILURE
            }
            Err(error) => {
                eprintln!("claude-tools: {error}");
                ExitCode::FAILURE
            }
        };
    }
    // A first install downloads ~190 MB: say what is happening before it starts.
    if let (Ok(None), Ok(executable)) = (installer.installed(), installer.executable()) {
        eprintln!(
            "installing the Claude Code CLI into {} (a download of about 190 MB)…",
            executable.display()
        );
    }
    let started = Instant::now();
    let (installer, bar) = progress::attach(installer);
    let outcome = installer.install();
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    match outcome {
        Ok(installed) => {
            eprintln!("{}", summary(&installed, started.elapsed().as_secs_f64()));
            if installed.fresh {
                eprintln!("{}", how_it_is_found(&installed.executable));
            }
            println!("{}", installed.executable.display());
            ExitCode::SUCCESS
        }
        Err(error) => {
            eprintln!("claude-tools: {error}");
            ExitCode::FAILURE
        }
    }
}

/// Where the CLI went, and whether a claude-tools program will run it: the runtime's own
/// search, run in this environment, says which CLI it finds.
fn how_it_is_found(executable: &Path) -> String {
    let at = executable.display();
    match CliSearch::from_env().find(None) {
        Ok(found) if found == executable => format!(
            "the CLI is at {at}; claude-tools programs run it when no CLI comes before it in \
             their search (Options::cli_path, CLAUDE_CODE_CLI, `claude` on PATH…): \
             `claude-tools where` shows the one they run"
        ),
        Ok(found) => format!(
            "the CLI is at {at}, but claude-tools programs run {}, which their search finds \
             first: set CLAUDE_CODE_CLI={at} (or Options::cli_path) to run this one",
            found.display()
        ),
        Err(_) => format!(
            "the CLI is at {at}, where claude-tools programs do not look (another directory \
             or version than theirs): set CLAUDE_CODE_CLI={at} (or Options::cli_path) to run it"
        ),
    }
}

/// One line for stderr: what was installed, and what it took.
fn summary(installed: &Installed, seconds: f64) -> String {
    let what = format!("Claude Code {} ({})", installed.version, installed.platform);
    if !installed.fresh {
        return format!("{what} is installed");
    }
    let mb = |bytes: u64| bytes as f64 / 1_000_000.0;
    format!(
        "installed {what}: downloaded {:.1} MB ({} bytes), unpacked {:.1} MB ({} bytes), in {seconds:.1} s",
        mb(installed.downloaded_bytes),
        installed.downloaded_bytes,
        mb(installed.unpacked_bytes),
        installed.unpacked_bytes,
    )
}
