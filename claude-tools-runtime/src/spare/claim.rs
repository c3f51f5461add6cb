//! What a claim can set ([`ClaimOptions`]), what the CLI answers ([`ClaimInfo`]), and the checks
//! made here before anything is sent.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Deserialize;
use serde_json::{Map, Value};

use super::error::NotClaimable;
use crate::options::{AgentDefinition, PermissionMode};
use crate::settings::Settings;

/// The environment variables a claim may carry: the CLI reads every other one while it starts,
/// so those belong in the spare's own [`Options::env`](crate::options::Options::env).
pub const CLAIMABLE_ENV_KEYS: [&str; 3] = [
    "CLAUDE_CODE_OAUTH_TOKEN",
    "CLAUDE_CODE_SESSION_ACCESS_TOKEN",
    "CLAUDE_CODE_HOST_SESSION_ID",
];

/// Settings keys that govern hooks. A parked spare has registered its hooks already, so a claim
/// cannot change them: they go in the spare's [`Options::typed_settings`](crate::options::Options::typed_settings).
pub const HOOK_SETTING_KEYS: [&str; 5] = [
    "hooks",
    "disableAllHooks",
    "allowManagedHooksOnly",
    "allowedHttpHookUrls",
    "httpHookAllowedEnvVars",
];

/// Overlay keys applied right behind the claim (they decide nothing the claim starts); every
/// other key is applied ahead of it, so it governs which of the folder's MCP servers and plugins
/// the claim starts.
const BEHIND_CLAIM_KEYS: [&str; 6] = [
    "model",
    "agent",
    "fastMode",
    "permissions",
    "availableModels",
    "disableAutoMode",
];

/// The per-session half of a session's options, given when a [`SpareProcess`](super::SpareProcess)
/// is claimed (the TypeScript SDK's `ClaimOptions`). Everything else (the executable, setting
/// sources, the environment the CLI reads at start, tools, MCP servers, hooks, the permission
/// callback, plugins, a main-thread agent) was fixed by [`prewarm`](super::prewarm).
///
/// ```
/// use claude_tools::options::PermissionMode;
/// use claude_tools::spare::ClaimOptions;
///
/// let claim = ClaimOptions::new("/home/me/project")
///     .model("claude-sonnet-4-5")
///     .permission_mode(PermissionMode::AcceptEdits)
///     .title("Fix the login bug");
/// # let _ = claim;
/// ```
#[derive(Debug, Clone)]
pub struct ClaimOptions {
    pub(crate) cwd: PathBuf,
    pub(crate) env: BTreeMap<String, String>,
    pub(crate) additional_directories: Vec<PathBuf>,
    pub(crate) model: Option<String>,
    pub(crate) permission_mode: Option<PermissionMode>,
    pub(crate) max_thinking_tokens: Option<Option<u32>>,
    pub(crate) settings: Option<Settings>,
    pub(crate) append_system_prompt: Option<String>,
    pub(crate) title: Option<String>,
    pub(crate) agents: BTreeMap<String, AgentDefinition>,
    pub(crate) workspace_trust: Option<PathBuf>,
}

impl ClaimOptions {
    /// A claim of the session whose working directory is `cwd` (a relative path resolves
    /// against this process's directory; `~/…` is expanded by the CLI).
    pub fn new(cwd: impl Into<PathBuf>) -> Self {
        ClaimOptions {
            cwd: cwd.into(),
            env: BTreeMap::new(),
            additional_directories: Vec::new(),
            model: None,
            permission_mode: None,
            max_thinking_tokens: None,
            settings: None,
            append_system_prompt: None,
            title: None,
            agents: BTreeMap::new(),
            workspace_trust: None,
        }
    }

    /// A per-session environment variable: only those of [`CLAIMABLE_ENV_KEYS`] (fresh tokens,
    /// the host's session id); any other is refused before the claim is sent.
    pub fn env(mut self, key: impl Into<String>, value: impl Into<String>) -> Self {
        self.env.insert(key.into(), value.into());
        self
    }

