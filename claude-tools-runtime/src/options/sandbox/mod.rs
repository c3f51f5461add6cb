//! The sandbox for the agent's shell commands ([`SandboxSettings`]), typed after the TypeScript
//! SDK 0.3.332's `SandboxSettings`, and merged into the settings JSON as that SDK merges it
//! (`merge`): the CLI reads the sandbox only from its settings, so the option is one more block
//! of them.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

mod credentials;
mod merge;

pub use credentials::{
    AwsCredentialPair, CredentialMode, OnExtractNoMatch, ProtectedCredential, SandboxCredentials,
    SigV4Policies, SigV4Policy,
};

/// How the CLI sandboxes the commands the agent runs
/// ([`Options::sandbox`](crate::options::Options::sandbox)): the `sandbox` block of Claude
/// Code's settings. Every field is optional; the ones left `None` are not sent, so the CLI's
/// defaults (or the `sandbox` block of the inline
/// [`settings`](crate::options::Options::settings)) apply to them. Keys this type does not name
/// go in [`extra`](Self::extra) and are sent as given.
///
/// ```
/// use claude_tools::options::{Options, SandboxNetwork, SandboxSettings};
///
/// let sandbox = SandboxSettings::new()
///     .enabled(true)
///     .auto_allow_bash_if_sandboxed(true)
///     .excluded_commands(["docker"])
///     .network(
///         SandboxNetwork::new()
///             .allow_local_binding(true)
///             .allow_unix_sockets(["/var/run/docker.sock"]),
///     );
/// let options = Options::new().sandbox(sandbox);
/// // Merged into the settings JSON, which reaches the CLI over stdin by default.
/// assert!(!options.launch_spec().args.iter().any(|arg| arg.contains("sandbox")));
/// ```
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct SandboxSettings {
    /// Whether commands run sandboxed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub enabled: Option<bool>,
    /// Whether the session ends with an error when the sandbox cannot run (missing
    /// `bubblewrap`, an unsupported platform) rather than run commands unsandboxed. Left
    /// `None` with `enabled(true)`, it is sent as `true`, as the TypeScript SDK does.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fail_if_unavailable: Option<bool>,
    /// Whether sandboxed Bash commands run without asking.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub auto_allow_bash_if_sandboxed: Option<bool>,
    /// Whether the model may ask to run a command outside the sandbox.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub allow_unsandboxed_commands: Option<bool>,
    /// Network restrictions.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub network: Option<SandboxNetwork>,
    /// Filesystem restrictions.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub filesystem: Option<SandboxFilesystem>,
    /// Credential files and variables hidden from sandboxed commands, or masked.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub credentials: Option<SandboxCredentials>,
    /// Violations to ignore, by command pattern (`"*"` for all): the paths or hosts whose
    /// violations are not reported.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ignore_violations: Option<BTreeMap<String, Vec<String>>>,
    /// A weaker sandbox that works inside an unprivileged container (Linux).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub enable_weaker_nested_sandbox: Option<bool>,
    /// Whether sandboxed commands may create user namespaces of their own (Linux).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub allow_nested_user_namespaces: Option<bool>,
    /// A weaker network isolation (macOS).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub enable_weaker_network_isolation: Option<bool>,
    /// Whether sandboxed commands may send Apple Events (macOS).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub allow_apple_events: Option<bool>,
    /// Commands that always run outside the sandbox (e.g. `docker`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub excluded_commands: Option<Vec<String>>,
    /// The `ripgrep` the sandbox runs instead of the bundled one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ripgrep: Option<SandboxRipgrep>,
    /// The path of `bwrap` (Linux).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bwrap_path: Option<String>,
    /// The path of `socat` (Linux).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub socat_path: Option<String>,
    /// Keys this type does not name, sent as given. A key here that a field above also sets is sent twice; the
    /// CLI keeps the last one.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The sandbox's network restrictions ([`SandboxSettings::network`]).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct SandboxNetwork {
    /// Domains sandboxed commands may reach.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub allowed_domains: Option<Vec<String>>,
    /// Domains they may not reach.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub denied_domains: Option<Vec<String>>,
    /// Whether only `allowed_domains` are reachable, without asking for others.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub strict_allowlist: Option<bool>,
    /// Whether only the domains of managed settings count.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub allow_managed_domains_only: Option<bool>,
    /// Unix sockets sandboxed commands may connect to.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub allow_unix_sockets: Option<Vec<String>>,
    /// Whether every Unix socket is allowed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub allow_all_unix_sockets: Option<bool>,
    /// Whether sandboxed commands may bind local ports.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub allow_local_binding: Option<bool>,
    /// Mach services sandboxed commands may look up (macOS).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub allow_mach_lookup: Option<Vec<String>>,
    /// The port of your own HTTP proxy, used instead of the sandbox's.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub http_proxy_port: Option<u16>,
    /// The port of your own SOCKS proxy, used instead of the sandbox's.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub socks_proxy_port: Option<u16>,
    /// TLS termination by the sandbox's proxy: the CA it signs with.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tls_terminate: Option<SandboxTlsTerminate>,
    /// Keys this type does not name, sent as given.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The CA the sandbox's proxy terminates TLS with ([`SandboxNetwork::tls_terminate`]).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct SandboxTlsTerminate {
    /// The CA certificate's path.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ca_cert_path: Option<String>,
    /// The CA key's path.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ca_key_path: Option<String>,
}

