//! [`Installer`]: fetch, verify and unpack one CLI version for one platform, atomically.

use std::path::{Path, PathBuf};
use std::time::Duration;

use super::error::InstallError;
use super::integrity::{HashingReader, Sha512Digest};
use super::progress::{InstallProgress, InstallStage, Observer};
use super::registry::{DEFAULT_REGISTRY, REGISTRY_ENV, Registry};
use super::unpack::{UnpackError, unpack};
use super::{Platform, cache};
use crate::cli::CLI_VERSION;

/// The default time one download may take: generous for the ~190 MB tarball on a slow line.
pub const DEFAULT_DOWNLOAD_TIMEOUT: Duration = Duration::from_secs(30 * 60);

/// The largest tarball accepted (the real one is ~190 MB), and the most its files may unpack
/// to (~400 MB): a bound on the disk a broken or hostile registry can fill.
const MAX_TARBALL_BYTES: u64 = 2 * 1024 * 1024 * 1024;
const MAX_UNPACKED_BYTES: u64 = 4 * 1024 * 1024 * 1024;

/// Prefix of the directory an install is unpacked into before it is renamed into place.
const PARTIAL: &str = ".partial-";

/// Installs the Claude Code CLI from the npm registry, without npm or Node: the native package
/// of this platform (`@anthropic-ai/claude-code-<platform>`, see [`Platform`]) at the pinned
/// version ([`CLI_VERSION`]), into `<root>/<version>/<platform>/` (see [`cache`]), where the
/// runtime's CLI lookup finds it.
///
/// The version document's `dist.integrity` (sha512) is checked against the tarball as it
/// streams in; the tarball is unpacked on the way into a directory beside the target, which is
/// renamed into place only once the hash matches and the executable is there. So a failed,
/// interrupted or tampered download never leaves anything the lookup would find, and
/// installers running at once (threads or processes) do not disturb each other: the first
/// rename wins and the others use its result. Leftovers of an installer that was killed are
/// removed by the next install of the same version and platform.
///
/// Blocking (file system and network): from async code, run it with
/// `tokio::task::spawn_blocking`. Needs the `install` feature.
///
/// ```no_run
/// use claude_tools::install::Installer;
///
/// let installed = Installer::new().install()?;
/// println!("the Claude Code CLI is at {}", installed.executable.display());
/// # Ok::<(), claude_tools::install::InstallError>(())
/// ```
#[derive(Debug, Clone)]
pub struct Installer {
    version: String,
    registry: String,
    root: Option<PathBuf>,
    platform: Option<Platform>,
    download_timeout: Duration,
    progress: Observer,
}

/// A CLI that is installed: where, and what the install took.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Installed {
    /// The executable.
    pub executable: PathBuf,
    /// The version.
    pub version: String,
    /// The platform.
    pub platform: Platform,
    /// `false` when it was there already and nothing was downloaded (or another installer
    /// finished first).
    pub fresh: bool,
    /// Bytes downloaded (the tarball), 0 when not fresh.
    pub downloaded_bytes: u64,
    /// Bytes the package's files unpacked to, 0 when not fresh.
    pub unpacked_bytes: u64,
}

impl Default for Installer {
    fn default() -> Self {
        Self::new()
    }
}

impl Installer {
    /// The pinned version ([`CLI_VERSION`]) for this platform, from the registry that
    /// `CLAUDE_TOOLS_NPM_REGISTRY` names or the npm registry, into the
    /// [default root](cache::default_root).
    pub fn new() -> Self {
        let registry = std::env::var(REGISTRY_ENV)
            .ok()
            .filter(|r| !r.trim().is_empty())
            .unwrap_or_else(|| DEFAULT_REGISTRY.to_string());
        Self {
            version: CLI_VERSION.to_string(),
            registry,
            root: None,
            platform: None,
            download_timeout: DEFAULT_DOWNLOAD_TIMEOUT,
            progress: Observer::default(),
        }
    }

    /// Another version than the pinned one (the runtime's lookup finds only the pinned one).
    pub fn version(mut self, version: impl Into<String>) -> Self {
        self.version = version.into();
        self
    }

    /// Another registry (a mirror, or a test's), by its base URL: `https://…`, or `http://…`
    /// for one you trust the network path to (the integrity hash is checked either way).
    pub fn registry(mut self, url: impl Into<String>) -> Self {
        self.registry = url.into();
        self
    }

    /// Install under this root instead of the [default](cache::default_root) (the install goes
    /// to `<root>/<version>/<platform>/`). The runtime's lookup finds it there only when
    /// `CLAUDE_TOOLS_CLI_DIR` names the same root.
    pub fn dir(mut self, root: impl Into<PathBuf>) -> Self {
        self.root = Some(root.into());
        self
    }

    /// Another platform's package than this machine's.
    pub fn platform(mut self, platform: Platform) -> Self {
        self.platform = Some(platform);
        self
    }

    /// How long one download may take ([`DEFAULT_DOWNLOAD_TIMEOUT`]); connecting and the
    /// registry's first answer have bounds of their own (30 s, 60 s).
    pub fn download_timeout(mut self, timeout: Duration) -> Self {
        self.download_timeout = timeout;
        self
    }

