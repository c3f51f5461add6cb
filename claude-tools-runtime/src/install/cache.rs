//! Where installs live: `<root>/<version>/<platform>/claude`, the root being a per-user cache
//! directory. Both the installer and the runtime's CLI lookup read it from here, so that the
//! lookup finds what the installer put there, with or without the `install` feature.

use std::path::{Path, PathBuf};

use super::Platform;

/// The environment variable naming the root of the CLI installs instead of the per-user cache
/// ([`default_root`]); the installer and the runtime's CLI lookup both read it.
pub const CLI_DIR_ENV: &str = "CLAUDE_TOOLS_CLI_DIR";

/// The root of the CLI installs: [`CLI_DIR_ENV`] when set, else `claude-tools/cli` in this
/// user's cache directory — `$XDG_CACHE_HOME` or `~/.cache` on Linux and other Unixes,
/// `~/Library/Caches` on macOS, `%LOCALAPPDATA%` on Windows. `None` when none of those is known
/// (no home directory).
pub fn default_root() -> Option<PathBuf> {
    if let Some(dir) = non_empty_env(CLI_DIR_ENV) {
        return Some(PathBuf::from(dir));
    }
    user_cache_dir().map(|cache| cache.join("claude-tools").join("cli"))
}

/// The directory one install occupies: `<root>/<version>/<platform>`. It appears whole (the
/// installer renames it into place), so an install is there exactly when its executable is.
pub fn install_dir(root: &Path, version: &str, platform: Platform) -> PathBuf {
    root.join(version).join(platform.name())
}

/// The executable of an install: `<root>/<version>/<platform>/claude` (`claude.exe` on
/// Windows).
///
/// ```
/// use std::path::Path;
/// use claude_tools::install::{Platform, cache};
///
/// let exe = cache::executable(Path::new("/cache/cli"), "2.1.332", Platform::LinuxX64);
/// assert_eq!(exe, Path::new("/cache/cli/2.1.332/linux-x64/claude"));
/// ```
pub fn executable(root: &Path, version: &str, platform: Platform) -> PathBuf {
    install_dir(root, version, platform).join(platform.executable())
}

/// Where the runtime's CLI lookup looks for an installed `version` on this machine: the
/// [`executable`] under the [default root](default_root) for this
/// [platform](Platform::current); `None` on an unsupported platform or without a cache
/// directory. The file may or may not exist.
pub fn default_executable(version: &str) -> Option<PathBuf> {
    let platform = Platform::current().ok()?;
    Some(executable(&default_root()?, version, platform))
}

fn user_cache_dir() -> Option<PathBuf> {
    let home = || non_empty_env("HOME").map(PathBuf::from);
    if cfg!(windows) {
        non_empty_env("LOCALAPPDATA")
            .map(PathBuf::from)
            .or_else(|| {
                non_empty_env("USERPROFILE").map(|p| PathBuf::from(p).join("AppData/Local"))
            })
    } else if cfg!(target_os = "macos") {
        home().map(|home| home.join("Library/Caches"))
    } else {
        // XDG: a relative value is invalid and ignored.
        non_empty_env("XDG_CACHE_HOME")
            .map(PathBuf::from)
            .filter(|dir| dir.is_absolute())
            .or_else(|| home().map(|home| home.join(".cache")))
    }
}

fn non_empty_env(name: &str) -> Option<std::ffi::OsString> {
    std::env::var_os(name).filter(|value| !value.is_empty())
}
