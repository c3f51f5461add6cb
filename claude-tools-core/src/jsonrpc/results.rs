//! The MCP results a server answers, typed: `initialize` and `tools/list`.

use serde::Serialize;
use serde_json::Value;

/// The result of `initialize`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct InitializeResult {
    /// The protocol version the server speaks on this connection.
    pub protocol_version: String,
    /// What the server offers.
    pub capabilities: ServerCapabilities,
    /// Who the server is.
    pub server_info: Implementation,
    /// How to use the server, for the model.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub instructions: Option<String>,
}

/// The `capabilities` of an `initialize` result.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub struct ServerCapabilities {
    /// The server has tools.
    pub tools: ToolsCapability,
    /// The server has prompts (absent when it has none).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub prompts: Option<ListChangedCapability>,
    /// The server has resources (absent when it has none).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resources: Option<ResourcesCapability>,
    /// The server completes prompt arguments and template variables (absent when it has
    /// neither prompts nor resources).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub completions: Option<CompletionsCapability>,
    /// The server sends log messages (`notifications/message`) and takes `logging/setLevel`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub logging: Option<LoggingCapability>,
    /// The extensions the server serves, by id (MCP 2026-07-28's `capabilities.extensions`;
    /// absent when it serves none, and never written in an `initialize` result).
    #[serde(skip_serializing_if = "ServerExtensions::is_empty")]
    pub extensions: ServerExtensions,
}

/// `capabilities.extensions`: each extension the server serves, with its settings, written as
/// a map from the extension's id to its settings object. One typed field per extension.
#[derive(Debug, Clone, PartialEq, Default)]
#[non_exhaustive]
pub struct ServerExtensions {
    /// `io.modelcontextprotocol/skills` (SEP-2640): the server serves skills.
    pub skills: Option<SkillsExtension>,
    /// `io.modelcontextprotocol/tasks` (SEP-2663): some of the server's tools run as tasks.
    pub tasks: Option<TasksExtension>,
}

impl ServerExtensions {
    /// Whether the server serves no extension.
    pub fn is_empty(&self) -> bool {
        self.skills.is_none() && self.tasks.is_none()
    }
}

impl Serialize for ServerExtensions {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = serializer.serialize_map(None)?;
        if let Some(skills) = &self.skills {
            map.serialize_entry(crate::skill::SKILLS_EXTENSION, skills)?;
        }
        if let Some(tasks) = &self.tasks {
            map.serialize_entry(crate::task::TASKS_EXTENSION, tasks)?;
        }
        map.end()
    }
}

/// The settings of the tasks extension: none yet (it is announced as `{}`).
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
#[non_exhaustive]
pub struct TasksExtension {}

/// The settings of the skills extension.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct SkillsExtension {
    /// The server answers `resources/directory/read` for a skill's directories.
    pub directory_read: bool,
}

/// `capabilities.logging`: `{}`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub struct LoggingCapability {}

/// `capabilities.prompts`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ListChangedCapability {
    /// Whether the server sends `notifications/prompts/list_changed`.
    pub list_changed: bool,
}

/// `capabilities.resources`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ResourcesCapability {
    /// Whether a client may subscribe to a resource's changes.
    pub subscribe: bool,
    /// Whether the server sends `notifications/resources/list_changed`.
    pub list_changed: bool,
}

/// `capabilities.completions`: `{}`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub struct CompletionsCapability {}

/// `capabilities.tools`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ToolsCapability {
    /// Whether the server sends `notifications/tools/list_changed`.
    pub list_changed: bool,
}

/// A server's (or a client's) name and version.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub struct Implementation {
    /// The name.
    pub name: String,
    /// The version.
    pub version: String,
}

impl Implementation {
    /// `name` at `version`.
    pub fn new(name: impl Into<String>, version: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            version: version.into(),
        }
    }
}

/// The result of `server/discover` (MCP 2026-07-28): the revisions the server speaks and what
/// it offers. `resultType`, the cache hint and `serverInfo` are added as to every 2026-07-28
/// result ([`ResultMeta`](super::ResultMeta)).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct DiscoverResult {
    /// The 2026-07-28-era revisions the server speaks.
    pub supported_versions: Vec<String>,
    /// What the server offers.
    pub capabilities: ServerCapabilities,
    /// How to use the server, for the model.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub instructions: Option<String>,
}

/// The result of `tools/list`: every tool, in one page.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub struct ToolsList {
    /// The tools' descriptions, as the tool model writes them.
    pub tools: Vec<Value>,
}

impl InitializeResult {
    /// The result a server called `name` at `version` answers for `protocol_version`.
    pub fn new(protocol_version: &str, name: &str, version: &str) -> Self {
        Self {
            protocol_version: protocol_version.to_string(),
            capabilities: ServerCapabilities {
                tools: ToolsCapability {
                    list_changed: false,
                },
                prompts: None,
                resources: None,
                completions: None,
                logging: None,
                extensions: ServerExtensions::default(),
            },
            server_info: Implementation {
                name: name.to_string(),
                version: version.to_string(),
            },
            instructions: None,
        }
    }
}

impl ToolsList {
    /// The list of `tools`.
    pub fn new(tools: Vec<Value>) -> Self {
        Self { tools }
    }
}

/// The `input_required` result of an MCP 2026-07-28 request (`tools/call`, `prompts/get`,
/// `resources/read`): the questions the client must answer, by key, and the sealed state it
/// echoes when it retries with the answers. `resultType: "input_required"` and `serverInfo`
/// are added as to every 2026-07-28 result ([`ResultMeta`](super::ResultMeta)).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct InputRequiredResult {
    /// The questions, by key, in the order asked.
    pub input_requests: Vec<(String, crate::ask::ServerRequestParams)>,
    /// The state the client echoes on its retry (`requestState`).
    pub request_state: Option<String>,
}

/// One input request: `{method, params}`.
pub(crate) struct InputRequest<'a>(pub(crate) &'a crate::ask::ServerRequestParams);

impl Serialize for InputRequest<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use crate::ask::ServerRequestParams as Params;
        use serde::ser::SerializeMap;
        let mut request = serializer.serialize_map(Some(2))?;
        let method = match self.0 {
            Params::Elicit(_) => "elicitation/create",
            Params::CreateMessage(_) => "sampling/createMessage",
            Params::ListRoots => "roots/list",
        };
        request.serialize_entry("method", method)?;
        match self.0 {
            Params::Elicit(params) => request.serialize_entry("params", params)?,
            Params::CreateMessage(params) => request.serialize_entry("params", params)?,
            Params::ListRoots => {
                request.serialize_entry("params", &serde_json::Map::new())?;
            }
        }
        request.end()
    }
}

impl Serialize for InputRequiredResult {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;

        /// The `inputRequests` map.
        struct InputRequests<'a>(&'a [(String, crate::ask::ServerRequestParams)]);

        impl Serialize for InputRequests<'_> {
            fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                let mut map = serializer.serialize_map(Some(self.0.len()))?;
                for (key, params) in self.0 {
                    map.serialize_entry(key, &InputRequest(params))?;
                }
                map.end()
            }
        }

        let mut result = serializer.serialize_map(None)?;
        if !self.input_requests.is_empty() {
            result.serialize_entry("inputRequests", &InputRequests(&self.input_requests))?;
        }
        if let Some(state) = &self.request_state {
            result.serialize_entry("requestState", state)?;
        }
        result.end()
    }
}
