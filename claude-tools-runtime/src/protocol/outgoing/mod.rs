//! What the host writes to the CLI: every control request it sends, as a typed value
//! ([`HostRequest`]), the envelopes around them, and the typed payloads of its answers to the
//! CLI's requests. Nothing here is built as a `Value` first: each frame is serialised straight
//! into the line that goes out, in the exact shape (and key order) the official SDKs write.

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;
use serde::ser::{SerializeMap, Serializer};
use serde_json::{Map, Value};

use super::hook_id::HookCallbackId;
use crate::control::PluginToAdd;
use crate::hooks::{HookCallback, OnFailure};
use crate::options::{AgentDefinition, Options, PermissionMode};
use crate::permission::{DecisionClassification, PermissionDecision, PermissionUpdate};
use claude_tools_core::mcp::{HandshakeManifest, ServerNotification};

/// A control request of the host: the `request` of a `control_request`,
/// `{"subtype": …, …fields}`.
#[derive(Debug, Serialize)]
#[serde(tag = "subtype", rename_all = "snake_case")]
pub(crate) enum HostRequest<'a> {
    /// The session's start: hooks, agents and (opt-in) the in-process servers' handshakes.
    Initialize(Box<InitializeRequest<'a>>),
    /// Interrupt the current turn; `cancel_queued` also cancels the prompts queued behind it
    /// (written only when set, so a plain interrupt is `{"subtype":"interrupt"}`).
    Interrupt {
        #[serde(skip_serializing_if = "is_false")]
        cancel_queued: bool,
    },
    /// Switch the model (`null`: the default model).
    SetModel { model: Option<&'a str> },
    /// Switch the permission mode.
    SetPermissionMode {
        #[serde(serialize_with = "permission_mode")]
        mode: PermissionMode,
    },
    /// Limit the model's thinking and set its display. Each field is left out when it is not to
    /// change (`None`), `null` to go back to the default (`Some(None)`).
    SetMaxThinkingTokens {
        #[serde(skip_serializing_if = "Option::is_none")]
        max_thinking_tokens: Option<Option<u32>>,
        #[serde(skip_serializing_if = "Option::is_none")]
        thinking_display: Option<Option<&'static str>>,
    },
    /// The status of every MCP server.
    McpStatus,
    /// Reconnect an MCP server the CLI runs.
    McpReconnect {
        #[serde(rename = "serverName")]
        server_name: &'a str,
    },
    /// Turn an MCP server off or on again.
    McpToggle {
        #[serde(rename = "serverName")]
        server_name: &'a str,
        enabled: bool,
    },
    /// Read a resource of an MCP server the CLI runs.
    McpReadResource {
        #[serde(rename = "serverName")]
        server_name: &'a str,
        uri: &'a str,
    },
    /// How the context window is used; `detail` (written only when given) `full` or `summary`.
    GetContextUsage {
        #[serde(skip_serializing_if = "Option::is_none")]
        detail: Option<&'static str>,
    },
    /// Rewind files to their state at a user message; `dry_run` (written only when set) only
    /// says what would change.
    RewindFiles {
        user_message_id: &'a str,
        #[serde(skip_serializing_if = "is_false")]
        dry_run: bool,
    },
    /// Stop a running task (a background shell command or subagent).
    StopTask { task_id: &'a str },
    /// Send the foreground tasks (or the one started by a tool use) to the background.
    BackgroundTasks {
        #[serde(skip_serializing_if = "Option::is_none")]
        tool_use_id: Option<&'a str>,
    },
    /// Read the plugins again; each option is written only when it says something, in the
    /// TypeScript SDK's order.
    ReloadPlugins {
        #[serde(skip_serializing_if = "is_false")]
        hold_on_cache_impact: bool,
        #[serde(skip_serializing_if = "<[_]>::is_empty")]
        add_plugins: &'a [PluginToAdd],
        #[serde(skip_serializing_if = "is_false")]
        refuse_if_busy: bool,
    },
    /// Read the skills again.
    ReloadSkills,
    /// Read the output styles again.
    ReloadOutputStyles,
    /// Write keys into a settings file through the CLI's own writer.
    UpdateSettings {
        source: &'static str,
        settings: &'a Map<String, Value>,
    },
    /// Hold an MCP server's tool calls to a permission mode (`null`: clear the override).
    SetMcpPermissionModeOverride {
        #[serde(rename = "serverName")]
        server_name: &'a str,
        mode: Option<&'static str>,
    },
    /// Read a file of the session's filesystem.
    ReadFile {
        path: &'a str,
        #[serde(skip_serializing_if = "Option::is_none")]
        max_bytes: Option<u64>,
        #[serde(skip_serializing_if = "Option::is_none")]
        encoding: Option<&'static str>,
    },
    /// Tell the CLI a file was read at this mtime (floored milliseconds).
    SeedReadState { path: &'a str, mtime: u64 },
    /// What `/usage` shows.
    GetUsage {
        #[serde(skip_serializing_if = "is_false")]
        skip_behaviors: bool,
    },
    /// Settings for the session's flag layer, as `--settings` would give them.
    ApplyFlagSettings { settings: &'a Value },
    /// The MCP servers the CLI is to serve on top of its configuration: the whole set,
    /// replacing the CLI's (the servers set at run time and the in-process ones).
    McpSetServers { servers: SdkServers<'a> },
    /// A message an in-process server emits on its own (a notification), for the CLI's MCP
    /// client; the CLI merely acknowledges it.
    McpMessage {
        server_name: &'a str,
        message: &'a ServerNotification,
    },
    /// Bind a parked spare (`--await-claim`) to its session: its folder and the per-session
    /// options that travel with the claim.
    ClaimSession(&'a ClaimSessionBody<'a>),
}

/// The fields of a `claim_session` request, each written only when the claim sets it.
#[derive(Debug, Serialize)]
pub(crate) struct ClaimSessionBody<'a> {
    pub(crate) cwd: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) permission_mode: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) env: Option<BTreeMap<&'a str, &'a str>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) additional_directories: Option<Vec<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) append_system_prompt: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) title: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) agents: Option<&'a BTreeMap<String, AgentDefinition>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) workspace_trust: Option<&'a crate::spare::WorkspaceTrust>,
    /// The in-process servers of the session: those of the spare's options.
    pub(crate) sdk_mcp_servers: Vec<&'a str>,
    /// Asks for the claimed folder's `initialize` payload (commands, agents, models…).
    pub(crate) include_initialize: bool,
}

