//! Routing and turn selection: what each request is answered with, and its record.

use std::time::Duration;

use serde_json::{Value, json};

use super::http::{Answer, Payload, Request, error_body};
use super::reply::{Reply, expand, sse_frame};
use super::script::{Block, HttpError};
use super::{RecordedRequest, Served, Shared, State, inspect};

fn json_headers(counter: u64) -> Vec<(String, String)> {
    vec![
        ("content-type".into(), "application/json".into()),
        ("request-id".into(), format!("req_test_{counter:06}")),
    ]
}

/// What to send, decided under the lock.
enum Action {
    Json(u16, Value, Vec<(String, String)>),
    Message {
        reply: Reply,
        stream: bool,
        delay: Option<Duration>,
    },
    Error {
        error: HttpError,
        delay: Option<Duration>,
    },
}

/// Answers one request (after the turn's delay, if it has one) and records it.
pub(super) async fn answer(shared: &Shared, req: Request) -> Answer {
    let at = shared.started.elapsed();
    let body: Option<Value> = serde_json::from_slice(&req.body).ok();
    let (path, query) = match req.target.split_once('?') {
        Some((p, q)) => (p.to_string(), Some(q.to_string())),
        None => (req.target.clone(), None),
    };
    let proxy_attempt = req.method == "CONNECT" || !req.target.starts_with('/');
    let method = req.method;

    let (served, action, counter) = {
        let mut st = shared.lock();
        st.counter += 1;
        let counter = st.counter;
        let (served, action) = if proxy_attempt {
            (
                Served::ProxyRefused,
                Action::Json(
                    403,
                    json!({"type": "error", "error": {"type": "forbidden", "message": "the test model server refuses proxy requests"}}),
                    Vec::new(),
                ),
            )
        } else if method == "POST" && path == "/v1/messages" {
            decide_message(shared, &mut st, body.as_ref(), counter)
        } else if method == "POST" && path == "/v1/messages/count_tokens" {
            let n = (req.body.len() as u64 / 4).max(1);
            (
                Served::CountTokens,
                Action::Json(200, json!({"input_tokens": n}), Vec::new()),
            )
        } else if (method == "GET" || method == "HEAD") && path == "/v1/models" {
            let model = model_object("claude-opus-5-5");
            (
                Served::Models,
                Action::Json(
                    200,
                    json!({"data": [model], "has_more": false, "first_id": "claude-opus-5-5", "last_id": "claude-opus-5-5"}),
                    Vec::new(),
                ),
            )
        } else if let Some(id) = path
            .strip_prefix("/v1/models/")
            .filter(|_| method == "GET" || method == "HEAD")
        {
            (
                Served::Models,
                Action::Json(200, model_object(id), Vec::new()),
            )
        } else {
            (Served::Fallback, Action::Json(200, json!({}), Vec::new()))
        };
        st.requests.push(RecordedRequest {
            method,
            path,
            query,
            headers: req.headers,
            body,
            at,
            served: served.clone(),
        });
        (served, action, counter)
    };

    match action {
        Action::Json(status, value, extra) => {
            let mut headers = json_headers(counter);
            headers.extend(extra);
            Answer {
                status,
                headers,
                body: Payload::Full(value.to_string().into_bytes()),
                // A client that tried to use the server as a proxy gets nothing more from it.
                close: served == Served::ProxyRefused,
            }
        }
        Action::Error { error, delay } => {
            if let Some(d) = delay {
                tokio::time::sleep(d).await;
            }
            let mut headers = json_headers(counter);
            headers.extend(error.headers.iter().map(|(k, v)| (k.clone(), v.clone())));
            Answer {
                status: error.status,
                headers,
                body: Payload::Full(error_body(&error.error_type, &error.message)),
                close: false,
            }
        }
        Action::Message {
            reply,
            stream,
            delay,
        } => {
            if let Some(d) = delay {
                tokio::time::sleep(d).await;
            }
            if stream {
                let headers = vec![
                    (
                        "content-type".to_string(),
                        "text/event-stream; charset=utf-8".to_string(),
                    ),
                    ("cache-control".to_string(), "no-cache".to_string()),
                    ("request-id".to_string(), format!("req_test_{counter:06}")),
                ];
                let events = reply
                    .events()
                    .into_iter()
                    .map(|(name, data)| sse_frame(name, &data))
                    .collect();
                Answer {
                    status: 200,
                    headers,
                    body: Payload::Events(events),
                    close: false,
                }
            } else {
                Answer {
                    status: 200,
                    headers: json_headers(counter),
                    body: Payload::Full(reply.message().to_string().into_bytes()),
                    close: false,
                }
            }
        }
    }
}

