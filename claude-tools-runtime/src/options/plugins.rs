//! Plugins (local directories, on the command line or in `initialize`: [`PluginDelivery`]) and
//! the skills the main session may use ([`Skills`]), as the TypeScript SDK 0.3.332 sends them.

use std::path::{Path, PathBuf};

use serde::Serialize;

use super::Options;

/// The skills the main session may use ([`Options::skills`]).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Skills {
    /// Every skill the CLI discovers (`allowedTools` gains `Skill`).
    All,
    /// Only these, by their canonical name: the skill's directory name, or `plugin:skill`
    /// (`allowedTools` gains `Skill(name)` for each, and the `initialize` request lists them).
    Only(Vec<String>),
}

impl Skills {
    /// Only the skills named.
    pub fn only<I, S>(names: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        Skills::Only(names.into_iter().map(Into::into).collect())
    }
}

/// How the plugins reach the CLI ([`Options::plugin_delivery`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum PluginDelivery {
    /// One `--plugin-dir` flag per plugin: the command line grows with the plugin count
    /// (Windows refuses one over 32,767 characters). The default, as in the TypeScript SDK.
    #[default]
    Argv,
    /// The list goes in the `initialize` request, over stdin (the CLI is launched with
    /// `--await-initialize`), so the command line does not depend on it; loading is otherwise
    /// the same. The CLI confirms it (`plugins_applied`); when it does not, connecting fails
    /// with [`Error::InitializeNotApplied`](crate::Error::InitializeNotApplied).
    Initialize,
}

/// A plugin directory to load ([`Options::plugin`]), as `initialize` lists it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
struct Plugin {
    #[serde(rename = "type")]
    kind: &'static str,
    path: PathBuf,
    /// Load its skills, hooks, agents and commands but not its MCP servers.
    #[serde(
        rename = "skipMcpDiscovery",
        skip_serializing_if = "std::ops::Not::not"
    )]
    skip_mcp_discovery: bool,
}

/// The plugins and skills of [`Options`].
#[derive(Debug, Clone, Default)]
pub(crate) struct PluginSettings {
    plugins: Vec<Plugin>,
    skills: Option<Skills>,
    delivery: PluginDelivery,
}

/// What the plugins room adds to the `initialize` request: the skills, when they are a list,
/// and the plugins, when they go there.
#[derive(Debug, Serialize)]
pub(crate) struct PluginsInitialize<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    skills: Option<&'a [String]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    plugins: Option<&'a [Plugin]>,
}

impl PluginsInitialize<'_> {
    /// Whether the plugins are in it (and the CLI must confirm it took them).
    pub(crate) fn has_plugins(&self) -> bool {
        self.plugins.is_some()
    }
}

impl PluginSettings {
    /// `--plugin-dir <path>` (or `--plugin-dir-no-mcp`) per plugin, in order; the `=` form for
    /// a path starting with `-`, as the TypeScript SDK writes it.
    pub(crate) fn flags(&self, mut flag: impl FnMut(String, Option<String>)) {
        if self.in_initialize() {
            return;
        }
        for plugin in &self.plugins {
            let name = if plugin.skip_mcp_discovery {
                "--plugin-dir-no-mcp"
            } else {
                "--plugin-dir"
            };
            let path = plugin.path.display().to_string();
            if path.len() > 1 && path.starts_with('-') {
                flag(format!("{name}={path}"), None);
            } else {
                flag(name.into(), Some(path));
            }
        }
    }

    /// The allowed-tools rules with those the skills need added (each once): `Skill` for all,
    /// `Skill(name)` for each one listed.
    pub(crate) fn allowed_tools(&self, rules: &[String]) -> Vec<String> {
        let mut rules = rules.to_vec();
        let added: Vec<String> = match &self.skills {
            None => Vec::new(),
            Some(Skills::All) => vec!["Skill".into()],
            Some(Skills::Only(names)) => {
                names.iter().map(|name| format!("Skill({name})")).collect()
            }
        };
        for rule in added {
            if !rules.contains(&rule) {
                rules.push(rule);
            }
        }
        rules
    }

    /// Whether the plugins go in `initialize` (so the CLI must await it).
    pub(crate) fn in_initialize(&self) -> bool {
        self.delivery == PluginDelivery::Initialize && !self.plugins.is_empty()
    }

