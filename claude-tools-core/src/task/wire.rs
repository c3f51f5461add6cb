//! The tasks extension on the wire: the params of `tasks/*` and the task a result carries.

use std::collections::BTreeMap;

use serde::Deserialize;
use serde::ser::{Serialize, SerializeMap, Serializer};
use serde_json::value::RawValue;

use super::record::{TaskRecord, TaskStatus, iso8601};
use crate::jsonrpc::{ErrorObject, RawParams};

/// `tasks/get`, `tasks/update`, `tasks/cancel`: the methods the extension serves.
pub(crate) const TASK_METHODS: [&str; 3] = ["tasks/get", "tasks/update", "tasks/cancel"];

/// The params every `tasks/*` request has.
#[derive(Deserialize)]
struct TaskIdParams {
    #[serde(rename = "taskId")]
    task_id: String,
}

/// The params of `tasks/update`.
#[derive(Deserialize)]
struct UpdateParams {
    #[serde(rename = "taskId")]
    task_id: String,
    #[serde(rename = "inputResponses")]
    input_responses: BTreeMap<String, Box<RawValue>>,
}

/// The `taskId` of a `tasks/*` request's params, if they have a string one (what `Mcp-Name`
/// must say on Streamable HTTP).
pub fn task_id_of(params: Option<&RawParams>) -> Option<String> {
    params?
        .parse::<TaskIdParams>()
        .ok()
        .map(|params| params.task_id)
}

/// The task id of a `tasks/get` or `tasks/cancel`, or its `-32602`.
pub(crate) fn read_task_id(params: Option<&RawParams>) -> Result<String, ErrorObject> {
    task_id_of(params).ok_or_else(|| {
        ErrorObject::invalid_params("`params.taskId` must be the string id of a task")
    })
}

/// The task id and answers of a `tasks/update`, or its `-32602`.
pub(crate) fn read_update(
    params: Option<&RawParams>,
) -> Result<(String, BTreeMap<String, Box<RawValue>>), ErrorObject> {
    let params = params.ok_or_else(|| {
        ErrorObject::invalid_params("`tasks/update` needs params: `{taskId, inputResponses}`")
    })?;
    match params.parse::<UpdateParams>() {
        Ok(update) => Ok((update.task_id, update.input_responses)),
        Err(_) => Err(ErrorObject::invalid_params(
            "`tasks/update` params must be `{taskId: string, inputResponses: object}`: the \
             task's id and each question's key with the client's answer",
        )),
    }
}

/// A task as a result carries it: the flat `Task` of `CreateTaskResult` (`detailed: false`), or
/// the `DetailedTask` of `tasks/get`, with its questions, result or error.
#[derive(Debug, Clone)]
pub struct TaskAnswer {
    pub(crate) record: TaskRecord,
    pub(crate) detailed: bool,
}

/// Two answers are equal when they write the same JSON (a record's raw JSON values have no
/// equality of their own).
impl PartialEq for TaskAnswer {
    fn eq(&self, other: &Self) -> bool {
        serde_json::to_string(self).ok() == serde_json::to_string(other).ok()
    }
}

impl Serialize for TaskAnswer {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        self.write_fields(&mut map)?;
        map.end()
    }
}

impl TaskAnswer {
    /// The task's state as `notifications/tasks` carries it: the `DetailedTask` of `tasks/get`.
    pub(crate) fn detailed(record: TaskRecord) -> Self {
        Self {
            record,
            detailed: true,
        }
    }

    /// The task's id.
    pub fn task_id(&self) -> &str {
        &self.record.task_id
    }

    /// The task's status.
    pub fn status(&self) -> TaskStatus {
        self.record.status
    }

    /// Writes the task's fields into `map` (a result's, or a notification's params beside
    /// their `_meta`).
    pub(crate) fn write_fields<M: SerializeMap>(&self, map: &mut M) -> Result<(), M::Error> {
        let task = &self.record;
        map.serialize_entry("taskId", &task.task_id)?;
        map.serialize_entry("status", &task.status)?;
        if let Some(message) = &task.status_message {
            map.serialize_entry("statusMessage", message)?;
        }
        map.serialize_entry("createdAt", &iso8601(task.created_at_ms))?;
        map.serialize_entry("lastUpdatedAt", &iso8601(task.last_updated_at_ms))?;
        map.serialize_entry("ttlMs", &task.ttl_ms)?;
        map.serialize_entry("pollIntervalMs", &task.poll_interval_ms)?;
        if self.detailed {
            match task.status {
                TaskStatus::InputRequired => {
                    map.serialize_entry("inputRequests", &task.input_requests)?
                }
                TaskStatus::Completed => {
                    if let Some(result) = &task.result {
                        map.serialize_entry("result", result)?;
                    }
                }
                TaskStatus::Failed => {
                    if let Some(error) = &task.error {
                        map.serialize_entry("error", error)?;
                    }
                }
                TaskStatus::Working | TaskStatus::Cancelled => {}
            }
        }
        Ok(())
    }
}
