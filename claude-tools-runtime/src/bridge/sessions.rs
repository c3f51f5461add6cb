//! `POST /v1/code/sessions` (a new session) and `POST /v1/code/sessions/{id}/bridge` (a
//! worker's credentials): thin calls with the caller's own OAuth token, no implicit auth.

use std::time::Duration;

use serde_json::{Map, Value, json};

use super::detail::plain_detail;
use super::git::{BranchDropLogDedup, CodeSessionGitContext, git_fields};
use super::http::{self, Answer};
use super::outcome::*;

/// Whether `id` may go into a URL path: `^[a-zA-Z0-9_-]+$`.
pub(crate) fn is_valid_session_id(id: &str) -> bool {
    !id.is_empty()
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

/// The arguments of [`create_code_session`]: the four TypeScript requires, and setters for the
/// optional ones.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct CreateCodeSession {
    /// The service's base URL (`https://api.anthropic.com`).
    pub base_url: String,
    /// The caller's OAuth access token.
    pub access_token: String,
    /// The session's title.
    pub title: String,
    /// How long to wait for the answer.
    pub timeout: Duration,
    /// Tags (sent only when there is at least one).
    pub tags: Vec<String>,
    /// The git context.
    pub git_context: Option<CodeSessionGitContext>,
    /// The working directory reported (default: this process's).
    pub cwd: Option<String>,
    /// The model.
    pub model: Option<String>,
    /// A session grouping id.
    pub session_grouping_id: Option<String>,
}

impl CreateCodeSession {
    /// A request with the required arguments.
    pub fn new(
        base_url: impl Into<String>,
        access_token: impl Into<String>,
        title: impl Into<String>,
        timeout: Duration,
    ) -> Self {
        CreateCodeSession {
            base_url: base_url.into(),
            access_token: access_token.into(),
            title: title.into(),
            timeout,
            tags: Vec::new(),
            git_context: None,
            cwd: None,
            model: None,
            session_grouping_id: None,
        }
    }

    /// Sets the tags.
    pub fn tags<I: IntoIterator<Item = S>, S: Into<String>>(mut self, tags: I) -> Self {
        self.tags = tags.into_iter().map(Into::into).collect();
        self
    }

    /// Sets the git context.
    pub fn git_context(mut self, context: CodeSessionGitContext) -> Self {
        self.git_context = Some(context);
        self
    }

    /// Sets the working directory reported.
    pub fn cwd(mut self, cwd: impl Into<String>) -> Self {
        self.cwd = Some(cwd.into());
        self
    }

    /// Sets the model.
    pub fn model(mut self, model: impl Into<String>) -> Self {
        self.model = Some(model.into());
        self
    }

    /// Sets the session grouping id.
    pub fn session_grouping_id(mut self, id: impl Into<String>) -> Self {
        self.session_grouping_id = Some(id.into());
        self
    }

    /// The request body.
    fn body(&self, dedup: Option<&mut BranchDropLogDedup>) -> Value {
        let cwd = self.cwd.clone().unwrap_or_else(|| {
            std::env::current_dir()
                .map(|dir| dir.display().to_string())
                .unwrap_or_default()
        });
        let mut config = Map::new();
        config.insert("cwd".into(), Value::from(cwd));
        if let Some(model) = self.model.as_deref().filter(|m| !m.is_empty()) {
            config.insert("model".into(), Value::from(model));
        }
        if let Some(fields) = self.git_context.as_ref().and_then(git_fields) {
            match (fields.dropped, dedup) {
                (Some((key, message)), Some(dedup)) => {
                    if dedup.last_key.as_deref() != Some(key.as_str()) {
                        tracing::debug!("[code-session] {message}");
                        dedup.last_key = Some(key);
                    }
                }
                (Some((_, message)), None) => tracing::debug!("[code-session] {message}"),
                (None, Some(dedup)) => dedup.last_key = None,
                (None, None) => {}
            }
            config.insert("sources".into(), fields.sources);
            config.insert("outcomes".into(), fields.outcomes);
            config.insert("reuse_outcome_branches".into(), Value::Bool(true));
        }
        let mut body = Map::new();
        body.insert("title".into(), Value::from(self.title.as_str()));
        body.insert("bridge".into(), json!({}));
        if !self.tags.is_empty() {
            body.insert("tags".into(), Value::from(self.tags.clone()));
        }
        if let Some(id) = self
            .session_grouping_id
            .as_deref()
            .filter(|id| !id.is_empty())
        {
            body.insert("session_grouping_id".into(), Value::from(id));
        }
        body.insert("config".into(), Value::Object(config));
        Value::Object(body)
    }
}

