//! Spares: a CLI started ahead of the session it will serve ([`prewarm`]), bound to it later
//! ([`SpareProcess::claim`]), as the TypeScript SDK's `prewarm()` and `SpareProcess`.
//!
//! [`startup`](crate::query::startup) needs every option up front and saves the spawn. A spare
//! needs only the host-level options: it starts with `--await-claim` in a private parking
//! directory, loads its tools, plugins, MCP servers and hooks and answers `initialize`, then
//! waits. The claim names the folder and the per-session options ([`ClaimOptions`]); the CLI
//! moves there, runs the folder's SessionStart hooks and registers the session, and the prompt
//! follows.
//!
//! What is fixed at [`prewarm`] and what a claim can still set follows the TypeScript SDK: a
//! claim sets `cwd`, additional directories, the model, the permission mode, the thinking
//! budget, a flag-settings overlay (no hook keys), an appended system prompt, the title,
//! subagents, and three environment variables ([`CLAIMABLE_ENV_KEYS`]). Everything else of
//! [`Options`] is the spare's: keep one spare per distinct set of those.
//!
//! Every failure is typed and none hangs ([`ClaimError`]): what a claim cannot carry is refused
//! before anything is sent (the spare is handed back); a refusal of the CLI, a refused
//! overlay, and a spare whose process died are reported by the claim, and the prompt has not
//! run in any of them.

mod claim;
mod commands;
mod error;
mod parking;

use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;

use crate::client::{open, process_transport};
use crate::control::{Controls, InitializeInfo, SlashCommand, receipt};
use crate::error::{Error, Result};
use crate::options::{DEFAULT_RUN_END_CEILING, Options};
use crate::protocol::{ClaimSessionBody, HostRequest};
use crate::query::{Prompt, WarmQuery};
use crate::session::{MessageReceiver, SessionCore};
use crate::stream::MessageStream;
use crate::transport::{ExitInfo, Transport};

pub(crate) use claim::WorkspaceTrust;
pub use claim::{CLAIMABLE_ENV_KEYS, ClaimInfo, ClaimOptions, HOOK_SETTING_KEYS};
use commands::CommandsWatch;
pub use error::{ClaimError, NotClaimable};
use parking::ParkingDir;

/// The longest wait, once a claim failed on a dead process, for the exit to be known.
const EXIT_REPORT_WAIT: Duration = Duration::from_secs(5);

/// Starts the CLI as a parked spare: spawned, initialized, waiting for a
/// [`claim`](SpareProcess::claim). Without [`Options::cwd`] it is parked in a fresh directory
/// under the CLI's config home (`spares/`), removed once the spare is claimed or gone.
///
/// Fails as [`startup`](crate::query::startup) does when the CLI cannot start or answer
/// `initialize` (a CLI too old to know `--await-claim` exits with its usage error), and with
/// [`Error::InvalidOptions`] for options that describe a session a spare does not have yet
/// (`resume`, `continue_conversation`, `fork_session`).
///
/// ```no_run
/// use claude_tools::Options;
/// use claude_tools::spare::{ClaimOptions, prewarm};
///
/// # async fn run() -> claude_tools::Result<()> {
/// // At application start, before the user has picked a folder:
/// let spare = prewarm(Options::new().max_turns(8)).await?;
/// // …later, when they start a session:
/// match spare.claim("What does this repository do?", ClaimOptions::new("/home/me/project")).await {
///     Ok(claimed) => {
///         let messages = claimed.messages.collect().await?;
///         # let _ = messages;
///     }
///     // Refused, overlay refused or the spare died: the prompt has not run.
///     Err(error) => {
///         eprintln!("{error}; starting the session cold");
///         let messages = claude_tools::query("What does this repository do?", Options::new()
///             .cwd("/home/me/project")).await?;
///         # let _ = messages;
///     }
/// }
/// # Ok(())
/// # }
/// ```
pub async fn prewarm(options: Options) -> Result<SpareProcess> {
    let transport = process_transport(&options);
    prewarm_with(options, transport).await
}

