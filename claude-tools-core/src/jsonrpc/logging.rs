//! MCP logging on the wire: the eight [`LoggingLevel`]s, the params of `logging/setLevel` and of
//! `notifications/message` ([`LogMessage`]).

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The method a client sets the least severe level it wants to be sent with.
pub const LOGGING_SET_LEVEL: &str = "logging/setLevel";

/// The method of a log message a server sends its client.
pub const LOG_MESSAGE: &str = "notifications/message";

/// The severity of a log message: the syslog levels of RFC 5424 §6.2.1, as MCP names them,
/// least severe first (so `Ord` says which is more severe).
///
/// ```
/// use claude_tools::mcp::LoggingLevel;
///
/// assert!(LoggingLevel::Error > LoggingLevel::Warning);
/// assert_eq!("notice".parse::<LoggingLevel>(), Ok(LoggingLevel::Notice));
/// assert_eq!(serde_json::to_string(&LoggingLevel::Emergency).unwrap(), r#""emergency""#);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LoggingLevel {
    /// Detailed debugging information (function entry and exit).
    Debug,
    /// General information (how an operation is getting on).
    Info,
    /// A normal but significant event (a configuration change).
    Notice,
    /// A warning (a deprecated feature used).
    Warning,
    /// An error (an operation failed).
    Error,
    /// A critical condition (a component of the system failed).
    Critical,
    /// Action must be taken at once (data corruption detected).
    Alert,
    /// The system is unusable.
    Emergency,
}

impl LoggingLevel {
    /// Every level, least severe first.
    pub const ALL: [LoggingLevel; 8] = [
        LoggingLevel::Debug,
        LoggingLevel::Info,
        LoggingLevel::Notice,
        LoggingLevel::Warning,
        LoggingLevel::Error,
        LoggingLevel::Critical,
        LoggingLevel::Alert,
        LoggingLevel::Emergency,
    ];

    /// The level's name on the wire (`"debug"` … `"emergency"`).
    pub fn as_str(self) -> &'static str {
        match self {
            LoggingLevel::Debug => "debug",
            LoggingLevel::Info => "info",
            LoggingLevel::Notice => "notice",
            LoggingLevel::Warning => "warning",
            LoggingLevel::Error => "error",
            LoggingLevel::Critical => "critical",
            LoggingLevel::Alert => "alert",
            LoggingLevel::Emergency => "emergency",
        }
    }
}

impl fmt::Display for LoggingLevel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A name that is not one of the eight [`LoggingLevel`]s.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownLoggingLevel;

impl fmt::Display for UnknownLoggingLevel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(
            "not a logging level: debug, info, notice, warning, error, critical, alert or emergency",
        )
    }
}

impl std::error::Error for UnknownLoggingLevel {}

impl FromStr for LoggingLevel {
    type Err = UnknownLoggingLevel;

    fn from_str(name: &str) -> Result<Self, Self::Err> {
        LoggingLevel::ALL
            .into_iter()
            .find(|level| level.as_str() == name)
            .ok_or(UnknownLoggingLevel)
    }
}

/// The params of `logging/setLevel`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
pub(crate) struct SetLevelParams {
    /// The least severe level the client wants to be sent.
    pub(crate) level: LoggingLevel,
}

/// The params of a `notifications/message`: one log message from the server.
///
/// ```
/// use claude_tools::mcp::{LogMessage, LoggingLevel, ServerNotification};
/// use serde_json::json;
///
/// let message = LogMessage::new(LoggingLevel::Error, json!({"error": "Connection failed"}))
///     .with_logger("database");
/// assert_eq!(
///     ServerNotification::Message(message).to_value(),
///     json!({
///         "jsonrpc": "2.0",
///         "method": "notifications/message",
///         "params": {"level": "error", "logger": "database", "data": {"error": "Connection failed"}}
///     })
/// );
/// ```
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub struct LogMessage {
    /// How severe it is.
    pub level: LoggingLevel,
    /// Who logged it (a component of the server), when it says.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub logger: Option<String>,
    /// What is logged: any JSON value (a string, an object with details).
    pub data: Value,
}

impl LogMessage {
    /// A message at `level` carrying `data`, with no logger name.
    pub fn new(level: LoggingLevel, data: Value) -> Self {
        Self {
            level,
            logger: None,
            data,
        }
    }

    /// Names the logger (the part of the server the message comes from).
    pub fn with_logger(mut self, logger: impl Into<String>) -> Self {
        self.logger = Some(logger.into());
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_are_ordered_by_severity_and_named_as_mcp_names_them() {
        let names: Vec<String> = LoggingLevel::ALL
            .iter()
            .map(|level| {
                serde_json::to_value(level)
                    .unwrap()
                    .as_str()
                    .unwrap()
                    .to_string()
            })
            .collect();
        assert_eq!(
            names,
            [
                "debug",
                "info",
                "notice",
                "warning",
                "error",
                "critical",
                "alert",
                "emergency"
            ]
        );
        assert!(LoggingLevel::ALL.windows(2).all(|pair| pair[0] < pair[1]));
        for level in LoggingLevel::ALL {
            assert_eq!(level.as_str().parse::<LoggingLevel>(), Ok(level));
            assert_eq!(level.to_string(), level.as_str());
        }
        assert_eq!("warn".parse::<LoggingLevel>(), Err(UnknownLoggingLevel));
        assert_eq!("INFO".parse::<LoggingLevel>(), Err(UnknownLoggingLevel));
    }

    #[test]
    fn a_message_without_a_logger_leaves_the_key_out() {
        let message = LogMessage::new(LoggingLevel::Info, Value::String("started".into()));
        assert_eq!(
            serde_json::to_value(&message).unwrap(),
            serde_json::json!({"level": "info", "data": "started"})
        );
    }
}
