//! The configuration types [`Options`](super::Options) takes: the permission mode,
//! external MCP servers, subagents, setting sources and lists of tool names.

use std::collections::BTreeMap;
use std::sync::Arc;

use serde_json::{Value, json};

use crate::redact;

/// The CLI's permission modes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum PermissionMode {
    /// Ask for anything not allowed by a rule.
    Default,
    /// Accept file edits without asking.
    AcceptEdits,
    /// Plan only, run nothing.
    Plan,
    /// Run everything without asking.
    BypassPermissions,
    /// Deny anything not allowed by a rule, without asking.
    DontAsk,
    /// Let the CLI's classifier decide.
    Auto,
}

impl PermissionMode {
    /// The wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            PermissionMode::Default => "default",
            PermissionMode::AcceptEdits => "acceptEdits",
            PermissionMode::Plan => "plan",
            PermissionMode::BypassPermissions => "bypassPermissions",
            PermissionMode::DontAsk => "dontAsk",
            PermissionMode::Auto => "auto",
        }
    }

    /// The mode a wire name stands for, as the CLI reports modes: its `manual` is
    /// [`PermissionMode::Default`] (the TypeScript SDK maps it the same way). `None` for a name
    /// this crate does not know.
    ///
    /// ```
    /// use claude_tools_runtime::options::PermissionMode;
    ///
    /// assert_eq!(PermissionMode::from_wire("manual"), Some(PermissionMode::Default));
    /// assert_eq!(PermissionMode::from_wire("plan"), Some(PermissionMode::Plan));
    /// assert_eq!(PermissionMode::from_wire("yolo"), None);
    /// ```
    pub fn from_wire(name: &str) -> Option<Self> {
        Some(match name {
            "default" | "manual" => PermissionMode::Default,
            "acceptEdits" => PermissionMode::AcceptEdits,
            "plan" => PermissionMode::Plan,
            "bypassPermissions" => PermissionMode::BypassPermissions,
            "dontAsk" => PermissionMode::DontAsk,
            "auto" => PermissionMode::Auto,
            _ => return None,
        })
    }
}

/// An MCP server the CLI runs itself (not in-process), passed through `--mcp-config`.
///
/// Its `Debug` shows header and environment names, never their values (`<redacted>`).
#[derive(Clone, PartialEq)]
#[non_exhaustive]
pub enum ExternalServer {
    /// A subprocess speaking MCP over stdio.
    Stdio {
        /// The executable.
        command: String,
        /// Its arguments.
        args: Vec<String>,
        /// Its environment.
        env: BTreeMap<String, String>,
    },
    /// Streamable HTTP.
    Http {
        /// The endpoint.
        url: String,
        /// Extra headers.
        headers: BTreeMap<String, String>,
    },
    /// Server-sent events.
    Sse {
        /// The endpoint.
        url: String,
        /// Extra headers.
        headers: BTreeMap<String, String>,
    },
}

impl std::fmt::Debug for ExternalServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ExternalServer::Stdio { command, args, env } => f
                .debug_struct("Stdio")
                .field("command", command)
                .field("args", args)
                .field("env", &redact::NamesOnly::of_map(env))
                .finish(),
            ExternalServer::Http { url, headers } => f
                .debug_struct("Http")
                .field("url", url)
                .field("headers", &redact::NamesOnly::of_map(headers))
                .finish(),
            ExternalServer::Sse { url, headers } => f
                .debug_struct("Sse")
                .field("url", url)
                .field("headers", &redact::NamesOnly::of_map(headers))
                .finish(),
        }
    }
}

impl ExternalServer {
    /// A stdio server.
    pub fn stdio<I, S>(command: impl Into<String>, args: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        ExternalServer::Stdio {
            command: command.into(),
            args: args.into_iter().map(Into::into).collect(),
            env: BTreeMap::new(),
        }
    }

    /// An HTTP server.
    pub fn http(url: impl Into<String>) -> Self {
        ExternalServer::Http {
            url: url.into(),
            headers: BTreeMap::new(),
        }
    }

