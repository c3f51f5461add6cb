//! [`resolve_settings`]: the settings a CLI started in a folder would read, read from disk and
//! merged as the CLI merges them, with the tier each top-level key came from.
//!
//! The tiers, lowest precedence first (the CLI 2.1.332's order): user
//! (`$CLAUDE_CONFIG_DIR/settings.json`, else `~/.claude/settings.json`), project
//! (`<cwd>/.claude/settings.json`), local (`<cwd>/.claude/settings.local.json`), flag (what
//! `--settings` gives) and managed. Objects merge key by key, lists are concatenated without
//! duplicates, anything else is replaced by the higher tier.
//!
//! The managed (policy) tier is one source, not a merge of several: server-managed settings
//! when the host passes them ([`ResolveSettings::server_managed_settings`]), else the managed
//! file `managed-settings.json` of the managed directory (`/etc/claude-code` on Linux) with the
//! drop-ins of `managed-settings.d/` (`*.json`, in name order) merged over it. Not read here,
//! so not reported: macOS configuration profiles and the Windows registry (MDM; neither exists
//! on Linux), the CLI's cached server-managed settings (`remote-settings.json`, which the CLI
//! takes only with a verified signature: pass a fresh copy instead), an administrator's
//! `policyHelper` (a program this does not run), and the host's own
//! [`Options::managed_settings`](crate::options::Options::managed_settings), which the CLI
//! filters to its restrictive keys.

use std::io;
use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use super::policy::{PolicyOrigin, ProvenanceEntry};
use super::{ResolvedSettingSource, ResolvedSettings, Settings, SettingsError, SourcedSettings};
use crate::options::SettingSource;

/// Where [`resolve_settings`] reads, and what it is given. Each place defaults to what the CLI
/// would use for this process: the current directory, `CLAUDE_CONFIG_DIR` or `$HOME/.claude`,
/// and the platform's managed directory.
#[derive(Debug, Clone, Default)]
pub struct ResolveSettings {
    cwd: Option<PathBuf>,
    sources: Option<Vec<SettingSource>>,
    config_dir: Option<PathBuf>,
    home: Option<PathBuf>,
    managed_dir: Option<PathBuf>,
    flag: Option<Settings>,
    server_managed: Option<Settings>,
}

impl ResolveSettings {
    /// Defaults for this process.
    pub fn new() -> Self {
        Self::default()
    }

    /// The folder whose project and local settings are read (default: the current directory).
    pub fn cwd(mut self, cwd: impl Into<PathBuf>) -> Self {
        self.cwd = Some(cwd.into());
        self
    }

    /// Which of the user, project and local tiers to read (default: all three, as the CLI
    /// does). The flag and managed tiers are read whatever this says.
    pub fn setting_sources(mut self, sources: impl IntoIterator<Item = SettingSource>) -> Self {
        self.sources = Some(sources.into_iter().collect());
        self
    }

    /// The CLI's config home, where the user's `settings.json` is (default:
    /// `CLAUDE_CONFIG_DIR`, else `<home>/.claude`).
    pub fn config_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.config_dir = Some(dir.into());
        self
    }

    /// The home directory (default: `HOME`), for the config home when no `config_dir` is given.
    pub fn home(mut self, home: impl Into<PathBuf>) -> Self {
        self.home = Some(home.into());
        self
    }

    /// Where the managed tier's files are (default: `/etc/claude-code` on Linux,
    /// `/Library/Application Support/ClaudeCode` on macOS, `C:\Program Files\ClaudeCode` on
    /// Windows).
    pub fn managed_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.managed_dir = Some(dir.into());
        self
    }

    /// The flag tier: what the session's `--settings` gives
    /// ([`Options::typed_settings`](crate::options::Options::typed_settings)).
    pub fn flag_settings(mut self, settings: Settings) -> Self {
        self.flag = Some(settings);
        self
    }

    /// Server-managed settings (what `/api/claude_code/settings` returned to the host): when
    /// given, they are the managed tier, ahead of the managed files.
    pub fn server_managed_settings(mut self, settings: Settings) -> Self {
        self.server_managed = Some(settings);
        self
    }
}

/// Why [`resolve_settings`] failed: a settings file that exists but cannot be read or is not
/// valid settings, named. A file that does not exist is no error: its tier is empty.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ResolveSettingsError {
    /// The file exists but could not be read.
    #[error("cannot read the settings file {path}: {error}")]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        error: io::Error,
    },
    /// The file is not JSON, or a value in it has the wrong type.
    #[error("the settings file {path} is not valid: {error}")]
    Malformed {
        /// The file.
        path: PathBuf,
        /// What is wrong, and where in the file.
        error: SettingsError,
    },
    /// Neither a config directory, `CLAUDE_CONFIG_DIR` nor `HOME` says where the user's
    /// settings are, and the user tier was asked for.
    #[error("no config home: set CLAUDE_CONFIG_DIR or HOME, or ResolveSettings::config_dir")]
    NoConfigHome,
}