    /// Another directory the session may use (`--add-dir`); a relative one resolves against
    /// the claim's `cwd`, a missing one is skipped by the CLI.
    pub fn additional_directory(mut self, dir: impl Into<PathBuf>) -> Self {
        self.additional_directories.push(dir.into());
        self
    }

    /// The session's model, set right behind the claim. A model the CLI refuses does not stop
    /// the session: [`Claimed::not_applied`](super::Claimed::not_applied) says so.
    pub fn model(mut self, model: impl Into<String>) -> Self {
        self.model = Some(model.into());
        self
    }

    /// The session's permission mode, sent inside the claim: a mode the spare cannot take
    /// (`bypassPermissions` on a spare started without it, one the folder's settings disable)
    /// refuses the claim rather than running under another mode.
    pub fn permission_mode(mut self, mode: PermissionMode) -> Self {
        self.permission_mode = Some(mode);
        self
    }

    /// The model's thinking budget (`None`: the CLI's default), set right behind the claim.
    pub fn max_thinking_tokens(mut self, tokens: Option<u32>) -> Self {
        self.max_thinking_tokens = Some(tokens);
        self
    }

    /// A flag-tier settings overlay, applied as
    /// [`apply_typed_flag_settings`](crate::control::Controls::apply_typed_flag_settings) does.
    /// Keys that decide what the claim starts (MCP server and plugin policy…) are applied ahead
    /// of the claim; `model`, `agent`, `fastMode`, `permissions`, `availableModels` and
    /// `disableAutoMode` right behind it. The prompt is sent only once the CLI took them all.
    /// Keys that govern hooks ([`HOOK_SETTING_KEYS`]) are refused before anything is sent.
    pub fn settings(mut self, settings: Settings) -> Self {
        self.settings = Some(settings);
        self
    }

    /// Text appended to the system prompt.
    pub fn append_system_prompt(mut self, text: impl Into<String>) -> Self {
        self.append_system_prompt = Some(text.into());
        self
    }

    /// The session's title.
    pub fn title(mut self, title: impl Into<String>) -> Self {
        self.title = Some(title.into());
        self
    }

    /// A subagent for the session, under `name`.
    pub fn agent(mut self, name: impl Into<String>, agent: AgentDefinition) -> Self {
        self.agents.insert(name.into(), agent);
        self
    }

    /// Attests that the user accepted the workspace trust dialog for `directory` (the
    /// TypeScript SDK's `workspaceTrust: {accepted: true, directory}`), so the CLI records the
    /// folder as trusted and the claimed session honours its project settings; the answer says
    /// whether it did ([`ClaimInfo::workspace_trust_recorded`]). `directory` must be absolute,
    /// as it is where the CLI runs: a relative one is refused before anything is sent
    /// ([`NotClaimable::RelativeTrustDirectory`]; the TypeScript SDK drops it with a warning).
    /// Only attest what the user did accept: a trusted folder's hooks and MCP servers run.
    ///
    /// ```
    /// use claude_tools::spare::ClaimOptions;
    ///
    /// // The host showed its own trust prompt for the folder, and the user accepted it.
    /// let claim = ClaimOptions::new("/home/me/project").workspace_trust("/home/me/project");
    /// # let _ = claim;
    /// ```
    pub fn workspace_trust(mut self, directory: impl Into<PathBuf>) -> Self {
        self.workspace_trust = Some(directory.into());
        self
    }