    /// An SSE server.
    pub fn sse(url: impl Into<String>) -> Self {
        ExternalServer::Sse {
            url: url.into(),
            headers: BTreeMap::new(),
        }
    }

    /// With an environment variable for a stdio server's process (an HTTP or SSE server has
    /// none: there it does nothing). Secrets are safe here: they reach the CLI over stdin
    /// ([`ConfigDelivery`](super::ConfigDelivery)).
    pub fn env(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        if let ExternalServer::Stdio { env, .. } = &mut self {
            env.insert(name.into(), value.into());
        }
        self
    }

    /// With a header on every request to an HTTP or SSE server (a stdio server has none: there
    /// it does nothing), e.g. `Authorization: Bearer …`, kept off the command line like
    /// [`env`](ExternalServer::env).
    pub fn header(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        if let ExternalServer::Http { headers, .. } | ExternalServer::Sse { headers, .. } =
            &mut self
        {
            headers.insert(name.into(), value.into());
        }
        self
    }

    /// The server's entry in `--mcp-config`.
    pub(crate) fn to_json(&self) -> Value {
        match self {
            ExternalServer::Stdio { command, args, env } => {
                let mut config = json!({"type": "stdio", "command": command, "args": args});
                if !env.is_empty() {
                    config["env"] = json!(env);
                }
                config
            }
            ExternalServer::Http { url, headers } | ExternalServer::Sse { url, headers } => {
                let kind = if matches!(self, ExternalServer::Http { .. }) {
                    "http"
                } else {
                    "sse"
                };
                let mut config = json!({"type": kind, "url": url});
                if !headers.is_empty() {
                    config["headers"] = json!(headers);
                }
                config
            }
        }
    }
}

/// Where the CLI reads settings from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum SettingSource {
    /// `~/.claude/settings.json`.
    User,
    /// `.claude/settings.json`.
    Project,
    /// `.claude/settings.local.json`.
    Local,
}

impl SettingSource {
    pub(super) fn as_str(self) -> &'static str {
        match self {
            SettingSource::User => "user",
            SettingSource::Project => "project",
            SettingSource::Local => "local",
        }
    }
}

/// A list of tool names, as [`Options::tools`](super::Options::tools), [`Options::allowed_tools`](super::Options::allowed_tools) and
/// [`Options::disallowed_tools`](super::Options::disallowed_tools) take it: an array, slice or `Vec` of `&str`, or a slice or
/// `Vec` of `String`.
///
/// These few concrete list types, rather than any iterator of anything string-like, are what
/// let an empty `[]` compile: only one of them is an array, so its item type is `&str`.
/// The trait is sealed; collect other iterators into a `Vec` first.
pub trait ToolNames: sealed::Sealed {
    /// The names, owned.
    fn into_names(self) -> Vec<String>;
}

mod sealed {
    pub trait Sealed {}
}

impl<const N: usize> sealed::Sealed for [&str; N] {}
impl<const N: usize> ToolNames for [&str; N] {
    fn into_names(self) -> Vec<String> {
        self.into_iter().map(String::from).collect()
    }
}

impl<const N: usize> sealed::Sealed for &[&str; N] {}
impl<const N: usize> ToolNames for &[&str; N] {
    fn into_names(self) -> Vec<String> {
        self.iter().copied().map(String::from).collect()
    }
}

impl sealed::Sealed for &[&str] {}
impl ToolNames for &[&str] {
    fn into_names(self) -> Vec<String> {
        self.iter().copied().map(String::from).collect()
    }
}

impl sealed::Sealed for Vec<&str> {}
impl ToolNames for Vec<&str> {
    fn into_names(self) -> Vec<String> {
        self.into_iter().map(String::from).collect()
    }
}

impl sealed::Sealed for &[String] {}
impl ToolNames for &[String] {
    fn into_names(self) -> Vec<String> {
        self.to_vec()
    }
}

impl sealed::Sealed for Vec<String> {}
impl ToolNames for Vec<String> {
    fn into_names(self) -> Vec<String> {
        self
    }
}

/// A callback for each line the CLI writes to stderr.
pub type StderrCallback = Arc<dyn Fn(&str) + Send + Sync>;
