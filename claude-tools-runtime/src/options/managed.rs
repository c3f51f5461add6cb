//! Managed settings ([`ManagedSettings`]): policy-tier settings the host imposes on the CLI it
//! launches, as the TypeScript SDK 0.3.332's `managedSettings`, on the command line
//! (`--managed-settings`) or in the `initialize` request (`--managed-settings-in-initialize`).

use serde::Serialize;
use serde_json::{Map, Value};

use super::{ConfigDelivery, Options, SandboxSettings};

/// Policy-tier settings supplied by the host ([`Options::managed_settings`]): the same keys as
/// Claude Code's `managed-settings.json`. The fields most hosts set are typed; any other key of
/// the (large, growing) settings schema goes in [`extra`](Self::extra).
///
/// The CLI filters them to what restricts: permissive entries (`permissions.allow`, …) are
/// dropped, and where an administrator's own managed settings exist these are left out unless
/// the administrator opts in (`parentSettingsBehavior: "merge"`).
///
/// ```
/// use claude_tools::options::{ManagedPermissions, ManagedSettings, Options, SandboxNetwork, SandboxSettings};
///
/// let managed = ManagedSettings::new()
///     .permissions(ManagedPermissions::new().deny(["WebFetch", "Bash(curl *)"]))
///     .sandbox(SandboxSettings::new().network(SandboxNetwork::new().allow_managed_domains_only(true)));
/// let options = Options::new().managed_settings(managed);
/// // In the initialize request by default, not on the command line.
/// assert!(options.launch_spec().args.contains(&"--managed-settings-in-initialize".to_string()));
/// ```
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ManagedSettings {
    /// Permission rules.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub permissions: Option<ManagedPermissions>,
    /// The sandbox.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sandbox: Option<SandboxSettings>,
    /// Every other settings key, sent as given.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The `permissions` block of [`ManagedSettings`].
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ManagedPermissions {
    /// Rules of tools allowed without asking (dropped by the CLI's restrictive-only filter
    /// unless an administrator's settings vouch for them).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub allow: Option<Vec<String>>,
    /// Rules of tools refused.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub deny: Option<Vec<String>>,
    /// Rules of tools that always ask.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ask: Option<Vec<String>>,
    /// `"disable"` turns off [`PermissionMode::BypassPermissions`](super::PermissionMode).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub disable_bypass_permissions_mode: Option<String>,
    /// Every other key of the block, sent as given.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl ManagedSettings {
    /// No setting.
    pub fn new() -> Self {
        Self::default()
    }

    /// Sets [`permissions`](Self::permissions).
    pub fn permissions(mut self, permissions: ManagedPermissions) -> Self {
        self.permissions = Some(permissions);
        self
    }

    /// Sets [`sandbox`](Self::sandbox).
    pub fn sandbox(mut self, sandbox: SandboxSettings) -> Self {
        self.sandbox = Some(sandbox);
        self
    }

    /// Sets another settings key ([`extra`](Self::extra)).
    pub fn setting(mut self, key: impl Into<String>, value: Value) -> Self {
        self.extra.insert(key.into(), value);
        self
    }
}

fn strings<I, S>(items: I) -> Option<Vec<String>>
where
    I: IntoIterator<Item = S>,
    S: Into<String>,
{
    Some(items.into_iter().map(Into::into).collect())
}

impl ManagedPermissions {
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

    /// Turns off [`PermissionMode::BypassPermissions`](super::PermissionMode)
    /// (`disableBypassPermissionsMode: "disable"`).
    pub fn disable_bypass_permissions_mode(mut self) -> Self {
        self.disable_bypass_permissions_mode = Some("disable".into());
        self
    }
}

/// What the managed-settings room adds to the `initialize` request.
#[derive(Debug, Serialize)]
pub(crate) struct ManagedInitialize<'a> {
    #[serde(rename = "managedSettings", skip_serializing_if = "Option::is_none")]
    managed_settings: Option<&'a ManagedSettings>,
}

impl ManagedInitialize<'_> {
    /// Whether the request carries managed settings, which the CLI must confirm it took.
    pub(crate) fn is_sent(&self) -> bool {
        self.managed_settings.is_some()
    }
}

