//! The smaller launch settings of the TypeScript SDK 0.3.332's `Options` that each become one
//! flag or one environment variable: debug logging (`debug`, `debugFile`), the project's
//! configuration root (`projectConfigRoot`) and the built-in tools' configuration
//! (`toolConfig`); and MCP configurations given as a file or JSON text (Python's `mcp_servers`
//! as a path or a string).

use std::path::{Path, PathBuf};

use super::Options;
use crate::wire_enum::wire_enum;

wire_enum! {
    /// The format of the `preview` of an `AskUserQuestion` option
    /// ([`ToolConfig::question_preview_format`]).
    pub enum PreviewFormat {
        /// Markdown or plain text (the CLI's default).
        Markdown = "markdown",
        /// Self-contained HTML fragments, for a host that renders HTML.
        Html = "html",
    }
}

/// The configuration of built-in tools ([`Options::tool_config`]).
///
/// ```
/// use claude_tools::options::{Options, PreviewFormat, ToolConfig};
///
/// let spec = Options::new()
///     .tool_config(ToolConfig::new().question_preview_format(PreviewFormat::Html))
///     .launch_spec();
/// assert!(spec.env.contains(&("CLAUDE_CODE_QUESTION_PREVIEW_FORMAT".into(), "html".into())));
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct ToolConfig {
    question_preview_format: Option<PreviewFormat>,
}

impl ToolConfig {
    /// Nothing configured: the CLI's defaults.
    pub fn new() -> Self {
        Self::default()
    }

    /// What the model writes in the `preview` of an `AskUserQuestion` option, and how the tool's
    /// schema describes it (`askUserQuestion.previewFormat`).
    pub fn question_preview_format(mut self, format: PreviewFormat) -> Self {
        self.question_preview_format = Some(format);
        self
    }
}

/// A flag with a path: `name path`, or the `=` form for a path starting with `-` (which the
/// CLI would read as a flag).
fn path_arg(name: &str, path: &Path) -> (String, Option<String>) {
    let path = path.display().to_string();
    if path.len() > 1 && path.starts_with('-') {
        (format!("{name}={path}"), None)
    } else {
        (name.into(), Some(path))
    }
}

/// The launch settings of this module, in [`Options`].
#[derive(Debug, Clone, Default)]
pub(crate) struct LaunchExtras {
    debug: bool,
    debug_file: Option<PathBuf>,
    project_config_root: Option<PathBuf>,
    tool_config: ToolConfig,
    /// Each `--mcp-config` given as a file or JSON text, in order.
    mcp_configs: Vec<McpConfigSource>,
}

/// An MCP configuration the CLI reads as it is ([`Options::mcp_config_file`],
/// [`Options::mcp_config_json`]).
#[derive(Debug, Clone)]
enum McpConfigSource {
    File(PathBuf),
    Json(String),
}

impl LaunchExtras {
    /// The flags: `--project-config-root`, then `--debug-file` or `--debug`, as the TypeScript
    /// SDK writes them (the `=` form for a path starting with `-`).
    pub(crate) fn flags(&self, mut flag: impl FnMut(String, Option<String>)) {
        let mut path_flag = |name: &str, path: &PathBuf| {
            let (name, value) = path_arg(name, path);
            flag(name, value);
        };
        if let Some(root) = &self.project_config_root {
            path_flag("--project-config-root", root);
        }
        if let Some(file) = &self.debug_file {
            path_flag("--debug-file", file);
        } else if self.debug {
            flag("--debug".into(), None);
        }
        for config in &self.mcp_configs {
            match config {
                McpConfigSource::File(path) => {
                    let (name, value) = path_arg("--mcp-config", path);
                    flag(name, value);
                }
                McpConfigSource::Json(text) => flag("--mcp-config".into(), Some(text.clone())),
            }
        }
    }

    /// The variables, unless [`Options::env`] sets them itself.
    pub(crate) fn env(&self, user_env: &[(String, String)], env: &mut Vec<(String, String)>) {
        if let Some(format) = &self.tool_config.question_preview_format {
            let name = "CLAUDE_CODE_QUESTION_PREVIEW_FORMAT";
            if !user_env.iter().any(|(key, _)| key == name) {
                env.push((name.into(), format.as_str().into()));
            }
        }
    }
}

impl Options {
    /// Turns the CLI's debug logging on (`--debug`): it goes to a file in the CLI's config
    /// directory, or to [`debug_file`](Self::debug_file). Read it as it is written with
    /// [`stderr`](Self::stderr) and `--debug-to-stderr` ([`extra_arg`](Self::extra_arg)).
    ///
    /// ```
    /// use claude_tools::options::Options;
    ///
    /// assert!(Options::new().debug(true).launch_spec().args.contains(&"--debug".to_string()));
    /// ```
    pub fn debug(mut self, on: bool) -> Self {
        self.launch_extras.debug = on;
        self
    }

