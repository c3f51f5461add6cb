//! One transport of an attached session: the worker's initialisation (`GET` and `PUT
//! /worker`), then three tasks until it dies or is replaced: the writer (`PUT /worker`,
//! `POST /worker/events`, `POST /worker/events/delivery`), the heartbeat (`POST
//! /worker/heartbeat`) and the read stream (`GET /worker/events/stream`, SSE).

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use serde_json::{Value, json};

use super::BridgeError;
use super::dispatch;
use super::http;
use super::sessions::safe_integer;
use super::shared::{Shared, Transport};
use super::sse::SseReader;
use super::types::CloseCode;

/// Consecutive 401/403 answers on the request path before the transport closes with 4094.
const AUTH_FAILURES_BEFORE_CLOSE: u32 = 3;
/// Attempts of the initial `PUT /worker`.
const INIT_ATTEMPTS: u32 = 10;
/// Events posted in one batch.
const BATCH: usize = 100;

/// `POST {session_url}/worker/register`: a fresh worker epoch.
pub(crate) async fn register_worker(
    client: &reqwest::Client,
    session_url: &str,
    token: &str,
) -> Result<i64, BridgeError> {
    let mut headers = http::headers(token);
    headers.remove("anthropic-client-platform");
    let sent = client
        .post(format!("{session_url}/worker/register"))
        .headers(headers)
        .timeout(Duration::from_secs(10))
        .body("{}");
    let answer = http::send(sent)
        .await
        .map_err(|error| BridgeError::Register {
            status: None,
            message: error.to_string(),
        })?;
    if !(200..300).contains(&answer.status) {
        return Err(BridgeError::Register {
            status: Some(answer.status),
            message: format!("HTTP {}", answer.status),
        });
    }
    answer
        .body
        .get("worker_epoch")
        .and_then(safe_integer)
        .ok_or_else(|| BridgeError::Register {
            status: Some(answer.status),
            message: "no valid worker_epoch in the answer".into(),
        })
}

/// How one request went.
enum Verdict {
    Ok(Value),
    /// 409: another worker took over.
    Superseded,
    /// 401 / 403.
    Auth,
    /// Another 4xx: retrying the same request cannot help.
    Refused(u16),
    /// No answer, 408, 429 or 5xx: retry later.
    Retry,
}

/// Runs a transport: initialises the worker, then its tasks until it is cancelled or dies.
pub(crate) async fn run(shared: Arc<Shared>, transport: Transport) {
    let cancel = transport.cancel.clone();
    tokio::select! {
        () = cancel.cancelled() => {}
        () = run_inner(shared, transport) => {}
    }
}

async fn run_inner(shared: Arc<Shared>, transport: Transport) {
    if !initialise(&shared, &transport).await {
        return;
    }
    shared.connected.store(true, Ordering::SeqCst);
    tracing::debug!(epoch = transport.epoch, "[bridge:session] ready for writes");
    let auth_failures = Arc::new(std::sync::atomic::AtomicU32::new(0));
    let writer = write_loop(&shared, &transport, &auth_failures);
    let heartbeat = heartbeat_loop(&shared, &transport, &auth_failures);
    if shared.outbound_only {
        tokio::join!(writer, heartbeat);
    } else {
        tokio::join!(writer, heartbeat, read_loop(&shared, &transport));
    }
}

/// Sends one request to a worker endpoint and classifies the answer.
async fn request(
    shared: &Shared,
    transport: &Transport,
    method: reqwest::Method,
    path: &str,
    body: Option<&Value>,
) -> Verdict {
    let mut headers = http::headers(&transport.token);
    headers.insert(
        reqwest::header::ACCEPT,
        reqwest::header::HeaderValue::from_static("*/*"),
    );
    if body.is_none() {
        headers.remove(reqwest::header::CONTENT_TYPE);
    }
    let mut sent = shared
        .client
        .request(method, format!("{}{path}", transport.session_url))
        .headers(headers)
        .timeout(shared.request_timeout);
    if let Some(body) = body {
        sent = sent.body(body.to_string());
    }
    let answer = match http::send(sent).await {
        Ok(answer) => answer,
        Err(error) => {
            tracing::debug!(%error, path, "[bridge:session] request failed");
            return Verdict::Retry;
        }
    };
    match answer.status {
        200..=299 => Verdict::Ok(answer.body),
        409 => Verdict::Superseded,
        401 | 403 => Verdict::Auth,
        408 | 429 | 500.. => Verdict::Retry,
        status => Verdict::Refused(status),
    }
}

