//! The session controls of [`Client`]: interrupt, model, permission mode, thinking, settings,
//! MCP servers, context, files, tasks and reloads. Each sends one control request and types
//! the CLI's answer ([`crate::control`]).

use serde_json::Value;

use super::Client;
use crate::control::{
    BackgroundTasksReceipt, ContextUsage, InterruptReceipt, McpResource, McpSetServersResult,
    McpStatus, ModelReceipt, PermissionModeReceipt, ReloadPluginsResult, ReloadSkillsResult,
    RewindFilesResult, receipt,
};
use crate::error::Result;
use crate::options::PermissionMode;
use crate::protocol::HostRequest;

impl Client {
    /// Interrupts the current turn; returns the CLI's receipt, which lists the prompts still
    /// queued (they run next). The turn ends with a `result` whose subtype is
    /// `error_during_execution`; in-process tools running are told the call was cancelled.
    ///
    /// Like every control below, it fails with [`Error::Control`](crate::Error::Control) when
    /// the CLI refuses, [`Error::Timeout`](crate::Error::Timeout) when it does not answer within
    /// [`Options::control_timeout`](crate::options::Options::control_timeout), and
    /// [`Error::Protocol`](crate::Error::Protocol) when its answer does not fit the receipt's
    /// type (then [`Client::control_request`] returns it as JSON).
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
    /// `interrupt_cancel_queued_v1`) leaves them queued, as [`Client::interrupt`] does.
    pub async fn interrupt_all(&self) -> Result<InterruptReceipt> {
        self.shared
            .control(HostRequest::Interrupt {
                cancel_queued: true,
            })
            .await
    }

