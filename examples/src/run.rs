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

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use claude_tools::options::SystemPrompt;
use claude_tools::transport::CliSearch;
use claude_tools::{Message, Options, ResultMessage, ToolServer, query};
use claude_tools_testkit::TempDir;
use claude_tools_testkit::model_server::{ModelServer, Script, inherited_env_to_remove};
use serde_json::Value;

/// The Claude Code CLI version this workspace is tested with (the one `scripts/install-cli`
/// installs).
pub const PINNED_CLI_VERSION: &str = "2.1.332";

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

/// Which model answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ModelChoice {
    /// The real Anthropic API (the CLI reads `ANTHROPIC_API_KEY` from this process).
    Real,
    /// The example's script, played by a model server on 127.0.0.1.
    Scripted,
}

impl ModelChoice {
    /// [`Real`](ModelChoice::Real) when `ANTHROPIC_API_KEY` is set and not empty, unless
    /// `force_scripted`.
    pub fn from_env(force_scripted: bool) -> ModelChoice {
        let has_key = std::env::var_os("ANTHROPIC_API_KEY").is_some_and(|key| !key.is_empty());
        if has_key && !force_scripted {
            ModelChoice::Real
        } else {
            ModelChoice::Scripted
        }
    }
}

/// The command line of an example: `[--scripted] [PROMPT...]`, plus any `--name VALUE` options
/// the example takes out with [`Args::take_value`] before running.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Args {
    /// `--scripted`: the scripted model even when `ANTHROPIC_API_KEY` is set.
    pub scripted: bool,
    /// `-h` / `--help`.
    pub help: bool,
    /// Every other word, in order.
    pub words: Vec<String>,
}

impl Args {
    /// This process's arguments.
    pub fn from_env() -> Args {
        Args::parse(std::env::args().skip(1))
    }

    /// Parses `args` (without the program name).
    pub fn parse(args: impl IntoIterator<Item = String>) -> Args {
        let mut parsed = Args::default();
        for arg in args {
            match arg.as_str() {
                "--scripted" => parsed.scripted = true,
                "-h" | "--help" => parsed.help = true,
                _ => parsed.words.push(arg),
            }
        }
        parsed
    }

    /// A file path from `--flag PATH` (or `--flag=PATH`), else from the environment variable
    /// `env` when it is set and not empty, else `default()`: how the database examples pick
    /// their file.
    pub fn take_path(
        &mut self,
        flag: &str,
        env: &str,
        default: impl FnOnce() -> PathBuf,
    ) -> PathBuf {
        self.take_value(flag)
            .or_else(|| std::env::var(env).ok().filter(|value| !value.is_empty()))
            .map_or_else(default, PathBuf::from)
    }

    /// Removes `--name VALUE` or `--name=VALUE` from the words and returns the value (the last
    /// one when given twice).
    pub fn take_value(&mut self, name: &str) -> Option<String> {
        let mut value = None;
        let mut kept = Vec::new();
        let mut words = std::mem::take(&mut self.words).into_iter();
        while let Some(word) = words.next() {
            if word == name {
                value = words.next();
            } else if let Some(inline) = word.strip_prefix(name).and_then(|w| w.strip_prefix('=')) {
                value = Some(inline.to_string());
            } else {
                kept.push(word);
            }
        }
        self.words = kept;
        value
    }

    /// The words as one prompt, or `None` when there are none.
    pub fn prompt(&self) -> Option<String> {
        (!self.words.is_empty()).then(|| self.words.join(" "))
    }
}

/// One line of the transcript.
#[derive(Debug, Clone, PartialEq)]
pub enum Entry {
    /// Text the assistant wrote (trimmed).
    Assistant(String),
    /// The assistant called a tool. `tool` is the short name for the example's in-process
    /// servers (`create_ticket`), the full name otherwise (`mcp__echo__echo`).
    ToolCall {
        /// The `tool_use` id.
        id: String,
        /// The tool's name.
        tool: String,
        /// Its arguments.
        input: Value,
    },
    /// A tool's result came back to the model.
    ToolResult {
        /// The `tool_use` id it answers.
        id: String,
        /// The tool's name, as in [`Entry::ToolCall`] (`?` if the call was not seen).
        tool: String,
        /// The result's text (trimmed).
        text: String,
        /// Whether it went back as `is_error: true`.
        is_error: bool,
    },
}

/// What one run produced.
#[derive(Debug)]
pub struct Run {
    /// Which model answered.
    pub model: ModelChoice,
    /// The transcript, in order.
    pub transcript: Vec<Entry>,
    /// Every message the CLI sent.
    pub messages: Vec<Message>,
    /// The final `result` message (`None` if the CLI ended without one).
    pub result: Option<ResultMessage>,
    /// How many distinct replies the model sent (the CLI splits each into one message per block).
    pub model_replies: usize,
    /// The scripted model server, with its recordings ([`ModelServer::tool_results`]…); `None`
    /// with the real model.
    pub server: Option<ModelServer>,
    /// Wall time of the run.
    pub elapsed: Duration,
    /// Everything the run printed (or would have printed, when [quiet](Example::quiet)), one
    /// `\n` after each line.
    pub printed: String,
}