/// `POST {base}/v1/code/sessions`: creates a fresh Remote Control session and answers its id
/// (`cse_…`), a terminal [`CreateSessionFailure`], a [`CredentialsRejection`] when the OAuth
/// bearer was rejected, or [`CreateSessionOutcome::Transient`]. TypeScript's
/// `createCodeSession`; `dedup` is its `dropLogDedup`.
///
/// ```no_run
/// # async fn demo(token: String) {
/// use std::time::Duration;
/// use claude_tools::bridge::{CreateCodeSession, CreateSessionOutcome, create_code_session};
///
/// let request = CreateCodeSession::new("https://api.anthropic.com", token, "Nightly run",
///     Duration::from_secs(10)).tags(["nightly"]);
/// match create_code_session(&request, None).await {
///     CreateSessionOutcome::Created(id) => println!("session {id}"),
///     CreateSessionOutcome::Transient => { /* retry later */ }
///     other => eprintln!("not created: {other:?}"),
/// }
/// # }
/// ```
pub async fn create_code_session(
    request: &CreateCodeSession,
    dedup: Option<&mut BranchDropLogDedup>,
) -> CreateSessionOutcome {
    let client = match http::shared_client() {
        Ok(client) => client,
        Err(error) => {
            tracing::debug!(%error, "[code-session] no HTTP client");
            return CreateSessionOutcome::Transient;
        }
    };
    let url = format!(
        "{}/v1/code/sessions",
        request.base_url.trim_end_matches('/')
    );
    let sent = client
        .post(url)
        .headers(http::headers(&request.access_token))
        .timeout(request.timeout)
        .body(request.body(dedup).to_string());
    let answer = match http::send(sent).await {
        Ok(answer) => answer,
        Err(error) => {
            tracing::debug!(%error, "[code-session] session create request failed");
            return CreateSessionOutcome::Transient;
        }
    };
    read_create_answer(answer)
}

fn read_create_answer(answer: Answer) -> CreateSessionOutcome {
    let status = answer.status;
    if status != 200 && status != 201 {
        let detail = service_message(&answer.body).and_then(plain_detail);
        tracing::debug!(status, "[code-session] session create failed");
        if (400..500).contains(&status) && is_grouping_rejection(&answer.body) {
            return CreateSessionOutcome::Failure(CreateSessionFailure {
                reason: CreateSessionFailureReason::GroupingRejected,
                status,
                detail,
            });
        }
        return match classify(status) {
            StatusClass::OauthRejected => {
                CreateSessionOutcome::Rejected(CredentialsRejection::oauth())
            }
            StatusClass::Transient => CreateSessionOutcome::Transient,
            StatusClass::Rejected => CreateSessionOutcome::Failure(CreateSessionFailure {
                reason: CreateSessionFailureReason::RequestRejected,
                status,
                detail,
            }),
        };
    }
    let id = answer
        .body
        .get("session")
        .and_then(|session| session.get("id"))
        .and_then(Value::as_str)
        .filter(|id| id.starts_with("cse_") && is_valid_session_id(id));
    match id {
        Some(id) => CreateSessionOutcome::Created(id.to_owned()),
        None => CreateSessionOutcome::Failure(CreateSessionFailure {
            reason: CreateSessionFailureReason::MalformedResponse,
            status,
            detail: None,
        }),
    }
}

