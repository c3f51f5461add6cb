//! `Options::install_cli_if_missing` without the `install` feature: a method that exists only
//! to say which feature to turn on (a missing method would be rustc's bare "no method named
//! `install_cli_if_missing` found").

use super::Options;

/// What `Options::install_cli_if_missing` would take with the `install` feature on; without
/// it, nothing does (no type implements this trait), and the error names the feature.
#[diagnostic::on_unimplemented(
    message = "`Options::install_cli_if_missing` needs claude-tools' `install` feature",
    label = "the CLI installer is not compiled in",
    note = "turn it on: `cargo add claude-tools --features install` (it brings an HTTP client \
            with TLS, to fetch the CLI from the npm registry)"
)]
pub trait InstallFeatureIsOff {}

impl Options {
    /// Needs the `install` feature (`cargo add claude-tools --features install`): without it
    /// this method only exists to say so at compile time.
    #[doc(hidden)]
    pub fn install_cli_if_missing<B: InstallFeatureIsOff>(self, install: B) -> Self {
        // Never called: no type implements the bound.
        let _ = install;
        self
    }
}