impl Run {
    /// Whether the run ended with a successful result.
    pub fn is_success(&self) -> bool {
        self.result.as_ref().is_some_and(ResultMessage::is_success)
    }

    /// The final answer's text (empty without a result).
    pub fn final_text(&self) -> &str {
        self.result
            .as_ref()
            .and_then(|r| r.result.as_deref())
            .unwrap_or("")
            .trim()
    }

    /// Every tool call: `(tool, input)`.
    pub fn tool_calls(&self) -> Vec<(String, Value)> {
        self.transcript
            .iter()
            .filter_map(|entry| match entry {
                Entry::ToolCall { tool, input, .. } => Some((tool.clone(), input.clone())),
                _ => None,
            })
            .collect()
    }

    /// The result of the call `tool_use_id`: `(text, is_error)`. Results of calls made in one
    /// turn arrive in the order they finish, so look them up by id.
    pub fn tool_result(&self, tool_use_id: &str) -> Option<(&str, bool)> {
        self.transcript.iter().find_map(|entry| match entry {
            Entry::ToolResult {
                id, text, is_error, ..
            } if id == tool_use_id => Some((text.as_str(), *is_error)),
            _ => None,
        })
    }

    /// Every tool result in the order it arrived: `(tool, text, is_error)`.
    pub fn tool_results(&self) -> Vec<(String, String, bool)> {
        self.transcript
            .iter()
            .filter_map(|entry| match entry {
                Entry::ToolResult {
                    tool,
                    text,
                    is_error,
                    ..
                } => Some((tool.clone(), text.clone(), *is_error)),
                _ => None,
            })
            .collect()
    }
}

