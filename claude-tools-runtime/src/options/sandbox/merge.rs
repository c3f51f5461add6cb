//! [`Options::sandbox`]: the typed sandbox merged into the inline settings JSON, as the
//! TypeScript SDK 0.3.332 merges it.

use serde_json::{Map, Value};

use super::SandboxSettings;
use crate::options::Options;

/// Lists that the option adds to rather than replaces, by their path in the sandbox block:
/// restrictions, so that one side cannot lift the other's.
const COMBINED_LISTS: [&str; 5] = [
    "filesystem.denyRead",
    "filesystem.denyWrite",
    "network.deniedDomains",
    "credentials.files",
    "credentials.envVars",
];
/// Objects the option replaces whole instead of merging key by key.
const REPLACED_WHOLE: [&str; 2] = ["ripgrep", "network.tlsTerminate"];
/// Your own proxy's ports, dropped when the option restricts domains without naming them:
/// traffic through your proxy is not checked against the domain lists.
const PROXY_PORTS: [&str; 2] = ["httpProxyPort", "socksProxyPort"];

/// Whether a `settings` value is inline JSON rather than a file's path, as the TypeScript SDK
/// tells them apart.
fn is_inline_json(settings: &str) -> bool {
    let settings = settings.trim();
    settings.starts_with('{') && settings.ends_with('}')
}

impl Options {
    /// Sandboxes the agent's shell commands ([`SandboxSettings`]).
    ///
    /// The CLI reads the sandbox from its settings, so this is merged into the inline
    /// [`settings`](Options::settings) JSON as the TypeScript SDK merges it, and travels with
    /// them ([`ConfigDelivery`](crate::options::ConfigDelivery)): a value set here replaces the one at the
    /// same path in the settings' `sandbox` block, a value not set here is kept; nested objects
    /// merge key by key (except `ripgrep` and `network.tlsTerminate`, replaced whole); the
    /// restriction lists (`filesystem.denyRead`, `filesystem.denyWrite`,
    /// `network.deniedDomains`, `credentials.files`, `credentials.envVars`) are combined. As
    /// there: setting `filesystem` drops a `filesystem.disabled: true` of the settings,
    /// restricting domains drops the settings' proxy ports, and `enabled(true)` sends
    /// `failIfUnavailable: true` unless either side sets it.
    ///
    /// A settings file's path cannot be combined with it: the session refuses to start with
    /// [`Error::InvalidOptions`](crate::Error::InvalidOptions) (put the sandbox in the file).
    ///
    /// ```
    /// use claude_tools::options::{ConfigDelivery, Options, SandboxSettings};
    ///
    /// let options = Options::new()
    ///     .settings(r#"{"model":"claude-sonnet-4-5"}"#)
    ///     .sandbox(SandboxSettings::new().enabled(true))
    ///     .config_delivery(ConfigDelivery::Argv);
    /// let args = options.launch_spec().args;
    /// let at = args.iter().position(|arg| arg == "--settings").unwrap();
    /// assert_eq!(
    ///     args[at + 1],
    ///     r#"{"model":"claude-sonnet-4-5","sandbox":{"enabled":true,"failIfUnavailable":true}}"#
    /// );
    /// ```
    pub fn sandbox(mut self, sandbox: SandboxSettings) -> Self {
        self.sandbox = Some(sandbox);
        self
    }

    /// The settings the CLI gets: [`settings`](Options::settings) as given, or, with a sandbox,
    /// the inline settings with the sandbox merged in. A path or unreadable JSON combined with
    /// a sandbox is returned as given: [`validate_sandbox`](Self::validate_sandbox) refuses it
    /// before any launch.
    pub(crate) fn effective_settings(&self) -> Option<String> {
        let Some(sandbox) = &self.sandbox else {
            return self.settings.clone();
        };
        let mut settings = match self.settings.as_deref() {
            None => Map::new(),
            Some(text) => match serde_json::from_str(text.trim()) {
                Ok(Value::Object(settings)) if is_inline_json(text) => settings,
                _ => return self.settings.clone(),
            },
        };
        let merged = merge_sandbox(settings.get("sandbox"), sandbox);
        settings.insert("sandbox".into(), Value::Object(merged));
        Some(Value::Object(settings).to_string())
    }

