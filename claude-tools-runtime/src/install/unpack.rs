//! Unpacking the package's tarball (gzip'd tar, files under `package/`) into a directory, as it
//! streams in: only the package's top-level regular files are written, nothing outside the
//! directory, nothing but files.

use std::fs::File;
use std::io::{self, Read, Write};
use std::path::{Component, Path};

use flate2::read::GzDecoder;

/// What unpacking wrote.
#[derive(Debug, Default)]
pub(crate) struct Unpacked {
    /// Bytes written, all files together.
    pub(crate) bytes: u64,
    /// Whether the executable was among them.
    pub(crate) has_executable: bool,
}

/// Why unpacking stopped.
#[derive(Debug)]
pub(crate) enum UnpackError {
    /// The archive could not be read: gzip or tar said so, or the download under it failed
    /// (the caller tells which from its reader).
    Archive(io::Error),
    /// Writing `path` failed.
    Disk {
        action: &'static str,
        path: std::path::PathBuf,
        source: io::Error,
    },
    /// The files add up to more than the limit.
    TooLarge,
}

/// Unpacks the tarball read from `reader` into `dest` (an empty directory), to the end of the
/// gzip stream, and hands `reader` back, whatever happened, so that the caller can finish
/// hashing it. `executable` gets the executable bit.
pub(crate) fn unpack<R: Read>(
    reader: R,
    dest: &Path,
    executable: &str,
    limit: u64,
) -> (Result<Unpacked, UnpackError>, R) {
    let mut archive = tar::Archive::new(GzDecoder::new(reader));
    let mut unpacked = Unpacked::default();
    let mut result = unpack_entries(&mut archive, dest, executable, limit, &mut unpacked);
    let mut gzip = archive.into_inner();
    if result.is_ok() {
        // tar stops at its end-of-archive blocks; read on to the end of the gzip stream, which
        // checks its length and CRC.
        result = io::copy(&mut gzip, &mut io::sink())
            .map(drop)
            .map_err(UnpackError::Archive);
    }
    (result.map(|()| unpacked), gzip.into_inner())
}

fn unpack_entries<R: Read>(
    archive: &mut tar::Archive<R>,
    dest: &Path,
    executable: &str,
    limit: u64,
    unpacked: &mut Unpacked,
) -> Result<(), UnpackError> {
    for entry in archive.entries().map_err(UnpackError::Archive)? {
        let mut entry = entry.map_err(UnpackError::Archive)?;
        let kind = entry.header().entry_type();
        if !(kind.is_file() || kind.is_contiguous()) {
            // Directories are implied; links and devices are never installed.
            continue;
        }
        let path = entry.path().map_err(UnpackError::Archive)?.into_owned();
        let Some(name) = package_file_name(&path) else {
            continue;
        };
        let target = dest.join(&name);
        let disk = |action: &'static str| {
            let path = target.clone();
            move |source| UnpackError::Disk {
                action,
                path,
                source,
            }
        };
        // create_new: a name listed twice is not written twice.
        let mut file = File::create_new(&target).map_err(disk("creating"))?;
        let mut buf = vec![0; 64 * 1024];
        loop {
            let n = match entry.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(UnpackError::Archive(e)),
            };
            unpacked.bytes += n as u64;
            if unpacked.bytes > limit {
                return Err(UnpackError::TooLarge);
            }
            file.write_all(&buf[..n]).map_err(disk("writing"))?;
        }
        if name == executable {
            set_executable(&file).map_err(disk("making executable"))?;
            unpacked.has_executable = true;
        }
        // On disk before the directory is renamed into place: a crash after the rename must
        // not leave a truncated executable behind.
        file.sync_all().map_err(disk("writing"))?;
    }
    Ok(())
}

/// `name` for `package/name`; `None` for anything else (deeper paths, other prefixes, `..`).
fn package_file_name(path: &Path) -> Option<String> {
    let mut components = path.components();
    if components.next() != Some(Component::Normal("package".as_ref())) {
        return None;
    }
    let Some(Component::Normal(name)) = components.next() else {
        return None;
    };
    if components.next().is_some() {
        return None;
    }
    name.to_str().map(str::to_string)
}

#[cfg(unix)]
fn set_executable(file: &File) -> io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    file.set_permissions(std::fs::Permissions::from_mode(0o755))
}

#[cfg(not(unix))]
fn set_executable(_file: &File) -> io::Result<()> {
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_top_level_package_files_are_taken() {
        assert_eq!(
            package_file_name(Path::new("package/claude")).as_deref(),
            Some("claude")
        );
        assert_eq!(
            package_file_name(Path::new("package/LICENSE.md")).as_deref(),
            Some("LICENSE.md")
        );
        for skipped in [
            "claude",
            "other/claude",
            "package",
            "package/bin/claude",
            "package/../claude",
            "/package/claude",
            "../package/claude",
        ] {
            assert_eq!(package_file_name(Path::new(skipped)), None, "{skipped}");
        }
    }
}
