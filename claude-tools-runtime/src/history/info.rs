//! What a session is, without its messages: [`SessionInfo`], [`list_sessions`] and
//! [`session_info`].

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use super::archive::{archived, is_programmatic};
use super::error::HistoryError;
use super::ids::is_uuid;
use super::lite::{info, read_ends};
use super::options::{ListSessions, Lookup, page};
use super::paths::{
    all_project_dirs, canonical, find_session, folder_name, project_dir, projects_dir, worktrees,
};

/// A session's summary, as [`list_sessions`] and [`session_info`] give it: read from the ends
/// of its transcript, not all of it.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct SessionInfo {
    /// The session id (a UUID): give it to [`Options::resume`](crate::options::Options::resume)
    /// to go on with the session.
    pub session_id: String,
    /// What to show for it: its title, else the last prompt or summary the CLI recorded, else
    /// its first prompt.
    pub summary: String,
    /// When its transcript last changed.
    pub last_modified: SystemTime,
    /// Its transcript's size in bytes; `None` when read from a store's running summary
    /// ([`StoreSessions::list`](crate::session_store::StoreSessions::list)), which has no size.
    pub file_size: Option<u64>,
    /// Its title: the last one set with [`rename_session`](super::rename_session) (or the
    /// CLI's `/rename`), else one the CLI generated.
    pub custom_title: Option<String>,
    /// The first prompt the user typed (on one line, at most 200 characters).
    pub first_prompt: Option<String>,
    /// The git branch it was on, last recorded.
    pub git_branch: Option<String>,
    /// The working directory it ran in.
    pub cwd: Option<PathBuf>,
    /// Its tag (see [`tag_session`](super::tag_session)).
    pub tag: Option<String>,
    /// When it started (its first timestamp).
    pub created_at: Option<SystemTime>,
    /// Whether it is archived ([`archive_session`](super::archive_session)): `None` when it
    /// never was (and for a session read from a store), `Some(false)` once unarchived or
    /// prompted again.
    pub archived: Option<bool>,
}

/// The sessions of one project folder, each read from its transcript's ends (the SDKs' and
/// daemons' only when `programmatic`).
fn sessions_in(project: &Path, cwd: Option<&Path>, programmatic: bool) -> Vec<SessionInfo> {
    let Ok(entries) = std::fs::read_dir(project) else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter_map(|entry| {
            let name = entry.file_name();
            let id = name.to_str()?.strip_suffix(".jsonl")?;
            if !is_uuid(id) {
                return None;
            }
            let path = entry.path();
            let ends = read_ends(&path)?;
            if !programmatic && is_programmatic(&ends) {
                return None;
            }
            let mut info = info(id, &ends, cwd)?;
            info.archived = archived(&path, id, &ends);
            Some(info)
        })
        .collect()
}

/// Lists sessions, newest first: those of every project, or with a `dir` those of that
/// project (and, with [`include_worktrees`](ListSessions::include_worktrees), of its git
/// repository's other worktrees).
///
/// Subagent transcripts are not sessions of their own and are left out, as is a session with
/// nothing to show yet (no prompt or title). A session found twice (in two worktrees' folders)
/// is listed once, its newest copy. A missing config dir or project is no sessions, not an
/// error.
///
/// ```no_run
/// use claude_tools::sessions::{ListSessions, list_sessions};
///
/// # fn main() -> Result<(), claude_tools::sessions::HistoryError> {
/// for session in list_sessions(&ListSessions::new().dir("/home/me/repo").limit(10))? {
///     println!("{}  {}", session.session_id, session.summary);
/// }
/// # Ok(())
/// # }
/// ```
pub fn list_sessions(options: &ListSessions) -> Result<Vec<SessionInfo>, HistoryError> {
    let projects = projects_dir(&options.lookup)?;
    let mut sessions = match options.lookup.dir_path() {
        None => all_project_dirs(&projects)
            .iter()
            .flat_map(|project| sessions_in(project, None, options.include_programmatic))
            .collect(),
        Some(dir) => project_sessions(&projects, &canonical(dir), options),
    };
    // One entry per id, the newest.
    let mut newest: HashMap<String, SessionInfo> = HashMap::new();
    for session in sessions.drain(..) {
        match newest.get(&session.session_id) {
            Some(kept) if kept.last_modified >= session.last_modified => {}
            _ => {
                newest.insert(session.session_id.clone(), session);
            }
        }
    }
    let mut sessions: Vec<SessionInfo> = newest.into_values().collect();
    sessions.sort_by(|a, b| {
        b.last_modified
            .cmp(&a.last_modified)
            .then_with(|| a.session_id.cmp(&b.session_id))
    });
    Ok(page(sessions, options.offset, options.limit))
}

