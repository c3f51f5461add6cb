//! What a state is bound to: the request it was issued for and who sent it. Carried in the
//! AEAD's associated data, never in the state itself.

use std::fmt;

use sha2::{Digest, Sha256};

/// The domain of [`ParamsDigest::of`], so that its digests cannot be confused with SHA-256
/// digests computed elsewhere over the same bytes.
const PARAMS_DOMAIN: &[u8] = b"claude-tools/request-state/v1 params";
/// The first bytes of the associated data.
const AAD_DOMAIN: &[u8] = b"claude-tools/request-state/v1 binding";

/// A SHA-256 digest of a request's parameters, for a [`Binding`].
///
/// [`ParamsDigest::of`] digests a sequence of byte strings unambiguously: each is prefixed with
/// its length, so `["ab", "c"]` and `["a", "bc"]` differ. Digest what identifies the request and
/// stays the same when the client retries it (for `tools/call`, the tool's name and its
/// arguments written out from their parsed form; not `inputResponses`, `requestState` or
/// `_meta`, which change from round to round, and not the raw bytes, which a client may
/// re-serialize).
///
/// ```
/// use claude_tools::mcp::request_state::ParamsDigest;
///
/// let a = ParamsDigest::of([b"deploy".as_slice(), br#"{"env":"prod"}"#]);
/// let b = ParamsDigest::of([b"deplo".as_slice(), br#"y{"env":"prod"}"#]);
/// assert_ne!(a, b);
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct ParamsDigest([u8; 32]);

impl ParamsDigest {
    /// The digest of `parts`, each length-prefixed (SHA-256).
    pub fn of<'p>(parts: impl IntoIterator<Item = &'p [u8]>) -> Self {
        let mut hasher = Sha256::new();
        hasher.update(PARAMS_DOMAIN);
        for part in parts {
            hasher.update((part.len() as u64).to_be_bytes());
            hasher.update(part);
        }
        Self(hasher.finalize().into())
    }

    /// A digest computed elsewhere (for example one a shared store kept).
    pub const fn from_bytes(bytes: [u8; 32]) -> Self {
        Self(bytes)
    }

    /// The digest's 32 bytes.
    pub const fn to_bytes(self) -> [u8; 32] {
        self.0
    }
}

impl From<[u8; 32]> for ParamsDigest {
    fn from(bytes: [u8; 32]) -> Self {
        Self(bytes)
    }
}

impl fmt::Debug for ParamsDigest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let hex: String = self.0.iter().map(|b| format!("{b:02x}")).collect();
        f.debug_tuple("ParamsDigest").field(&hex).finish()
    }
}

/// What a state is bound to, besides the codec's audience: the method it was issued for, a
/// digest of that request's parameters and the principal the auth hook returned. A state opens
/// only under the binding it was sealed with.
///
/// ```
/// use claude_tools::mcp::request_state::{Binding, ParamsDigest};
///
/// let params = ParamsDigest::of([b"deploy".as_slice(), br#"{"env":"prod"}"#]);
/// let binding = Binding::new("tools/call", params).with_principal(Some("user:42"));
/// # let _ = binding;
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Binding<'a> {
    method: &'a str,
    params: ParamsDigest,
    principal: Option<&'a str>,
}

impl<'a> Binding<'a> {
    /// A binding to `method` (`tools/call`, `prompts/get` or `resources/read`) and the digest of
    /// its parameters, for an anonymous caller.
    pub const fn new(method: &'a str, params: ParamsDigest) -> Self {
        Self {
            method,
            params,
            principal: None,
        }
    }

    /// Binds to the principal the auth hook returned (an opaque string), or to none. A state
    /// sealed for one principal does not open for another, nor for an anonymous caller.
    #[must_use]
    pub const fn with_principal(mut self, principal: Option<&'a str>) -> Self {
        self.principal = principal;
        self
    }

    /// The method bound to.
    pub const fn method(&self) -> &'a str {
        self.method
    }

    /// The parameters' digest bound to.
    pub const fn params(&self) -> ParamsDigest {
        self.params
    }

    /// The principal bound to, if any.
    pub const fn principal(&self) -> Option<&'a str> {
        self.principal
    }

    /// The AEAD's associated data for this binding under `audience`, after the sealed form's
    /// `header` (version and key id, so those are authenticated too). Every variable-length
    /// field is length-prefixed, so no two bindings encode alike.
    pub(super) fn associated_data(&self, audience: &str, header: &[u8]) -> Vec<u8> {
        let principal_len = self.principal.map_or(0, |p| 8 + p.len());
        let mut aad = Vec::with_capacity(
            AAD_DOMAIN.len()
                + header.len()
                + 8
                + self.method.len()
                + 32
                + 1
                + principal_len
                + 8
                + audience.len(),
        );
        aad.extend_from_slice(AAD_DOMAIN);
        aad.extend_from_slice(header);
        push_prefixed(&mut aad, self.method.as_bytes());
        aad.extend_from_slice(&self.params.0);
        match self.principal {
            None => aad.push(0),
            Some(principal) => {
                aad.push(1);
                push_prefixed(&mut aad, principal.as_bytes());
            }
        }
        push_prefixed(&mut aad, audience.as_bytes());
        aad
    }
}

/// Appends `bytes` after their length (eight bytes, big-endian).
fn push_prefixed(out: &mut Vec<u8>, bytes: &[u8]) {
    out.extend_from_slice(&(bytes.len() as u64).to_be_bytes());
    out.extend_from_slice(bytes);
}
