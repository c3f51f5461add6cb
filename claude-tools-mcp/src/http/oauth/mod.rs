//! OAuth 2.1 for the HTTP server (cargo feature `oauth`): the server as a resource server per
//! the MCP authorization spec, configured with [`OAuth`] and [`HttpServer::oauth`].
//!
//! ```no_run
//! use claude_tools::mcp::http::HttpServer;
//! use claude_tools::mcp::http::oauth::OAuth;
//! use claude_tools::tools::{ToolDefBuilder, ToolServer};
//!
//! # async fn run() -> Result<(), Box<dyn std::error::Error>> {
//! let server = ToolServer::new("notes", "1.0.0")
//!     .with_tool(ToolDefBuilder::new("read_note"), |_call| async { "a note" })?
//!     .with_tool(ToolDefBuilder::new("delete_note"), |_call| async { "deleted" })?;
//! let oauth = OAuth::jwt("https://auth.example.com", "https://notes.example.com/mcp")?
//!     .scopes_supported(["notes:read"])
//!     .tool_scopes("delete_note", ["notes:write"]);
//! let listener = tokio::net::TcpListener::bind("127.0.0.1:8080").await?;
//! HttpServer::new(server).oauth(oauth).serve(listener).await?;
//! # Ok(())
//! # }
//! ```
//!
//! | request | answer |
//! |---|---|
//! | `GET /.well-known/oauth-protected-resource/mcp` (the endpoint's path appended), or `/.well-known/oauth-protected-resource` | `200`, the protected-resource metadata (RFC 9728): `resource` (the canonical URL), `authorization_servers` (the issuer), `scopes_supported`, `bearer_methods_supported: ["header"]`; no auth needed, any origin may read it |
//! | no `Authorization: Bearer` | `401`, `WWW-Authenticate: Bearer resource_metadata="<its URL>"` (and `scope="…"` with [`OAuth::challenge_scopes`]) |
//! | a token that is not accepted: not a JWT the issuer signed with one of the [pinned algorithms](OAuth::algorithms) (`none` and HMAC never are), another `iss`, an `aud` other than the canonical URL (RFC 8707), expired or not yet valid beyond the [skew](OAuth::leeway), over [`OAuth::max_token_size`]; with [introspection](OAuth::introspection), not active, or for another resource | `401`, the same header with `error="invalid_token"` |
//! | a valid token while the issuer's keys cannot be had (never fetched, or [expired](OAuth::jwks_ttl) while the issuer was unreachable); with introspection, the issuer unreachable | `401` (never served unchecked) |
//! | a `tools/call` of a tool with [required scopes](OAuth::tool_scopes) the token lacks | `403`, `WWW-Authenticate: Bearer error="insufficient_scope", scope="<the token's scopes and the tool's>", resource_metadata="…"`, so the client can ask for them and retry |
//! | any other request with a valid token | served as the token's caller (below) |
//!
//! The verified token reaches the tools as an [`AccessToken`] (an
//! [`Extension<AccessToken>`](claude_tools_core::tool::Extension) parameter, or
//! `ctx.extension::<AccessToken>()`), and the layers around calls and requests
//! (`identity::<AccessToken>()`). Its [principal](AccessToken::principal) (`sub`, else
//! `client_id`) is the request's principal: a [session](crate::http::HttpServer::sessions)
//! belongs to the principal that opened it, sessions are counted by principal, and MCP
//! 2026-07-28's `requestState` is bound to it.
//!
//! The issuer's keys (JWKS) are found from its metadata (RFC 8414, else OpenID Connect
//! Discovery), or at [`OAuth::jwks_uri`]; they are cached for [`OAuth::jwks_ttl`] (default
//! [`DEFAULT_JWKS_TTL`]), refreshed in the background past half of it, and fetched again when a
//! token names a key the set does not hold (a rotation), at most once per
//! [`OAuth::jwks_min_refresh_interval`] (default [`DEFAULT_JWKS_MIN_REFRESH_INTERVAL`]). An
//! issuer down, slow or serving garbage leaves the cached keys in use until they expire; then
//! every token is refused until a fetch succeeds.