/// Reads the settings tiers the CLI reads and merges them in the CLI's precedence: the
/// TypeScript SDK's `resolveSettings`. It reads a handful of small files with blocking I/O.
///
/// The tiers, lowest precedence first (the CLI 2.1.332's order): user
/// (`$CLAUDE_CONFIG_DIR/settings.json`, else `~/.claude/settings.json`), project
/// (`<cwd>/.claude/settings.json`), local (`<cwd>/.claude/settings.local.json`), flag and
/// managed. Objects merge key by key, lists are concatenated without duplicates, anything else
/// is replaced by the higher tier. [`ResolvedSettings::provenance`] names the tier (and file)
/// each top-level key came from.
///
/// The managed tier is one source, not a merge of several: server-managed settings when given
/// ([`ResolveSettings::server_managed_settings`]), else `managed-settings.json` of the managed
/// directory (`/etc/claude-code` on Linux) with the drop-ins of `managed-settings.d/`
/// (`*.json`, in name order) merged over it. Not read here: macOS configuration profiles and
/// the Windows registry (MDM, not applicable on Linux), the CLI's cached server-managed settings
/// (`remote-settings.json`, which the CLI takes only with a verified signature: pass a fresh
/// copy instead), an administrator's `policyHelper` (a program this does not run), and the
/// host's own [`Options::managed_settings`](crate::options::Options::managed_settings), which
/// the CLI filters to its restrictive keys.
///
/// ```
/// use claude_tools::settings::{ResolveSettings, ResolvedSettingSource, resolve_settings};
///
/// # let dir = std::env::temp_dir().join(format!("resolve-doc-{}", std::process::id()));
/// # std::fs::create_dir_all(dir.join("home/.claude")).unwrap();
/// # std::fs::create_dir_all(dir.join("work/.claude")).unwrap();
/// # std::fs::write(dir.join("home/.claude/settings.json"), r#"{"model":"sonnet"}"#).unwrap();
/// # std::fs::write(dir.join("work/.claude/settings.json"), r#"{"model":"opus"}"#).unwrap();
/// let resolved = resolve_settings(
///     &ResolveSettings::new()
///         .home(dir.join("home"))
///         .cwd(dir.join("work"))
///         .managed_dir(dir.join("no-policy")),
/// )?;
/// // The project's settings win over the user's.
/// assert_eq!(resolved.effective.model.as_deref(), Some("opus"));
/// assert_eq!(resolved.provenance["model"].source, ResolvedSettingSource::Project);
/// # std::fs::remove_dir_all(&dir).unwrap();
/// # Ok::<(), claude_tools::settings::ResolveSettingsError>(())
/// ```
pub fn resolve_settings(
    options: &ResolveSettings,
) -> Result<ResolvedSettings, ResolveSettingsError> {
    let sources = options.sources.clone().unwrap_or_else(|| {
        vec![
            SettingSource::User,
            SettingSource::Project,
            SettingSource::Local,
        ]
    });
    let cwd = match &options.cwd {
        Some(cwd) => cwd.clone(),
        None => std::env::current_dir().map_err(|error| ResolveSettingsError::Read {
            path: PathBuf::from("."),
            error,
        })?,
    };
    let mut tiers: Vec<SourcedSettings> = Vec::new();
    let mut push = |source, settings: Option<Settings>, path: Option<&Path>, origin| {
        if let Some(settings) = settings.filter(|settings| *settings != Settings::default()) {
            let mut sourced = SourcedSettings::new(source, settings);
            sourced.path = path.map(|path| path.display().to_string());
            sourced.policy_origin = origin;
            tiers.push(sourced);
        }
    };
    if sources.contains(&SettingSource::User) {
        let path = config_home(options)?.join("settings.json");
        push(ResolvedSettingSource::User, read(&path)?, Some(&path), None);
    }
    for (source, tier, file) in [
        (
            SettingSource::Project,
            ResolvedSettingSource::Project,
            "settings.json",
        ),
        (
            SettingSource::Local,
            ResolvedSettingSource::Local,
            "settings.local.json",
        ),
    ] {
        if sources.contains(&source) {
            let path = cwd.join(".claude").join(file);
            push(tier, read(&path)?, Some(&path), None);
        }
    }
    push(
        ResolvedSettingSource::Flag,
        options.flag.clone(),
        None,
        None,
    );
    match &options.server_managed {
        Some(remote) => push(
            ResolvedSettingSource::Managed,
            Some(remote.clone()),
            None,
            Some(PolicyOrigin::Remote),
        ),
        None => {
            let dir = options
                .managed_dir
                .clone()
                .unwrap_or_else(default_managed_dir);
            let path = dir.join("managed-settings.json");
            push(
                ResolvedSettingSource::Managed,
                read_managed(&dir)?,
                Some(&path),
                Some(PolicyOrigin::File),
            );
        }
    }

    let mut merged = Value::Object(Map::new());
    for tier in &tiers {
        merge(&mut merged, tier.settings.to_value());
    }
    // Each tier read as `Settings`; their merge is one too.
    let effective =
        Settings::from_value(&merged).map_err(|error| ResolveSettingsError::Malformed {
            path: PathBuf::from("(the merged settings)"),
            error,
        })?;
    let mut resolved = ResolvedSettings::new(effective, Vec::new());
    if let Value::Object(keys) = &merged {
        for key in keys.keys() {
            let from = tiers.iter().rev().find(
                |tier| matches!(tier.settings.to_value().get(key), Some(value) if !value.is_null()),
            );
            if let Some(tier) = from {
                resolved.provenance.insert(
                    key.clone(),
                    ProvenanceEntry {
                        source: tier.source.clone(),
                        path: tier.path.clone(),
                        policy_origin: tier.policy_origin.clone(),
                    },
                );
            }
        }
    }
    resolved.sources = tiers;
    Ok(resolved)
}

