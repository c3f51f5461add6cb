//! [`HookInput`]: what the CLI passes to a hook, raw and typed.

use serde_json::{Map, Value};
use tokio_util::sync::CancellationToken;

/// What the CLI passes to a hook: the event's input object.
#[derive(Debug, Clone)]
pub struct HookInput {
    /// The whole input (`session_id`, `cwd`, `hook_event_name`, `tool_name`, `tool_input`…).
    pub raw: Map<String, Value>,
    /// The `tool_use_id` the request carries, for tool events.
    pub tool_use_id: Option<String>,
    cancellation: CancellationToken,
}

impl HookInput {
    pub(crate) fn new(
        raw: Map<String, Value>,
        tool_use_id: Option<String>,
        cancellation: CancellationToken,
    ) -> Self {
        Self {
            raw,
            tool_use_id,
            cancellation,
        }
    }

    /// An input made of `raw` (with no `tool_use_id` and a token that never fires): for
    /// calling a hook callback in a test, outside a session.
    ///
    /// ```
    /// use claude_tools::hooks::{HookInput, TypedHookInput};
    /// use serde_json::json;
    ///
    /// let raw = json!({"hook_event_name": "SessionStart", "source": "startup",
    ///                  "session_id": "s", "transcript_path": "/t.jsonl", "cwd": "/work"});
    /// let input = HookInput::from_raw(raw.as_object().unwrap().clone());
    /// assert!(matches!(input.typed(), TypedHookInput::SessionStart(_)));
    /// ```
    pub fn from_raw(raw: Map<String, Value>) -> Self {
        Self::new(raw, None, CancellationToken::new())
    }

    fn str_field(&self, key: &str) -> Option<&str> {
        self.raw.get(key).and_then(Value::as_str)
    }

    /// `hook_event_name`.
    pub fn event_name(&self) -> Option<&str> {
        self.str_field("hook_event_name")
    }

    /// `tool_name`, for tool events.
    pub fn tool_name(&self) -> Option<&str> {
        self.str_field("tool_name")
    }

    /// `tool_input`, for tool events.
    pub fn tool_input(&self) -> Option<&Value> {
        self.raw.get("tool_input")
    }

    /// `session_id`.
    pub fn session_id(&self) -> Option<&str> {
        self.str_field("session_id")
    }

    /// Fires when the CLI withdraws the call (`control_cancel_request`) or the session ends.
    /// No answer is sent then; the hook is still polled for up to
    /// [`CANCEL_GRACE`](claude_tools_core::mcp::CANCEL_GRACE) so a branch waiting on this token can clean
    /// up, and is dropped after that (the contract is described there).
    pub fn cancellation_token(&self) -> &CancellationToken {
        &self.cancellation
    }
}
