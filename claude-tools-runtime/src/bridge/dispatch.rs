//! What arrives on the read stream: a `client_event` frame's payload is routed to the host
//! (user messages, permission answers) or answered here (control requests), and its delivery
//! is acknowledged (`received`, then `processed`).

use std::sync::Arc;

use serde_json::{Map, Value, json};

use crate::message::Message;
use crate::options::PermissionMode;

use super::detail::sanitize_message;
use super::shared::Shared;
use super::types::{ControlResponse, ThinkingDisplay};

/// The answer to any control request when the session is outbound-only.
const OUTBOUND_ONLY: &str =
    "This session is outbound-only. Enable Remote Control locally to allow inbound control.";

/// Handles one `client_event` frame's data.
pub(crate) fn client_event(shared: &Arc<Shared>, data: &str) {
    let event: Value = match serde_json::from_str(data) {
        Ok(event) => event,
        Err(error) => {
            tracing::debug!(%error, "[bridge:session] a client_event is not JSON; dropped");
            return;
        }
    };
    let event_id = event
        .get("event_id")
        .and_then(Value::as_str)
        .map(str::to_owned);
    let payload = event.get("payload").cloned().unwrap_or(Value::Null);
    let typed = payload.get("type").and_then(Value::as_str).is_some();
    if typed {
        let from_worker = event.get("source").and_then(Value::as_str) == Some("worker");
        if payload.get("type").and_then(Value::as_str) == Some("control_request") && from_worker {
            tracing::debug!("[bridge:session] a worker's own control_request; dropped");
        } else {
            route(shared, payload);
        }
    } else {
        tracing::debug!("[bridge:session] a client_event with no payload type; ignored");
    }
    if let Some(id) = event_id {
        shared.deliver(&id, "received");
        shared.deliver(&id, "processed");
    }
}

/// Routes an inbound payload.
fn route(shared: &Arc<Shared>, payload: Value) {
    match payload.get("type").and_then(Value::as_str) {
        Some("control_response") => {
            let Some(response) = ControlResponse::from_value(&payload) else {
                tracing::debug!("[bridge:session] an unreadable control_response; dropped");
                return;
            };
            let accepted = shared
                .callbacks
                .permission_response
                .as_ref()
                .is_none_or(|f| f(&response));
            if accepted {
                shared
                    .lock()
                    .pending_prompts
                    .retain(|(id, _)| *id != response.request_id);
            }
        }
        Some("control_request") => control_request(shared, &payload),
        Some("control_cancel_request") => {
            tracing::debug!("[bridge:session] control_cancel_request: nothing cancellable here");
        }
        Some(kind) => {
            let uuid = payload.get("uuid").and_then(Value::as_str);
            {
                let mut state = shared.lock();
                if let Some(uuid) = uuid {
                    if state.written.contains(uuid) {
                        tracing::debug!(uuid, "[bridge:session] echo of our own write; ignored");
                        return;
                    }
                    if state.inbound_seen.contains(uuid) {
                        tracing::debug!(uuid, "[bridge:session] re-delivered; ignored");
                        return;
                    }
                }
                if kind != "user"
                    || payload.get("isReplay") == Some(&Value::Bool(true))
                    || payload
                        .get("parent_tool_use_id")
                        .is_some_and(|p| !p.is_null())
                {
                    return;
                }
                if let Some(uuid) = uuid {
                    state.inbound_seen.add(uuid);
                }
            }
            if let Some(on_message) = &shared.callbacks.inbound_message {
                on_message(Message::from_value(payload));
            }
        }
        None => {}
    }
}

fn success(request_id: &str, response: Option<Value>) -> Value {
    ControlResponse::success(request_id, response).to_value()
}

fn error(request_id: &str, message: &str, code: Option<&str>) -> Value {
    let mut response = Map::new();
    response.insert("subtype".into(), Value::from("error"));
    response.insert("request_id".into(), Value::from(request_id));
    response.insert("error".into(), Value::from(message));
    if let Some(code) = code {
        response.insert("error_code".into(), Value::from(code));
    }
    json!({"type": "control_response", "response": response})
}

fn unsupported(request_id: &str, message: &str) -> Value {
    error(request_id, message, Some("unsupported_request"))
}