/// The sessions of the project that ran in `dir`, with its worktrees' when asked.
fn project_sessions(projects: &Path, dir: &Path, options: &ListSessions) -> Vec<SessionInfo> {
    let programmatic = options.include_programmatic;
    let mut sessions = Vec::new();
    let mut seen = Vec::new();
    if let Some(project) = project_dir(projects, dir) {
        sessions.extend(sessions_in(&project, Some(dir), programmatic));
        seen.push(project);
    }
    let worktrees = if options.include_worktrees {
        worktrees(dir)
    } else {
        Vec::new()
    };
    if worktrees.len() <= 1 {
        return sessions;
    }
    // Each project folder whose name is a worktree's (longest names first: the most specific
    // match wins); a cut name matches the folders it begins.
    let mut names: Vec<(PathBuf, String)> = worktrees
        .into_iter()
        .map(|worktree| {
            let name = folder_name(&worktree.to_string_lossy());
            (worktree, name)
        })
        .collect();
    names.sort_by_key(|(_, name)| std::cmp::Reverse(name.len()));
    for project in all_project_dirs(projects) {
        if seen.contains(&project) {
            continue;
        }
        let Some(folder) = project.file_name().and_then(|n| n.to_str()) else {
            continue;
        };
        let matched = names.iter().find(|(_, name)| {
            folder == name
                || (name.len() > 200 && folder.starts_with(&format!("{}-", &name[..200])))
        });
        if let Some((worktree, _)) = matched {
            sessions.extend(sessions_in(&project, Some(worktree), programmatic));
        }
    }
    sessions
}

/// The summary of one session, found in the project that ran in `lookup.dir` (and its git
/// worktrees), or in any project.
///
/// `Ok(None)` when the transcript is there but has nothing to show yet (no prompt or title:
/// a session that has just started) or is a subagent's; [`HistoryError::SessionNotFound`] when
/// there is no transcript.
///
/// ```no_run
/// use claude_tools::sessions::{Lookup, session_info};
///
/// # fn main() -> Result<(), claude_tools::sessions::HistoryError> {
/// let id = "550e8400-e29b-41d4-a716-446655440000";
/// if let Some(info) = session_info(id, &Lookup::new().dir("/home/me/repo"))? {
///     println!("{}: {} ({} bytes)", info.session_id, info.summary, info.file_size.unwrap_or(0));
/// }
/// # Ok(())
/// # }
/// ```
pub fn session_info(
    session_id: &str,
    lookup: &Lookup,
) -> Result<Option<SessionInfo>, HistoryError> {
    if !is_uuid(session_id) {
        return Err(HistoryError::InvalidSessionId(session_id.to_string()));
    }
    let (path, project) = find_session(lookup, session_id)?;
    let Some(ends) = read_ends(&path) else {
        // Emptied or removed since it was found.
        return Err(HistoryError::SessionNotFound {
            session_id: session_id.to_string(),
            searched: project,
        });
    };
    let cwd = lookup.dir_path().map(canonical);
    Ok(info(session_id, &ends, cwd.as_deref()).map(|mut info| {
        info.archived = archived(&path, session_id, &ends);
        info
    }))
}
