//! Which transcript a store entry belongs to: the [`SessionKey`], and how it is made from a
//! working directory or from the path of a transcript the CLI wrote.

use std::path::{Component, Path};

use serde::{Deserialize, Serialize};

use crate::history::paths;

/// Names one transcript in a [`SessionStore`](super::SessionStore): a session's main transcript,
/// or (with a [`subpath`](Self::subpath)) one of its subagents'. The official SDKs' `SessionKey`.
///
/// The project key defaults to the CLI's own name for the working directory's folder under
/// `projects` (see [`SessionKey::project_key_for`]); a deployment whose hosts run the same
/// project under different paths names one with
/// [`SessionStoreOptions::project_key`](crate::options::SessionStoreOptions::project_key).
///
/// ```
/// use claude_tools::session_store::SessionKey;
///
/// let key = SessionKey::new("-srv-app", "3f1c2a9e-0b1d-4c55-9a7e-2d8e6f1a4b20");
/// assert_eq!(key.subpath, None);
/// let agent = key.clone().with_subpath("subagents/agent-a1b2");
/// assert_eq!(agent.session(), key);
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[non_exhaustive]
pub struct SessionKey {
    /// The project (a tenant, an application…): by default the working directory's folder name.
    #[serde(rename = "projectKey")]
    pub project_key: String,
    /// The session id (a UUID).
    #[serde(rename = "sessionId")]
    pub session_id: String,
    /// `None` for the main transcript; for a subagent's, its path under the session's folder
    /// without `.jsonl`, `/`-separated (`subagents/agent-<id>`). Never empty.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subpath: Option<String>,
}

impl SessionKey {
    /// The key of a session's main transcript.
    pub fn new(project_key: impl Into<String>, session_id: impl Into<String>) -> Self {
        Self {
            project_key: project_key.into(),
            session_id: session_id.into(),
            subpath: None,
        }
    }

    /// The same session's transcript at `subpath` (an empty one means the main transcript).
    pub fn with_subpath(mut self, subpath: impl Into<String>) -> Self {
        let subpath = subpath.into();
        self.subpath = (!subpath.is_empty()).then_some(subpath);
        self
    }

    /// The key of the session's main transcript (this key without its subpath).
    pub fn session(&self) -> SessionKey {
        SessionKey::new(&self.project_key, &self.session_id)
    }

    /// The project key the CLI's transcripts of sessions run in `dir` have by default: the
    /// name of their folder under `projects` (the directory made absolute with links resolved,
    /// every character but ASCII letters and digits made `-`, a long name cut and hashed), as
    /// [`claude_tools::sessions`](crate::history) finds it.
    ///
    /// ```
    /// use claude_tools::session_store::SessionKey;
    ///
    /// assert_eq!(SessionKey::project_key_for("/no/such/dir.d"), "-no-such-dir-d");
    /// ```
    pub fn project_key_for(dir: impl AsRef<Path>) -> String {
        paths::folder_name(&paths::canonical(dir.as_ref()).to_string_lossy())
    }

    /// The key of the transcript at `file` under `projects` (the CLI's `<config dir>/projects`):
    /// `<project>/<session>.jsonl` is a main transcript, `<project>/<session>/<…>/<name>.jsonl`
    /// a subagent's. `None` for a file elsewhere or of another shape. With `project_key`, that
    /// names the project instead of the folder.
    pub fn from_transcript_path(
        file: &Path,
        projects: &Path,
        project_key: Option<&str>,
    ) -> Option<SessionKey> {
        let relative = match file.strip_prefix(projects) {
            Ok(relative) => relative.to_path_buf(),
            // The CLI may name the config dir with its links resolved, or not.
            Err(_) => {
                let parent = std::fs::canonicalize(file.parent()?).ok()?;
                let projects = std::fs::canonicalize(projects).ok()?;
                parent.strip_prefix(&projects).ok()?.join(file.file_name()?)
            }
        };
        let mut parts = Vec::new();
        for component in relative.components() {
            match component {
                Component::Normal(part) => parts.push(part.to_str()?.to_string()),
                _ => return None,
            }
        }
        let folder = parts.first()?;
        let project = project_key.unwrap_or(folder).to_string();
        match parts.as_slice() {
            [_, file] => {
                let session = file.strip_suffix(".jsonl")?;
                Some(SessionKey::new(project, session))
            }
            [_, session, rest @ ..] if rest.len() >= 2 => {
                let mut sub: Vec<&str> = rest.iter().map(String::as_str).collect();
                let last = sub.pop()?;
                sub.push(last.strip_suffix(".jsonl").unwrap_or(last));
                Some(SessionKey::new(project, session.as_str()).with_subpath(sub.join("/")))
            }
            _ => None,
        }
    }

    /// Whether the session id is a UUID and the subpath holds no `..`, absolute or empty part:
    /// only such a key may become a path.
    pub(crate) fn is_safe_path(&self) -> bool {
        crate::history::ids::is_uuid(&self.session_id)
            && self.subpath.as_deref().is_none_or(|sub| {
                sub.split('/').all(|part| {
                    !part.is_empty() && part != "." && part != ".." && !part.contains('\\')
                })
            })
    }
}

impl std::fmt::Display for SessionKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.project_key, self.session_id)?;
        if let Some(subpath) = &self.subpath {
            write!(f, "/{subpath}")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ID: &str = "3f1c2a9e-0b1d-4c55-9a7e-2d8e6f1a4b20";

    #[test]
    fn keys_from_transcript_paths() {
        let projects = Path::new("/cfg/projects");
        let main = projects.join("-srv-app").join(format!("{ID}.jsonl"));
        assert_eq!(
            SessionKey::from_transcript_path(&main, projects, None),
            Some(SessionKey::new("-srv-app", ID))
        );
        assert_eq!(
            SessionKey::from_transcript_path(&main, projects, Some("tenant-7")),
            Some(SessionKey::new("tenant-7", ID))
        );
        let agent = projects
            .join("-srv-app")
            .join(ID)
            .join("subagents")
            .join("agent-a1.jsonl");
        assert_eq!(
            SessionKey::from_transcript_path(&agent, projects, None),
            Some(SessionKey::new("-srv-app", ID).with_subpath("subagents/agent-a1"))
        );
        for elsewhere in [
            "/other/-srv-app/x.jsonl",
            "/cfg/projects/x.jsonl",
            "/cfg/projects/p/x.txt",
        ] {
            assert_eq!(
                SessionKey::from_transcript_path(Path::new(elsewhere), projects, None),
                None,
                "{elsewhere}"
            );
        }
    }

    #[test]
    fn only_safe_keys_become_paths() {
        assert!(SessionKey::new("p", ID).is_safe_path());
        assert!(
            SessionKey::new("p", ID)
                .with_subpath("subagents/agent-1")
                .is_safe_path()
        );
        assert!(!SessionKey::new("p", "../x").is_safe_path());
        assert!(
            !SessionKey::new("p", ID)
                .with_subpath("subagents/../../x")
                .is_safe_path()
        );
        assert!(!SessionKey::new("p", ID).with_subpath("/etc").is_safe_path());
    }

    #[test]
    fn the_wire_form_is_the_sdks() {
        let key = SessionKey::new("p", ID).with_subpath("subagents/a");
        let json = serde_json::to_value(&key).unwrap();
        assert_eq!(
            json,
            serde_json::json!({"projectKey": "p", "sessionId": ID, "subpath": "subagents/a"})
        );
    }
}