/// The sandbox's filesystem restrictions ([`SandboxSettings::filesystem`]).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct SandboxFilesystem {
    /// Paths sandboxed commands may write.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub allow_write: Option<Vec<String>>,
    /// Paths they may not write.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub deny_write: Option<Vec<String>>,
    /// Paths they may not read.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub deny_read: Option<Vec<String>>,
    /// Paths they may read inside denied ones.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub allow_read: Option<Vec<String>>,
    /// Whether only the read paths of managed settings count.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub allow_managed_read_paths_only: Option<bool>,
    /// Whether the filesystem restrictions are off.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub disabled: Option<bool>,
    /// Keys this type does not name, sent as given.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The `ripgrep` the sandbox runs ([`SandboxSettings::ripgrep`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct SandboxRipgrep {
    /// The executable.
    pub command: String,
    /// Its arguments.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub args: Option<Vec<String>>,
}

impl SandboxRipgrep {
    /// Runs `command` with these arguments.
    pub fn new<I, S>(command: impl Into<String>, args: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        let args: Vec<String> = args.into_iter().map(Into::into).collect();
        SandboxRipgrep {
            command: command.into(),
            args: (!args.is_empty()).then_some(args),
        }
    }
}

fn strings<I, S>(items: I) -> Option<Vec<String>>
where
    I: IntoIterator<Item = S>,
    S: Into<String>,
{
    Some(items.into_iter().map(Into::into).collect())
}

impl SandboxSettings {
    /// No field set.
    pub fn new() -> Self {
        Self::default()
    }

    /// Sets [`enabled`](Self::enabled).
    pub fn enabled(mut self, on: bool) -> Self {
        self.enabled = Some(on);
        self
    }

    /// Sets [`fail_if_unavailable`](Self::fail_if_unavailable).
    pub fn fail_if_unavailable(mut self, on: bool) -> Self {
        self.fail_if_unavailable = Some(on);
        self
    }

    /// Sets [`auto_allow_bash_if_sandboxed`](Self::auto_allow_bash_if_sandboxed).
    pub fn auto_allow_bash_if_sandboxed(mut self, on: bool) -> Self {
        self.auto_allow_bash_if_sandboxed = Some(on);
        self
    }

    /// Sets [`allow_unsandboxed_commands`](Self::allow_unsandboxed_commands).
    pub fn allow_unsandboxed_commands(mut self, on: bool) -> Self {
        self.allow_unsandboxed_commands = Some(on);
        self
    }

    /// Sets [`network`](Self::network).
    pub fn network(mut self, network: SandboxNetwork) -> Self {
        self.network = Some(network);
        self
    }

    /// Sets [`filesystem`](Self::filesystem).
    pub fn filesystem(mut self, filesystem: SandboxFilesystem) -> Self {
        self.filesystem = Some(filesystem);
        self
    }

    /// Adds a pattern to [`ignore_violations`](Self::ignore_violations).
    pub fn ignore_violations<I, S>(mut self, command: impl Into<String>, paths: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        let paths = paths.into_iter().map(Into::into).collect();
        self.ignore_violations
            .get_or_insert_with(BTreeMap::new)
            .insert(command.into(), paths);
        self
    }

    /// Sets [`enable_weaker_nested_sandbox`](Self::enable_weaker_nested_sandbox).
    pub fn enable_weaker_nested_sandbox(mut self, on: bool) -> Self {
        self.enable_weaker_nested_sandbox = Some(on);
        self
    }

    /// Sets [`allow_nested_user_namespaces`](Self::allow_nested_user_namespaces).
    pub fn allow_nested_user_namespaces(mut self, on: bool) -> Self {
        self.allow_nested_user_namespaces = Some(on);
        self
    }

    /// Sets [`enable_weaker_network_isolation`](Self::enable_weaker_network_isolation).
    pub fn enable_weaker_network_isolation(mut self, on: bool) -> Self {
        self.enable_weaker_network_isolation = Some(on);
        self
    }

    /// Sets [`allow_apple_events`](Self::allow_apple_events).
    pub fn allow_apple_events(mut self, on: bool) -> Self {
        self.allow_apple_events = Some(on);
        self
    }

    /// Sets [`excluded_commands`](Self::excluded_commands).
    pub fn excluded_commands<I, S>(mut self, commands: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.excluded_commands = strings(commands);
        self
    }

