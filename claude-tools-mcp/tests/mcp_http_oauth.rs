//! The HTTP server as an OAuth 2.1 resource server (`HttpServer::oauth`), against an
//! authorization server of this file on 127.0.0.1 whose key set, metadata and introspection
//! endpoint the tests steer: the protected-resource metadata and the `401` naming it, JWTs
//! accepted and every kind of bad one refused, scopes per tool (`403 insufficient_scope`), key
//! rotation, an issuer down, slow or serving garbage, token introspection, and the verified
//! principal reaching tools and sessions.

mod common;

use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use base64::Engine as _;
use claude_tools::mcp::http::oauth::{AccessToken, OAuth};
use claude_tools::mcp::http::{HttpServer, axum};
use claude_tools::tools::{ToolDefBuilder, ToolServer};
use common::*;
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use serde_json::{Value, json};
use tokio::net::TcpListener;
use tokio::sync::oneshot;

// Two Ed25519 keys: PKCS#8 DER (to sign) and the public `x` (the JWK).
const KEY_A: &str = "MC4CAQAwBQYDK2VwBCIEILQGsP9J0eBOCL6zQq2FWJm6e2FXPagauvlQwCJmKW1W";
const KEY_A_X: &str = "C3gkBsAeOGKNyVczo69gJNM01PhXmm-r1XCdfafaxL8";
const KEY_B: &str = "MC4CAQAwBQYDK2VwBCIEIEZBpLAimwMyTAm4UA4JrsH1xQhsBn/SIinvodwe6hjg";
const KEY_B_X: &str = "DJArzRMR14XxdDAEEia2xcS1MlaKCYPzI2bbZDagAyo";

fn jwk(kid: &str, x: &str) -> Value {
    json!({"kty": "OKP", "crv": "Ed25519", "use": "sig", "alg": "EdDSA", "kid": kid, "x": x})
}

/// What the authorization server's key endpoint does.
#[derive(Clone)]
enum Jwks {
    Serve(Value),
    Down,
    Garbage,
    Slow,
}

/// The test's authorization server: metadata (RFC 8414), a key set, introspection.
struct Issuer {
    url: String,
    jwks: Mutex<Jwks>,
    fetches: AtomicUsize,
    /// Introspection answers by token.
    introspection: Mutex<Vec<(String, Value)>>,
    _stop: oneshot::Sender<()>,
}

impl Issuer {
    fn set_jwks(&self, jwks: Jwks) {
        *self.jwks.lock().unwrap() = jwks;
    }

    fn fetches(&self) -> usize {
        self.fetches.load(Ordering::SeqCst)
    }
}

async fn start_issuer(jwks: Jwks) -> Arc<Issuer> {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let (stop, stopped) = oneshot::channel::<()>();
    let issuer = Arc::new(Issuer {
        url: url.clone(),
        jwks: Mutex::new(jwks),
        fetches: AtomicUsize::new(0),
        introspection: Mutex::new(Vec::new()),
        _stop: stop,
    });
    let metadata = json!({
        "issuer": url,
        "authorization_endpoint": format!("{url}/authorize"),
        "token_endpoint": format!("{url}/token"),
        "jwks_uri": format!("{url}/jwks"),
        "introspection_endpoint": format!("{url}/introspect"),
        "response_types_supported": ["code"],
    });
    let for_jwks = issuer.clone();
    let for_introspection = issuer.clone();
    let app = axum::Router::new()
        .route(
            "/.well-known/oauth-authorization-server",
            axum::routing::get(move || {
                let metadata = metadata.clone();
                async move { json_reply(&metadata) }
            }),
        )
        .route(
            "/jwks",
            axum::routing::get(move || {
                let issuer = for_jwks.clone();
                async move {
                    use axum::response::IntoResponse;
                    issuer.fetches.fetch_add(1, Ordering::SeqCst);
                    let jwks = issuer.jwks.lock().unwrap().clone();
                    match jwks {
                        Jwks::Serve(set) => json_reply(&set),
                        Jwks::Down => axum::http::StatusCode::SERVICE_UNAVAILABLE.into_response(),
                        Jwks::Garbage => "{\"keys\": [1, 2".into_response(),
                        Jwks::Slow => {
                            tokio::time::sleep(Duration::from_secs(5)).await;
                            json_reply(&json!({"keys": []}))
                        }
                    }
                }
            }),
        )
        .route(
            "/introspect",
            axum::routing::post(move |headers: axum::http::HeaderMap, body: String| {
                let issuer = for_introspection.clone();
                async move {
                    use axum::response::IntoResponse;
                    // The resource server authenticates as `rs` / `s3cret` (HTTP basic).
                    let expected = format!(
                        "Basic {}",
                        base64::engine::general_purpose::STANDARD.encode("rs:s3cret")
                    );
                    let authorization = headers.get("authorization").and_then(|v| v.to_str().ok());
                    if authorization != Some(expected.as_str()) {
                        return axum::http::StatusCode::UNAUTHORIZED.into_response();
                    }
                    let token = body
                        .split('&')
                        .find_map(|pair| pair.strip_prefix("token="))
                        .unwrap_or_default()
                        .to_string();
                    let answers = issuer.introspection.lock().unwrap();
                    let answer = answers
                        .iter()
                        .find(|(known, _)| *known == token)
                        .map(|(_, answer)| answer.clone())
                        .unwrap_or(json!({"active": false}));
                    json_reply(&answer)
                }
            }),
        );
    tokio::spawn(async move {
        axum::serve(listener, app)
            .with_graceful_shutdown(async {
                let _ = stopped.await;
            })
            .await
            .unwrap();
    });
    issuer
}

