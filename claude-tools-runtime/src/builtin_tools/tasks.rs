//! The model's own work lists: `TodoWrite`, and the task list (`TaskCreate`, `TaskGet`,
//! `TaskUpdate`, `TaskList`).

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::wire_enum::wire_enum;

wire_enum! {
    /// Where a todo or a task stands.
    pub enum TodoStatus {
        /// `pending`.
        Pending = "pending",
        /// `in_progress`.
        InProgress = "in_progress",
        /// `completed`.
        Completed = "completed",
        /// `deleted` (only as `TaskUpdate`'s new status).
        Deleted = "deleted",
    }
}

/// One todo of a `TodoWrite` list.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Todo {
    /// What to do.
    pub content: String,
    /// Where it stands.
    pub status: TodoStatus,
    /// The same in the present continuous, shown while it runs ("Running tests").
    #[serde(rename = "activeForm")]
    pub active_form: String,
    /// Fields this library does not know, kept as they came.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `TodoWrite`'s input: the whole new todo list.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct TodoWriteInput {
    /// The list.
    pub todos: Vec<Todo>,
    /// Fields this library does not know, kept as they came.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `TodoWrite`'s answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct TodoWriteOutput {
    /// The list before.
    #[serde(rename = "oldTodos")]
    pub old_todos: Vec<Todo>,
    /// The list after.
    #[serde(rename = "newTodos")]
    pub new_todos: Vec<Todo>,
    /// Fields this library does not know, kept as they came.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `TaskCreate`'s input.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct TaskCreateInput {
    /// A brief title.
    pub subject: String,
    /// What to do.
    pub description: String,
    /// The present continuous form shown while it runs.
    #[serde(
        rename = "activeForm",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub active_form: Option<String>,
    /// Metadata to attach.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Map<String, Value>>,
    /// Fields this library does not know, kept as they came.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `TaskCreate`'s answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct TaskCreateOutput {
    /// The task created.
    pub task: CreatedTask,
    /// Fields this library does not know, kept as they came.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The task of a [`TaskCreateOutput`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct CreatedTask {
    /// Its id.
    pub id: String,
    /// Its title.
    pub subject: String,
    /// Its description as saved (a hook or a correction may have changed the input's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Fields this library does not know, kept as they came.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `TaskGet`'s input.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct TaskGetInput {
    /// The task.
    #[serde(rename = "taskId")]
    pub task_id: String,
    /// Fields this library does not know, kept as they came.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `TaskGet`'s answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct TaskGetOutput {
    /// The task, or `None` when there is no such task.
    pub task: Option<TaskDetails>,
    /// Fields this library does not know, kept as they came.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The task of a [`TaskGetOutput`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct TaskDetails {
    /// Its id.
    pub id: String,
    /// Its title.
    pub subject: String,
    /// What to do.
    pub description: String,
    /// Where it stands.
    pub status: TodoStatus,
    /// The tasks it blocks.
    pub blocks: Vec<String>,
    /// The tasks that block it.
    #[serde(rename = "blockedBy")]
    pub blocked_by: Vec<String>,
    /// Fields this library does not know, kept as they came.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `TaskUpdate`'s input: what to change of a task.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct TaskUpdateInput {
    /// The task.
    #[serde(rename = "taskId")]
    pub task_id: String,
    /// A new title.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subject: Option<String>,
    /// A new description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// A new present continuous form.
    #[serde(
        rename = "activeForm",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub active_form: Option<String>,
    /// A new status (`deleted` deletes it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<TodoStatus>,
    /// Tasks it now blocks.
    #[serde(rename = "addBlocks", default, skip_serializing_if = "Option::is_none")]
    pub add_blocks: Option<Vec<String>>,
    /// Tasks that now block it.
    #[serde(
        rename = "addBlockedBy",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub add_blocked_by: Option<Vec<String>>,
    /// A new owner.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub owner: Option<String>,
    /// Metadata to merge (a key set to `null` is deleted).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Map<String, Value>>,
    /// Fields this library does not know, kept as they came.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `TaskUpdate`'s answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct TaskUpdateOutput {
    /// Whether it was updated.
    pub success: bool,
    /// The task.
    #[serde(rename = "taskId")]
    pub task_id: String,
    /// The fields changed.
    #[serde(rename = "updatedFields")]
    pub updated_fields: Vec<String>,
    /// Why it failed, when it did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// The status change (`from`, `to`), when the status changed.
    #[serde(
        rename = "statusChange",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub status_change: Option<Map<String, Value>>,
    /// Fields this library does not know, kept as they came.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `TaskList`'s input (none: every task is listed).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct TaskListInput {
    /// Fields this library does not know, kept as they came.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `TaskList`'s answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct TaskListOutput {
    /// The tasks.
    pub tasks: Vec<TaskSummary>,
    /// Fields this library does not know, kept as they came.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// One task of a [`TaskListOutput`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct TaskSummary {
    /// Its id.
    pub id: String,
    /// Its title.
    pub subject: String,
    /// Where it stands.
    pub status: TodoStatus,
    /// Its owner.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub owner: Option<String>,
    /// The tasks that block it.
    #[serde(rename = "blockedBy")]
    pub blocked_by: Vec<String>,
    /// Fields this library does not know, kept as they came.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}