/// [`prewarm`] through any transport.
pub async fn prewarm_with(
    mut options: Options,
    transport: impl Transport + 'static,
) -> Result<SpareProcess> {
    if options.resume.is_some() || options.continue_conversation || options.fork_session {
        return Err(Error::InvalidOptions(
            "prewarm: resume, continue_conversation and fork_session describe a session, which \
             a spare does not have yet; give them to query() instead"
                .into(),
        ));
    }
    let parking = match &options.cwd {
        Some(_) => None,
        None => {
            let parking = ParkingDir::create(&options)?;
            options.cwd = Some(parking.path().to_path_buf());
            Some(parking)
        }
    };
    options.extra_args.push(("await-claim".into(), None));
    let (shared, messages, _, info, controls) = open(&options, Box::new(transport)).await?;
    Ok(SpareProcess {
        parked: Some(Parked {
            shared,
            messages,
            info,
            controls,
            commands: None,
        }),
        parking,
        runtime: tokio::runtime::Handle::current(),
        sdk_servers: options
            .servers
            .iter()
            .map(|server| server.name().to_owned())
            .collect(),
        ceiling: options.run_end_ceiling.unwrap_or(DEFAULT_RUN_END_CEILING),
    })
}

/// The session of a parked spare.
struct Parked {
    shared: Arc<SessionCore>,
    messages: MessageReceiver,
    info: InitializeInfo,
    controls: Controls,
    /// Who hears of the spare's commands ([`SpareProcess::on_commands`]), once asked.
    commands: Option<Arc<CommandsWatch>>,
}

impl Parked {
    /// No more reports of commands: the spare is claimed or closed.
    fn stop_reporting(&self) {
        if let Some(commands) = &self.commands {
            commands.stop();
        }
    }
}

/// A started, initialized CLI that is not yet any session ([`prewarm`]). Claim it once
/// ([`SpareProcess::claim`]) or drop it (or [`close`](SpareProcess::close) it), which ends the
/// process.
pub struct SpareProcess {
    parked: Option<Parked>,
    parking: Option<ParkingDir>,
    sdk_servers: Vec<String>,
    ceiling: Duration,
    /// The runtime the spare was started on, for the task that watches its commands.
    runtime: tokio::runtime::Handle,
}

/// A claimed spare: the claim's answer and the session's messages.
#[derive(Debug)]
#[non_exhaustive]
pub struct Claimed {
    /// Where and as which session the CLI now runs.
    pub info: ClaimInfo,
    /// Options of the claim the CLI did not take (`model`, `max_thinking_tokens`), with its
    /// error: the session runs without them (the TypeScript SDK's `option_not_applied`).
    pub not_applied: Vec<(&'static str, Error)>,
    /// The session's messages, as [`query`](crate::query::query) streams them. Its
    /// [`initialize_info`](MessageStream::initialize_info) describes the claimed folder.
    pub messages: MessageStream,
}

impl SpareProcess {
    /// The spare's answer to `initialize` (as the parking directory saw it).
    pub fn initialize_info(&self) -> Option<&InitializeInfo> {
        self.parked.as_ref().map(|parked| &parked.info)
    }

    /// How the spare's process ended, if it has: a parked spare that died should be replaced.
    pub fn exit_info(&self) -> Option<ExitInfo> {
        self.parked
            .as_ref()
            .and_then(|parked| parked.shared.exit_info())
    }

    /// Waits until the spare's process ends, claimed or not.
    pub async fn wait_exit(&self) -> ExitInfo {
        match &self.parked {
            Some(parked) => parked.shared.wait_exit().await,
            None => ExitInfo::default(),
        }
    }

