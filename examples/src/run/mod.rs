//! The runner every example's `main` uses: one prompt through the real Claude Code CLI, with the
//! example's tools served in-process, and the transcript printed.
//!
//! Build an [`Example`] from a name, a prompt and the [`Script`] the offline model plays, give it
//! its tool servers ([`Example::server`]), the tools it may call ([`Example::allowed_tools`]) and
//! anything else through [`Example::options`] (hooks, a permission callback, external servers),
//! then call [`Example::main`] from `main`. The model is the real Anthropic API when
//! `ANTHROPIC_API_KEY` is set (words on the command line are then the prompt), and otherwise — or
//! with `--scripted` — the embedded scripted model ([`claude_tools_testkit::model_server`])
//! playing the example's script on 127.0.0.1. The CLI runs with a throwaway HOME and config
//! directory, and is found through `CLAUDE_CODE_CLI`, `PATH`, or the workspace's
//! `.cache/claude-cli` (see [`find_cli`] for the message when it is missing). An example with
//! options of its own takes them out of [`Args`] first ([`Args::take_value`]), hands the rest to
//! [`Example::main_with`], and can add header lines with [`Example::note`]. Tests call
//! [`Example::run`] instead (with [`Example::cli_path`] and [`Example::quiet`]), which returns
//! the [`Run`]: the transcript as [`Entry`] values, what was printed, every message, the result
//! and the scripted model server's recordings.
//!
//! ```no_run
//! use claude_tools::prelude::*;
//! use claude_tools_examples::run::Example;
//! use claude_tools_testkit::model_server::{Script, Turn};
//!
//! #[tool_server(name = "hello", version = "1.0.0")]
//! struct Hello;
//!
//! /// Greet someone.
//! #[tool(server = Hello, read_only)]
//! async fn greet(name: String) -> String {
//!     format!("Hello, {name}!")
//! }
//!
//! #[tokio::main]
//! async fn main() -> std::process::ExitCode {
//!     let script = Script::new()
//!         .turn(Turn::tool_use("toolu_1", "mcp__hello__greet", serde_json::json!({"name": "Ada"})))
//!         .turn(Turn::text("{{tool_result}}"));
//!     Example::new("hello", "Greet Ada.", script)
//!         .server(Hello::server())
//!         .allowed_tools(["mcp__hello__greet"])
//!         .main()
//!         .await
//! }
//! ```

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use claude_tools::options::SystemPrompt;
use claude_tools::{Options, ToolServer, query};
use claude_tools_testkit::TempDir;
use claude_tools_testkit::model_server::{ModelServer, Script, inherited_env_to_remove};

mod args;
mod cli;
mod cli_version;
mod error;
mod model_choice;
mod outcome;
mod printer;
mod transcript;

pub use args::Args;
pub use cli::find_cli;
pub use cli_version::PINNED_CLI_VERSION;
pub use error::RunError;
pub use model_choice::ModelChoice;
pub use outcome::{Entry, Run};

use printer::Printer;
use transcript::{Transcript, print_footer};

/// The default turn limit of an example run.
const DEFAULT_MAX_TURNS: u32 = 10;

/// One example: its prompt, its offline script, its tools and options. See the [module
/// docs](self).
pub struct Example {
    name: String,
    prompt: String,
    script: Script,
    system_prompt: Option<String>,
    servers: Vec<String>,
    allowed: Vec<String>,
    options: Options,
    max_turns: u32,
    cli_path: Option<PathBuf>,
    quiet: bool,
    notes: Vec<String>,
}

impl Example {
    /// An example called `name` (used for its temp directory and error messages) sending
    /// `prompt`, whose scripted model plays `script`.
    pub fn new(name: impl Into<String>, prompt: impl Into<String>, script: Script) -> Example {
        Example {
            name: name.into(),
            prompt: prompt.into(),
            script,
            system_prompt: None,
            servers: Vec::new(),
            allowed: Vec::new(),
            options: Options::new(),
            max_turns: DEFAULT_MAX_TURNS,
            cli_path: None,
            quiet: false,
            notes: Vec::new(),
        }
    }

    /// The system prompt (default: the CLI's own).
    pub fn system_prompt(mut self, text: impl Into<String>) -> Example {
        self.system_prompt = Some(text.into());
        self
    }

    /// Serves `server` in-process. Its tools print by their short names.
    pub fn server(mut self, server: ToolServer) -> Example {
        self.servers.push(server.name().to_string());
        self.options = self.options.mcp_server(server);
        self
    }

    /// Tools the model may call without asking (full names: `mcp__tickets__create_ticket`).
    /// Adds to the list, printed in the header; when given, it replaces an `allowed_tools` set
    /// through [`Example::options`].
    pub fn allowed_tools<S: Into<String>>(mut self, tools: impl IntoIterator<Item = S>) -> Example {
        self.allowed.extend(tools.into_iter().map(Into::into));
        self
    }

    /// Anything else on the [`Options`]: hooks, a permission callback, external servers. The
    /// runner then adds its own settings (working directory, environment, CLI path, no setting
    /// sources, strict MCP config, the turn limit).
    pub fn options(mut self, configure: impl FnOnce(Options) -> Options) -> Example {
        self.options = configure(self.options);
        self
    }

    /// The turn limit (default 10).
    pub fn max_turns(mut self, turns: u32) -> Example {
        self.max_turns = turns;
        self
    }

    /// Runs this CLI instead of searching for one ([`find_cli`]).
    pub fn cli_path(mut self, path: impl Into<PathBuf>) -> Example {
        self.cli_path = Some(path.into());
        self
    }

