//! [`Options`]: how to launch the CLI and what the session serves to it.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use serde_json::{Map, Value, json};

use crate::hooks::{HookEvent, HookMatcher};
use crate::permission::{CanUseTool, PermissionDecision, PermissionRequest};
use crate::redact;
use crate::transport::LaunchSpec;
use claude_tools_core::tool::{ToolRef, ToolServer};

pub use crate::cli::{AGENT_SDK_VERSION, CLIENT_APP, ENTRYPOINT};
pub use crate::transport::DEFAULT_MAX_LINE_SIZE;

/// The system prompt.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum SystemPrompt {
    /// No system prompt of Claude Code's (`--system-prompt ""`), like the official SDKs' default.
    #[default]
    Empty,
    /// This text replaces Claude Code's system prompt.
    Text(String),
    /// Claude Code's own system prompt (the `claude_code` preset), optionally with text appended.
    Preset {
        /// Text appended to the preset.
        append: Option<String>,
    },
}

/// The CLI's permission modes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum PermissionMode {
    /// Ask for anything not allowed by a rule.
    Default,
    /// Accept file edits without asking.
    AcceptEdits,
    /// Plan only, run nothing.
    Plan,
    /// Run everything without asking.
    BypassPermissions,
    /// Deny anything not allowed by a rule, without asking.
    DontAsk,
    /// Let the CLI's classifier decide.
    Auto,
}

impl PermissionMode {
    /// The wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            PermissionMode::Default => "default",
            PermissionMode::AcceptEdits => "acceptEdits",
            PermissionMode::Plan => "plan",
            PermissionMode::BypassPermissions => "bypassPermissions",
            PermissionMode::DontAsk => "dontAsk",
            PermissionMode::Auto => "auto",
        }
    }
}

/// An MCP server the CLI runs itself (not in-process), passed through `--mcp-config`.
///
/// Its `Debug` shows header and environment names, never their values (`<redacted>`).
#[derive(Clone, PartialEq)]
#[non_exhaustive]
pub enum ExternalServer {
    /// A subprocess speaking MCP over stdio.
    Stdio {
        /// The executable.
        command: String,
        /// Its arguments.
        args: Vec<String>,
        /// Its environment.
        env: BTreeMap<String, String>,
    },
    /// Streamable HTTP.
    Http {
        /// The endpoint.
        url: String,
        /// Extra headers.
        headers: BTreeMap<String, String>,
    },
    /// Server-sent events.
    Sse {
        /// The endpoint.
        url: String,
        /// Extra headers.
        headers: BTreeMap<String, String>,
    },
}

impl std::fmt::Debug for ExternalServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ExternalServer::Stdio { command, args, env } => f
                .debug_struct("Stdio")
                .field("command", command)
                .field("args", args)
                .field("env", &redact::NamesOnly::of_map(env))
                .finish(),
            ExternalServer::Http { url, headers } => f
                .debug_struct("Http")
                .field("url", url)
                .field("headers", &redact::NamesOnly::of_map(headers))
                .finish(),
            ExternalServer::Sse { url, headers } => f
                .debug_struct("Sse")
                .field("url", url)
                .field("headers", &redact::NamesOnly::of_map(headers))
                .finish(),
        }
    }
}

impl ExternalServer {
    /// A stdio server.
    pub fn stdio<I, S>(command: impl Into<String>, args: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        ExternalServer::Stdio {
            command: command.into(),
            args: args.into_iter().map(Into::into).collect(),
            env: BTreeMap::new(),
        }
    }

    /// An HTTP server.
    pub fn http(url: impl Into<String>) -> Self {
        ExternalServer::Http {
            url: url.into(),
            headers: BTreeMap::new(),
        }
    }

    /// An SSE server.
    pub fn sse(url: impl Into<String>) -> Self {
        ExternalServer::Sse {
            url: url.into(),
            headers: BTreeMap::new(),
        }
    }

    fn to_json(&self) -> Value {
        match self {
            ExternalServer::Stdio { command, args, env } => {
                let mut config = json!({"type": "stdio", "command": command, "args": args});
                if !env.is_empty() {
                    config["env"] = json!(env);
                }
                config
            }
            ExternalServer::Http { url, headers } | ExternalServer::Sse { url, headers } => {
                let kind = if matches!(self, ExternalServer::Http { .. }) {
                    "http"
                } else {
                    "sse"
                };
                let mut config = json!({"type": kind, "url": url});
                if !headers.is_empty() {
                    config["headers"] = json!(headers);
                }
                config
            }
        }
    }
}

/// A subagent definition, sent in `initialize`.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct AgentDefinition {
    /// When to use the agent.
    pub description: String,
    /// Its system prompt.
    pub prompt: String,
    /// The tools it may use (all when `None`).
    pub tools: Option<Vec<String>>,
    /// Its model (`sonnet`, `opus`, `haiku`, `inherit`, or a model id).
    pub model: Option<String>,
}

impl AgentDefinition {
    /// An agent used when `description` applies, running with `prompt` as its system prompt,
    /// with every tool and the session's model.
    ///
    /// ```
    /// use claude_tools::AgentDefinition;
    ///
    /// let reviewer = AgentDefinition::new("Reviews a diff", "You review diffs.")
    ///     .tools(["Read", "Grep"])
    ///     .model("haiku");
    /// assert_eq!(reviewer.tools, Some(vec!["Read".to_string(), "Grep".to_string()]));
    /// ```
    pub fn new(description: impl Into<String>, prompt: impl Into<String>) -> Self {
        Self {
            description: description.into(),
            prompt: prompt.into(),
            tools: None,
            model: None,
        }
    }

    /// Only these tools.
    pub fn tools(mut self, tools: impl ToolNames) -> Self {
        self.tools = Some(tools.into_names());
        self
    }

    /// This model (`sonnet`, `opus`, `haiku`, `inherit`, or a model id).
    pub fn model(mut self, model: impl Into<String>) -> Self {
        self.model = Some(model.into());
        self
    }
}

/// Where the CLI reads settings from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum SettingSource {
    /// `~/.claude/settings.json`.
    User,
    /// `.claude/settings.json`.
    Project,
    /// `.claude/settings.local.json`.
    Local,
}

impl SettingSource {
    fn as_str(self) -> &'static str {
        match self {
            SettingSource::User => "user",
            SettingSource::Project => "project",
            SettingSource::Local => "local",
        }
    }
}

/// A list of tool names, as [`Options::tools`], [`Options::allowed_tools`] and
/// [`Options::disallowed_tools`] take it: an array, slice or `Vec` of `&str`, or a slice or
/// `Vec` of `String`.
///
/// These few concrete list types, rather than any iterator of anything string-like, are what
/// let an empty `[]` compile: only one of them is an array, so its item type is `&str`.
/// The trait is sealed; collect other iterators into a `Vec` first.
pub trait ToolNames: sealed::Sealed {
    /// The names, owned.
    fn into_names(self) -> Vec<String>;
}

mod sealed {
    pub trait Sealed {}
}

impl<const N: usize> sealed::Sealed for [&str; N] {}
impl<const N: usize> ToolNames for [&str; N] {
    fn into_names(self) -> Vec<String> {
        self.into_iter().map(String::from).collect()
    }
}

impl<const N: usize> sealed::Sealed for &[&str; N] {}
impl<const N: usize> ToolNames for &[&str; N] {
    fn into_names(self) -> Vec<String> {
        self.iter().copied().map(String::from).collect()
    }
}

impl sealed::Sealed for &[&str] {}
impl ToolNames for &[&str] {
    fn into_names(self) -> Vec<String> {
        self.iter().copied().map(String::from).collect()
    }
}

impl sealed::Sealed for Vec<&str> {}
impl ToolNames for Vec<&str> {
    fn into_names(self) -> Vec<String> {
        self.into_iter().map(String::from).collect()
    }
}

impl sealed::Sealed for &[String] {}
impl ToolNames for &[String] {
    fn into_names(self) -> Vec<String> {
        self.to_vec()
    }
}

