//! Sessions mode of the Streamable HTTP server under pressure and between tenants, over raw
//! HTTP/1.1 on 127.0.0.1: one client cannot fill the table and lock the others out, a full
//! table ends its idlest session rather than refusing everyone, a quiet session stream carries
//! keep-alive comments, the stream of a client that went away frees its slot, accepted
//! connections carry TCP keepalive, and a session belongs to the principal that opened it.

mod common;

use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;
use std::time::Duration;

use claude_tools::mcp::http::{AuthDecision, HttpServer, bearer_token_of};
use claude_tools::tools::{ToolDefBuilder, ToolServer};
use common::*;
use serde_json::json;
use tokio::io::AsyncWriteExt;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{Notify, mpsc, oneshot};

/// Who is calling, as the two-tenant hook found out.
struct Tenant(String);

/// `echo`, `whoami`, and `gate`: waits until the test opens the gate ("released") or the call
/// is cancelled ("cancelled"), telling `events` when it starts.
fn tools(gate: Arc<Notify>, events: mpsc::UnboundedSender<&'static str>) -> ToolServer {
    ToolServer::new("bounds", "1.0.0")
        .with_tool(ToolDefBuilder::new("whoami"), |call| async move {
            match call.context().extension::<Tenant>() {
                Some(tenant) => tenant.0.clone(),
                None => "nobody".to_string(),
            }
        })
        .unwrap()
        .with_tool(ToolDefBuilder::new("gate"), move |call| {
            let gate = gate.clone();
            let events = events.clone();
            async move {
                let _ = events.send("started");
                tokio::select! {
                    () = gate.notified() => "released",
                    () = call.context().cancelled() => "cancelled",
                }
            }
        })
        .unwrap()
}

/// A server under test on 127.0.0.1.
struct Running {
    addr: SocketAddr,
    gate: Arc<Notify>,
    events: mpsc::UnboundedReceiver<&'static str>,
    _shutdown: oneshot::Sender<()>,
}

async fn start(configure: impl FnOnce(HttpServer) -> HttpServer) -> Running {
    let gate = Arc::new(Notify::new());
    let (events_tx, events) = mpsc::unbounded_channel();
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let (shutdown, signal) = oneshot::channel::<()>();
    let serve = configure(HttpServer::new(tools(gate.clone(), events_tx)).sessions(true))
        .serve(listener)
        .with_graceful_shutdown(async {
            let _ = signal.await;
        });
    tokio::spawn(serve.into_future());
    Running {
        addr,
        gate,
        events,
        _shutdown: shutdown,
    }
}

/// A loopback address of its own for a client: the server tells peers apart by address.
fn peer(last: u8) -> Option<IpAddr> {
    Some(IpAddr::from([127, 0, 0, last]))
}

/// `initialize` from `from` with `headers`; the reply.
async fn initialize(addr: SocketAddr, from: Option<IpAddr>, headers: &[(&str, &str)]) -> Reply {
    exchange_from(
        addr,
        from,
        &request("POST", "/mcp", &with(headers), INITIALIZE),
    )
    .await
}

/// Opens a session from `from`; its id.
async fn open_session(addr: SocketAddr, from: Option<IpAddr>, headers: &[(&str, &str)]) -> String {
    let reply = initialize(addr, from, headers).await;
    assert_eq!(reply.status, 200, "{reply:?}");
    reply
        .header("mcp-session-id")
        .expect("a session id")
        .to_string()
}

/// `tools/list` in session `id`; the status.
async fn use_session(addr: SocketAddr, id: &str, headers: &[(&str, &str)]) -> u16 {
    let mut all = vec![("mcp-session-id", id)];
    all.extend_from_slice(headers);
    exchange(addr, &request("POST", "/mcp", &with(&all), TOOLS_LIST))
        .await
        .status
}

/// Opens session `id`'s `GET` stream from `from`; the open connection and what it buffered.
async fn open_stream(
    addr: SocketAddr,
    from: Option<IpAddr>,
    id: &str,
    headers: &[(&str, &str)],
) -> (TcpStream, Vec<u8>) {
    let mut all = vec![("accept", "text/event-stream"), ("mcp-session-id", id)];
    all.extend_from_slice(headers);
    let mut stream = connect_from(addr, from).await;
    stream
        .write_all(&request("GET", "/mcp", &all, ""))
        .await
        .unwrap();
    let (status, _, buffered) = tokio::time::timeout(WAIT, read_head(&mut stream))
        .await
        .expect("the stream's head in time");
    assert_eq!(status, 200);
    (stream, buffered)
}