    /// Prints nothing (for tests: the transcript is in the [`Run`]).
    pub fn quiet(mut self) -> Example {
        self.quiet = true;
        self
    }

    /// A line printed in the header, after the tools (e.g. `database: /tmp/tickets.sqlite3`).
    pub fn note(mut self, line: impl Into<String>) -> Example {
        self.notes.push(line.into());
        self
    }

    /// The whole of an example's `main`: reads the command line ([`Args::from_env`]), runs,
    /// prints, and exits with success only when the agent's run succeeded.
    pub async fn main(self) -> ExitCode {
        self.main_with(Args::from_env()).await
    }

    /// [`Example::main`] with arguments the example already looked at (see
    /// [`Args::take_value`]).
    pub async fn main_with(mut self, args: Args) -> ExitCode {
        if args.help {
            println!(
                "usage: {} [--scripted] [PROMPT...]\n\
                 With ANTHROPIC_API_KEY set the real model answers (PROMPT replaces the \
                 example's); otherwise, or with --scripted, a scripted model on 127.0.0.1.",
                self.name
            );
            return ExitCode::SUCCESS;
        }
        let model = ModelChoice::from_env(args.scripted);
        if let Some(prompt) = args.prompt() {
            match model {
                ModelChoice::Real => self.prompt = prompt,
                ModelChoice::Scripted => eprintln!(
                    "note: the scripted model plays a fixed script, so it gets the example's \
                     prompt; set ANTHROPIC_API_KEY to use your own"
                ),
            }
        }
        let name = self.name.clone();
        match self.run(model).await {
            Ok(run) if run.is_success() => ExitCode::SUCCESS,
            Ok(_) => ExitCode::FAILURE,
            Err(error) => {
                eprintln!("{name} failed: {error}");
                ExitCode::FAILURE
            }
        }
    }

    /// Runs the prompt once with `model` and returns what happened; prints the transcript as
    /// it goes unless [`quiet`](Example::quiet).
    pub async fn run(self, model: ModelChoice) -> Result<Run, RunError> {
        let cli = match &self.cli_path {
            Some(path) => path.clone(),
            None => find_cli()?,
        };
        let server = match model {
            ModelChoice::Real => None,
            ModelChoice::Scripted => Some(ModelServer::try_start(self.script.clone())?),
        };
        let home = TempDir::new(&format!("example-{}", self.name))?;
        let options = self.isolated_options(&cli, home.path(), server.as_ref())?;
        let out = Printer {
            quiet: self.quiet,
            ..Printer::default()
        };
        self.print_header(&out, server.as_ref());

        let started = Instant::now();
        let mut transcript = Transcript::new(&self.servers, out.clone());
        let mut stream = query(self.prompt.as_str(), options).await?;
        while let Some(item) = stream.next().await {
            match item {
                Ok(message) => transcript.see(message),
                Err(error) if error.is_fatal() => return Err(error.into()),
                // A survivable error (a bad line from the CLI) is one skipped item.
                Err(error) => eprintln!("[skipped: {error}]"),
            }
        }
        let mut run = transcript.finish(model, server, started.elapsed());
        drop(home);
        if run.result.is_none() {
            return Err(RunError::NoResult);
        }
        print_footer(&out, &run);
        run.printed = out.take();
        Ok(run)
    }

    /// The example's options plus the runner's: a throwaway HOME and config directory, the
    /// CLI, and with the scripted model, an environment that points the CLI at it and nowhere
    /// else.
    fn isolated_options(
        &self,
        cli: &Path,
        home: &Path,
        server: Option<&ModelServer>,
    ) -> Result<Options, RunError> {
        let work = home.join("work");
        std::fs::create_dir_all(&work)?;
        let mut options = self.options.clone();
        if !self.allowed.is_empty() {
            options = options.allowed_tools(self.allowed.clone());
        }
        let mut options = options
            .setting_sources([])
            .strict_mcp_config()
            .max_turns(self.max_turns)
            .cwd(&work)
            .cli_path(cli);
        if let Some(text) = &self.system_prompt {
            options = options.system_prompt(SystemPrompt::Text(text.clone()));
        }
        match server {
            Some(server) => {
                // Nothing inherited may steer the CLI elsewhere: it talks to our server only.
                for name in inherited_env_to_remove() {
                    options = options.env_remove(name);
                }
                for (name, value) in server.cli_env(home) {
                    options = options.env(name, value);
                }
            }
            None => {
                let config = home.join(".claude");
                let tmp = home.join("tmp");
                std::fs::create_dir_all(&config)?;
                std::fs::create_dir_all(&tmp)?;
                options = options
                    .env("CLAUDE_CONFIG_DIR", config.display().to_string())
                    .env("CLAUDE_CODE_TMPDIR", tmp.display().to_string())
                    .env("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")
                    .env("DISABLE_AUTOUPDATER", "1");
            }
        }
        Ok(options)
    }

    fn print_header(&self, out: &Printer, server: Option<&ModelServer>) {
        match server {
            None => out.line("model:  the Anthropic API (ANTHROPIC_API_KEY is set)"),
            Some(server) => out.line(&format!(
                "model:  scripted, served by this process on {} (set ANTHROPIC_API_KEY for the real one)",
                server.base_url()
            )),
        }
        if self.allowed.is_empty() {
            out.line("tools:  none pre-allowed: each call needs permission");
        } else {
            out.line(&format!("tools:  {}", self.allowed.join(", ")));
        }
        for note in &self.notes {
            out.line(note);
        }
        out.line(&format!("\n> {}\n", self.prompt));
    }
}
