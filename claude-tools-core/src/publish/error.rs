//! [`PublishError`]: why a `server.json` cannot be made.

/// Why [`ToolServer::server_json`](crate::tool::ToolServer::server_json) cannot make a
/// `server.json` the registry accepts.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum PublishError {
    /// The registry name is not `namespace/name` (reverse DNS, e.g. `io.github.alice/units`).
    #[error(
        "`{0}` is not a registry name: write `namespace/name` in reverse-DNS form, e.g. \
         `io.github.alice/units` (3 to 200 characters; letters, digits, `.` and `-` before the \
         `/`, also `_` after it)"
    )]
    InvalidName(String),
    /// No description: neither [`PublishInfo::description`](super::PublishInfo::description)
    /// nor the server's instructions.
    #[error(
        "the server has no description: give one with `PublishInfo::description` (or set the \
         server's instructions)"
    )]
    MissingDescription,
    /// The description is longer than the registry takes.
    #[error(
        "the description has {chars} characters and the registry takes at most {max}: give a \
         shorter one with `PublishInfo::description`"
    )]
    DescriptionTooLong {
        /// Its length, in characters.
        chars: usize,
        /// The registry's limit.
        max: usize,
    },
    /// The version is not one exact version (`latest`, a range, empty, too long).
    #[error(
        "`{0}` is not an exact version: the registry takes one version such as `1.2.0`, not \
         `latest` or a range"
    )]
    InvalidVersion(String),
    /// A remote URL is not an `http://` or `https://` URL without spaces.
    #[error(
        "`{0}` is not a remote URL: write the endpoint's `https://` URL, e.g. `https://mcp.example.com/mcp`"
    )]
    InvalidRemoteUrl(String),
    /// A crate name is not one crates.io takes.
    #[error(
        "`{0}` is not a crate name: ASCII letters, digits, `-` and `_`, starting with a letter, \
         at most 64 characters"
    )]
    InvalidCrateName(String),
    /// Neither a package nor a remote: a client would have nothing to run or connect to.
    #[error(
        "the server.json says neither how to install the server nor where to reach it: add a \
         crate with `PublishInfo::crate_package` or an endpoint with `PublishInfo::remote`"
    )]
    NothingToRun,
}
