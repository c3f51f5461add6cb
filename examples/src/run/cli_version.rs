//! The Claude Code CLI version the examples are tested with.

/// The Claude Code CLI version this workspace is tested with (the one `scripts/install-cli`
/// installs).
pub const PINNED_CLI_VERSION: &str = "2.1.332";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_pinned_version_is_the_one_scripts_install_cli_installs() {
        let script = include_str!("../../../scripts/install-cli");
        let pinned = format!("CLAUDE_CODE_VERSION:-{PINNED_CLI_VERSION}}}");
        assert!(
            script.contains(&pinned),
            "scripts/install-cli does not pin {PINNED_CLI_VERSION}"
        );
    }
}
