//! The Claude Code CLI this release drives: the version it is tested with, how it is named in
//! the environment, and what the host tells it about itself. A leaf: it imports nothing of the
//! crate, so the error type, the transports and the options can all read it.

/// The environment variable naming the CLI executable.
pub const CLI_PATH_ENV: &str = "CLAUDE_CODE_CLI";

/// The Claude Code CLI version this release of claude-tools is tested with (its end-to-end
/// suite runs against it), and the newest it supports; the install command of
/// [`Error::CliNotFound`](crate::Error::CliNotFound) names it. A newer CLI gets a `tracing`
/// warning at connect ([`CliVersionSupport`]); CI also runs the end-to-end suite against the
/// newest release as soon as npm has it.
pub const CLI_VERSION: &str = "2.1.332";

/// The oldest Claude Code CLI version claude-tools supports: the oldest its end-to-end suite
/// has passed against. With an older CLI the session still starts, and a `tracing` warning says
/// what to upgrade to.
pub const OLDEST_CLI_VERSION: &str = "2.1.330";

/// How a CLI version stands against the versions this release was tested with
/// ([`OLDEST_CLI_VERSION`] to [`CLI_VERSION`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CliVersionSupport {
    /// Within the tested range.
    Tested,
    /// Older than [`OLDEST_CLI_VERSION`]: features the runtime relies on may be missing.
    TooOld,
    /// Newer than [`CLI_VERSION`]: most likely fine, but not yet tested.
    Newer,
    /// Not a version this can read (`major.minor.patch`, an optional suffix after `-` or a
    /// space ignored).
    Unreadable,
}

impl CliVersionSupport {
    /// How `version` (as the CLI reports it, e.g. `2.1.332`) stands.
    ///
    /// ```
    /// use claude_tools::transport::process::CliVersionSupport;
    ///
    /// assert_eq!(CliVersionSupport::of("2.1.332"), CliVersionSupport::Tested);
    /// assert_eq!(CliVersionSupport::of("2.0.99"), CliVersionSupport::TooOld);
    /// assert_eq!(CliVersionSupport::of("2.10.0"), CliVersionSupport::Newer);
    /// assert_eq!(CliVersionSupport::of("next"), CliVersionSupport::Unreadable);
    /// ```
    pub fn of(version: &str) -> Self {
        let (Some(version), Some(oldest), Some(newest)) = (
            parse_version(version),
            parse_version(OLDEST_CLI_VERSION),
            parse_version(CLI_VERSION),
        ) else {
            return CliVersionSupport::Unreadable;
        };
        if version < oldest {
            CliVersionSupport::TooOld
        } else if version > newest {
            CliVersionSupport::Newer
        } else {
            CliVersionSupport::Tested
        }
    }
}

/// `major.minor.patch` as numbers, anything after a `-`, `+` or space (a pre-release, build
/// metadata, `(Claude Code)`) left out.
fn parse_version(version: &str) -> Option<(u64, u64, u64)> {
    let core = version
        .trim()
        .split(['-', '+', ' '])
        .next()
        .unwrap_or_default();
    let mut parts = core.split('.').map(|part| part.parse::<u64>().ok());
    let version = (parts.next()??, parts.next()??, parts.next()??);
    parts.next().is_none().then_some(version)
}

/// The default `CLAUDE_CODE_ENTRYPOINT`: `sdk-cli`, the value the CLI gives itself when it runs
/// non-interactively with none set. Override it with
/// [`Options::entrypoint`](crate::options::Options::entrypoint).
///
/// The CLI (2.1.330) treats a host as an SDK host only for `sdk-ts`, `sdk-py` and `sdk-cli`;
/// any other value, such as an own `sdk-rust`, is treated like its own terminal. Observed with
/// the real CLI and a scripted model, one tool call, with and without a permission callback:
///
/// | entrypoint | `claude-code-guide` agent¹ | AskUserQuestion "Preview feature" text² | malformed `--allowedTools` warning³ |
/// |---|---|---|---|
/// | `sdk-py`, `sdk-ts` | no | no | yes |
/// | `sdk-cli` (default) | no | no | no |
/// | `sdk-rust` | yes | yes | yes |
///
/// ¹ in the `initialize` answer, `system/init.agents` and the agent list in the model's first
/// user message. ² with a permission callback (the tool is only offered then). ³ a
/// `system/informational` message and a stderr line, only while `CLAUDE_AGENT_SDK_VERSION` is
/// set (as by default): without it no entrypoint got the warning.
///
/// Otherwise `sdk-py`, `sdk-ts` and `sdk-cli` gave the model byte-identical requests (system
/// blocks, tools, messages) and the host identical `initialize` answers and `system/init`,
/// apart from the entrypoint itself in the User-Agent and the `cc_entrypoint=` billing system
/// block. `sdk-cli` is the value of those three that does not claim to be another SDK.
pub const ENTRYPOINT: &str = "sdk-cli";

/// The default `CLAUDE_AGENT_SDK_VERSION`: this crate's version. The CLI puts it in the
/// User-Agent as `agent-sdk/<version>` (an empty value leaves it out). Override it with
/// [`Options::agent_sdk_version`](crate::options::Options::agent_sdk_version).
pub const AGENT_SDK_VERSION: &str = env!("CARGO_PKG_VERSION");

/// The default `CLAUDE_AGENT_SDK_CLIENT_APP`: `claude-tools/<version>`. The CLI sends it in an
/// `x-client-app` header and in the User-Agent as `client-app/<value>` (an empty value leaves
/// both out), so the model's requests say
/// `claude-cli/<cli version> (external, sdk-cli, agent-sdk/<version>, client-app/claude-tools/<version>)`.
/// Override it with [`Options::client_app`](crate::options::Options::client_app), e.g. with your
/// application's name.
pub const CLIENT_APP: &str = concat!("claude-tools/", env!("CARGO_PKG_VERSION"));

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_are_compared_as_numbers() {
        assert_eq!(
            CliVersionSupport::of(CLI_VERSION),
            CliVersionSupport::Tested
        );
        assert_eq!(
            CliVersionSupport::of(OLDEST_CLI_VERSION),
            CliVersionSupport::Tested
        );
        assert_eq!(CliVersionSupport::of("2.1.331"), CliVersionSupport::Tested);
        assert_eq!(CliVersionSupport::of("2.1.329"), CliVersionSupport::TooOld);
        assert_eq!(CliVersionSupport::of("1.99.999"), CliVersionSupport::TooOld);
        // Not compared as text: 2.1.1000 > 2.1.332 > 2.1.40.
        assert_eq!(CliVersionSupport::of("2.1.1000"), CliVersionSupport::Newer);
        assert_eq!(CliVersionSupport::of("2.1.40"), CliVersionSupport::TooOld);
        assert_eq!(CliVersionSupport::of("3.0.0"), CliVersionSupport::Newer);
        assert_eq!(
            CliVersionSupport::of("2.1.332 (Claude Code)"),
            CliVersionSupport::Tested
        );
        assert_eq!(
            CliVersionSupport::of("2.1.333-beta.1"),
            CliVersionSupport::Newer
        );
        for unreadable in ["", "2.1", "2.1.x", "2.1.3.4", "v2.1.332", "-1.2.3"] {
            assert_eq!(
                CliVersionSupport::of(unreadable),
                CliVersionSupport::Unreadable,
                "{unreadable}"
            );
        }
    }
}
