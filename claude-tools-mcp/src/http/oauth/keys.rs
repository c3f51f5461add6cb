//! The issuer's signing keys (its JWKS), fetched, cached and refreshed.
//!
//! A key set is used for [`KeyPolicy::ttl`] after it was fetched, and never after: an issuer
//! whose key endpoint is down, slow or serves garbage leaves the cached keys working until then,
//! and every token is refused after (never an open door). Past half its lifetime, a request
//! starts a refresh in the background; a token naming a key the set does not hold (the issuer
//! rotated its keys) waits for one. Refreshes are one at a time and at most one per
//! [`KeyPolicy::min_refresh_interval`], so a stream of tokens with made-up key ids costs the
//! issuer one fetch per interval, not one per token.

use std::sync::{Arc, RwLock};
use std::time::Duration;

use jsonwebtoken::jwk::Jwk;
use jsonwebtoken::{Algorithm, DecodingKey};
use serde::Deserialize;
use tokio::time::Instant;

use super::SigningAlgorithm;
use super::discovery::discover;
use super::fetch::{Call, Fetcher};
use super::url::Url;

/// How long keys live and how often they may be fetched.
#[derive(Debug, Clone, Copy)]
pub(super) struct KeyPolicy {
    pub(super) ttl: Duration,
    pub(super) min_refresh_interval: Duration,
}

/// One verification key of the set.
pub(super) struct VerifyKey {
    kid: Option<String>,
    /// The key's `alg`, when the JWK names one: only that algorithm may use it.
    alg: Option<Algorithm>,
    pub(super) key: DecodingKey,
}

impl VerifyKey {
    /// Whether this key may verify a token signed with `alg` naming `kid`.
    fn fits(&self, kid: Option<&str>, alg: Algorithm) -> bool {
        let kid_fits = match (kid, self.kid.as_deref()) {
            (Some(wanted), Some(have)) => wanted == have,
            (Some(_), None) => false,
            // A token without `kid`: any key of the right kind (a set of one, usually).
            (None, _) => true,
        };
        kid_fits && self.alg.is_none_or(|pinned| pinned == alg) && self.key.family() == alg.family()
    }
}

/// The keys as last fetched.
#[derive(Default)]
struct KeySet {
    keys: Vec<Arc<VerifyKey>>,
    fetched: Option<Instant>,
}

/// Where the keys come from: a configured `jwks_uri`, or the issuer's metadata.
pub(super) enum KeySource {
    Uri(String),
    Discover(Url),
}

/// The issuer's keys (see the [module docs](self)).
pub(super) struct Keys {
    source: KeySource,
    fetcher: Fetcher,
    policy: KeyPolicy,
    set: RwLock<Arc<KeySet>>,
    /// Held while a refresh runs; the time the last one started.
    refreshing: tokio::sync::Mutex<Option<Instant>>,
    /// The `jwks_uri` found in the issuer's metadata, once found.
    discovered: RwLock<Option<String>>,
}

/// Why no key verifies a token.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum NoKey {
    /// The set (fresh) holds no key for the token's `kid` and algorithm.
    Unknown,
    /// No set younger than its lifetime: never fetched, or the issuer unreachable since.
    Expired,
}

impl Keys {
    pub(super) fn new(source: KeySource, fetcher: Fetcher, policy: KeyPolicy) -> Self {
        Self {
            source,
            fetcher,
            policy,
            set: RwLock::new(Arc::new(KeySet::default())),
            refreshing: tokio::sync::Mutex::new(None),
            discovered: RwLock::new(None),
        }
    }

