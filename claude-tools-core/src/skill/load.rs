//! Reading a skill directory from disk: every file under it but hidden ones, with symbolic
//! links followed only to files inside the directory.

use std::borrow::Cow;
use std::path::{Path, PathBuf};

use super::{MAX_SKILL_BYTES, MAX_SKILL_FILES, SkillError};

/// How deep a skill's directories may nest: a bound on the walk, far past any real skill.
const MAX_DEPTH: usize = 32;

/// The files of the skill in `dir`, by `/`-separated path (checked later by `Skill::build`,
/// but sizes are checked here before reading, so a huge file is never read).
pub(super) fn read_dir(dir: &Path) -> Result<super::RawFiles, SkillError> {
    let io = |path: &Path, error: std::io::Error| SkillError::Io {
        path: path.to_path_buf(),
        reason: error.to_string(),
    };
    let root = dir.canonicalize().map_err(|error| io(dir, error))?;
    if !root.is_dir() {
        return Err(SkillError::Io {
            path: dir.to_path_buf(),
            reason: "not a directory".into(),
        });
    }
    let label = dir.display().to_string();
    let mut walk = Walk {
        root: &root,
        label: &label,
        files: Vec::new(),
        total: 0,
    };
    walk.visit(&root, "", 0)?;
    Ok(walk.files)
}

struct Walk<'a> {
    root: &'a Path,
    label: &'a str,
    files: super::RawFiles,
    total: u64,
}

impl Walk<'_> {
    fn visit(&mut self, dir: &Path, prefix: &str, depth: usize) -> Result<(), SkillError> {
        let io = |path: &Path, error: std::io::Error| SkillError::Io {
            path: path.to_path_buf(),
            reason: error.to_string(),
        };
        if depth > MAX_DEPTH {
            return Err(SkillError::BadPath {
                dir: self.label.to_string(),
                path: prefix.to_string(),
                reason: format!("is nested more than {MAX_DEPTH} directories deep"),
            });
        }
        let mut entries = std::fs::read_dir(dir)
            .map_err(|error| io(dir, error))?
            .collect::<Result<Vec<_>, _>>()
            .map_err(|error| io(dir, error))?;
        entries.sort_by_key(|entry| entry.file_name());
        for entry in entries {
            let name = entry.file_name();
            let Some(name) = name.to_str() else {
                return Err(SkillError::BadPath {
                    dir: self.label.to_string(),
                    path: format!("{prefix}{}", name.to_string_lossy()),
                    reason: "is not UTF-8".into(),
                });
            };
            if name.starts_with('.') {
                continue;
            }
            let relative = format!("{prefix}{name}");
            let path = entry.path();
            let meta = std::fs::symlink_metadata(&path).map_err(|error| io(&path, error))?;
            let target = if meta.file_type().is_symlink() {
                self.inside(&path, &relative)?
            } else {
                path.clone()
            };
            let meta = std::fs::metadata(&target).map_err(|error| io(&path, error))?;
            if meta.is_dir() {
                if target != path {
                    return Err(SkillError::BadPath {
                        dir: self.label.to_string(),
                        path: relative,
                        reason: "is a symbolic link to a directory (link its files, or copy it)"
                            .into(),
                    });
                }
                self.visit(&path, &format!("{relative}/"), depth + 1)?;
            } else if meta.is_file() {
                self.read(&target, relative, meta.len())?;
            } else {
                return Err(SkillError::BadPath {
                    dir: self.label.to_string(),
                    path: relative,
                    reason: "is neither a file nor a directory".into(),
                });
            }
        }
        Ok(())
    }

    /// Where the link at `path` leads, if inside the skill's directory.
    fn inside(&self, path: &Path, relative: &str) -> Result<PathBuf, SkillError> {
        let outside = || SkillError::SymlinkOutside {
            dir: self.label.to_string(),
            path: relative.to_string(),
        };
        let target = path.canonicalize().map_err(|_| outside())?;
        if target.starts_with(self.root) {
            Ok(target)
        } else {
            Err(outside())
        }
    }

    fn read(&mut self, path: &Path, relative: String, size: u64) -> Result<(), SkillError> {
        if self.files.len() >= MAX_SKILL_FILES {
            return Err(SkillError::TooManyFiles {
                skill: self.label.to_string(),
                count: self.files.len() + 1,
                cap: MAX_SKILL_FILES,
            });
        }
        if size > MAX_SKILL_BYTES || self.total + size > MAX_SKILL_BYTES {
            let single = size > MAX_SKILL_BYTES;
            return Err(SkillError::TooLarge {
                skill: self.label.to_string(),
                what: if single {
                    relative
                } else {
                    "the skill (all its files)".into()
                },
                size: if single { size } else { self.total + size },
                cap: MAX_SKILL_BYTES,
            });
        }
        let bytes = std::fs::read(path).map_err(|error| SkillError::Io {
            path: path.to_path_buf(),
            reason: error.to_string(),
        })?;
        self.total += bytes.len() as u64;
        self.files.push((relative, Cow::Owned(bytes)));
        Ok(())
    }
}
