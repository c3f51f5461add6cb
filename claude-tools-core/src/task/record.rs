//! A task as a [`TaskStore`](super::TaskStore) keeps it.

use std::collections::BTreeMap;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use base64::Engine as _;
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

use super::TaskChange;

/// Where a task is in its life (`status`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TaskStatus {
    /// The handler runs.
    Working,
    /// The handler waits for answers to the questions in `inputRequests`.
    InputRequired,
    /// The handler returned; `result` holds what it returned (an `isError` result too).
    Completed,
    /// The call failed with a JSON-RPC error (the handler panicked, or the task outlived its
    /// TTL); `error` holds it.
    Failed,
    /// Cancelled by the client.
    Cancelled,
}

impl TaskStatus {
    /// Whether the status is final: `completed`, `failed` and `cancelled` never change.
    pub fn is_terminal(self) -> bool {
        matches!(
            self,
            TaskStatus::Completed | TaskStatus::Failed | TaskStatus::Cancelled
        )
    }
}

/// A task's state, as stored: everything `tasks/get` answers, plus who owns it and what a
/// replica running it has yet to read. It serialises (serde) for stores that keep it as JSON.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[non_exhaustive]
pub struct TaskRecord {
    /// The task's id: 128 random bits, URL-safe base64 (unguessable; a store may use it as a
    /// primary key).
    pub task_id: String,
    /// Who created it (the transport's principal); `None` without auth. Only the same caller
    /// may poll, answer or cancel it.
    pub owner: Option<String>,
    /// Where it is in its life.
    pub status: TaskStatus,
    /// `statusMessage`, when there is one.
    pub status_message: Option<String>,
    /// Creation time, Unix milliseconds.
    pub created_at_ms: u64,
    /// Last change of status, questions or outcome, Unix milliseconds.
    pub last_updated_at_ms: u64,
    /// How long after creation the task is kept, milliseconds.
    pub ttl_ms: u64,
    /// The interval between polls suggested to the client, milliseconds.
    pub poll_interval_ms: u64,
    /// The questions waiting for an answer: key → `{method, params}`.
    pub input_requests: BTreeMap<String, Box<RawValue>>,
    /// Answers accepted by `tasks/update` that the handler has not read yet: key → answer.
    pub answers: BTreeMap<String, Box<RawValue>>,
    /// The tool's result (a `CallToolResult`), once `completed`.
    pub result: Option<Box<RawValue>>,
    /// The JSON-RPC error (`{code, message, data?}`), once `failed`.
    pub error: Option<Box<RawValue>>,
    /// The client asked to cancel it (for the replica running it to read).
    pub cancel_requested: bool,
    /// Until when the replica running it vouches for it, Unix milliseconds: the runner renews
    /// it while the handler runs ([`TaskSettings::lease`](super::TaskSettings::lease)). A task
    /// not final past it has lost its runner (its replica died): the next `tasks/*` request
    /// marks it `failed` ([`TaskChange::Abandoned`](super::TaskChange::Abandoned)). `None`
    /// (a record written before leases existed) never lapses.
    #[serde(default)]
    pub lease_expires_at_ms: Option<u64>,
}

impl TaskRecord {
    /// A new `working` task of `owner`, created at `now_ms`.
    pub(crate) fn new(
        owner: Option<String>,
        now_ms: u64,
        ttl: Duration,
        poll_interval: Duration,
    ) -> Result<Self, getrandom::Error> {
        Ok(Self {
            task_id: new_task_id()?,
            owner,
            status: TaskStatus::Working,
            status_message: None,
            created_at_ms: now_ms,
            last_updated_at_ms: now_ms,
            ttl_ms: millis(ttl),
            poll_interval_ms: millis(poll_interval),
            input_requests: BTreeMap::new(),
            answers: BTreeMap::new(),
            result: None,
            error: None,
            cancel_requested: false,
            lease_expires_at_ms: None,
        })
    }

    /// When the record may be forgotten, Unix milliseconds.
    pub fn expires_at_ms(&self) -> u64 {
        self.created_at_ms.saturating_add(self.ttl_ms)
    }

    /// Whether the record is past its TTL at `now_ms`.
    pub fn is_expired(&self, now_ms: u64) -> bool {
        now_ms >= self.expires_at_ms()
    }

    /// Whether the task has lost its runner at `now_ms`: not final, and its lease lapsed.
    pub fn is_abandoned(&self, now_ms: u64) -> bool {
        !self.status.is_terminal()
            && self
                .lease_expires_at_ms
                .is_some_and(|lease| now_ms >= lease)
    }

