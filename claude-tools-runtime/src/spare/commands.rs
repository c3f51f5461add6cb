//! A parked spare's slash commands, reported as they change ([`SpareProcess::on_commands`]):
//! a task between the spare's message queue and the one its session will read, which notes
//! each `system`/`commands_changed` on the way and forwards every message, in order.
//!
//! [`SpareProcess::on_commands`]: super::SpareProcess::on_commands

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::{Arc, Mutex, MutexGuard};

use tokio::sync::mpsc;

use crate::control::SlashCommand;
use crate::message::{Message, SystemEvent};
use crate::session::MessageReceiver;

/// The application's callback.
pub(super) type CommandsCallback = Box<dyn FnMut(Vec<SlashCommand>) + Send>;

/// Who hears of the commands, until the spare is claimed or closed.
#[derive(Default)]
pub(super) struct CommandsWatch {
    /// `None` once reports have stopped. Held while the callback runs, so that once
    /// [`stop`](Self::stop) returns no report is under way.
    callback: Mutex<Option<CommandsCallback>>,
}

impl CommandsWatch {
    fn lock(&self) -> MutexGuard<'_, Option<CommandsCallback>> {
        // The callback's panics are caught inside the lock: it is never poisoned by one.
        self.callback.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Reports to `callback` from now on.
    pub(super) fn set(&self, callback: CommandsCallback) {
        *self.lock() = Some(callback);
    }

    /// Reports nothing more (the callback is dropped).
    pub(super) fn stop(&self) {
        *self.lock() = None;
    }

    /// Hands `commands` to the callback, if reports have not stopped; a panic is logged.
    pub(super) fn report(&self, commands: Vec<SlashCommand>) {
        let mut callback = self.lock();
        if let Some(callback) = callback.as_mut()
            && let Err(panic) = catch_unwind(AssertUnwindSafe(|| callback(commands)))
        {
            let reason = panic
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "a panic".into());
            tracing::error!(%reason, "SpareProcess::on_commands: the callback panicked");
        }
    }
}

/// Starts the task that reads `source` for the spare's session: what it returns gets every
/// message of `source`, in order, once `watch` has seen it. The task ends with `source`, or
/// when the returned receiver is dropped (which then drops `source`, as dropping it would have).
pub(super) fn watch_messages(
    runtime: &tokio::runtime::Handle,
    mut source: MessageReceiver,
    watch: Arc<CommandsWatch>,
) -> MessageReceiver {
    // The same bound as the queue it follows: the session's reader is held back as before.
    let (forward, messages) = mpsc::channel(source.max_capacity().max(1));
    runtime.spawn(async move {
        while let Some(item) = source.recv().await {
            if let Ok(Message::System(system)) = &item
                && system.subtype == "commands_changed"
                && let SystemEvent::CommandsChanged(changed) = system.event()
            {
                watch.report(changed.commands);
            }
            if forward.send(item).await.is_err() {
                break;
            }
        }
    });
    messages
}
