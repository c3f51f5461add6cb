//! Finding the Claude Code CLI executable: an explicit path, `CLAUDE_CODE_CLI`, `PATH`, then the
//! places npm and the installers put it.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use crate::cli::CLI_PATH_ENV;
use crate::error::{Error, Result};

#[cfg(windows)]
const EXE: &str = "claude.exe";
#[cfg(not(windows))]
const EXE: &str = "claude";

/// Where to look for the CLI executable. [`CliSearch::from_env`] reads this process's
/// environment; tests and embedders can fill the fields themselves.
///
/// Order: the explicit path ([`LaunchSpec::cli_path`](super::LaunchSpec::cli_path)), then
/// `CLAUDE_CODE_CLI`, then `claude` in `PATH`, then `node_modules/.bin/claude` and
/// `.cache/claude-cli/node_modules/.bin/claude` in the working directory and each of its
/// ancestors, then `~/.claude/local/claude`,
/// `~/.npm-global/bin/claude`, `/usr/local/bin/claude`, `~/.local/bin/claude`,
/// `~/node_modules/.bin/claude` and `~/.yarn/bin/claude`, and last the pinned version
/// ([`CLI_VERSION`](crate::transport::process::CLI_VERSION)) installed without npm into the
/// per-user cache (`~/.cache/claude-tools/cli/<version>/<platform>/claude`; see
/// [`install`](crate::install)).
///
/// An explicit path or `CLAUDE_CODE_CLI` is authoritative: when it does not name an executable
/// file, the search fails rather than silently run another CLI. A name without a directory
/// (`claude-2`) is looked up in `PATH`; a relative path is taken from the current directory.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CliSearch {
    /// The value of `CLAUDE_CODE_CLI`.
    pub env_cli: Option<OsString>,
    /// The value of `PATH`.
    pub path: Option<OsString>,
    /// The directory project-local installs are searched upward from.
    pub cwd: Option<PathBuf>,
    /// The home directory.
    pub home: Option<PathBuf>,
    /// System-wide locations (`/usr/local/bin/claude` on Unix), searched between the home ones.
    pub system: Vec<PathBuf>,
    /// The executable of the pinned version's install in the per-user cache
    /// ([`install::cache::default_executable`](crate::install::cache::default_executable)),
    /// searched last.
    pub installed: Option<PathBuf>,
}

impl CliSearch {
    /// The search this process's environment describes.
    pub fn from_env() -> Self {
        let home = std::env::var_os("HOME")
            .or_else(|| std::env::var_os("USERPROFILE"))
            .filter(|h| !h.is_empty())
            .map(PathBuf::from);
        Self {
            env_cli: std::env::var_os(CLI_PATH_ENV).filter(|v| !v.is_empty()),
            path: std::env::var_os("PATH"),
            cwd: std::env::current_dir().ok(),
            home,
            system: if cfg!(unix) {
                vec![PathBuf::from("/usr/local/bin/claude")]
            } else {
                Vec::new()
            },
            installed: crate::install::cache::default_executable(crate::cli::CLI_VERSION),
        }
    }

    /// The CLI to run: `explicit` if given, else the first executable found.
    ///
    /// Fails with [`Error::CliNotFound`] listing every path looked at, in order. Touches the file
    /// system (blocking).
    pub fn find(&self, explicit: Option<&Path>) -> Result<PathBuf> {
        let mut searched = Vec::new();
        if let Some(explicit) = explicit {
            return self.find_named(explicit.as_os_str(), &mut searched);
        }
        if let Some(name) = self.env_cli.as_deref().filter(|v| !v.is_empty()) {
            return self.find_named(name, &mut searched);
        }
        if let Some(found) = self.in_path(OsString::from(EXE).as_os_str(), &mut searched) {
            return Ok(found);
        }
        if let Some(cwd) = &self.cwd {
            for dir in cwd.ancestors() {
                for candidate in [
                    dir.join("node_modules").join(".bin").join(EXE),
                    dir.join(".cache/claude-cli/node_modules/.bin").join(EXE),
                ] {
                    if let Some(found) = check(candidate, &mut searched) {
                        return Ok(found);
                    }
                }
            }
        }
        let home = |rel: &str| self.home.as_ref().map(|h| h.join(rel).join(EXE));
        let candidates = [home(".claude/local"), home(".npm-global/bin")]
            .into_iter()
            .flatten()
            .chain(self.system.iter().cloned())
            .chain(
                [
                    home(".local/bin"),
                    home("node_modules/.bin"),
                    home(".yarn/bin"),
                ]
                .into_iter()
                .flatten(),
            );
        for candidate in candidates.chain(self.installed.iter().cloned()) {
            if let Some(found) = check(candidate, &mut searched) {
                return Ok(found);
            }
        }
        Err(Error::CliNotFound { searched })
    }

    /// An explicit name or path: authoritative.
    fn find_named(&self, name: &std::ffi::OsStr, searched: &mut Vec<PathBuf>) -> Result<PathBuf> {
        let path = Path::new(name);
        let bare = path.components().count() == 1 && path.parent() == Some(Path::new(""));
        let found = if bare && !path.is_absolute() {
            self.in_path(name, searched)
        } else {
            let absolute = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
            check(absolute, searched)
        };
        found.ok_or_else(|| Error::CliNotFound {
            searched: std::mem::take(searched),
        })
    }

    /// `name` in each `PATH` directory.
    fn in_path(&self, name: &std::ffi::OsStr, searched: &mut Vec<PathBuf>) -> Option<PathBuf> {
        let path = self.path.as_ref()?;
        for dir in std::env::split_paths(path) {
            if dir.as_os_str().is_empty() {
                continue;
            }
            let dir = std::path::absolute(&dir).unwrap_or(dir);
            if let Some(found) = check(dir.join(name), searched) {
                return Some(found);
            }
        }
        None
    }
}

/// `candidate` if it is an executable file; records it as searched either way.
fn check(candidate: PathBuf, searched: &mut Vec<PathBuf>) -> Option<PathBuf> {
    if is_executable(&candidate) {
        return Some(candidate);
    }
    if !searched.contains(&candidate) {
        searched.push(candidate);
    }
    None
}

pub(crate) fn is_executable(path: &Path) -> bool {
    let Ok(meta) = std::fs::metadata(path) else {
        return false;
    };
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        meta.is_file() && meta.permissions().mode() & 0o111 != 0
    }
    #[cfg(not(unix))]
    {
        meta.is_file()
    }
}

/// The CLI this process would launch: [`CliSearch::from_env`] with an optional explicit path.
pub fn find_cli(explicit: Option<&Path>) -> Result<PathBuf> {
    CliSearch::from_env().find(explicit)
}
