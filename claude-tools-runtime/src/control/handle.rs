//! [`Controls`]: the session controls, shared by [`Client`](crate::client::Client) and the
//! one-shot [`MessageStream`](crate::stream::MessageStream) (both dereference to it):
//! interrupt, model, permission mode, thinking, settings, MCP servers, context, files, usage,
//! tasks and reloads. Each sends one control request and types the CLI's answer.

use std::sync::Arc;

use serde_json::Value;

use super::arguments::{ContextDetail, ReadFile, SettingsUpdate, ThinkingChange, UsageQuery};
use super::files::FileContents;
use super::usage::UsageReport;
use crate::control::{
    AbortHandle, BackgroundTasksReceipt, ContextUsage, InitializeInfo, InterruptReceipt,
    ModelReceipt, PermissionModeReceipt, RewindFilesResult, receipt,
};
use crate::dialog::UserDialogAnswer;
use crate::elicitation::ElicitationAnswer;
use crate::error::Result;
use crate::options::PermissionMode;
use crate::permission::PermissionDecision;
use crate::protocol::HostRequest;
use crate::session::SessionCore;

/// The controls of a running session: what the TypeScript SDK's `Query` methods do, one
/// control request each, with the CLI's answer typed.
///
/// [`Client`](crate::client::Client) and the one-shot
/// [`MessageStream`](crate::stream::MessageStream) both dereference to it, so every method is
/// called on either (`client.interrupt()`, `messages.rewind_files(…)`). It is `Clone` (a clone
/// is another handle to the same session, `Send` and `Sync`), so a task can control the session
/// while another reads its messages; a handle that outlives the session gets
/// [`Error::Closed`](crate::Error::Closed) or the CLI's exit from every call.
///
/// ```no_run
/// use claude_tools::control::Controls;
/// use claude_tools::options::Options;
///
/// # async fn run() -> claude_tools::Result<()> {
/// let mut messages = claude_tools::query("Refactor the parser", Options::new()).await?;
/// let controls = Controls::clone(&messages);
/// tokio::spawn(async move {
///     if let Ok(usage) = controls.context_usage().await {
///         println!("{} of {} tokens", usage.total_tokens, usage.max_tokens);
///     }
/// });
/// while let Some(item) = messages.next().await {
///     println!("{item:?}");
/// }
/// # Ok(())
/// # }
/// ```
#[derive(Clone)]
pub struct Controls {
    pub(super) shared: Arc<SessionCore>,
    /// The session's `initialize` body, as [`Controls::reinitialize`] sends it again.
    initialize: Arc<Value>,
}

/// The `initialize` body `request` makes, as [`Controls::reinitialize`] sends it again: the same
/// hooks (under the same callback ids), agents, servers and settings, without the in-process
/// servers' handshake manifests (only the first `initialize` carries them, as in the TypeScript
/// SDK).
pub(crate) fn reinitialize_body(request: &HostRequest<'_>) -> Arc<Value> {
    // Serialising the typed request cannot fail: every map in it has string keys.
    let mut body = serde_json::to_value(request).unwrap_or_default();
    if let Some(body) = body.as_object_mut() {
        body.remove("sdkMcpServerManifests");
    }
    Arc::new(body)
}

impl std::fmt::Debug for Controls {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Controls").finish_non_exhaustive()
    }
}

impl Controls {
    pub(crate) fn new(shared: Arc<SessionCore>, initialize: Arc<Value>) -> Self {
        Self { shared, initialize }
    }