/// The user tier's folder: the given config dir, `CLAUDE_CONFIG_DIR`, or `<home>/.claude`.
fn config_home(options: &ResolveSettings) -> Result<PathBuf, ResolveSettingsError> {
    if let Some(dir) = &options.config_dir {
        return Ok(dir.clone());
    }
    if options.home.is_none()
        && let Some(dir) = std::env::var_os("CLAUDE_CONFIG_DIR").filter(|dir| !dir.is_empty())
    {
        return Ok(PathBuf::from(dir));
    }
    options
        .home
        .clone()
        .or_else(|| {
            std::env::var_os("HOME")
                .filter(|home| !home.is_empty())
                .map(PathBuf::from)
        })
        .map(|home| home.join(".claude"))
        .ok_or(ResolveSettingsError::NoConfigHome)
}

/// Where the CLI looks for the managed files on this platform.
fn default_managed_dir() -> PathBuf {
    if cfg!(target_os = "macos") {
        PathBuf::from("/Library/Application Support/ClaudeCode")
    } else if cfg!(windows) {
        PathBuf::from(r"C:\Program Files\ClaudeCode")
    } else {
        PathBuf::from("/etc/claude-code")
    }
}

/// One settings file: `None` when it does not exist or holds only whitespace.
fn read(path: &Path) -> Result<Option<Settings>, ResolveSettingsError> {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(error) if error.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(error) => {
            return Err(ResolveSettingsError::Read {
                path: path.to_path_buf(),
                error,
            });
        }
    };
    if text.trim().is_empty() {
        return Ok(None);
    }
    Settings::from_json(&text)
        .map(Some)
        .map_err(|error| ResolveSettingsError::Malformed {
            path: path.to_path_buf(),
            error,
        })
}

/// The managed file with its drop-ins (`managed-settings.d/*.json`, in name order, hidden
/// files left out) merged over it.
fn read_managed(dir: &Path) -> Result<Option<Settings>, ResolveSettingsError> {
    let mut parts = Vec::new();
    if let Some(base) = read(&dir.join("managed-settings.json"))? {
        parts.push(base);
    }
    let drop_ins = dir.join("managed-settings.d");
    let mut names: Vec<String> = match std::fs::read_dir(&drop_ins) {
        Ok(entries) => entries
            .filter_map(|entry| entry.ok())
            .filter_map(|entry| entry.file_name().into_string().ok())
            .filter(|name| name.ends_with(".json") && !name.starts_with('.'))
            .collect(),
        Err(error) if error.kind() == io::ErrorKind::NotFound => Vec::new(),
        Err(error) => {
            return Err(ResolveSettingsError::Read {
                path: drop_ins,
                error,
            });
        }
    };
    names.sort();
    for name in names {
        let path = drop_ins.join(name);
        if path.is_file()
            && let Some(part) = read(&path)?
        {
            parts.push(part);
        }
    }
    if parts.is_empty() {
        return Ok(None);
    }
    let mut merged = Value::Object(Map::new());
    for part in &parts {
        merge(&mut merged, part.to_value());
    }
    Settings::from_value(&merged)
        .map(Some)
        .map_err(|error| ResolveSettingsError::Malformed {
            path: drop_ins,
            error,
        })
}

/// Merges `over` into `base` as the CLI does: objects key by key, lists concatenated without
/// duplicates, anything else replaced.
fn merge(base: &mut Value, over: Value) {
    match (base, over) {
        (Value::Object(base), Value::Object(over)) => {
            for (key, value) in over {
                match base.get_mut(&key) {
                    Some(existing) => merge(existing, value),
                    None => {
                        base.insert(key, value);
                    }
                }
            }
        }
        (Value::Array(base), Value::Array(over)) => {
            for item in over {
                if !base.contains(&item) {
                    base.push(item);
                }
            }
        }
        (base, over) => *base = over,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn lists_are_concatenated_without_duplicates_and_objects_merge_by_key() {
        let mut base = json!({"permissions": {"allow": ["Read", "Bash(ls)"], "defaultMode": "default"}, "model": "a"});
        merge(
            &mut base,
            json!({"permissions": {"allow": ["Bash(ls)", "Edit"], "defaultMode": "plan"}, "model": "b"}),
        );
        assert_eq!(
            base,
            json!({"permissions": {"allow": ["Read", "Bash(ls)", "Edit"], "defaultMode": "plan"}, "model": "b"})
        );
    }
}
