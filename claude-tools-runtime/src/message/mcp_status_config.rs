//! The `config` of an MCP server's status (the TypeScript SDK's `McpServerStatusConfig`): how
//! the CLI reaches the server, by its `type`, with what the host most often reads typed and
//! every other member kept.

use std::fmt;

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value};

use crate::redact;

/// How the CLI reaches an MCP server, as its status reports it
/// ([`McpServerStatus::config`](super::McpServerStatus::config)).
///
/// A config is never refused: one of a `type` this library does not know, or without the
/// members its `type` needs, is kept whole as `Other`. Each variant's `extra` holds the
/// members not typed here (`args`, `env`, `headers`, `timeout`, `alwaysLoad`, `tools`…), and
/// the config is written back as it came (with `type` written out for a stdio server that
/// left it implicit). Its `Debug` shows the names in `env` and `headers`, never their values
/// (`<redacted>`): they often hold tokens.
///
/// ```
/// use claude_tools::message::McpServerStatusConfig;
///
/// let config: McpServerStatusConfig = serde_json::from_value(serde_json::json!({
///     "type": "claudeai-proxy", "url": "https://mcp.example/x", "id": "srv_1"
/// }))
/// .unwrap();
/// assert_eq!(config.url(), Some("https://mcp.example/x"));
/// ```
#[derive(Clone, PartialEq)]
#[non_exhaustive]
pub enum McpServerStatusConfig {
    /// A subprocess speaking MCP over stdio (`type: "stdio"`, or no `type`).
    Stdio {
        /// The executable.
        command: String,
        /// The other members.
        extra: Map<String, Value>,
    },
    /// Server-sent events (`type: "sse"`).
    Sse {
        /// The endpoint.
        url: String,
        /// The other members.
        extra: Map<String, Value>,
    },
    /// Streamable HTTP (`type: "http"`).
    Http {
        /// The endpoint.
        url: String,
        /// The other members.
        extra: Map<String, Value>,
    },
    /// A server the SDK host runs in-process (`type: "sdk"`).
    Sdk {
        /// The name the host registered it under.
        name: String,
        /// The other members.
        extra: Map<String, Value>,
    },
    /// A claude.ai connector reached through its proxy (`type: "claudeai-proxy"`, the
    /// TypeScript SDK's `McpClaudeAIProxyServerConfig`).
    ClaudeAiProxy {
        /// The proxy's endpoint.
        url: String,
        /// The connector's id.
        id: String,
        /// The other members.
        extra: Map<String, Value>,
    },
    /// A config of another `type` (from a newer CLI), or one missing what its `type` needs,
    /// as it came.
    Other(Map<String, Value>),
}

impl McpServerStatusConfig {
    /// The endpoint of a remote server (sse, http, claude.ai proxy).
    pub fn url(&self) -> Option<&str> {
        match self {
            Self::Sse { url, .. } | Self::Http { url, .. } | Self::ClaudeAiProxy { url, .. } => {
                Some(url)
            }
            _ => None,
        }
    }

    /// Reads a config object; never fails (see [`Other`](Self::Other)).
    fn from_map(mut map: Map<String, Value>) -> Self {
        let kind = match map.get("type") {
            None => Some("stdio"),
            Some(Value::String(kind)) => Some(kind.as_str()),
            Some(_) => None,
        };
        let required = match kind {
            Some("stdio") => &["command"][..],
            Some("sse" | "http") => &["url"][..],
            Some("sdk") => &["name"][..],
            Some("claudeai-proxy") => &["url", "id"][..],
            _ => return Self::Other(map),
        };
        if !required
            .iter()
            .all(|key| map.get(*key).is_some_and(Value::is_string))
        {
            return Self::Other(map);
        }
        let kind = kind.unwrap_or_default().to_owned();
        let mut take = |key: &str| match map.remove(key) {
            Some(Value::String(text)) => text,
            _ => String::new(),
        };
        let first = take(required[0]);
        let second = required.get(1).map(|key| take(key)).unwrap_or_default();
        map.remove("type");
        match kind.as_str() {
            "stdio" => Self::Stdio {
                command: first,
                extra: map,
            },
            "sse" => Self::Sse {
                url: first,
                extra: map,
            },
            "http" => Self::Http {
                url: first,
                extra: map,
            },
            "sdk" => Self::Sdk {
                name: first,
                extra: map,
            },
            _ => Self::ClaudeAiProxy {
                url: first,
                id: second,
                extra: map,
            },
        }
    }

    /// A typed config's parts: its variant's name, its `type` on the wire, the members typed
    /// here (by their wire names) and the others; `Err` with the map of an `Other`.
    fn parts(&self) -> Result<Parts<'_>, &Map<String, Value>> {
        Ok(match self {
            Self::Stdio { command, extra } => ("Stdio", "stdio", vec![("command", command)], extra),
            Self::Sse { url, extra } => ("Sse", "sse", vec![("url", url)], extra),
            Self::Http { url, extra } => ("Http", "http", vec![("url", url)], extra),
            Self::Sdk { name, extra } => ("Sdk", "sdk", vec![("name", name)], extra),
            Self::ClaudeAiProxy { url, id, extra } => (
                "ClaudeAiProxy",
                "claudeai-proxy",
                vec![("url", url), ("id", id)],
                extra,
            ),
            Self::Other(map) => return Err(map),
        })
    }

    /// The config object, as the CLI wrote it.
    fn to_map(&self) -> Map<String, Value> {
        let (_, kind, typed, extra) = match self.parts() {
            Ok(parts) => parts,
            Err(other) => return other.clone(),
        };
        let mut map = Map::with_capacity(extra.len() + typed.len() + 1);
        map.insert("type".into(), kind.into());
        for (key, value) in typed {
            map.insert(key.into(), value.as_str().into());
        }
        map.extend(
            extra
                .iter()
                .map(|(key, value)| (key.clone(), value.clone())),
        );
        map
    }
}