    /// Reports the spare's slash commands to `callback` while it is parked, as the TypeScript
    /// SDK's `SpareProcess.onCommands`: at once with those it offered at `initialize`, then
    /// with the whole new list on each `system`/`commands_changed` the CLI sends (a plugin or
    /// skill loaded late), until the spare is claimed, closed or dropped. Nothing is reported
    /// for a spare whose process has ended.
    ///
    /// A callback, rather than a stream, because the reports end by themselves with the
    /// parking and need no task of the application's to read them; a second call replaces the
    /// first callback. A panic in the callback is caught and logged (`tracing`, error level),
    /// and later changes are still reported. The `commands_changed` messages stay in the
    /// claimed session's stream: the callback sees them, it does not take them.
    ///
    /// The callback runs on the task that reads the spare's messages: keep it short (store the
    /// list, send it on a channel).
    ///
    /// ```no_run
    /// use std::sync::{Arc, Mutex};
    /// use claude_tools::Options;
    /// use claude_tools::spare::prewarm;
    ///
    /// # async fn run() -> claude_tools::Result<()> {
    /// let mut spare = prewarm(Options::new()).await?;
    /// let menu = Arc::new(Mutex::new(Vec::new()));
    /// let shown = menu.clone();
    /// spare.on_commands(move |commands| {
    ///     *shown.lock().unwrap() = commands.into_iter().map(|c| format!("/{}", c.name)).collect();
    /// });
    /// # Ok(())
    /// # }
    /// ```
    pub fn on_commands(&mut self, callback: impl FnMut(Vec<SlashCommand>) + Send + 'static) {
        let Some(parked) = self.parked.as_mut() else {
            return;
        };
        let watch = match &parked.commands {
            Some(watch) => watch.clone(),
            None => {
                let watch = Arc::new(CommandsWatch::default());
                parked.messages = commands::watch_messages(
                    &self.runtime,
                    std::mem::replace(&mut parked.messages, tokio::sync::mpsc::channel(1).1),
                    watch.clone(),
                );
                parked.commands = Some(watch.clone());
                watch
            }
        };
        watch.set(Box::new(callback));
        if parked.shared.exit_info().is_none() {
            watch.report(parked.info.commands.clone());
        }
    }