/// Backoff before attempt `attempt` (1-based): `base * 2^(attempt-1)`, at most `cap`, with up
/// to a quarter of jitter either way.
fn backoff(attempt: u32, base: Duration, cap: Duration) -> Duration {
    let exp = base.saturating_mul(1u32 << attempt.saturating_sub(1).min(16));
    let delay = exp.min(cap);
    let mut byte = [0u8; 1];
    let jitter = if getrandom::fill(&mut byte).is_ok() {
        f64::from(byte[0]) / 255.0 * 0.5 - 0.25
    } else {
        0.0
    };
    delay.mul_f64(1.0 + jitter)
}

/// `GET /worker` (the service's view, read and set aside), then `PUT /worker` as idle, retried
/// with backoff. `false` when the transport closed (4090 on a superseded epoch, 4091 when the
/// attempts ran out).
async fn initialise(shared: &Arc<Shared>, transport: &Transport) -> bool {
    let _ = request(shared, transport, reqwest::Method::GET, "/worker", None).await;
    let body = json!({
        "worker_status": "idle",
        "worker_epoch": transport.epoch,
        "external_metadata": {"pending_action": null, "pending_actions": null, "task_summary": null},
    });
    for attempt in 1..=INIT_ATTEMPTS {
        match request(
            shared,
            transport,
            reqwest::Method::PUT,
            "/worker",
            Some(&body),
        )
        .await
        {
            Verdict::Ok(_) => return true,
            Verdict::Superseded => {
                shared.transport_died(transport.generation, CloseCode::EpochSuperseded);
                return false;
            }
            Verdict::Refused(_) | Verdict::Auth => break,
            Verdict::Retry => {}
        }
        if attempt < INIT_ATTEMPTS {
            tokio::time::sleep(backoff(
                attempt,
                Duration::from_millis(500),
                Duration::from_secs(30),
            ))
            .await;
        }
    }
    shared.transport_died(transport.generation, CloseCode::InitFailed);
    false
}

/// Counts an auth failure; closes with 4094 after too many in a row.
fn auth_failed(
    shared: &Arc<Shared>,
    transport: &Transport,
    failures: &std::sync::atomic::AtomicU32,
) {
    if failures.fetch_add(1, Ordering::SeqCst) + 1 >= AUTH_FAILURES_BEFORE_CLOSE {
        shared.transport_died(transport.generation, CloseCode::CredentialRejected);
    }
}