// ---------------------------------------------------------------------------------------------
// Bounds.

#[tokio::test]
async fn one_client_cannot_lock_out_another() {
    // Room for 101 sessions, and the default bound of 100 per client.
    let server = start(|http| http.max_sessions(101)).await;
    // Client A holds 100 sessions, each busy with its open stream...
    let mut streams = Vec::new();
    for _ in 0..100 {
        let id = open_session(server.addr, peer(2), &[]).await;
        streams.push(open_stream(server.addr, peer(2), &id, &[]).await);
    }
    // ...and is refused a 101st, all of its own being busy...
    let refused = initialize(server.addr, peer(2), &[]).await;
    assert_eq!(refused.status, 429, "{refused:?}");
    assert_eq!(refused.header("retry-after"), Some("5"));
    assert_eq!(
        refused.json()["error"]["data"],
        "this client holds its maximum of 100 sessions, all in use; end one (DELETE) or try again later"
    );
    // ...while client B gets one.
    let id = open_session(server.addr, peer(3), &[]).await;
    assert_eq!(use_session(server.addr, &id, &[]).await, 200);
}

#[tokio::test]
async fn a_client_at_its_bound_ends_its_own_idlest_session() {
    let server = start(|http| http.max_sessions_per_client(2)).await;
    let other = open_session(server.addr, peer(3), &[]).await;
    let first = open_session(server.addr, peer(2), &[]).await;
    let second = open_session(server.addr, peer(2), &[]).await;
    // `first` used last: `second` is the idlest.
    assert_eq!(use_session(server.addr, &first, &[]).await, 200);
    let third = open_session(server.addr, peer(2), &[]).await;
    assert_eq!(use_session(server.addr, &second, &[]).await, 404);
    for id in [&first, &third, &other] {
        assert_eq!(use_session(server.addr, id, &[]).await, 200);
    }
}

#[tokio::test]
async fn a_full_table_ends_its_idlest_session_rather_than_refusing() {
    let server = start(|http| http.max_sessions(2)).await;
    let first = open_session(server.addr, None, &[]).await;
    let second = open_session(server.addr, None, &[]).await;
    // `first` used last: `second` is the idlest.
    assert_eq!(use_session(server.addr, &first, &[]).await, 200);
    let third = open_session(server.addr, None, &[]).await;
    assert_eq!(use_session(server.addr, &second, &[]).await, 404);
    assert_eq!(use_session(server.addr, &first, &[]).await, 200);
    assert_eq!(use_session(server.addr, &third, &[]).await, 200);
}

#[tokio::test]
async fn a_full_table_of_busy_sessions_is_503_with_retry_after() {
    let server = start(|http| http.max_sessions(1)).await;
    let id = open_session(server.addr, None, &[]).await;
    let _stream = open_stream(server.addr, None, &id, &[]).await;
    let refused = initialize(server.addr, None, &[]).await;
    refused.assert_json(
        503,
        refusal(
            -32000,
            "Service Unavailable",
            "this server holds its maximum of 1 sessions, all in use; try again later",
        ),
    );
    assert_eq!(refused.header("retry-after"), Some("5"));
}

#[tokio::test]
async fn a_quiet_session_stream_carries_keep_alive_comments() {
    let server = start(|http| http.session_keep_alive(Duration::from_millis(50))).await;
    let id = open_session(server.addr, None, &[]).await;
    let (mut stream, mut buffered) = open_stream(server.addr, None, &id, &[]).await;
    for _ in 0..2 {
        assert_eq!(
            next_chunk(&mut stream, &mut buffered).await.as_deref(),
            Some(": keep-alive\n\n")
        );
    }
}