    /// A sandbox needs inline settings JSON (or none) to merge into.
    pub(crate) fn validate_sandbox(&self) -> crate::Result<()> {
        let (Some(_), Some(settings)) = (&self.sandbox, self.settings.as_deref()) else {
            return Ok(());
        };
        let invalid = |message: &str| Err(crate::Error::InvalidOptions(message.into()));
        if !is_inline_json(settings) {
            return invalid(
                "a settings file path cannot be combined with Options::sandbox: include the \
                 sandbox configuration in the settings file instead",
            );
        }
        match serde_json::from_str::<Value>(settings.trim()) {
            Ok(Value::Object(_)) => Ok(()),
            _ => invalid(
                "Options::settings is not a valid JSON object, so Options::sandbox cannot be merged into it",
            ),
        }
    }
}

/// The settings' `sandbox` block with `sandbox` merged in, as the TypeScript SDK merges them.
fn merge_sandbox(existing: Option<&Value>, sandbox: &SandboxSettings) -> Map<String, Value> {
    let option = match serde_json::to_value(sandbox) {
        Ok(Value::Object(option)) => option,
        // A struct of strings, numbers and maps always serialises to an object.
        _ => Map::new(),
    };
    let mut merged = merge_object(existing, &option, "");
    let sets_filesystem = option.contains_key("filesystem") || has_credential_file_deny(&option);
    let option_disables = option
        .get("filesystem")
        .and_then(|fs| fs.get("disabled"))
        .is_some();
    if sets_filesystem
        && !option_disables
        && let Some(Value::Object(fs)) = merged.get_mut("filesystem")
        && fs.get("disabled") == Some(&Value::Bool(true))
    {
        fs.remove("disabled");
    }
    if let Some(network) = sandbox.network.as_ref()
        && (network.allowed_domains.is_some()
            || network
                .denied_domains
                .as_ref()
                .is_some_and(|d| !d.is_empty())
            || network.strict_allowlist == Some(true))
        && let Some(Value::Object(merged_network)) = merged.get_mut("network")
    {
        let option_network = option.get("network");
        for port in PROXY_PORTS {
            if option_network.and_then(|n| n.get(port)).is_none() {
                merged_network.remove(port);
            }
        }
    }
    if sandbox.enabled == Some(true) && !merged.contains_key("failIfUnavailable") {
        merged.insert("failIfUnavailable".into(), Value::Bool(true));
    }
    merged
}

/// Whether the option's `credentials.files` holds a `deny` entry.
fn has_credential_file_deny(option: &Map<String, Value>) -> bool {
    let files = option.get("credentials").and_then(|c| c.get("files"));
    files.and_then(Value::as_array).is_some_and(|files| {
        files
            .iter()
            .any(|file| file.get("mode") == Some(&"deny".into()))
    })
}