/// Sends what is queued, oldest first: worker state, events, deliveries. Events stay at the
/// head of the queue until the service accepts them, so a transport that dies mid-post leaves
/// them for the next one.
async fn write_loop(
    shared: &Arc<Shared>,
    transport: &Transport,
    auth_failures: &std::sync::atomic::AtomicU32,
) {
    let mut attempt = 0u32;
    loop {
        let notified = shared.wake_writer.notified();
        let (put, events, deliveries) = {
            let state = shared.lock();
            let put = state.worker_puts.front().cloned();
            let events: Vec<Value> = state.outbound.iter().take(BATCH).cloned().collect();
            (put, events, state.deliveries.clone())
        };
        if put.is_none() && events.is_empty() && deliveries.is_empty() {
            shared.progress.notify_waiters();
            notified.await;
            continue;
        }
        let mut failed = false;
        if let Some(mut put) = put {
            put.insert("worker_epoch".into(), Value::from(transport.epoch));
            // `worker_epoch` first, as the service's other clients write it.
            let mut body = serde_json::Map::new();
            body.insert("worker_epoch".into(), Value::from(transport.epoch));
            body.extend(put.into_iter().filter(|(k, _)| k != "worker_epoch"));
            let verdict = request(
                shared,
                transport,
                reqwest::Method::PUT,
                "/worker",
                Some(&Value::Object(body)),
            )
            .await;
            match settle(shared, transport, auth_failures, verdict) {
                Settled::Done => {
                    shared.lock().worker_puts.pop_front();
                }
                Settled::Again => failed = true,
                Settled::Stop => return,
            }
        }
        if !events.is_empty() && !failed {
            let count = events.len();
            let body = json!({
                "worker_epoch": transport.epoch,
                "events": events.into_iter().map(|payload| json!({"payload": payload})).collect::<Vec<_>>(),
            });
            let verdict = request(
                shared,
                transport,
                reqwest::Method::POST,
                "/worker/events",
                Some(&body),
            )
            .await;
            match settle(shared, transport, auth_failures, verdict) {
                Settled::Done => {
                    let mut state = shared.lock();
                    let count = count.min(state.outbound.len());
                    state.outbound.drain(..count);
                }
                Settled::Again => failed = true,
                Settled::Stop => return,
            }
            shared.progress.notify_waiters();
        }
        if !deliveries.is_empty() && !failed {
            let count = deliveries.len();
            let body = json!({
                "worker_epoch": transport.epoch,
                "updates": deliveries.iter().map(|(id, status)| json!({"event_id": id, "status": status})).collect::<Vec<_>>(),
            });
            let verdict = request(
                shared,
                transport,
                reqwest::Method::POST,
                "/worker/events/delivery",
                Some(&body),
            )
            .await;
            match settle(shared, transport, auth_failures, verdict) {
                Settled::Done => {
                    let mut state = shared.lock();
                    let count = count.min(state.deliveries.len());
                    state.deliveries.drain(..count);
                }
                Settled::Again => failed = true,
                Settled::Stop => return,
            }
        }
        if failed {
            attempt += 1;
            tokio::time::sleep(backoff(
                attempt,
                Duration::from_millis(500),
                Duration::from_secs(8),
            ))
            .await;
        } else {
            attempt = 0;
        }
    }
}

enum Settled {
    /// Accepted, or refused for good (dropped: retrying cannot help).
    Done,
    /// Try again after a backoff.
    Again,
    /// The transport closed.
    Stop,
}

fn settle(
    shared: &Arc<Shared>,
    transport: &Transport,
    auth_failures: &std::sync::atomic::AtomicU32,
    verdict: Verdict,
) -> Settled {
    match verdict {
        Verdict::Ok(_) => {
            auth_failures.store(0, Ordering::SeqCst);
            Settled::Done
        }
        Verdict::Refused(status) => {
            tracing::debug!(
                status,
                "[bridge:session] the service refused a write; dropped"
            );
            Settled::Done
        }
        Verdict::Retry => Settled::Again,
        Verdict::Superseded => {
            shared.transport_died(transport.generation, CloseCode::EpochSuperseded);
            Settled::Stop
        }
        Verdict::Auth => {
            auth_failed(shared, transport, auth_failures);
            if shared.lock().dead {
                Settled::Stop
            } else {
                Settled::Again
            }
        }
    }
}

/// Beats every interval (the server may advise another in `heartbeat_interval_seconds`).
async fn heartbeat_loop(
    shared: &Arc<Shared>,
    transport: &Transport,
    auth_failures: &std::sync::atomic::AtomicU32,
) {
    let mut interval = shared.heartbeat_seed;
    loop {
        tokio::time::sleep(interval).await;
        let body = json!({"session_id": shared.session_id, "worker_epoch": transport.epoch});
        match request(
            shared,
            transport,
            reqwest::Method::POST,
            "/worker/heartbeat",
            Some(&body),
        )
        .await
        {
            Verdict::Ok(answer) => {
                auth_failures.store(0, Ordering::SeqCst);
                if let Some(seconds) = answer
                    .get("heartbeat_interval_seconds")
                    .and_then(Value::as_f64)
                    .filter(|s| s.is_finite() && *s > 0.0 && *s < 86_400.0)
                {
                    interval = Duration::from_secs_f64(seconds);
                }
            }
            Verdict::Superseded => {
                shared.transport_died(transport.generation, CloseCode::EpochSuperseded);
                return;
            }
            Verdict::Auth => auth_failed(shared, transport, auth_failures),
            Verdict::Refused(_) | Verdict::Retry => {}
        }
    }
}

