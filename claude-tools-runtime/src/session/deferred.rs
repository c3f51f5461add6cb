//! The CLI's requests whose answer the host deferred: its callback returned "later"
//! ([`PermissionDecision::Later`], [`ElicitationAnswer::later`], [`UserDialogAnswer::Later`]),
//! and it answers by request id through the session's [`Controls`](crate::control::Controls).
//!
//! A deferred request is still answered once: by the host's later answer, or not at all when
//! the CLI withdraws it first (`control_cancel_request`, which removes it here) or the session
//! ends. An answer that names no deferred request of its kind is refused and writes nothing.

use serde_json::Value;

use super::{SessionCore, lock};
use crate::dialog::UserDialogAnswer;
use crate::elicitation::ElicitationAnswer;
use crate::permission::PermissionDecision;
use crate::protocol::{self, DialogAnswer, PermissionAnswer};

/// A deferred request: what its answer needs.
#[derive(Debug)]
pub(crate) enum Deferred {
    /// A `can_use_tool`, with the tool's input (an allow without a new input sends it back).
    Permission { input: Value },
    /// An `elicitation`.
    Elicitation,
    /// A `request_user_dialog`.
    Dialog,
}

impl SessionCore {
    /// Holds `request_id` for the host's later answer.
    pub(super) fn defer(&self, request_id: &str, deferred: Deferred) {
        lock(&self.deferred).insert(request_id.to_string(), deferred);
    }

    /// Forgets a deferred request the CLI withdrew.
    pub(super) fn withdraw_deferred(&self, request_id: &str) {
        lock(&self.deferred).remove(request_id);
    }

    /// Takes the deferred request `request_id` if `is_kind` accepts it (a request of another
    /// kind stays deferred), while the CLI can still be written to.
    fn take_deferred(
        &self,
        request_id: &str,
        is_kind: impl FnOnce(&Deferred) -> bool,
    ) -> Option<Deferred> {
        if !self.accepts_input() {
            return None;
        }
        let mut deferred = lock(&self.deferred);
        if !deferred.get(request_id).is_some_and(is_kind) {
            return None;
        }
        deferred.remove(request_id)
    }

    /// Answers a deferred `can_use_tool`; `false` (nothing written) when `request_id` names no
    /// deferred permission request or `decision` is itself `Later`.
    pub(crate) fn answer_permission(
        &self,
        request_id: &str,
        decision: &PermissionDecision,
    ) -> bool {
        if matches!(decision, PermissionDecision::Later) {
            return false;
        }
        let Some(Deferred::Permission { input }) =
            self.take_deferred(request_id, |d| matches!(d, Deferred::Permission { .. }))
        else {
            return false;
        };
        let Some(answer) = PermissionAnswer::new(decision, &input) else {
            return false;
        };
        self.out
            .send_with(|out| protocol::success_line(out, request_id, &answer));
        true
    }

    /// Answers a deferred `elicitation`; `false` as [`SessionCore::answer_permission`].
    pub(crate) fn answer_elicitation(&self, request_id: &str, answer: &ElicitationAnswer) -> bool {
        if answer.is_later()
            || self
                .take_deferred(request_id, |d| matches!(d, Deferred::Elicitation))
                .is_none()
        {
            return false;
        }
        self.out
            .send_with(|out| protocol::success_line(out, request_id, answer));
        true
    }

    /// Answers a deferred `request_user_dialog`; `false` as [`SessionCore::answer_permission`].
    pub(crate) fn answer_user_dialog(&self, request_id: &str, answer: &UserDialogAnswer) -> bool {
        let payload = match answer {
            UserDialogAnswer::Completed(result) => DialogAnswer::Completed { result },
            UserDialogAnswer::Cancelled => DialogAnswer::Cancelled,
            UserDialogAnswer::Later => return false,
        };
        if self
            .take_deferred(request_id, |d| matches!(d, Deferred::Dialog))
            .is_none()
        {
            return false;
        }
        self.out
            .send_with(|out| protocol::success_line(out, request_id, &payload));
        true
    }
}