    /// What the claim would send, checked: the settings overlay split into the keys applied
    /// ahead of the claim and those applied behind it. Refuses what a claim cannot carry.
    pub(crate) fn check(&self) -> Result<CheckedClaim, NotClaimable> {
        if let Some(key) = self
            .env
            .keys()
            .find(|key| !CLAIMABLE_ENV_KEYS.contains(&key.as_str()))
        {
            return Err(NotClaimable::EnvKey(key.clone()));
        }
        let cwd = resolve_cwd(&self.cwd)?;
        let mut additional_directories = Vec::with_capacity(self.additional_directories.len());
        for dir in &self.additional_directories {
            let text = dir
                .to_str()
                .ok_or_else(|| NotClaimable::NotUtf8(dir.clone()))?;
            additional_directories.push(text.to_owned());
        }
        let workspace_trust = match &self.workspace_trust {
            None => None,
            Some(directory) if !directory.is_absolute() => {
                return Err(NotClaimable::RelativeTrustDirectory(directory.clone()));
            }
            Some(directory) => Some(WorkspaceTrust {
                accepted: true,
                directory: directory
                    .to_str()
                    .ok_or_else(|| NotClaimable::NotUtf8(directory.clone()))?
                    .to_owned(),
            }),
        };
        let (ahead, behind) = match &self.settings {
            None => (None, None),
            Some(settings) => {
                let Value::Object(mut all) = settings.to_value() else {
                    return Err(NotClaimable::HookSettings(Vec::new()));
                };
                let hooks: Vec<String> = HOOK_SETTING_KEYS
                    .iter()
                    .filter(|key| all.get(**key).is_some_and(|value| !value.is_null()))
                    .map(|key| (*key).to_owned())
                    .collect();
                if !hooks.is_empty() {
                    return Err(NotClaimable::HookSettings(hooks));
                }
                let mut behind = Map::new();
                for key in BEHIND_CLAIM_KEYS {
                    if let Some(value) = all.remove(key) {
                        behind.insert(key.to_owned(), value);
                    }
                }
                (
                    (!all.is_empty()).then_some(Value::Object(all)),
                    (!behind.is_empty()).then_some(Value::Object(behind)),
                )
            }
        };
        Ok(CheckedClaim {
            cwd,
            additional_directories,
            ahead,
            behind,
            workspace_trust,
        })
    }
}

/// A claim that passed [`ClaimOptions::check`].
pub(crate) struct CheckedClaim {
    pub(crate) cwd: String,
    pub(crate) additional_directories: Vec<String>,
    /// Settings applied ahead of the claim.
    pub(crate) ahead: Option<Value>,
    /// Settings applied behind it.
    pub(crate) behind: Option<Value>,
    /// The trust attestation, checked.
    pub(crate) workspace_trust: Option<WorkspaceTrust>,
}

/// The claim's `workspace_trust`: the user accepted the trust dialog for `directory`.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub(crate) struct WorkspaceTrust {
    pub(crate) accepted: bool,
    pub(crate) directory: String,
}

/// The claim's `cwd` as the CLI takes it: absolute, or `~`-relative for the CLI to expand.
fn resolve_cwd(cwd: &Path) -> Result<String, NotClaimable> {
    let text = cwd
        .to_str()
        .ok_or_else(|| NotClaimable::NotUtf8(cwd.to_path_buf()))?;
    if text.trim().is_empty() {
        return Err(NotClaimable::EmptyCwd);
    }
    if cwd.is_absolute() || text == "~" || text.starts_with("~/") {
        return Ok(text.to_owned());
    }
    let absolute = std::path::absolute(cwd).map_err(|_| NotClaimable::EmptyCwd)?;
    absolute
        .to_str()
        .map(str::to_owned)
        .ok_or(NotClaimable::NotUtf8(absolute))
}

/// What the CLI answered a successful claim: where and as which session it now runs.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct ClaimInfo {
    /// The canonical (real) working directory the session runs in; `None` when the CLI does
    /// not echo it (a path with invisible characters).
    pub cwd: Option<String>,
    /// The session's id.
    pub session_id: String,
    /// How long the spare was parked before the claim.
    pub parked: Option<Duration>,
    /// Whether the in-process MCP servers' handshakes had finished when the claim arrived
    /// (`false`: the first turn still waits for them).
    pub sdk_mcp_settled: bool,
    /// Whether the claimed folder is now recorded as trusted, when the claim carried a trust
    /// attestation.
    pub workspace_trust_recorded: Option<bool>,
}

