//! Answers to the CLI's requests. Each runs in its own task, registered under its `request_id`
//! so `control_cancel_request` can find it; each gets exactly one answer, or none when cancelled.

use std::sync::Arc;

use serde_json::{Map, Value, json};
use tokio_util::sync::CancellationToken;

use super::{InFlight, Shared, lock};
use crate::catch_unwind::CatchUnwind;
use crate::hooks::HookInput;
use crate::permission::PermissionRequest;
use crate::protocol;

/// What to write back.
enum Answer {
    Success(Value),
    Error(String),
}

pub(super) fn spawn(
    shared: &Arc<Shared>,
    request_id: String,
    subtype: String,
    request: Map<String, Value>,
) {
    let cancellation = CancellationToken::new();
    let task_shared = shared.clone();
    let task_id = request_id.clone();
    let task_cancellation = cancellation.clone();
    // The map stays locked until the entry is in, so a fast handler cannot finish (and look
    // for its entry) before it exists.
    let mut inflight = lock(&shared.inflight);
    let task = tokio::spawn(async move {
        let answer =
            CatchUnwind::new(answer(&task_shared, &subtype, request, task_cancellation)).await;
        let frame = match answer {
            Ok(Answer::Success(payload)) => protocol::success(&task_id, payload),
            Ok(Answer::Error(message)) => protocol::error(&task_id, &message),
            Err(panic) => protocol::error(
                &task_id,
                &format!("the host's `{subtype}` handler panicked: {panic}"),
            ),
        };
        // Still registered means not cancelled: answer. Cancelled requests get nothing.
        if lock(&task_shared.inflight).remove(&task_id).is_some() {
            task_shared.write(&frame);
        }
    });
    inflight.insert(
        request_id,
        InFlight {
            cancellation,
            task: task.abort_handle(),
        },
    );
}

async fn answer(
    shared: &Shared,
    subtype: &str,
    mut request: Map<String, Value>,
    cancellation: CancellationToken,
) -> Answer {
    match subtype {
        "mcp_message" => {
            let server = request
                .get("server_name")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string();
            let message = request.remove("message").unwrap_or(Value::Null);
            let reply = match shared.routers.get(&server) {
                Some(router) => router.handle(message).await,
                None => json!({
                    "jsonrpc": "2.0",
                    "id": message.get("id").cloned().unwrap_or(Value::Null),
                    "error": {"code": -32601, "message": format!("Server '{server}' not found")},
                }),
            };
            Answer::Success(json!({"mcp_response": reply}))
        }
        "can_use_tool" => {
            let Some(callback) = &shared.can_use_tool else {
                return Answer::Error("canUseTool callback is not provided".into());
            };
            let request = PermissionRequest::from_request(request, cancellation);
            let input = request.input.clone();
            let decision = callback.call(request).await;
            Answer::Success(decision.to_response(&input))
        }
        "hook_callback" => {
            let callback_id = request
                .get("callback_id")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string();
            let callback = callback_id
                .strip_prefix("hook_")
                .and_then(|index| index.parse::<usize>().ok())
                .and_then(|index| shared.hooks.get(index));
            let Some(callback) = callback else {
                return Answer::Error(format!("No hook callback found for ID: {callback_id}"));
            };
            let tool_use_id = request
                .get("tool_use_id")
                .and_then(Value::as_str)
                .map(String::from);
            let input = match request.remove("input") {
                Some(Value::Object(input)) => input,
                _ => Map::new(),
            };
            let input = HookInput::new(input, tool_use_id, cancellation);
            let event = input.event_name().unwrap_or_default().to_string();
            let output = callback.call(input).await;
            Answer::Success(output.to_json(&event))
        }
        // The official TypeScript SDK's default answer when the host has no elicitation handler.
        "elicitation" => Answer::Success(json!({"action": "decline"})),
        other => Answer::Error(format!("Unsupported control request subtype: {other}")),
    }
}
