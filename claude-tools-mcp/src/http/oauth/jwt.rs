//! A JWT access token (RFC 9068) checked: its algorithm among the pinned ones (never `none`,
//! never an HMAC), its signature by the issuer's key for its `kid`, `iss` the issuer, `aud`
//! this server's canonical URL (RFC 8707), `exp` and `nbf` within the clock skew.

use std::sync::Arc;
use std::time::{Duration, SystemTime};

use jsonwebtoken::{Validation, decode, decode_header};
use serde::Deserialize;

use super::keys::{Keys, NoKey};
use super::token::{AccessToken, scopes_of};
use super::{Rejection, SigningAlgorithm};

/// What a JWT verifier checks tokens against.
pub(super) struct JwtCheck {
    pub(super) keys: Arc<Keys>,
    pub(super) algorithms: Vec<SigningAlgorithm>,
    /// The accepted `iss` values: the issuer as configured, with and without a trailing `/`.
    pub(super) issuers: Vec<String>,
    /// The accepted `aud` values: the canonical URL, with and without a trailing `/`.
    pub(super) audiences: Vec<String>,
    pub(super) leeway: Duration,
}

/// The claims read from an access token (the others are not looked at).
#[derive(Deserialize)]
struct Claims {
    iss: String,
    #[serde(default)]
    sub: Option<String>,
    #[serde(default)]
    client_id: Option<String>,
    #[serde(default)]
    azp: Option<String>,
    #[serde(default)]
    scope: Option<String>,
    #[serde(default)]
    scp: Option<Vec<String>>,
    #[serde(default)]
    exp: Option<u64>,
}

impl JwtCheck {
    pub(super) async fn verify(&self, token: &str) -> Result<AccessToken, Rejection> {
        // An unknown `alg` (`none` included) fails here, as a header that is not JSON does.
        let header = decode_header(token)
            .map_err(|error| Rejection::invalid(format!("not a readable JWT: {error}")))?;
        let alg = SigningAlgorithm::from_jose(header.alg)
            .filter(|alg| self.algorithms.contains(alg))
            .ok_or_else(|| {
                Rejection::invalid(format!("the algorithm {:?} is not accepted", header.alg))
            })?;
        // `jwk` / `jku` / `x5u` in the header are never used: only the issuer's own keys count.
        let key = match self.keys.key_for(header.kid.as_deref(), alg).await {
            Ok(key) => key,
            Err(NoKey::Unknown) => {
                return Err(Rejection::invalid(
                    "signed with a key the issuer does not list",
                ));
            }
            Err(NoKey::Expired) => {
                return Err(Rejection::unavailable(
                    "the issuer's keys could not be fetched (or have expired)",
                ));
            }
        };
        let mut validation = Validation::new(alg.jose());
        validation.leeway = self.leeway.as_secs();
        validation.validate_nbf = true;
        validation.set_required_spec_claims(&["exp", "iss", "aud"]);
        validation.set_issuer(&self.issuers);
        validation.set_audience(&self.audiences);
        let data = decode::<Claims>(token, &key.key, &validation)
            .map_err(|error| Rejection::invalid(format!("rejected: {error}")))?;
        let claims = data.claims;
        let client_id = claims.client_id.or(claims.azp);
        let principal = claims
            .sub
            .clone()
            .or_else(|| client_id.clone())
            .ok_or_else(|| Rejection::invalid("the token names neither `sub` nor `client_id`"))?;
        Ok(AccessToken {
            principal,
            subject: claims.sub,
            client_id,
            scopes: scopes_of(claims.scope.as_deref(), claims.scp.as_deref()),
            issuer: claims.iss,
            expires_at: claims
                .exp
                .and_then(|exp| SystemTime::UNIX_EPOCH.checked_add(Duration::from_secs(exp))),
        })
    }
}
