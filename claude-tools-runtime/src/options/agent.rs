//! [`AgentDefinition`]: a subagent the session defines, sent in `initialize` with every field
//! of the TypeScript SDK 0.3.332's `AgentDefinition` (all of which the CLI 2.1.332 reads), and
//! an [`extra`](AgentDefinition::extra) map for a field a newer CLI adds.

use serde::Serialize;
use serde::ser::Serializer;
use serde_json::{Map, Value};

use super::{ExternalServer, PermissionMode, ToolNames};

/// A subagent definition, sent in `initialize`: the model starts it with the `Agent` tool
/// (`subagent_type` = its name in [`Options::agent`](super::Options::agent)). A field left
/// unset is left out, and the CLI's default applies.
///
/// ```
/// use claude_tools::AgentDefinition;
/// use claude_tools::options::{AgentEffort, AgentMemory, PermissionMode};
///
/// let reviewer = AgentDefinition::new("Reviews a diff", "You review diffs.")
///     .tools(["Read", "Grep", "mcp__tickets__*"])
///     .disallowed_tools(["Bash"])
///     .model("haiku")
///     .max_turns(8)
///     .effort(AgentEffort::High)
///     .permission_mode(PermissionMode::Plan)
///     .memory(AgentMemory::Project);
/// assert_eq!(reviewer.max_turns, Some(8));
/// ```
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct AgentDefinition {
    /// When to use the agent.
    pub description: String,
    /// Its system prompt.
    pub prompt: String,
    /// The tools it may use (every tool of the session when `None`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tools: Option<Vec<String>>,
    /// Tools it may not use; `mcp__server`, `mcp__server__*` and `mcp__*` remove a whole
    /// server's tools (or every MCP tool).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub disallowed_tools: Option<Vec<String>>,
    /// Its model (`sonnet`, `opus`, `haiku`, `inherit`, or a model id).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// MCP servers of its own, by the name of a server of the session's configuration or
    /// defined here.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub mcp_servers: Vec<AgentMcpServer>,
    /// Skills to load into its context when it starts.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub skills: Option<Vec<String>>,
    /// The first user turn when this agent is the session's main agent (slash commands work).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub initial_prompt: Option<String>,
    /// The most turns (model round trips) it may take.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_turns: Option<u32>,
    /// The token count at which it compacts its own conversation as a subagent (only lowers
    /// the window it would inherit).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub auto_compact_window: Option<u64>,
    /// Run it as a background task when it is started.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub background: Option<bool>,
    /// Run it without the user, project and local `CLAUDE.md` files (managed policy files are
    /// kept), for an agent that gets everything from its prompt.
    #[serde(rename = "omitClaudeMd", skip_serializing_if = "Option::is_none")]
    pub omit_claude_md: Option<bool>,
    /// Where its memory files load from.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub memory: Option<AgentMemory>,
    /// Its reasoning effort.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub effort: Option<AgentEffort>,
    /// Its permission mode.
    #[serde(
        skip_serializing_if = "Option::is_none",
        serialize_with = "permission_mode"
    )]
    pub permission_mode: Option<PermissionMode>,
    /// The agent types started as background observers whenever this agent runs (at most
    /// four, joined with commas on the wire): each gets read-only digests of its activity and
    /// reports with the `ObserverReport` tool, never taking part in the task.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub observer: Option<String>,
    /// Text appended to each activity digest sent to the observers (after the CLI's own).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub observer_message: Option<String>,
    /// A critical reminder added to its system prompt (experimental in the CLI).
    #[serde(
        rename = "criticalSystemReminder_EXPERIMENTAL",
        skip_serializing_if = "Option::is_none"
    )]
    pub critical_system_reminder: Option<String>,
    /// Fields this type does not have, sent as they are: for a field a newer CLI reads before
    /// this library types it ([`field`](Self::field)). A key a typed field above also sets is
    /// refused when the session starts.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// A permission mode by its wire name.