    /// Tells `progress` what the install is doing: its stages, and the download's bytes as
    /// they arrive (the `claude-tools install-cli` command draws a progress bar with it).
    pub fn progress(mut self, progress: impl InstallProgress + 'static) -> Self {
        self.progress = Observer::new(progress);
        self
    }

    /// The executable this installer installs, whether it is there or not.
    pub fn executable(&self) -> Result<PathBuf, InstallError> {
        let (root, platform) = self.target()?;
        Ok(cache::executable(&root, &self.version, platform))
    }

    /// The install, when it is there; no network.
    pub fn installed(&self) -> Result<Option<Installed>, InstallError> {
        let (root, platform) = self.target()?;
        let executable = cache::executable(&root, &self.version, platform);
        Ok(is_executable(&executable).then(|| self.existing(executable, platform)))
    }

    /// Installs the CLI unless it is there already; see [`Installer`].
    pub fn install(&self) -> Result<Installed, InstallError> {
        check_version(&self.version)?;
        let (root, platform) = self.target()?;
        let executable = cache::executable(&root, &self.version, platform);
        if is_executable(&executable) {
            return Ok(self.existing(executable, platform));
        }
        let package = platform.package();
        self.progress.stage(InstallStage::Resolving {
            package: &package,
            version: &self.version,
            registry: &self.registry,
        });
        let registry = Registry::new(&self.registry, self.download_timeout)?;
        let release = registry.release(&package, &self.version)?;
        let expected = Sha512Digest::from_sri(&release.integrity).ok_or_else(|| {
            InstallError::BadDocument {
                url: release.tarball.clone(),
                reason: format!(
                    "its dist.integrity `{}` has no sha512 hash",
                    release.integrity
                ),
            }
        })?;

        let parent = root.join(&self.version);
        std::fs::create_dir_all(&parent).map_err(InstallError::io("creating", &parent))?;
        remove_abandoned(&parent, platform);
        let partial = Partial::create(&parent, platform)?;

        let download = registry.download(&release.tarball, &package, &self.version)?;
        self.progress.stage(InstallStage::Downloading {
            url: &release.tarball,
            total_bytes: download.length,
        });
        let body = self.progress.reader(download.body);
        let reader = HashingReader::new(body, MAX_TARBALL_BYTES);
        let (unpacked, mut reader) = unpack(
            reader,
            &partial.path,
            platform.executable(),
            MAX_UNPACKED_BYTES,
        );
        // The whole download is hashed whatever the unpacker made of it: a tarball that is not
        // the published one is reported as such, before what the unpacker said about it.
        let drained = reader.drain();
        let truncated = || InstallError::Truncated {
            url: release.tarball.clone(),
            received: reader.read,
            expected: download.length,
        };
        if reader.over_limit {
            return Err(InstallError::TooLarge {
                package,
                limit: MAX_TARBALL_BYTES,
            });
        }
        if let Some(error) = &reader.error {
            return Err(if error.kind() == std::io::ErrorKind::TimedOut {
                InstallError::Download {
                    url: release.tarball.clone(),
                    source: error.to_string().into(),
                }
            } else {
                truncated()
            });
        }
        if drained.is_err() {
            return Err(truncated());
        }
        let downloaded_bytes = reader.read;
        let actual = reader.digest();
        if actual != expected {
            return Err(InstallError::IntegrityMismatch {
                package,
                expected: expected.base64(),
                actual: actual.base64(),
            });
        }
        let unpacked = unpacked.map_err(|error| match error {
            UnpackError::Archive(e) => InstallError::CorruptArchive {
                package: package.clone(),
                reason: e.to_string(),
            },
            UnpackError::Disk {
                action,
                path,
                source,
            } => InstallError::Io {
                action,
                path,
                source,
            },
            UnpackError::TooLarge => InstallError::TooLarge {
                package: package.clone(),
                limit: MAX_UNPACKED_BYTES,
            },
        })?;
        if !unpacked.has_executable {
            return Err(InstallError::MissingExecutable {
                package,
                executable: platform.executable().to_string(),
            });
        }

        let target = cache::install_dir(&root, &self.version, platform);
        self.progress.stage(InstallStage::Placing { dir: &target });
        match partial.commit(&target) {
            Ok(()) => Ok(Installed {
                executable,
                version: self.version.clone(),
                platform,
                fresh: true,
                downloaded_bytes,
                unpacked_bytes: unpacked.bytes,
            }),
            // Another installer renamed its copy into place first: use that one.
            Err(_) if is_executable(&executable) => Ok(self.existing(executable, platform)),
            Err(source) => Err(InstallError::Io {
                action: "moving the install into place at",
                path: target,
                source,
            }),
        }
    }

    fn target(&self) -> Result<(PathBuf, Platform), InstallError> {
        let platform = match self.platform {
            Some(platform) => platform,
            None => Platform::current()?,
        };
        let root = match &self.root {
            Some(root) => root.clone(),
            None => cache::default_root().ok_or(InstallError::NoCacheDir)?,
        };
        Ok((root, platform))
    }