fn json_reply(value: &Value) -> axum::response::Response {
    axum::response::Response::builder()
        .header("content-type", "application/json")
        .body(axum::body::Body::from(value.to_string()))
        .unwrap()
}

fn now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs()
}

/// A JWT signed with `key` (PKCS#8 base64) naming `kid`, with `claims`.
fn sign(key: &str, kid: &str, claims: Value) -> String {
    let der = base64::engine::general_purpose::STANDARD
        .decode(key)
        .unwrap();
    let mut header = Header::new(Algorithm::EdDSA);
    header.kid = Some(kid.to_string());
    jsonwebtoken::encode(&header, &claims, &EncodingKey::from_ed_der(&der)).unwrap()
}

/// The claims of a good token of `sub` with `scope` for `resource` from `issuer`.
fn claims(issuer: &str, resource: &str, sub: &str, scope: &str) -> Value {
    json!({"iss": issuer, "aud": resource, "sub": sub, "client_id": "cli", "scope": scope,
           "exp": now() + 300, "iat": now()})
}

fn tools() -> ToolServer {
    ToolServer::new("notes", "1.0.0")
        .with_tool(ToolDefBuilder::new("whoami"), |call| async move {
            let token = call.context().extension::<AccessToken>().cloned();
            match token {
                Some(token) => format!(
                    "{} via {} with {}",
                    token.principal(),
                    token.client_id().unwrap_or("?"),
                    token.scopes().join(",")
                ),
                None => "nobody".to_string(),
            }
        })
        .unwrap()
        .with_tool(ToolDefBuilder::new("delete_note"), |_| async { "deleted" })
        .unwrap()
}

/// A resource server under test for `issuer`, configured by `configure`; returns its address
/// and canonical URL.
async fn start_server(
    configure: impl FnOnce(String) -> OAuth,
    sessions: bool,
) -> (SocketAddr, String, oneshot::Sender<()>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let resource = format!("http://{addr}/mcp");
    let (shutdown, signal) = oneshot::channel::<()>();
    let serve = HttpServer::new(tools())
        .sessions(sessions)
        .oauth(configure(resource.clone()))
        .serve(listener)
        .with_graceful_shutdown(async {
            let _ = signal.await;
        });
    tokio::spawn(serve.into_future());
    (addr, resource, shutdown)
}

fn jwt_oauth(issuer: &Issuer, resource: &str) -> OAuth {
    OAuth::jwt(&issuer.url, resource)
        .unwrap()
        .scopes_supported(["notes:read"])
        .tool_scopes("delete_note", ["notes:write"])
        .fetch_timeout(Duration::from_millis(300))
}

async fn call_with(addr: SocketAddr, token: &str, tool: &str) -> Reply {
    let authorization = format!("Bearer {token}");
    exchange(
        addr,
        &request(
            "POST",
            "/mcp",
            &with(&[("authorization", &authorization)]),
            &call(json!(1), tool, json!({})),
        ),
    )
    .await
}

