//! Where the CLI keeps transcripts: the config dir, its `projects` folder, one folder per
//! working directory (named as the CLI names it), git worktrees, and finding a session's file.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use super::error::HistoryError;
use super::options::Lookup;

/// The longest project folder name the CLI writes whole; a longer one is cut to this length
/// and a hash of the full path is added after a `-`.
const MAX_FOLDER_NAME: usize = 200;

/// The config dir: the one given, else `CLAUDE_CONFIG_DIR`, else `~/.claude`.
pub(crate) fn config_dir(lookup: &Lookup) -> Result<PathBuf, HistoryError> {
    if let Some(dir) = &lookup.config_dir {
        return Ok(dir.clone());
    }
    if let Some(dir) = std::env::var_os("CLAUDE_CONFIG_DIR").filter(|d| !d.is_empty()) {
        return Ok(PathBuf::from(dir));
    }
    std::env::home_dir()
        .filter(|home| !home.as_os_str().is_empty())
        .map(|home| home.join(".claude"))
        .ok_or(HistoryError::NoConfigDir)
}

/// The folder holding one folder per project.
pub(crate) fn projects_dir(lookup: &Lookup) -> Result<PathBuf, HistoryError> {
    config_dir(lookup).map(|dir| dir.join("projects"))
}

/// The CLI's 32-bit string hash (JavaScript: `h = (h << 5) - h + charCode | 0` over UTF-16
/// code units), absolute, in base 36.
fn js_string_hash(text: &str) -> String {
    let mut hash: i32 = 0;
    for unit in text.encode_utf16() {
        hash = (hash << 5).wrapping_sub(hash).wrapping_add(i32::from(unit));
    }
    let mut n = hash.unsigned_abs();
    if n == 0 {
        return "0".into();
    }
    let mut digits = Vec::new();
    while n > 0 {
        digits.push(char::from_digit(n % 36, 36).unwrap_or('0'));
        n /= 36;
    }
    digits.iter().rev().collect()
}

/// The name of a project's folder: the path with every character but ASCII letters and digits
/// made `-` (one per UTF-16 code unit, as the CLI's JavaScript counts them); a name longer than
/// 200 is cut to 200, and `-` and a hash of the path follow (the hash CLI 2.1.332 uses; some
/// earlier CLIs used another, see [`project_dir`]).
pub(crate) fn folder_name(path: &str) -> String {
    let mut name = String::with_capacity(path.len());
    for c in path.chars() {
        if c.is_ascii_alphanumeric() {
            name.push(c);
        } else {
            (0..c.len_utf16()).for_each(|_| name.push('-'));
        }
    }
    if name.len() <= MAX_FOLDER_NAME {
        return name;
    }
    name.truncate(MAX_FOLDER_NAME);
    format!("{name}-{}", js_string_hash(path))
}

/// A directory as the CLI records it: absolute, symbolic links resolved (when it exists).
pub(crate) fn canonical(dir: &Path) -> PathBuf {
    std::fs::canonicalize(dir)
        .or_else(|_| std::path::absolute(dir))
        .unwrap_or_else(|_| dir.to_path_buf())
}

/// The folder of the project that ran in `dir` (canonical), if there is one. For a long path
/// the hash after the cut may not be this crate's (CLIs before 2.1.332 could hash with their
/// runtime's own function): any folder named by the same first 200 characters and a `-` is
/// taken.
pub(crate) fn project_dir(projects: &Path, dir: &Path) -> Option<PathBuf> {
    let name = folder_name(&dir.to_string_lossy());
    let exact = projects.join(&name);
    if exact.is_dir() {
        return Some(exact);
    }
    if name.len() <= MAX_FOLDER_NAME {
        return None;
    }
    let prefix = format!("{}-", &name[..MAX_FOLDER_NAME]);
    std::fs::read_dir(projects)
        .ok()?
        .flatten()
        .find(|entry| {
            entry.file_name().to_string_lossy().starts_with(&prefix)
                && entry.file_type().is_ok_and(|t| t.is_dir())
        })
        .map(|entry| entry.path())
}

