//! Policy helpers over settings: the CLI's trust filter on escalating permission modes
//! ([`filter_escalating_default_mode`]) and the `deniedModels` check ([`match_denied_models`]),
//! as the TypeScript SDK 0.3.332 exports them.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::Settings;
use crate::wire_enum::wire_enum;

wire_enum! {
    /// A tier of the settings cascade (the TypeScript SDK's `ResolvedSettingSource`): the
    /// settings files, the `--settings` flag and the managed (policy) tier.
    pub enum ResolvedSettingSource {
        /// `user`: `~/.claude/settings.json`.
        User = "user",
        /// `project`: `.claude/settings.json`, committed with the repository.
        Project = "project",
        /// `local`: `.claude/settings.local.json`.
        Local = "local",
        /// `flag`: `--settings` ([`Options::settings`](crate::options::Options::settings)).
        Flag = "flag",
        /// `managed`: managed settings (the policy tier).
        Managed = "managed",
    }
}

wire_enum! {
    /// Which source of the managed tier supplied its settings (the TypeScript SDK's
    /// `PolicySettingsOrigin`). On Linux only `remote` and `file` occur; the others are macOS's
    /// and Windows' MDM sources, an administrator's helper program and the host's own managed
    /// settings.
    pub enum PolicyOrigin {
        /// `helper`: an administrator's `policyHelper` program.
        Helper = "helper",
        /// `remote`: server-managed settings.
        Remote = "remote",
        /// `plist`: a macOS configuration profile.
        Plist = "plist",
        /// `hklm`: the Windows machine registry.
        Hklm = "hklm",
        /// `file`: `managed-settings.json` and its `managed-settings.d/` drop-ins.
        File = "file",
        /// `parent`: the host's managed settings.
        Parent = "parent",
        /// `hkcu`: the Windows user registry.
        Hkcu = "hkcu",
    }
}

/// Where one top-level key of the effective settings came from (the TypeScript SDK's
/// `ProvenanceEntry`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ProvenanceEntry {
    /// The tier.
    pub source: ResolvedSettingSource,
    /// The file, for a tier read from one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// Which managed source, for the managed tier.
    #[serde(
        rename = "policyOrigin",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub policy_origin: Option<PolicyOrigin>,
}

/// The settings one tier contributed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct SourcedSettings {
    /// The tier.
    pub source: ResolvedSettingSource,
    /// Its settings as written.
    pub settings: Settings,
    /// The file they came from, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// Which managed source, for the managed tier.
    #[serde(
        rename = "policyOrigin",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub policy_origin: Option<PolicyOrigin>,
}

impl SourcedSettings {
    /// `settings` from `source`.
    pub fn new(source: ResolvedSettingSource, settings: Settings) -> Self {
        SourcedSettings {
            source,
            settings,
            path: None,
            policy_origin: None,
        }
    }
}

/// The settings cascade resolved (the TypeScript SDK's `ResolvedSettings`, which its
/// `resolveSettings` returns): the merged settings and what each tier contributed.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ResolvedSettings {
    /// The merged settings.
    pub effective: Settings,
    /// For each top-level key of `effective`, the tier that supplied it.
    #[serde(default)]
    pub provenance: BTreeMap<String, ProvenanceEntry>,
    /// Each tier's settings, lowest precedence first.
    #[serde(default)]
    pub sources: Vec<SourcedSettings>,
}

impl ResolvedSettings {
    /// `effective`, merged from `sources` (lowest precedence first), with no provenance.
    pub fn new(effective: Settings, sources: Vec<SourcedSettings>) -> Self {
        ResolvedSettings {
            effective,
            provenance: BTreeMap::new(),
            sources,
        }
    }
}