#[tokio::test]
async fn a_session_stream_whose_client_went_away_frees_its_slot() {
    // A client that closes its connection is found out by the server reading its end of
    // stream; one gone without a word (a machine off the network) by the keep-alive comments'
    // failing writes (above) and TCP keepalive, which loopback cannot stage.
    let server = start(|http| http.max_sessions(1)).await;
    let id = open_session(server.addr, None, &[]).await;
    let (stream, _) = open_stream(server.addr, None, &id, &[]).await;
    // Busy while its stream is open.
    assert_eq!(initialize(server.addr, None, &[]).await.status, 503);
    // The client goes away without a word.
    drop(stream);
    // Its stream's next writes fail, the stream ends, and the idle session makes room.
    let started = tokio::time::Instant::now();
    loop {
        let reply = initialize(server.addr, None, &[]).await;
        if reply.status == 200 {
            break;
        }
        assert_eq!(reply.status, 503, "{reply:?}");
        assert!(
            started.elapsed() < WAIT,
            "the stream of the client gone still holds its session after {WAIT:?}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(use_session(server.addr, &id, &[]).await, 404);
}

// ---------------------------------------------------------------------------------------------
// A session belongs to its principal.

const TENANT_A: [(&str, &str); 1] = [("authorization", "Bearer token-a")];
const TENANT_B: [(&str, &str); 1] = [("authorization", "Bearer token-b")];
const ANONYMOUS: [(&str, &str); 1] = [("authorization", "Bearer token-anonymous")];

/// Two tenants, each its own principal, and an anonymous caller.
fn two_tenants(http: HttpServer) -> HttpServer {
    http.authorize(|headers| {
        let token = bearer_token_of(headers).map(str::to_owned);
        async move {
            match token.as_deref() {
                Some("token-a") => AuthDecision::allow_with(Tenant("a".into())).principal("a"),
                Some("token-b") => AuthDecision::allow_with(Tenant("b".into())).principal("b"),
                Some("token-anonymous") => AuthDecision::Allow,
                _ => AuthDecision::Deny,
            }
        }
    })
}

fn not_found() -> serde_json::Value {
    refusal(
        -32000,
        "Not Found",
        "no such session: it never existed, was ended, or expired; send `initialize` to start a new one",
    )
}

#[tokio::test]
async fn another_tenant_cannot_post_get_cancel_or_delete_a_session() {
    let mut server = start(two_tenants).await;
    let addr = server.addr;
    let id = open_session(addr, None, &TENANT_A).await;
    let as_a = [TENANT_A[0], ("mcp-session-id", &id)];
    let as_b = [TENANT_B[0], ("mcp-session-id", &id)];
    let as_anonymous = [ANONYMOUS[0], ("mcp-session-id", &id)];

    // A's call runs in A's session.
    let gated = request(
        "POST",
        "/mcp",
        &with(&as_a),
        &call(json!(7), "gate", json!({})),
    );
    let running = tokio::spawn(async move { exchange(addr, &gated).await });
    let started = tokio::time::timeout(WAIT, server.events.recv()).await;
    assert_eq!(started.ok().flatten(), Some("started"));

    for intruder in [&as_b, &as_anonymous] {
        // POST, in the session: as if it did not exist.
        exchange(addr, &request("POST", "/mcp", &with(intruder), TOOLS_LIST))
            .await
            .assert_json(404, not_found());
        // Cancelling A's call.
        let cancel = json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
                            "params": {"requestId": 7}})
        .to_string();
        exchange(addr, &request("POST", "/mcp", &with(intruder), &cancel))
            .await
            .assert_json(404, not_found());
        // The session's stream.
        let mut get = vec![("accept", "text/event-stream")];
        get.extend_from_slice(intruder);
        exchange(addr, &request("GET", "/mcp", &get, ""))
            .await
            .assert_json(404, not_found());
        // Ending it.
        exchange(addr, &request("DELETE", "/mcp", intruder, ""))
            .await
            .assert_json(404, not_found());
    }

    // A's session and call are untouched: the call ends only when the gate opens.
    let whoami = exchange(
        addr,
        &request(
            "POST",
            "/mcp",
            &with(&as_a),
            &call(json!(8), "whoami", json!({})),
        ),
    )
    .await;
    whoami.assert_json(200, text_result(json!(8), "a", false));
    server.gate.notify_one();
    tokio::time::timeout(WAIT, running)
        .await
        .expect("A's call answered in time")
        .unwrap()
        .assert_json(200, text_result(json!(7), "released", false));
    // A can end its own session.
    assert_eq!(
        exchange(addr, &request("DELETE", "/mcp", &as_a, ""))
            .await
            .status,
        204
    );
}