/// `existing` (if an object) with `option`'s keys merged in; `path` is where they are.
fn merge_object(
    existing: Option<&Value>,
    option: &Map<String, Value>,
    path: &str,
) -> Map<String, Value> {
    let mut merged = match existing {
        Some(Value::Object(existing)) => existing.clone(),
        _ => Map::new(),
    };
    for (key, value) in option {
        let at = if path.is_empty() {
            key.clone()
        } else {
            format!("{path}.{key}")
        };
        let new = match (merged.get(key), value) {
            (Some(Value::Array(old)), Value::Array(add))
                if COMBINED_LISTS.contains(&at.as_str()) =>
            {
                let mut combined = old.clone();
                for item in add {
                    if !combined.contains(item) {
                        combined.push(item.clone());
                    }
                }
                Value::Array(combined)
            }
            (Some(old @ Value::Object(_)), Value::Object(add))
                if !REPLACED_WHOLE.contains(&at.as_str()) =>
            {
                Value::Object(merge_object(Some(old), add, &at))
            }
            _ => value.clone(),
        };
        merged.insert(key.clone(), new);
    }
    merged
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use crate::options::*;

    fn merged(settings: Option<&str>, sandbox: SandboxSettings) -> serde_json::Value {
        let mut options = Options::new().sandbox(sandbox);
        if let Some(settings) = settings {
            options = options.settings(settings);
        }
        options.validate_sandbox().unwrap();
        serde_json::from_str(&options.effective_settings().unwrap()).unwrap()
    }

    #[test]
    fn every_typed_field_has_the_typescript_sdks_name() {
        let sandbox = SandboxSettings::new()
            .enabled(true)
            .fail_if_unavailable(false)
            .auto_allow_bash_if_sandboxed(true)
            .allow_unsandboxed_commands(false)
            .network(
                SandboxNetwork::new()
                    .allowed_domains(["example.com"])
                    .denied_domains(["evil.example"])
                    .strict_allowlist(true)
                    .allow_managed_domains_only(false)
                    .allow_unix_sockets(["/run/docker.sock"])
                    .allow_all_unix_sockets(false)
                    .allow_local_binding(true)
                    .allow_mach_lookup(["com.apple.x"])
                    .http_proxy_port(8080)
                    .socks_proxy_port(1080)
                    .tls_terminate("/ca.pem", "/ca.key"),
            )
            .filesystem(
                SandboxFilesystem::new()
                    .allow_write(["/tmp"])
                    .deny_write(["/etc"])
                    .deny_read(["/secret"])
                    .allow_read(["/secret/ok"])
                    .allow_managed_read_paths_only(false)
                    .disabled(false),
            )
            .ignore_violations("*", ["/usr/bin"])
            .enable_weaker_nested_sandbox(true)
            .allow_nested_user_namespaces(false)
            .enable_weaker_network_isolation(false)
            .allow_apple_events(false)
            .excluded_commands(["docker"])
            .ripgrep(SandboxRipgrep::new("/usr/bin/rg", ["--hidden"]))
            .bwrap_path("/usr/bin/bwrap")
            .socat_path("/usr/bin/socat")
            .extra(
                "credentials",
                json!({"envVars": [{"name": "TOKEN", "mode": "deny"}]}),
            );
        assert_eq!(
            merged(None, sandbox),
            json!({"sandbox": {
                "enabled": true,
                "failIfUnavailable": false,
                "autoAllowBashIfSandboxed": true,
                "allowUnsandboxedCommands": false,
                "network": {
                    "allowedDomains": ["example.com"],
                    "deniedDomains": ["evil.example"],
                    "strictAllowlist": true,
                    "allowManagedDomainsOnly": false,
                    "allowUnixSockets": ["/run/docker.sock"],
                    "allowAllUnixSockets": false,
                    "allowLocalBinding": true,
                    "allowMachLookup": ["com.apple.x"],
                    "httpProxyPort": 8080,
                    "socksProxyPort": 1080,
                    "tlsTerminate": {"caCertPath": "/ca.pem", "caKeyPath": "/ca.key"},
                },
                "filesystem": {
                    "allowWrite": ["/tmp"],
                    "denyWrite": ["/etc"],
                    "denyRead": ["/secret"],
                    "allowRead": ["/secret/ok"],
                    "allowManagedReadPathsOnly": false,
                    "disabled": false,
                },
                "ignoreViolations": {"*": ["/usr/bin"]},
                "enableWeakerNestedSandbox": true,
                "allowNestedUserNamespaces": false,
                "enableWeakerNetworkIsolation": false,
                "allowAppleEvents": false,
                "excludedCommands": ["docker"],
                "ripgrep": {"command": "/usr/bin/rg", "args": ["--hidden"]},
                "bwrapPath": "/usr/bin/bwrap",
                "socatPath": "/usr/bin/socat",
                "credentials": {"envVars": [{"name": "TOKEN", "mode": "deny"}]},
            }})
        );
    }

    #[test]
    fn the_option_merges_into_the_settings_sandbox_as_the_typescript_sdk_merges_it() {
        // What the TypeScript SDK 0.3.332's merge (`Gy`) gives for the same two inputs.
        let settings = json!({
            "model": "m",
            "sandbox": {
                "excludedCommands": ["git"],
                "filesystem": {"disabled": true, "denyRead": ["/a"], "allowWrite": ["/w"]},
                "network": {"httpProxyPort": 1, "socksProxyPort": 2, "deniedDomains": ["x.example"],
                    "tlsTerminate": {"caCertPath": "/old.pem", "caKeyPath": "/old.key"}},
                "ripgrep": {"command": "rg", "args": ["-a"]},
            },
            "env": {"A": "1"},
        })
        .to_string();
        let sandbox = SandboxSettings::new()
            .enabled(true)
            .excluded_commands(["docker"])
            .filesystem(
                SandboxFilesystem::new()
                    .deny_read(["/a", "/b"])
                    .allow_write(["/v"]),
            )
            .network(
                SandboxNetwork::new()
                    .denied_domains(["y.example"])
                    .socks_proxy_port(3)
                    .tls_terminate("/new.pem", "/new.key"),
            )
            .ripgrep(SandboxRipgrep::new("/bin/rg", Vec::<String>::new()));
        let merged = merged(Some(&settings), sandbox);
        assert_eq!(
            merged,
            json!({
                "model": "m",
                "sandbox": {
                    // Replaced: a plain list.
                    "excludedCommands": ["docker"],
                    // `disabled: true` dropped: the option sets `filesystem`; the deny list
                    // combined, the allow list replaced.
                    "filesystem": {"denyRead": ["/a", "/b"], "allowWrite": ["/v"]},
                    // The HTTP proxy port dropped (domains restricted, port not restated), the
                    // SOCKS one replaced; the denied domains combined; TLS replaced whole.
                    "network": {"socksProxyPort": 3, "deniedDomains": ["x.example", "y.example"],
                        "tlsTerminate": {"caCertPath": "/new.pem", "caKeyPath": "/new.key"}},
                    "ripgrep": {"command": "/bin/rg"},
                    "enabled": true,
                    "failIfUnavailable": true,
                },
                "env": {"A": "1"},
            })
        );
        // Key order: the settings' own, the sandbox where it was (serde_json preserves order).
        let keys: Vec<_> = merged.as_object().unwrap().keys().cloned().collect();
        assert_eq!(keys, ["model", "sandbox", "env"]);
    }

    #[test]
    fn typed_credentials_combine_with_those_of_the_settings_and_drop_a_disabled_filesystem() {
        let settings = json!({"sandbox": {
            "filesystem": {"disabled": true},
            "credentials": {"files": [{"path": "~/.netrc", "mode": "deny"}],
                "envVars": [{"name": "A", "mode": "deny"}], "allowPlaintextInject": true},
        }})
        .to_string();
        let sandbox = SandboxSettings::new().credentials(
            SandboxCredentials::new()
                .file(ProtectedCredential::file("~/.aws", CredentialMode::Deny))
                .env_var(ProtectedCredential::env_var("B", CredentialMode::Mask))
                .allow_plaintext_inject(false),
        );
        assert_eq!(
            merged(Some(&settings), sandbox),
            json!({"sandbox": {
                // A deny entry needs the filesystem layer: `disabled: true` is dropped.
                "filesystem": {},
                "credentials": {
                    "files": [{"path": "~/.netrc", "mode": "deny"}, {"path": "~/.aws", "mode": "deny"}],
                    "envVars": [{"name": "A", "mode": "deny"}, {"name": "B", "mode": "mask"}],
                    "allowPlaintextInject": false,
                },
            }})
        );
    }

    #[test]
    fn fail_if_unavailable_is_left_to_either_side_that_sets_it() {
        let settings = r#"{"sandbox":{"failIfUnavailable":false}}"#;
        assert_eq!(
            merged(Some(settings), SandboxSettings::new().enabled(true)),
            json!({"sandbox": {"failIfUnavailable": false, "enabled": true}})
        );
        assert_eq!(
            merged(None, SandboxSettings::new().enabled(false)),
            json!({"sandbox": {"enabled": false}})
        );
    }

    #[test]
    fn the_sandbox_travels_with_the_settings_in_initialize_or_on_argv() {
        let options = Options::new().sandbox(SandboxSettings::new().enabled(true));
        assert_eq!(
            options.initialize_settings().map(serde_json::Value::Object),
            Some(json!({"sandbox": {"enabled": true, "failIfUnavailable": true}}))
        );
        let args = options
            .clone()
            .config_delivery(ConfigDelivery::Argv)
            .launch_spec()
            .args;
        let at = args.iter().position(|arg| arg == "--settings").unwrap();
        assert_eq!(
            args[at + 1],
            r#"{"sandbox":{"enabled":true,"failIfUnavailable":true}}"#
        );
        let args = options.launch_spec().args;
        assert!(
            args.contains(&"--initialize-fields=settings".to_string()),
            "{args:?}"
        );
        assert!(!args.contains(&"--settings".to_string()), "{args:?}");
    }

    #[test]
    fn a_settings_file_path_or_bad_json_with_a_sandbox_is_refused() {
        let sandbox = SandboxSettings::new().enabled(true);
        let path = Options::new()
            .settings("/etc/claude/settings.json")
            .sandbox(sandbox.clone());
        let error = path.validate().unwrap_err().to_string();
        assert!(
            error.contains("settings file path cannot be combined"),
            "{error}"
        );
        let bad = Options::new().settings("{nope}").sandbox(sandbox);
        let error = bad.validate().unwrap_err().to_string();
        assert!(error.contains("not a valid JSON object"), "{error}");
        // Without a sandbox, a path is fine.
        Options::new()
            .settings("/etc/claude/settings.json")
            .validate()
            .unwrap();
    }
}