/// The effective settings with `permissions.defaultMode` dropped where the CLI would not honour
/// it: an escalating mode set by a tier the repository controls. The tier that decides is the
/// highest-precedence one setting `defaultMode`; `bypassPermissions` and `auto` are not taken
/// from `project` or `local` settings, `acceptEdits` not from `project` settings. Every other
/// case returns `effective` unchanged.
///
/// ```
/// use claude_tools::options::PermissionMode;
/// use claude_tools::settings::{
///     filter_escalating_default_mode, Permissions, ResolvedSettingSource, ResolvedSettings,
///     Settings, SourcedSettings,
/// };
///
/// let from_repo = Settings::new()
///     .permissions(Permissions::new().default_mode(PermissionMode::BypassPermissions));
/// let resolved = ResolvedSettings::new(
///     from_repo.clone(),
///     vec![SourcedSettings::new(ResolvedSettingSource::Project, from_repo)],
/// );
/// let honoured = filter_escalating_default_mode(&resolved);
/// assert_eq!(honoured.permissions.unwrap().default_mode, None);
/// ```
pub fn filter_escalating_default_mode(resolved: &ResolvedSettings) -> Settings {
    let effective = &resolved.effective;
    let Some(mode) = effective
        .permissions
        .as_ref()
        .and_then(|permissions| permissions.default_mode.as_ref())
    else {
        return effective.clone();
    };
    if !mode.is_escalating() {
        return effective.clone();
    }
    let decided_by = resolved.sources.iter().rev().find(|sourced| {
        sourced
            .settings
            .permissions
            .as_ref()
            .is_some_and(|permissions| permissions.default_mode.is_some())
    });
    let Some(decided_by) = decided_by else {
        return effective.clone();
    };
    let untrusted = match mode {
        super::DefaultMode::BypassPermissions | super::DefaultMode::Auto => matches!(
            decided_by.source,
            ResolvedSettingSource::Project | ResolvedSettingSource::Local
        ),
        _ => decided_by.source == ResolvedSettingSource::Project,
    };
    let mut honoured = effective.clone();
    if untrusted && let Some(permissions) = honoured.permissions.as_mut() {
        permissions.default_mode = None;
    }
    honoured
}

/// What [`match_denied_models`] answers.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct DeniedModelsMatch {
    /// For each model asked about, in order: whether an entry blocks it.
    pub denied: Vec<bool>,
    /// Notes: entries ignored and why, models asked about that are no model name.
    pub warnings: Vec<String>,
}

/// Which of `models` a managed `deniedModels` list blocks, without starting the CLI.
///
/// An entry that is a family alias (`opus`) blocks the family; a model id blocks that version
/// in every spelling (dates, `-fast`, `-latest`, provider prefixes such as `us.anthropic.` or a
/// gateway route, Bedrock's `-v1:0` and Vertex's `@date` are ignored); an id without a minor
/// version (`claude-opus-5`) also blocks its minor versions. Aliases whose model depends on the
/// release or settings (`best`, `opusplan`, `default`) are ignored, with a warning. Anything
/// else is compared as written, ignoring case.
///
/// **Not the CLI's enforcement: grant nothing by it.** `true` means the CLI refuses the model
/// too; `false` promises nothing (the CLI also judges what an alias or a custom name stands
/// for, and `modelOverrides`).
///
/// ```
/// use claude_tools::settings::match_denied_models;
///
/// let denied = ["opus".to_string(), "claude-sonnet-4-5".to_string()];
/// let answer = match_denied_models(
///     &["claude-opus-4-7", "claude-sonnet-4-5-20250929", "claude-sonnet-4-6", "claude-haiku-4-5"],
///     Some(&denied),
/// );
/// assert_eq!(answer.denied, [true, true, false, false]);
/// ```
pub fn match_denied_models(models: &[&str], denied_models: Option<&[String]>) -> DeniedModelsMatch {
    let mut warnings = Vec::new();
    let entries: Vec<Entry> = denied_models
        .unwrap_or_default()
        .iter()
        .filter_map(|entry| match Entry::parse(entry) {
            Entry::Ignored(reason) => {
                warnings.push(format!(
                    "deniedModels entry {entry:?} was ignored: {reason}"
                ));
                None
            }
            parsed => Some(parsed),
        })
        .collect();
    let denied = models
        .iter()
        .map(|model| {
            let normalized = normalize(model);
            let parsed = ModelId::parse(&normalized);
            if parsed.is_none() && !is_family(&normalized) {
                warnings.push(format!("{model:?} is no model name this check knows"));
            }
            entries
                .iter()
                .any(|entry| entry.blocks(&normalized, parsed.as_ref()))
        })
        .collect();
    DeniedModelsMatch { denied, warnings }
}

const FAMILIES: [&str; 3] = ["opus", "sonnet", "haiku"];
/// Aliases whose model depends on the release or the settings: no entry can pin them.
const MOVING_ALIASES: [&str; 3] = ["best", "opusplan", "default"];

fn is_family(name: &str) -> bool {
    FAMILIES.contains(&name)
}

/// Lower case, without a route (`gateway/…`), a provider prefix (`us.anthropic.`), Bedrock's
/// `-v1:0` or Vertex's `@20250929`.
fn normalize(model: &str) -> String {
    let mut model = model.trim().to_lowercase();
    if let Some(at) = model.rfind('/') {
        model = model[at + 1..].to_owned();
    }
    if let Some(at) = model.find("anthropic.") {
        model = model[at + "anthropic.".len()..].to_owned();
    }
    if let Some(at) = model.find('@') {
        model.truncate(at);
    }
    if let Some(at) = model.rfind("-v")
        && model[at + 2..].contains(':')
    {
        model.truncate(at);
    }
    model
}

