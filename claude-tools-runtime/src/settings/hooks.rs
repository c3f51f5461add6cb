//! Hooks declared in settings (`hooks`): programs, prompts, agents, HTTP endpoints and MCP tools
//! the CLI runs on an event, as opposed to the host's own callbacks
//! ([`HookMatcher`](crate::hooks::HookMatcher)).

use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value};

/// The hooks of one event that run when [`matcher`](Self::matcher) matches (a tool name
/// pattern for tool events; every time when unset).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct SettingsHookMatcher {
    /// The pattern (`Bash`, `Edit|Write`, `mcp__.*`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub matcher: Option<String>,
    /// What runs.
    #[serde(default)]
    pub hooks: Vec<SettingsHook>,
    /// Every other key, sent and read back as given.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl SettingsHookMatcher {
    /// Hooks that run when `matcher` matches.
    pub fn new(matcher: impl Into<String>) -> Self {
        SettingsHookMatcher {
            matcher: Some(matcher.into()),
            ..Self::default()
        }
    }

    /// Hooks that run on every occurrence of the event.
    pub fn always() -> Self {
        Self::default()
    }

    /// Adds a command hook.
    pub fn command(mut self, hook: CommandHook) -> Self {
        self.hooks.push(SettingsHook::Command(hook));
        self
    }

    /// Adds a hook of any kind.
    pub fn hook(mut self, hook: SettingsHook) -> Self {
        self.hooks.push(hook);
        self
    }
}

/// One hook of a [`SettingsHookMatcher`], by its `type`; a type a newer CLI adds is kept whole
/// as [`Other`](Self::Other).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum SettingsHook {
    /// `command`: a program.
    Command(CommandHook),
    /// `prompt`: a prompt to a model that decides.
    Prompt(PromptHook),
    /// `agent`: an agent that decides.
    Agent(PromptHook),
    /// `http`: a POST to an endpoint.
    Http(HttpHook),
    /// `mcp_tool`: a call to an MCP tool.
    McpTool(McpToolHook),
    /// Another type, as it was written (`type` included).
    Other(Map<String, Value>),
}

/// A `command` hook.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct CommandHook {
    /// The command line (run by the shell unless `args` is set).
    pub command: String,
    /// Arguments: with them, `command` runs without a shell.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub args: Option<Vec<String>>,
    /// Seconds before it is stopped.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout: Option<f64>,
    /// Runs it in the background, without waiting.
    #[serde(default, rename = "async", skip_serializing_if = "Option::is_none")]
    pub run_async: Option<bool>,
    /// Shown while it runs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status_message: Option<String>,
    /// Every other key (`if`, `shell`, `onFailure`, `once`…), sent and read back as given.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl CommandHook {
    /// Runs `command`.
    pub fn new(command: impl Into<String>) -> Self {
        CommandHook {
            command: command.into(),
            ..Self::default()
        }
    }

    /// Sets [`timeout`](Self::timeout), in seconds.
    pub fn timeout(mut self, seconds: f64) -> Self {
        self.timeout = Some(seconds);
        self
    }
}

/// A `prompt` or `agent` hook.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct PromptHook {
    /// The prompt.
    pub prompt: String,
    /// The model that answers it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// Seconds before it is stopped.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout: Option<f64>,
    /// Every other key, sent and read back as given.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// An `http` hook.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct HttpHook {
    /// The endpoint.
    pub url: String,
    /// Headers sent (values may name variables of `allowedEnvVars`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub headers: Option<Map<String, Value>>,
    /// Seconds before it is stopped.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout: Option<f64>,
    /// Every other key, sent and read back as given.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// An `mcp_tool` hook.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct McpToolHook {
    /// The MCP server.
    pub server: String,
    /// Its tool.
    pub tool: String,
    /// The tool's input.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input: Option<Map<String, Value>>,
    /// Every other key, sent and read back as given.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl Serialize for SettingsHook {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        fn tagged<T: Serialize>(kind: &str, hook: &T) -> Value {
            let mut map = Map::new();
            map.insert("type".into(), Value::from(kind));
            if let Ok(Value::Object(fields)) = serde_json::to_value(hook) {
                map.extend(fields);
            }
            Value::Object(map)
        }
        match self {
            SettingsHook::Command(hook) => tagged("command", hook),
            SettingsHook::Prompt(hook) => tagged("prompt", hook),
            SettingsHook::Agent(hook) => tagged("agent", hook),
            SettingsHook::Http(hook) => tagged("http", hook),
            SettingsHook::McpTool(hook) => tagged("mcp_tool", hook),
            SettingsHook::Other(map) => return map.serialize(serializer),
        }
        .serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for SettingsHook {
    /// A known `type` whose fields do not fit is an error (it names the field); an unknown
    /// `type` is kept as [`SettingsHook::Other`].
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let mut map = Map::<String, Value>::deserialize(deserializer)?;
        let kind = match map.get("type") {
            Some(Value::String(kind)) => kind.clone(),
            Some(_) => return Err(D::Error::custom("a hook's `type` must be a string")),
            None => return Err(D::Error::missing_field("type")),
        };
        let known = |map: &mut Map<String, Value>| {
            map.shift_remove("type");
            Value::Object(std::mem::take(map))
        };
        let typed = match kind.as_str() {
            "command" => CommandHook::deserialize(known(&mut map)).map(SettingsHook::Command),
            "prompt" => PromptHook::deserialize(known(&mut map)).map(SettingsHook::Prompt),
            "agent" => PromptHook::deserialize(known(&mut map)).map(SettingsHook::Agent),
            "http" => HttpHook::deserialize(known(&mut map)).map(SettingsHook::Http),
            "mcp_tool" => McpToolHook::deserialize(known(&mut map)).map(SettingsHook::McpTool),
            _ => return Ok(SettingsHook::Other(map)),
        };
        typed.map_err(|error| D::Error::custom(format!("a `{kind}` hook: {error}")))
    }
}