fn assert_invalid_token(reply: &Reply, resource_metadata: &str, what: &str) {
    assert_eq!(reply.status, 401, "{what}: {reply:?}");
    assert_eq!(
        reply.header("www-authenticate"),
        Some(
            format!("Bearer resource_metadata=\"{resource_metadata}\", error=\"invalid_token\"")
                .as_str()
        ),
        "{what}"
    );
}

fn metadata_url(addr: SocketAddr) -> String {
    format!("http://{addr}/.well-known/oauth-protected-resource/mcp")
}

#[tokio::test]
async fn the_metadata_is_public_and_a_401_names_it() {
    let issuer = start_issuer(Jwks::Serve(json!({"keys": [jwk("a", KEY_A_X)]}))).await;
    let (addr, resource, _stop) = start_server(|r| jwt_oauth(&issuer, &r), false).await;
    let expected = json!({
        "resource": resource,
        "authorization_servers": [issuer.url],
        "scopes_supported": ["notes:read", "notes:write"],
        "bearer_methods_supported": ["header"]
    });
    for path in [
        "/.well-known/oauth-protected-resource/mcp",
        "/.well-known/oauth-protected-resource",
    ] {
        let reply = exchange(addr, &request("GET", path, &[], "")).await;
        reply.assert_json(200, expected.clone());
        assert_eq!(reply.header("access-control-allow-origin"), Some("*"));
    }
    let reply = exchange(addr, &request("POST", "/mcp", &MCP_HEADERS, TOOLS_LIST)).await;
    assert_eq!(reply.status, 401);
    assert_eq!(
        reply.header("www-authenticate"),
        Some(format!("Bearer resource_metadata=\"{}\"", metadata_url(addr)).as_str())
    );
}

#[tokio::test]
async fn a_valid_token_is_served_and_its_caller_reaches_the_tool() {
    let issuer = start_issuer(Jwks::Serve(json!({"keys": [jwk("a", KEY_A_X)]}))).await;
    let (addr, resource, _stop) = start_server(|r| jwt_oauth(&issuer, &r), false).await;
    let token = sign(
        KEY_A,
        "a",
        claims(&issuer.url, &resource, "alice", "notes:read"),
    );
    call_with(addr, &token, "whoami").await.assert_json(
        200,
        text_result(json!(1), "alice via cli with notes:read", false),
    );
    // The key set was fetched once and is cached.
    call_with(addr, &token, "whoami").await;
    assert_eq!(issuer.fetches(), 1);
}

#[tokio::test]
async fn every_kind_of_bad_token_is_refused() {
    let issuer = start_issuer(Jwks::Serve(json!({"keys": [jwk("a", KEY_A_X)]}))).await;
    let (addr, resource, _stop) = start_server(|r| jwt_oauth(&issuer, &r), false).await;
    let good = claims(&issuer.url, &resource, "alice", "notes:read");
    let with_claim = |name: &str, value: Value| {
        let mut claims = good.clone();
        claims[name] = value;
        claims
    };
    let b64 = |bytes: &[u8]| base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes);
    let unsigned = format!(
        "{}.{}.",
        b64(br#"{"alg":"none","typ":"JWT","kid":"a"}"#),
        b64(good.to_string().as_bytes())
    );
    // HS256 with the public key as the HMAC secret: the classic algorithm confusion.
    let mut hs_header = Header::new(Algorithm::HS256);
    hs_header.kid = Some("a".into());
    let public = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(KEY_A_X)
        .unwrap();
    let confused = jsonwebtoken::encode(
        &hs_header,
        &good,
        &EncodingKey::from_secret(&public).unwrap(),
    )
    .unwrap();
    let mut no_exp = good.clone();
    no_exp.as_object_mut().unwrap().remove("exp");
    let cases = [
        ("alg none", unsigned),
        ("HS256 with the public key", confused),
        (
            "another audience",
            sign(
                KEY_A,
                "a",
                with_claim("aud", json!("http://127.0.0.1:1/mcp")),
            ),
        ),
        (
            "expired",
            sign(KEY_A, "a", with_claim("exp", json!(now() - 3600))),
        ),
        (
            "not valid yet",
            sign(KEY_A, "a", with_claim("nbf", json!(now() + 3600))),
        ),
        (
            "a foreign issuer",
            sign(KEY_A, "a", with_claim("iss", json!("https://evil.example"))),
        ),
        ("no exp", sign(KEY_A, "a", no_exp)),
        (
            "a key the issuer does not list",
            sign(KEY_B, "a", good.clone()),
        ),
        ("an unknown kid", sign(KEY_B, "b", good.clone())),
        ("not a JWT", "garbage".to_string()),
        (
            "oversized",
            // Validly signed: only the size cap refuses it.
            sign(KEY_A, "a", with_claim("pad", json!("A".repeat(9 * 1024)))),
        ),
    ];
    for (what, token) in cases {
        let reply = call_with(addr, &token, "whoami").await;
        assert_invalid_token(&reply, &metadata_url(addr), what);
    }
    // The good token passes on the same server.
    let ok = call_with(addr, &sign(KEY_A, "a", good), "whoami").await;
    assert_eq!(ok.status, 200, "{ok:?}");
}