mod discovery;
mod fetch;
mod introspect;
mod jwt;
mod keys;
mod metadata;
mod token;
mod url;
mod verifier;

use std::collections::HashMap;
use std::sync::{Arc, RwLock};
use std::time::Duration;

pub(in crate::http) use metadata::routes;
pub use token::AccessToken;
pub(in crate::http) use verifier::Verifier;

use self::url::Url;
use super::HttpServer;
use super::auth::Auth;
use fetch::Fetcher;
use introspect::Introspection;
use jwt::JwtCheck;
use keys::{KeyPolicy, KeySource, Keys};
use metadata::{ResourceMetadata, metadata_location};
use verifier::{Rejection, TokenCheck};

/// How long a fetched key set is used unless [`OAuth::jwks_ttl`] says otherwise: 1 hour.
pub const DEFAULT_JWKS_TTL: Duration = Duration::from_secs(3600);

/// The least time between two fetches of the key set unless
/// [`OAuth::jwks_min_refresh_interval`] says otherwise: 30 s.
pub const DEFAULT_JWKS_MIN_REFRESH_INTERVAL: Duration = Duration::from_secs(30);

/// The clock skew allowed on `exp` and `nbf` unless [`OAuth::leeway`] says otherwise: 60 s.
pub const DEFAULT_LEEWAY: Duration = Duration::from_secs(60);

/// How long a call to the authorization server may take unless [`OAuth::fetch_timeout`] says
/// otherwise: 5 s.
pub const DEFAULT_FETCH_TIMEOUT: Duration = Duration::from_secs(5);

/// The longest bearer token read unless [`OAuth::max_token_size`] says otherwise: 8 KiB.
pub const DEFAULT_MAX_TOKEN_SIZE: usize = 8 * 1024;

/// A JWS algorithm a JWT access token may be signed with: asymmetric ones only (an HMAC key
/// would be a secret shared with every resource server, and `none` is no signature).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum SigningAlgorithm {
    /// RSASSA-PKCS1-v1_5 with SHA-256.
    RS256,
    /// RSASSA-PKCS1-v1_5 with SHA-384.
    RS384,
    /// RSASSA-PKCS1-v1_5 with SHA-512.
    RS512,
    /// RSASSA-PSS with SHA-256.
    PS256,
    /// RSASSA-PSS with SHA-384.
    PS384,
    /// RSASSA-PSS with SHA-512.
    PS512,
    /// ECDSA on P-256 with SHA-256.
    ES256,
    /// ECDSA on P-384 with SHA-384.
    ES384,
    /// Ed25519.
    EdDSA,
}

impl SigningAlgorithm {
    /// The algorithms accepted unless [`OAuth::algorithms`] says otherwise: all of the above.
    pub const DEFAULT: [SigningAlgorithm; 9] = [
        SigningAlgorithm::RS256,
        SigningAlgorithm::RS384,
        SigningAlgorithm::RS512,
        SigningAlgorithm::PS256,
        SigningAlgorithm::PS384,
        SigningAlgorithm::PS512,
        SigningAlgorithm::ES256,
        SigningAlgorithm::ES384,
        SigningAlgorithm::EdDSA,
    ];

    fn jose(self) -> jsonwebtoken::Algorithm {
        use jsonwebtoken::Algorithm as A;
        match self {
            SigningAlgorithm::RS256 => A::RS256,
            SigningAlgorithm::RS384 => A::RS384,
            SigningAlgorithm::RS512 => A::RS512,
            SigningAlgorithm::PS256 => A::PS256,
            SigningAlgorithm::PS384 => A::PS384,
            SigningAlgorithm::PS512 => A::PS512,
            SigningAlgorithm::ES256 => A::ES256,
            SigningAlgorithm::ES384 => A::ES384,
            SigningAlgorithm::EdDSA => A::EdDSA,
        }
    }

    /// `alg` as one of these; `None` for an HMAC.
    fn from_jose(alg: jsonwebtoken::Algorithm) -> Option<Self> {
        SigningAlgorithm::DEFAULT
            .into_iter()
            .find(|ours| ours.jose() == alg)
    }
}

