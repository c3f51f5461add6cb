//! The private directory a spare is parked in when its options name no `cwd`: a fresh
//! `spare-…` folder under `<config home>/spares`, removed once the claim moved the process out
//! of it (or the spare is gone).

use std::ffi::OsString;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, Ordering};

use crate::error::{Error, Result};
use crate::options::Options;

/// A parking directory, removed on drop.
#[derive(Debug)]
pub(crate) struct ParkingDir {
    path: PathBuf,
}

impl ParkingDir {
    /// Creates a fresh parking directory under the config home the CLI of `options` will use.
    pub(crate) fn create(options: &Options) -> Result<ParkingDir> {
        let spares = config_home(options)?.join("spares");
        create_private(&spares, true).map_err(|error| {
            Error::InvalidOptions(format!(
                "prewarm: cannot create {} to park the spare in ({error}); pass Options::cwd",
                spares.display()
            ))
        })?;
        static NEXT: AtomicU32 = AtomicU32::new(0);
        let mut last = None;
        // A name taken by another process's spare is skipped: a few tries are plenty.
        for _ in 0..16 {
            let nanos = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|elapsed| elapsed.subsec_nanos())
                .unwrap_or_default();
            let name = format!(
                "spare-{}-{:x}-{}",
                std::process::id(),
                nanos,
                NEXT.fetch_add(1, Ordering::Relaxed)
            );
            let path = spares.join(name);
            match create_private(&path, false) {
                Ok(()) => return Ok(ParkingDir { path }),
                Err(error) if error.kind() == io::ErrorKind::AlreadyExists => last = Some(error),
                Err(error) => {
                    last = Some(error);
                    break;
                }
            }
        }
        Err(Error::InvalidOptions(format!(
            "prewarm: cannot create a parking directory in {} ({}); pass Options::cwd",
            spares.display(),
            last.map(|error| error.to_string()).unwrap_or_default()
        )))
    }

    /// The directory.
    pub(crate) fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for ParkingDir {
    fn drop(&mut self) {
        // Nothing of the session is kept here: the claim moved the CLI to its folder.
        let _ = std::fs::remove_dir_all(&self.path);
    }
}

/// The CLI's config home for these options: `CLAUDE_CONFIG_DIR`, else `$HOME/.claude`, each
/// from the options' environment first, then this process's.
fn config_home(options: &Options) -> Result<PathBuf> {
    let var = |name: &str| -> Option<OsString> {
        options
            .env
            .iter()
            .rev()
            .find(|(key, _)| key == name)
            .map(|(_, value)| OsString::from(value))
            .or_else(|| std::env::var_os(name))
            .filter(|value| !value.is_empty())
    };
    let home = match var("CLAUDE_CONFIG_DIR") {
        Some(dir) => PathBuf::from(dir),
        None => var("HOME")
            .map(|home| PathBuf::from(home).join(".claude"))
            .ok_or_else(|| {
                Error::InvalidOptions(
                    "prewarm: neither CLAUDE_CONFIG_DIR nor HOME is set to park the spare under; \
                 pass Options::cwd"
                        .into(),
                )
            })?,
    };
    if !home.is_absolute() {
        return Err(Error::InvalidOptions(format!(
            "prewarm: the config home {} is not an absolute path; pass Options::cwd",
            home.display()
        )));
    }
    Ok(home)
}

/// Creates `path` readable by this user only (`recursive`: with its parents, and an existing
/// directory is fine).
fn create_private(path: &Path, recursive: bool) -> io::Result<()> {
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(recursive);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
    builder.create(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_spare_is_parked_under_the_config_home_and_the_folder_goes_with_it() {
        let root = std::env::temp_dir().join(format!("parking-test-{}", std::process::id()));
        let options = Options::new().env("CLAUDE_CONFIG_DIR", root.to_str().unwrap());
        let parking = ParkingDir::create(&options).unwrap();
        let path = parking.path().to_path_buf();
        assert!(path.starts_with(root.join("spares")), "{path:?}");
        assert!(path.is_dir());
        drop(parking);
        assert!(!path.exists());
        let _ = std::fs::remove_dir_all(root);
    }

    #[test]
    fn a_relative_config_home_is_refused() {
        let options = Options::new().env("CLAUDE_CONFIG_DIR", "relative/dir");
        assert!(matches!(
            ParkingDir::create(&options),
            Err(Error::InvalidOptions(_))
        ));
    }
}
