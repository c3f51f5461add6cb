//! [`Options`]: how to launch the CLI and what the session serves to it.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;

use crate::hooks::{HookEvent, HookMatcher};
use crate::permission::{CanUseTool, PermissionDecision, PermissionRequest};
use crate::redact;
use claude_tools_core::tool::{ToolRef, ToolServer};

mod agent;
mod checkpoints;
mod conversation;
mod delivery;
#[cfg(feature = "install")]
mod install;
#[cfg(not(feature = "install"))]
mod install_off;
mod launch;
mod launch_extras;
mod limits;
mod managed;
mod model;
mod permissions;
mod plugins;
mod prompt;
mod sandbox;
mod servers;
mod shadowed;
mod store;
mod stream;
mod tool_access;
mod types;
mod validate;

pub use crate::cli::{AGENT_SDK_VERSION, CLIENT_APP, ENTRYPOINT};
pub use crate::transport::DEFAULT_MAX_LINE_SIZE;
pub use agent::{AgentDefinition, AgentEffort, AgentMcpServer, AgentMemory};
pub(crate) use conversation::ConversationInit;
pub use delivery::ConfigDelivery;
#[cfg(not(feature = "install"))]
#[doc(hidden)]
pub use install_off::InstallFeatureIsOff;
pub use launch_extras::{PreviewFormat, ToolConfig};
pub use limits::{DEFAULT_INPUT_BUFFER_LIMIT, DEFAULT_MESSAGE_QUEUE_LIMIT};
pub(crate) use managed::ManagedInitialize;
pub use managed::{ManagedPermissions, ManagedSettings};
pub use model::{Effort, Thinking, ThinkingDisplay};
pub use permissions::PermissionPrompts;
pub(crate) use plugins::PluginsInitialize;
pub use plugins::{PluginDelivery, Skills};
pub(crate) use prompt::PromptInit;
pub use prompt::{SYSTEM_PROMPT_DYNAMIC_BOUNDARY, SystemPrompt};
pub use sandbox::{
    AwsCredentialPair, CredentialMode, OnExtractNoMatch, ProtectedCredential, SandboxCredentials,
    SandboxFilesystem, SandboxNetwork, SandboxRipgrep, SandboxSettings, SandboxTlsTerminate,
    SigV4Policies, SigV4Policy,
};
pub(crate) use servers::ServersInitialize;
pub use servers::{McpServerEntry, McpServerSettings, OrgMaxPermission, ToolPermissionPolicy};
pub use shadowed::CanUseToolShadowedWarning;
pub use store::{SessionStoreFlush, SessionStoreOptions};
pub(crate) use stream::StreamInit;
pub use types::{ExternalServer, PermissionMode, SettingSource, StderrCallback, ToolNames};

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
    /// The OS user the CLI runs as ([`Options::user`]).
    #[cfg(unix)]
    pub(crate) user: Option<String>,
    pub(crate) servers: Vec<ToolServer>,
    pub(crate) external_servers: Vec<(String, ExternalServer)>,
    pub(crate) config_delivery: ConfigDelivery,
    pub(crate) strict_mcp_config: bool,
    pub(crate) handshake_manifests: bool,
    pub(crate) can_use_tool: Option<CanUseTool>,
    pub(crate) on_elicitation: Option<crate::elicitation::OnElicitation>,
    pub(crate) on_user_dialog: Option<crate::dialog::OnUserDialog>,
    pub(crate) hooks: BTreeMap<String, Vec<HookMatcher>>,
    pub(crate) control_timeout: Option<Duration>,
    pub(crate) initialize_timeout: Option<Duration>,
    pub(crate) run_end_ceiling: Option<Duration>,
    pub(crate) effort: Option<String>,
    pub(crate) model_settings: model::ModelSettings,
    pub(crate) prompt_settings: prompt::PromptSettings,
    pub(crate) conversation: conversation::ConversationSettings,
    pub(crate) stream: stream::StreamSettings,
    pub(crate) entrypoint: Option<String>,
    pub(crate) agent_sdk_version: Option<String>,
    pub(crate) client_app: Option<String>,
    pub(crate) message_queue_limit: Option<usize>,
    pub(crate) input_buffer_limit: Option<usize>,
    pub(crate) sandbox: Option<SandboxSettings>,
    pub(crate) plugins: plugins::PluginSettings,
    pub(crate) file_checkpointing: bool,
    pub(crate) managed_settings: Option<ManagedSettings>,
    pub(crate) permissions: permissions::PermissionSettings,
    pub(crate) server_settings: servers::ServerSettings,
    pub(crate) session_store: Option<SessionStoreOptions>,
    pub(crate) launch_extras: launch_extras::LaunchExtras,
    /// The tools allowed by type ([`Options::allow`]): `(server, qualified name)`, each of
    /// whose server must be in the session.
    pub(crate) allowed_by_type: Vec<(&'static str, &'static str)>,
    #[cfg(feature = "install")]
    pub(crate) install_cli: bool,
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
            .field("on_elicitation", &self.on_elicitation.is_some())
            .field(
                "on_user_dialog",
                &self.on_user_dialog.as_ref().map(|dialogs| &dialogs.kinds),
            )
            .field("hooks", &self.hooks.keys().collect::<Vec<_>>())
            .field("user", &self.os_user())
            .finish_non_exhaustive()
    }
}