/// Whether an introspected token must name this server as its audience.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum TokenAudience {
    /// The introspection answer must carry an `aud` naming the canonical URL (the default:
    /// RFC 8707, as the MCP authorization spec requires).
    Required,
    /// An answer without `aud` is accepted (for an authorization server that does not say);
    /// one naming another resource is still refused.
    CheckedWhenPresent,
}

/// A configuration the OAuth resource server cannot run with.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum OAuthError {
    /// A URL that is not an absolute `http`/`https` URL without fragment or credentials.
    BadUrl {
        /// Which URL: `issuer`, `resource`, `jwks_uri` or `introspection_endpoint`.
        what: &'static str,
        /// The URL as given.
        url: String,
        /// What is wrong with it.
        reason: String,
    },
    /// A scope that cannot stand in a header (RFC 6749 §3.3: printable ASCII but `"` and `\`,
    /// no spaces).
    BadScope(String),
}

impl std::fmt::Display for OAuthError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            OAuthError::BadUrl { what, url, reason } => {
                write!(f, "the OAuth {what} `{url}` cannot be used: {reason}")
            }
            OAuthError::BadScope(scope) => write!(
                f,
                "the OAuth scope `{scope}` is not a scope token (printable ASCII but `\"`, `\\` and space)"
            ),
        }
    }
}

impl std::error::Error for OAuthError {}

/// How tokens are checked, as configured.
#[derive(Debug, Clone)]
enum Mode {
    Jwt {
        jwks_uri: Option<String>,
        algorithms: Vec<SigningAlgorithm>,
    },
    Introspection {
        endpoint: Option<String>,
        credentials: Option<(String, String)>,
        audience: TokenAudience,
    },
}

/// The HTTP server as an OAuth 2.1 resource server (see the [module docs](self)): who issues
/// its tokens, its own canonical URL (the tokens' audience), how tokens are checked and which
/// scopes each tool requires. Hand it to [`HttpServer::oauth`].
#[derive(Debug, Clone)]
#[must_use = "an OAuth does nothing until given to HttpServer::oauth"]
pub struct OAuth {
    issuer: Url,
    resource: Url,
    mode: Mode,
    leeway: Duration,
    jwks_ttl: Duration,
    jwks_min_refresh_interval: Duration,
    fetch_timeout: Duration,
    max_token_size: usize,
    scopes_supported: Vec<String>,
    challenge_scopes: Vec<String>,
    tool_scopes: HashMap<String, Vec<String>>,
    resource_name: Option<String>,
    resource_documentation: Option<String>,
    /// The first bad scope given to a builder method, reported by [`OAuth::validate`].
    bad_scope: Option<String>,
}

impl OAuth {
    /// Tokens are JWTs (RFC 9068) signed by `issuer` (its URL, as its tokens' `iss` and its
    /// metadata say), for `resource`: this server's canonical URL, the one clients connect to
    /// (`https://mcp.example.com/mcp`), which tokens must name as their audience (`aud`).
    ///
    /// Errors when either is not an absolute `http`/`https` URL without a fragment.
    pub fn jwt(issuer: &str, resource: &str) -> Result<Self, OAuthError> {
        Self::new(
            issuer,
            resource,
            Mode::Jwt {
                jwks_uri: None,
                algorithms: SigningAlgorithm::DEFAULT.to_vec(),
            },
        )
    }

    /// Tokens are opaque: each is checked by asking `issuer` (RFC 7662 token introspection, at
    /// the `introspection_endpoint` of its metadata, or
    /// [`introspection_endpoint`](OAuth::introspection_endpoint)); the answer must say it is
    /// active, for `resource` (see [`TokenAudience`]), not expired. One call to the issuer per
    /// request: prefer [JWTs](OAuth::jwt) where the issuer offers them.
    pub fn introspection(issuer: &str, resource: &str) -> Result<Self, OAuthError> {
        Self::new(
            issuer,
            resource,
            Mode::Introspection {
                endpoint: None,
                credentials: None,
                audience: TokenAudience::Required,
            },
        )
    }

