//! An opaque access token checked by asking its issuer (RFC 7662 token introspection): active,
//! issued by the issuer, for this server's canonical URL (RFC 8707), not expired.

use std::sync::RwLock;
use std::time::{Duration, SystemTime};

use serde::Deserialize;

use super::discovery::discover;
use super::fetch::{Call, Fetcher};
use super::token::{AccessToken, scopes_of};
use super::url::{Url, same_issuer};
use super::{Rejection, TokenAudience};

/// What an introspecting verifier asks, and with which credentials.
pub(super) struct Introspection {
    pub(super) issuer: Url,
    pub(super) endpoint: Option<String>,
    pub(super) credentials: Option<(String, String)>,
    pub(super) fetcher: Fetcher,
    pub(super) resource: String,
    pub(super) audience: TokenAudience,
    pub(super) leeway: Duration,
    /// The endpoint found in the issuer's metadata, once found.
    pub(super) discovered: RwLock<Option<String>>,
}

/// An introspection answer (RFC 7662 §2.2), the members read here.
#[derive(Deserialize)]
struct Answer {
    active: bool,
    #[serde(default)]
    scope: Option<String>,
    #[serde(default)]
    client_id: Option<String>,
    #[serde(default)]
    sub: Option<String>,
    #[serde(default)]
    exp: Option<u64>,
    #[serde(default)]
    nbf: Option<u64>,
    #[serde(default)]
    iss: Option<String>,
    #[serde(default)]
    aud: Option<Audience>,
}

/// `aud`: one string or a list.
#[derive(Deserialize)]
#[serde(untagged)]
enum Audience {
    One(String),
    Many(Vec<String>),
}

impl Audience {
    fn names(&self, resource: &str) -> bool {
        match self {
            Audience::One(one) => same_issuer(one, resource),
            Audience::Many(many) => many.iter().any(|one| same_issuer(one, resource)),
        }
    }
}

impl Introspection {
    pub(super) async fn verify(&self, token: &str) -> Result<AccessToken, Rejection> {
        let endpoint = self.endpoint().await.map_err(Rejection::unavailable)?;
        let answer: Answer = self
            .fetcher
            .json(
                &endpoint,
                Call::PostForm {
                    form: vec![
                        ("token", token.to_string()),
                        ("token_type_hint", "access_token".to_string()),
                    ],
                    basic: self.credentials.clone(),
                },
            )
            .await
            .map_err(|error| Rejection::unavailable(format!("introspection failed: {error}")))?;
        self.accept(answer, SystemTime::now())
    }

    fn accept(&self, answer: Answer, now: SystemTime) -> Result<AccessToken, Rejection> {
        if !answer.active {
            return Err(Rejection::invalid(
                "the issuer says the token is not active",
            ));
        }
        let now = now
            .duration_since(SystemTime::UNIX_EPOCH)
            .unwrap_or_default()
            .as_secs();
        let leeway = self.leeway.as_secs();
        if answer
            .exp
            .is_some_and(|exp| exp.saturating_add(leeway) < now)
        {
            return Err(Rejection::invalid("the token has expired"));
        }
        if answer
            .nbf
            .is_some_and(|nbf| nbf > now.saturating_add(leeway))
        {
            return Err(Rejection::invalid("the token is not valid yet"));
        }
        if let Some(iss) = &answer.iss
            && !same_issuer(iss, self.issuer.as_str())
        {
            return Err(Rejection::invalid("the token was issued by another issuer"));
        }
        let audience_ok = match (&answer.aud, self.audience) {
            (Some(aud), _) => aud.names(&self.resource),
            (None, TokenAudience::Required) => false,
            (None, TokenAudience::CheckedWhenPresent) => true,
        };
        if !audience_ok {
            return Err(Rejection::invalid("the token is for another resource"));
        }
        let principal = answer
            .sub
            .clone()
            .or_else(|| answer.client_id.clone())
            .ok_or_else(|| Rejection::invalid("the token names neither `sub` nor `client_id`"))?;
        Ok(AccessToken {
            principal,
            subject: answer.sub,
            client_id: answer.client_id,
            scopes: scopes_of(answer.scope.as_deref(), None),
            issuer: answer
                .iss
                .unwrap_or_else(|| self.issuer.as_str().to_string()),
            expires_at: answer
                .exp
                .and_then(|exp| SystemTime::UNIX_EPOCH.checked_add(Duration::from_secs(exp))),
        })
    }

    async fn endpoint(&self) -> Result<String, String> {
        if let Some(endpoint) = &self.endpoint {
            return Ok(endpoint.clone());
        }
        if let Some(found) = self.discovered.read().ok().and_then(|found| found.clone()) {
            return Ok(found);
        }
        let metadata = discover(&self.fetcher, &self.issuer)
            .await
            .map_err(|error| error.to_string())?;
        let endpoint = metadata.introspection_endpoint.ok_or_else(|| {
            format!(
                "the metadata of `{}` has no introspection_endpoint",
                self.issuer.as_str()
            )
        })?;
        if let Ok(mut found) = self.discovered.write() {
            *found = Some(endpoint.clone());
        }
        Ok(endpoint)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn introspection(audience: TokenAudience) -> Introspection {
        Introspection {
            issuer: Url::parse("https://as.example").expect("a URL"),
            endpoint: Some("https://as.example/introspect".into()),
            credentials: None,
            fetcher: Fetcher::new(Duration::from_secs(1)),
            resource: "https://mcp.example/mcp".into(),
            audience,
            leeway: Duration::from_secs(60),
            discovered: RwLock::new(None),
        }
    }

    fn answer(value: serde_json::Value) -> Answer {
        serde_json::from_value(value).expect("an answer")
    }

    #[test]
    fn only_active_tokens_for_this_resource_within_their_times_pass() {
        let check = introspection(TokenAudience::Required);
        let now = SystemTime::UNIX_EPOCH + Duration::from_secs(1_000_000);
        let ok = check
            .accept(
                answer(json!({"active": true, "sub": "u", "scope": "a b",
                              "aud": ["https://mcp.example/mcp"], "exp": 1_000_030})),
                now,
            )
            .expect("accepted");
        assert_eq!(
            (ok.principal(), ok.scopes()),
            ("u", &["a".to_string(), "b".to_string()][..])
        );
        for refused in [
            json!({"active": false, "sub": "u", "aud": "https://mcp.example/mcp"}),
            json!({"active": true, "sub": "u", "aud": "https://other.example/mcp"}),
            json!({"active": true, "sub": "u"}),
            json!({"active": true, "sub": "u", "aud": "https://mcp.example/mcp", "exp": 999_000}),
            json!({"active": true, "sub": "u", "aud": "https://mcp.example/mcp", "nbf": 1_001_000}),
            json!({"active": true, "sub": "u", "aud": "https://mcp.example/mcp", "iss": "https://evil.example"}),
            json!({"active": true, "aud": "https://mcp.example/mcp"}),
        ] {
            assert!(
                check.accept(answer(refused.clone()), now).is_err(),
                "{refused}"
            );
        }
        // Without the audience requirement, an answer without `aud` passes (one naming
        // another still does not).
        let lenient = introspection(TokenAudience::CheckedWhenPresent);
        assert!(
            lenient
                .accept(answer(json!({"active": true, "sub": "u"})), now)
                .is_ok()
        );
        assert!(
            lenient
                .accept(
                    answer(json!({"active": true, "sub": "u", "aud": "https://o.example"})),
                    now
                )
                .is_err()
        );
    }
}
