//! Why a claim did not start its session ([`ClaimError`]).

use std::path::PathBuf;

use super::SpareProcess;
use super::claim::ClaimInfo;
use crate::error::Error;
use crate::transport::ExitInfo;

/// What a claim cannot carry, found before anything was sent.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum NotClaimable {
    /// An environment variable the CLI reads while it starts: it goes in the spare's
    /// [`Options::env`](crate::options::Options::env) (a claim takes only
    /// [`CLAIMABLE_ENV_KEYS`](super::CLAIMABLE_ENV_KEYS)).
    #[error(
        "env_key_not_claimable: {0} is read while the CLI starts; give it to prewarm() in the \
         options' env"
    )]
    EnvKey(String),
    /// Settings keys that govern hooks: a parked spare has registered its hooks already, so
    /// they go in the spare's options.
    #[error(
        "hook settings ({}) cannot be applied at claim; give them to prewarm() in the options' \
         settings",
        .0.join(", ")
    )]
    HookSettings(Vec<String>),
    /// The claim's working directory is empty.
    #[error("the claim's cwd is empty")]
    EmptyCwd,
    /// A path the CLI's JSON cannot carry.
    #[error("the path {0:?} is not UTF-8")]
    NotUtf8(PathBuf),
    /// The folder of a [trust attestation](super::ClaimOptions::workspace_trust) is relative:
    /// it must be absolute, as it is where the CLI runs.
    #[error("the workspace trust directory {0:?} is not absolute")]
    RelativeTrustDirectory(PathBuf),
}

/// Why [`SpareProcess::claim`] did not start the session. In every case but
/// [`NotClaimable`](ClaimError::NotClaimable) the spare is gone: start the session with
/// [`query`](crate::query::query) instead. In none of them did the prompt run.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ClaimError {
    /// Refused here, before anything was sent: the spare is handed back, still parked, and can
    /// be claimed again without what was refused.
    #[error("{reason}; nothing was sent and the spare is still parked")]
    NotClaimable {
        /// What the claim could not carry.
        reason: NotClaimable,
        /// The spare, unclaimed.
        spare: Box<SpareProcess>,
    },
    /// The CLI refused the claim. `reason` is the CLI's token (`not_a_spare`, `busy`,
    /// `cwd_not_found`, `cwd_not_a_directory`, `env_key_not_claimable`,
    /// `permission_mode_not_claimable`, `project_settings_not_claimable`, `claim_failed`…);
    /// `code` is set for the refusals the folder's or the machine's configuration causes, which
    /// the next claim of such a folder would meet too.
    #[error("the spare refused the claim ({reason}): {message}")]
    Refused {
        /// The reason token the CLI's message starts with.
        reason: String,
        /// The CLI's whole message.
        message: String,
        /// The CLI's error code, when it sent one.
        code: Option<String>,
    },
    /// The CLI refused the claim's settings overlay: the prompt was not sent. `claim` is set
    /// when the refused keys were those applied behind a claim that succeeded.
    #[error("settings_not_applied: {message}; the prompt was not sent")]
    SettingsNotApplied {
        /// The CLI's message.
        message: String,
        /// The claim's answer, when the claim itself had succeeded.
        claim: Option<ClaimInfo>,
    },
    /// The spare's process ended before it was claimed (or while the claim was sent).
    #[error("spare_exited: the spare process exited before it was claimed ({0:?})")]
    SpareExited(ExitInfo),
    /// The claim got no usable answer (a timeout, an answer of another shape).
    #[error(transparent)]
    Session(Error),
}

impl ClaimError {
    /// The spare back, when the claim was refused before anything was sent.
    pub fn into_spare(self) -> Option<SpareProcess> {
        match self {
            ClaimError::NotClaimable { spare, .. } => Some(*spare),
            _ => None,
        }
    }
}

/// The reason token a CLI refusal starts with: the text before its first `:` (or the whole
/// first word).
pub(crate) fn reason_token(message: &str) -> String {
    message
        .split(|c: char| c == ':' || c.is_whitespace())
        .next()
        .unwrap_or_default()
        .to_owned()
}

#[cfg(test)]
mod tests {
    use super::reason_token;

    #[test]
    fn the_reason_is_the_first_token_of_the_message() {
        assert_eq!(
            reason_token("cwd_not_found: the claim cwd does not exist"),
            "cwd_not_found"
        );
        assert_eq!(
            reason_token("env_key_not_claimable: FOO is read"),
            "env_key_not_claimable"
        );
        assert_eq!(reason_token("busy"), "busy");
    }
}
