//! Who may call: the [auth hook](super::HttpServer::authorize)'s [`AuthDecision`], the caller's
//! [`Identity`] and principal, the ready-made bearer token, and the check itself ([`check_auth`]).

use std::any::Any;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::Response;
use tokio::time::Instant;

use super::reply::transport_error;
use super::{Shared, TRANSPORT_ERROR};

/// What an [auth hook](super::HttpServer::authorize) decides about one request.
#[derive(Clone)]
pub enum AuthDecision {
    /// Serve the request.
    Allow,
    /// Serve the request, and hand this value (the caller's identity: a tenant, a user, its
    /// scopes) to the tools it calls, which read it with
    /// [`ToolContext::extension`](claude_tools_core::tool::ToolContext::extension) or the
    /// [`Extension`](claude_tools_core::tool::Extension) extractor. Made by [`AuthDecision::allow_with`].
    AllowWith(Identity),
    /// Serve the request as `principal`: the key the server compares callers by. A session
    /// belongs to the principal that opened it (another principal naming it gets `404`), and
    /// the [per-client session bound](super::HttpServer::max_sessions_per_client) counts by
    /// principal. `identity`, if any, reaches the tools as with [`AuthDecision::AllowWith`].
    /// Made by [`AuthDecision::principal`].
    AllowAs {
        /// Who is calling, as a key compared for equality (a tenant id, a user id).
        principal: Arc<str>,
        /// The value handed to the tools, if any.
        identity: Option<Identity>,
    },
    /// Answer `401 Unauthorized` with `WWW-Authenticate: Bearer`.
    Deny,
}

/// The caller's identity an [auth hook](super::HttpServer::authorize) attaches to a request's calls.
pub type Identity = Arc<dyn Any + Send + Sync>;

impl AuthDecision {
    /// Serve the request, with `identity` attached to every tool call it makes: a tool reads it
    /// as `ctx.extension::<T>()` or takes an `Extension<T>` parameter, `T` being exactly the
    /// type given here (pass a `T`, not an `Arc<T>`: that would attach an `Arc<T>`).
    ///
    /// A multi-tenant server with [sessions](super::HttpServer::sessions) also names the
    /// [`principal`](AuthDecision::principal), so that one tenant cannot use another's session.
    pub fn allow_with<T: Send + Sync + 'static>(identity: T) -> Self {
        AuthDecision::AllowWith(Arc::new(identity))
    }

    /// The same decision, serving the request as `principal` (a tenant or user id, compared for
    /// equality): `AuthDecision::allow_with(tenant).principal("acme")`, or
    /// `AuthDecision::Allow.principal("acme")` without an identity for the tools. A session
    /// then belongs to the principal that opened it: a request of another principal (or of
    /// none) naming it is answered `404`, as if it did not exist. [`Deny`](AuthDecision::Deny)
    /// stays `Deny`.
    ///
    /// Without a principal every allowed request is the same, anonymous caller (a
    /// [bearer token](super::HttpServer::bearer_token) is one principal): its sessions are
    /// bound to no one, and are counted per peer address.
    #[must_use]
    pub fn principal(self, principal: impl Into<String>) -> Self {
        let principal: Arc<str> = principal.into().into();
        match self {
            AuthDecision::Allow => AuthDecision::AllowAs {
                principal,
                identity: None,
            },
            AuthDecision::AllowWith(identity)
            | AuthDecision::AllowAs {
                identity: Some(identity),
                ..
            } => AuthDecision::AllowAs {
                principal,
                identity: Some(identity),
            },
            AuthDecision::AllowAs { identity: None, .. } => AuthDecision::AllowAs {
                principal,
                identity: None,
            },
            AuthDecision::Deny => AuthDecision::Deny,
        }
    }
}

