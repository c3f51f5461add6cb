//! The Rust bridge (`claude_tools::bridge`) and the TypeScript SDK's own
//! (`@anthropic-ai/claude-agent-sdk/bridge`) run the same scenario against the fake CCR
//! service (`claude_tools_testkit::ccr`): create a session, fetch its credentials (and refuse
//! an invalid session id), attach, write a message, forward a permission prompt, report
//! state, receive claude.ai's answer, a user message, an interrupt, a model change, a
//! permission-mode change no callback handles and an echo of the host's own write, send the
//! turn's result, report metadata, flush and close. The two recorded traffic logs must agree
//! (method, path, the headers that matter, the bodies with random ids normalised), and so must
//! what the two hosts' callbacks saw.
//!
//! That the TypeScript SDK completes the scenario against the fake is the proof that the fake
//! speaks the protocol as the official client expects it; that the Rust bridge then sends the
//! same traffic is the proof that it speaks it too.
//!
//! What is compared: per kind of request, in the order sent (events flattened from their
//! batches, since batching follows timing); deliveries and heartbeats as sets (their batching
//! and count follow timing too). Not compared: `User-Agent`, `anthropic-client-platform`
//! (each SDK names itself), `Accept` outside the read stream, the TypeScript CLI's internal
//! `x-ccr-upload-attempt` header and `internal_metadata` of `PUT /worker`.

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use claude_tools::bridge::{
    AttachBridgeSessionOptions, ControlRequest, CreateCodeSession, CreateSessionOutcome,
    CredentialsFailureReason, CredentialsOutcome, SessionState, attach_bridge_session,
    create_code_session, fetch_remote_credentials,
};
use claude_tools::message::Message;
use claude_tools_testkit::ccr::{CcrServer, RecordedRequest, posted_events};
use serde_json::{Map, Value, json};

/// The TypeScript SDK's `bridge.mjs`, or `None` (after a loud banner) when node or the SDK is
/// missing and `CI` is unset. With `CI` set, a missing SDK fails the test.
fn typescript_bridge(test: &str) -> Option<PathBuf> {
    let sdk = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../bench/node_modules/@anthropic-ai/claude-agent-sdk/bridge.mjs");
    let node_found = std::process::Command::new("node")
        .arg("--version")
        .output()
        .is_ok_and(|output| output.status.success());
    if node_found && sdk.exists() {
        return Some(sdk);
    }
    let hint = "install node and run bench/install-sdks.sh";
    if std::env::var_os("CI").is_some() {
        panic!(
            "{test}: node or the TypeScript SDK ({}) is missing and CI is set; {hint}",
            sdk.display()
        );
    }
    use std::io::Write;
    let _ = writeln!(
        std::io::stderr(),
        "\n!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!\n\
         !!! SKIPPED {test}: node or the TypeScript SDK ({}) is missing ({hint})\n\
         !!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!\n",
        sdk.display()
    );
    None
}

/// claude.ai's side of the scenario: once the host's permission prompt is posted, the answer
/// to it, a user message, an interrupt, a model change, a permission-mode change (no callback
/// for it: "not supported") and an echo of the host's own message.
async fn claude_ai(ccr: &CcrServer) {
    let prompted = ccr
        .wait_for(Duration::from_secs(30), |requests| {
            posted_events(requests)
                .iter()
                .any(|e| e["type"] == "control_request" && e["request_id"] == "req-1")
        })
        .await;
    assert!(
        prompted,
        "the host never posted its permission prompt:\n{:#?}",
        ccr.requests()
    );
    ccr.push(json!({"type": "control_response", "response": {"subtype": "success",
        "request_id": "req-1", "response": {"behavior": "allow", "updatedInput": {"command": "ls"}}}}));
    ccr.push(
        json!({"type": "user", "uuid": "u-in1", "parent_tool_use_id": null,
        "message": {"role": "user", "content": "hello from claude.ai"}}),
    );
    ccr.push(json!({"type": "control_request", "request_id": "c-int", "request": {"subtype": "interrupt"}}));
    ccr.push(json!({"type": "control_request", "request_id": "c-model",
        "request": {"subtype": "set_model", "model": "claude-next"}}));
    ccr.push(json!({"type": "control_request", "request_id": "c-mode",
        "request": {"subtype": "set_permission_mode", "mode": "plan"}}));
    ccr.push(
        json!({"type": "user", "uuid": "u-a1", "parent_tool_use_id": null,
        "message": {"role": "user", "content": "an echo of the host's own write"}}),
    );
}

