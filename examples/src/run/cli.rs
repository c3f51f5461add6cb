//! Finding the Claude Code CLI an example runs.

use std::path::PathBuf;

use claude_tools::transport::CliSearch;

use super::error::RunError;

/// The Claude Code CLI: `CLAUDE_CODE_CLI`, then `claude` in `PATH`, then the project-local and
/// home locations the runtime searches, then this workspace's `.cache/claude-cli` (where
/// `scripts/install-cli` puts it, found even when the example runs from another directory).
///
/// Fails with [`RunError::CliNotFound`], whose message says how to install the CLI.
pub fn find_cli() -> Result<PathBuf, RunError> {
    let cached = claude_tools_testkit::workspace_cli_path();
    let cached = std::path::absolute(&cached).unwrap_or(cached);
    find_cli_in(&CliSearch::from_env(), cached)
}

/// [`find_cli`] over a given search and workspace cache path.
fn find_cli_in(search: &CliSearch, cached: PathBuf) -> Result<PathBuf, RunError> {
    match search.find(None) {
        Ok(found) => Ok(found),
        // An explicit CLAUDE_CODE_CLI that names nothing is an error, not a reason to run another.
        Err(claude_tools::Error::CliNotFound { searched }) if search.env_cli.is_some() => {
            Err(RunError::CliNotFound { searched })
        }
        Err(claude_tools::Error::CliNotFound { mut searched }) => {
            if cached.is_file() {
                return Ok(cached);
            }
            searched.push(cached);
            Err(RunError::CliNotFound { searched })
        }
        Err(other) => Err(other.into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cli_is_searched_then_taken_from_the_workspace_cache_or_reported_missing() {
        let dir = claude_tools_testkit::TempDir::new("find-cli").unwrap();
        let cached = dir.path().join("claude");
        let nowhere = CliSearch::default();
        // Nothing anywhere: the cache is the last place listed.
        match find_cli_in(&nowhere, cached.clone()) {
            Err(RunError::CliNotFound { searched }) => {
                assert_eq!(searched, std::slice::from_ref(&cached))
            }
            other => panic!("{other:?}"),
        }
        std::fs::write(&cached, "#!/bin/sh\n").unwrap();
        assert_eq!(find_cli_in(&nowhere, cached.clone()).unwrap(), cached);
        // CLAUDE_CODE_CLI naming nothing is not overridden by the cache.
        let explicit = CliSearch {
            env_cli: Some(dir.path().join("missing").into_os_string()),
            ..CliSearch::default()
        };
        match find_cli_in(&explicit, cached) {
            Err(RunError::CliNotFound { searched }) => {
                assert_eq!(searched, [dir.path().join("missing")])
            }
            other => panic!("{other:?}"),
        }
    }
}