/// Answers an inbound control request (some through the host's callbacks, asynchronously).
fn control_request(shared: &Arc<Shared>, frame: &Value) {
    let request_id = frame
        .get("request_id")
        .or_else(|| frame.get("requestId"))
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned();
    let request = frame.get("request").cloned().unwrap_or(Value::Null);
    let subtype = request
        .get("subtype")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned();
    if shared.outbound_only && subtype != "initialize" {
        shared.enqueue(error(&request_id, OUTBOUND_ONLY, None));
        return;
    }
    let callbacks = &shared.callbacks;
    let id = request_id.as_str();
    let reply = match subtype.as_str() {
        "initialize" => initialize(shared, id),
        "interrupt" => {
            if let Some(f) = &callbacks.interrupt {
                f();
            }
            success(id, None)
        }
        "set_model" => {
            let model = request.get("model").unwrap_or(&Value::Null);
            if !model.is_null() && !model.is_string() {
                error(id, "set_model: model must be a string", None)
            } else if request
                .get("only_if_model_is_current")
                .is_some_and(|v| v != &Value::Bool(false) && !v.is_null())
            {
                error(
                    id,
                    "set_model: Remote Control does not implement only_if_model_is_current. \
                     The request changed nothing.",
                    None,
                )
            } else if let Some(f) = &callbacks.set_model {
                let verdict = f(model.as_str().map(str::to_owned));
                let shared = shared.clone();
                let id = request_id.clone();
                tokio::spawn(async move {
                    match verdict.await {
                        Ok(notices) => {
                            for notice in notices {
                                shared
                                    .enqueue(json!({"type": "system", "subtype": "informational",
                                    "content": sanitize_message(&notice), "level": "notice"}));
                            }
                            shared.enqueue(success(&id, None));
                        }
                        Err(message) => {
                            shared.enqueue(error(&id, &sanitize_message(&message), None));
                        }
                    }
                });
                return;
            } else {
                success(id, None)
            }
        }
        "set_max_thinking_tokens" => {
            let tokens = request.get("max_thinking_tokens");
            let display = request.get("thinking_display");
            let tokens_ok = tokens.is_none_or(|t| t.is_null() || t.as_i64().is_some());
            let display_value = display
                .and_then(Value::as_str)
                .and_then(ThinkingDisplay::from_wire);
            let display_ok = display.is_none_or(|d| d.is_null() || display_value.is_some());
            if !tokens_ok || !display_ok {
                error(
                    id,
                    "set_max_thinking_tokens: max_thinking_tokens must be an integer or null and \
                     thinking_display must be \"summarized\", \"omitted\", \"highlights\", or null",
                    None,
                )
            } else if let Some(f) = &callbacks.set_max_thinking_tokens {
                let verdict = f(tokens.and_then(Value::as_i64), display_value);
                answer_later(
                    shared,
                    &request_id,
                    async move { verdict.await.map(|()| None) },
                );
                return;
            } else {
                success(id, None)
            }
        }
        "set_permission_mode" => {
            let mode = request
                .get("mode")
                .and_then(Value::as_str)
                .and_then(PermissionMode::from_wire);
            match (mode, &callbacks.set_permission_mode) {
                (None, _) => error(
                    id,
                    "Cannot set permission mode: must be one of acceptEdits, auto, \
                     bypassPermissions, default, dontAsk, plan",
                    Some("invalid_mode"),
                ),
                (Some(_), None) => unsupported(
                    id,
                    "set_permission_mode is not supported in this context (onSetPermissionMode \
                     callback not registered)",
                ),
                (Some(mode), Some(f)) => match f(mode) {
                    Ok(()) => success(id, None),
                    Err(message) => error(id, &sanitize_message(&message), None),
                },
            }
        }
        "rename_session" => match (
            request.get("title").and_then(Value::as_str),
            &callbacks.rename_session,
        ) {
            (None, _) => error(id, "rename_session: title must be a string", None),
            (Some(_), None) => unsupported(
                id,
                "rename_session is not supported in this context (onRenameSession callback not \
                 registered)",
            ),
            (Some(title), Some(f)) => match f(title.to_owned()) {
                Ok(()) => success(id, None),
                Err(message) => error(id, &sanitize_message(&message), None),
            },
        },
        "stop_task" => match (
            request.get("task_id").and_then(Value::as_str),
            &callbacks.stop_task,
        ) {
            (None, _) => error(id, "stop_task: task_id must be a string", None),
            (Some(_), None) => unsupported(
                id,
                "stop_task is not supported in this context (callback not registered)",
            ),
            (Some(task), Some(f)) => {
                let verdict = f(task.to_owned());
                answer_later(shared, &request_id, async move {
                    verdict.await.map(|()| Some(json!({})))
                });
                return;
            }
        },
        "background_tasks" => {
            let tool_use_id = match request.get("tool_use_id") {
                None | Some(Value::Null) => Ok(None),
                Some(Value::String(s)) if s.is_empty() => Ok(None),
                Some(Value::String(s)) => Ok(Some(s.clone())),
                Some(_) => Err(()),
            };
            match (tool_use_id, &callbacks.background_tasks) {
                (Err(()), _) => error(id, "background_tasks: tool_use_id must be a string", None),
                (Ok(_), None) => unsupported(
                    id,
                    "background_tasks is not supported in this context (callback not registered)",
                ),
                (Ok(tool_use_id), Some(f)) => {
                    let asked = tool_use_id.is_some();
                    let verdict = f(tool_use_id);
                    answer_later(shared, &request_id, async move {
                        verdict.await.map(|found| {
                            Some(if asked {
                                json!({"backgrounded": found})
                            } else {
                                json!({})
                            })
                        })
                    });
                    return;
                }
            }
        }
        "get_usage" => unsupported(id, "get_usage is not supported in this context"),
        "mcp_status" => success(id, Some(json!({"mcpServers": []}))),
        "fork_conversation" => success(
            id,
            Some(
                json!({"forked": false, "error": "unsupported", "reason": "requires_remote_control_server"}),
            ),
        ),
        "set_color"
        | "file_suggestions"
        | "read_file"
        | "get_workspace_diff"
        | "get_context_usage"
        | "apply_flag_settings"
        | "mcp_set_servers"
        | "side_question" => {
            let callback = match subtype.as_str() {
                "set_color" => "onSetColor",
                "file_suggestions" => "onFileSuggestions",
                "read_file" => "onReadFile",
                "get_workspace_diff" => "onGetWorkspaceDiff",
                "get_context_usage" => "onGetContextUsage",
                "apply_flag_settings" => "onApplyFlagSettings",
                "mcp_set_servers" => "onMcpSetServers",
                _ => "onSideQuestion",
            };
            unsupported(
                id,
                &format!(
                    "{subtype} is not supported in this context ({callback} callback not registered)"
                ),
            )
        }
        "mcp_authenticate"
        | "mcp_oauth_callback_url"
        | "mcp_reconnect"
        | "cancel_async_message" => unsupported(
            id,
            &format!("{subtype} is not supported in this context (callback not registered)"),
        ),
        other => unsupported(
            id,
            &format!(
                "REPL bridge does not handle control_request subtype: {}",
                sanitize_message(other)
            ),
        ),
    };
    shared.enqueue(reply);
}

