//! The bridge's HTTP client and the headers every request to the session service carries.

use std::sync::{Arc, OnceLock};
use std::time::Duration;

use reqwest::header::{HeaderMap, HeaderName, HeaderValue};

use super::BridgeError;

/// The API version the session service expects (`anthropic-version`).
pub(crate) const ANTHROPIC_VERSION: &str = "2023-06-01";
/// Who calls: this library, with its version.
pub(crate) const USER_AGENT: &str = concat!("claude-tools/", env!("CARGO_PKG_VERSION"));
/// The caller's surface (`anthropic-client-platform`): an SDK, as the TypeScript SDK reports
/// itself when its host says so.
pub(crate) const CLIENT_PLATFORM: &str = "claude_code_sdk";

/// One client for the one-shot calls (`create_code_session`, `fetch_remote_credentials`), built
/// on first use: building one reads the system's trust store.
pub(crate) fn shared_client() -> Result<reqwest::Client, BridgeError> {
    static CLIENT: OnceLock<Result<reqwest::Client, String>> = OnceLock::new();
    CLIENT
        .get_or_init(|| new_client().map_err(|error| error.to_string()))
        .clone()
        .map_err(BridgeError::Client)
}

/// A client whose TLS is rustls on ring, checked against the platform's verifier. No overall
/// timeout: each request sets its own (an SSE stream has none).
pub(crate) fn new_client() -> Result<reqwest::Client, BridgeError> {
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let verifier = rustls_platform_verifier::Verifier::new(provider.clone())
        .map_err(|error| BridgeError::Client(format!("the system's trust store: {error}")))?;
    let tls = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|error| BridgeError::Client(format!("TLS versions: {error}")))?
        .dangerous()
        .with_custom_certificate_verifier(Arc::new(verifier))
        .with_no_client_auth();
    reqwest::Client::builder()
        .tls_backend_preconfigured(tls)
        .connect_timeout(Duration::from_secs(30))
        .build()
        .map_err(|error| BridgeError::Client(error.to_string()))
}

/// The headers of a call made with `token` (an OAuth access token or a worker JWT).
pub(crate) fn headers(token: &str) -> HeaderMap {
    let mut headers = HeaderMap::new();
    if let Ok(value) = HeaderValue::from_str(&format!("Bearer {token}")) {
        headers.insert(reqwest::header::AUTHORIZATION, value);
    }
    headers.insert(
        reqwest::header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    headers.insert(
        HeaderName::from_static("anthropic-version"),
        HeaderValue::from_static(ANTHROPIC_VERSION),
    );
    headers.insert(
        HeaderName::from_static("anthropic-client-platform"),
        HeaderValue::from_static(CLIENT_PLATFORM),
    );
    headers.insert(
        reqwest::header::USER_AGENT,
        HeaderValue::from_static(USER_AGENT),
    );
    headers
}

/// An answer read whole: its status, headers and body (`Null` when it is not JSON).
pub(crate) struct Answer {
    pub(crate) status: u16,
    pub(crate) headers: HeaderMap,
    pub(crate) body: serde_json::Value,
}

/// Sends `request` and reads the whole answer; `Err` when no answer came (network error,
/// timeout).
pub(crate) async fn send(request: reqwest::RequestBuilder) -> Result<Answer, reqwest::Error> {
    let response = request.send().await?;
    let status = response.status().as_u16();
    let headers = response.headers().clone();
    let bytes = response.bytes().await?;
    let body = serde_json::from_slice(&bytes).unwrap_or(serde_json::Value::Null);
    Ok(Answer {
        status,
        headers,
        body,
    })
}