    /// Sends the session's `initialize` again, to a CLI already running, and returns its fresh
    /// answer (TypeScript's `reinitialize()`): after a gap in the transport, when answers may
    /// have been lost. The CLI's answer lists the permission questions and dialogs it still
    /// waits on, and each is served again (by the `can_use_tool` and `on_user_dialog`
    /// callbacks) unless it is being answered or was deferred already: a callback should be
    /// idempotent per [`request_id`](crate::permission::PermissionRequest::request_id), since a
    /// question whose answer the gap lost is asked again.
    ///
    /// The CLI 2.1.332 also registers the session's hooks again (`hooks_applied` in the
    /// answer's [`extra`](InitializeInfo::extra)) and settles a hook callback it was still
    /// waiting on itself. [`Client::initialize_info`](crate::client::Client::initialize_info)
    /// keeps the first answer.
    ///
    /// ```no_run
    /// # use claude_tools::Client;
    /// # async fn run(client: &Client) -> claude_tools::Result<()> {
    /// let fresh = client.reinitialize().await?;
    /// println!("the CLI {:?} is still there", fresh.claude_code_version);
    /// # Ok(())
    /// # }
    /// ```
    pub async fn reinitialize(&self) -> Result<InitializeInfo> {
        let answer = self
            .shared
            .request_as("initialize", &*self.initialize)
            .await?;
        match answer {
            Value::Null => Ok(InitializeInfo::default()),
            answer => receipt("initialize", answer),
        }
    }

    /// A handle that ends the session from another task, gracefully: see [`AbortHandle`].
    ///
    /// ```no_run
    /// # use claude_tools::Client;
    /// # async fn run(mut client: Client) -> claude_tools::Result<()> {
    /// let abort = client.abort_handle();
    /// tokio::spawn(async move {
    ///     tokio::time::sleep(std::time::Duration::from_secs(600)).await;
    ///     abort.abort().await;
    /// });
    /// client.query("Work through the backlog").await?;
    /// while let Some(message) = client.next_message().await {
    ///     println!("{message:?}");
    /// }
    /// # Ok(())
    /// # }
    /// ```
    pub fn abort_handle(&self) -> AbortHandle {
        AbortHandle::new(self.shared.clone())
    }

    /// Interrupts the current turn; returns the CLI's receipt, which lists the prompts still
    /// queued (they run next). The turn ends with a `result` whose subtype is
    /// `error_during_execution`; in-process tools running are told the call was cancelled.
    ///
    /// Like every control below, it fails with [`Error::Control`](crate::Error::Control) when
    /// the CLI refuses, [`Error::Timeout`](crate::Error::Timeout) when it does not answer within
    /// [`Options::control_timeout`](crate::options::Options::control_timeout), and
    /// [`Error::Protocol`](crate::Error::Protocol) when its answer does not fit the receipt's
    /// type (then [`Controls::control_request`](Self::control_request) returns it as JSON).
    ///
    /// ```no_run
    /// # use claude_tools::Client;
    /// # async fn run(client: &Client) -> claude_tools::Result<()> {
    /// let receipt = client.interrupt().await?;
    /// println!("still queued: {:?}", receipt.still_queued);
    /// # Ok(())
    /// # }
    /// ```
    pub async fn interrupt(&self) -> Result<InterruptReceipt> {
        self.shared
            .control(HostRequest::Interrupt {
                cancel_queued: false,
            })
            .await
    }

    /// Interrupts the current turn and cancels the prompts queued behind it
    /// (`"cancel_queued": true`): the receipt lists them in
    /// [`cancelled`](InterruptReceipt::cancelled). A CLI older than the field (before
    /// `interrupt_cancel_queued_v1`) leaves them queued, as [`Controls::interrupt`](Self::interrupt) does.
    pub async fn interrupt_all(&self) -> Result<InterruptReceipt> {
        self.shared
            .control(HostRequest::Interrupt {
                cancel_queued: true,
            })
            .await
    }

    /// Switches the model for the next turns (`None`: the default model); returns the model
    /// the CLI now uses. [`Client::supported_models`](crate::client::Client::supported_models) lists the names it takes.
    pub async fn set_model(&self, model: Option<&str>) -> Result<ModelReceipt> {
        self.shared.control(HostRequest::SetModel { model }).await
    }