/// Why a run could not start or finish.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RunError {
    /// The Claude Code CLI is not installed where the runner looks.
    #[error(
        "the Claude Code CLI was not found (looked in: {}).\n\
         Install the pinned version with `scripts/install-cli` in the claude-tools repository \
         (it goes to .cache/claude-cli, where the examples find it), or with \
         `npm install @anthropic-ai/claude-code@{PINNED_CLI_VERSION}` and its node_modules/.bin \
         on PATH, or point CLAUDE_CODE_CLI at the `claude` executable.",
        searched.iter().map(|p| p.display().to_string()).collect::<Vec<_>>().join(", ")
    )]
    CliNotFound {
        /// Every place looked at, in order.
        searched: Vec<PathBuf>,
    },
    /// The scripted model server or the throwaway directories could not be set up.
    #[error("cannot set up the run: {0}")]
    Setup(#[from] std::io::Error),
    /// The session failed (the CLI could not start, exited early…).
    #[error(transparent)]
    Session(#[from] claude_tools::Error),
    /// The CLI's output ended without a `result` message.
    #[error("the CLI ended without a result")]
    NoResult,
}

/// The Claude Code CLI: `CLAUDE_CODE_CLI`, then `claude` in `PATH`, then the project-local and
/// home locations the runtime searches, then this workspace's `.cache/claude-cli` (where
/// `scripts/install-cli` puts it, found even when the example runs from another directory).
///
/// Fails with [`RunError::CliNotFound`], whose message says how to install the CLI.
pub fn find_cli() -> Result<PathBuf, RunError> {
    let cached = claude_tools_testkit::workspace_cli_path();
    let cached = std::path::absolute(&cached).unwrap_or(cached);
    find_cli_in(&CliSearch::from_env(), cached)
}

/// [`find_cli`] over a given search and workspace cache path.
fn find_cli_in(search: &CliSearch, cached: PathBuf) -> Result<PathBuf, RunError> {
    match search.find(None) {
        Ok(found) => Ok(found),
        // An explicit CLAUDE_CODE_CLI that names nothing is an error, not a reason to run another.
        Err(claude_tools::Error::CliNotFound { searched }) if search.env_cli.is_some() => {
            Err(RunError::CliNotFound { searched })
        }
        Err(claude_tools::Error::CliNotFound { mut searched }) => {
            if cached.is_file() {
                return Ok(cached);
            }
            searched.push(cached);
            Err(RunError::CliNotFound { searched })
        }
        Err(other) => Err(other.into()),
    }
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

/// Prints unless quiet, and keeps a copy of everything (for [`Run::printed`]).
#[derive(Clone, Default)]
struct Printer {
    quiet: bool,
    copy: Arc<Mutex<String>>,
}

impl Printer {
    fn line(&self, text: &str) {
        if !self.quiet {
            // Not `println!`: a closed pipe (`| head`) must not panic the example.
            use std::io::Write;
            let _ = writeln!(std::io::stdout().lock(), "{text}");
        }
        let mut copy = self.copy.lock().unwrap_or_else(|p| p.into_inner());
        copy.push_str(text);
        copy.push('\n');
    }

    fn take(&self) -> String {
        std::mem::take(&mut *self.copy.lock().unwrap_or_else(|p| p.into_inner()))
    }
}

/// Builds the transcript from the message stream, printing each entry once it is known.
struct Transcript<'a> {
    servers: &'a [String],
    out: Printer,
    entries: Vec<Entry>,
    messages: Vec<Message>,
    names: HashMap<String, String>,
    replies: Vec<String>,
    /// The latest assistant text, printed once something follows it (the last one is the final
    /// answer, printed with the result).
    pending: Option<String>,
    result: Option<ResultMessage>,
}

impl<'a> Transcript<'a> {
    fn new(servers: &'a [String], out: Printer) -> Self {
        Transcript {
            servers,
            out,
            entries: Vec::new(),
            messages: Vec::new(),
            names: HashMap::new(),
            replies: Vec::new(),
            pending: None,
            result: None,
        }
    }

    fn see(&mut self, message: Message) {
        match &message {
            Message::System(system) => {
                if let Some(init) = system.init() {
                    let version = init.claude_code_version.as_deref().unwrap_or("?");
                    let servers: Vec<String> = init
                        .mcp_servers
                        .iter()
                        .map(|s| {
                            let kind = if self.servers.contains(&s.name) {
                                "in-process server"
                            } else {
                                "server"
                            };
                            format!("{kind} `{}`: {}", s.name, s.status)
                        })
                        .collect();
                    self.out.line(&format!(
                        "[Claude Code {version}; {}]\n",
                        servers.join("; ")
                    ));
                }
            }
            Message::Assistant(assistant) => {
                if let Some(id) = &assistant.message.id
                    && !self.replies.contains(id)
                {
                    self.replies.push(id.clone());
                }
                let text = assistant.text();
                if !text.trim().is_empty() {
                    self.flush();
                    self.pending = Some(text.trim().to_string());
                }
                for (id, name, input) in assistant.tool_uses() {
                    self.flush();
                    let tool = self.short_name(name);
                    self.out.line(&format!("  -> {tool} {input}"));
                    self.names.insert(id.to_string(), tool.clone());
                    self.entries.push(Entry::ToolCall {
                        id: id.to_string(),
                        tool,
                        input: input.clone(),
                    });
                }
            }
            Message::User(user) => {
                for (id, content, is_error) in user.tool_results() {
                    self.flush();
                    let tool = self.names.get(id).cloned().unwrap_or_else(|| "?".into());
                    let text = content.map(|c| c.text()).unwrap_or_default();
                    let text = text.trim().to_string();
                    let mark = if is_error { "ERROR " } else { "" };
                    // Continuation lines indented under the result, so the transcript reads.
                    let shown = text.replace('\n', "\n       ");
                    self.out.line(&format!("  <- {tool}: {mark}{shown}"));
                    self.entries.push(Entry::ToolResult {
                        id: id.to_string(),
                        tool,
                        text,
                        is_error,
                    });
                }
            }
            Message::Result(result) => {
                let last = self.pending.take();
                if let Some(text) = last {
                    if Some(text.as_str()) != result.result.as_deref().map(str::trim) {
                        self.out.line(&format!("assistant: {text}"));
                    }
                    self.entries.push(Entry::Assistant(text));
                }
                self.result = Some(result.clone());
            }
            _ => {}
        }
        self.messages.push(message);
    }

    /// `create_ticket` for a tool of the example's in-process servers, the full name otherwise.
    fn short_name(&self, name: &str) -> String {
        self.servers
            .iter()
            .find_map(|server| {
                name.strip_prefix("mcp__")
                    .and_then(|rest| rest.strip_prefix(server.as_str()))
                    .and_then(|rest| rest.strip_prefix("__"))
            })
            .unwrap_or(name)
            .to_string()
    }

    fn flush(&mut self) {
        if let Some(text) = self.pending.take() {
            self.out.line(&format!("assistant: {text}"));
            self.entries.push(Entry::Assistant(text));
        }
    }

    fn finish(mut self, model: ModelChoice, server: Option<ModelServer>, elapsed: Duration) -> Run {
        self.flush();
        Run {
            model,
            transcript: self.entries,
            messages: self.messages,
            result: self.result,
            model_replies: self.replies.len(),
            server,
            elapsed,
            printed: String::new(),
        }
    }
}

/// The final answer and one line of figures: model replies, turns, time, cost, outcome (and with
/// the scripted model, proof that nothing left 127.0.0.1).
fn print_footer(out: &Printer, run: &Run) {
    let Some(result) = &run.result else {
        return;
    };
    out.line(&format!("\n== final answer\n{}\n", run.final_text()));
    let cost = match (run.model, result.total_cost_usd) {
        (ModelChoice::Real, Some(usd)) => format!("${usd:.4}"),
        _ => "n/a (scripted)".to_string(),
    };
    let outcome = if result.is_success() {
        "success".to_string()
    } else {
        format!("{} (error)", result.subtype.as_str())
    };
    out.line(&format!(
        "model replies: {} (the CLI counts {} turns) | duration: {:.2} s (CLI: {} ms) | cost: {cost} | {outcome}",
        run.model_replies,
        result.num_turns,
        run.elapsed.as_secs_f64(),
        result.duration_ms,
    ));
    if let Some(server) = &run.server {
        out.line(&format!(
            "network: {} model requests to 127.0.0.1, {} attempts to go anywhere else",
            server.message_requests().len(),
            server.proxy_attempts().len()
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(args: &[&str]) -> Args {
        Args::parse(args.iter().map(|a| a.to_string()))
    }

    #[test]
    fn a_path_comes_from_its_flag_else_the_default() {
        let unset = "CLAUDE_TOOLS_EXAMPLES_TEST_NEVER_SET";
        let mut args = words(&["--db", "/tmp/a.sqlite3", "hello"]);
        let path = args.take_path("--db", unset, || PathBuf::from("default"));
        assert_eq!(path, PathBuf::from("/tmp/a.sqlite3"));
        let mut args = words(&["--db=/tmp/b.sqlite3"]);
        let path = args.take_path("--db", unset, || PathBuf::from("default"));
        assert_eq!(path, PathBuf::from("/tmp/b.sqlite3"));
        let mut args = words(&["hello"]);
        let path = args.take_path("--db", unset, || PathBuf::from("default"));
        assert_eq!(path, PathBuf::from("default"));
    }

    #[test]
    fn args_split_flags_options_and_prompt_words() {
        let mut args = words(&[
            "--scripted",
            "list",
            "--db",
            "/tmp/x.db",
            "my",
            "--db=/tmp/y.db",
        ]);
        assert_eq!(args.take_value("--db").as_deref(), Some("/tmp/y.db"));
        assert!(args.scripted && !args.help);
        assert_eq!(args.prompt().as_deref(), Some("list my"));
        assert_eq!(words(&[]).prompt(), None);
        assert_eq!(words(&["--db"]).take_value("--db"), None);
    }

    #[test]
    fn the_pinned_version_is_the_one_scripts_install_cli_installs() {
        let script = include_str!("../../scripts/install-cli");
        let pinned = format!("CLAUDE_CODE_VERSION:-{PINNED_CLI_VERSION}}}");
        assert!(
            script.contains(&pinned),
            "scripts/install-cli does not pin {PINNED_CLI_VERSION}"
        );
    }

    #[test]
    fn the_cli_is_searched_then_taken_from_the_workspace_cache_or_reported_missing() {
        let dir = claude_tools_testkit::TempDir::new("find-cli").unwrap();
        let cached = dir.path().join("claude");
        let nowhere = CliSearch::default();
        // Nothing anywhere: the cache is the last place listed.
        match find_cli_in(&nowhere, cached.clone()) {
            Err(RunError::CliNotFound { searched }) => {
                assert_eq!(searched, std::slice::from_ref(&cached))
            }
            other => panic!("{other:?}"),
        }
        std::fs::write(&cached, "#!/bin/sh\n").unwrap();
        assert_eq!(find_cli_in(&nowhere, cached.clone()).unwrap(), cached);
        // CLAUDE_CODE_CLI naming nothing is not overridden by the cache.
        let explicit = CliSearch {
            env_cli: Some(dir.path().join("missing").into_os_string()),
            ..CliSearch::default()
        };
        match find_cli_in(&explicit, cached) {
            Err(RunError::CliNotFound { searched }) => {
                assert_eq!(searched, [dir.path().join("missing")])
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn the_cli_not_found_message_says_how_to_install_it() {
        let error = RunError::CliNotFound {
            searched: vec![PathBuf::from("/nowhere/claude")],
        };
        assert_eq!(
            error.to_string(),
            "the Claude Code CLI was not found (looked in: /nowhere/claude).\n\
             Install the pinned version with `scripts/install-cli` in the claude-tools repository \
             (it goes to .cache/claude-cli, where the examples find it), or with \
             `npm install @anthropic-ai/claude-code@2.1.332` and its node_modules/.bin on PATH, \
             or point CLAUDE_CODE_CLI at the `claude` executable."
        );
    }
}