    /// Sets [`credentials`](Self::credentials).
    pub fn credentials(mut self, credentials: SandboxCredentials) -> Self {
        self.credentials = Some(credentials);
        self
    }

    /// Sets [`ripgrep`](Self::ripgrep).
    pub fn ripgrep(mut self, ripgrep: SandboxRipgrep) -> Self {
        self.ripgrep = Some(ripgrep);
        self
    }

    /// Sets [`bwrap_path`](Self::bwrap_path).
    pub fn bwrap_path(mut self, path: impl Into<String>) -> Self {
        self.bwrap_path = Some(path.into());
        self
    }

    /// Sets [`socat_path`](Self::socat_path).
    pub fn socat_path(mut self, path: impl Into<String>) -> Self {
        self.socat_path = Some(path.into());
        self
    }

    /// Adds a key this type does not name ([`extra`](Self::extra)).
    pub fn extra(mut self, key: impl Into<String>, value: Value) -> Self {
        self.extra.insert(key.into(), value);
        self
    }
}

impl SandboxNetwork {
    /// No field set.
    pub fn new() -> Self {
        Self::default()
    }

    /// Sets [`allowed_domains`](Self::allowed_domains).
    pub fn allowed_domains<I, S>(mut self, domains: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.allowed_domains = strings(domains);
        self
    }

    /// Sets [`denied_domains`](Self::denied_domains).
    pub fn denied_domains<I, S>(mut self, domains: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.denied_domains = strings(domains);
        self
    }

    /// Sets [`strict_allowlist`](Self::strict_allowlist).
    pub fn strict_allowlist(mut self, on: bool) -> Self {
        self.strict_allowlist = Some(on);
        self
    }

    /// Sets [`allow_managed_domains_only`](Self::allow_managed_domains_only).
    pub fn allow_managed_domains_only(mut self, on: bool) -> Self {
        self.allow_managed_domains_only = Some(on);
        self
    }

    /// Sets [`allow_unix_sockets`](Self::allow_unix_sockets).
    pub fn allow_unix_sockets<I, S>(mut self, sockets: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.allow_unix_sockets = strings(sockets);
        self
    }

    /// Sets [`allow_all_unix_sockets`](Self::allow_all_unix_sockets).
    pub fn allow_all_unix_sockets(mut self, on: bool) -> Self {
        self.allow_all_unix_sockets = Some(on);
        self
    }

    /// Sets [`allow_local_binding`](Self::allow_local_binding).
    pub fn allow_local_binding(mut self, on: bool) -> Self {
        self.allow_local_binding = Some(on);
        self
    }

    /// Sets [`allow_mach_lookup`](Self::allow_mach_lookup).
    pub fn allow_mach_lookup<I, S>(mut self, services: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.allow_mach_lookup = strings(services);
        self
    }

    /// Sets [`http_proxy_port`](Self::http_proxy_port).
    pub fn http_proxy_port(mut self, port: u16) -> Self {
        self.http_proxy_port = Some(port);
        self
    }

    /// Sets [`socks_proxy_port`](Self::socks_proxy_port).
    pub fn socks_proxy_port(mut self, port: u16) -> Self {
        self.socks_proxy_port = Some(port);
        self
    }

    /// Sets [`tls_terminate`](Self::tls_terminate).
    pub fn tls_terminate(
        mut self,
        ca_cert_path: impl Into<String>,
        ca_key_path: impl Into<String>,
    ) -> Self {
        self.tls_terminate = Some(SandboxTlsTerminate {
            ca_cert_path: Some(ca_cert_path.into()),
            ca_key_path: Some(ca_key_path.into()),
        });
        self
    }
}

impl SandboxFilesystem {
    /// No field set.
    pub fn new() -> Self {
        Self::default()
    }

    /// Sets [`allow_write`](Self::allow_write).
    pub fn allow_write<I, S>(mut self, paths: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.allow_write = strings(paths);
        self
    }

    /// Sets [`deny_write`](Self::deny_write).
    pub fn deny_write<I, S>(mut self, paths: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.deny_write = strings(paths);
        self
    }

    /// Sets [`deny_read`](Self::deny_read).
    pub fn deny_read<I, S>(mut self, paths: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.deny_read = strings(paths);
        self
    }

    /// Sets [`allow_read`](Self::allow_read).
    pub fn allow_read<I, S>(mut self, paths: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.allow_read = strings(paths);
        self
    }

    /// Sets [`allow_managed_read_paths_only`](Self::allow_managed_read_paths_only).
    pub fn allow_managed_read_paths_only(mut self, on: bool) -> Self {
        self.allow_managed_read_paths_only = Some(on);
        self
    }

    /// Sets [`disabled`](Self::disabled).
    pub fn disabled(mut self, on: bool) -> Self {
        self.disabled = Some(on);
        self
    }
}