    /// Switches the permission mode; returns the mode now in force
    /// ([`PermissionModeReceipt::permission_mode`], which reads the CLI's `manual` as
    /// [`PermissionMode::Default`]).
    ///
    /// ```no_run
    /// # use claude_tools::Client;
    /// # use claude_tools::options::PermissionMode;
    /// # async fn run(client: &Client) -> claude_tools::Result<()> {
    /// let receipt = client.set_permission_mode(PermissionMode::AcceptEdits).await?;
    /// assert_eq!(receipt.permission_mode(), Some(PermissionMode::AcceptEdits));
    /// # Ok(())
    /// # }
    /// ```
    pub async fn set_permission_mode(&self, mode: PermissionMode) -> Result<PermissionModeReceipt> {
        self.shared
            .control(HostRequest::SetPermissionMode { mode })
            .await
    }

    /// Limits the tokens the model may think with in the next turns (`None`: the CLI's
    /// default).
    ///
    /// ```no_run
    /// # use claude_tools::Client;
    /// # async fn run(client: &Client) -> claude_tools::Result<()> {
    /// client.set_max_thinking_tokens(Some(4096)).await?;
    /// # Ok(())
    /// # }
    /// ```
    pub async fn set_max_thinking_tokens(&self, max_thinking_tokens: Option<u32>) -> Result<()> {
        self.set_thinking(ThinkingChange::new().max_tokens(max_thinking_tokens))
            .await
    }

    /// Changes the model's thinking for the rest of the session: its token budget, what is
    /// shown of it, or both (`set_max_thinking_tokens` with `thinking_display`). What the change
    /// does not name stays as it is. The CLI refuses a display the API does not offer
    /// ([`Error::Control`](crate::Error::Control); the budget still applies).
    ///
    /// ```no_run
    /// # use claude_tools::Client;
    /// use claude_tools::control::ThinkingChange;
    /// use claude_tools::options::ThinkingDisplay;
    /// # async fn run(client: &Client) -> claude_tools::Result<()> {
    /// client
    ///     .set_thinking(ThinkingChange::new().max_tokens(Some(8192)).display(ThinkingDisplay::Omitted))
    ///     .await?;
    /// # Ok(())
    /// # }
    /// ```
    pub async fn set_thinking(&self, change: ThinkingChange) -> Result<()> {
        self.shared
            .control_ack(HostRequest::SetMaxThinkingTokens {
                max_thinking_tokens: change.max_tokens,
                thinking_display: change
                    .display
                    .map(|display| display.map(|display| display.as_str())),
            })
            .await
    }

    /// Applies settings to the session, as `--settings` would at launch (the CLI's flag
    /// layer, above the user's and project's settings): `model`, `permissions`, `env`…
    /// `settings` is a JSON object; the CLI refuses anything else
    /// ([`Error::Control`](crate::Error::Control)).
    ///
    /// ```no_run
    /// # use claude_tools::Client;
    /// # async fn run(client: &Client) -> claude_tools::Result<()> {
    /// client
    ///     .apply_flag_settings(serde_json::json!({"permissions": {"allow": ["Bash(ls:*)"]}}))
    ///     .await?;
    /// # Ok(())
    /// # }
    /// ```
    pub async fn apply_flag_settings(&self, settings: Value) -> Result<()> {
        self.shared
            .control_ack(HostRequest::ApplyFlagSettings {
                settings: &settings,
            })
            .await
    }

    /// [`apply_flag_settings`](Self::apply_flag_settings) with typed
    /// [`Settings`](crate::settings::Settings): a misspelt key is a compile error rather than
    /// a setting the CLI ignores.
    ///
    /// ```no_run
    /// # use claude_tools::Client;
    /// use claude_tools::settings::Settings;
    /// # async fn run(client: &Client) -> claude_tools::Result<()> {
    /// client.apply_typed_flag_settings(&Settings::new().model("claude-sonnet-4-5")).await?;
    /// # Ok(())
    /// # }
    /// ```
    pub async fn apply_typed_flag_settings(
        &self,
        settings: &crate::settings::Settings,
    ) -> Result<()> {
        self.apply_flag_settings(settings.to_value()).await
    }