impl std::fmt::Debug for AuthDecision {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            AuthDecision::Allow => f.write_str("Allow"),
            AuthDecision::AllowWith(_) => f.write_str("AllowWith(..)"),
            AuthDecision::AllowAs {
                principal,
                identity,
            } => f
                .debug_struct("AllowAs")
                .field("principal", principal)
                .field("identity", &identity.as_ref().map(|_| ".."))
                .finish(),
            AuthDecision::Deny => f.write_str("Deny"),
        }
    }
}

/// Two `AllowWith` are equal when they carry the same value (the same `Arc`); two `AllowAs`
/// when their principals are equal and their identities the same `Arc` (or both none).
impl PartialEq for AuthDecision {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (AuthDecision::Allow, AuthDecision::Allow)
            | (AuthDecision::Deny, AuthDecision::Deny) => true,
            (AuthDecision::AllowWith(a), AuthDecision::AllowWith(b)) => Arc::ptr_eq(a, b),
            (
                AuthDecision::AllowAs {
                    principal: p,
                    identity: a,
                },
                AuthDecision::AllowAs {
                    principal: q,
                    identity: b,
                },
            ) => {
                p == q
                    && match (a, b) {
                        (None, None) => true,
                        (Some(a), Some(b)) => Arc::ptr_eq(a, b),
                        _ => false,
                    }
            }
            _ => false,
        }
    }
}

impl Eq for AuthDecision {}

type AuthFuture = Pin<Box<dyn Future<Output = AuthDecision> + Send>>;
type AuthHook = dyn Fn(&HeaderMap) -> AuthFuture + Send + Sync;

/// Who may call: a ready-made bearer token (checked without a future), or the user's hook.
#[derive(Clone)]
pub(super) enum Auth {
    Bearer(Arc<[u8]>),
    Hook(Arc<AuthHook>),
    /// An OAuth 2.1 resource server's token check ([`HttpServer::oauth`](super::HttpServer::oauth)).
    #[cfg(feature = "oauth")]
    ResourceServer(Arc<super::oauth::Verifier>),
}

impl Auth {
    pub(super) fn hook<F, Fut>(hook: F) -> Self
    where
        F: Fn(&HeaderMap) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = AuthDecision> + Send + 'static,
    {
        Auth::Hook(Arc::new(move |headers: &HeaderMap| {
            Box::pin(hook(headers)) as AuthFuture
        }))
    }
}

/// The `Authorization: Bearer <token>` of `headers`, if there is one (the scheme's case does
/// not matter), for an [auth hook](super::HttpServer::authorize).
pub fn bearer_token_of(headers: &HeaderMap) -> Option<&str> {
    let value = headers.get(header::AUTHORIZATION)?.to_str().ok()?;
    let (scheme, token) = value.trim().split_once(' ')?;
    let token = token.trim();
    (scheme.eq_ignore_ascii_case("bearer") && !token.is_empty()).then_some(token)
}

/// Who an admitted request comes from, as the auth check found out.
#[derive(Clone, Default)]
pub(super) struct Caller {
    /// What the tools of the request see ([`AuthDecision::AllowWith`]).
    pub(super) identity: Option<Identity>,
    /// The key callers are compared by ([`AuthDecision::principal`]); `None`: anonymous.
    pub(super) principal: Option<Arc<str>>,
}

