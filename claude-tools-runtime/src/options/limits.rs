//! How much the session holds for a side that is not reading: messages for the application,
//! bytes for the CLI, and the longest line it reads.

use super::{DEFAULT_MAX_LINE_SIZE, Options};

/// The default number of messages the session holds for an application that has not read them.
pub const DEFAULT_MESSAGE_QUEUE_LIMIT: usize = 1024;
/// The default number of bytes the session holds for a CLI that is not reading its stdin.
pub const DEFAULT_INPUT_BUFFER_LIMIT: usize = 16 * 1024 * 1024;

impl Options {
    /// The most messages (and errors) held for an application that has not read them yet
    /// (default [`DEFAULT_MESSAGE_QUEUE_LIMIT`], at least 1).
    ///
    /// At the limit the session stops reading the CLI's stdout until the application reads a
    /// message; the CLI is then paused by its own full pipe. Nothing is dropped, but nothing
    /// else from the CLI is read meanwhile either: its tool calls, hooks and permission requests
    /// wait too, and a host request ([`Controls::interrupt`](crate::control::Controls::interrupt),
    /// `set_model`…) fails with [`Error::Timeout`](crate::Error::Timeout) after the control
    /// timeout instead of hanging. Read the messages (or drop the stream) to go on.
    pub fn message_queue_limit(mut self, messages: usize) -> Self {
        self.message_queue_limit = Some(messages);
        self
    }

    /// The most bytes held for a CLI that is not reading its stdin (default
    /// [`DEFAULT_INPUT_BUFFER_LIMIT`]).
    ///
    /// Above the limit the session stops reading the CLI's stdout (so no new requests come, and
    /// no new answers pile up) until the CLI has read enough of its input. A single line larger
    /// than the limit (a huge tool result) is still written whole, never dropped or cut; the
    /// limit only decides when reading pauses. The host's own lines wait at the limit too: a
    /// prompt (`Client::send`, a streamed `query` prompt) waits until the CLI reads or ends, a
    /// control request (`interrupt`, `set_model`…) fails with
    /// [`Error::Timeout`](crate::Error::Timeout) if no room comes within the control timeout.
    /// (A tool's progress notifications are not held back: they are few and small.)
    pub fn input_buffer_limit(mut self, bytes: usize) -> Self {
        self.input_buffer_limit = Some(bytes);
        self
    }

    /// The longest line read from the CLI.
    pub(crate) fn line_cap(&self) -> usize {
        self.max_line_size.unwrap_or(DEFAULT_MAX_LINE_SIZE)
    }

    /// The most messages held, at least 1.
    pub(crate) fn message_queue_cap(&self) -> usize {
        self.message_queue_limit
            .unwrap_or(DEFAULT_MESSAGE_QUEUE_LIMIT)
            .max(1)
    }

    /// The most bytes held for the CLI.
    pub(crate) fn input_buffer_cap(&self) -> usize {
        self.input_buffer_limit
            .unwrap_or(DEFAULT_INPUT_BUFFER_LIMIT)
    }
}
