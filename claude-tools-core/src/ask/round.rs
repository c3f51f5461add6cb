//! One round of an MCP 2026-07-28 multi round-trip request (MRTR), as a running handler sees
//! it: the answers the client has given so far (carried in the sealed `requestState` and sent
//! in this retry's `inputResponses`), the questions this run asks that have no answer yet, and
//! the values kept across rounds ([`ToolContext::remember`](crate::tool::ToolContext::remember)).
//!
//! At 2026-07-28 a server cannot send the client a request. A question a handler asks
//! ([`ToolContext::elicit`](crate::tool::ToolContext::elicit), `create_message`, `list_roots`)
//! is looked up here by its key: answered, it returns at once; unanswered, it is recorded and
//! the handler waits for ever, so the router ends the run and answers `input_required` with every
//! question the run has recorded (questions asked together, `tokio::join!`, go out together).
//! The client retries with the answers; the handler runs again from its start, and this time
//! finds them.

use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, MutexGuard};

use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

use super::ServerRequestParams;

/// What a handler's run needs from the client, once it can go no further.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Blocked {
    /// Questions without an answer, by key, in the order asked.
    Questions(Vec<(String, ServerRequestParams)>),
    /// A question needs a capability the request did not declare (`-32021`).
    MissingCapability(&'static str),
    /// The answer under `key` does not fit its question (`-32602`).
    InvalidAnswer { key: String, reason: String },
}

/// The state carried from round to round inside the sealed `requestState`.
#[derive(Debug, Default, Serialize, Deserialize)]
pub(crate) struct Carried {
    /// The answers the handler has read, by key.
    #[serde(default)]
    pub(crate) answers: BTreeMap<String, Box<RawValue>>,
    /// The values [`remember`](crate::tool::ToolContext::remember) kept, by key.
    #[serde(default)]
    pub(crate) kept: BTreeMap<String, Box<RawValue>>,
}

/// One round of a 2026-07-28 request; shared by the router and the handler's context.
#[derive(Debug, Default)]
pub(crate) struct Round {
    /// Every answer the client has given for this call, by key.
    answers: HashMap<String, Box<RawValue>>,
    state: Mutex<RoundState>,
    /// How many questions the run has asked (for the keys of questions without one).
    asked: AtomicUsize,
    /// Rings when the run is blocked (see [`Blocked`]).
    blocked: tokio::sync::Notify,
}

#[derive(Debug, Default)]
struct RoundState {
    /// The answers the run read, to carry into the next round's state.
    used: BTreeMap<String, Box<RawValue>>,
    /// Values kept across rounds.
    kept: BTreeMap<String, Box<RawValue>>,
    blocked: Option<Blocked>,
}

impl Round {
    /// A round whose client has answered `answers` (carried ones and this retry's, the retry's
    /// winning) and that kept `kept`.
    pub(crate) fn new(
        carried: Carried,
        responses: impl IntoIterator<Item = (String, Box<RawValue>)>,
    ) -> Self {
        let mut answers: HashMap<String, Box<RawValue>> = carried.answers.into_iter().collect();
        answers.extend(responses);
        Self {
            answers,
            state: Mutex::new(RoundState {
                used: BTreeMap::new(),
                kept: carried.kept,
                blocked: None,
            }),
            asked: AtomicUsize::new(0),
            blocked: tokio::sync::Notify::new(),
        }
    }

    fn lock(&self) -> MutexGuard<'_, RoundState> {
        // Single inserts under the lock: a poisoned one is still consistent.
        self.state
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// The key of the next question: `key` when the handler named it, else `{kind}-{n}` by the
    /// order of asking (stable when the handler asks in the same order each run).
    pub(crate) fn key(&self, key: Option<&str>, params: &ServerRequestParams) -> String {
        let n = self.asked.fetch_add(1, Ordering::Relaxed) + 1;
        match key {
            Some(key) => key.to_string(),
            None => {
                let kind = match params {
                    ServerRequestParams::Elicit(_) => "elicitation",
                    ServerRequestParams::CreateMessage(_) => "sampling",
                    ServerRequestParams::ListRoots => "roots",
                };
                format!("{kind}-{n}")
            }
        }
    }

    /// The client's answer under `key`, if it gave one (recorded to carry on).
    pub(crate) fn answer(&self, key: &str) -> Option<Box<RawValue>> {
        let answer = self.answers.get(key)?.clone();
        self.lock().used.insert(key.to_string(), answer.clone());
        Some(answer)
    }

    /// Records a question without an answer.
    pub(crate) fn ask(&self, key: String, params: ServerRequestParams) {
        self.block(|blocked| match blocked {
            None => Some(Blocked::Questions(vec![(key, params)])),
            Some(Blocked::Questions(mut questions)) => {
                if !questions.iter().any(|(asked, _)| *asked == key) {
                    questions.push((key, params));
                }
                Some(Blocked::Questions(questions))
            }
            // A refusal already decided the answer.
            other => other,
        });
    }

    /// Records that a question needs `capability`, which the request did not declare.
    pub(crate) fn missing_capability(&self, capability: &'static str) {
        self.block(|blocked| match blocked {
            Some(refused @ (Blocked::MissingCapability(_) | Blocked::InvalidAnswer { .. })) => {
                Some(refused)
            }
            _ => Some(Blocked::MissingCapability(capability)),
        });
    }

    /// Records that the answer under `key` does not fit its question.
    pub(crate) fn invalid_answer(&self, key: &str, reason: String) {
        self.block(|blocked| match blocked {
            Some(refused @ (Blocked::MissingCapability(_) | Blocked::InvalidAnswer { .. })) => {
                Some(refused)
            }
            _ => Some(Blocked::InvalidAnswer {
                key: key.to_string(),
                reason,
            }),
        });
    }

    fn block(&self, change: impl FnOnce(Option<Blocked>) -> Option<Blocked>) {
        {
            let mut state = self.lock();
            state.blocked = change(state.blocked.take());
        }
        self.blocked.notify_one();
    }

    /// Why the run cannot go on, if it cannot.
    pub(crate) fn blocked(&self) -> Option<Blocked> {
        self.lock().blocked.clone()
    }

    /// Completes once the run is blocked.
    pub(crate) async fn until_blocked(&self) {
        loop {
            let notified = self.blocked.notified();
            if self.lock().blocked.is_some() {
                return;
            }
            notified.await;
        }
    }

    /// The value kept under `key` by an earlier round.
    pub(crate) fn kept(&self, key: &str) -> Option<Box<RawValue>> {
        self.lock().kept.get(key).cloned()
    }

    /// Keeps `value` under `key` for the rounds to come.
    pub(crate) fn keep(&self, key: &str, value: Box<RawValue>) {
        self.lock().kept.insert(key.to_string(), value);
    }

    /// What the next round's state carries: the answers read and the values kept.
    pub(crate) fn carried(&self) -> Carried {
        let state = self.lock();
        Carried {
            answers: state.used.clone(),
            kept: state.kept.clone(),
        }
    }
}
