//! Why a run could not start or finish.

use std::path::PathBuf;

use super::cli_version::PINNED_CLI_VERSION;

/// Why a run could not start or finish.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RunError {
    /// The Claude Code CLI is not installed where the runner looks.
    #[error(
        "the Claude Code CLI was not found (looked in: {}).\n\
         Install the pinned version with `scripts/install-cli` in the claude-tools repository \
         (it goes to .cache/claude-cli, where the examples find it), or with \
         `npm install @anthropic-ai/claude-code@{PINNED_CLI_VERSION}` and its node_modules/.bin \
         on PATH, or point CLAUDE_CODE_CLI at the `claude` executable.",
        searched.iter().map(|p| p.display().to_string()).collect::<Vec<_>>().join(", ")
    )]
    CliNotFound {
        /// Every place looked at, in order.
        searched: Vec<PathBuf>,
    },
    /// The scripted model server or the throwaway directories could not be set up.
    #[error("cannot set up the run: {0}")]
    Setup(#[from] std::io::Error),
    /// The session failed (the CLI could not start, exited early…).
    #[error(transparent)]
    Session(#[from] claude_tools::Error),
    /// The CLI's output ended without a `result` message.
    #[error("the CLI ended without a result")]
    NoResult,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cli_not_found_message_says_how_to_install_it() {
        let error = RunError::CliNotFound {
            searched: vec![PathBuf::from("/nowhere/claude")],
        };
        assert_eq!(
            error.to_string(),
            "the Claude Code CLI was not found (looked in: /nowhere/claude).\n\
             Install the pinned version with `scripts/install-cli` in the claude-tools repository \
             (it goes to .cache/claude-cli, where the examples find it), or with \
             `npm install @anthropic-ai/claude-code@2.1.332` and its node_modules/.bin on PATH, \
             or point CLAUDE_CODE_CLI at the `claude` executable."
        );
    }
}
