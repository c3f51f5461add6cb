//! Permission rule changes ([`PermissionUpdate`]): what the CLI suggests with a permission
//! request and accepts back with an answer, and the rules, behaviours and destinations they
//! name.

use serde::{Deserialize, Serialize};

use crate::options::PermissionMode;
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
    /// Switch the permission mode ([`PermissionUpdate::set_mode`] builds one from a
    /// [`PermissionMode`]).
    SetMode {
        /// The mode, by its wire name (kept as written, so a mode a newer CLI suggests still
        /// reads); typed by [`PermissionUpdate::mode`].
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

impl PermissionUpdate {
    /// Switches the permission mode to `mode`, stored at `destination`.
    ///
    /// ```
    /// use claude_tools_runtime::options::PermissionMode;
    /// use claude_tools_runtime::permission::{PermissionUpdate, PermissionUpdateDestination};
    ///
    /// let update = PermissionUpdate::set_mode(
    ///     PermissionMode::AcceptEdits,
    ///     PermissionUpdateDestination::Session,
    /// );
    /// assert_eq!(update.mode(), Some(PermissionMode::AcceptEdits));
    /// assert_eq!(
    ///     serde_json::to_value(&update).unwrap(),
    ///     serde_json::json!({"type": "setMode", "mode": "acceptEdits", "destination": "session"})
    /// );
    /// ```
    pub fn set_mode(mode: PermissionMode, destination: PermissionUpdateDestination) -> Self {
        PermissionUpdate::SetMode {
            mode: mode.as_str().to_owned(),
            destination,
        }
    }

    /// The mode a [`SetMode`](PermissionUpdate::SetMode) switches to (the CLI's `manual` reads
    /// as [`PermissionMode::Default`]); `None` for another update, or a mode this crate does
    /// not know.
    pub fn mode(&self) -> Option<PermissionMode> {
        match self {
            PermissionUpdate::SetMode { mode, .. } => PermissionMode::from_wire(mode),
            _ => None,
        }
    }
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

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn a_set_mode_update_reads_its_mode_typed_and_keeps_an_unknown_one() {
        let read = |value| serde_json::from_value::<PermissionUpdate>(value).unwrap();
        let known = read(json!({"type": "setMode", "mode": "plan", "destination": "session"}));
        assert_eq!(known.mode(), Some(PermissionMode::Plan));
        assert_eq!(
            known,
            PermissionUpdate::set_mode(PermissionMode::Plan, PermissionUpdateDestination::Session)
        );
        let manual = read(json!({"type": "setMode", "mode": "manual", "destination": "cliArg"}));
        assert_eq!(manual.mode(), Some(PermissionMode::Default));
        let newer = json!({"type": "setMode", "mode": "yolo", "destination": "session"});
        assert_eq!(read(newer.clone()).mode(), None);
        assert_eq!(serde_json::to_value(read(newer.clone())).unwrap(), newer);
        let rules = read(json!({"type": "addDirectories", "directories": ["/x"],
            "destination": "session"}));
        assert_eq!(rules.mode(), None);
    }
}