/// The worktrees of the git repository `dir` is in (`git worktree list --porcelain`), the main
/// one first; none when `dir` is not in a repository or git is not installed.
pub(crate) fn worktrees(dir: &Path) -> Vec<PathBuf> {
    let output = Command::new("git")
        .args(["worktree", "list", "--porcelain"])
        .current_dir(dir)
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .output();
    let Ok(output) = output else {
        return Vec::new();
    };
    if !output.status.success() {
        return Vec::new();
    }
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .filter_map(|line| line.strip_prefix("worktree "))
        .map(PathBuf::from)
        .collect()
}

/// Every project folder (sorted by name, for a stable search order).
pub(crate) fn all_project_dirs(projects: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(projects) else {
        return Vec::new();
    };
    let mut dirs: Vec<PathBuf> = entries
        .flatten()
        .filter(|entry| entry.file_type().is_ok_and(|t| t.is_dir()))
        .map(|entry| entry.path())
        .collect();
    dirs.sort();
    dirs
}

/// Tries `visit` on each project folder a session of `lookup` may be in, in order, until it
/// answers: with a `dir`, that project's folder, then (only if needed) its git worktrees'
/// folders; without, every project folder. Gives the answer, or what was searched.
pub(crate) fn search<T>(
    lookup: &Lookup,
    mut visit: impl FnMut(&Path) -> Result<Option<T>, HistoryError>,
) -> Result<Result<T, PathBuf>, HistoryError> {
    let projects = projects_dir(lookup)?;
    let Some(dir) = lookup.dir_path() else {
        for project in all_project_dirs(&projects) {
            if let Some(found) = visit(&project)? {
                return Ok(Ok(found));
            }
        }
        return Ok(Err(projects));
    };
    let dir = canonical(dir);
    if let Some(project) = project_dir(&projects, &dir)
        && let Some(found) = visit(&project)?
    {
        return Ok(Ok(found));
    }
    for worktree in worktrees(&dir) {
        if worktree == dir {
            continue;
        }
        if let Some(project) = project_dir(&projects, &worktree)
            && let Some(found) = visit(&project)?
        {
            return Ok(Ok(found));
        }
    }
    Ok(Err(projects.join(folder_name(&dir.to_string_lossy()))))
}

/// A session's transcript (`<project folder>/<id>.jsonl`, not empty: an empty file means
/// "not here"), with its project folder. `session_id` must be a checked UUID.
pub(crate) fn find_session(
    lookup: &Lookup,
    session_id: &str,
) -> Result<(PathBuf, PathBuf), HistoryError> {
    let file_name = format!("{session_id}.jsonl");
    let found = search(lookup, |project| {
        let path = project.join(&file_name);
        Ok(std::fs::metadata(&path)
            .is_ok_and(|meta| meta.is_file() && meta.len() > 0)
            .then(|| (path, project.to_path_buf())))
    })?;
    found.map_err(|searched| HistoryError::SessionNotFound {
        session_id: session_id.to_string(),
        searched,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folder_names_as_the_cli_writes_them() {
        assert_eq!(folder_name("/home/me/my repo"), "-home-me-my-repo");
        assert_eq!(folder_name("/tmp/a.b_c"), "-tmp-a-b-c");
        // One `-` per UTF-16 code unit: two for a character outside the BMP.
        assert_eq!(folder_name("/é/😀"), "-----");
        // Cut to 200, then `-` and the hash (computed with the JavaScript expression in Node).
        let long = format!("/{}", "a".repeat(250));
        assert_eq!(folder_name(&long), format!("-{}-feo44x", "a".repeat(199)));
        // The folder CLI 2.1.332 made for a session run in a 290-character directory.
        let segments: String = (1..=25).map(|n| format!("/segment-{n:02}")).collect();
        let cli_made = "-tmp-hist-long-segment-01-segment-02-segment-03-segment-04-segment-05-\
            segment-06-segment-07-segment-08-segment-09-segment-10-segment-11-segment-12-\
            segment-13-segment-14-segment-15-segment-16-segment-1-nxenzq";
        assert_eq!(folder_name(&format!("/tmp/hist-long{segments}")), cli_made);
    }

    #[test]
    fn the_hash_is_javascripts() {
        // Values computed with the JavaScript expression in Node.
        assert_eq!(js_string_hash(""), "0");
        assert_eq!(js_string_hash("a"), "2p");
        assert_eq!(js_string_hash("hello"), "1n1e4y");
    }
}