#[tokio::test]
async fn sessions_are_counted_per_principal() {
    // Both tenants come from the same address; each has its own bound of one session.
    let server = start(|http| two_tenants(http).max_sessions_per_client(1)).await;
    let a = open_session(server.addr, None, &TENANT_A).await;
    let b = open_session(server.addr, None, &TENANT_B).await;
    assert_eq!(use_session(server.addr, &a, &TENANT_A).await, 200);
    assert_eq!(use_session(server.addr, &b, &TENANT_B).await, 200);
    // A's second session ends A's first, not B's.
    let a2 = open_session(server.addr, None, &TENANT_A).await;
    assert_eq!(use_session(server.addr, &a, &TENANT_A).await, 404);
    assert_eq!(use_session(server.addr, &a2, &TENANT_A).await, 200);
    assert_eq!(use_session(server.addr, &b, &TENANT_B).await, 200);
}

#[tokio::test]
async fn a_mounted_router_served_with_connect_info_bounds_each_peer() {
    use claude_tools::mcp::http::axum;
    let (events_tx, _events) = mpsc::unbounded_channel();
    let http = HttpServer::new(tools(Arc::new(Notify::new()), events_tx))
        .max_sessions_per_client(1)
        .max_sessions(10);
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let app = http
        .into_router()
        .into_make_service_with_connect_info::<SocketAddr>();
    tokio::spawn(axum::serve(listener, app).into_future());
    let id = open_session(addr, peer(2), &[]).await;
    let _stream = open_stream(addr, peer(2), &id, &[]).await;
    // Its one session busy: the same peer is refused, another is not.
    assert_eq!(initialize(addr, peer(2), &[]).await.status, 429);
    open_session(addr, peer(3), &[]).await;
}

/// The kernel's timer on the server's end of a connection, from `/proc/net/tcp`: its kind (`2`
/// is the keepalive timer, `0` none) and when it fires, in hundredths of a second from now.
#[cfg(target_os = "linux")]
fn server_side_timer(server: SocketAddr, client: SocketAddr) -> Option<(u32, u64)> {
    let table = std::fs::read_to_string("/proc/net/tcp").ok()?;
    let local = format!(":{:04X}", server.port());
    let remote = format!(":{:04X}", client.port());
    table.lines().skip(1).find_map(|line| {
        let fields: Vec<&str> = line.split_whitespace().collect();
        let (here, there, timer) = (fields.get(1)?, fields.get(2)?, fields.get(5)?);
        if !(here.ends_with(&local) && there.ends_with(&remote)) {
            return None;
        }
        let (kind, when) = timer.split_once(':')?;
        Some((kind.parse().ok()?, u64::from_str_radix(when, 16).ok()?))
    })
}

/// The server's keepalive timer on a connection with an open session stream, once it is set
/// (`None` if none is set within a second).
#[cfg(target_os = "linux")]
async fn keepalive_timer(configure: impl FnOnce(HttpServer) -> HttpServer) -> Option<u64> {
    let server = start(configure).await;
    let id = open_session(server.addr, None, &[]).await;
    // An open stream: a connection that stays up with nothing to send.
    let (stream, _) = open_stream(server.addr, None, &id, &[]).await;
    let client = stream.local_addr().unwrap();
    let started = tokio::time::Instant::now();
    while started.elapsed() < Duration::from_secs(1) {
        if let Some((2, when)) = server_side_timer(server.addr, client) {
            return Some(when);
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    None
}

#[cfg(target_os = "linux")]
#[tokio::test]
async fn accepted_connections_have_tcp_keepalive_as_configured() {
    // The default: probes after 60 s of silence (the timer is in hundredths of a second).
    let default = keepalive_timer(|http| http)
        .await
        .expect("a keepalive timer");
    assert!((3_000..=6_000).contains(&default), "{default}");
    let short = keepalive_timer(|http| http.tcp_keepalive(Some(Duration::from_secs(2))))
        .await
        .expect("a keepalive timer");
    assert!(short <= 200, "{short}");
    assert_eq!(keepalive_timer(|http| http.tcp_keepalive(None)).await, None);
}