fn model_object(id: &str) -> Value {
    json!({"type": "model", "id": id, "display_name": id, "created_at": "2026-01-01T00:00:00Z"})
}

fn decide_message(
    shared: &Shared,
    st: &mut State,
    body: Option<&Value>,
    counter: u64,
) -> (Served, Action) {
    let Some(body) = body else {
        return (
            Served::BadRequest,
            Action::Json(
                400,
                json!({"type": "error", "error": {"type": "invalid_request_error", "message": "request body is not JSON"}}),
                Vec::new(),
            ),
        );
    };
    let stream = body.get("stream").and_then(Value::as_bool).unwrap_or(false);
    let model = body
        .get("model")
        .and_then(Value::as_str)
        .unwrap_or("claude-opus-5-5")
        .to_string();
    let input_tokens = (body.to_string().len() as u64 / 4).max(1);
    let text_reply = |text: String| Reply {
        id: format!("msg_test_{counter:06}"),
        model: model.clone(),
        blocks: vec![Block::Text { text }],
        stop_reason: "end_turn",
        input_tokens,
    };
    if !inspect::has_tools(body) {
        let text = shared
            .script
            .side_reply
            .clone()
            .unwrap_or_else(|| "OK.".to_string());
        return (
            Served::SideReply,
            Action::Message {
                reply: text_reply(text),
                stream,
                delay: None,
            },
        );
    }
    let turns = &shared.script.turns;
    let user_text = inspect::last_user_text(body);
    let keyed = turns.iter().position(|t| {
        t.when_user_text
            .as_deref()
            .is_some_and(|needle| user_text.contains(needle))
    });
    let position = inspect::assistant_count(body);
    let index = keyed.or_else(|| {
        turns
            .iter()
            .enumerate()
            .filter(|(_, t)| t.when_user_text.is_none())
            .nth(position)
            .map(|(i, _)| i)
    });
    let Some(index) = index else {
        let text = format!(
            "script exhausted: the request has {position} assistant message(s) but the script has no turn for it"
        );
        return (
            Served::Exhausted,
            Action::Message {
                reply: text_reply(text),
                stream,
                delay: None,
            },
        );
    };
    let turn = &turns[index];
    let delay = turn.delay_ms.map(Duration::from_millis);
    if let Some(error) = &turn.error {
        let served = st.errors_served.entry(index).or_insert(0);
        if error.times.is_none_or(|n| *served < n) {
            *served += 1;
            return (
                Served::TurnError {
                    index,
                    status: error.status,
                },
                Action::Error {
                    error: error.clone(),
                    delay,
                },
            );
        }
    }
    let blocks = turn
        .content
        .iter()
        .map(|b| match b {
            Block::Text { text } => Block::Text {
                text: expand(text, body),
            },
            other => other.clone(),
        })
        .collect();
    let reply = Reply {
        id: format!("msg_test_{counter:06}"),
        model,
        blocks,
        stop_reason: turn.stop_reason(),
        input_tokens,
    };
    (
        Served::Turn { index },
        Action::Message {
            reply,
            stream,
            delay,
        },
    )
}