    /// Applies `change` at `now_ms`, as every [`TaskStore`](super::TaskStore) does: nothing
    /// for a final task, nor for [`TaskChange::Abandoned`] while the lease holds. A store
    /// shared by replicas reads the record, applies this and writes it back, atomically (in
    /// one transaction, say).
    pub fn apply(&mut self, change: TaskChange, now_ms: u64) {
        if self.status.is_terminal() {
            return;
        }
        match change {
            TaskChange::Questions(mut questions) => {
                questions.retain(|key, _| !self.answers.contains_key(key));
                self.status = if questions.is_empty() {
                    TaskStatus::Working
                } else {
                    TaskStatus::InputRequired
                };
                self.input_requests = questions;
            }
            TaskChange::Completed(result) => {
                self.status = TaskStatus::Completed;
                self.result = Some(result);
                self.input_requests.clear();
            }
            TaskChange::Failed(error) => self.fail(error),
            TaskChange::Cancelled => {
                self.status = TaskStatus::Cancelled;
                self.input_requests.clear();
            }
            TaskChange::Renew { until_ms } => {
                // Not a change the client sees: `lastUpdatedAt` stays.
                self.lease_expires_at_ms = Some(until_ms);
                return;
            }
            TaskChange::Abandoned(error) => {
                if !self.is_abandoned(now_ms) {
                    // Renewed since the caller looked: the runner is alive.
                    return;
                }
                self.fail(error);
            }
        }
        self.last_updated_at_ms = now_ms;
    }

    fn fail(&mut self, error: Box<RawValue>) {
        self.status = TaskStatus::Failed;
        self.error = Some(error);
        self.input_requests.clear();
    }

    /// Takes the client's `responses` at `now_ms`, as every [`TaskStore`](super::TaskStore)'s
    /// [`answer`](super::TaskStore::answer) does: each under a key in `input_requests` moves to
    /// `answers`, the others are ignored (the status becomes `working` when no question is
    /// left). Returns the keys taken; nothing for a final task.
    pub fn take_responses(
        &mut self,
        responses: BTreeMap<String, Box<RawValue>>,
        now_ms: u64,
    ) -> Vec<String> {
        if self.status.is_terminal() {
            return Vec::new();
        }
        let mut taken = Vec::new();
        for (key, answer) in responses {
            if self.input_requests.remove(&key).is_some() {
                self.answers.insert(key.clone(), answer);
                taken.push(key);
            }
        }
        if !taken.is_empty() {
            if self.input_requests.is_empty() {
                self.status = TaskStatus::Working;
            }
            self.last_updated_at_ms = now_ms;
        }
        taken
    }
}

/// A new task id: 16 bytes from the OS's random source, URL-safe base64 (22 characters).
fn new_task_id() -> Result<String, getrandom::Error> {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes)?;
    Ok(base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes))
}

/// `duration` in whole milliseconds (saturating).
pub(crate) fn millis(duration: Duration) -> u64 {
    u64::try_from(duration.as_millis()).unwrap_or(u64::MAX)
}

/// `time` in Unix milliseconds (0 before the epoch).
pub(crate) fn unix_ms(time: SystemTime) -> u64 {
    millis(time.duration_since(UNIX_EPOCH).unwrap_or_default())
}

/// Unix milliseconds as ISO 8601 in UTC with milliseconds (`2026-07-28T10:30:00.000Z`), the
/// form of `createdAt` and `lastUpdatedAt`.
pub(crate) fn iso8601(ms: u64) -> String {
    let seconds = ms / 1000;
    let days = i64::try_from(seconds / 86_400).unwrap_or(i64::MAX / 2);
    let in_day = seconds % 86_400;
    let (year, month, day) = date_of_day(days);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{:03}Z",
        in_day / 3600,
        in_day / 60 % 60,
        in_day % 60,
        ms % 1000
    )
}

/// The Gregorian date `days` days after 1970-01-01 (the civil-from-days computation over
/// 400-year eras of 146,097 days, with years starting on March 1 so that the leap day is last;
/// the runtime crate's history ids use the same, for the CLI's timestamps).
fn date_of_day(days: i64) -> (i64, u32, u32) {
    let shifted = days + 719_468; // days from 0000-03-01
    let era = shifted.div_euclid(146_097);
    let day_of_era = shifted - era * 146_097;
    let year_of_era =
        (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let month_from_march = (5 * day_of_year + 2) / 153;
    let day = (day_of_year - (153 * month_from_march + 2) / 5 + 1) as u32;
    let month = if month_from_march < 10 {
        month_from_march + 3
    } else {
        month_from_march - 9
    } as u32;
    (year_of_era + era * 400 + i64::from(month <= 2), month, day)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamps_are_iso_8601_in_utc() {
        assert_eq!(iso8601(0), "1970-01-01T00:00:00.000Z");
        // 2024-02-29 (a leap day) 12:34:56.789 UTC.
        assert_eq!(iso8601(1_709_210_096_789), "2024-02-29T12:34:56.789Z");
        assert_eq!(iso8601(1_785_000_000_000), "2026-07-25T17:20:00.000Z");
    }

    #[test]
    fn task_ids_are_random_and_url_safe() {
        let second = Duration::from_secs(1);
        let a = TaskRecord::new(None, 0, second, second).unwrap().task_id;
        let b = TaskRecord::new(None, 0, second, second).unwrap().task_id;
        assert_ne!(a, b);
        assert_eq!(a.len(), 22);
        assert!(
            a.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
        );
    }
}
