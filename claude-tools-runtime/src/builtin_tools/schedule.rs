//! Tools that act later or elsewhere: scheduled prompts (`CronCreate`, `CronDelete`,
//! `CronList`), `/loop` wake-ups (`ScheduleWakeup`), remote triggers (`RemoteTrigger`) and
//! notifications (`PushNotification`, `ReadNotifications`).

use serde::{Deserialize, Serialize};
use serde_json::{Map, Number, Value};

/// `CronCreate`'s input: a prompt to run on a schedule.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct CronCreateInput {
    /// A 5-field cron expression, in local time.
    pub cron: String,
    /// The prompt to run at each match.
    pub prompt: String,
    /// Run at every match (the default) or once.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recurring: Option<bool>,
    /// Survive restarts (saved to `.claude/scheduled_tasks.json`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub durable: Option<bool>,
    /// Fields this library does not know, kept as they came.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `CronCreate`'s answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct CronCreateOutput {
    /// The job.
    pub id: String,
    /// Its schedule, in words.
    #[serde(rename = "humanSchedule")]
    pub human_schedule: String,
    /// Whether it recurs.
    pub recurring: bool,
    /// Whether it survives restarts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub durable: Option<bool>,
    /// When it next runs (epoch milliseconds).
    #[serde(
        rename = "nextFireAt",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub next_fire_at: Option<Number>,
    /// The age at which a recurring job ends (0: never).
    #[serde(rename = "maxAgeMs", default, skip_serializing_if = "Option::is_none")]
    pub max_age_ms: Option<Number>,
    /// The session's other one-shot jobs yet to run (`id`, `humanSchedule`, `prompt`).
    #[serde(
        rename = "otherOneShots",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub other_one_shots: Option<Vec<Map<String, Value>>>,
    /// Fields this library does not know, kept as they came.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `CronDelete`'s input.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct CronDeleteInput {
    /// The job, as `CronCreate` named it.
    pub id: String,
    /// Fields this library does not know, kept as they came.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `CronDelete`'s answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct CronDeleteOutput {
    /// The job deleted.
    pub id: String,
    /// Deleting it also ended a `/loop`'s pending wake-up.
    #[serde(
        rename = "endedLoopWakeup",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub ended_loop_wakeup: Option<bool>,
    /// Fields this library does not know, kept as they came.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `CronList`'s input (none).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct CronListInput {
    /// Fields this library does not know, kept as they came.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `CronList`'s answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct CronListOutput {
    /// The jobs.
    pub jobs: Vec<CronJob>,
    /// Fields this library does not know, kept as they came.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// One job of a [`CronListOutput`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct CronJob {
    /// The job.
    pub id: String,
    /// Its cron expression.
    pub cron: String,
    /// Its schedule, in words.
    #[serde(rename = "humanSchedule")]
    pub human_schedule: String,
    /// Its prompt.
    pub prompt: String,
    /// Whether it recurs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recurring: Option<bool>,
    /// Whether it survives restarts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub durable: Option<bool>,
    /// When it next runs (epoch milliseconds).
    #[serde(
        rename = "nextFireAt",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub next_fire_at: Option<Number>,
    /// Fields this library does not know, kept as they came.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `ScheduleWakeup`'s input: when a dynamic `/loop` runs next, or that it stops.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ScheduleWakeupInput {
    /// Seconds from now (clamped to 60–3600).
    #[serde(
        rename = "delaySeconds",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub delay_seconds: Option<Number>,
    /// Why that delay, for the user.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// The `/loop` input to run then.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt: Option<String>,
    /// End the loop instead.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop: Option<bool>,
    /// Nothing changed this time.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub noop: Option<bool>,
    /// Fields this library does not know, kept as they came.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `ScheduleWakeup`'s answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ScheduleWakeupOutput {
    /// When the wake-up fires (epoch milliseconds).
    #[serde(rename = "scheduledFor")]
    pub scheduled_for: Number,
    /// The delay used, in seconds.
    #[serde(rename = "clampedDelaySeconds")]
    pub clamped_delay_seconds: Number,
    /// The delay asked for was out of bounds.
    #[serde(rename = "wasClamped")]
    pub was_clamped: bool,
    /// The loop was ended.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stopped: Option<bool>,
    /// How many pending wake-ups the stop cancelled.
    #[serde(
        rename = "cancelledWakeups",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub cancelled_wakeups: Option<u64>,
    /// Fields this library does not know, kept as they came.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `RemoteTrigger`'s input.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct RemoteTriggerInput {
    /// `list`, `get`, `create`, `update`, `run`, `create_webhook_trigger`, `list_runs` or
    /// `get_run_log`.
    pub action: String,
    /// The trigger.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trigger_id: Option<String>,
    /// A run's session (for `get_run_log`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_id: Option<String>,
    /// The previous page's `next_cursor`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cursor: Option<String>,
    /// The trigger's definition (for `create`, `update`, `run`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub body: Option<Map<String, Value>>,
    /// Fields this library does not know, kept as they came.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `RemoteTrigger`'s answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct RemoteTriggerOutput {
    /// The HTTP status.
    pub status: u16,
    /// The response body, as JSON text.
    pub json: String,
    /// A summary.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub summary: Option<String>,
    /// Fields this library does not know, kept as they came.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `PushNotification`'s input.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct PushNotificationInput {
    /// The notification's text (under 200 characters).
    pub message: String,
    /// `proactive`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<String>,
    /// Fields this library does not know, kept as they came.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `PushNotification`'s answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct PushNotificationOutput {
    /// What happened.
    pub message: String,
    /// Sent to the user's phone.
    #[serde(rename = "pushSent", default, skip_serializing_if = "Option::is_none")]
    pub push_sent: Option<bool>,
    /// Shown locally.
    #[serde(rename = "localSent", default, skip_serializing_if = "Option::is_none")]
    pub local_sent: Option<bool>,
    /// Why it was not sent: `config_off`, `user_present` or `no_transport`.
    #[serde(
        rename = "disabledReason",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub disabled_reason: Option<String>,
    /// When it was sent (ISO 8601).
    #[serde(rename = "sentAt", default, skip_serializing_if = "Option::is_none")]
    pub sent_at: Option<String>,
    /// Fields this library does not know, kept as they came.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `ReadNotifications`' input (none).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ReadNotificationsInput {
    /// Fields this library does not know, kept as they came.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `ReadNotifications`' answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ReadNotificationsOutput {
    /// The notifications read.
    pub notifications: Vec<Notification>,
    /// How many are still queued.
    pub remaining: u64,
    /// When the queue was read (RFC 3339).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read_at: Option<String>,
    /// Fields this library does not know, kept as they came.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// One notification of a [`ReadNotificationsOutput`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Notification {
    /// Its id (stable across redeliveries).
    pub notification_id: String,
    /// Where it came from (`github_webhook`, `trigger_fire`, `mcp_send_message`…).
    pub origin: String,
    /// When it was queued (RFC 3339).
    pub queued_at: String,
    /// Its text.
    pub content: String,
    /// When it reached this session (RFC 3339).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arrived_at: Option<String>,
    /// Fields this library does not know, kept as they came.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}