    fn new(issuer: &str, resource: &str, mode: Mode) -> Result<Self, OAuthError> {
        Ok(Self {
            issuer: Url::parse_named("issuer", issuer)?,
            resource: Url::parse_named("resource", resource)?,
            mode,
            leeway: DEFAULT_LEEWAY,
            jwks_ttl: DEFAULT_JWKS_TTL,
            jwks_min_refresh_interval: DEFAULT_JWKS_MIN_REFRESH_INTERVAL,
            fetch_timeout: DEFAULT_FETCH_TIMEOUT,
            max_token_size: DEFAULT_MAX_TOKEN_SIZE,
            scopes_supported: Vec::new(),
            challenge_scopes: Vec::new(),
            tool_scopes: HashMap::new(),
            resource_name: None,
            resource_documentation: None,
            bad_scope: None,
        })
    }

    /// The issuer's key set at `url`, rather than the `jwks_uri` of its metadata (JWT only).
    pub fn jwks_uri(mut self, url: &str) -> Result<Self, OAuthError> {
        Url::parse_named("jwks_uri", url)?;
        if let Mode::Jwt { jwks_uri, .. } = &mut self.mode {
            *jwks_uri = Some(url.to_string());
        }
        Ok(self)
    }

    /// The algorithms tokens may be signed with (JWT only; default
    /// [`SigningAlgorithm::DEFAULT`]): pin the one your issuer uses.
    pub fn algorithms(mut self, algorithms: impl IntoIterator<Item = SigningAlgorithm>) -> Self {
        if let Mode::Jwt { algorithms: a, .. } = &mut self.mode {
            *a = algorithms.into_iter().collect();
        }
        self
    }

    /// The introspection endpoint, rather than the one of the issuer's metadata (introspection
    /// only).
    pub fn introspection_endpoint(mut self, url: &str) -> Result<Self, OAuthError> {
        Url::parse_named("introspection_endpoint", url)?;
        if let Mode::Introspection { endpoint, .. } = &mut self.mode {
            *endpoint = Some(url.to_string());
        }
        Ok(self)
    }

    /// The credentials this server authenticates with at the introspection endpoint (HTTP basic,
    /// RFC 6749 §2.3.1; introspection only).
    pub fn client_credentials(
        mut self,
        client_id: impl Into<String>,
        client_secret: impl Into<String>,
    ) -> Self {
        if let Mode::Introspection { credentials, .. } = &mut self.mode {
            *credentials = Some((client_id.into(), client_secret.into()));
        }
        self
    }

    /// Whether an introspected token must name this server as its audience (default
    /// [`TokenAudience::Required`]; introspection only).
    pub fn audience(mut self, audience: TokenAudience) -> Self {
        if let Mode::Introspection { audience: a, .. } = &mut self.mode {
            *a = audience;
        }
        self
    }

    /// The clock skew allowed on `exp` and `nbf` (default [`DEFAULT_LEEWAY`], 60 s).
    pub fn leeway(mut self, leeway: Duration) -> Self {
        self.leeway = leeway;
        self
    }

    /// How long a fetched key set is used (default [`DEFAULT_JWKS_TTL`], 1 hour): past it,
    /// with the issuer unreachable, tokens are refused.
    pub fn jwks_ttl(mut self, ttl: Duration) -> Self {
        self.jwks_ttl = ttl;
        self
    }

    /// The least time between two fetches of the key set (default
    /// [`DEFAULT_JWKS_MIN_REFRESH_INTERVAL`], 30 s): tokens naming unknown keys cost the issuer
    /// at most one fetch per interval.
    pub fn jwks_min_refresh_interval(mut self, interval: Duration) -> Self {
        self.jwks_min_refresh_interval = interval;
        self
    }

    /// How long one call to the authorization server may take (default
    /// [`DEFAULT_FETCH_TIMEOUT`], 5 s).
    pub fn fetch_timeout(mut self, timeout: Duration) -> Self {
        self.fetch_timeout = timeout;
        self
    }