/// A model id read as family and version.
#[derive(Debug, PartialEq)]
struct ModelId {
    family: String,
    major: u32,
    minor: Option<u32>,
}

impl ModelId {
    /// `claude-opus-4-5[-20251101][-fast]` or the older `claude-3-5-sonnet[-20241022]`.
    fn parse(normalized: &str) -> Option<ModelId> {
        let rest = normalized.strip_prefix("claude-")?;
        let parts: Vec<&str> = rest
            .split('-')
            // A date, `fast` and `latest` do not change the version.
            .filter(|part| !(part.len() == 8 && part.bytes().all(|b| b.is_ascii_digit())))
            .filter(|part| !matches!(*part, "fast" | "latest"))
            .collect();
        let family_at = parts.iter().position(|part| is_family(part))?;
        let numbers: Vec<u32> = parts
            .iter()
            .enumerate()
            .filter(|(at, _)| *at != family_at)
            .map(|(_, part)| part.parse().ok())
            .collect::<Option<_>>()?;
        let (&major, minor) = numbers.split_first()?;
        if minor.len() > 1 {
            return None;
        }
        Some(ModelId {
            family: parts[family_at].to_owned(),
            major,
            minor: minor.first().copied(),
        })
    }
}

/// A `deniedModels` entry, read.
enum Entry {
    Ignored(&'static str),
    Family(String),
    Model(ModelId),
    Literal(String),
}

impl Entry {
    fn parse(entry: &str) -> Entry {
        let normalized = normalize(entry);
        if normalized.is_empty() {
            return Entry::Ignored("it is empty");
        }
        if MOVING_ALIASES.contains(&normalized.as_str()) {
            return Entry::Ignored("its model depends on the release and the settings");
        }
        let bare = normalized.strip_prefix("claude-").unwrap_or(&normalized);
        if is_family(bare) {
            return Entry::Family(bare.to_owned());
        }
        let spelled = if normalized.starts_with("claude-") {
            normalized.clone()
        } else {
            format!("claude-{normalized}")
        };
        match ModelId::parse(&spelled) {
            Some(id) => Entry::Model(id),
            None => Entry::Literal(normalized),
        }
    }

    fn blocks(&self, normalized: &str, model: Option<&ModelId>) -> bool {
        match (self, model) {
            (Entry::Family(family), Some(model)) => model.family == *family,
            (Entry::Family(family), None) => normalized == family,
            (Entry::Model(entry), Some(model)) => {
                entry.family == model.family
                    && entry.major == model.major
                    && entry
                        .minor
                        .is_none_or(|minor| model.minor.unwrap_or(0) == minor)
            }
            (Entry::Literal(literal), _) => normalized == literal,
            _ => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn denied(entries: &[&str], models: &[&str]) -> Vec<bool> {
        let entries: Vec<String> = entries.iter().map(|e| e.to_string()).collect();
        match_denied_models(models, Some(&entries)).denied
    }

    #[test]
    fn a_model_id_blocks_every_spelling_of_its_version() {
        let spellings = [
            "claude-opus-4-5",
            "claude-opus-4-5-20251101",
            "claude-opus-4-5-fast",
            "us.anthropic.claude-opus-4-5-20251101-v1:0",
            "claude-opus-4-5@20251101",
            "route/claude-opus-4-5",
            "CLAUDE-OPUS-4-5",
        ];
        assert_eq!(denied(&["claude-opus-4-5"], &spellings), [true; 7]);
        assert_eq!(
            denied(&["opus-4-5"], &["claude-opus-4-6", "claude-opus-4-5"]),
            [false, true]
        );
    }

    #[test]
    fn an_id_without_minor_blocks_its_minors_and_a_family_blocks_all() {
        assert_eq!(
            denied(
                &["claude-opus-5"],
                &[
                    "claude-opus-5",
                    "claude-opus-5-5",
                    "claude-opus-4-7",
                    "claude-sonnet-5"
                ]
            ),
            [true, true, false, false]
        );
        assert_eq!(
            denied(
                &["sonnet"],
                &["claude-3-5-sonnet-20241022", "claude-sonnet-4-6", "sonnet"]
            ),
            [true, true, true]
        );
    }

    #[test]
    fn moving_aliases_are_ignored_with_a_warning() {
        let entries = vec!["best".to_string(), "".to_string()];
        let answer = match_denied_models(&["claude-opus-4-7", "not a model"], Some(&entries));
        assert_eq!(answer.denied, [false, false]);
        assert_eq!(answer.warnings.len(), 3, "{:?}", answer.warnings);
        assert_eq!(
            match_denied_models(&["claude-opus-4-7"], None).denied,
            [false]
        );
    }
}
