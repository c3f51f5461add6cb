//! [`Client`]: a persistent, multi-prompt session with the CLI.

use std::ops::Deref;
use std::sync::Arc;

use serde_json::Value;

use crate::cli::{CLI_VERSION, CliVersionSupport, OLDEST_CLI_VERSION};
use crate::control::abort::{EXIT_GRACE, end_gracefully};
use crate::control::{
    AccountInfo, AgentInfo, Controls, InitializeInfo, McpSetServersResult, ModelInfo, SlashCommand,
    receipt,
};
use crate::error::{Error, Result};
use crate::message::{Message, UserInput};
use crate::options::Options;
use crate::protocol::{HostRequest, InitializeRequest};
use crate::session::{MessageReceiver, SessionCore};
use crate::transport::{ExitInfo, ProcessTransport, Transport};
use claude_tools_core::mcp::{LiveToolError, ToolServerHandle};

/// The transport for a CLI found on this machine, with the options' stderr callback.
pub(crate) fn process_transport(options: &Options) -> ProcessTransport {
    let transport = ProcessTransport::new();
    #[cfg(feature = "install")]
    let transport = if options.install_cli {
        transport.install_if_missing(crate::install::Installer::new())
    } else {
        transport
    };
    #[cfg(unix)]
    let transport = match options.os_user() {
        Some(name) => transport.run_as_user(name),
        None => transport,
    };
    match &options.stderr {
        Some(callback) => transport.stderr_callback(callback.clone()),
        None => transport,
    }
}

/// Launches the CLI, starts serving it, and sends the host's `initialize`.
pub(crate) async fn open(
    options: &Options,
    transport: Box<dyn Transport>,
) -> Result<(
    Arc<SessionCore>,
    MessageReceiver,
    Value,
    InitializeInfo,
    Controls,
)> {
    options.validate()?;
    options.warn_if_can_use_tool_shadowed();
    // Resuming from a session store: the transcript is written where the CLI will look.
    let resumed = crate::session_store::resume::prepare(options).await?;
    let options = resumed.as_ref().unwrap_or(options);
    let connection = transport.connect(options.launch_spec()).await?;
    // The hook callbacks are registered under the ids the initialize request names.
    let (initialize, hooks) = InitializeRequest::new(options);
    let to_confirm = initialize.fields_to_confirm();
    let initialize = HostRequest::Initialize(Box::new(initialize));
    // Kept for `Controls::reinitialize`, which sends it again.
    let again = crate::control::reinitialize_body(&initialize);
    let (shared, messages) = SessionCore::start(options, hooks, connection);
    let initialize_timeout = options
        .initialize_timeout
        .or(options.control_timeout)
        .unwrap_or(crate::options::DEFAULT_CONTROL_TIMEOUT);
    match shared
        .request_with_timeout(&initialize, initialize_timeout)
        .await
    {
        Ok(info) => {
            let cli_version = info.get("claude_code_version").and_then(Value::as_str);
            warn_on_untested_cli(cli_version);
            // A CLI that did not take the servers or settings sent here would run the session
            // without them: end it before any prompt, as the TypeScript SDK does.
            let fields: Vec<&'static str> = to_confirm
                .iter()
                .filter(|(_, applied)| info.get(applied) != Some(&Value::Bool(true)))
                .map(|(field, _)| *field)
                .collect();
            if !fields.is_empty() {
                shared.shutdown();
                return Err(Error::InitializeNotApplied {
                    fields,
                    cli_version: cli_version.map(str::to_owned),
                });
            }
            if options.handshake_manifests {
                log_manifest_outcomes(options, &info);
            }
            // An older CLI, or a scripted one, may answer with no payload at all.
            let typed = match &info {
                Value::Null => Ok(InitializeInfo::default()),
                info => receipt("initialize", info.clone()),
            };
            match typed {
                Ok(typed) => {
                    let controls = Controls::new(shared.clone(), again);
                    Ok((shared, messages, info, typed, controls))
                }
                Err(error) => {
                    shared.shutdown();
                    Err(error)
                }
            }
        }
        Err(error) => {
            shared.shutdown();
            Err(error)
        }
    }
}

