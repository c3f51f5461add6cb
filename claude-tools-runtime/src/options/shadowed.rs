//! The warning that a `can_use_tool` callback is set but some calls never reach it: the
//! permission mode or an `allowed_tools` entry approves them first (the Python SDK's
//! `CanUseToolShadowedWarning`, the TypeScript SDK's process warning
//! `CLAUDE_SDK_CAN_USE_TOOL_SHADOWED`).

use std::fmt;

use super::{Options, PermissionMode};

/// Why a [`can_use_tool`](Options::can_use_tool) callback is not asked about some tool calls:
/// the CLI approves them before it would ask. Advisory (the shadowing may be intended, e.g. a
/// callback meant only for the tools the list leaves out); logged as a `tracing` warning with
/// `code = "CLAUDE_SDK_CAN_USE_TOOL_SHADOWED"` each time such a session starts, and returned by
/// [`Options::can_use_tool_shadowed`] for a host that checks its options itself.
///
/// To see every call, use a `PreToolUse` hook. Allow rules from settings files shadow the
/// callback too and are not visible here.
///
/// ```
/// use claude_tools::options::{CanUseToolShadowedWarning, Options};
/// use claude_tools::permission::PermissionDecision;
///
/// let options = Options::new()
///     .can_use_tool(|_request| async { PermissionDecision::allow() })
///     .allowed_tools(["Read", "Bash(git status:*)"]);
/// assert_eq!(
///     options.can_use_tool_shadowed(),
///     Some(CanUseToolShadowedWarning::AllowedTools(vec!["Read".into()]))
/// );
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum CanUseToolShadowedWarning {
    /// [`PermissionMode::BypassPermissions`] approves every call (but explicit deny rules)
    /// before the callback is asked: it is never called.
    BypassPermissions,
    /// These tools are allowed whole by an `allowed_tools` entry (`Read`, `Read()` or
    /// `Read(*)`, and the `Skill` that [`skills`](Options::skills) adds for every skill):
    /// their calls are approved without the callback. An entry with a real specifier
    /// (`Bash(git status:*)`) allows only the calls it matches and is not listed.
    AllowedTools(Vec<String>),
}

impl CanUseToolShadowedWarning {
    /// The warning's code, as the TypeScript SDK names it (the `code` field of the log event).
    pub const CODE: &'static str = "CLAUDE_SDK_CAN_USE_TOOL_SHADOWED";
}

impl fmt::Display for CanUseToolShadowedWarning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CanUseToolShadowedWarning::BypassPermissions => f.write_str(
                "can_use_tool will not be called: the permission mode bypassPermissions approves \
                 every tool call (except explicit deny rules) before the callback is asked. To \
                 gate every tool call, use a PreToolUse hook instead.",
            ),
            CanUseToolShadowedWarning::AllowedTools(tools) => write!(
                f,
                "can_use_tool will not be called for: {}. An allowed_tools entry that allows a \
                 whole tool approves its calls before the callback is asked. To gate every tool \
                 call, use a PreToolUse hook, or narrow the entry so that calls fall through to \
                 can_use_tool. Allow rules from settings files can shadow the callback too but \
                 are not visible here.",
                tools.join(", ")
            ),
        }
    }
}

/// The tool an `allowed_tools` entry allows whole, if it does: the CLI's rule syntax, where a
/// rule without a specifier, or with an empty or `*` one, matches every call of the tool. A
/// malformed entry (`(x)`, `Read(`) is a tool name no call has, so it shadows nothing.
fn whole_tool(entry: &str) -> Option<&str> {
    if entry.trim().is_empty() {
        return None;
    }
    let Some(open) = entry.find('(') else {
        return Some(entry);
    };
    let specifier = entry.strip_suffix(')')?.get(open + 1..)?;
    (open > 0 && matches!(specifier, "" | "*")).then(|| &entry[..open])
}