impl HostRequest<'_> {
    /// The request's `subtype`, as errors about it name it.
    pub(crate) fn subtype(&self) -> &'static str {
        match self {
            HostRequest::Initialize(_) => "initialize",
            HostRequest::Interrupt { .. } => "interrupt",
            HostRequest::SetModel { .. } => "set_model",
            HostRequest::SetPermissionMode { .. } => "set_permission_mode",
            HostRequest::SetMaxThinkingTokens { .. } => "set_max_thinking_tokens",
            HostRequest::McpStatus => "mcp_status",
            HostRequest::McpReconnect { .. } => "mcp_reconnect",
            HostRequest::McpToggle { .. } => "mcp_toggle",
            HostRequest::McpReadResource { .. } => "mcp_read_resource",
            HostRequest::GetContextUsage { .. } => "get_context_usage",
            HostRequest::RewindFiles { .. } => "rewind_files",
            HostRequest::StopTask { .. } => "stop_task",
            HostRequest::BackgroundTasks { .. } => "background_tasks",
            HostRequest::ReloadPlugins { .. } => "reload_plugins",
            HostRequest::ReloadSkills => "reload_skills",
            HostRequest::ReloadOutputStyles => "reload_output_styles",
            HostRequest::UpdateSettings { .. } => "update_settings",
            HostRequest::SetMcpPermissionModeOverride { .. } => "set_mcp_permission_mode_override",
            HostRequest::ReadFile { .. } => "read_file",
            HostRequest::SeedReadState { .. } => "seed_read_state",
            HostRequest::GetUsage { .. } => "get_usage",
            HostRequest::ApplyFlagSettings { .. } => "apply_flag_settings",
            HostRequest::McpSetServers { .. } => "mcp_set_servers",
            HostRequest::McpMessage { .. } => "mcp_message",
            HostRequest::ClaimSession(_) => "claim_session",
        }
    }
}