/// The default time to wait for the CLI to answer a control request.
pub const DEFAULT_CONTROL_TIMEOUT: Duration = Duration::from_secs(60);
/// The default longest wait, after a result, for a CLI that still says `running`.
pub const DEFAULT_RUN_END_CEILING: Duration = Duration::from_secs(600);

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
    /// [`allow_tool`](Self::allow_tool). The tool's server must be in the session (an
    /// in-process [`mcp_server`](Self::mcp_server) or an external one of its name): connect
    /// refuses a rule for a server the session does not have, which would allow nothing.
    pub fn allow<T: ToolRef>(self) -> Self {
        let mut options = self.allow_tool(T::QUALIFIED);
        options.allowed_by_type.push((T::SERVER, T::QUALIFIED));
        options
    }

    /// Refuses tool `T` (`--disallowedTools`), named by the type `#[tool]` emits for it (see
    /// [`allow`](Self::allow)). Adds to the list, like [`disallow_tool`](Self::disallow_tool).
    pub fn disallow<T: ToolRef>(self) -> Self {
        self.disallow_tool(T::QUALIFIED)
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

    /// Settings JSON or a path to a settings file. A JSON object goes to the CLI in the
    /// `initialize` request (`--settings` with [`ConfigDelivery::Argv`]), a path as `--settings`.
    pub fn settings(mut self, settings: impl Into<String>) -> Self {
        self.settings = Some(settings.into());
        self
    }

    /// Typed settings ([`Settings`](crate::settings::Settings)): the same as
    /// [`settings`](Self::settings) with their JSON, which they replace; a misspelt key is a
    /// compile error rather than a setting the CLI ignores.
    ///
    /// ```
    /// use claude_tools::options::{ConfigDelivery, Options};
    /// use claude_tools::settings::{Permissions, Settings};
    ///
    /// let options = Options::new()
    ///     .typed_settings(Settings::new().permissions(Permissions::new().deny(["WebFetch"])))
    ///     .config_delivery(ConfigDelivery::Argv);
    /// let args = options.launch_spec().args;
    /// let at = args.iter().position(|arg| arg == "--settings").unwrap();
    /// assert_eq!(args[at + 1], r#"{"permissions":{"deny":["WebFetch"]}}"#);
    /// ```
    pub fn typed_settings(self, settings: crate::settings::Settings) -> Self {
        self.settings(settings.to_json())
    }

    /// A subagent.
    pub fn agent(mut self, name: impl Into<String>, agent: AgentDefinition) -> Self {
        self.agents.insert(name.into(), agent);
        self
    }

    /// Ask for structured output matching this JSON Schema (`--json-schema`).
    pub fn output_schema(mut self, schema: Value) -> Self {
        self.output_schema = Some(schema);
        self
    }

    /// The reasoning effort (`--effort`): an [`Effort`], or any level the CLI accepts as text.
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

    /// Runs the CLI as the OS user `name` (Unix only; Python's `user`): the process takes that
    /// user's id and primary group, resolved from the user database (`getpwnam_r`) when the
    /// session starts, so the model's shell commands and file edits run with that user's
    /// rights. The host must be allowed to switch (root, or `CAP_SETUID` and `CAP_SETGID`).
    ///
    /// An unknown name fails the start with [`Error::UnknownUser`](crate::Error::UnknownUser),
    /// a switch the OS refuses with [`Error::Spawn`](crate::Error::Spawn); nothing runs in
    /// either case. Only the ids change: the environment is passed as it is, so set `HOME`
    /// (and what else the CLI should see as that user's) with [`env`](Self::env). The CLI's
    /// executable and the working directory must be readable by that user. It applies to the
    /// CLI that [`query`](crate::query::query), [`Client::connect`](crate::client::Client::connect) and
    /// [`prewarm`](crate::spare::prewarm) start; a session given its own
    /// [`Transport`](crate::transport::Transport) uses
    /// [`ProcessTransport::run_as_user`](crate::transport::ProcessTransport::run_as_user).
    ///
    /// ```
    /// use claude_tools::Options;
    ///
    /// let options = Options::new().user("claude-runner").env("HOME", "/home/claude-runner");
    /// assert!(format!("{options:?}").contains("claude-runner"));
    /// ```
    #[cfg(unix)]
    pub fn user(mut self, name: impl Into<String>) -> Self {
        self.user = Some(name.into());
        self
    }

    /// The OS user set with [`user`](Self::user), if any (always `None` off Unix).
    pub(crate) fn os_user(&self) -> Option<&str> {
        #[cfg(unix)]
        return self.user.as_deref();
        #[cfg(not(unix))]
        None
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
        Fut: crate::callback::CallbackFuture<PermissionDecision> + Send + 'static,
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

    /// How long a start waits for the CLI's answer to `initialize` (the TypeScript SDK's
    /// `initializeTimeoutMs` of `startup()` and `prewarm()`): for
    /// [`query`](crate::query::query), [`startup`](crate::query::startup),
    /// [`Client::connect`](crate::client::Client::connect) and
    /// [`prewarm`](crate::spare::prewarm) alike. Without it, the
    /// [`control_timeout`](Self::control_timeout) (60 s by default) applies. It counts from the
    /// request, throughout (the time a `SessionStart` or `Setup` hook takes included); a start
    /// that runs out fails with [`Error::Timeout`](crate::Error::Timeout) for `initialize`, and
    /// the CLI is ended.
    ///
    /// ```
    /// use std::time::Duration;
    /// use claude_tools::Options;
    ///
    /// // A host that would rather start cold than wait long for a slow machine.
    /// let options = Options::new().initialize_timeout(Duration::from_secs(10));
    /// # let _ = options;
    /// ```
    pub fn initialize_timeout(mut self, timeout: Duration) -> Self {
        self.initialize_timeout = Some(timeout);
        self
    }

    /// After a result, the longest time stdin stays open for a CLI that still reports `running`
    /// (default 10 minutes). Applies to one-shot queries.
    pub fn run_end_ceiling(mut self, ceiling: Duration) -> Self {
        self.run_end_ceiling = Some(ceiling);
        self
    }
}
