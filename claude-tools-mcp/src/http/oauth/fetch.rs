//! The few HTTP calls a resource server makes to its authorization server: the issuer's
//! metadata, its key set, a token's introspection. Rare (a key set is cached), so a blocking
//! client on tokio's blocking pool serves them; each is bounded in time and in size, and every
//! failure is a [`FetchError`] saying what went wrong, never a panic.

use std::time::Duration;

use serde::de::DeserializeOwned;

/// The largest document read from the authorization server (metadata, a key set, an
/// introspection answer): 1 MiB is hundreds of keys.
const MAX_DOCUMENT_BYTES: u64 = 1024 * 1024;

/// Why a call to the authorization server gave nothing usable.
#[derive(Debug)]
pub(super) struct FetchError {
    pub(super) url: String,
    pub(super) reason: String,
}

impl std::fmt::Display for FetchError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.url, self.reason)
    }
}

/// An HTTP client for the authorization server, every call within `timeout`.
#[derive(Clone)]
pub(super) struct Fetcher {
    agent: ureq::Agent,
    timeout: Duration,
}

/// A request to make: a `GET`, or a form `POST` with optional basic credentials.
pub(super) enum Call {
    Get,
    PostForm {
        form: Vec<(&'static str, String)>,
        basic: Option<(String, String)>,
    },
}

impl Fetcher {
    pub(super) fn new(timeout: Duration) -> Self {
        let agent = ureq::Agent::config_builder()
            // Statuses are read here, so that a 404 says which document.
            .http_status_as_error(false)
            .timeout_global(Some(timeout))
            .max_redirects(0)
            .user_agent(concat!("claude-tools/", env!("CARGO_PKG_VERSION")))
            // The system's trust store (and SSL_CERT_FILE), as the CLI installer uses.
            .tls_config(
                ureq::tls::TlsConfig::builder()
                    .root_certs(ureq::tls::RootCerts::PlatformVerifier)
                    .build(),
            )
            .build()
            .new_agent();
        Self { agent, timeout }
    }

    /// `url`'s JSON document as a `T`; a status other than 2xx, a body over 1 MiB, a body that
    /// is not a `T`, or no answer within the timeout is an error.
    pub(super) async fn json<T: DeserializeOwned + Send + 'static>(
        &self,
        url: &str,
        call: Call,
    ) -> Result<T, FetchError> {
        let agent = self.agent.clone();
        let owned_url = url.to_string();
        let blocking = tokio::task::spawn_blocking(move || fetch_json(&agent, &owned_url, call));
        // The agent's own timeout ends the blocking call; this one bounds the wait for it.
        let error = |reason: String| FetchError {
            url: url.to_string(),
            reason,
        };
        match tokio::time::timeout(self.timeout + Duration::from_millis(100), blocking).await {
            Ok(Ok(result)) => result.map_err(error),
            Ok(Err(join)) => Err(error(format!("the request failed: {join}"))),
            Err(_) => Err(error(format!("no answer within {:?}", self.timeout))),
        }
    }
}

fn fetch_json<T: DeserializeOwned>(
    agent: &ureq::Agent,
    url: &str,
    call: Call,
) -> Result<T, String> {
    let response = match call {
        Call::Get => agent.get(url).header("Accept", "application/json").call(),
        Call::PostForm { form, basic } => {
            let mut request = agent.post(url).header("Accept", "application/json");
            if let Some((id, secret)) = basic {
                request = request.header("Authorization", basic_credentials(&id, &secret));
            }
            request.send_form(form.iter().map(|(name, value)| (*name, value.as_str())))
        }
    };
    let mut response = response.map_err(|error| format!("the request failed: {error}"))?;
    let status = response.status();
    if !status.is_success() {
        return Err(format!("answered {status}"));
    }
    let body = response
        .body_mut()
        .with_config()
        .limit(MAX_DOCUMENT_BYTES)
        .read_to_vec()
        .map_err(|error| format!("the body could not be read: {error}"))?;
    serde_json::from_slice(&body).map_err(|error| format!("not the expected JSON: {error}"))
}

/// RFC 6749 §2.3.1: the client id and secret, each form-urlencoded, as HTTP basic credentials.
fn basic_credentials(id: &str, secret: &str) -> String {
    use base64::Engine as _;
    let pair = format!("{}:{}", form_encode(id), form_encode(secret));
    format!(
        "Basic {}",
        base64::engine::general_purpose::STANDARD.encode(pair)
    )
}

fn form_encode(text: &str) -> String {
    let mut encoded = String::with_capacity(text.len());
    for byte in text.bytes() {
        match byte {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'*' => {
                encoded.push(byte as char);
            }
            b' ' => encoded.push('+'),
            _ => encoded.push_str(&format!("%{byte:02X}")),
        }
    }
    encoded
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn client_credentials_are_form_encoded_then_base64() {
        // "a b:c%" -> "a+b:c%25"
        assert_eq!(basic_credentials("a b", "c%"), "Basic YStiOmMlMjU=");
    }
}
