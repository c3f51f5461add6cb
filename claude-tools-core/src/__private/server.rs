//! What a tool reads of its server, and what `MyServer::server()` calls to build it.

use crate::tool::{ServerDefinition, ToolServer};

/// What `MyServer::server()` calls: builds the server or panics with the reason. A server that
/// cannot be built is a programming error (a schema Claude would refuse), found the first time
/// the program builds it; `MyServer::try_server()` returns the error instead.
pub fn build_server<S: ServerDefinition>() -> ToolServer {
    match ToolServer::from_definition::<S>() {
        Ok(server) => server,
        Err(error) => panic!(
            "claude-tools: cannot build tool server `{}`: {error}",
            S::NAME
        ),
    }
}

/// What `#[tool]` knows about its server, read through one bound so that a `server = X` naming a
/// type that is not a `#[tool_server]` is reported once.
#[derive(Debug, Clone, Copy)]
pub struct ServerInfo {
    /// `ServerDefinition::NAME`.
    pub name: &'static str,
    /// `ServerDefinition::ALWAYS_LOAD`.
    pub always_load: bool,
    /// `ServerDefinition::DENY_UNKNOWN_ARGUMENTS`.
    pub deny_unknown_arguments: bool,
}

impl ServerInfo {
    /// The constants of server `S`.
    pub const fn of<S: ServerDefinition>() -> Self {
        Self {
            name: S::NAME,
            always_load: S::ALWAYS_LOAD,
            deny_unknown_arguments: S::DENY_UNKNOWN_ARGUMENTS,
        }
    }
}
