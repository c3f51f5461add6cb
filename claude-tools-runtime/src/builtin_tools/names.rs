//! The built-in tools' names, and the legacy names the CLI still accepts for some of them.

/// Every built-in tool the CLI 2.1.332 may offer the model (the TypeScript SDK's
/// `BUILTIN_TOOL_NAMES`); which ones a session has depends on its options, platform and plan.
pub const BUILTIN_TOOL_NAMES: &[&str] = &[
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

/// Old tool names and the tools they now name (the TypeScript SDK's
/// `LEGACY_TOOL_NAME_ALIASES`): a permission rule, a hook matcher or a transcript may still
/// use them.
pub const LEGACY_TOOL_NAME_ALIASES: &[(&str, &str)] = &[
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

/// The current name of a tool: `name` itself, or what a legacy name now names.
///
/// ```
/// use claude_tools::builtin_tools::canonical_tool_name;
///
/// assert_eq!(canonical_tool_name("Task"), "Agent");
/// assert_eq!(canonical_tool_name("Bash"), "Bash");
/// assert_eq!(canonical_tool_name("mcp__tickets__create"), "mcp__tickets__create");
/// ```
pub fn canonical_tool_name(name: &str) -> &str {
    LEGACY_TOOL_NAME_ALIASES
        .iter()
        .find(|(legacy, _)| *legacy == name)
        .map_or(name, |(_, current)| current)
}