#[tokio::test]
async fn a_scope_missing_for_one_tool_refuses_that_tool_only() {
    let issuer = start_issuer(Jwks::Serve(json!({"keys": [jwk("a", KEY_A_X)]}))).await;
    let (addr, resource, _stop) = start_server(|r| jwt_oauth(&issuer, &r), false).await;
    let reader = sign(
        KEY_A,
        "a",
        claims(&issuer.url, &resource, "alice", "notes:read"),
    );
    assert_eq!(call_with(addr, &reader, "whoami").await.status, 200);
    let refused = call_with(addr, &reader, "delete_note").await;
    assert_eq!(refused.status, 403, "{refused:?}");
    assert_eq!(
        refused.header("www-authenticate"),
        Some(
            format!(
                "Bearer error=\"insufficient_scope\", scope=\"notes:read notes:write\", \
                 resource_metadata=\"{}\", error_description=\"the tool `delete_note` requires \
                 the scope(s) notes:write\"",
                metadata_url(addr)
            )
            .as_str()
        )
    );
    let writer = sign(
        KEY_A,
        "a",
        claims(&issuer.url, &resource, "alice", "notes:read notes:write"),
    );
    call_with(addr, &writer, "delete_note")
        .await
        .assert_json(200, text_result(json!(1), "deleted", false));
}

#[tokio::test]
async fn a_rotated_key_is_picked_up_and_unknown_kids_are_rate_limited() {
    let issuer = start_issuer(Jwks::Serve(json!({"keys": [jwk("a", KEY_A_X)]}))).await;
    let (addr, resource, _stop) = start_server(
        |r| jwt_oauth(&issuer, &r).jwks_min_refresh_interval(Duration::from_millis(200)),
        false,
    )
    .await;
    let by_a = sign(KEY_A, "a", claims(&issuer.url, &resource, "alice", ""));
    let by_b = sign(KEY_B, "b", claims(&issuer.url, &resource, "bob", ""));
    assert_eq!(call_with(addr, &by_a, "whoami").await.status, 200);
    // Tokens naming a key not (yet) listed: one fetch for all of them within the interval.
    for _ in 0..5 {
        assert_eq!(call_with(addr, &by_b, "whoami").await.status, 401);
    }
    let fetched = issuer.fetches();
    assert!(fetched <= 2, "{fetched} fetches");
    // The issuer rotates: b in, a out.
    issuer.set_jwks(Jwks::Serve(json!({"keys": [jwk("b", KEY_B_X)]})));
    tokio::time::sleep(Duration::from_millis(250)).await;
    call_with(addr, &by_b, "whoami")
        .await
        .assert_json(200, text_result(json!(1), "bob via cli with ", false));
    assert_eq!(issuer.fetches(), fetched + 1);
}

