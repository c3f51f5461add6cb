//! `system` messages: session init, status, state changes and other notices.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::wire::{WireForm, null_default, typed};

/// A `system` message. Its fields beyond `subtype`, `session_id` and `uuid` are in `data`; typed
/// views: [`init`](Self::init), [`session_state`](Self::session_state),
/// [`status`](Self::status).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SystemMessage {
    /// `init`, `status`, `session_state_changed`, `api_retry`, `compact_boundary`,
    /// `task_started`…
    pub subtype: String,
    /// The session id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_id: Option<String>,
    /// The message uuid.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uuid: Option<String>,
    /// Every other field.
    #[serde(flatten)]
    pub data: Map<String, Value>,
    /// The wire form of the fields the types above cannot tell apart (see the module docs).
    #[serde(skip)]
    wire: WireForm,
}

impl SystemMessage {
    /// The `init` message's fields, when this is one (and they fit).
    pub fn init(&self) -> Option<SystemInit> {
        if self.subtype != "init" {
            return None;
        }
        match SystemInit::deserialize(&Value::Object(self.data.clone())) {
            Ok(init) => Some(init),
            Err(error) => {
                tracing::debug!(%error, "system/init did not fit its type");
                None
            }
        }
    }

    /// The new state, when this is `session_state_changed`.
    pub fn session_state(&self) -> Option<SessionState> {
        if self.subtype != "session_state_changed" {
            return None;
        }
        self.data
            .get("state")
            .and_then(Value::as_str)
            .map(SessionState::from_wire)
    }

    /// The status (`compacting`…, `None` when cleared), when this is `status`.
    pub fn status(&self) -> Option<Option<&str>> {
        if self.subtype != "status" {
            return None;
        }
        Some(self.data.get("status").and_then(Value::as_str))
    }

    /// Whether the CLI meant it for the host library only (`sdk_host_only: true`), as the
    /// `session_state_changed` frames asked for by `CLAUDE_CODE_SDK_READS_SESSION_STATE`.
    pub fn is_host_only(&self) -> bool {
        self.data.get("sdk_host_only").and_then(Value::as_bool) == Some(true)
    }
}

/// The state of a session, from `system/session_state_changed`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum SessionState {
    /// Nothing running: the run has ended.
    Idle,
    /// A turn (or background work) is running.
    Running,
    /// Waiting on the host (a permission prompt, a dialog).
    RequiresAction,
    /// A state this library does not know.
    Other(String),
}

impl SessionState {
    /// Parses the wire value.
    pub fn from_wire(state: &str) -> Self {
        match state {
            "idle" => SessionState::Idle,
            "running" => SessionState::Running,
            "requires_action" => SessionState::RequiresAction,
            other => SessionState::Other(other.to_owned()),
        }
    }

    /// The wire value.
    pub fn as_str(&self) -> &str {
        match self {
            SessionState::Idle => "idle",
            SessionState::Running => "running",
            SessionState::RequiresAction => "requires_action",
            SessionState::Other(other) => other,
        }
    }
}

/// The fields of `system/init`: what the session starts with.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct SystemInit {
    /// The model.
    #[serde(default)]
    pub model: Option<String>,
    /// The working directory.
    #[serde(default)]
    pub cwd: Option<String>,
    /// Every tool the model may use (built-in and `mcp__…`).
    #[serde(default, deserialize_with = "null_default")]
    pub tools: Vec<String>,
    /// The MCP servers and their status.
    #[serde(default, deserialize_with = "null_default")]
    pub mcp_servers: Vec<McpServerStatus>,
    /// The permission mode, by its wire name; typed by
    /// [`permission_mode`](SystemInit::permission_mode) (method).
    #[serde(default, rename = "permissionMode")]
    pub permission_mode: Option<String>,
    /// The CLI version.
    #[serde(default)]
    pub claude_code_version: Option<String>,
    /// Where the API key came from (`ANTHROPIC_API_KEY`, `none`…).
    #[serde(default, rename = "apiKeySource")]
    pub api_key_source: Option<String>,
    /// The slash commands.
    #[serde(default, deserialize_with = "null_default")]
    pub slash_commands: Vec<String>,
    /// Every other field (`agents`, `skills`, `plugins`, `capabilities`, `output_style`…).
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl SystemInit {
    /// The status of the MCP server `name`, if it is listed.
    pub fn mcp_server(&self, name: &str) -> Option<&McpServerStatus> {
        self.mcp_servers.iter().find(|s| s.name == name)
    }

    /// The permission mode, typed; the CLI's `manual` reads as
    /// [`PermissionMode::Default`](crate::options::PermissionMode::Default)
    /// ([`PermissionMode::from_wire`](crate::options::PermissionMode::from_wire)).
    pub fn permission_mode(&self) -> Option<crate::options::PermissionMode> {
        self.permission_mode
            .as_deref()
            .and_then(crate::options::PermissionMode::from_wire)
    }
}

/// One MCP server and its state, in `system/init` and in the answer to `mcp_status`
/// ([`Controls::mcp_status`](crate::control::Controls::mcp_status)).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct McpServerStatus {
    /// The server's key.
    pub name: String,
    /// `connected`, `failed`, `pending`, `needs-auth`, `disabled`…
    pub status: String,
    /// The server's name and version from its MCP handshake, once connected.
    #[serde(
        rename = "serverInfo",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub server_info: Option<McpServerInfo>,
    /// Why it failed, when it did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Where it is configured (`project`, `user`, `local`, `dynamic`…).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scope: Option<String>,
    /// Its tools, once connected (in `mcp_status`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools: Option<Vec<McpToolInfo>>,
    /// How the CLI reaches it (`command`, `url`…), when the CLI says.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub config: Option<super::McpServerStatusConfig>,
    /// Every other field (`source`, `transport`…).
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// A server's name and version, from its MCP handshake.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct McpServerInfo {
    /// The server's own name (which may differ from its key).
    #[serde(default)]
    pub name: String,
    /// Its version.
    #[serde(default)]
    pub version: String,
    /// Every other field (`title`…).
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// One tool of a server, in [`McpServerStatus::tools`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct McpToolInfo {
    /// The tool's name on its server (without the `mcp__{server}__` prefix).
    pub name: String,
    /// Its description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Its annotations, as the CLI summarises them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<McpToolAnnotations>,
    /// Every other field.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// A tool's annotations as the CLI reports them (`readOnly` for `readOnlyHint`…).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct McpToolAnnotations {
    /// The tool only reads.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read_only: Option<bool>,
    /// The tool may destroy data.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub destructive: Option<bool>,
    /// The tool reaches an open world (the internet).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub open_world: Option<bool>,
    /// Every other field.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl McpServerStatus {
    /// `status == "connected"`.
    pub fn is_connected(&self) -> bool {
        self.status == "connected"
    }
}

typed!(SystemMessage { data });
