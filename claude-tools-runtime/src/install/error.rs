//! [`InstallError`]: every way installing the CLI can fail, each saying what to do.

use std::path::PathBuf;

use super::UnsupportedPlatform;

/// A boxed error from the HTTP client: its type is not part of this API.
pub type BoxError = Box<dyn std::error::Error + Send + Sync + 'static>;

/// Why the CLI was not installed. Whatever the failure, nothing half-written is left where the
/// runtime looks for the CLI.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum InstallError {
    /// This machine has no native CLI package.
    #[error(transparent)]
    UnsupportedPlatform(#[from] UnsupportedPlatform),
    /// No directory to install into: no home directory, and no
    /// [`Installer::dir`](super::Installer::dir) or `CLAUDE_TOOLS_CLI_DIR`.
    #[error(
        "no directory to install the Claude Code CLI into: no home directory is known; name one with CLAUDE_TOOLS_CLI_DIR (or Installer::dir, `--dir`)"
    )]
    NoCacheDir,
    /// The version is not one (`2.1.332`, `2.2.0-beta.1`): it would go into a URL and a
    /// directory name.
    #[error("`{0}` is not a Claude Code CLI version (e.g. 2.1.332)")]
    BadVersion(String),
    /// The registry URL (or a tarball URL the registry gave) cannot be used.
    #[error("the registry URL {url} cannot be used: {reason}")]
    BadUrl {
        /// The URL.
        url: String,
        /// What is wrong with it.
        reason: String,
    },
    /// The registry could not be reached: offline, refused, no such host, timed out.
    #[error(
        "could not reach the npm registry at {url} (offline, or a proxy needed? HTTPS_PROXY is honoured): {source}"
    )]
    Unreachable {
        /// What was asked for.
        url: String,
        /// The client's error.
        #[source]
        source: BoxError,
    },
    /// The registry has no such package or version (HTTP 404).
    #[error(
        "the npm registry has no {package}@{version} ({url} answered 404): no such version, or no package for this platform"
    )]
    NotFound {
        /// The package asked for.
        package: String,
        /// The version asked for.
        version: String,
        /// The URL that answered 404.
        url: String,
    },
    /// The registry answered with another error status.
    #[error("the npm registry answered {status} for {url}")]
    Status {
        /// What was asked for.
        url: String,
        /// The HTTP status.
        status: u16,
    },
    /// The version document is not what an npm registry serves.
    #[error("the npm registry's document at {url} is not usable: {reason}")]
    BadDocument {
        /// The document's URL.
        url: String,
        /// What is wrong with it.
        reason: String,
    },
    /// The download failed part-way for another reason than its end coming early.
    #[error("downloading {url} failed: {source}")]
    Download {
        /// The tarball's URL.
        url: String,
        /// The client's error.
        #[source]
        source: BoxError,
    },
    /// The download ended before the whole tarball arrived (the connection closed early).
    #[error("the download of {url} ended early, after {received} bytes{}", expected.map(|e| format!(" of {e}")).unwrap_or_default())]
    Truncated {
        /// The tarball's URL.
        url: String,
        /// The bytes that arrived.
        received: u64,
        /// The bytes announced (`Content-Length`), when they were.
        expected: Option<u64>,
    },
    /// The tarball is not the one the registry published: its hash differs from the
    /// registry's `dist.integrity`. Nothing was installed.
    #[error(
        "the tarball of {package} does not match the registry's integrity hash (expected sha512-{expected}, got sha512-{actual}); nothing was installed"
    )]
    IntegrityMismatch {
        /// The package.
        package: String,
        /// The registry's sha512, base64.
        expected: String,
        /// The downloaded tarball's sha512, base64.
        actual: String,
    },
    /// The tarball matches its published hash but is not a whole gzip'd tar archive.
    #[error("the tarball of {package} is not a readable archive: {reason}")]
    CorruptArchive {
        /// The package.
        package: String,
        /// What the gzip or tar reader said.
        reason: String,
    },
    /// The package holds no `package/claude` (`claude.exe`) to install.
    #[error("the package {package} holds no executable `package/{executable}`")]
    MissingExecutable {
        /// The package.
        package: String,
        /// The file name looked for.
        executable: String,
    },
    /// The tarball, or what it unpacks to, is larger than the installer accepts.
    #[error("the package {package} is larger than the {limit} bytes the installer accepts")]
    TooLarge {
        /// The package.
        package: String,
        /// The limit, in bytes.
        limit: u64,
    },
    /// Reading or writing the install directory failed (disk full, no permission…).
    #[error("{action} {path}: {source}")]
    Io {
        /// What was being done (`creating`, `writing`…).
        action: &'static str,
        /// The file or directory.
        path: PathBuf,
        /// The OS error.
        #[source]
        source: std::io::Error,
    },
}

impl InstallError {
    pub(crate) fn io(
        action: &'static str,
        path: impl Into<PathBuf>,
    ) -> impl FnOnce(std::io::Error) -> Self {
        let path = path.into();
        move |source| InstallError::Io {
            action,
            path,
            source,
        }
    }
}