    /// The key for a token signed with `alg` naming `kid`, fetching the set first if it must.
    pub(super) async fn key_for(
        self: &Arc<Self>,
        kid: Option<&str>,
        alg: SigningAlgorithm,
    ) -> Result<Arc<VerifyKey>, NoKey> {
        let alg = alg.jose();
        let now = Instant::now();
        if let Some(found) = self.cached(kid, alg, now) {
            if self.stale(now) {
                self.refresh_in_background();
            }
            return Ok(found);
        }
        // An unknown key (rotated in), or no usable set at all: fetch, then look again.
        self.refresh().await;
        let now = Instant::now();
        if let Some(found) = self.cached(kid, alg, now) {
            return Ok(found);
        }
        if self.usable(now) {
            Err(NoKey::Unknown)
        } else {
            Err(NoKey::Expired)
        }
    }

    fn current(&self) -> Arc<KeySet> {
        match self.set.read() {
            Ok(set) => set.clone(),
            Err(poisoned) => poisoned.into_inner().clone(),
        }
    }

    fn usable(&self, now: Instant) -> bool {
        self.current()
            .fetched
            .is_some_and(|at| now.saturating_duration_since(at) < self.policy.ttl)
    }

    fn stale(&self, now: Instant) -> bool {
        self.current()
            .fetched
            .is_some_and(|at| now.saturating_duration_since(at) >= self.policy.ttl / 2)
    }

    fn cached(&self, kid: Option<&str>, alg: Algorithm, now: Instant) -> Option<Arc<VerifyKey>> {
        if !self.usable(now) {
            return None;
        }
        let set = self.current();
        set.keys.iter().find(|key| key.fits(kid, alg)).cloned()
    }

    fn refresh_in_background(self: &Arc<Self>) {
        let keys = self.clone();
        tokio::spawn(async move { keys.refresh().await });
    }

    /// Fetches the set unless another refresh runs (then waits for it) or one started less than
    /// the minimum interval ago. A failure keeps the set as it was.
    async fn refresh(&self) {
        let mut last = self.refreshing.lock().await;
        let now = Instant::now();
        if last
            .is_some_and(|at| now.saturating_duration_since(at) < self.policy.min_refresh_interval)
        {
            return;
        }
        *last = Some(now);
        match self.fetch().await {
            Ok(keys) => {
                tracing::debug!(keys = keys.len(), "OAuth: the issuer's key set fetched");
                let set = Arc::new(KeySet {
                    keys,
                    fetched: Some(Instant::now()),
                });
                match self.set.write() {
                    Ok(mut current) => *current = set,
                    Err(poisoned) => *poisoned.into_inner() = set,
                }
            }
            Err(reason) => {
                tracing::warn!(
                    %reason,
                    "OAuth: the issuer's key set could not be fetched; the cached keys stay until they expire"
                );
            }
        }
    }

    async fn fetch(&self) -> Result<Vec<Arc<VerifyKey>>, String> {
        let uri = self.jwks_uri().await?;
        let set: RawKeySet = self
            .fetcher
            .json(&uri, Call::Get)
            .await
            .map_err(|error| error.to_string())?;
        Ok(usable_keys(set))
    }

    async fn jwks_uri(&self) -> Result<String, String> {
        let issuer = match &self.source {
            KeySource::Uri(uri) => return Ok(uri.clone()),
            KeySource::Discover(issuer) => issuer,
        };
        if let Some(uri) = self.discovered.read().ok().and_then(|found| found.clone()) {
            return Ok(uri);
        }
        let metadata = discover(&self.fetcher, issuer)
            .await
            .map_err(|error| error.to_string())?;
        let uri = metadata
            .jwks_uri
            .ok_or_else(|| format!("the metadata of `{}` has no jwks_uri", issuer.as_str()))?;
        if let Ok(mut found) = self.discovered.write() {
            *found = Some(uri.clone());
        }
        Ok(uri)
    }
}

/// A JWKS as fetched: each key read on its own, so that one key of a kind this crate does not
/// know does not throw the others away.
#[derive(Deserialize)]
struct RawKeySet {
    keys: Vec<serde_json::Value>,
}

