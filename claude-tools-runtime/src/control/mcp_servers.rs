//! The MCP servers of the session, as [`Controls`] reach them: their status, turning one off
//! or on, reconnecting, reading a resource, setting the servers the CLI runs and overriding a
//! server's permission mode. Each sends one control request and types the CLI's answer.

use super::arguments::McpPermissionMode;
use super::files::McpPermissionOverrideReceipt;
use super::handle::Controls;
use crate::control::{McpResource, McpSetServersResult, McpStatus, receipt};
use crate::error::Result;
use crate::protocol::HostRequest;

impl Controls {
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
    /// [`Controls::mcp_status`](Self::mcp_status) lists it as `disabled`) or on again. Works for in-process servers
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

    /// Holds the tool calls of MCP server `server_name` to a permission mode, whatever the
    /// session's (`None` clears the override). A name no server has is stored all the same
    /// (it applies once such a server connects), with a
    /// [`warning`](McpPermissionOverrideReceipt::warning).
    ///
    /// ```no_run
    /// # use claude_tools::Client;
    /// use claude_tools::control::McpPermissionMode;
    /// # async fn run(client: &Client) -> claude_tools::Result<()> {
    /// let receipt = client
    ///     .set_mcp_permission_mode_override("payments", Some(McpPermissionMode::Default))
    ///     .await?;
    /// if let Some(warning) = receipt.warning {
    ///     eprintln!("{warning}");
    /// }
    /// # Ok(())
    /// # }
    /// ```
    pub async fn set_mcp_permission_mode_override(
        &self,
        server_name: &str,
        mode: Option<McpPermissionMode>,
    ) -> Result<McpPermissionOverrideReceipt> {
        self.shared
            .control(HostRequest::SetMcpPermissionModeOverride {
                server_name,
                mode: mode.map(McpPermissionMode::as_str),
            })
            .await
    }
}