    /// Switches the model for the next turns (`None`: the default model); returns the model
    /// the CLI now uses. [`Client::supported_models`] lists the names it takes.
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
        self.shared
            .control_ack(HostRequest::SetMaxThinkingTokens {
                max_thinking_tokens,
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

    /// The status of every MCP server (no in-process server is listed before the first turn).
    ///
    /// ```no_run
    /// # use claude_tools::Client;
    /// # async fn run(client: &Client) -> claude_tools::Result<()> {
    /// let status = client.mcp_status().await?;
    /// for server in &status.servers {
    ///     println!("{}: {}", server.name, server.status);
    /// }
    /// assert!(status.server("calc").is_some_and(|calc| calc.is_connected()));
    /// # Ok(())
    /// # }
    /// ```
    pub async fn mcp_status(&self) -> Result<McpStatus> {
        self.shared.control(HostRequest::McpStatus).await
    }

    /// Turns MCP server `name` off (`enabled: false`: its tools are no longer offered, and
    /// [`Client::mcp_status`] lists it as `disabled`) or on again. Works for in-process servers
    /// and those the CLI runs; an unknown name is [`Error::Control`](crate::Error::Control)
    /// (`Server not found: …`).
    ///
    /// ```no_run
    /// # use claude_tools::Client;
    /// # async fn run(client: &Client) -> claude_tools::Result<()> {
    /// client.toggle_mcp_server("calc", false).await?;
    /// // … turns without calc's tools …
    /// client.toggle_mcp_server("calc", true).await?;
    /// # Ok(())
    /// # }
    /// ```
    pub async fn toggle_mcp_server(&self, name: &str, enabled: bool) -> Result<()> {
        self.shared
            .control_ack(HostRequest::McpToggle {
                server_name: name,
                enabled,
            })
            .await
    }

    /// Reconnects MCP server `name`, one the CLI runs (a failed or disconnected stdio, HTTP or
    /// SSE server). The CLI refuses an in-process server
    /// ([`Error::Control`](crate::Error::Control): `SDK servers should be handled in
    /// print.ts`), whose connection is this session itself, and an unknown name (`Server not
    /// found: …`).
    ///
    /// ```no_run
    /// # use claude_tools::Client;
    /// # async fn run(client: &Client) -> claude_tools::Result<()> {
    /// let status = client.mcp_status().await?;
    /// if status.server("docs").is_some_and(|docs| docs.status == "failed") {
    ///     client.reconnect_mcp_server("docs").await?;
    /// }
    /// # Ok(())
    /// # }
    /// ```
    pub async fn reconnect_mcp_server(&self, name: &str) -> Result<()> {
        self.shared
            .control_ack(HostRequest::McpReconnect { server_name: name })
            .await
    }

    /// Reads resource `uri` of MCP server `name`, one the CLI runs: an MCP Apps widget
    /// (`ui://…`; the CLI refuses other schemes and in-process servers, whose resources the
    /// host reads itself). The contents are the server's, untrusted: render them sandboxed.
    ///
    /// ```no_run
    /// # use claude_tools::Client;
    /// # async fn run(client: &Client) -> claude_tools::Result<()> {
    /// let resource = client.read_mcp_resource("charts", "ui://charts/bar").await?;
    /// for item in &resource.contents {
    ///     println!("{} ({:?}): {:?}", item.uri, item.mime_type, item.text);
    /// }
    /// # Ok(())
    /// # }
    /// ```
    pub async fn read_mcp_resource(&self, name: &str, uri: &str) -> Result<McpResource> {
        self.shared
            .control(HostRequest::McpReadResource {
                server_name: name,
                uri,
            })
            .await
    }

    /// Sets the MCP servers the CLI runs on top of its configuration (stdio, HTTP, SSE), while
    /// the session runs: the servers of an earlier call that are not named again are removed,
    /// the in-process servers stay. Returns the CLI's receipt: the servers it
    /// [`added`](McpSetServersResult::added) and [`removed`](McpSetServersResult::removed), and
    /// those it could not connect ([`errors`](McpSetServersResult::errors); they stay listed as
    /// `failed`). A name of an in-process server is
    /// [`LiveToolError::DuplicateServer`](claude_tools_core::mcp::LiveToolError::DuplicateServer) (as [`Error::Live`](crate::Error::Live)).
    ///
    /// The servers given to [`Options::external_mcp_server`] are not changed by this (the CLI
    /// keeps them whatever the call names), as in the TypeScript SDK: to be able to remove a
    /// server, add it here.
    ///
    /// ```no_run
    /// # use claude_tools::Client;
    /// # use claude_tools::options::ExternalServer;
    /// # async fn run(client: &Client) -> claude_tools::Result<()> {
    /// let receipt = client
    ///     .set_mcp_servers([("docs", ExternalServer::http("https://mcp.example.com/mcp"))])
    ///     .await?;
    /// assert_eq!(receipt.added, ["docs"]);
    /// // Later: remove it again.
    /// client.set_mcp_servers(Vec::<(String, ExternalServer)>::new()).await?;
    /// # Ok(())
    /// # }
    /// ```
    ///
    /// A server given as an [`McpServerEntry`](crate::options::McpServerEntry) carries its
    /// settings (timeout, `alwaysLoad`, tool policies and the organization's ceilings), which
    /// the CLI applies to a server set this way.
    ///
    /// [`Options::external_mcp_server`]: crate::options::Options::external_mcp_server
    pub async fn set_mcp_servers<N: Into<String>, S: Into<crate::options::McpServerEntry>>(
        &self,
        servers: impl IntoIterator<Item = (N, S)>,
    ) -> Result<McpSetServersResult> {
        let servers = servers
            .into_iter()
            .map(|(name, server)| {
                let name = name.into();
                let config = server.into().to_json(&name)?;
                Ok((name, config))
            })
            .collect::<Result<_>>()?;
        let answer = self.shared.set_mcp_servers(servers).await?;
        receipt("mcp_set_servers", answer)
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
        self.shared.control(HostRequest::GetContextUsage).await
    }

    /// Rewinds files to their state at a user message (needs file checkpointing:
    /// `CLAUDE_CODE_ENABLE_SDK_FILE_CHECKPOINTING=true` in [`Options::env`](crate::options::Options::env)).
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

    /// What [`Client::rewind_files`] would change, without changing anything (`"dry_run":
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

    /// Reads the plugins again from disk and returns what the session now offers: commands,
    /// subagents, plugins and MCP servers.
    ///
    /// ```no_run
    /// # use claude_tools::Client;
    /// # async fn run(client: &Client) -> claude_tools::Result<()> {
    /// let reloaded = client.reload_plugins().await?;
    /// for plugin in &reloaded.plugins {
    ///     println!("{} from {}", plugin.name, plugin.path);
    /// }
    /// # Ok(())
    /// # }
    /// ```
    pub async fn reload_plugins(&self) -> Result<ReloadPluginsResult> {
        self.shared.control(HostRequest::ReloadPlugins).await
    }

    /// Reads the skills again from disk and returns them.
    ///
    /// ```no_run
    /// # use claude_tools::Client;
    /// # async fn run(client: &Client) -> claude_tools::Result<()> {
    /// let skills = client.reload_skills().await?;
    /// println!("{} skills", skills.skills.len());
    /// # Ok(())
    /// # }
    /// ```
    pub async fn reload_skills(&self) -> Result<ReloadSkillsResult> {
        self.shared.control(HostRequest::ReloadSkills).await
    }
}
