//! The bounded queue that carries the CLI's messages (and the session's errors) to the
//! application.

use std::collections::VecDeque;

use tokio::sync::mpsc;

use crate::error::Result;
use crate::message::Message;

/// The user's end of the message queue.
pub(crate) type MessageReceiver = mpsc::Receiver<Result<Message>>;

/// The application dropped its end of the message queue.
#[derive(Debug)]
pub(crate) struct QueueClosed;

/// The reader's end of the message queue. [`MessageSender::send`] never waits, since one line
/// may yield a message and an error: what does not fit waits in `overflow`, and the reader
/// delivers it with [`MessageSender::flush`] before it reads the next line. So at most the
/// queue's bound plus one line's worth of messages is held for an application that does not read.
pub(crate) struct MessageSender {
    queue: mpsc::Sender<Result<Message>>,
    overflow: VecDeque<Result<Message>>,
}

impl MessageSender {
    pub(super) fn new(queue: mpsc::Sender<Result<Message>>) -> Self {
        Self {
            queue,
            overflow: VecDeque::new(),
        }
    }

    /// Queues an item for the application, in order; fails only once it stopped listening.
    pub(crate) fn send(&mut self, item: Result<Message>) -> std::result::Result<(), QueueClosed> {
        if !self.overflow.is_empty() {
            self.overflow.push_back(item);
            return Ok(());
        }
        match self.queue.try_send(item) {
            Ok(()) => Ok(()),
            Err(mpsc::error::TrySendError::Full(item)) => {
                self.overflow.push_back(item);
                Ok(())
            }
            Err(mpsc::error::TrySendError::Closed(_)) => Err(QueueClosed),
        }
    }

    /// Items wait for the application to read.
    pub(crate) fn is_full(&self) -> bool {
        !self.overflow.is_empty()
    }

    /// Waits until every waiting item is in the queue (or the application stopped listening).
    pub(crate) async fn flush(&mut self) {
        while let Some(item) = self.overflow.pop_front() {
            if self.queue.send(item).await.is_err() {
                self.overflow.clear();
                return;
            }
        }
    }
}