#[tokio::test]
async fn cached_keys_outlive_an_issuer_down_slow_or_garbled_until_they_expire() {
    let issuer = start_issuer(Jwks::Serve(json!({"keys": [jwk("a", KEY_A_X)]}))).await;
    let ttl = Duration::from_millis(1500);
    let (addr, resource, _stop) = start_server(
        |r| {
            jwt_oauth(&issuer, &r)
                .jwks_ttl(ttl)
                .jwks_min_refresh_interval(Duration::from_millis(50))
        },
        false,
    )
    .await;
    let token = sign(KEY_A, "a", claims(&issuer.url, &resource, "alice", ""));
    assert_eq!(call_with(addr, &token, "whoami").await.status, 200);
    let fetched_at = tokio::time::Instant::now();
    // Past half the lifetime each request refreshes in the background, and each refresh fails.
    tokio::time::sleep(ttl / 2).await;
    for jwks in [Jwks::Garbage, Jwks::Slow, Jwks::Down] {
        issuer.set_jwks(jwks);
        assert_eq!(call_with(addr, &token, "whoami").await.status, 200);
        tokio::time::sleep(Duration::from_millis(60)).await;
    }
    assert!(
        fetched_at.elapsed() < ttl,
        "the test ran too slowly to tell"
    );
    // Past the lifetime, with the issuer still down: refused, never served unchecked.
    tokio::time::sleep_until(fetched_at + ttl + Duration::from_millis(100)).await;
    let reply = call_with(addr, &token, "whoami").await;
    assert_invalid_token(&reply, &metadata_url(addr), "keys expired");
    // The issuer back: served again.
    issuer.set_jwks(Jwks::Serve(json!({"keys": [jwk("a", KEY_A_X)]})));
    tokio::time::sleep(Duration::from_millis(60)).await;
    assert_eq!(call_with(addr, &token, "whoami").await.status, 200);
}

#[tokio::test]
async fn an_issuer_that_never_answers_refuses_every_token_in_bounded_time() {
    let issuer = start_issuer(Jwks::Slow).await;
    let (addr, resource, _stop) = start_server(|r| jwt_oauth(&issuer, &r), false).await;
    let token = sign(KEY_A, "a", claims(&issuer.url, &resource, "alice", ""));
    // Within `WAIT` (the fetch timeout is 300 ms, the issuer takes 5 s).
    let reply = call_with(addr, &token, "whoami").await;
    assert_invalid_token(&reply, &metadata_url(addr), "issuer slow");
}

#[tokio::test]
async fn opaque_tokens_are_introspected() {
    let issuer = start_issuer(Jwks::Down).await;
    let (addr, resource, _stop) = start_server(
        |r| {
            OAuth::introspection(&issuer.url, &r)
                .unwrap()
                .client_credentials("rs", "s3cret")
                .tool_scopes("delete_note", ["notes:write"])
        },
        false,
    )
    .await;
    *issuer.introspection.lock().unwrap() = vec![
        (
            "good".into(),
            json!({"active": true, "sub": "carol", "client_id": "cli", "scope": "notes:read",
                   "aud": resource, "exp": now() + 60}),
        ),
        (
            "elsewhere".into(),
            json!({"active": true, "sub": "carol", "aud": "http://127.0.0.1:1/mcp"}),
        ),
        ("revoked".into(), json!({"active": false})),
    ];
    call_with(addr, "good", "whoami").await.assert_json(
        200,
        text_result(json!(1), "carol via cli with notes:read", false),
    );
    assert_eq!(call_with(addr, "good", "delete_note").await.status, 403);
    for token in ["elsewhere", "revoked", "unknown"] {
        assert_invalid_token(
            &call_with(addr, token, "whoami").await,
            &metadata_url(addr),
            token,
        );
    }
}

#[tokio::test]
async fn a_session_belongs_to_the_tokens_principal() {
    let issuer = start_issuer(Jwks::Serve(json!({"keys": [jwk("a", KEY_A_X)]}))).await;
    let (addr, resource, _stop) = start_server(|r| jwt_oauth(&issuer, &r), true).await;
    let alice = format!(
        "Bearer {}",
        sign(KEY_A, "a", claims(&issuer.url, &resource, "alice", ""))
    );
    let bob = format!(
        "Bearer {}",
        sign(KEY_A, "a", claims(&issuer.url, &resource, "bob", ""))
    );
    let opened = exchange(
        addr,
        &request(
            "POST",
            "/mcp",
            &with(&[("authorization", &alice)]),
            INITIALIZE,
        ),
    )
    .await;
    assert_eq!(opened.status, 200, "{opened:?}");
    let session = opened.header("mcp-session-id").unwrap().to_string();
    let in_session = |authorization: String| {
        let session = session.clone();
        async move {
            exchange(
                addr,
                &request(
                    "POST",
                    "/mcp",
                    &with(&[
                        ("authorization", &authorization),
                        ("mcp-session-id", &session),
                        ("mcp-protocol-version", "2025-06-18"),
                    ]),
                    TOOLS_LIST,
                ),
            )
            .await
        }
    };
    assert_eq!(in_session(alice.clone()).await.status, 200);
    assert_eq!(in_session(bob).await.status, 404);
}
