//! The connection's lifecycle: the protocol versions the router speaks, the `initialize`
//! result, and the handshake manifest that lets the Claude Code CLI skip the handshake.

use serde::Serialize;

use crate::jsonrpc::{
    CompletionsCapability, InitializeResult, ListChangedCapability, LoggingCapability,
    ResourcesCapability, ToolsList,
};
use crate::tool::ToolServer;

/// The MCP protocol versions this router speaks, oldest first.
pub const SUPPORTED_PROTOCOL_VERSIONS: [&str; 4] =
    ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"];

/// The version answered when the client asks for one this router does not know.
pub const LATEST_PROTOCOL_VERSION: &str = "2025-11-25";

/// The index in [`SUPPORTED_PROTOCOL_VERSIONS`] of the version answered to a client asking for
/// `requested`: the same version when the router speaks it, else the latest.
pub(crate) fn negotiate(requested: Option<&str>) -> usize {
    requested
        .and_then(|requested| {
            SUPPORTED_PROTOCOL_VERSIONS
                .iter()
                .position(|v| *v == requested)
        })
        .unwrap_or(SUPPORTED_PROTOCOL_VERSIONS.len() - 1)
}

/// The `initialize` result `server` answers for `version`: what the router replies, and what a
/// handshake manifest carries.
pub(crate) fn initialize_result(
    server: &ToolServer,
    version: &str,
    list_changed: bool,
    subscribe: bool,
) -> InitializeResult {
    let mut result = InitializeResult::new(version, server.name(), server.version());
    result.capabilities.tools.list_changed = list_changed;
    // Announced only when the server has them, so that a tools-only server answers as it did.
    // `subscribe`: the connection has a way to be told of a resource's updates.
    if server.has_prompts() {
        result.capabilities.prompts = Some(ListChangedCapability { list_changed });
    }
    if server.has_resources() {
        result.capabilities.resources = Some(ResourcesCapability {
            subscribe,
            list_changed,
        });
    }
    if server.has_prompts() || server.has_resources() {
        result.capabilities.completions = Some(CompletionsCapability {});
    }
    // Every router takes `logging/setLevel` and any tool may log (`ToolContext::log`), so
    // every server announces it, as MCP asks of a server that sends log messages.
    result.capabilities.logging = Some(LoggingCapability {});
    result.instructions = server.instructions().map(String::from);
    result
}

/// The `sdkMcpServerManifests` entry of one in-process server: its `initialize` and
/// `tools/list` results, exactly as the router would answer them.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[doc(hidden)]
pub struct HandshakeManifest {
    /// The `initialize` result, for [`LATEST_PROTOCOL_VERSION`].
    pub initialize_result: InitializeResult,
    /// The `tools/list` result.
    pub tools_list_result: ToolsList,
}

/// The handshake manifest of `server`, for [`LATEST_PROTOCOL_VERSION`] (the version the CLI
/// asks for; the CLI ignores an entry of another version).
#[doc(hidden)]
pub fn handshake_manifest(server: &ToolServer) -> HandshakeManifest {
    HandshakeManifest {
        // In-process, the session's router has a notifier: it can send resource updates.
        initialize_result: initialize_result(server, LATEST_PROTOCOL_VERSION, false, true),
        tools_list_result: ToolsList::new(server.list_tools()),
    }
}
