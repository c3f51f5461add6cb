//! Installing the CLI at connect when none is found (feature `install`).

use super::Options;

impl Options {
    /// When no Claude Code CLI is found at connect, install the pinned version
    /// ([`CLI_VERSION`](crate::transport::process::CLI_VERSION)) from the npm registry into the
    /// per-user cache and run that (default `false`: not found is an error). Needs the
    /// `install` feature.
    ///
    /// The install is [`Installer::new`](crate::install::Installer::new)'s: this platform's
    /// package, checked against the registry's integrity hash, unpacked atomically; the
    /// registry is `CLAUDE_TOOLS_NPM_REGISTRY` when set, the directory `CLAUDE_TOOLS_CLI_DIR`
    /// when set. It happens once per machine: later connects find the install (it is the last
    /// place [`CliSearch`](crate::transport::CliSearch) looks). A CLI found anywhere else is
    /// used as it is, whatever its version; [`Options::cli_path`] and `CLAUDE_CODE_CLI` stay
    /// final (a wrong path is an error, not a reason to install). A failed install fails the
    /// connect with [`Error::Install`](crate::Error::Install), saying why (offline, no package
    /// for this platform, a hash that does not match…).
    ///
    /// The first connect on a machine waits for the download (about 190 MB).
    ///
    /// ```
    /// use claude_tools::Options;
    ///
    /// let options = Options::new().install_cli_if_missing(true);
    /// # let _ = options;
    /// ```
    pub fn install_cli_if_missing(mut self, install: bool) -> Self {
        self.install_cli = install;
        self
    }
}
