//! The `server.json` wire types: what the registry's schema (2025-12-11) describes, for what
//! a claude-tools server publishes.

use serde::{Deserialize, Serialize};

/// The JSON Schema a [`ServerJson`] follows (its `$schema`).
pub const SERVER_JSON_SCHEMA: &str =
    "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json";

/// A server's entry in the MCP registry (`server.json`), made by
/// [`ToolServer::server_json`](crate::tool::ToolServer::server_json). Serialize it with serde
/// (`serde_json::to_string_pretty`) and hand the file to the registry's publisher.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ServerJson {
    /// The schema the document follows ([`SERVER_JSON_SCHEMA`]).
    #[serde(rename = "$schema")]
    pub schema: String,
    /// The registry name, `namespace/name` in reverse-DNS form.
    pub name: String,
    /// What the server does (at most 100 characters).
    pub description: String,
    /// A display name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// The version published (the server's).
    pub version: String,
    /// Where the source lives.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub repository: Option<Repository>,
    /// The project's website.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub website_url: Option<String>,
    /// Packages a client installs and runs.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub packages: Vec<Package>,
    /// Endpoints a client connects to.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub remotes: Vec<Remote>,
}

/// Where the source of a server lives.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Repository {
    /// Its URL.
    pub url: String,
    /// Its host: `github`, `gitlab`…
    pub source: String,
    /// A folder of the repository, for a server in a monorepo.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subfolder: Option<String>,
}

/// A package a client installs and runs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Package {
    /// How it is downloaded: `cargo` for a crate.
    pub registry_type: String,
    /// The package registry: `https://crates.io` for a crate.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub registry_base_url: Option<String>,
    /// The package's name there.
    pub identifier: String,
    /// The exact version.
    pub version: String,
    /// How a client talks to it once started.
    pub transport: Transport,
}

/// How a client talks to a package it started.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "kebab-case")]
#[non_exhaustive]
pub enum Transport {
    /// Newline-delimited JSON-RPC on the process's stdin and stdout.
    Stdio,
    /// Streamable HTTP at `url`.
    StreamableHttp {
        /// The endpoint.
        url: String,
    },
}

/// An endpoint a client connects to: Streamable HTTP at `url`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Remote {
    /// Always `streamable-http` (what a claude-tools HTTP server speaks).
    #[serde(rename = "type")]
    pub transport: String,
    /// The endpoint, e.g. `https://mcp.example.com/mcp`.
    pub url: String,
}