fn permission_mode<S: Serializer>(
    mode: &Option<PermissionMode>,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    match mode {
        Some(mode) => serializer.serialize_str(mode.as_str()),
        None => serializer.serialize_none(),
    }
}

/// One MCP server of an [`AgentDefinition`].
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum AgentMcpServer {
    /// A server of the session's configuration, by name.
    Named(String),
    /// A server defined for this agent alone, by name.
    Defined(String, ExternalServer),
}

impl Serialize for AgentMcpServer {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            AgentMcpServer::Named(name) => serializer.serialize_str(name),
            AgentMcpServer::Defined(name, server) => {
                let mut entry = Map::new();
                entry.insert(name.clone(), server.to_json());
                Value::Object(entry).serialize(serializer)
            }
        }
    }
}

/// Where an agent's memory files load from ([`AgentDefinition::memory`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum AgentMemory {
    /// `~/.claude/agent-memory/<agent>/`.
    User,
    /// `.claude/agent-memory/<agent>/`.
    Project,
    /// `.claude/agent-memory-local/<agent>/`.
    Local,
}

/// An agent's reasoning effort ([`AgentDefinition::effort`]): a named level or a number.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum AgentEffort {
    /// `low`.
    Low,
    /// `medium`.
    Medium,
    /// `high`.
    High,
    /// `xhigh`.
    XHigh,
    /// `max`.
    Max,
    /// A number, as the CLI accepts one.
    Level(u32),
}

impl Serialize for AgentEffort {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            AgentEffort::Low => serializer.serialize_str("low"),
            AgentEffort::Medium => serializer.serialize_str("medium"),
            AgentEffort::High => serializer.serialize_str("high"),
            AgentEffort::XHigh => serializer.serialize_str("xhigh"),
            AgentEffort::Max => serializer.serialize_str("max"),
            AgentEffort::Level(level) => serializer.serialize_u32(*level),
        }
    }
}

impl AgentDefinition {
    /// An agent used when `description` applies, running with `prompt` as its system prompt,
    /// with every tool and the session's model.
    ///
    /// ```
    /// use claude_tools::AgentDefinition;
    ///
    /// let reviewer = AgentDefinition::new("Reviews a diff", "You review diffs.")
    ///     .tools(["Read", "Grep"])
    ///     .model("haiku");
    /// assert_eq!(reviewer.tools, Some(vec!["Read".to_string(), "Grep".to_string()]));
    /// ```
    pub fn new(description: impl Into<String>, prompt: impl Into<String>) -> Self {
        Self {
            description: description.into(),
            prompt: prompt.into(),
            tools: None,
            disallowed_tools: None,
            model: None,
            mcp_servers: Vec::new(),
            skills: None,
            initial_prompt: None,
            max_turns: None,
            auto_compact_window: None,
            background: None,
            omit_claude_md: None,
            memory: None,
            effort: None,
            permission_mode: None,
            observer: None,
            observer_message: None,
            critical_system_reminder: None,
            extra: Map::new(),
        }
    }

    /// Only these tools.
    pub fn tools(mut self, tools: impl ToolNames) -> Self {
        self.tools = Some(tools.into_names());
        self
    }

    /// Not these tools.
    pub fn disallowed_tools(mut self, tools: impl ToolNames) -> Self {
        self.disallowed_tools = Some(tools.into_names());
        self
    }

    /// This model (`sonnet`, `opus`, `haiku`, `inherit`, or a model id).
    pub fn model(mut self, model: impl Into<String>) -> Self {
        self.model = Some(model.into());
        self
    }

    /// With an MCP server of the session's configuration, by name.
    pub fn mcp_server(mut self, name: impl Into<String>) -> Self {
        self.mcp_servers.push(AgentMcpServer::Named(name.into()));
        self
    }