    /// The longest bearer token read, in bytes (default [`DEFAULT_MAX_TOKEN_SIZE`], 8 KiB); a
    /// longer one is refused unread.
    pub fn max_token_size(mut self, bytes: usize) -> Self {
        self.max_token_size = bytes;
        self
    }

    /// Scopes the metadata lists in `scopes_supported` (the [tool scopes](OAuth::tool_scopes)
    /// are listed too).
    pub fn scopes_supported<S: Into<String>>(
        mut self,
        scopes: impl IntoIterator<Item = S>,
    ) -> Self {
        let scopes = self.checked(scopes);
        self.scopes_supported.extend(scopes);
        self
    }

    /// The scopes a `401` asks clients to request (its `scope="…"`); without it, clients ask
    /// for the metadata's `scopes_supported`.
    pub fn challenge_scopes<S: Into<String>>(
        mut self,
        scopes: impl IntoIterator<Item = S>,
    ) -> Self {
        self.challenge_scopes = self.checked(scopes);
        self
    }

    /// The scopes a token must grant to call the tool `tool` (its name on this server, as in
    /// `tools/list`); without them the call is answered `403 insufficient_scope` naming them.
    /// Calling it again for the same tool replaces its scopes. Tools not named here need a
    /// valid token only.
    pub fn tool_scopes<S: Into<String>>(
        mut self,
        tool: impl Into<String>,
        scopes: impl IntoIterator<Item = S>,
    ) -> Self {
        let scopes = self.checked(scopes);
        self.tool_scopes.insert(tool.into(), scopes);
        self
    }

    /// A name for the server shown to users (RFC 9728 `resource_name`).
    pub fn resource_name(mut self, name: impl Into<String>) -> Self {
        self.resource_name = Some(name.into());
        self
    }

    /// A page for developers about the server (RFC 9728 `resource_documentation`).
    pub fn resource_documentation(mut self, url: impl Into<String>) -> Self {
        self.resource_documentation = Some(url.into());
        self
    }

    /// The server's canonical URL, as configured: the audience its tokens must name.
    pub fn resource(&self) -> &str {
        self.resource.as_str()
    }

    /// Checks every scope given so far: `Err` names the first that is not a scope token
    /// (printable ASCII but `"`, `\` and space). [`HttpServer::oauth`] leaves such a scope out
    /// of its headers, so call this where configuration comes from outside.
    pub fn validate(self) -> Result<Self, OAuthError> {
        match self.bad_scope {
            Some(scope) => Err(OAuthError::BadScope(scope)),
            None => Ok(self),
        }
    }

    fn checked<S: Into<String>>(&mut self, scopes: impl IntoIterator<Item = S>) -> Vec<String> {
        let mut kept = Vec::new();
        for scope in scopes {
            let scope = scope.into();
            let valid = !scope.is_empty()
                && scope
                    .bytes()
                    .all(|b| b.is_ascii_graphic() && b != b'"' && b != b'\\');
            if valid {
                kept.push(scope);
            } else if self.bad_scope.is_none() {
                self.bad_scope = Some(scope);
            }
        }
        kept
    }

