//! The CLI's requests being answered, by `request_id`: each runs in its own task, held here so
//! that it can be withdrawn (by the CLI's `control_cancel_request` or the session's end).

use tokio::task::AbortHandle;
use tokio_util::sync::CancellationToken;

/// The CLI's requests being handled under one `request_id`: one, or more when the CLI sent the
/// id again before the first was answered (each is answered; see [`handlers`](super::handlers)).
pub(super) struct InFlight {
    first: Withdrawable,
    /// Later requests with the same id, in arrival order; empty (no allocation) as a rule.
    pub(super) duplicates: Vec<Withdrawable>,
}

/// One request being handled in its own task, held so that it can be withdrawn (by the CLI or
/// the session's end).
pub(super) struct Withdrawable {
    /// Fired when the CLI withdraws the request: the task then gives the callback its
    /// [`CANCEL_GRACE`](claude_tools_core::mcp::CANCEL_GRACE) and writes nothing. `None` for an
    /// `mcp_message`, whose tool call keeps the contract in the router: aborting the task drops
    /// the router's future, which fires the call's own token and starts its grace.
    pub(super) cancellation: Option<CancellationToken>,
    pub(super) task: AbortHandle,
}

impl InFlight {
    pub(super) fn new(first: Withdrawable) -> Self {
        Self {
            first,
            duplicates: Vec::new(),
        }
    }

    /// Takes the entry of task `task` out of the group, if its request was not withdrawn.
    pub(super) fn take(&mut self, task: tokio::task::Id) -> Taken {
        if self.first.task.id() == task {
            if self.duplicates.is_empty() {
                return Taken::Last;
            }
            self.first = self.duplicates.remove(0);
            return Taken::Some;
        }
        match self.duplicates.iter().position(|h| h.task.id() == task) {
            Some(index) => {
                self.duplicates.remove(index);
                Taken::Some
            }
            None => Taken::None,
        }
    }

    /// The CLI withdrew these requests (or the session ended): every handler's token fires and
    /// none is answered.
    pub(super) fn withdraw(self) {
        self.first.withdraw();
        for handler in self.duplicates {
            handler.withdraw();
        }
    }
}

/// What [`InFlight::take`] found.
pub(super) enum Taken {
    /// The task's entry was the group's last: remove the group.
    Last,
    /// The task's entry was taken; others remain.
    Some,
    /// No entry for the task: its request was withdrawn.
    None,
}

impl Withdrawable {
    fn withdraw(self) {
        match self.cancellation {
            Some(token) => token.cancel(),
            None => self.task.abort(),
        }
    }
}