impl sealed::Sealed for Vec<String> {}
impl ToolNames for Vec<String> {
    fn into_names(self) -> Vec<String> {
        self
    }
}

/// One of the variables that tell the CLI who its host is (see [`Options::entrypoint`]).
struct IdentityVar<'a> {
    /// The environment variable.
    name: &'static str,
    /// The option that sets it, as errors name it.
    option: &'static str,
    /// The value that option set, if any.
    value: Option<&'a str>,
    /// The value without the option.
    default: &'static str,
}

/// A callback for each line the CLI writes to stderr.
pub type StderrCallback = Arc<dyn Fn(&str) + Send + Sync>;

/// How a session is launched and what it serves. Built with chained setters:
///
/// ```
/// use claude_tools::options::{Options, PermissionMode};
///
/// let options = Options::new()
///     .model("claude-sonnet-4-5")
///     .max_turns(4)
///     .allowed_tools(["mcp__tickets__*"])
///     .permission_mode(PermissionMode::AcceptEdits);
/// assert!(options.launch_spec().args.contains(&"--max-turns".to_string()));
/// ```
#[derive(Clone, Default)]
pub struct Options {
    pub(crate) cli_path: Option<PathBuf>,
    pub(crate) model: Option<String>,
    pub(crate) fallback_model: Option<String>,
    pub(crate) system_prompt: SystemPrompt,
    pub(crate) tools: Option<Vec<String>>,
    pub(crate) allowed_tools: Vec<String>,
    pub(crate) disallowed_tools: Vec<String>,
    pub(crate) permission_mode: Option<PermissionMode>,
    pub(crate) max_turns: Option<u32>,
    pub(crate) max_budget_usd: Option<f64>,
    pub(crate) cwd: Option<PathBuf>,
    pub(crate) add_dirs: Vec<PathBuf>,
    pub(crate) env: Vec<(String, String)>,
    pub(crate) env_remove: Vec<String>,
    pub(crate) extra_args: Vec<(String, Option<String>)>,
    pub(crate) setting_sources: Option<Vec<SettingSource>>,
    pub(crate) settings: Option<String>,
    pub(crate) resume: Option<String>,
    pub(crate) continue_conversation: bool,
    pub(crate) fork_session: bool,
    pub(crate) session_id: Option<String>,
    pub(crate) agents: BTreeMap<String, AgentDefinition>,
    pub(crate) include_partial_messages: bool,
    pub(crate) output_schema: Option<Value>,
    pub(crate) max_line_size: Option<usize>,
    pub(crate) stderr: Option<StderrCallback>,
    pub(crate) servers: Vec<ToolServer>,
    pub(crate) external_servers: Vec<(String, ExternalServer)>,
    pub(crate) strict_mcp_config: bool,
    pub(crate) handshake_manifests: bool,
    pub(crate) can_use_tool: Option<CanUseTool>,
    pub(crate) hooks: BTreeMap<String, Vec<HookMatcher>>,
    pub(crate) control_timeout: Option<Duration>,
    pub(crate) run_end_ceiling: Option<Duration>,
    pub(crate) effort: Option<String>,
    pub(crate) entrypoint: Option<String>,
    pub(crate) agent_sdk_version: Option<String>,
    pub(crate) client_app: Option<String>,
    pub(crate) message_queue_limit: Option<usize>,
    pub(crate) input_buffer_limit: Option<usize>,
}

/// Secrets stay out: environment values, MCP headers and the values of `--mcp-config` and
/// `--settings` print as `<redacted>`; names and everything else are shown.
impl std::fmt::Debug for Options {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Options")
            .field("cli_path", &self.cli_path)
            .field("model", &self.model)
            .field("args", &redact::args(&self.launch_spec().args))
            .field("env", &redact::NamesOnly::of_pairs(&self.env))
            .field("env_remove", &self.env_remove)
            .field("servers", &self.servers)
            .field("external_servers", &self.external_servers)
            .field("can_use_tool", &self.can_use_tool.is_some())
            .field("hooks", &self.hooks.keys().collect::<Vec<_>>())
            .finish_non_exhaustive()
    }
}

/// The default time to wait for the CLI to answer a control request.
pub const DEFAULT_CONTROL_TIMEOUT: Duration = Duration::from_secs(60);
/// The default longest wait, after a result, for a CLI that still says `running`.
pub const DEFAULT_RUN_END_CEILING: Duration = Duration::from_secs(600);

/// The default number of messages the session holds for an application that has not read them.
pub const DEFAULT_MESSAGE_QUEUE_LIMIT: usize = 1024;
/// The default number of bytes the session holds for a CLI that is not reading its stdin.
pub const DEFAULT_INPUT_BUFFER_LIMIT: usize = 16 * 1024 * 1024;

impl Options {
    /// Default options: an empty system prompt, no tools of ours, the CLI found on this machine.
    pub fn new() -> Self {
        Self::default()
    }

    /// Use the CLI at this path instead of searching for one.
    pub fn cli_path(mut self, path: impl Into<PathBuf>) -> Self {
        self.cli_path = Some(path.into());
        self
    }

    /// The model (`--model`).
    pub fn model(mut self, model: impl Into<String>) -> Self {
        self.model = Some(model.into());
        self
    }

    /// The fallback model (`--fallback-model`).
    pub fn fallback_model(mut self, model: impl Into<String>) -> Self {
        self.fallback_model = Some(model.into());
        self
    }

    /// The system prompt (default: [`SystemPrompt::Empty`]).
    pub fn system_prompt(mut self, prompt: SystemPrompt) -> Self {
        self.system_prompt = prompt;
        self
    }

    /// Which built-in tools the model has (`--tools`), replacing any earlier list. Without this
    /// call the CLI's default set applies; `["default"]` asks for it explicitly, and an empty
    /// list leaves none (the same as [`no_builtin_tools`](Self::no_builtin_tools)). This
    /// restricts what exists, not what is permitted: for that, see
    /// [`allowed_tools`](Self::allowed_tools). Tools of our own servers are not affected.
    ///
    /// ```
    /// use claude_tools::options::Options;
    ///
    /// let read_only = Options::new().tools(["Read", "Grep"]);
    /// assert!(read_only.launch_spec().args.windows(2).any(|w| w == ["--tools", "Read,Grep"]));
    ///
    /// let none = Options::new().tools([]);
    /// assert!(none.launch_spec().args.windows(2).any(|w| w == ["--tools", ""]));
    /// ```
    pub fn tools(mut self, tools: impl ToolNames) -> Self {
        self.tools = Some(tools.into_names());
        self
    }

    /// Gives the model no built-in tools at all (`--tools ""`), only those of the MCP servers
    /// configured here; the same as `tools([])`.
    ///
    /// ```
    /// use claude_tools::options::Options;
    ///
    /// let args = Options::new().no_builtin_tools().launch_spec().args;
    /// assert!(args.windows(2).any(|w| w == ["--tools", ""]));
    /// ```
    pub fn no_builtin_tools(self) -> Self {
        self.tools([])
    }

    /// Sets the tools the model may use without asking (`--allowedTools`), e.g.
    /// `mcp__tickets__*`, replacing any earlier list; [`allow_tool`](Self::allow_tool) adds one
    /// to it instead. A rule here also means `can_use_tool` is not asked about that tool.
    ///
    /// Rules are strings the CLI matches, so a typo would allow nothing. Two checks catch it:
    /// a rule `mcp__{server}__{tool}` for one of the [`mcp_server`](Self::mcp_server)s given
    /// here must name one of its tools (or hold a `*`), or the session refuses to start with an
    /// [`InvalidOptions`](crate::Error::InvalidOptions) error naming the rule; and the typed
    /// forms need no string at all: [`allow`](Self::allow) (a `#[tool]` fn's name, checked by
    /// the compiler), [`allow_server`](Self::allow_server),
    /// [`allow_read_only_tools`](Self::allow_read_only_tools), or the names
    /// [`ToolServer::qualified_names`] returns.
    ///
    /// ```
    /// use claude_tools::options::Options;
    ///
    /// let options = Options::new()
    ///     .allowed_tools(["Read"])
    ///     .allowed_tools(["mcp__tickets__*"]) // replaces ["Read"]
    ///     .allow_tool("mcp__calc__add"); // adds to it
    /// let args = options.launch_spec().args;
    /// assert!(args.windows(2).any(|w| w == ["--allowedTools", "mcp__tickets__*,mcp__calc__add"]));
    /// ```
    pub fn allowed_tools(mut self, tools: impl ToolNames) -> Self {
        self.allowed_tools = tools.into_names();
        self
    }