    /// Writes the CLI's debug log to this file (`--debug-file`), which turns debug logging on.
    ///
    /// ```
    /// use claude_tools::options::Options;
    ///
    /// let args = Options::new().debug_file("/tmp/claude-debug.log").launch_spec().args;
    /// assert!(args.windows(2).any(|w| w == ["--debug-file", "/tmp/claude-debug.log"]));
    /// ```
    pub fn debug_file(mut self, path: impl Into<PathBuf>) -> Self {
        self.launch_extras.debug_file = Some(path.into());
        self
    }

    /// The trusted checkout that [`cwd`](Self::cwd) is a worktree of
    /// (`--project-config-root`; an absolute path): project settings (hooks, permissions),
    /// `.mcp.json`, the `.claude` directories (commands, agents, skills, output styles…) and
    /// `CLAUDE_PROJECT_DIR` come from there instead of the working directory, so what the
    /// branch checked out in `cwd` carries is not what the session runs.
    ///
    /// ```
    /// use claude_tools::options::Options;
    ///
    /// let args = Options::new()
    ///     .cwd("/srv/worktrees/pr-1234")
    ///     .project_config_root("/srv/repo")
    ///     .launch_spec()
    ///     .args;
    /// assert!(args.windows(2).any(|w| w == ["--project-config-root", "/srv/repo"]));
    /// ```
    pub fn project_config_root(mut self, path: impl Into<PathBuf>) -> Self {
        self.launch_extras.project_config_root = Some(path.into());
        self
    }

    /// The configuration of built-in tools (`toolConfig`; the CLI reads it from its
    /// environment, where a value [`env`](Self::env) sets wins).
    pub fn tool_config(mut self, config: ToolConfig) -> Self {
        self.launch_extras.tool_config = config;
        self
    }

    /// An MCP configuration file the CLI reads as it is (`--mcp-config`, e.g. a `.mcp.json`;
    /// Python's `mcp_servers` given as a path), beside the servers given with
    /// [`mcp_server`](Self::mcp_server) and [`external_mcp_server`](Self::external_mcp_server).
    /// A relative path is read from the CLI's working directory. May be given more than once.
    ///
    /// ```
    /// use claude_tools::options::Options;
    ///
    /// let args = Options::new().mcp_config_file("/srv/app/.mcp.json").launch_spec().args;
    /// assert!(args.windows(2).any(|w| w == ["--mcp-config", "/srv/app/.mcp.json"]));
    /// ```
    pub fn mcp_config_file(mut self, path: impl Into<PathBuf>) -> Self {
        self.launch_extras
            .mcp_configs
            .push(McpConfigSource::File(path.into()));
        self
    }

    /// An MCP configuration as JSON text, `{"mcpServers": {…}}` (`--mcp-config`; Python's
    /// `mcp_servers` given as a string), beside the servers given with
    /// [`mcp_server`](Self::mcp_server) and [`external_mcp_server`](Self::external_mcp_server).
    /// Text that is not such an object is refused when the session starts. May be given more
    /// than once.
    ///
    /// ```
    /// use claude_tools::options::Options;
    ///
    /// let json = r#"{"mcpServers":{"docs":{"type":"http","url":"https://docs.example/mcp"}}}"#;
    /// let args = Options::new().mcp_config_json(json).launch_spec().args;
    /// assert!(args.windows(2).any(|w| w == ["--mcp-config", json]));
    /// ```
    pub fn mcp_config_json(mut self, json: impl Into<String>) -> Self {
        self.launch_extras
            .mcp_configs
            .push(McpConfigSource::Json(json.into()));
        self
    }

    /// A relative [`project_config_root`](Self::project_config_root) would be read from
    /// the CLI's working directory, the very checkout it is meant to replace; an MCP
    /// configuration's JSON text must be one the CLI reads, not fail in it.
    pub(crate) fn validate_launch_extras(&self) -> crate::Result<()> {
        if let Some(root) = &self.launch_extras.project_config_root
            && !root.is_absolute()
        {
            return Err(crate::Error::InvalidOptions(format!(
                "Options::project_config_root: {} is not an absolute path",
                root.display()
            )));
        }
        for config in &self.launch_extras.mcp_configs {
            if let McpConfigSource::Json(text) = config {
                check_mcp_config_json(text).map_err(|problem| {
                    crate::Error::InvalidOptions(format!("Options::mcp_config_json: {problem}"))
                })?;
            }
        }
        Ok(())
    }
}