    /// How the context window is used (tokens in it, its size, by category).
    ///
    /// ```no_run
    /// # use claude_tools::Client;
    /// # async fn run(client: &Client) -> claude_tools::Result<()> {
    /// let usage = client.context_usage().await?;
    /// println!("{} of {} tokens", usage.total_tokens, usage.max_tokens);
    /// for category in &usage.categories {
    ///     println!("  {}: {}", category.name, category.tokens);
    /// }
    /// # Ok(())
    /// # }
    /// ```
    pub async fn context_usage(&self) -> Result<ContextUsage> {
        self.shared
            .control(HostRequest::GetContextUsage { detail: None })
            .await
    }

    /// How the context window is used, counted as `detail` says:
    /// [`ContextDetail::Summary`] answers from the last response's usage and local estimates,
    /// with none of the token-count calls of [`ContextDetail::Full`] (what
    /// [`Controls::context_usage`](Self::context_usage) gets).
    ///
    /// ```no_run
    /// # use claude_tools::Client;
    /// use claude_tools::control::ContextDetail;
    /// # async fn run(client: &Client) -> claude_tools::Result<()> {
    /// let usage = client.context_usage_with(ContextDetail::Summary).await?;
    /// println!("about {} tokens", usage.total_tokens);
    /// # Ok(())
    /// # }
    /// ```
    pub async fn context_usage_with(&self, detail: ContextDetail) -> Result<ContextUsage> {
        self.shared
            .control(HostRequest::GetContextUsage {
                detail: Some(detail.as_str()),
            })
            .await
    }

    /// Rewinds files to their state at a user message (needs file checkpointing:
    /// [`Options::enable_file_checkpointing`](crate::options::Options::enable_file_checkpointing)).
    /// Without it the CLI answers [`can_rewind`](RewindFilesResult::can_rewind) `false` with
    /// the reason in [`error`](RewindFilesResult::error).
    ///
    /// ```no_run
    /// # use claude_tools::Client;
    /// # async fn run(client: &Client) -> claude_tools::Result<()> {
    /// let result = client.rewind_files("3f1c…-user-message-uuid").await?;
    /// if !result.can_rewind {
    ///     eprintln!("not rewound: {:?}", result.error);
    /// }
    /// # Ok(())
    /// # }
    /// ```
    pub async fn rewind_files(&self, user_message_id: &str) -> Result<RewindFilesResult> {
        self.shared
            .control(HostRequest::RewindFiles {
                user_message_id,
                dry_run: false,
            })
            .await
    }

    /// What [`Controls::rewind_files`](Self::rewind_files) would change, without changing anything (`"dry_run":
    /// true`): the files, insertions and deletions.
    ///
    /// ```no_run
    /// # use claude_tools::Client;
    /// # async fn run(client: &Client, user_message_id: &str) -> claude_tools::Result<()> {
    /// let preview = client.rewind_files_dry_run(user_message_id).await?;
    /// if preview.can_rewind {
    ///     println!("would restore {:?}", preview.files_changed);
    /// }
    /// # Ok(())
    /// # }
    /// ```
    pub async fn rewind_files_dry_run(&self, user_message_id: &str) -> Result<RewindFilesResult> {
        self.shared
            .control(HostRequest::RewindFiles {
                user_message_id,
                dry_run: true,
            })
            .await
    }

    /// Stops a running task (a background shell command or subagent) by the id its
    /// `task_started` / `task_notification` messages carry; a `task_notification` with status
    /// `stopped` follows.
    ///
    /// ```no_run
    /// # use claude_tools::Client;
    /// # async fn run(client: &Client) -> claude_tools::Result<()> {
    /// client.stop_task("b1m3v6p2u").await?;
    /// # Ok(())
    /// # }
    /// ```
    pub async fn stop_task(&self, task_id: &str) -> Result<()> {
        self.shared
            .control_ack(HostRequest::StopTask { task_id })
            .await
    }