    /// The `initialize` fields.
    pub(crate) fn initialize(&self) -> PluginsInitialize<'_> {
        let skills = match &self.skills {
            Some(Skills::Only(names)) => Some(names.as_slice()),
            _ => None,
        };
        let plugins = self.in_initialize().then_some(self.plugins.as_slice());
        PluginsInitialize { skills, plugins }
    }

    /// Every plugin directory must exist (relative paths are taken from `cwd`, where the CLI
    /// runs), and every skill name must be one a `Skill(...)` rule can hold.
    pub(crate) fn validate(&self, cwd: Option<&Path>) -> crate::Result<()> {
        let invalid = |message: String| Err(crate::Error::InvalidOptions(message));
        for plugin in &self.plugins {
            let path = match cwd {
                Some(cwd) if plugin.path.is_relative() => cwd.join(&plugin.path),
                _ => plugin.path.clone(),
            };
            if !path.is_dir() {
                return invalid(format!(
                    "Options::plugin: {} is not a directory",
                    path.display()
                ));
            }
        }
        if let Some(Skills::Only(names)) = &self.skills {
            for name in names {
                if let Some(problem) = skill_name_problem(name) {
                    return invalid(format!(
                        "Options::skills: invalid skill name {name:?}: {problem}"
                    ));
                }
            }
        }
        Ok(())
    }
}

/// Why `name` cannot be a skill's name in a `Skill(name)` rule, if it cannot: the TypeScript
/// SDK's checks.
fn skill_name_problem(name: &str) -> Option<&'static str> {
    Some(if name.trim().is_empty() {
        "it is empty"
    } else if name != name.trim() {
        "leading or trailing whitespace can never match (the Skill tool trims the name)"
    } else if name.contains(['(', ')', ',']) || name.chars().any(char::is_control) {
        "parentheses, commas and control characters are not allowed"
    } else if name == "*" {
        "use Skills::All to enable every skill"
    } else if name.ends_with(":*") || name.ends_with(" *") || name.ends_with("__*") {
        "wildcards are not allowed; list each skill by its exact name"
    } else if name.starts_with('/') {
        "a skill's name does not start with `/` (its directory name, or `plugin:skill`)"
    } else if name.contains("\\\\") {
        "consecutive backslashes would name a different skill in the permission rule"
    } else if name.ends_with('\\') {
        "it ends with an unpaired backslash"
    } else {
        return None;
    })
}

impl Options {
    /// Loads the plugin in this directory for the session (`--plugin-dir`): its commands,
    /// agents, skills, hooks and MCP servers. Adds to the list. The directory must exist (a
    /// relative path is taken from [`cwd`](Options::cwd)), or the session refuses to start with
    /// [`Error::InvalidOptions`](crate::Error::InvalidOptions).
    ///
    /// ```
    /// use claude_tools::options::Options;
    ///
    /// let args = Options::new()
    ///     .plugin("/opt/plugins/review")
    ///     .plugin_without_mcp("/opt/plugins/tickets")
    ///     .launch_spec()
    ///     .args;
    /// assert!(args.windows(2).any(|w| w == ["--plugin-dir", "/opt/plugins/review"]));
    /// assert!(args.windows(2).any(|w| w == ["--plugin-dir-no-mcp", "/opt/plugins/tickets"]));
    /// ```
    pub fn plugin(mut self, dir: impl Into<PathBuf>) -> Self {
        self.plugins.plugins.push(Plugin {
            kind: "local",
            path: dir.into(),
            skip_mcp_discovery: false,
        });
        self
    }

    /// Loads the plugin's skills, hooks, agents and commands but not its MCP servers
    /// (`--plugin-dir-no-mcp`): for a host that connects them itself. Otherwise like
    /// [`plugin`](Self::plugin).
    pub fn plugin_without_mcp(mut self, dir: impl Into<PathBuf>) -> Self {
        self.plugins.plugins.push(Plugin {
            kind: "local",
            path: dir.into(),
            skip_mcp_discovery: true,
        });
        self
    }

    /// How the plugins reach the CLI (default [`PluginDelivery::Argv`]): with
    /// [`PluginDelivery::Initialize`] they go in the `initialize` request instead of one
    /// `--plugin-dir` flag each, for a host with many plugins.
    ///
    /// ```
    /// use claude_tools::options::{Options, PluginDelivery};
    ///
    /// let args = Options::new()
    ///     .plugin("/opt/plugins/review")
    ///     .plugin_delivery(PluginDelivery::Initialize)
    ///     .launch_spec()
    ///     .args;
    /// assert!(!args.contains(&"--plugin-dir".to_string()));
    /// assert!(args.contains(&"--await-initialize".to_string()));
    /// ```
    pub fn plugin_delivery(mut self, delivery: PluginDelivery) -> Self {
        self.plugins.delivery = delivery;
        self
    }

    /// The skills the main session may use: [`Skills::All`] adds `Skill` to the allowed tools,
    /// [`Skills::Only`] adds `Skill(name)` for each and lists them in the `initialize` request,
    /// so that only those are shown to the model. Without this call the CLI's defaults apply
    /// (which is not "no skills").
    ///
    /// A filter of what the model sees, not a sandbox: the files of other skills stay readable.
    /// A name a permission rule cannot hold (empty, padded, with `(`, `)` or `,`, a wildcard,
    /// a leading `/`) is refused with [`Error::InvalidOptions`](crate::Error::InvalidOptions)
    /// when the session starts.
    ///
    /// ```
    /// use claude_tools::options::{Options, Skills};
    ///
    /// let args = Options::new()
    ///     .allowed_tools(["Read"])
    ///     .skills(Skills::only(["pdf", "docs:review"]))
    ///     .launch_spec()
    ///     .args;
    /// assert!(args.windows(2).any(|w| w == ["--allowedTools", "Read,Skill(pdf),Skill(docs:review)"]));
    /// ```
    pub fn skills(mut self, skills: Skills) -> Self {
        self.plugins.skills = Some(skills);
        self
    }
}