/// Answers when the host's future settles: success with its payload, or an error with its
/// message.
fn answer_later(
    shared: &Arc<Shared>,
    request_id: &str,
    verdict: impl std::future::Future<Output = Result<Option<Value>, String>> + Send + 'static,
) {
    let shared = shared.clone();
    let id = request_id.to_owned();
    tokio::spawn(async move {
        let reply = match verdict.await {
            Ok(payload) => success(&id, payload),
            Err(message) => error(&id, &sanitize_message(&message), None),
        };
        shared.enqueue(reply);
    });
}

/// The `initialize` reply: an empty catalogue (a bridge host has no commands, agents or models
/// of its own to offer), the version when known, and the prompts still pending.
fn initialize(shared: &Arc<Shared>, request_id: &str) -> Value {
    let pending: Vec<Value> = shared
        .lock()
        .pending_prompts
        .iter()
        .filter(|(_, prompt)| {
            prompt.pointer("/request/subtype").and_then(Value::as_str) == Some("can_use_tool")
        })
        .map(|(_, prompt)| prompt.clone())
        .collect();
    let dialogs: Vec<Value> = shared
        .lock()
        .pending_prompts
        .iter()
        .filter(|(_, prompt)| {
            prompt.pointer("/request/subtype").and_then(Value::as_str)
                == Some("request_user_dialog")
        })
        .map(|(_, prompt)| prompt.clone())
        .collect();
    let mut answer = json!({
        "commands": [], "agents": [], "output_style": "normal",
        "available_output_styles": ["normal"], "models": [], "account": {},
        "pid": std::process::id(),
    });
    if let Some(version) = &shared.claude_code_version {
        answer["claude_code_version"] = Value::from(version.as_str());
    }
    json!({"type": "control_response", "response": {
        "subtype": "success", "request_id": request_id, "response": answer,
        "pending_permission_requests": pending, "pending_user_dialog_requests": dialogs,
    }})
}