    /// Binds the spare to its session and sends the prompt.
    ///
    /// In order: the keys of the settings overlay that decide what the claim starts, the claim
    /// (`cwd`, permission mode, environment, directories, appended prompt, title, subagents,
    /// the in-process servers), the model, the thinking budget and the overlay's other keys,
    /// then the prompt, once the CLI took the claim and the overlay. A refused model or budget
    /// does not stop the session ([`Claimed::not_applied`]); anything else refused does, before
    /// the prompt is sent ([`ClaimError`]).
    pub async fn claim(
        mut self,
        prompt: impl Into<Prompt>,
        claim: ClaimOptions,
    ) -> std::result::Result<Claimed, ClaimError> {
        let checked = match claim.check() {
            Ok(checked) => checked,
            Err(reason) => {
                return Err(ClaimError::NotClaimable {
                    reason,
                    spare: Box::new(self),
                });
            }
        };
        let Some(parked) = self.parked.take() else {
            return Err(ClaimError::Session(Error::Closed));
        };
        parked.stop_reporting();
        // The parking directory goes once the claim is answered, whatever the answer.
        let parking = self.parking.take();
        if let Some(exit) = parked.shared.exit_info() {
            return Err(ClaimError::SpareExited(exit));
        }
        let shared = &parked.shared;
        if let Some(ahead) = &checked.ahead
            && let Err(error) = shared
                .control_ack(HostRequest::ApplyFlagSettings { settings: ahead })
                .await
        {
            return Err(let_go(shared, error, None).await);
        }
        let env = (!claim.env.is_empty()).then(|| {
            claim
                .env
                .iter()
                .map(|(key, value)| (key.as_str(), value.as_str()))
                .collect()
        });
        let body = ClaimSessionBody {
            cwd: &checked.cwd,
            permission_mode: claim.permission_mode.map(|mode| mode.as_str()),
            env,
            additional_directories: (!checked.additional_directories.is_empty())
                .then_some(checked.additional_directories),
            append_system_prompt: claim.append_system_prompt.as_deref(),
            title: claim.title.as_deref(),
            agents: (!claim.agents.is_empty()).then_some(&claim.agents),
            workspace_trust: checked.workspace_trust.as_ref(),
            sdk_mcp_servers: self.sdk_servers.iter().map(String::as_str).collect(),
            include_initialize: true,
        };
        let answer = shared.request(&HostRequest::ClaimSession(&body)).await;
        drop(parking);
        let answer = match answer {
            Ok(answer) => answer,
            Err(Error::Control { message, code, .. }) => {
                shared.shutdown();
                return Err(ClaimError::Refused {
                    reason: error::reason_token(&message),
                    message,
                    code,
                });
            }
            Err(error) => return Err(let_go(shared, error, None).await),
        };
        let answer: claim::ClaimAnswer = match receipt("claim_session", answer) {
            Ok(answer) => answer,
            Err(error) => {
                shared.shutdown();
                return Err(ClaimError::Session(error));
            }
        };
        let info = answer.info();
        let mut not_applied = Vec::new();
        if let Some(model) = &claim.model
            && let Err(error) = shared
                .request(&HostRequest::SetModel { model: Some(model) })
                .await
        {
            not_applied.push(("model", error));
        }
        if let Some(tokens) = claim.max_thinking_tokens
            && let Err(error) = shared
                .control_ack(HostRequest::SetMaxThinkingTokens {
                    max_thinking_tokens: Some(tokens),
                    thinking_display: None,
                })
                .await
        {
            not_applied.push(("max_thinking_tokens", error));
        }
        if let Some(behind) = &checked.behind
            && let Err(error) = shared
                .control_ack(HostRequest::ApplyFlagSettings { settings: behind })
                .await
        {
            return Err(let_go(shared, error, Some(info)).await);
        }
        // The stream describes the claimed folder when the CLI sent its payload.
        let claimed_info = answer
            .initialize
            .filter(|payload| !payload.is_null())
            .and_then(|payload: Value| receipt::<InitializeInfo>("claim_session", payload).ok())
            .unwrap_or(parked.info);
        let warm = WarmQuery::from_parts(
            parked.shared,
            parked.messages,
            claimed_info,
            parked.controls,
            self.ceiling,
        );
        Ok(Claimed {
            info,
            not_applied,
            messages: warm.query(prompt),
        })
    }

    /// Ends the spare without claiming it: its stdin is closed, and this waits for it to exit.
    pub async fn close(mut self) -> ExitInfo {
        match self.parked.take() {
            Some(parked) => {
                parked.stop_reporting();
                parked.shared.close_input();
                parked.shared.wait_exit().await
            }
            None => ExitInfo::default(),
        }
    }
}

/// Ends a spare whose claim failed, and says why: the process died, the overlay was refused,
/// or another error.
async fn let_go(shared: &SessionCore, error: Error, claim: Option<ClaimInfo>) -> ClaimError {
    shared.shutdown();
    if let Error::Control { message, .. } = error {
        return ClaimError::SettingsNotApplied { message, claim };
    }
    let died = matches!(error, Error::ProcessExited { .. } | Error::Closed)
        || shared.exit_info().is_some();
    if died && let Ok(exit) = tokio::time::timeout(EXIT_REPORT_WAIT, shared.wait_exit()).await {
        return ClaimError::SpareExited(exit);
    }
    ClaimError::Session(error)
}

impl Drop for SpareProcess {
    fn drop(&mut self) {
        if let Some(parked) = &self.parked {
            parked.stop_reporting();
            parked.shared.shutdown();
        }
    }
}

impl std::fmt::Debug for SpareProcess {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SpareProcess")
            .field("parked", &self.parked.is_some())
            .field("sdk_servers", &self.sdk_servers)
            .finish_non_exhaustive()
    }
}