    /// The verifier the server runs.
    fn into_verifier(self) -> Verifier {
        let fetcher = Fetcher::new(self.fetch_timeout);
        let resource = self.resource.as_str().to_string();
        let variants = |url: &str| {
            let bare = url.trim_end_matches('/').to_string();
            vec![bare.clone(), format!("{bare}/")]
        };
        let check = match self.mode {
            Mode::Jwt {
                jwks_uri,
                algorithms,
            } => {
                let source = match jwks_uri {
                    Some(uri) => KeySource::Uri(uri),
                    None => KeySource::Discover(self.issuer.clone()),
                };
                let policy = KeyPolicy {
                    ttl: self.jwks_ttl,
                    min_refresh_interval: self.jwks_min_refresh_interval,
                };
                TokenCheck::Jwt(JwtCheck {
                    keys: Arc::new(Keys::new(source, fetcher, policy)),
                    algorithms,
                    issuers: variants(self.issuer.as_str()),
                    audiences: variants(&resource),
                    leeway: self.leeway,
                })
            }
            Mode::Introspection {
                endpoint,
                credentials,
                audience,
            } => TokenCheck::Introspection(Box::new(Introspection {
                issuer: self.issuer.clone(),
                endpoint,
                credentials,
                fetcher,
                resource: resource.clone(),
                audience,
                leeway: self.leeway,
                discovered: RwLock::new(None),
            })),
        };
        let mut scopes_supported = self.scopes_supported.clone();
        let mut tools: Vec<_> = self.tool_scopes.iter().collect();
        tools.sort();
        for (_, scopes) in tools {
            for scope in scopes {
                if !scopes_supported.contains(scope) {
                    scopes_supported.push(scope.clone());
                }
            }
        }
        let (metadata_url, metadata_paths) = metadata_location(&self.resource);
        let document = ResourceMetadata {
            resource: &resource,
            authorization_servers: [self.issuer.as_str()],
            scopes_supported: &scopes_supported,
            bearer_methods_supported: ["header"],
            resource_name: self.resource_name.as_deref(),
            resource_documentation: self.resource_documentation.as_deref(),
        };
        let metadata = serde_json::to_vec(&document).unwrap_or_default().into();
        Verifier {
            check,
            metadata_url,
            metadata_paths,
            metadata,
            tool_scopes: self.tool_scopes,
            challenge_scope: (!self.challenge_scopes.is_empty())
                .then(|| self.challenge_scopes.join(" ")),
            max_token_size: self.max_token_size,
        }
    }
}

impl HttpServer {
    /// Serves as an OAuth 2.1 resource server (see [`oauth`](self)): every request needs a
    /// bearer token `oauth` accepts, the protected-resource metadata is served at its
    /// well-known paths, and calls of tools with [required scopes](OAuth::tool_scopes) need
    /// them. Replaces any earlier [`authorize`](HttpServer::authorize) hook or
    /// [`bearer_token`](HttpServer::bearer_token).
    pub fn oauth(mut self, oauth: OAuth) -> Self {
        self.auth = Some(Auth::ResourceServer(Arc::new(oauth.into_verifier())));
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bad_urls_and_scopes_are_errors_that_say_which() {
        let error = OAuth::jwt("not a url", "https://mcp.example/mcp").expect_err("refused");
        assert!(error.to_string().contains("issuer"), "{error}");
        let error =
            OAuth::jwt("https://as.example", "https://mcp.example/mcp#x").expect_err("refused");
        assert!(error.to_string().contains("resource"), "{error}");
        let oauth = OAuth::jwt("https://as.example", "https://mcp.example/mcp")
            .expect("valid")
            .tool_scopes("t", ["ok", "has space"]);
        assert_eq!(
            oauth.validate().expect_err("refused"),
            OAuthError::BadScope("has space".into())
        );
    }

    #[test]
    fn hmac_and_none_are_not_signing_algorithms() {
        assert_eq!(
            SigningAlgorithm::from_jose(jsonwebtoken::Algorithm::HS256),
            None
        );
        assert_eq!(
            SigningAlgorithm::from_jose(jsonwebtoken::Algorithm::EdDSA),
            Some(SigningAlgorithm::EdDSA)
        );
    }

    #[test]
    fn the_metadata_lists_the_issuer_and_every_scope() {
        let verifier = OAuth::jwt("https://as.example", "https://mcp.example/mcp")
            .expect("valid")
            .scopes_supported(["read"])
            .tool_scopes("b", ["write", "read"])
            .tool_scopes("a", ["admin"])
            .into_verifier();
        let document: serde_json::Value = serde_json::from_slice(&verifier.metadata).expect("JSON");
        assert_eq!(
            document,
            serde_json::json!({
                "resource": "https://mcp.example/mcp",
                "authorization_servers": ["https://as.example"],
                "scopes_supported": ["read", "admin", "write"],
                "bearer_methods_supported": ["header"]
            })
        );
    }
}