    /// With an MCP server of its own.
    pub fn define_mcp_server(mut self, name: impl Into<String>, server: ExternalServer) -> Self {
        self.mcp_servers
            .push(AgentMcpServer::Defined(name.into(), server));
        self
    }

    /// With these skills loaded.
    pub fn skills<I, S>(mut self, skills: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.skills = Some(skills.into_iter().map(Into::into).collect());
        self
    }

    /// The first user turn when this is the main agent.
    pub fn initial_prompt(mut self, prompt: impl Into<String>) -> Self {
        self.initial_prompt = Some(prompt.into());
        self
    }

    /// At most this many turns.
    pub fn max_turns(mut self, turns: u32) -> Self {
        self.max_turns = Some(turns);
        self
    }

    /// Compacts its conversation at this many tokens.
    pub fn auto_compact_window(mut self, tokens: u64) -> Self {
        self.auto_compact_window = Some(tokens);
        self
    }

    /// Runs in the background when started.
    pub fn background(mut self, background: bool) -> Self {
        self.background = Some(background);
        self
    }

    /// Runs without the `CLAUDE.md` instruction files.
    pub fn omit_claude_md(mut self, omit: bool) -> Self {
        self.omit_claude_md = Some(omit);
        self
    }

    /// Loads its memory from there.
    pub fn memory(mut self, memory: AgentMemory) -> Self {
        self.memory = Some(memory);
        self
    }

    /// With this reasoning effort.
    pub fn effort(mut self, effort: AgentEffort) -> Self {
        self.effort = Some(effort);
        self
    }

    /// In this permission mode.
    pub fn permission_mode(mut self, mode: PermissionMode) -> Self {
        self.permission_mode = Some(mode);
        self
    }

    /// Starts these agent types (at most four, none with a comma in its name) as background
    /// observers whenever this agent runs; see [`observer`](Self::observer) (field). Refused
    /// when the session starts otherwise.
    ///
    /// ```
    /// use claude_tools::AgentDefinition;
    ///
    /// let coder = AgentDefinition::new("Writes code", "You write code.")
    ///     .observers(["security-reviewer", "style-checker"])
    ///     .observer_message("Flag any secret written to disk.");
    /// let wire = serde_json::to_value(&coder).unwrap();
    /// assert_eq!(wire["observer"], "security-reviewer,style-checker");
    /// assert_eq!(wire["observerMessage"], "Flag any secret written to disk.");
    /// ```
    pub fn observers<I, S>(mut self, agents: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        let agents: Vec<String> = agents.into_iter().map(Into::into).collect();
        self.observer = Some(agents.join(","));
        self
    }

    /// Appends this text to each activity digest its observers get.
    pub fn observer_message(mut self, message: impl Into<String>) -> Self {
        self.observer_message = Some(message.into());
        self
    }

    /// Adds this critical reminder to its system prompt (`criticalSystemReminder_EXPERIMENTAL`:
    /// experimental in the CLI, and may change).
    pub fn critical_system_reminder(mut self, reminder: impl Into<String>) -> Self {
        self.critical_system_reminder = Some(reminder.into());
        self
    }

    /// Sends a field this type does not have, as it is (a newer CLI's): see
    /// [`extra`](Self::extra).
    ///
    /// ```
    /// use claude_tools::AgentDefinition;
    /// use serde_json::json;
    ///
    /// let observer = AgentDefinition::new("Watches", "You watch.").field("observeToolResults", json!(false));
    /// assert_eq!(serde_json::to_value(&observer).unwrap()["observeToolResults"], false);
    /// ```
    pub fn field(mut self, key: impl Into<String>, value: Value) -> Self {
        self.extra.insert(key.into(), value);
        self
    }