async fn wait_for_goodbye(ccr: &CcrServer) {
    let said = ccr
        .wait_for(Duration::from_secs(10), |requests| {
            requests
                .iter()
                .any(|r| r.method == "PUT" && r.body["connection_status"] == "disconnected")
        })
        .await;
    assert!(
        said,
        "no goodbye (PUT /worker connection_status) after close"
    );
}

/// What the Rust host's callbacks saw, in the node script's report shape.
#[derive(Default)]
struct Seen {
    inbound: Vec<Value>,
    permission: Vec<Value>,
    interrupts: u64,
    models: Vec<Value>,
    closes: Vec<u16>,
}

/// The node script's scenario, with the Rust bridge.
async fn rust_host(base: String) -> Value {
    let created = create_code_session(
        &CreateCodeSession::new(
            &base,
            "oauth-token",
            "Bridge scenario",
            Duration::from_secs(5),
        )
        .tags(["t1"])
        .cwd("/work/scenario")
        .model("claude-scenario"),
        None,
    )
    .await;
    let CreateSessionOutcome::Created(session_id) = created else {
        panic!("create: {created:?}");
    };
    let credentials = fetch_remote_credentials(
        &session_id,
        &base,
        "oauth-token",
        Duration::from_secs(5),
        Some("device-token"),
    )
    .await;
    let CredentialsOutcome::Credentials(credentials) = credentials else {
        panic!("credentials: {credentials:?}");
    };
    let invalid =
        fetch_remote_credentials("../etc", &base, "oauth-token", Duration::from_secs(5), None)
            .await;
    let invalid = match invalid {
        CredentialsOutcome::Failure(failure) => Value::from(failure.reason.as_str()),
        other => panic!("an invalid session id: {other:?}"),
    };
    assert_eq!(invalid, CredentialsFailureReason::InvalidSessionId.as_str(),);

    let seen = Arc::new(Mutex::new(Seen::default()));
    let (s1, s2, s3, s4, s5) = (
        seen.clone(),
        seen.clone(),
        seen.clone(),
        seen.clone(),
        seen.clone(),
    );
    let handle = attach_bridge_session(
        AttachBridgeSessionOptions::new(
            &session_id,
            credentials.worker_jwt,
            credentials.api_base_url,
        )
        .epoch(credentials.worker_epoch)
        .heartbeat_interval(Duration::from_millis(400))
        .on_inbound_message(move |message| s1.lock().unwrap().inbound.push(message.to_value()))
        .on_permission_response(move |response| {
            s2.lock().unwrap().permission.push(response.to_value());
            true
        })
        .on_interrupt(move || s3.lock().unwrap().interrupts += 1)
        .on_set_model(move |model| {
            s4.lock()
                .unwrap()
                .models
                .push(model.map_or(Value::Null, Value::from));
            async { Ok(Vec::new()) }
        })
        .on_close(move |code| s5.lock().unwrap().closes.push(code.code())),
    )
    .await
    .expect("attach");
    for _ in 0..200 {
        if handle.is_connected() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    handle.write(&Message::from_value(json!({"type": "assistant", "uuid": "u-a1",
        "parent_tool_use_id": null,
        "message": {"role": "assistant", "content": [{"type": "text", "text": "hello from the host"}]}})));
    handle.send_control_request(&ControlRequest::can_use_tool(
        "req-1",
        "Bash",
        json!({"command": "ls"}),
        "tu-1",
    ));
    handle.report_state(SessionState::RequiresAction);
    for _ in 0..400 {
        {
            let seen = seen.lock().unwrap();
            if !seen.permission.is_empty()
                && !seen.inbound.is_empty()
                && seen.interrupts > 0
                && !seen.models.is_empty()
            {
                break;
            }
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    tokio::time::sleep(Duration::from_millis(300)).await;
    handle.send_result();
    handle.report_state(SessionState::Idle);
    let mut metadata = Map::new();
    metadata.insert("branch".into(), json!("main"));
    handle.report_metadata(metadata);
    handle.flush().await;
    tokio::time::sleep(Duration::from_millis(1000)).await;
    let seen = seen.lock().unwrap();
    let report = json!({
        "session_id": session_id, "epoch": handle.epoch(), "sequence_num": handle.sequence_num(),
        "invalid": invalid, "inbound": seen.inbound, "permission": seen.permission,
        "interrupts": seen.interrupts, "models": seen.models, "closes": seen.closes,
    });
    handle.close();
    report
}

/// Strings that are random per run (uuids) and the process id, replaced by placeholders.
fn normalise(value: &Value) -> Value {
    match value {
        Value::String(s) if is_uuid(s) => Value::from("<uuid>"),
        Value::Array(items) => Value::Array(items.iter().map(normalise).collect()),
        Value::Object(map) => Value::Object(
            map.iter()
                .filter(|(k, _)| *k != "internal_metadata")
                .map(|(k, v)| {
                    let v = if k == "pid" {
                        Value::from("<pid>")
                    } else {
                        normalise(v)
                    };
                    (k.clone(), v)
                })
                .collect(),
        ),
        other => other.clone(),
    }
}

fn is_uuid(s: &str) -> bool {
    s.len() == 36
        && s.bytes().enumerate().all(|(i, b)| match i {
            8 | 13 | 18 | 23 => b == b'-',
            _ => b.is_ascii_hexdigit(),
        })
}

/// The headers that matter to the service.
fn headers(request: &RecordedRequest) -> Value {
    let mut kept = BTreeMap::new();
    for name in [
        "authorization",
        "content-type",
        "anthropic-version",
        "x-trusted-device-token",
        "last-event-id",
    ] {
        if let Some(value) = request.header(name) {
            kept.insert(name.to_owned(), value.to_owned());
        }
    }
    if let Some(accept) = request
        .header("accept")
        .filter(|a| a.contains("event-stream"))
    {
        kept.insert("accept".into(), accept.to_owned());
    }
    json!(kept)
}

/// The log, by kind of request.
fn traffic(requests: &[RecordedRequest]) -> BTreeMap<&'static str, Value> {
    let mut ordered: BTreeMap<&'static str, Vec<Value>> = BTreeMap::new();
    let mut sets: BTreeMap<&'static str, BTreeSet<String>> = BTreeMap::new();
    let mut events = Vec::new();
    for request in requests {
        let entry = |body: bool| {
            let mut entry = json!({"method": request.method, "path": request.path,
                "query": request.query, "headers": headers(request)});
            if body {
                entry["body"] = normalise(&request.body);
            }
            entry
        };
        let path = request.path.as_str();
        match request.method.as_str() {
            "POST" if path == "/v1/code/sessions" => {
                ordered.entry("create").or_default().push(entry(true))
            }
            "POST" if path.ends_with("/bridge") => {
                ordered.entry("bridge").or_default().push(entry(true))
            }
            "GET" if path.ends_with("/worker") => {
                sets.entry("worker_get")
                    .or_default()
                    .insert(entry(true).to_string());
            }
            "PUT" if path.ends_with("/worker") => {
                ordered.entry("worker_put").or_default().push(entry(true))
            }
            "POST" if path.ends_with("/worker/events") => {
                let mut head = entry(false);
                head["worker_epoch"] = request.body["worker_epoch"].clone();
                sets.entry("events_requests")
                    .or_default()
                    .insert(head.to_string());
                for event in request.body["events"].as_array().into_iter().flatten() {
                    events.push(normalise(event));
                }
            }
            "POST" if path.ends_with("/worker/events/delivery") => {
                let mut head = entry(false);
                head["worker_epoch"] = request.body["worker_epoch"].clone();
                sets.entry("delivery_requests")
                    .or_default()
                    .insert(head.to_string());
                for update in request.body["updates"].as_array().into_iter().flatten() {
                    sets.entry("deliveries")
                        .or_default()
                        .insert(update.to_string());
                }
            }
            "POST" if path.ends_with("/worker/heartbeat") => {
                sets.entry("heartbeats")
                    .or_default()
                    .insert(entry(true).to_string());
            }
            "GET" if path.ends_with("/worker/events/stream") => {
                sets.entry("stream")
                    .or_default()
                    .insert(entry(false).to_string());
            }
            _ => ordered.entry("other").or_default().push(entry(true)),
        }
    }
    let mut out: BTreeMap<&'static str, Value> = ordered
        .into_iter()
        .map(|(k, v)| (k, Value::Array(v)))
        .collect();
    for (kind, set) in sets {
        out.insert(
            kind,
            Value::Array(
                set.iter()
                    .map(|s| serde_json::from_str(s).unwrap_or(Value::Null))
                    .collect(),
            ),
        );
    }
    out.insert("events", Value::Array(events));
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_rust_bridge_sends_what_the_typescript_sdk_sends() {
    let Some(sdk) = typescript_bridge("bridge_agreement") else {
        return;
    };

    let typescript = CcrServer::start().await;
    let base = typescript.base_url();
    let script = tokio::task::spawn_blocking(move || {
        claude_tools_tests::run_node_client("bridge_client.mjs", &[sdk.display().to_string(), base])
    });
    claude_ai(&typescript).await;
    let typescript_report = script.await.expect("the node script");
    wait_for_goodbye(&typescript).await;

    let rust = CcrServer::start().await;
    let (rust_report, ()) = tokio::join!(rust_host(rust.base_url()), claude_ai(&rust));
    wait_for_goodbye(&rust).await;

    let typescript_traffic = traffic(&typescript.requests());
    let rust_traffic = traffic(&rust.requests());
    // The scenario reached every endpoint (a fake that answered nothing would agree too).
    for kind in [
        "create",
        "bridge",
        "worker_get",
        "worker_put",
        "events",
        "deliveries",
        "heartbeats",
        "stream",
    ] {
        assert!(
            typescript_traffic
                .get(kind)
                .and_then(Value::as_array)
                .is_some_and(|v| !v.is_empty()),
            "the TypeScript SDK sent no {kind}: {typescript_traffic:#?}"
        );
    }
    for (kind, expected) in &typescript_traffic {
        let got = rust_traffic.get(kind).cloned().unwrap_or(Value::Null);
        // Answers to control requests the service sent together go out as each is ready: their
        // order depends on how fast each callback answers, on either side, so each run of
        // consecutive `control_response`s is compared by request id.
        let (got, expected) = (responses_by_id(got), responses_by_id(expected.clone()));
        assert_eq!(
            &got, &expected,
            "{kind}: the Rust bridge (left) and the TypeScript SDK (right) disagree"
        );
    }
    assert_eq!(
        rust_traffic.keys().collect::<Vec<_>>(),
        typescript_traffic.keys().collect::<Vec<_>>(),
        "kinds of requests"
    );
    assert_eq!(rust_report, typescript_report, "what the callbacks saw");
    assert_eq!(typescript_report["sequence_num"], 6);
    assert_eq!(typescript_report["models"], json!(["claude-next"]));
}

/// `events` with each run of consecutive `control_response` events sorted by its request id
/// (anything else keeps its place).
fn responses_by_id(events: Value) -> Value {
    let Value::Array(mut events) = events else {
        return events;
    };
    let is_response = |event: &Value| event["payload"]["type"] == "control_response";
    let id = |event: &Value| {
        event["payload"]["response"]["request_id"]
            .as_str()
            .unwrap_or("")
            .to_string()
    };
    let mut start = 0;
    while start < events.len() {
        if !is_response(&events[start]) {
            start += 1;
            continue;
        }
        let mut end = start;
        while end < events.len() && is_response(&events[end]) {
            end += 1;
        }
        events[start..end].sort_by_key(|event| id(event));
        start = end;
    }
    Value::Array(events)
}