    /// Adds one tool (or rule, e.g. `Bash(git *)`) to those allowed without asking
    /// (`--allowedTools`); see [`allowed_tools`](Self::allowed_tools).
    pub fn allow_tool(mut self, tool: impl Into<String>) -> Self {
        self.allowed_tools.push(tool.into());
        self
    }

    /// Sets the tools the model may not use (`--disallowedTools`), replacing any earlier list;
    /// [`disallow_tool`](Self::disallow_tool) adds one to it instead.
    ///
    /// ```
    /// use claude_tools::options::Options;
    ///
    /// let options = Options::new().disallowed_tools(["WebFetch"]).disallow_tool("Bash");
    /// let args = options.launch_spec().args;
    /// assert!(args.windows(2).any(|w| w == ["--disallowedTools", "WebFetch,Bash"]));
    /// ```
    pub fn disallowed_tools(mut self, tools: impl ToolNames) -> Self {
        self.disallowed_tools = tools.into_names();
        self
    }

    /// Adds one tool (or rule) to those the model may not use (`--disallowedTools`); see
    /// [`disallowed_tools`](Self::disallowed_tools).
    pub fn disallow_tool(mut self, tool: impl Into<String>) -> Self {
        self.disallowed_tools.push(tool.into());
        self
    }

    /// Allows tool `T` without asking (`--allowedTools`), named by the type `#[tool]` emits
    /// for it, so a misspelt tool is a compile error instead of a rule that matches nothing
    /// (see [`ToolRef`]). Adds to the list, like
    /// [`allow_tool`](Self::allow_tool).
    pub fn allow<T: ToolRef>(self) -> Self {
        self.allow_tool(T::QUALIFIED)
    }

    /// Refuses tool `T` (`--disallowedTools`), named by the type `#[tool]` emits for it (see
    /// [`allow`](Self::allow)). Adds to the list, like [`disallow_tool`](Self::disallow_tool).
    pub fn disallow<T: ToolRef>(self) -> Self {
        self.disallow_tool(T::QUALIFIED)
    }

    /// Allows every tool of `server` without asking, with the server-wide rule `mcp__{name}`
    /// (which the CLI matches against every `mcp__{name}__*` tool, including tools the server
    /// gains later). Adds to the list, like [`allow_tool`](Self::allow_tool).
    ///
    /// ```
    /// use claude_tools::Options;
    /// use claude_tools::ToolServer;
    ///
    /// let shop = ToolServer::new("shop", "1.0.0");
    /// let args = Options::new().allow_server(&shop).mcp_server(shop).launch_spec().args;
    /// assert!(args.windows(2).any(|w| w == ["--allowedTools", "mcp__shop"]));
    /// ```
    pub fn allow_server(self, server: &ToolServer) -> Self {
        self.allow_tool(format!("mcp__{}", server.name()))
    }

    /// Allows without asking the tools of `server` annotated read-only (`#[tool(read_only)]`,
    /// `ToolDefBuilder::read_only(true)`), each by its qualified name; the others still go
    /// through the permission mode and `can_use_tool`. Adds to the list, like
    /// [`allow_tool`](Self::allow_tool).
    ///
    /// ```
    /// use claude_tools::Options;
    /// use claude_tools::{ToolDefBuilder, ToolServer};
    ///
    /// let shop = ToolServer::new("shop", "1.0.0")
    ///     .with_typed_tool(ToolDefBuilder::new("search").read_only(true), || async { "" })
    ///     .and_then(|shop| shop.with_typed_tool("buy", || async { "" }))
    ///     .unwrap();
    /// let args = Options::new().allow_read_only_tools(&shop).launch_spec().args;
    /// assert!(args.windows(2).any(|w| w == ["--allowedTools", "mcp__shop__search"]));
    /// ```
    pub fn allow_read_only_tools(mut self, server: &ToolServer) -> Self {
        self.allowed_tools
            .extend(server.read_only_qualified_names());
        self
    }

    /// The permission mode (`--permission-mode`).
    pub fn permission_mode(mut self, mode: PermissionMode) -> Self {
        self.permission_mode = Some(mode);
        self
    }

    /// The most agent turns per prompt (`--max-turns`).
    pub fn max_turns(mut self, turns: u32) -> Self {
        self.max_turns = Some(turns);
        self
    }

    /// The most to spend, in USD (`--max-budget-usd`).
    pub fn max_budget_usd(mut self, usd: f64) -> Self {
        self.max_budget_usd = Some(usd);
        self
    }

    /// The CLI's working directory.
    pub fn cwd(mut self, dir: impl Into<PathBuf>) -> Self {
        self.cwd = Some(dir.into());
        self
    }

