//! The Claude Code CLI this release drives: the version it is tested with, how it is named in
//! the environment, and what the host tells it about itself. A leaf: it imports nothing of the
//! crate, so the error type, the transports and the options can all read it.

/// The environment variable naming the CLI executable.
pub const CLI_PATH_ENV: &str = "CLAUDE_CODE_CLI";

/// The Claude Code CLI version this release of claude-tools is tested with (its end-to-end
/// suite runs against it); the install command of
/// [`Error::CliNotFound`](crate::Error::CliNotFound) names it.
pub const CLI_VERSION: &str = "2.1.332";

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