    /// Sends the foreground tasks (shell commands, subagents) to the background, as Ctrl+B
    /// does in the terminal: each blocking tool call returns at once and the turn goes on,
    /// while the task runs on and reports with a `task_notification`. With `tool_use_id`, only
    /// the task that tool use started. Returns `false` only when `tool_use_id` matched no
    /// foreground task.
    ///
    /// ```no_run
    /// # use claude_tools::Client;
    /// # async fn run(client: &Client) -> claude_tools::Result<()> {
    /// if !client.background_tasks(Some("toolu_01")).await? {
    ///     println!("that tool use runs no foreground task");
    /// }
    /// # Ok(())
    /// # }
    /// ```
    pub async fn background_tasks(&self, tool_use_id: Option<&str>) -> Result<bool> {
        let receipt: BackgroundTasksReceipt = self
            .shared
            .control(HostRequest::BackgroundTasks { tool_use_id })
            .await?;
        Ok(receipt.backgrounded.unwrap_or(true))
    }

    /// Writes keys into a settings file through the CLI's own writer (as `/config` does) and
    /// applies them to the session; unlike
    /// [`Controls::apply_flag_settings`](Self::apply_flag_settings), the change outlives it. The
    /// CLI refuses a key it does not allow in that file, and a file outside the session's
    /// setting sources ([`Error::Control`](crate::Error::Control)).
    ///
    /// ```no_run
    /// # use claude_tools::Client;
    /// use claude_tools::control::SettingsUpdate;
    /// # async fn run(client: &Client) -> claude_tools::Result<()> {
    /// client
    ///     .update_settings(SettingsUpdate::local().output_style("Explanatory"))
    ///     .await?;
    /// # Ok(())
    /// # }
    /// ```
    pub async fn update_settings(&self, update: SettingsUpdate) -> Result<()> {
        self.shared
            .control_ack(HostRequest::UpdateSettings {
                source: update.source.as_str(),
                settings: &update.settings,
            })
            .await
    }

    /// Reads a file of the session's filesystem (a path relative to the session's directory, or
    /// absolute), under the Read tool's permission rules: for a host that shows the files the
    /// agent works on. A denied, missing or unreadable file is
    /// [`Error::Control`](crate::Error::Control) (where the TypeScript SDK returns `null`).
    ///
    /// ```no_run
    /// # use claude_tools::Client;
    /// use claude_tools::control::ReadFile;
    /// # async fn run(client: &Client) -> claude_tools::Result<()> {
    /// let readme = client.read_file("README.md", ReadFile::new().max_bytes(64 * 1024)).await?;
    /// if readme.truncated {
    ///     println!("(first 64 KiB of {})", readme.abs_path);
    /// }
    /// println!("{}", readme.contents);
    /// # Ok(())
    /// # }
    /// ```
    pub async fn read_file(&self, path: &str, options: ReadFile) -> Result<FileContents> {
        self.shared
            .control(HostRequest::ReadFile {
                path,
                max_bytes: options.max_bytes,
                encoding: options.base64.then_some("base64"),
            })
            .await
    }

    /// Tells the CLI the agent has read `path`, as it was at `mtime_ms` (its modification time
    /// in whole milliseconds since the Unix epoch): after a `Read` dropped from the context, so
    /// an `Edit` is not refused as "file not read yet". A file changed on disk since then is not
    /// seeded, and the `Edit` asks for a fresh `Read`, as it should.
    ///
    /// ```no_run
    /// # use claude_tools::Client;
    /// # async fn run(client: &Client) -> Result<(), Box<dyn std::error::Error>> {
    /// let modified = std::fs::metadata("src/lib.rs")?.modified()?;
    /// let mtime_ms = modified.duration_since(std::time::UNIX_EPOCH)?.as_millis() as u64;
    /// client.seed_read_state("src/lib.rs", mtime_ms).await?;
    /// # Ok(())
    /// # }
    /// ```
    pub async fn seed_read_state(&self, path: &str, mtime_ms: u64) -> Result<()> {
        self.shared
            .control_ack(HostRequest::SeedReadState {
                path,
                mtime: mtime_ms,
            })
            .await
    }