#[cfg(test)]
mod tests {
    use crate::options::*;

    fn flags(options: Options) -> Vec<String> {
        let args = options.launch_spec().args;
        // What comes between the fixed head (and the empty system prompt) and the input format.
        args[5..args.len() - 2].to_vec()
    }

    #[test]
    fn plugins_become_plugin_dir_flags_as_the_typescript_sdk_writes_them() {
        assert_eq!(
            flags(
                Options::new()
                    .plugin("./local")
                    .plugin_without_mcp("/abs/no-mcp")
                    .plugin("-odd")
            ),
            [
                "--plugin-dir",
                "./local",
                "--plugin-dir-no-mcp",
                "/abs/no-mcp",
                "--plugin-dir=-odd"
            ]
        );
    }

    #[test]
    fn plugins_delivered_in_initialize_leave_the_command_line_and_are_listed_there() {
        let options = Options::new()
            .plugin("./local")
            .plugin_without_mcp("/abs/no-mcp")
            .plugin_delivery(PluginDelivery::Initialize);
        let args = options.launch_spec().args;
        assert!(
            !args.iter().any(|arg| arg.starts_with("--plugin-dir")),
            "{args:?}"
        );
        assert!(args.contains(&"--await-initialize".to_string()), "{args:?}");
        assert_eq!(
            serde_json::to_string(&options.plugins.initialize()).unwrap(),
            r#"{"plugins":[{"type":"local","path":"./local"},{"type":"local","path":"/abs/no-mcp","skipMcpDiscovery":true}]}"#
        );
        assert!(options.plugins.initialize().has_plugins());
        // Without plugins nothing changes.
        let none = Options::new().plugin_delivery(PluginDelivery::Initialize);
        assert!(
            !none
                .launch_spec()
                .args
                .contains(&"--await-initialize".to_string())
        );
        assert_eq!(
            serde_json::to_string(&none.plugins.initialize()).unwrap(),
            "{}"
        );
        // On the command line (the default), none in `initialize`.
        let argv = Options::new().plugin("./local");
        assert_eq!(
            serde_json::to_string(&argv.plugins.initialize()).unwrap(),
            "{}"
        );
    }

    #[test]
    fn skills_add_their_rules_to_allowed_tools_once_and_a_list_goes_in_initialize() {
        let all = Options::new()
            .allowed_tools(["Read", "Skill"])
            .skills(Skills::All);
        assert_eq!(flags(all.clone()), ["--allowedTools", "Read,Skill"]);
        assert_eq!(
            flags(Options::new().skills(Skills::All)),
            ["--allowedTools", "Skill"]
        );
        assert_eq!(
            serde_json::to_string(&all.plugins.initialize()).unwrap(),
            "{}"
        );
        let some = Options::new().skills(Skills::only(["pdf", "a:b"]));
        assert_eq!(
            flags(some.clone()),
            ["--allowedTools", "Skill(pdf),Skill(a:b)"]
        );
        assert_eq!(
            serde_json::to_string(&some.plugins.initialize()).unwrap(),
            r#"{"skills":["pdf","a:b"]}"#
        );
        // Without the option: nothing.
        assert_eq!(flags(Options::new()), Vec::<String>::new());
    }

    #[test]
    fn a_missing_plugin_directory_or_a_bad_skill_name_is_refused_by_name() {
        let dir = std::env::temp_dir();
        Options::new().plugin(&dir).validate().unwrap();
        let error = Options::new()
            .plugin(dir.join("no-such-plugin-dir-4f1c"))
            .validate()
            .unwrap_err()
            .to_string();
        assert!(
            error.contains("no-such-plugin-dir-4f1c is not a directory"),
            "{error}"
        );
        // Relative to the CLI's working directory.
        let name = dir.file_name().unwrap().to_owned();
        let parent = dir.parent().unwrap().to_owned();
        Options::new().cwd(parent).plugin(name).validate().unwrap();
        for bad in [
            "", " pdf", "a(b)", "a,b", "*", "x:*", "/pdf", "a\\\\b", "a\\",
        ] {
            let error = Options::new()
                .skills(Skills::only([bad]))
                .validate()
                .unwrap_err()
                .to_string();
            assert!(
                error.contains("Options::skills: invalid skill name"),
                "{bad:?}: {error}"
            );
        }
        Options::new()
            .skills(Skills::only(["pdf", "plugin:skill"]))
            .validate()
            .unwrap();
    }
}