/// The signature keys of `set` that can verify: public keys (RSA, EC, OKP) meant for
/// signatures; symmetric keys are never taken (a JWKS is public).
fn usable_keys(set: RawKeySet) -> Vec<Arc<VerifyKey>> {
    set.keys
        .into_iter()
        .filter_map(|value| {
            let jwk: Jwk = serde_json::from_value(value).ok()?;
            if jwk
                .common
                .public_key_use
                .as_ref()
                .is_some_and(|key_use| *key_use != jsonwebtoken::jwk::PublicKeyUse::Signature)
            {
                return None;
            }
            if !strong_enough(&jwk) {
                return None;
            }
            let key = DecodingKey::from_jwk(&jwk).ok()?;
            match key.family() {
                jsonwebtoken::AlgorithmFamily::Hmac => return None,
                // An Ed25519 key is 32 bytes; any other length (Ed448's 57, a truncated key)
                // is not one, and the verifier would not take it (it slices 32 bytes).
                jsonwebtoken::AlgorithmFamily::Ed
                    if key.try_get_as_bytes().map(<[u8]>::len).ok() != Some(32) =>
                {
                    return None;
                }
                _ => {}
            }
            let alg = match jwk.common.key_algorithm {
                None => None,
                Some(named) => Some(jose_algorithm(named)?),
            };
            Some(Arc::new(VerifyKey {
                kid: jwk.common.key_id,
                alg,
                key,
            }))
        })
        .collect()
}

/// Whether an RSA key has a modulus of 2048 bits or more (RFC 7518 §3.3); other kinds pass.
fn strong_enough(jwk: &Jwk) -> bool {
    use base64::Engine as _;
    match &jwk.algorithm {
        jsonwebtoken::jwk::AlgorithmParameters::RSA(rsa) => {
            base64::engine::general_purpose::URL_SAFE_NO_PAD
                .decode(rsa.n.trim_end_matches('='))
                .is_ok_and(|n| n.iter().skip_while(|b| **b == 0).count() >= 256)
        }
        _ => true,
    }
}

/// A JWK's `alg` as a signing algorithm; `None` for one that is not (an encryption algorithm):
/// such a key is not used.
fn jose_algorithm(named: jsonwebtoken::jwk::KeyAlgorithm) -> Option<Algorithm> {
    use jsonwebtoken::jwk::KeyAlgorithm as K;
    Some(match named {
        K::RS256 => Algorithm::RS256,
        K::RS384 => Algorithm::RS384,
        K::RS512 => Algorithm::RS512,
        K::PS256 => Algorithm::PS256,
        K::PS384 => Algorithm::PS384,
        K::PS512 => Algorithm::PS512,
        K::ES256 => Algorithm::ES256,
        K::ES384 => Algorithm::ES384,
        K::EdDSA => Algorithm::EdDSA,
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn only_public_signature_keys_are_taken() {
        let set: RawKeySet = serde_json::from_value(json!({"keys": [
            {"kty": "OKP", "crv": "Ed25519", "kid": "sig", "x": "11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"},
            {"kty": "OKP", "crv": "Ed25519", "kid": "enc", "use": "enc", "x": "11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"},
            {"kty": "oct", "kid": "secret", "k": "c2VjcmV0"},
            {"kty": "made-up", "kid": "odd"},
            {"kty": "OKP", "crv": "Ed25519", "kid": "short", "x": "AAAA"},
            {"kty": "RSA", "kid": "weak", "n": "AQAB", "e": "AQAB"},
            {"kty": "OKP", "crv": "Ed25519", "kid": "hs", "alg": "HS256", "x": "11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"},
            "not even an object"
        ]}))
        .expect("a key set");
        let keys = usable_keys(set);
        assert_eq!(keys.len(), 1);
        assert_eq!(keys[0].kid.as_deref(), Some("sig"));
        assert!(keys[0].fits(Some("sig"), Algorithm::EdDSA));
        assert!(!keys[0].fits(Some("sig"), Algorithm::RS256));
        assert!(!keys[0].fits(Some("other"), Algorithm::EdDSA));
        assert!(keys[0].fits(None, Algorithm::EdDSA));
    }
}