    /// An extra directory the agent may use (`--add-dir`).
    pub fn add_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.add_dirs.push(dir.into());
        self
    }

    /// An environment variable for the CLI (on top of the inherited environment). It wins over
    /// the value this crate would set for the same variable ([`Options::entrypoint`],
    /// [`Options::agent_sdk_version`], [`Options::client_app`],
    /// `CLAUDE_CODE_SDK_READS_SESSION_STATE`). A name that is empty or holds `=` or NUL, or a
    /// value holding NUL, makes connecting fail with
    /// [`Error::InvalidOptions`](crate::Error::InvalidOptions). `Debug` output shows the name only.
    pub fn env(mut self, key: impl Into<String>, value: impl Into<String>) -> Self {
        self.env.push((key.into(), value.into()));
        self
    }

    /// Removes an inherited environment variable from the CLI's environment. Naming
    /// `CLAUDE_CODE_ENTRYPOINT`, `CLAUDE_AGENT_SDK_VERSION` or `CLAUDE_AGENT_SDK_CLIENT_APP`
    /// also keeps this crate from setting it.
    pub fn env_remove(mut self, key: impl Into<String>) -> Self {
        self.env_remove.push(key.into());
        self
    }

    /// The `CLAUDE_CODE_ENTRYPOINT` the CLI runs with (default [`ENTRYPOINT`]). The CLI treats
    /// only `sdk-ts`, `sdk-py` and `sdk-cli` as SDK hosts; see [`ENTRYPOINT`] for what changes.
    /// A value set with [`Options::env`] wins over this one.
    pub fn entrypoint(mut self, entrypoint: impl Into<String>) -> Self {
        self.entrypoint = Some(entrypoint.into());
        self
    }

    /// The `CLAUDE_AGENT_SDK_VERSION` the CLI runs with (default [`AGENT_SDK_VERSION`]), sent
    /// in the User-Agent as `agent-sdk/<version>`; an empty value leaves it out. A value set
    /// with [`Options::env`] wins over this one.
    pub fn agent_sdk_version(mut self, version: impl Into<String>) -> Self {
        self.agent_sdk_version = Some(version.into());
        self
    }

    /// The `CLAUDE_AGENT_SDK_CLIENT_APP` the CLI runs with (default [`CLIENT_APP`]), sent as the
    /// `x-client-app` header and in the User-Agent as `client-app/<app>`: name your
    /// application here (e.g. `"ticket-bot/2.1"`); an empty value leaves it out. A value set
    /// with [`Options::env`] wins over this one.
    pub fn client_app(mut self, app: impl Into<String>) -> Self {
        self.client_app = Some(app.into());
        self
    }

    /// Any other CLI flag: `--flag` (no value) or `--flag value`.
    pub fn extra_arg(mut self, flag: impl Into<String>, value: Option<String>) -> Self {
        self.extra_args.push((flag.into(), value));
        self
    }

    /// Where settings are read from (`--setting-sources`); an empty list isolates the session
    /// from every settings file.
    pub fn setting_sources(mut self, sources: impl IntoIterator<Item = SettingSource>) -> Self {
        self.setting_sources = Some(sources.into_iter().collect());
        self
    }

    /// Settings JSON or a path to a settings file (`--settings`).
    pub fn settings(mut self, settings: impl Into<String>) -> Self {
        self.settings = Some(settings.into());
        self
    }

    /// Resume a session by id (`--resume`).
    pub fn resume(mut self, session_id: impl Into<String>) -> Self {
        self.resume = Some(session_id.into());
        self
    }

    /// Continue the most recent conversation (`--continue`).
    pub fn continue_conversation(mut self) -> Self {
        self.continue_conversation = true;
        self
    }

    /// When resuming, fork to a new session id (`--fork-session`).
    pub fn fork_session(mut self) -> Self {
        self.fork_session = true;
        self
    }

    /// Use this session id (`--session-id`, a UUID).
    pub fn session_id(mut self, id: impl Into<String>) -> Self {
        self.session_id = Some(id.into());
        self
    }

    /// A subagent.
    pub fn agent(mut self, name: impl Into<String>, agent: AgentDefinition) -> Self {
        self.agents.insert(name.into(), agent);
        self
    }

    /// Stream partial messages as `stream_event`s (`--include-partial-messages`).
    pub fn include_partial_messages(mut self) -> Self {
        self.include_partial_messages = true;
        self
    }

    /// Ask for structured output matching this JSON Schema (`--json-schema`).
    pub fn output_schema(mut self, schema: Value) -> Self {
        self.output_schema = Some(schema);
        self
    }

    /// The reasoning effort (`--effort`: low, medium, high, xhigh, max).
    pub fn effort(mut self, effort: impl Into<String>) -> Self {
        self.effort = Some(effort.into());
        self
    }

    /// The cap on one line from the CLI, in bytes (default [`DEFAULT_MAX_LINE_SIZE`], 64 MiB;
    /// `usize::MAX` for none).
    ///
    /// The session buffers at most one line, so this bounds its memory per line (parsing one
    /// needs about as much again). A longer line is skipped as it arrives, never buffered whole:
    /// a control request on it is still answered, with an error that gives the line's size and
    /// this cap (an `isError` result for a tool call whose JSON-RPC id precedes its arguments),
    /// and the message stream gets [`Error::LineTooLong`](crate::Error::LineTooLong) naming the
    /// request.
    pub fn max_line_size(mut self, bytes: usize) -> Self {
        self.max_line_size = Some(bytes);
        self
    }

    /// A callback for each line the CLI writes to stderr (it is logged at debug level anyway).
    pub fn stderr(mut self, callback: impl Fn(&str) + Send + Sync + 'static) -> Self {
        self.stderr = Some(Arc::new(callback));
        self
    }

    /// Serves an in-process tool server; the model sees its tools as `mcp__{name}__{tool}`.
    /// Each server needs a name of its own: a second server (in-process or
    /// [external](Self::external_mcp_server)) under the same name is refused with
    /// [`Error::InvalidOptions`](crate::Error::InvalidOptions) when the session starts.
    pub fn mcp_server(mut self, server: ToolServer) -> Self {
        self.servers.push(server);
        self
    }

    /// Adds an MCP server the CLI runs itself, under `name`, which no other server here may
    /// use (see [`mcp_server`](Self::mcp_server)).
    pub fn external_mcp_server(mut self, name: impl Into<String>, server: ExternalServer) -> Self {
        self.external_servers.push((name.into(), server));
        self
    }

    /// Use only the MCP servers given here, ignoring any configured elsewhere.
    pub fn strict_mcp_config(mut self) -> Self {
        self.strict_mcp_config = true;
        self
    }

    /// Hands the CLI each in-process server's MCP handshake in the `initialize` request, as the
    /// official TypeScript SDK does (off by default).
    ///
    /// On: the in-process servers are named in the `initialize` request (`sdkMcpServers`)
    /// instead of `--mcp-config`, with their `initialize` and `tools/list` results
    /// (`sdkMcpServerManifests`), so the CLI can answer its own MCP client from them and skip the
    /// `initialize`, `notifications/initialized` and `tools/list` round trips over `mcp_message`.
    /// Whether it did is in [`Client::server_info`](crate::client::Client::server_info) under
    /// `sdk_mcp_manifests_parked` (`"parked"` per server when taken). A CLI that does not take a
    /// manifest handshakes over `mcp_message` as usual, which the session answers in any case.
    ///
    /// Off by default, because the CLI gains nothing measurable from it: with the pinned CLI
    /// (2.1.330) the round trips are skipped, but spawn → `system/init` moved from a median of
    /// 824 ms to 803 ms with one server and from 887 ms to 849 ms with five, well inside the
    /// spread between runs (interquartile ranges of 110 to 225 ms; `ct-bench-manifests` in
    /// `bench/`, 2 cores). The servers' answers take microseconds; the CLI's own start dominates.
    ///
    /// ```
    /// use claude_tools::options::Options;
    /// use claude_tools::tools::ToolServer;
    ///
    /// let options = Options::new()
    ///     .mcp_server(ToolServer::new("calc", "1.0.0"))
    ///     .handshake_manifests(true);
    /// // The server is named in the initialize request, not on the command line.
    /// assert!(!options.launch_spec().args.contains(&"--mcp-config".to_string()));
    /// ```
    pub fn handshake_manifests(mut self, on: bool) -> Self {
        self.handshake_manifests = on;
        self
    }

    /// Ask this callback before any tool runs that no rule allows. Launches the CLI with
    /// `--permission-prompt-tool stdio`.
    pub fn can_use_tool<F, Fut>(mut self, callback: F) -> Self
    where
        F: Fn(PermissionRequest) -> Fut + Send + Sync + 'static,
        Fut: std::future::Future<Output = PermissionDecision> + Send + 'static,
    {
        self.can_use_tool = Some(CanUseTool::new(callback));
        self
    }

    /// Registers hook callbacks for an event.
    pub fn hook(mut self, event: HookEvent, matcher: HookMatcher) -> Self {
        self.hooks
            .entry(event.as_str().to_string())
            .or_default()
            .push(matcher);
        self
    }

    /// How long to wait for the CLI to answer a control request (default 60 s).
    pub fn control_timeout(mut self, timeout: Duration) -> Self {
        self.control_timeout = Some(timeout);
        self
    }

    /// After a result, the longest time stdin stays open for a CLI that still reports `running`
    /// (default 10 minutes). Applies to one-shot queries.
    pub fn run_end_ceiling(mut self, ceiling: Duration) -> Self {
        self.run_end_ceiling = Some(ceiling);
        self
    }

    /// The most messages (and errors) held for an application that has not read them yet
    /// (default [`DEFAULT_MESSAGE_QUEUE_LIMIT`], at least 1).
    ///
    /// At the limit the session stops reading the CLI's stdout until the application reads a
    /// message; the CLI is then paused by its own full pipe. Nothing is dropped, but nothing
    /// else from the CLI is read meanwhile either: its tool calls, hooks and permission requests
    /// wait too, and a host request ([`Client::interrupt`](crate::client::Client::interrupt),
    /// `set_model`…) fails with [`Error::Timeout`](crate::Error::Timeout) after the control
    /// timeout instead of hanging. Read the messages (or drop the stream) to go on.
    pub fn message_queue_limit(mut self, messages: usize) -> Self {
        self.message_queue_limit = Some(messages);
        self
    }

    /// The most bytes held for a CLI that is not reading its stdin (default
    /// [`DEFAULT_INPUT_BUFFER_LIMIT`]).
    ///
    /// Above the limit the session stops reading the CLI's stdout (so no new requests come, and
    /// no new answers pile up) until the CLI has read enough of its input. A single line larger
    /// than the limit (a huge tool result) is still written whole, never dropped or cut; the
    /// limit only decides when reading pauses. The host's own lines wait at the limit too: a
    /// prompt (`Client::send`, a streamed `query` prompt) waits until the CLI reads or ends, a
    /// control request (`interrupt`, `set_model`…) fails with
    /// [`Error::Timeout`](crate::Error::Timeout) if no room comes within the control timeout.
    /// (A tool's progress notifications are not held back: they are few and small.)
    pub fn input_buffer_limit(mut self, bytes: usize) -> Self {
        self.input_buffer_limit = Some(bytes);
        self
    }

    /// Whether the host may be asked anything (tools, hooks, permissions), so stdin must stay
    /// open until the run has ended.
    pub(crate) fn has_host_callbacks(&self) -> bool {
        !self.servers.is_empty() || !self.hooks.is_empty() || self.can_use_tool.is_some()
    }

    pub(crate) fn line_cap(&self) -> usize {
        self.max_line_size.unwrap_or(DEFAULT_MAX_LINE_SIZE)
    }

    pub(crate) fn message_queue_cap(&self) -> usize {
        self.message_queue_limit
            .unwrap_or(DEFAULT_MESSAGE_QUEUE_LIMIT)
            .max(1)
    }

    pub(crate) fn input_buffer_cap(&self) -> usize {
        self.input_buffer_limit
            .unwrap_or(DEFAULT_INPUT_BUFFER_LIMIT)
    }

    /// The argv and environment this configuration launches the CLI with.
    pub fn launch_spec(&self) -> LaunchSpec {
        let mut args: Vec<String> = vec![
            "--output-format".into(),
            "stream-json".into(),
            "--verbose".into(),
        ];
        let mut flag = |name: &str, value: Option<String>| {
            args.push(name.to_string());
            if let Some(value) = value {
                args.push(value);
            }
        };
        match &self.system_prompt {
            SystemPrompt::Empty => flag("--system-prompt", Some(String::new())),
            SystemPrompt::Text(text) => flag("--system-prompt", Some(text.clone())),
            SystemPrompt::Preset { append: Some(text) } => {
                flag("--append-system-prompt", Some(text.clone()))
            }
            SystemPrompt::Preset { append: None } => {}
        }
        if let Some(tools) = &self.tools {
            flag("--tools", Some(tools.join(",")));
        }
        if !self.allowed_tools.is_empty() {
            flag("--allowedTools", Some(self.allowed_tools.join(",")));
        }
        if let Some(turns) = self.max_turns {
            flag("--max-turns", Some(turns.to_string()));
        }
        if let Some(usd) = self.max_budget_usd {
            flag("--max-budget-usd", Some(usd.to_string()));
        }
        if !self.disallowed_tools.is_empty() {
            flag("--disallowedTools", Some(self.disallowed_tools.join(",")));
        }
        if let Some(model) = &self.model {
            flag("--model", Some(model.clone()));
        }
        if let Some(model) = &self.fallback_model {
            flag("--fallback-model", Some(model.clone()));
        }
        if self.can_use_tool.is_some() {
            flag("--permission-prompt-tool", Some("stdio".into()));
        }
        if let Some(mode) = self.permission_mode {
            flag("--permission-mode", Some(mode.as_str().into()));
        }
        if self.continue_conversation {
            flag("--continue", None);
        }
        // The `=` forms keep a value starting with `-` from being read as a flag.
        if let Some(id) = &self.resume {
            flag(&format!("--resume={id}"), None);
        }
        if let Some(id) = &self.session_id {
            flag(&format!("--session-id={id}"), None);
        }
        if let Some(settings) = &self.settings {
            flag("--settings", Some(settings.clone()));
        }
        for dir in &self.add_dirs {
            flag("--add-dir", Some(dir.display().to_string()));
        }
        if let Some(config) = self.mcp_config() {
            flag("--mcp-config", Some(config.to_string()));
        }
        if self.include_partial_messages {
            flag("--include-partial-messages", None);
        }
        if self.strict_mcp_config {
            flag("--strict-mcp-config", None);
        }
        if self.fork_session {
            flag("--fork-session", None);
        }
        if let Some(sources) = &self.setting_sources {
            let sources: Vec<&str> = sources.iter().map(|s| s.as_str()).collect();
            flag(&format!("--setting-sources={}", sources.join(",")), None);
        }
        if let Some(effort) = &self.effort {
            flag("--effort", Some(effort.clone()));
        }
        if let Some(schema) = &self.output_schema {
            flag("--json-schema", Some(schema.to_string()));
        }
        for (name, value) in &self.extra_args {
            let name = if name.starts_with("--") {
                name.clone()
            } else {
                format!("--{name}")
            };
            match value {
                Some(value) if value.starts_with('-') => flag(&format!("{name}={value}"), None),
                other => flag(&name, other.clone()),
            }
        }
        args.push("--input-format".into());
        args.push("stream-json".into());

        let mut env = self.host_identity_env();
        env.extend(self.env.iter().cloned());
        let reads_state_set = self
            .env
            .iter()
            .any(|(k, _)| k.eq_ignore_ascii_case("CLAUDE_CODE_SDK_READS_SESSION_STATE"));
        if !reads_state_set {
            env.push(("CLAUDE_CODE_SDK_READS_SESSION_STATE".into(), "1".into()));
        }
        if let Some(cwd) = &self.cwd {
            env.push(("PWD".into(), cwd.display().to_string()));
        }
        LaunchSpec {
            cli_path: self.cli_path.clone(),
            args,
            env,
            env_remove: self.env_remove.clone(),
            cwd: self.cwd.clone(),
        }
    }

    /// `CLAUDE_CODE_ENTRYPOINT`, `CLAUDE_AGENT_SDK_VERSION` and `CLAUDE_AGENT_SDK_CLIENT_APP`:
    /// the defaults or their overrides, except any variable the user names in
    /// [`Options::env`] (their value wins) or [`Options::env_remove`] (they want it gone).
    fn host_identity_env(&self) -> Vec<(String, String)> {
        let user_names = |name: &str| {
            self.env.iter().any(|(k, _)| k == name) || self.env_remove.iter().any(|k| k == name)
        };
        self.host_identity()
            .into_iter()
            .filter(|var| !user_names(var.name))
            .map(|var| {
                let value = var.value.unwrap_or(var.default);
                (var.name.to_string(), value.to_string())
            })
            .collect()
    }

    /// The three host-identity variables, each with the option that sets it and its default:
    /// the one list both [`host_identity_env`](Self::host_identity_env) and
    /// [`validate_env`](Self::validate_env) read.
    fn host_identity(&self) -> [IdentityVar<'_>; 3] {
        [
            IdentityVar {
                name: "CLAUDE_CODE_ENTRYPOINT",
                option: "Options::entrypoint",
                value: self.entrypoint.as_deref(),
                default: ENTRYPOINT,
            },
            IdentityVar {
                name: "CLAUDE_AGENT_SDK_VERSION",
                option: "Options::agent_sdk_version",
                value: self.agent_sdk_version.as_deref(),
                default: AGENT_SDK_VERSION,
            },
            IdentityVar {
                name: "CLAUDE_AGENT_SDK_CLIENT_APP",
                option: "Options::client_app",
                value: self.client_app.as_deref(),
                default: CLIENT_APP,
            },
        ]
    }

    /// `{"mcpServers": {...}}`: in-process servers as `{"type":"sdk","name":…}` (their key is
    /// their name, which is what the CLI's `mcp__{key}__` prefix uses), external ones as given.
    fn mcp_config(&self) -> Option<Value> {
        // With manifests the in-process servers are named in `initialize` instead: the CLI
        // connects the ones from `--mcp-config` before it reads that request, so it would not
        // use their manifests.
        let in_process: &[ToolServer] = if self.handshake_manifests {
            &[]
        } else {
            &self.servers
        };
        if in_process.is_empty() && self.external_servers.is_empty() {
            return None;
        }
        let mut servers = Map::new();
        for (name, server) in &self.external_servers {
            servers.insert(name.clone(), server.to_json());
        }
        for server in in_process {
            servers.insert(
                server.name().to_string(),
                json!({"type": "sdk", "name": server.name()}),
            );
        }
        Some(json!({"mcpServers": servers}))
    }

    /// Checks the options before launching: state every tool needs is registered, names are
    /// unique across in-process and external servers, environment variables can be set.
    pub(crate) fn validate(&self) -> crate::Result<()> {
        self.validate_env()?;
        for server in &self.servers {
            server
                .check_state()
                .map_err(|e| crate::Error::InvalidOptions(e.to_string()))?;
        }
        self.validate_server_names()?;
        self.validate_tool_rules()
    }

    /// A permission rule naming a tool of one of our in-process servers must name a tool that
    /// server has: `mcp__shop__serch` would otherwise allow (or deny) nothing, silently. Rules
    /// with a `*`, the server-wide `mcp__shop`, and rules for other servers are left alone.
    fn validate_tool_rules(&self) -> crate::Result<()> {
        let lists = [
            ("allowed_tools", &self.allowed_tools),
            ("disallowed_tools", &self.disallowed_tools),
        ];
        for (option, rules) in lists {
            for rule in rules {
                if let Some(message) = self.unknown_tool_in(rule) {
                    return Err(crate::Error::InvalidOptions(format!("{option}: {message}")));
                }
            }
        }
        Ok(())
    }

    /// Why `rule` names no tool of the in-process server it is prefixed with, if it does not.
    /// A server whose name contains `__` makes prefixes ambiguous: the rule is fine when any
    /// server it may be prefixed with has the tool.
    fn unknown_tool_in(&self, rule: &str) -> Option<String> {
        let rest = rule.strip_prefix("mcp__")?;
        let mut problem = None;
        for server in &self.servers {
            let Some(tool) = rest
                .strip_prefix(server.name())
                .and_then(|rest| rest.strip_prefix("__"))
            else {
                continue;
            };
            if tool.contains('*') || server.tool(tool).is_some() {
                return None;
            }
            let tools: Vec<&str> = server.tools().iter().map(|tool| tool.name()).collect();
            problem.get_or_insert_with(|| {
                format!(
                    "`{rule}` names no tool: in-process server `{}` has no tool `{tool}` (its tools: \
                     {}); name tools with Options::allow::<tool_fn>() or \
                     ToolServer::qualified_name to have them checked",
                    server.name(),
                    tools.join(", ")
                )
            });
        }
        problem
    }

    /// Every MCP server needs its own name: the name is its key in `--mcp-config` and the
    /// `mcp__{name}__` prefix of its tools, so a second server under it would silently hide
    /// the first. The error names the server and says which kinds clash.
    fn validate_server_names(&self) -> crate::Result<()> {
        let in_process = self.servers.iter().map(|server| (server.name(), true));
        let external = self
            .external_servers
            .iter()
            .map(|(name, _)| (name.as_str(), false));
        let mut seen: BTreeMap<&str, bool> = BTreeMap::new();
        for (name, is_in_process) in in_process.chain(external) {
            let Some(&first_in_process) = seen.get(name) else {
                seen.insert(name, is_in_process);
                continue;
            };
            let message = match (first_in_process, is_in_process) {
                (true, true) => format!("two in-process MCP servers are named `{name}`"),
                (false, false) => format!("two external MCP servers are named `{name}`"),
                _ => format!("`{name}` names both an in-process and an external MCP server"),
            };
            return Err(crate::Error::InvalidOptions(message));
        }
        Ok(())
    }

    /// An environment variable's name must be non-empty, without `=` or NUL (the OS would
    /// split `A=B` into another variable, and refuse a NUL at spawn); a value must have no NUL.
    /// The error names the variable, never its value.
    fn validate_env(&self) -> crate::Result<()> {
        let invalid = |message: String| Err(crate::Error::InvalidOptions(message));
        let names = self
            .env
            .iter()
            .map(|(name, _)| name)
            .chain(&self.env_remove);
        for name in names {
            if name.is_empty() || name.contains(['=', '\0']) {
                return invalid(format!(
                    "the environment variable name {name:?} is empty or contains `=` or NUL"
                ));
            }
        }
        for (name, value) in &self.env {
            if value.contains('\0') {
                return invalid(format!(
                    "the value of the environment variable {name} contains NUL"
                ));
            }
        }
        // These three reach the CLI's HTTP headers (User-Agent, x-client-app): a control
        // character there makes the CLI fail its requests, so refuse it here, by name.
        for var in self.host_identity() {
            if let Some(value) = var.value
                && value.chars().any(char::is_control)
            {
                let option = var.option;
                return invalid(format!("{option} {value:?} contains a control character"));
            }
        }
        Ok(())
    }

    /// The body of the host's `initialize` request, and the hook callbacks by id.
    pub(crate) fn initialize_request(&self) -> (Value, Vec<crate::hooks::HookCallback>) {
        let mut callbacks = Vec::new();
        let mut body = Map::new();
        body.insert("subtype".into(), json!("initialize"));
        if self.hooks.is_empty() {
            body.insert("hooks".into(), Value::Null);
        } else {
            let mut hooks = Map::new();
            for (event, matchers) in &self.hooks {
                let entries: Vec<Value> = matchers
                    .iter()
                    .map(|matcher| {
                        let ids: Vec<String> = matcher
                            .callbacks
                            .iter()
                            .map(|callback| {
                                callbacks.push(callback.clone());
                                format!("hook_{}", callbacks.len() - 1)
                            })
                            .collect();
                        let mut entry = json!({"matcher": matcher.matcher, "hookCallbackIds": ids});
                        if let Some(timeout) = matcher.timeout_secs {
                            entry["timeout"] = json!(timeout);
                        }
                        entry
                    })
                    .collect();
                hooks.insert(event.clone(), Value::Array(entries));
            }
            body.insert("hooks".into(), Value::Object(hooks));
        }
        if !self.agents.is_empty() {
            let agents: Map<String, Value> = self
                .agents
                .iter()
                .map(|(name, agent)| {
                    let mut definition =
                        json!({"description": agent.description, "prompt": agent.prompt});
                    if let Some(tools) = &agent.tools {
                        definition["tools"] = json!(tools);
                    }
                    if let Some(model) = &agent.model {
                        definition["model"] = json!(model);
                    }
                    (name.clone(), definition)
                })
                .collect();
            body.insert("agents".into(), Value::Object(agents));
        }
        if self.handshake_manifests && !self.servers.is_empty() {
            let names = self.servers.iter().map(|server| json!(server.name()));
            body.insert("sdkMcpServers".into(), Value::Array(names.collect()));
            let manifests = self.servers.iter().map(|server| {
                let manifest = claude_tools_core::mcp::handshake_manifest(server);
                (server.name().to_string(), manifest)
            });
            body.insert(
                "sdkMcpServerManifests".into(),
                Value::Object(manifests.collect()),
            );
        }
        (Value::Object(body), callbacks)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_option_becomes_its_flag_in_the_official_order() {
        let options = Options::new()
            .system_prompt(SystemPrompt::Preset {
                append: Some("Be brief.".into()),
            })
            .tools(["Read", "Grep"])
            .allowed_tools(["mcp__calc__*"])
            .max_turns(3)
            .max_budget_usd(0.5)
            .disallowed_tools(["Bash"])
            .model("claude-sonnet-4-5")
            .fallback_model("claude-haiku-4-5")
            .can_use_tool(|_| async { PermissionDecision::allow() })
            .permission_mode(PermissionMode::AcceptEdits)
            .continue_conversation()
            .resume("-odd-id")
            .session_id("3f2b")
            .settings("{\"x\":1}")
            .add_dir("/data")
            .mcp_server(ToolServer::new("calc", "1.0.0"))
            .external_mcp_server("echo", ExternalServer::stdio("echo-mcp", ["--quiet"]))
            .include_partial_messages()
            .strict_mcp_config()
            .fork_session()
            .setting_sources([SettingSource::User, SettingSource::Project])
            .effort("high")
            .output_schema(json!({"type": "object"}))
            .extra_arg("debug", None)
            .extra_arg("--betas", Some("-x".into()))
            .env("FOO", "bar")
            .env_remove("ANTHROPIC_API_KEY")
            .cwd("/work");
        let launch = options.launch_spec();
        // serde_json's preserve_order: keys in the order they are inserted (external servers,
        // then in-process ones), not sorted.
        let mcp = r#"{"mcpServers":{"echo":{"type":"stdio","command":"echo-mcp","args":["--quiet"]},"calc":{"type":"sdk","name":"calc"}}}"#;
        assert_eq!(
            launch.args,
            [
                "--output-format",
                "stream-json",
                "--verbose",
                "--append-system-prompt",
                "Be brief.",
                "--tools",
                "Read,Grep",
                "--allowedTools",
                "mcp__calc__*",
                "--max-turns",
                "3",
                "--max-budget-usd",
                "0.5",
                "--disallowedTools",
                "Bash",
                "--model",
                "claude-sonnet-4-5",
                "--fallback-model",
                "claude-haiku-4-5",
                "--permission-prompt-tool",
                "stdio",
                "--permission-mode",
                "acceptEdits",
                "--continue",
                "--resume=-odd-id",
                "--session-id=3f2b",
                "--settings",
                "{\"x\":1}",
                "--add-dir",
                "/data",
                "--mcp-config",
                mcp,
                "--include-partial-messages",
                "--strict-mcp-config",
                "--fork-session",
                "--setting-sources=user,project",
                "--effort",
                "high",
                "--json-schema",
                "{\"type\":\"object\"}",
                "--debug",
                "--betas=-x",
                "--input-format",
                "stream-json",
            ]
        );
        assert_eq!(
            launch.env,
            [
                ("CLAUDE_CODE_ENTRYPOINT".to_string(), "sdk-cli".to_string()),
                (
                    "CLAUDE_AGENT_SDK_VERSION".into(),
                    env!("CARGO_PKG_VERSION").into()
                ),
                (
                    "CLAUDE_AGENT_SDK_CLIENT_APP".into(),
                    format!("claude-tools/{}", env!("CARGO_PKG_VERSION"))
                ),
                ("FOO".into(), "bar".into()),
                ("CLAUDE_CODE_SDK_READS_SESSION_STATE".into(), "1".into()),
                ("PWD".into(), "/work".into()),
            ]
        );
        assert_eq!(launch.env_remove, ["ANTHROPIC_API_KEY"]);
        assert_eq!(launch.cwd.as_deref(), Some(std::path::Path::new("/work")));
    }

    #[test]
    fn the_defaults_and_the_system_prompt_variants() {
        let args = |options: Options| options.launch_spec().args;
        assert_eq!(
            args(Options::new()),
            [
                "--output-format",
                "stream-json",
                "--verbose",
                "--system-prompt",
                "",
                "--input-format",
                "stream-json"
            ]
        );
        assert!(
            args(Options::new().system_prompt(SystemPrompt::Text("Hi".into())))
                .windows(2)
                .any(|w| w == ["--system-prompt", "Hi"])
        );
        let preset = args(Options::new().system_prompt(SystemPrompt::Preset { append: None }));
        assert!(
            !preset.iter().any(|a| a.contains("system-prompt")),
            "{preset:?}"
        );
        let own_state = Options::new()
            .env("CLAUDE_CODE_SDK_READS_SESSION_STATE", "0")
            .launch_spec()
            .env;
        assert_eq!(
            own_state
                .iter()
                .filter(|(k, _)| k == "CLAUDE_CODE_SDK_READS_SESSION_STATE")
                .count(),
            1
        );
    }

    /// The identity variables of the launch, in order.
    fn identity(options: Options) -> Vec<(String, String)> {
        let names = [
            "CLAUDE_CODE_ENTRYPOINT",
            "CLAUDE_AGENT_SDK_VERSION",
            "CLAUDE_AGENT_SDK_CLIENT_APP",
        ];
        options
            .launch_spec()
            .env
            .into_iter()
            .filter(|(k, _)| names.contains(&k.as_str()))
            .collect()
    }

    fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
        list.iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn the_cli_sees_an_sdk_host_with_this_crates_version_and_name_by_default() {
        let version = env!("CARGO_PKG_VERSION");
        let app = format!("claude-tools/{version}");
        assert_eq!(
            identity(Options::new()),
            pairs(&[
                ("CLAUDE_CODE_ENTRYPOINT", "sdk-cli"),
                ("CLAUDE_AGENT_SDK_VERSION", version),
                ("CLAUDE_AGENT_SDK_CLIENT_APP", &app),
            ])
        );
        assert_eq!((AGENT_SDK_VERSION, CLIENT_APP), (version, app.as_str()));
    }

    #[test]
    fn each_identity_variable_can_be_overridden_and_the_users_env_wins() {
        let overridden = Options::new()
            .entrypoint("sdk-rust")
            .agent_sdk_version("9.9.9")
            .client_app("ticket-bot/2.1");
        assert_eq!(
            identity(overridden.clone()),
            pairs(&[
                ("CLAUDE_CODE_ENTRYPOINT", "sdk-rust"),
                ("CLAUDE_AGENT_SDK_VERSION", "9.9.9"),
                ("CLAUDE_AGENT_SDK_CLIENT_APP", "ticket-bot/2.1"),
            ])
        );
        // `env` wins over the method and over the default, and each variable is set once.
        let with_env = overridden
            .env("CLAUDE_AGENT_SDK_CLIENT_APP", "from-env/1")
            .env("CLAUDE_CODE_ENTRYPOINT", "sdk-py");
        assert_eq!(
            identity(with_env),
            pairs(&[
                ("CLAUDE_AGENT_SDK_VERSION", "9.9.9"),
                ("CLAUDE_AGENT_SDK_CLIENT_APP", "from-env/1"),
                ("CLAUDE_CODE_ENTRYPOINT", "sdk-py"),
            ])
        );
        // `env_remove` keeps the variable out; only the CLI's own default remains.
        let removed = Options::new()
            .client_app("ticket-bot/2.1")
            .env_remove("CLAUDE_AGENT_SDK_CLIENT_APP")
            .env_remove("CLAUDE_AGENT_SDK_VERSION");
        assert_eq!(
            identity(removed.clone()),
            pairs(&[("CLAUDE_CODE_ENTRYPOINT", "sdk-cli")])
        );
        assert_eq!(
            removed.launch_spec().env_remove,
            ["CLAUDE_AGENT_SDK_CLIENT_APP", "CLAUDE_AGENT_SDK_VERSION"]
        );
    }

    #[test]
    fn identity_values_with_control_characters_are_refused_by_name() {
        assert!(
            Options::new()
                .client_app("ticket-bot/2.1")
                .validate()
                .is_ok()
        );
        let cases = [
            (
                Options::new().client_app("bot\r\nX-Evil: 1"),
                r#"invalid options: Options::client_app "bot\r\nX-Evil: 1" contains a control character"#,
            ),
            (
                Options::new().entrypoint("sdk\0cli"),
                r#"invalid options: Options::entrypoint "sdk\0cli" contains a control character"#,
            ),
            (
                Options::new().agent_sdk_version("1.0\n"),
                r#"invalid options: Options::agent_sdk_version "1.0\n" contains a control character"#,
            ),
        ];
        for (options, expected) in cases {
            assert_eq!(validation_error(options), expected);
        }
    }

    #[test]
    fn initialize_carries_hooks_by_callback_id_and_agents() {
        let options = Options::new()
            .hook(
                HookEvent::PreToolUse,
                HookMatcher::new("Bash")
                    .callback(|_| async { crate::hooks::HookOutput::new() })
                    .timeout_secs(5.0),
            )
            .hook(
                HookEvent::PostToolUse,
                HookMatcher::any()
                    .callback(|_| async { crate::hooks::HookOutput::new() })
                    .callback(|_| async { crate::hooks::HookOutput::new() }),
            )
            .agent(
                "reviewer",
                AgentDefinition {
                    description: "Reviews code".into(),
                    prompt: "You review.".into(),
                    tools: Some(vec!["Read".into()]),
                    model: None,
                },
            );
        let (body, callbacks) = options.initialize_request();
        assert_eq!(callbacks.len(), 3);
        assert_eq!(
            body,
            json!({"subtype": "initialize",
                "hooks": {
                    "PostToolUse": [{"matcher": null, "hookCallbackIds": ["hook_0", "hook_1"]}],
                    "PreToolUse": [{"matcher": "Bash", "hookCallbackIds": ["hook_2"], "timeout": 5.0}],
                },
                "agents": {"reviewer": {"description": "Reviews code", "prompt": "You review.", "tools": ["Read"]}}})
        );
    }

    #[test]
    fn validation_names_the_missing_state_and_clashing_servers() {
        let mut needs_state = claude_tools_core::tool::ToolDefBuilder::new("count");
        needs_state.requires_state::<u32>();
        let server = ToolServer::new("calc", "1.0.0")
            .with_tool(needs_state, |_| async { "" })
            .unwrap();
        let error = Options::new()
            .mcp_server(server.clone())
            .validate()
            .unwrap_err()
            .to_string();
        assert!(
            error.contains("State<u32>") && error.contains("with_state"),
            "{error}"
        );
        let clash = Options::new()
            .mcp_server(server.with_state(1u32))
            .external_mcp_server("calc", ExternalServer::http("http://127.0.0.1:1"))
            .validate()
            .unwrap_err()
            .to_string();
        assert_eq!(
            clash,
            "invalid options: `calc` names both an in-process and an external MCP server"
        );
    }

    fn validation_error(options: Options) -> String {
        options.validate().unwrap_err().to_string()
    }

    fn shop() -> ToolServer {
        ToolServer::new("shop", "1.0.0")
            .with_typed_tool("search", || async { "" })
            .and_then(|shop| shop.with_typed_tool("buy", || async { "" }))
            .unwrap()
    }

    #[test]
    fn a_rule_naming_a_tool_our_server_lacks_is_refused_by_name() {
        assert_eq!(
            validation_error(
                Options::new()
                    .mcp_server(shop())
                    .allow_tool("mcp__shop__serch")
            ),
            "invalid options: allowed_tools: `mcp__shop__serch` names no tool: in-process server \
             `shop` has no tool `serch` (its tools: buy, search); name tools with \
             Options::allow::<tool_fn>() or ToolServer::qualified_name to have them checked"
        );
        assert_eq!(
            validation_error(
                Options::new()
                    .mcp_server(shop())
                    .disallow_tool("mcp__shop__")
            ),
            "invalid options: disallowed_tools: `mcp__shop__` names no tool: in-process server \
             `shop` has no tool `` (its tools: buy, search); name tools with \
             Options::allow::<tool_fn>() or ToolServer::qualified_name to have them checked"
        );
    }

    #[test]
    fn rules_for_existing_tools_wildcards_whole_servers_and_other_servers_pass() {
        let options = Options::new()
            .mcp_server(shop())
            .mcp_server(
                ToolServer::new("shop__eu", "1.0.0")
                    .with_typed_tool("ship", || async { "" })
                    .unwrap(),
            )
            .allowed_tools([
                "mcp__shop__search",
                "mcp__shop__*",
                "mcp__shop",
                "mcp__shop__eu__ship",
                "mcp__elsewhere__anything",
                "Read",
                "Bash(git *)",
            ])
            .disallow_tool("mcp__shop__buy");
        assert!(options.validate().is_ok());
    }

    #[test]
    fn two_servers_under_one_name_are_refused_by_name() {
        let calc = || ToolServer::new("calc", "1.0.0");
        let echo = || ExternalServer::stdio("echo-mcp", ["--quiet"]);
        assert_eq!(
            validation_error(Options::new().mcp_server(calc()).mcp_server(calc())),
            "invalid options: two in-process MCP servers are named `calc`"
        );
        assert_eq!(
            validation_error(
                Options::new()
                    .external_mcp_server("echo", echo())
                    .external_mcp_server("echo", ExternalServer::http("http://127.0.0.1:1"))
            ),
            "invalid options: two external MCP servers are named `echo`"
        );
        // Whichever comes first, an in-process and an external server may not share a name.
        assert_eq!(
            validation_error(
                Options::new()
                    .external_mcp_server("calc", echo())
                    .mcp_server(calc())
            ),
            "invalid options: `calc` names both an in-process and an external MCP server"
        );
        let distinct = Options::new()
            .mcp_server(calc())
            .mcp_server(ToolServer::new("notes", "1.0.0"))
            .external_mcp_server("echo", echo());
        assert!(distinct.validate().is_ok());
    }

    /// The value of `flag` in the launch argv, if it is there.
    fn flag_value(options: &Options, flag: &str) -> Option<String> {
        let args = options.launch_spec().args;
        let at = args.iter().position(|arg| arg == flag)?;
        args.get(at + 1).cloned()
    }

    #[test]
    fn no_builtin_tools_and_an_empty_tools_list_pass_an_empty_tools_flag() {
        // `--tools ""` is the CLI's "no built-in tools"; without a call the flag is absent.
        assert_eq!(flag_value(&Options::new(), "--tools"), None);
        for options in [Options::new().no_builtin_tools(), Options::new().tools([])] {
            assert_eq!(
                options.launch_spec().args,
                [
                    "--output-format",
                    "stream-json",
                    "--verbose",
                    "--system-prompt",
                    "",
                    "--tools",
                    "",
                    "--input-format",
                    "stream-json"
                ]
            );
        }
        let replaced = Options::new().tools(["Bash"]).no_builtin_tools();
        assert_eq!(flag_value(&replaced, "--tools").as_deref(), Some(""));
        let again = Options::new().no_builtin_tools().tools(["Read"]);
        assert_eq!(flag_value(&again, "--tools").as_deref(), Some("Read"));
    }

    #[test]
    fn tool_lists_replace_and_single_tools_append() {
        let options = Options::new()
            .allowed_tools(["Read", "Grep"])
            .allowed_tools(["mcp__calc__*"])
            .allow_tool("Bash(git *)")
            .disallowed_tools(["WebFetch"])
            .disallowed_tools(["Bash"])
            .disallow_tool("Edit");
        assert_eq!(
            flag_value(&options, "--allowedTools").as_deref(),
            Some("mcp__calc__*,Bash(git *)")
        );
        assert_eq!(
            flag_value(&options, "--disallowedTools").as_deref(),
            Some("Bash,Edit")
        );
        // An empty list clears what was there, and the flag goes away.
        let cleared = options.allowed_tools([]).disallowed_tools([]);
        assert_eq!(flag_value(&cleared, "--allowedTools"), None);
        assert_eq!(flag_value(&cleared, "--disallowedTools"), None);
    }

    #[test]
    fn tool_lists_take_arrays_slices_and_vecs_of_str_or_string() {
        let owned: Vec<String> = vec!["Read".into(), "Grep".into()];
        let borrowed: Vec<&str> = vec!["Read", "Grep"];
        // Bound to names so the borrowed array forms are what is passed.
        let array_ref: &[&str; 2] = &["Read", "Grep"];
        let empty_ref: &[&str; 0] = &[];
        let lists = [
            Options::new().tools(["Read", "Grep"]),
            Options::new().tools(array_ref),
            Options::new().tools(borrowed.as_slice()),
            Options::new().tools(borrowed),
            Options::new().tools(owned.as_slice()),
            Options::new().tools(owned),
        ];
        for options in lists {
            assert_eq!(
                flag_value(&options, "--tools").as_deref(),
                Some("Read,Grep")
            );
        }
        assert_eq!(
            flag_value(&Options::new().tools(empty_ref), "--tools").as_deref(),
            Some("")
        );
    }
}
