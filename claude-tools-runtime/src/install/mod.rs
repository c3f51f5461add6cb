//! Installing the Claude Code CLI without npm or Node, and where such installs live.
//!
//! The CLI is a native executable that the npm registry publishes as one package per platform
//! (`@anthropic-ai/claude-code-linux-x64`, …; see [`Platform`]). With the `install` feature,
//! `Installer` fetches the pinned version's package for this platform from the registry over
//! HTTPS, checks it against the registry's published integrity hash (sha512), and unpacks it
//! into a per-user cache, `<cache>/claude-tools/cli/<version>/<platform>/claude` (see
//! [`cache`]), atomically. [`Options::install_cli_if_missing`](crate::options::Options) does so
//! at connect when no CLI is found, and the `claude-tools` command (crate `claude-tools-cli`)
//! does it from the shell: `claude-tools install-cli`.
//!
//! Without the feature, this module still says where installs live: the runtime's CLI lookup
//! ([`CliSearch`](crate::transport::CliSearch)) finds the pinned version there after the other
//! places, however it was installed.
//!
//! The pinned version's linux-x64 package, measured (`claude-tools install-cli`): a 186 MB
//! download (186,117,258 bytes) that unpacks to 402 MB (402,326,322 bytes; the executable is
//! 402,325,736), installed in 20 s wall time, 5 s of CPU, 9 MB of memory.

pub mod cache;
mod platform;

pub use platform::{Libc, Platform, UnknownPlatform, UnsupportedPlatform};

#[cfg(feature = "install")]
mod error;
#[cfg(feature = "install")]
mod installer;
#[cfg(feature = "install")]
mod integrity;
#[cfg(feature = "install")]
mod progress;
#[cfg(feature = "install")]
mod registry;
#[cfg(feature = "install")]
mod unpack;

#[cfg(feature = "install")]
pub use error::{BoxError, InstallError};
#[cfg(feature = "install")]
pub use installer::{DEFAULT_DOWNLOAD_TIMEOUT, Installed, Installer};
#[cfg(feature = "install")]
pub use progress::{InstallProgress, InstallStage};
#[cfg(feature = "install")]
pub use registry::{DEFAULT_REGISTRY, REGISTRY_ENV};