fn permission_mode<S: Serializer>(mode: &PermissionMode, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.serialize_str(mode.as_str())
}

/// The body of the host's `initialize` request: what the options hand over for the session's
/// start, with each hook callback under its [`HookCallbackId`].
#[derive(Debug, Serialize)]
pub(crate) struct InitializeRequest<'a> {
    /// By event, in the options' order (which is also the order of the ids); `null` without
    /// hooks, as the official SDKs write it.
    hooks: Option<Entries<&'a str, Vec<HookMatcherEntry<'a>>>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    agents: Option<Entries<&'a str, &'a AgentDefinition>>,
    /// The in-process servers named here: with handshake manifests all of them (instead of in
    /// `--mcp-config`); otherwise those with tool policies (in `--mcp-config` too), which the
    /// CLI reads only from here…
    #[serde(rename = "sdkMcpServers", skip_serializing_if = "Option::is_none")]
    sdk_mcp_servers: Option<Vec<&'a str>>,
    /// …with, with handshake manifests, their MCP `initialize` and `tools/list` results.
    #[serde(
        rename = "sdkMcpServerManifests",
        skip_serializing_if = "Option::is_none"
    )]
    sdk_mcp_server_manifests: Option<Entries<&'a str, HandshakeManifest>>,
    /// The external MCP servers, with their `env` and `headers`, kept off the command line
    /// ([`ConfigDelivery::Initialize`](crate::options::ConfigDelivery::Initialize)).
    #[serde(rename = "mcpServers", skip_serializing_if = "Option::is_none")]
    mcp_servers: Option<Map<String, Value>>,
    /// Inline settings, kept off the command line the same way.
    #[serde(skip_serializing_if = "Option::is_none")]
    settings: Option<Map<String, Value>>,
    /// The system prompt's fields the command line cannot carry.
    #[serde(flatten)]
    prompt: crate::options::PromptInit<'a>,
    /// The conversation's title and tool aliases.
    #[serde(flatten)]
    conversation: crate::options::ConversationInit<'a>,
    /// What the stream carries.
    #[serde(flatten)]
    stream: crate::options::StreamInit,
    /// The dialog kinds the host shows ([`Options::on_user_dialog`]); the CLI sends no other.
    #[serde(
        rename = "supportedDialogKinds",
        skip_serializing_if = "Option::is_none"
    )]
    supported_dialog_kinds: Option<Vec<&'a str>>,
    /// The skills the main session may use.
    #[serde(flatten)]
    plugins: crate::options::PluginsInitialize<'a>,
    /// Managed settings, kept off the command line.
    #[serde(flatten)]
    managed: crate::options::ManagedInitialize<'a>,
    /// The in-process servers' settings (`sdkMcpServerConfigs`).
    #[serde(flatten)]
    servers: crate::options::ServersInitialize,
}

/// One matcher of an event in `initialize`.
#[derive(Debug, Serialize)]
struct HookMatcherEntry<'a> {
    matcher: Option<&'a str>,
    #[serde(rename = "hookCallbackIds")]
    hook_callback_ids: Vec<HookCallbackId>,
    #[serde(skip_serializing_if = "Option::is_none")]
    timeout: Option<f64>,
    #[serde(rename = "onFailure", skip_serializing_if = "Option::is_none")]
    on_failure: Option<OnFailure>,
}

impl<'a> InitializeRequest<'a> {
    /// What the CLI must confirm in its answer it took from this request (`<field>_applied`
    /// true), by the field's name in the request: the fields a CLI that predates them ignores.
    pub(crate) fn fields_to_confirm(&self) -> Vec<(&'static str, &'static str)> {
        let mut fields = Vec::new();
        if self.mcp_servers.is_some() {
            fields.push(("mcpServers", "mcp_servers_applied"));
        }
        if self.settings.is_some() {
            fields.push(("settings", "settings_applied"));
        }
        // A CLI that does not honour `onFailure` would let a failed "block" hook's action run:
        // the session must not start on it (as the TypeScript SDK refuses it).
        let blocks_on_failure =
            self.hooks
                .iter()
                .flat_map(|hooks| hooks.0.iter())
                .any(|(_, matchers)| {
                    matchers
                        .iter()
                        .any(|m| m.on_failure == Some(OnFailure::Block))
                });
        if blocks_on_failure {
            fields.push(("onFailure", "hook_on_failure_supported"));
        }
        if self.managed.is_sent() {
            fields.push(("managedSettings", "managed_settings_applied"));
        }
        if self.plugins.has_plugins() {
            fields.push(("plugins", "plugins_applied"));
        }
        fields
    }

