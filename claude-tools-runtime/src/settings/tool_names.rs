//! The names of the CLI's built-in tools, as permission rules, hook matchers and the tool
//! lists of [`Options`](crate::options::Options) spell them, with the same values as the
//! TypeScript SDK 0.3.332's `BUILTIN_TOOL_NAMES` and `LEGACY_TOOL_NAME_ALIASES`.

/// The built-in tools' names. A name is listed even where a platform or a setting turns its
/// tool off, and the list is not every tool the CLI has: what a session offers is in its
/// `system/init` message ([`SystemInit::tools`](crate::message::SystemInit::tools)).
pub const BUILTIN_TOOL_NAMES: [&str; 54] = [
    "Agent",
    "Artifact",
    "AskUserQuestion",
    "Bash",
    "ClaudeDesign",
    "CronCreate",
    "CronDelete",
    "CronList",
    "Edit",
    "EndConversation",
    "EnterPlanMode",
    "EnterWorktree",
    "ExitPlanMode",
    "ExitWorktree",
    "Glob",
    "Grep",
    "ListAgents",
    "ListMcpResourcesTool",
    "LSP",
    "Monitor",
    "NotebookEdit",
    "OfferChromeSetup",
    "PowerShell",
    "Projects",
    "propose_skills",
    "PushNotification",
    "Read",
    "ReadMcpResourceDirTool",
    "ReadMcpResourceTool",
    "ReadNotifications",
    "RemoteTrigger",
    "ReportFindings",
    "ScheduleWakeup",
    "SendFeedback",
    "SendMessage",
    "SendUserFile",
    "SendUserMessage",
    "SetGoal",
    "ShareOnboardingGuide",
    "ShowOnboardingRolePicker",
    "Skill",
    "SubagentHandback",
    "TaskCreate",
    "TaskGet",
    "TaskList",
    "TaskStop",
    "TaskUpdate",
    "TodoWrite",
    "ToolSearch",
    "WaitForMcpServers",
    "WebFetch",
    "WebSearch",
    "Workflow",
    "Write",
];

/// Former tool names the CLI still accepts in rules, matchers and tool lists, each with the
/// tool's current name: `(old, current)`.
pub const LEGACY_TOOL_NAME_ALIASES: [(&str, &str); 9] = [
    ("Task", "Agent"),
    ("KillShell", "TaskStop"),
    ("KillBash", "TaskStop"),
    ("ListPeers", "ListAgents"),
    ("Brief", "SendUserMessage"),
    ("ListMcpResources", "ListMcpResourcesTool"),
    ("ReadMcpResource", "ReadMcpResourceTool"),
    ("ReadMcpResourceDir", "ReadMcpResourceDirTool"),
    ("ProposeGoal", "SetGoal"),
];

/// The current name of a tool: a former name's replacement, any other name as it is.
///
/// ```
/// use claude_tools::settings::canonical_tool_name;
///
/// assert_eq!(canonical_tool_name("Task"), "Agent");
/// assert_eq!(canonical_tool_name("Bash"), "Bash");
/// assert_eq!(canonical_tool_name("mcp__calc__add"), "mcp__calc__add");
/// ```
pub fn canonical_tool_name(name: &str) -> &str {
    LEGACY_TOOL_NAME_ALIASES
        .iter()
        .find(|(old, _)| *old == name)
        .map_or(name, |(_, current)| current)
}
