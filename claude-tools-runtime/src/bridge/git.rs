//! The git context of a new session: where the remote session clones from (`sources`) and
//! which branch it may push to (`outcomes`).

use serde_json::{Value, json};

/// Git source and outcome context attached to a new code session
/// ([`CreateCodeSession::git_context`](super::CreateCodeSession::git_context)).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct CodeSessionGitContext {
    /// The repository's URL (`https://github.com/owner/name`, `git@github.com:owner/name.git`
    /// or `owner/name`).
    pub git_repo_url: String,
    /// The branch to work on.
    pub branch: String,
    /// The repository's default branch, when known for sure. Load-bearing for branch
    /// continuity: without it `branch` is left out of `outcomes.branches` (the service never
    /// acts on a guess), and the remote session works on a branch of its own. Read it with
    /// `git symbolic-ref refs/remotes/origin/HEAD`.
    pub default_branch: Option<String>,
}

impl CodeSessionGitContext {
    /// A context for `branch` of the repository at `git_repo_url`, default branch unknown.
    pub fn new(git_repo_url: impl Into<String>, branch: impl Into<String>) -> Self {
        CodeSessionGitContext {
            git_repo_url: git_repo_url.into(),
            branch: branch.into(),
            default_branch: None,
        }
    }

    /// Sets the repository's default branch.
    pub fn default_branch(mut self, branch: impl Into<String>) -> Self {
        self.default_branch = Some(branch.into());
        self
    }
}

/// Caller-owned de-duplication of the "branch dropped" log line of
/// [`create_code_session`](super::create_code_session): make one per logical create (outside
/// the retry loop) and pass it to every attempt, so the line is logged once per decision.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct BranchDropLogDedup {
    /// The key of the last decision logged.
    pub last_key: Option<String>,
}

/// The `sources`, `outcomes` and the log line (with its de-duplication key) of a context, or
/// `None` when the URL names no repository this can read.
pub(crate) struct GitFields {
    pub(crate) sources: Value,
    pub(crate) outcomes: Value,
    pub(crate) dropped: Option<(String, String)>,
}

pub(crate) fn git_fields(context: &CodeSessionGitContext) -> Option<GitFields> {
    let (host, owner, name) = parse_repo_url(&context.git_repo_url)?;
    let branch = if context.branch == "HEAD" {
        ""
    } else {
        context.branch.as_str()
    };
    let default = context.default_branch.as_deref().filter(|b| !b.is_empty());
    let revision = if branch.is_empty() {
        default
    } else {
        Some(branch)
    };
    let branches: Vec<&str> = match default {
        Some(default) if !branch.is_empty() && branch != default => vec![branch],
        _ => Vec::new(),
    };
    let dropped = (!branch.is_empty() && branches.is_empty()).then(|| {
        let (why, message) = match default {
            Some(_) => (
                "is_default",
                format!(
                    "requested branch '{branch}' is the default branch: left out of \
                     outcomes.branches (the runner stays on the clone)"
                ),
            ),
            None => (
                "no_evidence",
                format!(
                    "the default branch is unknown: branch '{branch}' is left out of \
                     outcomes.branches and the remote session works on a generated branch; \
                     pass CodeSessionGitContext::default_branch to keep the branch"
                ),
            ),
        };
        (format!("{why}:{}:{branch}", context.git_repo_url), message)
    });
    let mut source =
        json!({"type": "git_repository", "url": format!("https://{host}/{owner}/{name}")});
    if let Some(revision) = revision {
        source["revision"] = Value::from(revision);
    }
    Some(GitFields {
        sources: json!([source]),
        outcomes: json!([{
            "type": "git_repository",
            "git_info": {"type": "github", "repo": format!("{owner}/{name}"), "branches": branches},
        }]),
        dropped,
    })
}

/// `(host, owner, name)` of `https://host/owner/name[.git]`, `ssh://git@host/owner/name`,
/// `git@host:owner/name[.git]` or `owner/name` (on github.com).
fn parse_repo_url(url: &str) -> Option<(String, String, String)> {
    let url = url.trim();
    let (host, path) = if let Some(rest) = url
        .strip_prefix("https://")
        .or_else(|| url.strip_prefix("http://"))
        .or_else(|| url.strip_prefix("ssh://"))
        .or_else(|| url.strip_prefix("git://"))
    {
        let rest = rest.rsplit_once('@').map_or(rest, |(_, host)| host);
        rest.split_once('/')?
    } else if let Some((user_host, path)) = url.split_once(':') {
        let host = user_host
            .rsplit_once('@')
            .map_or(user_host, |(_, host)| host);
        (host, path)
    } else {
        ("github.com", url)
    };
    let host = host.split(':').next()?.to_ascii_lowercase();
    let path = path.trim_end_matches('/');
    let path = path.strip_suffix(".git").unwrap_or(path);
    let mut parts = path.split('/');
    let (owner, name) = (parts.next()?, parts.next()?);
    let valid = |part: &str| {
        !part.is_empty()
            && part != "."
            && part != ".."
            && part
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
    };
    (parts.next().is_none() && !host.is_empty() && valid(owner) && valid(name))
        .then(|| (host, owner.to_owned(), name.to_owned()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn repository_urls_of_every_usual_form_are_read() {
        let want = Some(("github.com".into(), "acme".into(), "app".into()));
        assert_eq!(parse_repo_url("https://github.com/acme/app"), want);
        assert_eq!(parse_repo_url("https://github.com/acme/app.git"), want);
        assert_eq!(parse_repo_url("git@github.com:acme/app.git"), want);
        assert_eq!(parse_repo_url("ssh://git@github.com/acme/app"), want);
        assert_eq!(parse_repo_url("acme/app"), want);
        assert_eq!(parse_repo_url("https://github.com/acme"), None);
        assert_eq!(parse_repo_url("https://github.com/acme/app/tree/x"), None);
        assert_eq!(parse_repo_url("https://github.com/../app"), None);
    }

    #[test]
    fn the_branch_is_kept_only_when_the_default_branch_is_known_and_differs() {
        let kept =
            git_fields(&CodeSessionGitContext::new("acme/app", "feature").default_branch("main"))
                .unwrap();
        assert_eq!(kept.outcomes[0]["git_info"]["branches"], json!(["feature"]));
        assert_eq!(kept.sources[0]["revision"], "feature");
        assert!(kept.dropped.is_none());
        let unknown = git_fields(&CodeSessionGitContext::new("acme/app", "feature")).unwrap();
        assert_eq!(unknown.outcomes[0]["git_info"]["branches"], json!([]));
        assert!(unknown.dropped.unwrap().0.starts_with("no_evidence:"));
        let default =
            git_fields(&CodeSessionGitContext::new("acme/app", "main").default_branch("main"))
                .unwrap();
        assert!(default.dropped.unwrap().0.starts_with("is_default:"));
    }
}