    /// The `initialize` body for `options`, and the hook callbacks in the order of their ids
    /// (`hook_0` is the first): the session answers `hook_callback` from that list.
    pub(crate) fn new(options: &'a Options) -> (Self, Vec<HookCallback>) {
        let mut callbacks = Vec::new();
        let hooks = (!options.hooks.is_empty()).then(|| {
            let events = options.hooks.iter().map(|(event, matchers)| {
                let entries = matchers
                    .iter()
                    .map(|matcher| HookMatcherEntry {
                        matcher: matcher.matcher.as_deref(),
                        hook_callback_ids: matcher
                            .callbacks
                            .iter()
                            .map(|callback| {
                                callbacks.push(callback.clone());
                                HookCallbackId::new(callbacks.len() - 1)
                            })
                            .collect(),
                        timeout: matcher.timeout_secs,
                        on_failure: matcher.on_failure,
                    })
                    .collect();
                (event.as_str(), entries)
            });
            Entries(events.collect())
        });
        let agents = (!options.agents.is_empty()).then(|| {
            let agents = options
                .agents
                .iter()
                .map(|(name, agent)| (name.as_str(), agent));
            Entries(agents.collect())
        });
        let manifests = options.handshake_manifests && !options.servers.is_empty();
        let named = options.sdk_servers_named_in_initialize();
        let sdk_mcp_servers = (!named.is_empty()).then_some(named);
        let sdk_mcp_server_manifests = manifests.then(|| {
            let manifests = options.servers.iter().map(|server| {
                let manifest = claude_tools_core::mcp::handshake_manifest(server);
                (server.name(), manifest)
            });
            Entries(manifests.collect())
        });
        let request = InitializeRequest {
            hooks,
            agents,
            sdk_mcp_servers,
            sdk_mcp_server_manifests,
            mcp_servers: options.initialize_mcp_servers(),
            settings: options.initialize_settings(),
            prompt: options.prompt_init(),
            conversation: options.conversation_init(),
            stream: options.stream_init(),
            supported_dialog_kinds: options
                .on_user_dialog
                .as_ref()
                .filter(|dialogs| !dialogs.kinds.is_empty())
                .map(|dialogs| dialogs.kinds.iter().map(|kind| kind.as_str()).collect()),
            plugins: options.plugins.initialize(),
            managed: options.managed_initialize(),
            servers: options.servers_initialize(),
        };
        (request, callbacks)
    }
}

/// Key–value pairs written as a JSON object, in their order.
#[derive(Debug)]
struct Entries<K, V>(Vec<(K, V)>);

impl<K: Serialize, V: Serialize> Serialize for Entries<K, V> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_map(self.0.iter().map(|(key, value)| (key, value)))
    }
}

/// The servers of `mcp_set_servers`: those the CLI runs, set at run time, with their
/// configurations (`{name: {"type": "stdio", …}}`), then the in-process ones
/// (`{name: {"type": "sdk", "name": name, …settings}}`), in the TypeScript SDK's order.
#[derive(Debug)]
pub(crate) struct SdkServers<'a> {
    pub(crate) external: &'a BTreeMap<String, Value>,
    pub(crate) sdk: &'a BTreeSet<String>,
    /// In-process servers' settings (timeout, tool policies), by name: re-sent every time, as
    /// the TypeScript SDK does, since the request replaces the tool policies the CLI holds.
    pub(crate) sdk_settings: &'a BTreeMap<String, Map<String, Value>>,
}

