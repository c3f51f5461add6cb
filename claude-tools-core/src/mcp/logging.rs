//! MCP logging (2025-11-25): `logging/setLevel`, and the level each connection keeps for the
//! log messages its calls send.
//!
//! | message | answer |
//! |---|---|
//! | `logging/setLevel {level}` | `{}`; from then on the connection's calls send messages at `level` and above |
//! | `logging/setLevel` with a level that is not one of the eight, or without params | `-32602`, naming the levels |
//!
//! Until the client sets a level, every message is sent ([`DEFAULT_LOG_LEVEL`]): MCP leaves the
//! default to the server, the official TypeScript and Python SDKs send everything to a client
//! that never asked, and a stateless HTTP server, whose every request is a connection of its
//! own, could otherwise never send any.

use std::sync::atomic::{AtomicU8, Ordering};

use super::McpRouter;
use crate::jsonrpc::{
    Answer, ErrorObject, LOGGING_SET_LEVEL, LoggingLevel, RawParams, RequestId, Response,
    SetLevelParams,
};

/// The level a connection's calls log from until the client sends `logging/setLevel`: every
/// message is sent.
pub const DEFAULT_LOG_LEVEL: LoggingLevel = LoggingLevel::Debug;

/// The level one connection's client asked for; 0 until it asks.
#[derive(Default)]
pub(super) struct ConnectionLogLevel(AtomicU8);

impl ConnectionLogLevel {
    pub(super) fn get(&self) -> LoggingLevel {
        match self.0.load(Ordering::Acquire) {
            0 => DEFAULT_LOG_LEVEL,
            n => LoggingLevel::ALL
                .get(usize::from(n) - 1)
                .copied()
                .unwrap_or(DEFAULT_LOG_LEVEL),
        }
    }

    fn set(&self, level: LoggingLevel) {
        // `ALL` has eight entries: the index fits a `u8`.
        let index = LoggingLevel::ALL
            .iter()
            .position(|l| *l == level)
            .unwrap_or(0);
        self.0.store(index as u8 + 1, Ordering::Release);
    }
}

impl McpRouter {
    /// Answers `logging/setLevel`.
    pub(super) fn set_log_level(&self, id: RequestId, params: Option<&RawParams>) -> Response {
        let read = params
            .ok_or_else(|| "no params".to_string())
            .and_then(|params| {
                params
                    .parse::<SetLevelParams>()
                    .map_err(|error| error.to_string())
            });
        match read {
            Ok(SetLevelParams { level }) => {
                self.connection.log_level.set(level);
                Response::success(id, Answer::Empty)
            }
            Err(error) => Response::error(
                Some(id),
                ErrorObject::invalid_params(format!(
                    "{LOGGING_SET_LEVEL} takes {{\"level\": <level>}}, a level being one of \
                     debug, info, notice, warning, error, critical, alert, emergency ({})",
                    crate::jsonrpc::echo(&error)
                )),
            ),
        }
    }

    /// The level the connection's client asked for (or [`DEFAULT_LOG_LEVEL`]).
    pub fn log_level(&self) -> LoggingLevel {
        self.connection.log_level.get()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_connection_keeps_the_last_level_set() {
        let level = ConnectionLogLevel::default();
        assert_eq!(level.get(), DEFAULT_LOG_LEVEL);
        for each in LoggingLevel::ALL {
            level.set(each);
            assert_eq!(level.get(), each);
        }
    }
}