    fn existing(&self, executable: PathBuf, platform: Platform) -> Installed {
        Installed {
            executable,
            version: self.version.clone(),
            platform,
            fresh: false,
            downloaded_bytes: 0,
            unpacked_bytes: 0,
        }
    }
}

/// A version goes into a URL and a directory name: `2.1.332`, `2.2.0-beta.1`, nothing else.
fn check_version(version: &str) -> Result<(), InstallError> {
    let fine = !version.is_empty()
        && version.len() <= 64
        && version.starts_with(|c: char| c.is_ascii_digit())
        && version
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '+'))
        && !version.contains("..");
    if fine {
        Ok(())
    } else {
        Err(InstallError::BadVersion(version.to_string()))
    }
}

/// The directory an install is unpacked into, `<version>/.partial-<platform>-<pid>-<random>`:
/// removed on drop unless it was renamed into place.
struct Partial {
    path: PathBuf,
    committed: bool,
}

impl Partial {
    fn create(parent: &Path, platform: Platform) -> Result<Self, InstallError> {
        let mut random = [0u8; 8];
        // Uniqueness among this process's own installers; the pid separates processes.
        let _ = getrandom::fill(&mut random);
        let name = format!(
            "{PARTIAL}{}-{}-{:016x}",
            platform.name(),
            std::process::id(),
            u64::from_le_bytes(random)
        );
        let path = parent.join(name);
        std::fs::create_dir(&path).map_err(InstallError::io("creating", &path))?;
        Ok(Self {
            path,
            committed: false,
        })
    }

    /// Renames the directory to `target`, which must not exist: a directory rename is atomic,
    /// and fails when another installer's is already there.
    fn commit(mut self, target: &Path) -> std::io::Result<()> {
        std::fs::rename(&self.path, target)?;
        self.committed = true;
        Ok(())
    }
}

impl Drop for Partial {
    fn drop(&mut self) {
        if !self.committed {
            let _ = std::fs::remove_dir_all(&self.path);
        }
    }
}

/// Removes the partial directories of installers of `platform` that were killed before they
/// could clean up (their process is gone). Best effort.
fn remove_abandoned(parent: &Path, platform: Platform) {
    let Ok(entries) = std::fs::read_dir(parent) else {
        return;
    };
    let prefix = format!("{PARTIAL}{}-", platform.name());
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(rest) = name.to_str().and_then(|n| n.strip_prefix(&prefix)) else {
            continue;
        };
        let pid = rest
            .split('-')
            .next()
            .and_then(|pid| pid.parse::<u32>().ok());
        if pid.is_some_and(|pid| !process_alive(pid)) {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
}

#[cfg(unix)]
fn process_alive(pid: u32) -> bool {
    let Ok(pid) = libc::pid_t::try_from(pid) else {
        return true;
    };
    // SAFETY: signal 0 sends nothing; it only asks whether the process exists.
    let result = unsafe { libc::kill(pid, 0) };
    result == 0 || std::io::Error::last_os_error().raw_os_error() == Some(libc::EPERM)
}

#[cfg(not(unix))]
fn process_alive(_pid: u32) -> bool {
    // No cheap check here: keep what may still be in use.
    true
}

fn is_executable(path: &Path) -> bool {
    crate::transport::is_executable(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_that_could_leave_their_directory_are_refused() {
        for fine in ["2.1.332", "2.2.0-beta.1", "3.0.0+build5"] {
            assert!(check_version(fine).is_ok(), "{fine}");
        }
        for bad in [
            "",
            "latest",
            "../2.1.332",
            "2.1.332/..",
            "2.1 .332",
            "2..1",
            "2/1",
        ] {
            assert!(
                matches!(check_version(bad), Err(InstallError::BadVersion(_))),
                "{bad}"
            );
        }
    }

    #[test]
    fn a_dead_installers_partial_directory_is_removed_and_a_live_ones_kept() {
        let root = std::env::temp_dir().join(format!(
            "claude-tools-partial-{}-{:x}",
            std::process::id(),
            rand_u64()
        ));
        std::fs::create_dir_all(&root).unwrap();
        let platform = Platform::LinuxX64;
        let live = root.join(format!("{PARTIAL}linux-x64-{}-1", std::process::id()));
        // A pid above any kernel's pid_max.
        let dead = root.join(format!("{PARTIAL}linux-x64-{}-2", i32::MAX as u32));
        let other = root.join(format!("{PARTIAL}darwin-x64-{}-3", i32::MAX as u32));
        for dir in [&live, &dead, &other] {
            std::fs::create_dir(dir).unwrap();
        }
        remove_abandoned(&root, platform);
        assert!(live.exists());
        assert_eq!(dead.exists(), cfg!(not(unix)));
        assert!(
            other.exists(),
            "another platform's is not this one's business"
        );
        std::fs::remove_dir_all(&root).unwrap();
    }

    fn rand_u64() -> u64 {
        let mut bytes = [0u8; 8];
        getrandom::fill(&mut bytes).unwrap();
        u64::from_le_bytes(bytes)
    }
}