    /// What `/usage` shows: the session's cost and token totals, and the claude.ai plan's
    /// rate-limit windows when they apply (`get_usage`; experimental in the CLI, so every
    /// field not typed is kept in [`UsageReport::extra`]).
    ///
    /// ```no_run
    /// # use claude_tools::Client;
    /// use claude_tools::control::UsageQuery;
    /// # async fn run(client: &Client) -> claude_tools::Result<()> {
    /// let usage = client.usage(UsageQuery::new().skip_behaviors()).await?;
    /// println!("${:.4} so far", usage.session.total_cost_usd);
    /// if let Some(window) = usage.rate_limits.and_then(|limits| limits.five_hour) {
    ///     println!("5-hour window {:?}% used", window.utilization);
    /// }
    /// # Ok(())
    /// # }
    /// ```
    pub async fn usage(&self, query: UsageQuery) -> Result<UsageReport> {
        self.shared
            .control(HostRequest::GetUsage {
                skip_behaviors: query.skip_behaviors,
            })
            .await
    }

    /// Sends any other control request and returns the CLI's answer as JSON: the escape hatch
    /// for the controls that have no method yet. `body` is the request's body,
    /// `{"subtype": …, …}`, sent as it is inside the `control_request` envelope; the answer is
    /// the `response` of the CLI's success, and a refusal is
    /// [`Error::Control`](crate::Error::Control).
    ///
    /// ```no_run
    /// # use claude_tools::Client;
    /// # async fn run(client: &Client) -> claude_tools::Result<()> {
    /// let answer = client
    ///     .control_request(serde_json::json!({"subtype": "get_settings"}))
    ///     .await?;
    /// # Ok(())
    /// # }
    /// ```
    pub async fn control_request(&self, body: Value) -> Result<Value> {
        let subtype = body
            .get("subtype")
            .and_then(Value::as_str)
            .unwrap_or_default();
        self.shared.request_as(subtype, &body).await
    }

    /// Answers a permission question the [`can_use_tool`](crate::options::Options::can_use_tool)
    /// callback deferred ([`PermissionDecision::Later`]), by its
    /// [`request_id`](crate::permission::PermissionRequest::request_id). Returns whether the
    /// answer was sent: `false` (nothing sent) when no deferred permission question has that id
    /// (answered already, withdrawn by the CLI, never deferred), when the session has ended, or
    /// when `decision` is `Later` itself.
    ///
    /// ```no_run
    /// # use claude_tools::Client;
    /// use claude_tools::PermissionDecision;
    /// # fn run(client: &Client, request_id: &str) {
    /// // The reviewer approved, over another channel.
    /// if !client.answer_permission(request_id, PermissionDecision::allow()) {
    ///     eprintln!("the question is gone (withdrawn or answered)");
    /// }
    /// # }
    /// ```
    pub fn answer_permission(&self, request_id: &str, decision: PermissionDecision) -> bool {
        self.shared.answer_permission(request_id, &decision)
    }

    /// Answers an elicitation the [`on_elicitation`](crate::options::Options::on_elicitation)
    /// callback deferred ([`ElicitationAnswer::later`]), by its
    /// [`request_id`](crate::elicitation::ElicitationRequest::request_id); `false` as
    /// [`Controls::answer_permission`](Self::answer_permission).
    pub fn answer_elicitation(&self, request_id: &str, answer: ElicitationAnswer) -> bool {
        self.shared.answer_elicitation(request_id, &answer)
    }

    /// Answers a dialog the [`on_user_dialog`](crate::options::Options::on_user_dialog)
    /// callback deferred ([`UserDialogAnswer::Later`]), by its
    /// [`request_id`](crate::dialog::UserDialogRequest::request_id); `false` as
    /// [`Controls::answer_permission`](Self::answer_permission).
    pub fn answer_user_dialog(&self, request_id: &str, answer: UserDialogAnswer) -> bool {
        self.shared.answer_user_dialog(request_id, &answer)
    }
}