/// Reads the event stream, reopening it (from the last sequence number) when it ends or
/// fails; 401, 403 and 404 close the transport for good.
async fn read_loop(shared: &Arc<Shared>, transport: &Transport) {
    let mut attempt = 0u32;
    loop {
        match read_once(shared, transport).await {
            Ok(()) => attempt = 0,
            Err(Some(code)) => {
                shared.transport_died(transport.generation, code);
                return;
            }
            Err(None) => {}
        }
        attempt += 1;
        tokio::time::sleep(backoff(
            attempt,
            Duration::from_secs(1),
            Duration::from_secs(30),
        ))
        .await;
    }
}

/// One connection of the stream. `Ok` when it delivered and then ended; `Err(Some(code))` on a
/// permanent refusal; `Err(None)` on a failure worth retrying.
async fn read_once(shared: &Arc<Shared>, transport: &Transport) -> Result<(), Option<CloseCode>> {
    let from = shared.sequence_num.load(Ordering::SeqCst);
    let mut url = format!("{}/worker/events/stream", transport.session_url);
    let mut headers = http::headers(&transport.token);
    headers.remove(reqwest::header::CONTENT_TYPE);
    headers.insert(
        reqwest::header::ACCEPT,
        reqwest::header::HeaderValue::from_static("text/event-stream"),
    );
    if from > 0 {
        url.push_str(&format!("?from_sequence_num={from}"));
        if let Ok(value) = reqwest::header::HeaderValue::from_str(&from.to_string()) {
            headers.insert("Last-Event-ID", value);
        }
    }
    let opened = tokio::time::timeout(
        shared.request_timeout,
        shared.client.get(url).headers(headers).send(),
    )
    .await;
    let mut response = match opened {
        Ok(Ok(response)) => response,
        Ok(Err(error)) => {
            tracing::debug!(%error, "[bridge:session] the event stream did not open");
            return Err(None);
        }
        Err(_) => {
            tracing::debug!("[bridge:session] the event stream did not answer in time");
            return Err(None);
        }
    };
    let status = response.status().as_u16();
    if !(200..300).contains(&status) {
        tracing::debug!(status, "[bridge:session] the event stream was refused");
        return Err(matches!(status, 401 | 403 | 404).then(|| CloseCode::from_code(status)));
    }
    let mut reader = SseReader::new();
    let mut delivered = false;
    loop {
        let chunk = match tokio::time::timeout(shared.request_timeout, response.chunk()).await {
            Ok(Ok(Some(chunk))) => chunk,
            Ok(Ok(None)) => break,
            Ok(Err(error)) => {
                tracing::debug!(%error, "[bridge:session] the event stream broke");
                break;
            }
            Err(_) => {
                tracing::debug!("[bridge:session] the event stream went silent; reopening");
                break;
            }
        };
        let frames = match reader.feed(&chunk) {
            Ok(frames) => frames,
            Err(error) => {
                tracing::debug!(%error, "[bridge:session] unreadable event stream; reopening");
                break;
            }
        };
        for frame in frames {
            delivered = true;
            // Ephemeral frames carry no place in the session's history.
            if frame.event.as_deref() != Some("ephemeral_event")
                && let Some(seq) = frame
                    .id
                    .as_deref()
                    .and_then(|id| id.trim().parse::<u64>().ok())
            {
                shared.sequence_num.fetch_max(seq, Ordering::SeqCst);
            }
            match frame.event.as_deref() {
                Some("client_event") => dispatch::client_event(shared, &frame.data),
                Some(other) => {
                    tracing::debug!(event = other, "[bridge:session] unexpected event type")
                }
                None => tracing::debug!("[bridge:session] a frame with no event type; dropped"),
            }
        }
    }
    if delivered { Ok(()) } else { Err(None) }
}