    /// Why the definition of the agent `name` cannot be sent, if it cannot: an observer list
    /// the CLI refuses, or an extra field that a typed one also sets.
    pub(crate) fn problem(&self, name: &str) -> Option<String> {
        if let Some(observer) = &self.observer {
            let agents: Vec<&str> = observer.split(',').collect();
            if agents.len() > 4 || agents.iter().any(|agent| agent.trim().is_empty()) {
                return Some(format!(
                    "Options::agent(\"{name}\"): observer {observer:?} must name one to four \
                     agents, none of whose names is empty or has a comma"
                ));
            }
        }
        let mut typed = self.clone();
        typed.extra = Map::new();
        let Ok(Value::Object(typed)) = serde_json::to_value(&typed) else {
            return None;
        };
        let clash = self.extra.keys().find(|key| typed.contains_key(*key))?;
        Some(format!(
            "Options::agent(\"{name}\"): the extra field {clash:?} is also set by a typed \
             field of AgentDefinition: set one of them"
        ))
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn every_field_is_written_as_the_cli_reads_it() {
        let agent = AgentDefinition::new("Counts", "You count.")
            .tools(["mcp__e2e__counter_add"])
            .disallowed_tools(["Bash", "mcp__other"])
            .model("haiku")
            .mcp_server("e2e")
            .define_mcp_server("docs", ExternalServer::http("https://docs.example/mcp"))
            .skills(["counting"])
            .initial_prompt("/count")
            .max_turns(3)
            .auto_compact_window(50_000)
            .background(false)
            .omit_claude_md(true)
            .memory(AgentMemory::Local)
            .effort(AgentEffort::XHigh)
            .permission_mode(PermissionMode::AcceptEdits)
            .observers(["auditor"])
            .observer_message("Note every file written.")
            .critical_system_reminder("Never push.")
            .field("observeSubagents", json!(false));
        assert_eq!(
            serde_json::to_string(&agent).unwrap(),
            json!({
                "description": "Counts",
                "prompt": "You count.",
                "tools": ["mcp__e2e__counter_add"],
                "disallowedTools": ["Bash", "mcp__other"],
                "model": "haiku",
                "mcpServers": ["e2e", {"docs": {"type": "http", "url": "https://docs.example/mcp"}}],
                "skills": ["counting"],
                "initialPrompt": "/count",
                "maxTurns": 3,
                "autoCompactWindow": 50000,
                "background": false,
                "omitClaudeMd": true,
                "memory": "local",
                "effort": "xhigh",
                "permissionMode": "acceptEdits",
                "observer": "auditor",
                "observerMessage": "Note every file written.",
                "criticalSystemReminder_EXPERIMENTAL": "Never push.",
                "observeSubagents": false,
            })
            .to_string()
        );
        // A numeric effort, and nothing unset written.
        assert_eq!(
            serde_json::to_value(AgentDefinition::new("d", "p").effort(AgentEffort::Level(12)))
                .unwrap(),
            json!({"description": "d", "prompt": "p", "effort": 12})
        );
    }

    #[test]
    fn observers_and_extra_fields_the_cli_would_not_take_are_refused_by_name() {
        let base = || AgentDefinition::new("d", "p");
        assert_eq!(base().observers(["a", "b", "c", "d"]).problem("x"), None);
        assert_eq!(
            base().field("observeToolResults", json!(true)).problem("x"),
            None
        );
        // A key of an unset typed field is no clash: it is written once.
        assert_eq!(base().field("model", json!("haiku")).problem("x"), None);
        for (agent, expected) in [
            (
                base().observers(["a", "b", "c", "d", "e"]),
                "must name one to four agents",
            ),
            (
                base().observers(["a,b", "c", "d", "e"]),
                "must name one to four agents",
            ),
            (base().observers(["a", ""]), "must name one to four agents"),
            (
                base().model("opus").field("model", json!("haiku")),
                "the extra field \"model\" is also set by a typed field",
            ),
        ] {
            let problem = agent.problem("x").unwrap();
            assert!(problem.starts_with("Options::agent(\"x\"): "), "{problem}");
            assert!(problem.contains(expected), "{problem}");
        }
    }
}