/// The request's caller if it may be served, or the refusal.
pub(super) async fn check_auth(
    shared: &Shared,
    headers: &HeaderMap,
    deadline: Instant,
) -> Result<Caller, Response> {
    let Some(auth) = shared.auth.as_ref() else {
        return Ok(Caller::default());
    };
    let decision = match auth {
        Auth::Bearer(expected) => match bearer_token_of(headers) {
            Some(token) if constant_time_eq(token.as_bytes(), expected) => AuthDecision::Allow,
            _ => AuthDecision::Deny,
        },
        // A hook that hangs (its database down) must not hold the request past its deadline.
        Auth::Hook(hook) => match tokio::time::timeout_at(deadline, hook(headers)).await {
            Ok(decision) => decision,
            Err(_) => return Err(auth_timed_out()),
        },
        // The token's own check answers its refusals (`401` naming the resource metadata).
        #[cfg(feature = "oauth")]
        Auth::ResourceServer(verifier) => {
            return match tokio::time::timeout_at(deadline, verifier.verify(headers)).await {
                Ok(checked) => checked,
                Err(_) => Err(auth_timed_out()),
            };
        }
    };
    match decision {
        AuthDecision::Allow => return Ok(Caller::default()),
        AuthDecision::AllowWith(identity) => {
            return Ok(Caller {
                identity: Some(identity),
                principal: None,
            });
        }
        AuthDecision::AllowAs {
            principal,
            identity,
        } => {
            return Ok(Caller {
                identity,
                principal: Some(principal),
            });
        }
        AuthDecision::Deny => {}
    }
    let challenge = if headers.contains_key(header::AUTHORIZATION) {
        HeaderValue::from_static("Bearer error=\"invalid_token\"")
    } else {
        HeaderValue::from_static("Bearer")
    };
    let mut response = transport_error(
        StatusCode::UNAUTHORIZED,
        TRANSPORT_ERROR,
        "Unauthorized",
        "this server requires `Authorization: Bearer <token>` with a valid token",
    );
    response
        .headers_mut()
        .insert(header::WWW_AUTHENTICATE, challenge);
    Err(response)
}

/// `503`: the auth check (a hook, an issuer) still undecided at the request's deadline.
fn auth_timed_out() -> Response {
    transport_error(
        StatusCode::SERVICE_UNAVAILABLE,
        TRANSPORT_ERROR,
        "Service Unavailable",
        "the authorization check did not finish within the server's request timeout",
    )
}

/// The checks of a request that need its message: the refusal, if any. With
/// [OAuth](super::HttpServer::oauth), a `tools/call` of a tool whose required scopes the
/// caller's token lacks is refused (`403`). Without it, nothing (and nothing is looked at).
#[inline]
pub(super) fn refuse_message(
    shared: &Shared,
    caller: &Caller,
    message: &claude_tools_core::mcp::Message,
) -> Option<Response> {
    #[cfg(feature = "oauth")]
    if let Some(Auth::ResourceServer(verifier)) = &shared.auth {
        return verifier.refuse_call(caller, message);
    }
    let _ = (shared, caller, message);
    None
}

/// Equal-length inputs take the same time however much of them matches.
fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    let difference = a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y));
    std::hint::black_box(difference) == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bearer_tokens_are_read_and_compared() {
        let mut headers = HeaderMap::new();
        headers.insert(
            header::AUTHORIZATION,
            HeaderValue::from_static("bearer abc"),
        );
        assert_eq!(bearer_token_of(&headers), Some("abc"));
        headers.insert(header::AUTHORIZATION, HeaderValue::from_static("Basic abc"));
        assert_eq!(bearer_token_of(&headers), None);
        assert!(constant_time_eq(b"abc", b"abc"));
        assert!(!constant_time_eq(b"abc", b"abd"));
        assert!(!constant_time_eq(b"abc", b"abcd"));
    }

    #[test]
    fn a_principal_keeps_the_identity_and_deny_stays_deny() {
        let identity: Identity = Arc::new(7u8);
        let decision = AuthDecision::AllowWith(identity.clone()).principal("a");
        assert_eq!(
            decision,
            AuthDecision::AllowAs {
                principal: "a".into(),
                identity: Some(identity.clone())
            }
        );
        assert_eq!(
            decision.principal("b"),
            AuthDecision::AllowAs {
                principal: "b".into(),
                identity: Some(identity)
            }
        );
        assert_eq!(
            AuthDecision::Allow.principal("a"),
            AuthDecision::AllowAs {
                principal: "a".into(),
                identity: None
            }
        );
        assert_eq!(AuthDecision::Deny.principal("a"), AuthDecision::Deny);
    }
}