/// Warns when the CLI is outside the versions this release was tested with (the session goes
/// on either way).
fn warn_on_untested_cli(version: Option<&str>) {
    let Some(version) = version else {
        tracing::warn!(
            "the CLI did not report its version in its initialize answer; claude-tools is tested \
             with {OLDEST_CLI_VERSION} to {CLI_VERSION}"
        );
        return;
    };
    match CliVersionSupport::of(version) {
        CliVersionSupport::Tested => {
            tracing::debug!(cli_version = version, "Claude Code CLI version");
        }
        CliVersionSupport::TooOld => tracing::warn!(
            cli_version = version,
            "the Claude Code CLI {version} is older than the oldest claude-tools supports, \
             {OLDEST_CLI_VERSION}: features may be missing; upgrade it to {CLI_VERSION}"
        ),
        CliVersionSupport::Newer => tracing::warn!(
            cli_version = version,
            "the Claude Code CLI {version} is newer than the newest claude-tools was tested \
             with, {CLI_VERSION}; it most likely works, and a claude-tools release tested with \
             it may follow"
        ),
        CliVersionSupport::Unreadable => tracing::warn!(
            cli_version = version,
            "the Claude Code CLI reported a version claude-tools cannot read; it is tested with \
             {OLDEST_CLI_VERSION} to {CLI_VERSION}"
        ),
    }
}

/// Says, per in-process server, whether the CLI took its handshake manifest
/// (`sdk_mcp_manifests_parked` in the `initialize` answer). Nothing else depends on it: a server
/// whose manifest was not taken handshakes over `mcp_message`, which the session answers.
fn log_manifest_outcomes(options: &Options, info: &Value) {
    let outcomes = info.get("sdk_mcp_manifests_parked");
    for server in &options.servers {
        let name = server.name();
        match outcomes.and_then(|outcomes| outcomes.get(name)) {
            Some(Value::String(outcome)) if outcome == "parked" => {
                tracing::debug!(server = name, "the CLI took the handshake manifest");
            }
            Some(outcome) => tracing::info!(
                server = name,
                %outcome,
                "the CLI did not take the handshake manifest; it handshakes over mcp_message"
            ),
            None => tracing::info!(
                server = name,
                "the CLI reported nothing about the handshake manifest (it may predate them); \
                 it handshakes over mcp_message"
            ),
        }
    }
}

/// A session with the Claude Code CLI that stays open across prompts.
///
/// ```no_run
/// use claude_tools::Client;
/// use claude_tools::options::Options;
///
/// # async fn run() -> claude_tools::Result<()> {
/// let mut client = Client::connect(Options::new().max_turns(3)).await?;
/// client.query("What is 2 + 2?").await?;
/// for message in client.receive_response().await? {
///     println!("{message:?}");
/// }
/// client.disconnect().await?;
/// # Ok(())
/// # }
/// ```
///
/// The CLI's stdin stays open until [`Client::disconnect`] (or drop, which kills the CLI and
/// whatever it started), so tools, hooks and the permission callback are served for as long as
/// the client lives.
///
/// The session's controls (interrupt, model, permission mode, settings, MCP servers, files,
/// reloads…) are the methods of [`Controls`], which a client dereferences to:
/// `client.interrupt()`, `client.set_model(…)`.
///
/// A CLI that exits on its own is reported with its code or signal and stderr tail
/// ([`Error::ProcessExited`]): by [`Client::connect`] when it exits before answering
/// `initialize`, as an item of the message stream when it cuts a turn short, and by every
/// request or prompt sent after it (at once, not after the control timeout).
pub struct Client {
    shared: Arc<SessionCore>,
    controls: Controls,
    messages: MessageReceiver,
    server_info: Value,
    info: InitializeInfo,
}

impl Client {
    /// Launches the CLI found on this machine (see [`ProcessTransport`]) and connects.
    pub async fn connect(options: Options) -> Result<Self> {
        let transport = process_transport(&options);
        Self::connect_with(options, transport).await
    }

    /// Connects through any transport (e.g. an in-memory one in tests).
    pub async fn connect_with(
        options: Options,
        transport: impl Transport + 'static,
    ) -> Result<Self> {
        let (shared, messages, server_info, info, controls) =
            open(&options, Box::new(transport)).await?;
        Ok(Self {
            controls,
            shared,
            messages,
            server_info,
            info,
        })
    }

    /// The CLI's answer to `initialize` (commands, models, account, version…) as JSON, as it
    /// came; [`Client::initialize_info`] is the same, typed.
    pub fn server_info(&self) -> &Value {
        &self.server_info
    }