/// The claim's answer as the CLI writes it.
#[derive(Debug, Deserialize)]
pub(crate) struct ClaimAnswer {
    #[serde(default)]
    cwd: Option<String>,
    session_id: String,
    #[serde(default)]
    parked_ms: Option<f64>,
    #[serde(default)]
    sdk_mcp_settled: bool,
    /// The `initialize`-shaped payload of the claimed folder (asked for with
    /// `include_initialize`).
    #[serde(default)]
    pub(crate) initialize: Option<Value>,
    #[serde(default)]
    workspace_trust_recorded: Option<bool>,
}

impl ClaimAnswer {
    pub(crate) fn info(&self) -> ClaimInfo {
        ClaimInfo {
            cwd: self.cwd.clone(),
            session_id: self.session_id.clone(),
            parked: self
                .parked_ms
                .and_then(|ms| Duration::try_from_secs_f64(ms / 1000.0).ok()),
            sdk_mcp_settled: self.sdk_mcp_settled,
            workspace_trust_recorded: self.workspace_trust_recorded,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_trust_attestation_needs_an_absolute_directory() {
        let claim = ClaimOptions::new("/tmp").workspace_trust("project");
        assert_eq!(
            claim.check().err(),
            Some(NotClaimable::RelativeTrustDirectory("project".into()))
        );
        let checked = ClaimOptions::new("/tmp")
            .workspace_trust("/srv/project")
            .check()
            .unwrap();
        assert_eq!(
            serde_json::to_value(checked.workspace_trust).unwrap(),
            json!({"accepted": true, "directory": "/srv/project"})
        );
    }

    #[test]
    fn an_env_key_outside_the_allow_list_is_refused() {
        let claim = ClaimOptions::new("/tmp").env("ANTHROPIC_BASE_URL", "http://x");
        assert_eq!(
            claim.check().err(),
            Some(NotClaimable::EnvKey("ANTHROPIC_BASE_URL".into()))
        );
        let claim = ClaimOptions::new("/tmp").env("CLAUDE_CODE_HOST_SESSION_ID", "h1");
        assert!(claim.check().is_ok());
    }

    #[test]
    fn hook_settings_are_refused_and_the_overlay_is_split_around_the_claim() {
        let hooks = Settings::from_json(r#"{"disableAllHooks":true}"#).unwrap();
        let claim = ClaimOptions::new("/tmp").settings(hooks);
        assert_eq!(
            claim.check().err(),
            Some(NotClaimable::HookSettings(vec!["disableAllHooks".into()]))
        );

        let overlay =
            Settings::from_json(r#"{"model":"opus","deniedMcpServers":[{"serverName":"x"}]}"#)
                .unwrap();
        let checked = ClaimOptions::new("/tmp").settings(overlay).check().unwrap();
        assert_eq!(
            checked.ahead,
            Some(json!({"deniedMcpServers":[{"serverName":"x"}]}))
        );
        assert_eq!(checked.behind, Some(json!({"model":"opus"})));
    }

    #[test]
    fn a_relative_cwd_resolves_against_this_process_and_a_tilde_is_left_to_the_cli() {
        let checked = ClaimOptions::new("some/dir").check().unwrap();
        let here = std::env::current_dir().unwrap();
        assert_eq!(checked.cwd, here.join("some/dir").to_str().unwrap());
        assert_eq!(ClaimOptions::new("~/p").check().unwrap().cwd, "~/p");
        assert_eq!(
            ClaimOptions::new(" ").check().err(),
            Some(NotClaimable::EmptyCwd)
        );
    }

    #[test]
    fn the_answer_reads_its_parked_time_as_a_duration() {
        let answer: ClaimAnswer = serde_json::from_value(json!({
            "status": "ok", "cwd": "/w", "session_id": "s1", "parked_ms": 1500,
            "sdk_mcp_settled": true
        }))
        .unwrap();
        let info = answer.info();
        assert_eq!(info.parked, Some(Duration::from_millis(1500)));
        assert_eq!(info.session_id, "s1");
        assert!(info.sdk_mcp_settled);
    }
}