/// The service's message: `message`, or `error.message`.
fn service_message(body: &Value) -> Option<&str> {
    body.get("message")
        .and_then(Value::as_str)
        .or_else(|| body.get("error")?.get("message")?.as_str())
}

/// The `session_grouping_id` rejection family.
fn is_grouping_rejection(body: &Value) -> bool {
    let Some(error) = body.get("error").filter(|e| e.is_object()) else {
        return false;
    };
    let field = |name: &str| error.get(name).and_then(Value::as_str);
    (field("type") == Some("not_found_error") && field("resource_type") == Some("session_grouping"))
        || matches!(
            field("reason"),
            Some("public_grouping_hosted_only" | "feature_disabled")
        )
}

/// `POST {base}/v1/code/sessions/{id}/bridge`: mints a worker JWT for the session (and bumps
/// its worker epoch: the call is the worker's registration). `trusted_device_token` is sent as
/// `X-Trusted-Device-Token`. TypeScript's `fetchRemoteCredentials`. The session id is checked
/// (`^[a-zA-Z0-9_-]+$`) before anything is sent.
///
/// ```no_run
/// # async fn demo(token: String) {
/// use std::time::Duration;
/// use claude_tools::bridge::{CredentialsOutcome, fetch_remote_credentials};
///
/// let outcome = fetch_remote_credentials("cse_01abc", "https://api.anthropic.com", &token,
///     Duration::from_secs(10), None).await;
/// if let CredentialsOutcome::Credentials(credentials) = outcome {
///     println!("epoch {}", credentials.worker_epoch);
/// }
/// # }
/// ```
pub async fn fetch_remote_credentials(
    session_id: &str,
    base_url: &str,
    access_token: &str,
    timeout: Duration,
    trusted_device_token: Option<&str>,
) -> CredentialsOutcome {
    if !is_valid_session_id(session_id) {
        return CredentialsOutcome::Failure(CredentialsFailure::new(
            CredentialsFailureReason::InvalidSessionId,
        ));
    }
    let client = match http::shared_client() {
        Ok(client) => client,
        Err(error) => {
            tracing::debug!(%error, "[code-session] no HTTP client");
            return CredentialsOutcome::Transient;
        }
    };
    let mut headers = http::headers(access_token);
    if let Some(token) = trusted_device_token.filter(|t| !t.is_empty()) {
        match reqwest::header::HeaderValue::from_str(token) {
            Ok(value) => {
                headers.insert("X-Trusted-Device-Token", value);
            }
            Err(_) => {
                return CredentialsOutcome::Failure(CredentialsFailure::new(
                    CredentialsFailureReason::RequestRejected,
                ));
            }
        }
    }
    let url = format!(
        "{}/v1/code/sessions/{session_id}/bridge",
        base_url.trim_end_matches('/')
    );
    let sent = client
        .post(url)
        .headers(headers)
        .timeout(timeout)
        .body("{}");
    match http::send(sent).await {
        Ok(answer) => read_credentials_answer(answer),
        Err(error) => {
            tracing::debug!(%error, "[code-session] /bridge request failed");
            CredentialsOutcome::Transient
        }
    }
}

