//! The questions of a tool running as a task ([`crate::task`]): asked by the handler, listed
//! in the task's `inputRequests`, answered by `tasks/update`.
//!
//! A task's handler runs on after its request was answered, so a question cannot go out as a
//! request, nor end the run as an MRTR round does: it waits here, under its key, until the
//! router hands it the client's answer ([`TaskLink::deliver`]) or the task is cancelled. The
//! runner of the task ([`crate::mcp`]'s tasks) watches the questions change and writes them to
//! the task's record.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Mutex, MutexGuard};

use serde_json::value::RawValue;
use tokio::sync::{Notify, oneshot};
use tokio_util::sync::CancellationToken;

use super::{AskError, ServerRequestParams};
use crate::jsonrpc::RawParams;

/// The link between a task's handler and its runner.
#[derive(Debug, Default)]
pub(crate) struct TaskLink {
    /// Whether the call runs as a task yet (before, with [`TaskStart::AtFirstWait`](crate::task::TaskStart::AtFirstWait),
    /// its questions go through the request's MRTR round).
    detached: AtomicBool,
    /// How many questions the handler has asked (for the keys of questions without one).
    asked: AtomicUsize,
    waiting: Mutex<BTreeMap<String, Waiting>>,
    /// Rings when a question is asked or withdrawn.
    changed: Notify,
}

#[derive(Debug)]
struct Waiting {
    /// `{method, params}`, as `inputRequests` lists it.
    request: Box<RawValue>,
    answer: oneshot::Sender<Box<RawValue>>,
}

impl TaskLink {
    fn lock(&self) -> MutexGuard<'_, BTreeMap<String, Waiting>> {
        // Single inserts and removes under the lock: a poisoned one is still consistent.
        self.waiting
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// From now on the call is a task: its questions wait here.
    pub(crate) fn detach(&self) {
        self.detached.store(true, Ordering::Release);
    }

    /// Whether the call is a task yet.
    pub(crate) fn is_detached(&self) -> bool {
        self.detached.load(Ordering::Acquire)
    }

    /// The key of the next question: `key` when the handler named it, else `{kind}-{n}`.
    pub(crate) fn key(&self, key: Option<&str>, params: &ServerRequestParams) -> String {
        let n = self.asked.fetch_add(1, Ordering::Relaxed) + 1;
        match key {
            Some(key) => key.to_string(),
            None => format!("{}-{n}", kind(params)),
        }
    }

    /// Asks `params` under `key` and waits for the client's answer (or the task's
    /// cancellation).
    pub(crate) async fn ask(
        &self,
        key: String,
        params: &ServerRequestParams,
        cancellation: &CancellationToken,
    ) -> Result<RawParams, AskError> {
        let request = serde_json::value::to_raw_value(&crate::jsonrpc::InputRequest(params))
            .map_err(|error| AskError::InvalidAnswer(error.to_string()))?;
        let (sender, answer) = oneshot::channel();
        self.lock().insert(
            key.clone(),
            Waiting {
                request,
                answer: sender,
            },
        );
        self.changed.notify_one();
        let withdraw = Withdraw { link: self, key };
        let outcome = tokio::select! {
            biased;
            answer = answer => answer.map(RawParams::from_raw).map_err(|_| AskError::Closed),
            () = cancellation.cancelled() => Err(AskError::Cancelled),
        };
        drop(withdraw);
        outcome
    }

    /// The questions waiting for an answer, by key.
    pub(crate) fn questions(&self) -> BTreeMap<String, Box<RawValue>> {
        self.lock()
            .iter()
            .map(|(key, waiting)| (key.clone(), waiting.request.clone()))
            .collect()
    }

    /// Hands each answer to the question waiting under its key; answers to no waiting question
    /// are dropped.
    pub(crate) fn deliver(&self, answers: BTreeMap<String, Box<RawValue>>) {
        let mut waiting = self.lock();
        for (key, answer) in answers {
            if let Some(question) = waiting.remove(&key) {
                // The asker may have just been cancelled; its answer is then nobody's.
                let _ = question.answer.send(answer);
            }
        }
    }

    /// Completes when a question was asked or withdrawn since the last call.
    pub(crate) async fn changed(&self) {
        self.changed.notified().await;
    }
}

/// Takes a question off the list when its asker stops waiting.
struct Withdraw<'a> {
    link: &'a TaskLink,
    key: String,
}

impl Drop for Withdraw<'_> {
    fn drop(&mut self) {
        if self.link.lock().remove(&self.key).is_some() {
            self.link.changed.notify_one();
        }
    }
}

fn kind(params: &ServerRequestParams) -> &'static str {
    match params {
        ServerRequestParams::Elicit(_) => "elicitation",
        ServerRequestParams::CreateMessage(_) => "sampling",
        ServerRequestParams::ListRoots => "roots",
    }
}
