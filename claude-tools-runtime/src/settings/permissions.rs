//! The `permissions` block of [`Settings`](super::Settings).

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::options::PermissionMode;
use crate::wire_enum::wire_enum;

/// The `permissions` block: rules, the default mode and the directories in scope.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Permissions {
    /// Rules of tools allowed without asking (`Bash(npm test)`, `mcp__calc__*`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub allow: Option<Vec<String>>,
    /// Rules of tools refused.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deny: Option<Vec<String>>,
    /// Rules of tools that always ask.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ask: Option<Vec<String>>,
    /// The permission mode a session starts in. An escalating one from a repository's own
    /// settings is not honoured by the CLI: see
    /// [`filter_escalating_default_mode`](super::filter_escalating_default_mode).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default_mode: Option<DefaultMode>,
    /// `"disable"` turns bypass-permissions mode off.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub disable_bypass_permissions_mode: Option<String>,
    /// `"disable"` turns auto mode off.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub disable_auto_mode: Option<String>,
    /// Deny at once a call that would prompt, instead of waiting for a person.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deny_instead_of_prompting: Option<bool>,
    /// Refuse file-tool reads outside the working directories in every mode.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub block_reads_outside_working_directories: Option<bool>,
    /// Refuse file-tool writes outside the working directories in every mode.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub block_writes_outside_working_directories: Option<bool>,
    /// More directories in the permission scope.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub additional_directories: Option<Vec<String>>,
    /// Every other key of the block, sent and read back as given.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

fn strings<I, S>(items: I) -> Option<Vec<String>>
where
    I: IntoIterator<Item = S>,
    S: Into<String>,
{
    Some(items.into_iter().map(Into::into).collect())
}

impl Permissions {
    /// No rule.
    pub fn new() -> Self {
        Self::default()
    }

    /// Sets [`allow`](Self::allow).
    pub fn allow<I, S>(mut self, rules: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.allow = strings(rules);
        self
    }

    /// Sets [`deny`](Self::deny).
    pub fn deny<I, S>(mut self, rules: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.deny = strings(rules);
        self
    }

    /// Sets [`ask`](Self::ask).
    pub fn ask<I, S>(mut self, rules: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.ask = strings(rules);
        self
    }

    /// Sets [`default_mode`](Self::default_mode).
    pub fn default_mode(mut self, mode: PermissionMode) -> Self {
        self.default_mode = Some(DefaultMode::from(mode));
        self
    }

    /// Sets [`additional_directories`](Self::additional_directories).
    pub fn additional_directories<I, S>(mut self, directories: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.additional_directories = strings(directories);
        self
    }
}

wire_enum! {
    /// A permission mode as settings spell it (`permissions.defaultMode`); a mode a newer CLI
    /// adds is kept as `Other`.
    pub enum DefaultMode {
        /// `default`.
        Default = "default",
        /// `acceptEdits`.
        AcceptEdits = "acceptEdits",
        /// `plan`.
        Plan = "plan",
        /// `bypassPermissions`.
        BypassPermissions = "bypassPermissions",
        /// `dontAsk`.
        DontAsk = "dontAsk",
        /// `auto`.
        Auto = "auto",
    }
}

impl DefaultMode {
    /// The session's [`PermissionMode`] it stands for (`manual` is `Default`, as the CLI reads
    /// it); `None` for a mode this library does not know.
    pub fn permission_mode(&self) -> Option<PermissionMode> {
        PermissionMode::from_wire(self.as_str())
    }

    /// Whether the mode lets the agent do more without asking than `default` does
    /// (`bypassPermissions`, `auto`, `acceptEdits`): the modes the CLI does not take from a
    /// repository's own settings.
    pub fn is_escalating(&self) -> bool {
        matches!(
            self,
            DefaultMode::BypassPermissions | DefaultMode::Auto | DefaultMode::AcceptEdits
        )
    }
}

impl From<PermissionMode> for DefaultMode {
    fn from(mode: PermissionMode) -> Self {
        DefaultMode::from_wire(mode.as_str())
    }
}