/// What [`McpServerStatusConfig::parts`] gives: the variant's name, the wire `type`, the typed
/// members and the others.
type Parts<'a> = (
    &'static str,
    &'static str,
    Vec<(&'static str, &'a String)>,
    &'a Map<String, Value>,
);

impl fmt::Debug for McpServerStatusConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.parts() {
            Ok((variant, _, typed, extra)) => {
                let mut out = f.debug_struct(variant);
                for (name, value) in typed {
                    out.field(name, value);
                }
                out.field("extra", &redact::ConfigMembers(extra)).finish()
            }
            Err(other) => f
                .debug_tuple("Other")
                .field(&redact::ConfigMembers(other))
                .finish(),
        }
    }
}

impl<'de> Deserialize<'de> for McpServerStatusConfig {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Map::<String, Value>::deserialize(deserializer).map(Self::from_map)
    }
}

impl Serialize for McpServerStatusConfig {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.to_map().serialize(serializer)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn read(value: Value) -> McpServerStatusConfig {
        serde_json::from_value(value).unwrap()
    }

    #[test]
    fn each_type_reads_typed_and_keeps_the_rest() {
        let stdio = read(json!({"command": "npx", "args": ["-y", "srv"], "timeout": 9000}));
        assert_eq!(
            stdio,
            McpServerStatusConfig::Stdio {
                command: "npx".into(),
                extra: Map::from_iter([
                    ("args".to_owned(), json!(["-y", "srv"])),
                    ("timeout".to_owned(), json!(9000)),
                ]),
            }
        );
        let http = read(json!({"type": "http", "url": "https://h/mcp", "alwaysLoad": true}));
        assert_eq!(http.url(), Some("https://h/mcp"));
        assert!(matches!(http, McpServerStatusConfig::Http { ref extra, .. }
            if extra["alwaysLoad"] == true));
        assert!(matches!(read(json!({"type": "sse", "url": "https://s"})),
            McpServerStatusConfig::Sse { url, .. } if url == "https://s"));
        assert!(matches!(read(json!({"type": "sdk", "name": "calc"})),
            McpServerStatusConfig::Sdk { name, .. } if name == "calc"));
        let proxy = json!({"type": "claudeai-proxy", "url": "https://p", "id": "srv_1"});
        assert_eq!(
            read(proxy.clone()),
            McpServerStatusConfig::ClaudeAiProxy {
                url: "https://p".into(),
                id: "srv_1".into(),
                extra: Map::new(),
            }
        );
        assert_eq!(serde_json::to_value(read(proxy.clone())).unwrap(), proxy);
    }

    #[test]
    fn a_status_reads_its_config() {
        let status = json!({"name": "docs", "status": "connected", "scope": "project",
            "config": {"type": "http", "url": "https://docs.example/mcp"}, "source": "project"});
        let read: super::super::McpServerStatus = serde_json::from_value(status.clone()).unwrap();
        assert_eq!(
            read.config.as_ref().and_then(McpServerStatusConfig::url),
            Some("https://docs.example/mcp")
        );
        assert!(!read.extra.contains_key("config"));
        assert_eq!(serde_json::to_value(&read).unwrap(), status);
    }

    #[test]
    fn debug_names_env_and_headers_but_never_shows_their_values() {
        let configs = [
            json!({"command": "srv", "env": {"API_TOKEN": "sk-secret-1"}, "args": ["-v"]}),
            json!({"type": "http", "url": "https://h/mcp",
                "headers": {"Authorization": "Bearer sk-secret-2"}}),
            json!({"type": "sse", "url": "https://s", "headers": "sk-secret-3"}),
            json!({"type": "websocket", "url": "wss://w", "headers": {"X-Key": "sk-secret-4"}}),
        ];
        for config in configs {
            let shown = format!("{:?}", read(config.clone()));
            assert!(!shown.contains("sk-secret"), "{shown}");
            assert!(shown.contains("<redacted>"), "{shown}");
            for name in ["API_TOKEN", "Authorization", "X-Key"] {
                if config.to_string().contains(name) {
                    assert!(shown.contains(name), "{name} missing from {shown}");
                }
            }
        }
        let shown = format!("{:?}", read(json!({"command": "srv", "args": ["-v"]})));
        assert_eq!(
            shown,
            r#"Stdio { command: "srv", extra: {"args": Array [String("-v")]} }"#
        );
    }

    #[test]
    fn an_unknown_or_incomplete_config_is_kept_whole() {
        for config in [
            json!({"type": "websocket", "url": "wss://w"}),
            json!({"type": "http"}),
            json!({"type": "claudeai-proxy", "url": "https://p"}),
            json!({"type": 7, "command": "x"}),
            json!({"command": ["not", "a", "string"]}),
        ] {
            let read = read(config.clone());
            assert!(
                matches!(read, McpServerStatusConfig::Other(_)),
                "{config}: {read:?}"
            );
            assert_eq!(serde_json::to_value(&read).unwrap(), config);
        }
    }
}
