//! Permission rule changes ([`PermissionUpdate`]): what the CLI suggests with a permission
//! request and accepts back with an answer, and the rules, behaviours and destinations they
//! name.

use serde::{Deserialize, Serialize};

use crate::wire_enum::wire_enum;

wire_enum! {
    /// What the rules of a [`PermissionUpdate`] do to the calls they match (the TypeScript
    /// SDK's `PermissionBehavior`); a value a newer CLI adds is kept as `Other`.
    ///
    /// ```
    /// use claude_tools::permission::PermissionBehavior;
    ///
    /// assert_eq!(PermissionBehavior::from_wire("deny"), PermissionBehavior::Deny);
    /// assert_eq!(PermissionBehavior::Ask.as_str(), "ask");
    /// ```
    pub enum PermissionBehavior {
        /// Run the matching calls without asking.
        Allow = "allow",
        /// Refuse the matching calls.
        Deny = "deny",
        /// Ask (the `can_use_tool` callback, or a person) before each matching call.
        Ask = "ask",
    }
}

wire_enum! {
    /// Where a [`PermissionUpdate`] is stored (the TypeScript SDK's
    /// `PermissionUpdateDestination`); a value a newer CLI adds is kept as `Other`.
    ///
    /// ```
    /// use claude_tools::permission::PermissionUpdateDestination;
    ///
    /// let read: PermissionUpdateDestination = "localSettings".into();
    /// assert_eq!(read, PermissionUpdateDestination::LocalSettings);
    /// ```
    pub enum PermissionUpdateDestination {
        /// The user's settings (`~/.claude/settings.json`).
        UserSettings = "userSettings",
        /// The project's shared settings (`.claude/settings.json`).
        ProjectSettings = "projectSettings",
        /// The project's local, uncommitted settings (`.claude/settings.local.json`).
        LocalSettings = "localSettings",
        /// This session only: nothing is written to disk.
        Session = "session",
        /// As if given on the command line: this process only.
        CliArg = "cliArg",
    }
}

/// A permission rule change, as the CLI suggests and accepts them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "camelCase")]
#[non_exhaustive]
pub enum PermissionUpdate {
    /// Add rules.
    AddRules {
        /// The rules.
        rules: Vec<PermissionRule>,
        /// What the rules do to the calls they match.
        behavior: PermissionBehavior,
        /// Where to store them.
        destination: PermissionUpdateDestination,
    },
    /// Replace rules.
    ReplaceRules {
        /// The rules.
        rules: Vec<PermissionRule>,
        /// What the rules do to the calls they match.
        behavior: PermissionBehavior,
        /// Where to store them.
        destination: PermissionUpdateDestination,
    },
    /// Remove rules.
    RemoveRules {
        /// The rules.
        rules: Vec<PermissionRule>,
        /// What the rules do to the calls they match.
        behavior: PermissionBehavior,
        /// Where to store them.
        destination: PermissionUpdateDestination,
    },
    /// Switch the permission mode.
    SetMode {
        /// The mode.
        mode: String,
        /// Where to store it.
        destination: PermissionUpdateDestination,
    },
    /// Add working directories.
    AddDirectories {
        /// The directories.
        directories: Vec<String>,
        /// Where to store them.
        destination: PermissionUpdateDestination,
    },
    /// Remove working directories.
    RemoveDirectories {
        /// The directories.
        directories: Vec<String>,
        /// Where to store them.
        destination: PermissionUpdateDestination,
    },
}

/// One permission rule.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PermissionRule {
    /// The tool the rule is about.
    #[serde(rename = "toolName")]
    pub tool_name: String,
    /// The rule's content (e.g. a command pattern), if any.
    #[serde(
        rename = "ruleContent",
        skip_serializing_if = "Option::is_none",
        default
    )]
    pub rule_content: Option<String>,
}