    /// The CLI's answer to `initialize`, typed: its slash commands, models, subagents, account,
    /// version and process id. [`Client::connect`] fails with
    /// [`Error::Protocol`] naming `initialize` when the answer does not
    /// fit this type.
    pub fn initialize_info(&self) -> &InitializeInfo {
        &self.info
    }

    /// The slash commands and skills the session offers, from the `initialize` answer (as at
    /// connect: [`Controls::reload_plugins`] and [`Controls::reload_skills`] return the lists as they
    /// are after a reload).
    ///
    /// ```no_run
    /// # use claude_tools::Client;
    /// # fn run(client: &Client) {
    /// for command in client.supported_commands() {
    ///     println!("/{} {}: {}", command.name, command.argument_hint, command.description);
    /// }
    /// # }
    /// ```
    pub fn supported_commands(&self) -> &[SlashCommand] {
        &self.info.commands
    }

    /// The models the session can switch to with [`Controls::set_model`] (by their
    /// [`value`](ModelInfo::value)), from the `initialize` answer.
    ///
    /// ```no_run
    /// # use claude_tools::Client;
    /// # async fn run(client: &Client) -> claude_tools::Result<()> {
    /// let models = client.supported_models();
    /// if let Some(haiku) = models.iter().find(|model| model.value == "haiku") {
    ///     client.set_model(Some(&haiku.value)).await?;
    /// }
    /// # Ok(())
    /// # }
    /// ```
    pub fn supported_models(&self) -> &[ModelInfo] {
        &self.info.models
    }

    /// The subagents the session can start (the CLI's own and those of
    /// [`Options::agent`](crate::options::Options::agent)), from the `initialize` answer.
    pub fn supported_agents(&self) -> &[AgentInfo] {
        &self.info.agents
    }

    /// Who the session runs as (where its API key or token came from, the provider; the
    /// account's email and organization with a claude.ai login), from the `initialize` answer.
    ///
    /// ```no_run
    /// # use claude_tools::Client;
    /// # fn run(client: &Client) {
    /// if let Some(account) = client.account_info() {
    ///     println!("key from {:?}, via {:?}", account.api_key_source, account.api_provider);
    /// }
    /// # }
    /// ```
    pub fn account_info(&self) -> Option<&AccountInfo> {
        self.info.account.as_ref()
    }

    /// The CLI's version, as its `initialize` answer gives it (`claude_code_version`); compare it
    /// with [`CliVersionSupport::of`](crate::transport::process::CliVersionSupport::of).
    pub fn cli_version(&self) -> Option<&str> {
        self.server_info
            .get("claude_code_version")
            .and_then(Value::as_str)
    }

    /// Sends a prompt. Read the answer with [`Client::next_message`] or
    /// [`Client::receive_response`].
    pub async fn query(&mut self, prompt: impl Into<String>) -> Result<()> {
        self.send(UserInput::text(prompt)).await
    }

    /// Sends a user message (text, images, or any content blocks).
    ///
    /// Fails with [`Error::ProcessExited`] (code or signal, stderr tail) once the CLI has
    /// exited.
    pub async fn send(&mut self, input: UserInput) -> Result<()> {
        if !self.shared.send_user(&input, "default").await {
            return Err(self.shared.unreachable_error().await);
        }
        Ok(())
    }

    /// The next message from the CLI, or an error; `None` once it has exited.
    ///
    /// An error is either fatal (the CLI exited, its pipes failed: the session is over, nothing
    /// but `None` follows) or survivable (one line the CLI wrote was not JSON, broke the
    /// protocol or was too long: keep reading). [`Error::is_fatal`](crate::Error::is_fatal) tells which:
    ///
    /// ```no_run
    /// # use claude_tools::Client;
    /// # async fn run(client: &mut Client) -> claude_tools::Result<()> {
    /// while let Some(item) = client.next_message().await {
    ///     match item {
    ///         Ok(message) if message.is_result() => break,
    ///         Ok(message) => println!("{message:?}"),
    ///         Err(error) if error.is_fatal() => return Err(error),
    ///         Err(error) => eprintln!("skipped: {error}"),
    ///     }
    /// }
    /// # Ok(())
    /// # }
    /// ```
    pub async fn next_message(&mut self) -> Option<Result<Message>> {
        self.messages.recv().await
    }

