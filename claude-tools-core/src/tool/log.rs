//! Where a call's log messages go: [`CallLogger`], the threshold the caller set and the sink the
//! transport gave.

use std::sync::Arc;

use serde::Serialize;

use crate::jsonrpc::{LogMessage, LoggingLevel, ServerNotification};

/// Receives the log messages of a call (`notifications/message`), for the transport to send.
pub type LogSink = dyn Fn(LogMessage) + Send + Sync;

/// A call's logger: the least severe level the client wants (`None`: send nothing) and where
/// the messages go (`None`: nowhere). The default sends nothing.
#[derive(Clone, Default)]
pub(crate) struct CallLogger {
    pub(crate) threshold: Option<LoggingLevel>,
    pub(crate) sink: Option<LogTarget>,
}

/// Where a call's log messages go: a sink of the caller's, or the router's notifier itself (as
/// `notifications/message`; no closure allocated per connection or per call for it).
#[derive(Clone)]
pub(crate) enum LogTarget {
    Sink(Arc<LogSink>),
    Notifier(crate::mcp::Notifier),
}

impl CallLogger {
    /// Whether a message at `level` would be sent.
    pub(crate) fn enabled(&self, level: LoggingLevel) -> bool {
        self.sink.is_some() && self.threshold.is_some_and(|threshold| level >= threshold)
    }

    /// Sends `data` at `level` (from `logger`, when named) if it passes the threshold. Data that
    /// does not serialise to JSON (a map with non-string keys) is not sent; the failure is
    /// logged on the server, since a log call has no one to return an error to.
    pub(crate) fn log<T: Serialize + ?Sized>(
        &self,
        level: LoggingLevel,
        logger: Option<&str>,
        data: &T,
    ) {
        let Some(sink) = self.sink.as_ref().filter(|_| self.enabled(level)) else {
            return;
        };
        match serde_json::to_value(data) {
            Ok(data) => {
                let mut message = LogMessage::new(level, data);
                message.logger = logger.map(String::from);
                match sink {
                    LogTarget::Sink(sink) => sink(message),
                    LogTarget::Notifier(notifier) => notifier(ServerNotification::Message(message)),
                }
            }
            Err(error) => {
                tracing::warn!(%error, %level, "a tool's log message is not JSON; not sent");
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Mutex;

    fn collecting(threshold: Option<LoggingLevel>) -> (CallLogger, Arc<Mutex<Vec<LogMessage>>>) {
        let sent = Arc::new(Mutex::new(Vec::new()));
        let sink = sent.clone();
        let logger = CallLogger {
            threshold,
            sink: Some(LogTarget::Sink(Arc::new(move |message| {
                sink.lock().unwrap().push(message)
            }))),
        };
        (logger, sent)
    }

    #[test]
    fn only_messages_at_or_above_the_threshold_are_sent() {
        let (logger, sent) = collecting(Some(LoggingLevel::Warning));
        logger.log(LoggingLevel::Info, None, "quiet");
        logger.log(LoggingLevel::Warning, Some("disk"), "nearly full");
        logger.log(
            LoggingLevel::Emergency,
            None,
            &serde_json::json!({"disk": "gone"}),
        );
        let sent = sent.lock().unwrap();
        assert_eq!(
            *sent,
            [
                LogMessage::new(LoggingLevel::Warning, "nearly full".into()).with_logger("disk"),
                LogMessage::new(LoggingLevel::Emergency, serde_json::json!({"disk": "gone"})),
            ]
        );
    }

    #[test]
    fn no_threshold_or_no_sink_sends_nothing() {
        let (logger, sent) = collecting(None);
        logger.log(LoggingLevel::Emergency, None, "unheard");
        assert!(!logger.enabled(LoggingLevel::Emergency));
        assert!(sent.lock().unwrap().is_empty());
        let without_sink = CallLogger {
            threshold: Some(LoggingLevel::Debug),
            sink: None,
        };
        assert!(!without_sink.enabled(LoggingLevel::Emergency));
    }

    #[test]
    fn data_that_is_not_json_is_dropped_not_a_panic() {
        let (logger, sent) = collecting(Some(LoggingLevel::Debug));
        let mut map = std::collections::HashMap::new();
        map.insert((1, 2), "tuple keys are not JSON object keys");
        logger.log(LoggingLevel::Error, None, &map);
        assert!(sent.lock().unwrap().is_empty());
    }
}