/// `Ok` when `text` is a JSON object whose `mcpServers` is an object, as the CLI reads it.
fn check_mcp_config_json(text: &str) -> Result<(), String> {
    let value: serde_json::Value =
        serde_json::from_str(text).map_err(|error| format!("not JSON ({error})"))?;
    match value.get("mcpServers") {
        Some(serde_json::Value::Object(_)) => Ok(()),
        Some(_) => Err("`mcpServers` is not an object".into()),
        None if value.is_object() => Err("no `mcpServers` object".into()),
        None => Err("not a JSON object".into()),
    }
}

#[cfg(test)]
mod tests {
    use crate::options::*;

    #[test]
    fn each_setting_becomes_its_flag_or_variable() {
        let spec = Options::new()
            .debug(true)
            .project_config_root("/srv/repo")
            .tool_config(ToolConfig::new().question_preview_format(PreviewFormat::Html))
            .launch_spec();
        let args = spec.args;
        assert!(
            args.windows(2)
                .any(|w| w == ["--project-config-root", "/srv/repo"])
        );
        assert!(args.contains(&"--debug".to_string()));
        assert!(
            spec.env
                .contains(&("CLAUDE_CODE_QUESTION_PREVIEW_FORMAT".into(), "html".into()))
        );
        // A debug file replaces `--debug`; a path starting with `-` takes the `=` form.
        let args = Options::new()
            .debug(true)
            .debug_file("-odd.log")
            .launch_spec()
            .args;
        assert!(
            args.contains(&"--debug-file=-odd.log".to_string()),
            "{args:?}"
        );
        assert!(!args.contains(&"--debug".to_string()));
        // Nothing set, nothing written.
        let spec = Options::new().launch_spec();
        assert!(
            !spec
                .args
                .iter()
                .any(|arg| arg.starts_with("--debug") || arg.starts_with("--project-config-root"))
        );
        assert!(
            !spec
                .env
                .iter()
                .any(|(k, _)| k == "CLAUDE_CODE_QUESTION_PREVIEW_FORMAT")
        );
        // The user's own variable wins.
        let spec = Options::new()
            .env("CLAUDE_CODE_QUESTION_PREVIEW_FORMAT", "markdown")
            .tool_config(ToolConfig::new().question_preview_format(PreviewFormat::Html))
            .launch_spec();
        let values: Vec<_> = spec
            .env
            .iter()
            .filter(|(k, _)| k == "CLAUDE_CODE_QUESTION_PREVIEW_FORMAT")
            .collect();
        assert_eq!(
            values,
            [&(
                "CLAUDE_CODE_QUESTION_PREVIEW_FORMAT".into(),
                "markdown".into()
            )]
        );
    }

    #[test]
    fn mcp_configs_go_as_given_and_bad_json_is_refused() {
        let json = r#"{"mcpServers":{"docs":{"type":"http","url":"https://d/mcp"}}}"#;
        let options = Options::new()
            .mcp_config_file("-odd/.mcp.json")
            .mcp_config_json(json)
            .mcp_config_file("/srv/.mcp.json");
        options.validate().unwrap();
        let args = options.launch_spec().args;
        let given: Vec<&str> = args
            .iter()
            .enumerate()
            .filter_map(|(at, arg)| match arg.as_str() {
                "--mcp-config" => args.get(at + 1).map(String::as_str),
                other => other.strip_prefix("--mcp-config="),
            })
            .collect();
        assert_eq!(
            given,
            ["-odd/.mcp.json", json, "/srv/.mcp.json"],
            "{args:?}"
        );

        for (text, problem) in [
            ("{\"mcpServers\": ", "not JSON"),
            ("[1]", "not a JSON object"),
            ("{\"servers\": {}}", "no `mcpServers` object"),
            ("{\"mcpServers\": []}", "`mcpServers` is not an object"),
        ] {
            let error = Options::new()
                .mcp_config_json(text)
                .validate()
                .unwrap_err()
                .to_string();
            assert!(
                error.contains(&format!("Options::mcp_config_json: {problem}")),
                "{text}: {error}"
            );
        }
    }

    #[test]
    fn a_relative_project_config_root_is_refused() {
        let error = Options::new()
            .project_config_root("repo")
            .validate()
            .unwrap_err()
            .to_string();
        assert!(
            error.contains("Options::project_config_root: repo is not an absolute path"),
            "{error}"
        );
        Options::new()
            .project_config_root("/srv/repo")
            .validate()
            .unwrap();
    }
}