impl Options {
    /// Policy-tier settings for the CLI ([`ManagedSettings`]), for an application that derives
    /// lockdown settings from its own configuration and must impose them without writing
    /// root-owned files.
    ///
    /// They travel as the [`ConfigDelivery`] says: in the `initialize` request (the default;
    /// the CLI is launched with `--managed-settings-in-initialize` and must confirm it took
    /// them, or connecting fails with
    /// [`Error::InitializeNotApplied`](crate::Error::InitializeNotApplied)), or on the command
    /// line as `--managed-settings <json>` with [`ConfigDelivery::Argv`].
    ///
    /// ```
    /// use claude_tools::options::{ConfigDelivery, ManagedPermissions, ManagedSettings, Options};
    ///
    /// let args = Options::new()
    ///     .managed_settings(ManagedSettings::new().permissions(ManagedPermissions::new().deny(["WebFetch"])))
    ///     .config_delivery(ConfigDelivery::Argv)
    ///     .launch_spec()
    ///     .args;
    /// assert!(args.windows(2).any(|w| w == ["--managed-settings", r#"{"permissions":{"deny":["WebFetch"]}}"#]));
    /// ```
    pub fn managed_settings(mut self, settings: ManagedSettings) -> Self {
        self.managed_settings = Some(settings);
        self
    }

    /// Whether the managed settings go in `initialize` (and so not on the command line).
    pub(crate) fn managed_settings_in_initialize(&self) -> bool {
        self.config_delivery == ConfigDelivery::Initialize && self.managed_settings.is_some()
    }

    /// `--managed-settings-in-initialize`, or `--managed-settings <json>`.
    pub(crate) fn managed_settings_flags(&self, mut flag: impl FnMut(String, Option<String>)) {
        let Some(settings) = &self.managed_settings else {
            return;
        };
        if self.managed_settings_in_initialize() {
            flag("--managed-settings-in-initialize".into(), None);
        } else {
            // Serialising a struct of strings and JSON values cannot fail.
            let json = serde_json::to_string(settings).unwrap_or_default();
            flag("--managed-settings".into(), Some(json));
        }
    }

    /// The `initialize` fields.
    pub(crate) fn managed_initialize(&self) -> ManagedInitialize<'_> {
        ManagedInitialize {
            managed_settings: self
                .managed_settings
                .as_ref()
                .filter(|_| self.managed_settings_in_initialize()),
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use crate::options::*;

    fn managed() -> ManagedSettings {
        ManagedSettings::new()
            .permissions(
                ManagedPermissions::new()
                    .allow(["Read"])
                    .deny(["WebFetch"])
                    .ask(["Bash"])
                    .disable_bypass_permissions_mode(),
            )
            .sandbox(
                SandboxSettings::new()
                    .network(SandboxNetwork::new().allow_managed_domains_only(true)),
            )
            .setting("allowManagedHooksOnly", json!(true))
    }

    const JSON: &str = r#"{"permissions":{"allow":["Read"],"deny":["WebFetch"],"ask":["Bash"],"disableBypassPermissionsMode":"disable"},"sandbox":{"network":{"allowManagedDomainsOnly":true}},"allowManagedHooksOnly":true}"#;

    #[test]
    fn on_argv_the_settings_are_one_managed_settings_flag() {
        let options = Options::new()
            .managed_settings(managed())
            .config_delivery(ConfigDelivery::Argv);
        let args = options.launch_spec().args;
        assert_eq!(args[5..args.len() - 2], ["--managed-settings", JSON]);
        assert_eq!(
            serde_json::to_string(&options.managed_initialize()).unwrap(),
            "{}"
        );
    }

    #[test]
    fn by_default_they_go_in_initialize_and_the_cli_waits_for_it() {
        let options = Options::new().managed_settings(managed());
        let args = options.launch_spec().args;
        assert_eq!(
            args[5..args.len() - 2],
            ["--await-initialize", "--managed-settings-in-initialize"]
        );
        let init = options.managed_initialize();
        assert!(init.is_sent());
        assert_eq!(
            serde_json::to_string(&init).unwrap(),
            format!(r#"{{"managedSettings":{JSON}}}"#)
        );
        // Without managed settings, nothing.
        let args = Options::new().launch_spec().args;
        assert_eq!(args[5..args.len() - 2], [] as [&str; 0]);
    }
}
