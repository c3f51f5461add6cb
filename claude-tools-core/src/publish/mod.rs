//! Publishing a server to the MCP registry: its `server.json`, made from the server's own
//! definition ([`ToolServer::server_json`]).
//!
//! The registry (`registry.modelcontextprotocol.io`) lists servers by a reverse-DNS name
//! (`io.github.owner/units`) and says how to run each: a package a client installs and starts
//! (for a Rust server, a crate on crates.io, `registryType: "cargo"`, run over stdio), a remote
//! URL it connects to (Streamable HTTP), or both. The name, the version and the description
//! come from the server; what only the publisher knows (the registry name, where the code
//! lives, the packages and URLs) from [`PublishInfo`].
//!
//! ```
//! use claude_tools::prelude::*;
//! use claude_tools::publish::PublishInfo;
//!
//! #[tool_server(name = "units", version = "1.2.0", instructions = "Unit conversions.")]
//! pub struct Units;
//!
//! let info = PublishInfo::new("io.github.alice/units")
//!     .repository("https://github.com/alice/units")
//!     .crate_package("units-mcp")
//!     .remote("https://units.example.com/mcp");
//! let server_json = Units::server().server_json(&info).unwrap();
//! assert_eq!(server_json.version, "1.2.0");
//! assert_eq!(server_json.description, "Unit conversions.");
//! let json = serde_json::to_value(&server_json).unwrap();
//! assert_eq!(json["packages"][0]["registryType"], "cargo");
//! assert_eq!(json["remotes"][0]["type"], "streamable-http");
//! ```
//!
//! The registry checks that the publisher owns each package. For a crate, it reads the
//! crate's README on crates.io (of the version published) and looks for the marker
//! `mcp-name: io.github.alice/units` ([`PublishInfo::mcp_name_marker`]), followed by a space,
//! an end of line or an HTML tag; an HTML comment keeps it out of sight.

mod error;
mod info;
mod server_json;

pub use error::PublishError;
pub use info::{CratePackage, PublishInfo};
pub use server_json::{Package, Remote, Repository, SERVER_JSON_SCHEMA, ServerJson, Transport};

use crate::tool::ToolServer;

impl ToolServer {
    /// The registry's `server.json` for this server, as `info` says it is published: the
    /// server's name is `info`'s registry name, its version the server's (unless `info` gives
    /// another), its description `info`'s or else the server's instructions. Fails with what
    /// the registry would refuse: a name that is not `namespace/name`, no description or one
    /// over 100 characters, a version range, a remote URL that is not `http(s)://`, nothing to
    /// run (no package, no remote).
    pub fn server_json(&self, info: &PublishInfo) -> Result<ServerJson, PublishError> {
        info.server_json(self.version(), self.instructions())
    }
}