impl Options {
    /// Whether a [`can_use_tool`](Self::can_use_tool) callback is set alongside options that
    /// approve calls before it is asked (see [`CanUseToolShadowedWarning`]); `None` when no
    /// callback is set or nothing visible shadows it. The same check logs the warning when a
    /// session starts.
    pub fn can_use_tool_shadowed(&self) -> Option<CanUseToolShadowedWarning> {
        self.can_use_tool.as_ref()?;
        if self.permission_mode == Some(PermissionMode::BypassPermissions) {
            return Some(CanUseToolShadowedWarning::BypassPermissions);
        }
        let mut tools: Vec<String> = Vec::new();
        for entry in self.plugins.allowed_tools(&self.allowed_tools) {
            if let Some(tool) = whole_tool(&entry)
                && !tools.iter().any(|known| known == tool)
            {
                tools.push(tool.to_owned());
            }
        }
        (!tools.is_empty()).then_some(CanUseToolShadowedWarning::AllowedTools(tools))
    }

    /// Logs [`can_use_tool_shadowed`](Self::can_use_tool_shadowed)'s warning, if any, at the
    /// start of a session.
    pub(crate) fn warn_if_can_use_tool_shadowed(&self) {
        if let Some(warning) = self.can_use_tool_shadowed() {
            tracing::warn!(code = CanUseToolShadowedWarning::CODE, "{warning}");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::permission::PermissionDecision;

    fn with_callback() -> Options {
        Options::new().can_use_tool(|_request| async { PermissionDecision::allow() })
    }

    #[test]
    fn whole_tool_follows_the_rule_syntax() {
        assert_eq!(whole_tool("Read"), Some("Read"));
        assert_eq!(whole_tool("Read()"), Some("Read"));
        assert_eq!(whole_tool("Read(*)"), Some("Read"));
        assert_eq!(whole_tool("mcp__tickets__*"), Some("mcp__tickets__*"));
        assert_eq!(whole_tool("Bash(git status:*)"), None);
        assert_eq!(whole_tool("Bash(ls)"), None);
        assert_eq!(whole_tool("(x)"), None);
        assert_eq!(whole_tool("Read("), None);
        assert_eq!(whole_tool("  "), None);
        assert_eq!(whole_tool(""), None);
    }

    #[test]
    fn bypass_permissions_shadows_every_call() {
        let options = with_callback()
            .allowed_tools(["Read"])
            .permission_mode(PermissionMode::BypassPermissions);
        assert_eq!(
            options.can_use_tool_shadowed(),
            Some(CanUseToolShadowedWarning::BypassPermissions)
        );
        assert!(
            CanUseToolShadowedWarning::BypassPermissions
                .to_string()
                .contains("bypassPermissions")
        );
    }

    #[test]
    fn whole_tool_entries_are_named_once_and_specifiers_are_not() {
        let options = with_callback()
            .allowed_tools(["Read", "Read()", "Bash(git status:*)", "Grep(*)"])
            .permission_mode(PermissionMode::AcceptEdits);
        let warning = options.can_use_tool_shadowed();
        assert_eq!(
            warning,
            Some(CanUseToolShadowedWarning::AllowedTools(vec![
                "Read".into(),
                "Grep".into()
            ]))
        );
        let text = warning.map(|w| w.to_string()).unwrap_or_default();
        assert!(text.contains("for: Read, Grep."), "{text}");
    }

    #[test]
    fn every_skill_shadows_as_a_bare_skill_entry() {
        let all = with_callback().skills(crate::options::Skills::All);
        assert_eq!(
            all.can_use_tool_shadowed(),
            Some(CanUseToolShadowedWarning::AllowedTools(vec![
                "Skill".into()
            ]))
        );
        let some = with_callback().skills(crate::options::Skills::Only(vec!["review".into()]));
        assert_eq!(some.can_use_tool_shadowed(), None);
    }

    #[test]
    fn nothing_is_shadowed_without_a_callback_or_an_allowing_option() {
        assert_eq!(
            Options::new()
                .allowed_tools(["Read"])
                .permission_mode(PermissionMode::BypassPermissions)
                .can_use_tool_shadowed(),
            None
        );
        assert_eq!(
            with_callback()
                .allowed_tools(["Bash(ls)"])
                .permission_mode(PermissionMode::AcceptEdits)
                .can_use_tool_shadowed(),
            None
        );
    }
}