fn read_credentials_answer(answer: Answer) -> CredentialsOutcome {
    let status = answer.status;
    if status != 200 {
        tracing::debug!(status, "[code-session] /bridge failed");
        let error = answer.body.get("error").filter(|e| e.is_object());
        let field = |name: &str| error.and_then(|e| e.get(name)).and_then(Value::as_str);
        let mut source = None;
        if status == 403 {
            match field("resource") {
                Some("untrusted_device") => {
                    return CredentialsOutcome::Failure(CredentialsFailure::new(
                        CredentialsFailureReason::UntrustedDevice,
                    ));
                }
                Some("session_stale_relogin") => {
                    return CredentialsOutcome::Failure(CredentialsFailure::new(
                        CredentialsFailureReason::SessionStaleRelogin,
                    ));
                }
                Some("session_security_tier_below_org_policy") => {
                    return CredentialsOutcome::Failure(
                        CredentialsFailure::new(
                            CredentialsFailureReason::SessionSecurityTierBelowOrgPolicy,
                        )
                        .with_status(403),
                    );
                }
                _ => source = Some(rejection_source(&answer.headers)),
            }
        }
        return match classify(status) {
            StatusClass::OauthRejected => {
                CredentialsOutcome::Rejected(CredentialsRejection::oauth())
            }
            StatusClass::Transient => CredentialsOutcome::Transient,
            StatusClass::Rejected => {
                let mut failure =
                    CredentialsFailure::new(CredentialsFailureReason::RequestRejected)
                        .with_status(status);
                failure.session_not_bridge = field("reason") == Some("session_not_bridge");
                failure.source = source;
                CredentialsOutcome::Failure(failure)
            }
        };
    }
    let body = &answer.body;
    let malformed = || {
        CredentialsOutcome::Failure(
            CredentialsFailure::new(CredentialsFailureReason::MalformedResponse).with_status(200),
        )
    };
    let (Some(jwt), Some(expires_in), Some(api_base_url), Some(epoch)) = (
        body.get("worker_jwt").and_then(Value::as_str),
        body.get("expires_in").and_then(Value::as_f64),
        body.get("api_base_url").and_then(Value::as_str),
        body.get("worker_epoch"),
    ) else {
        return malformed();
    };
    let Some(worker_epoch) = safe_integer(epoch) else {
        return malformed();
    };
    let mcp_config = body
        .get("mcp_config")
        .and_then(|c| c.get("content"))
        .and_then(Value::as_str)
        .filter(|content| !content.is_empty())
        .map(|content| RemoteMcpConfig {
            content: content.to_owned(),
        });
    CredentialsOutcome::Credentials(RemoteCredentials {
        worker_jwt: jwt.to_owned(),
        api_base_url: api_base_url.to_owned(),
        expires_in,
        worker_epoch,
        mcp_config,
    })
}

/// A JSON integer (or a string of one) within JavaScript's safe range.
pub(crate) fn safe_integer(value: &Value) -> Option<i64> {
    const SAFE: i64 = (1 << 53) - 1;
    let number = match value {
        Value::Number(n) => n
            .as_i64()
            .or_else(|| n.as_f64().filter(|f| f.fract() == 0.0).map(|f| f as i64)),
        Value::String(s) => s.trim().parse::<i64>().ok(),
        _ => None,
    }?;
    (-SAFE..=SAFE).contains(&number).then_some(number)
}

/// Who wrote a 403, from its headers.
fn rejection_source(headers: &reqwest::header::HeaderMap) -> RejectionSource {
    let header = |name: &str| headers.get(name).and_then(|v| v.to_str().ok());
    if header("request-id").is_some_and(|id| id.trim().starts_with("req_")) {
        RejectionSource::Origin
    } else if header("cf-ray").is_some_and(|ray| !ray.is_empty())
        || header("server").is_some_and(|s| s.to_ascii_lowercase().contains("cloudflare"))
    {
        RejectionSource::NonoriginCf
    } else {
        RejectionSource::NonoriginOther
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn session_ids_are_checked() {
        assert!(is_valid_session_id("cse_01-AB_z"));
        for bad in ["", "cse/../x", "a b", "cse_é", "x?y"] {
            assert!(!is_valid_session_id(bad), "{bad:?}");
        }
    }

    #[test]
    fn epochs_are_safe_integers() {
        assert_eq!(safe_integer(&json!(7)), Some(7));
        assert_eq!(safe_integer(&json!("8")), Some(8));
        assert_eq!(safe_integer(&json!(7.5)), None);
        assert_eq!(safe_integer(&json!(9007199254740993u64)), None);
        assert_eq!(safe_integer(&json!(null)), None);
    }
}
