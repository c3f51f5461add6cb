//! [`InstallProgress`]: what an install is doing, for a progress bar or a log
//! ([`Installer::progress`](super::Installer::progress)).

use std::fmt;
use std::io::{self, Read};
use std::path::Path;
use std::sync::Arc;

/// A stage of an install, in order; a stage that is not reached (the install was there, or
/// failed) is not reported.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum InstallStage<'a> {
    /// Looking the version up in the registry.
    Resolving {
        /// The package (`@anthropic-ai/claude-code-linux-x64`).
        package: &'a str,
        /// The version.
        version: &'a str,
        /// The registry's base URL.
        registry: &'a str,
    },
    /// Downloading the tarball, unpacked and hashed as it streams in; each chunk is reported
    /// to [`InstallProgress::downloaded`].
    Downloading {
        /// The tarball's URL.
        url: &'a str,
        /// Its size, when the registry announced it.
        total_bytes: Option<u64>,
    },
    /// Downloaded, hash checked, unpacked: moving the install into place.
    Placing {
        /// The directory it goes to.
        dir: &'a Path,
    },
}

/// Told what an install is doing ([`Installer::progress`](super::Installer::progress)): each
/// stage as it starts, and the download's bytes as they arrive. Called on the installing
/// thread: keep it quick.
///
/// ```
/// use claude_tools::install::{InstallProgress, InstallStage, Installer};
///
/// struct Log;
///
/// impl InstallProgress for Log {
///     fn stage(&self, stage: InstallStage<'_>) {
///         eprintln!("{stage:?}");
///     }
/// }
///
/// let installer = Installer::new().progress(Log);
/// # let _ = installer;
/// ```
pub trait InstallProgress: Send + Sync {
    /// A stage starts.
    fn stage(&self, stage: InstallStage<'_>);

    /// `bytes` of the tarball have arrived so far (called after every read of the body).
    fn downloaded(&self, bytes: u64) {
        let _ = bytes;
    }
}

/// An installer's observer, if any.
#[derive(Clone, Default)]
pub(crate) struct Observer(Option<Arc<dyn InstallProgress>>);

impl Observer {
    pub(crate) fn new(progress: impl InstallProgress + 'static) -> Self {
        Self(Some(Arc::new(progress)))
    }

    pub(crate) fn stage(&self, stage: InstallStage<'_>) {
        if let Some(progress) = &self.0 {
            progress.stage(stage);
        }
    }

    /// `body`, telling the observer of every byte read from it.
    pub(crate) fn reader<R: Read>(&self, body: R) -> Counting<R> {
        Counting {
            inner: body,
            read: 0,
            observer: self.clone(),
        }
    }
}

impl fmt::Debug for Observer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(if self.0.is_some() {
            "Some(InstallProgress)"
        } else {
            "None"
        })
    }
}

/// A download body that reports the bytes read so far to an [`Observer`].
pub(crate) struct Counting<R> {
    inner: R,
    read: u64,
    observer: Observer,
}

impl<R: Read> Read for Counting<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        if n > 0 {
            self.read += n as u64;
            if let Some(progress) = &self.observer.0 {
                progress.downloaded(self.read);
            }
        }
        Ok(n)
    }
}