    /// Every message up to and including the next `result`: the strict shortcut.
    ///
    /// It fails on the first error, survivable ones included, and the messages it had read in
    /// this call are dropped with the error; a next call reads on after the bad line. This is
    /// deliberate: a shortcut that returned `Ok` would hide that a line of the turn was lost.
    /// To keep every message and skip survivable errors, read with [`Client::next_message`]
    /// and [`Error::is_fatal`](crate::Error::is_fatal). Fails with
    /// [`Error::ProcessExited`] when the CLI exits first.
    pub async fn receive_response(&mut self) -> Result<Vec<Message>> {
        let mut messages = Vec::new();
        while let Some(message) = self.messages.recv().await {
            let message = message?;
            let done = matches!(message, Message::Result(_));
            messages.push(message);
            if done {
                return Ok(messages);
            }
        }
        Err(self.shared.gone_error())
    }

    /// A handle to the tools of in-process server `name` (one given to
    /// [`Options::mcp_server`](crate::options::Options::mcp_server)), to add, remove, enable
    /// and disable tools while the session runs. Each change is sent to the CLI as
    /// `notifications/tools/list_changed`; the CLI fetches `tools/list` again at once, and the
    /// model's next request offers the tools added. The CLI (2.1.330 and 2.1.332) keeps a tool
    /// taken away in later model requests but refuses calls to it itself, without asking the
    /// host; to hide it from the model entirely, [remove its server](Client::remove_server). See
    /// [`ToolServerHandle`] for calls in flight.
    /// An unknown name is [`LiveToolError::UnknownServer`], which lists the session's servers.
    ///
    /// ```no_run
    /// # use claude_tools::Client;
    /// # async fn run(client: &mut Client) -> Result<(), Box<dyn std::error::Error>> {
    /// let calc = client.tool_server("calc")?;
    /// calc.add_typed_tool("pi", || async { "3.14159" })?;
    /// calc.disable_tool("divide")?;
    /// # Ok(())
    /// # }
    /// ```
    pub fn tool_server(&self, name: &str) -> std::result::Result<ToolServerHandle, LiveToolError> {
        self.shared.tool_server(name)
    }

    /// Adds in-process server `server` to the running session and returns a handle to its
    /// tools. The CLI is sent `mcp_set_servers` naming every in-process server it is to serve
    /// (the request replaces the CLI's whole set, so the others are named too); it then
    /// connects to the new server, and the model is offered its tools from the next turn.
    ///
    /// A name already in use is [`LiveToolError::DuplicateServer`] (as [`Error::Live`]).
    /// Permission rules were checked at connect time: allow the new tools with
    /// [`Controls::set_permission_mode`] or a `can_use_tool` callback, or name them in
    /// [`Options::allowed_tools`](crate::options::Options::allowed_tools) as `mcp__{server}`.
    pub async fn add_server(
        &self,
        server: claude_tools_core::tool::ToolServer,
    ) -> Result<ToolServerHandle> {
        self.shared.add_server(server).await
    }

    /// Stops serving in-process server `name` (one given at connect time or added) and
    /// returns the CLI's receipt (`removed` names it). An unknown name is
    /// [`LiveToolError::UnknownServer`] (as [`Error::Live`]).
    pub async fn remove_server(&self, name: &str) -> Result<McpSetServersResult> {
        let answer = self.shared.remove_server(name).await?;
        receipt("mcp_set_servers", answer)
    }

    /// Closes the CLI's stdin and waits for it to exit (ending it after 10 s), then returns how
    /// it ended: at once when it has exited already. Check [`ExitInfo::success`]: a CLI that
    /// failed (not logged in, a crash) exits with a non-zero code or by a signal, and its
    /// [`ExitInfo::stderr_tail`] says why.
    pub async fn disconnect(self) -> Result<ExitInfo> {
        Ok(end_gracefully(&self.shared, EXIT_GRACE).await)
    }
}

impl Deref for Client {
    type Target = Controls;

    fn deref(&self) -> &Controls {
        &self.controls
    }
}

impl Drop for Client {
    fn drop(&mut self) {
        self.shared.shutdown();
    }
}

impl std::fmt::Debug for Client {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Client").finish_non_exhaustive()
    }
}