impl Serialize for SdkServers<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        #[derive(Serialize)]
        struct SdkServer<'a> {
            #[serde(rename = "type")]
            kind: &'static str,
            name: &'a str,
            #[serde(flatten, skip_serializing_if = "Option::is_none")]
            settings: Option<&'a Map<String, Value>>,
        }
        let external = self
            .external
            .iter()
            .filter(|(name, _)| !self.sdk.contains(*name));
        let mut map = serializer.serialize_map(None)?;
        for (name, config) in external {
            map.serialize_entry(name, config)?;
        }
        for name in self.sdk {
            let server = SdkServer {
                kind: "sdk",
                name,
                settings: self.sdk_settings.get(name),
            };
            map.serialize_entry(name, &server)?;
        }
        map.end()
    }
}

/// `{"type":"control_request","request_id":…,"request":…}`
#[derive(Serialize)]
struct ControlRequest<'a, B: ?Sized> {
    #[serde(rename = "type")]
    kind: &'static str,
    request_id: &'a str,
    request: &'a B,
}

/// `{"type":"control_cancel_request","request_id":…}`
#[derive(Serialize)]
struct ControlCancelRequest<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    request_id: &'a str,
}

/// Appends the line `{"type":"control_request","request_id":…,"request":<body>}`: `body` is a
/// [`HostRequest`], or the JSON of `Controls::control_request`.
pub(crate) fn request_line<B: Serialize + ?Sized>(out: &mut Vec<u8>, request_id: &str, body: &B) {
    let frame = ControlRequest {
        kind: "control_request",
        request_id,
        request: body,
    };
    super::write_json(out, &frame);
    out.push(b'\n');
}

/// Appends the line `{"type":"control_cancel_request","request_id":…}`: the host withdraws a
/// request of its own.
pub(crate) fn cancel_line(out: &mut Vec<u8>, request_id: &str) {
    let frame = ControlCancelRequest {
        kind: "control_cancel_request",
        request_id,
    };
    super::write_json(out, &frame);
    out.push(b'\n');
}

/// The answer to `can_use_tool`, as the official Python SDK writes it: `updatedInput` is always
/// present on allow (the original input when the callback did not change it), and
/// `updatedPermissions` / `interrupt` only when they say something.
#[derive(Debug, Serialize)]
#[serde(tag = "behavior", rename_all = "lowercase")]
pub(crate) enum PermissionAnswer<'a> {
    Allow {
        #[serde(rename = "updatedInput")]
        updated_input: &'a Value,
        #[serde(rename = "updatedPermissions", skip_serializing_if = "no_updates")]
        updated_permissions: &'a [PermissionUpdate],
        #[serde(
            rename = "decisionClassification",
            skip_serializing_if = "Option::is_none"
        )]
        classification: Option<DecisionClassification>,
    },
    Deny {
        message: &'a str,
        #[serde(skip_serializing_if = "is_false")]
        interrupt: bool,
        #[serde(
            rename = "decisionClassification",
            skip_serializing_if = "Option::is_none"
        )]
        classification: Option<DecisionClassification>,
    },
}

fn no_updates(updates: &&[PermissionUpdate]) -> bool {
    updates.is_empty()
}

fn is_false(value: &bool) -> bool {
    !*value
}

impl<'a> PermissionAnswer<'a> {
    /// The answer carrying `decision` about a request whose input was `original_input`; `None`
    /// for [`PermissionDecision::Later`], which is answered later or not at all.
    pub(crate) fn new(decision: &'a PermissionDecision, original_input: &'a Value) -> Option<Self> {
        Some(match decision {
            PermissionDecision::Allow {
                updated_input,
                updated_permissions,
                classification,
            } => PermissionAnswer::Allow {
                updated_input: updated_input.as_ref().unwrap_or(original_input),
                updated_permissions,
                classification: *classification,
            },
            PermissionDecision::Deny {
                message,
                interrupt,
                classification,
            } => PermissionAnswer::Deny {
                message,
                interrupt: *interrupt,
                classification: *classification,
            },
            PermissionDecision::Later => return None,
        })
    }
}

/// The answer to `request_user_dialog`: `{"behavior":"completed","result":…}` or
/// `{"behavior":"cancelled"}`.
#[derive(Debug, Serialize)]
#[serde(tag = "behavior", rename_all = "lowercase")]
pub(crate) enum DialogAnswer<'a> {
    Completed { result: &'a Value },
    Cancelled,
}

#[cfg(test)]
mod tests;
