//! [`AccessToken`]: who a verified token says is calling, as the tools see it.

use std::time::SystemTime;

/// A verified access token: who is calling and what it may do. Handed to every tool the request
/// calls (a tool takes an [`Extension<AccessToken>`](claude_tools_core::tool::Extension)
/// parameter, or reads `ctx.extension::<AccessToken>()`), and to the layers around calls and
/// requests (`identity::<AccessToken>()`).
///
/// ```
/// use claude_tools::mcp::http::oauth::AccessToken;
/// use claude_tools::tools::{Extension, ToolError};
///
/// async fn delete_note(token: Extension<AccessToken>, id: u64) -> Result<String, ToolError> {
///     if !token.has_scope("notes:write") {
///         return Err(ToolError::new("this token may not delete notes"));
///     }
///     Ok(format!("note {id} deleted for {}", token.principal()))
/// }
/// # let _ = delete_note;
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AccessToken {
    pub(super) principal: String,
    pub(super) subject: Option<String>,
    pub(super) client_id: Option<String>,
    pub(super) scopes: Vec<String>,
    pub(super) issuer: String,
    pub(super) expires_at: Option<SystemTime>,
}

impl AccessToken {
    /// The key callers are compared by (a session belongs to it, and MCP 2026-07-28's
    /// `requestState` is bound to it): the token's subject (`sub`), else its client id.
    pub fn principal(&self) -> &str {
        &self.principal
    }

    /// The token's subject (`sub`): the user, or the client for a client-credentials token.
    pub fn subject(&self) -> Option<&str> {
        self.subject.as_deref()
    }

    /// The OAuth client the token was issued to (`client_id`, else `azp`).
    pub fn client_id(&self) -> Option<&str> {
        self.client_id.as_deref()
    }

    /// The scopes the token grants (`scope`, space-separated, or an `scp` list).
    pub fn scopes(&self) -> &[String] {
        &self.scopes
    }

    /// Whether the token grants `scope`.
    pub fn has_scope(&self, scope: &str) -> bool {
        self.scopes.iter().any(|granted| granted == scope)
    }

    /// The authorization server that issued the token (`iss`, else the configured issuer).
    pub fn issuer(&self) -> &str {
        &self.issuer
    }

    /// When the token expires (`exp`), if it says.
    pub fn expires_at(&self) -> Option<SystemTime> {
        self.expires_at
    }
}

/// The scopes of a `scope` claim (RFC 9068, RFC 7662: one string, space-separated) or an `scp`
/// claim (a list, as some providers send).
pub(super) fn scopes_of(scope: Option<&str>, scp: Option<&[String]>) -> Vec<String> {
    let mut scopes: Vec<String> = scope
        .unwrap_or_default()
        .split_ascii_whitespace()
        .map(str::to_owned)
        .collect();
    for scope in scp.unwrap_or_default() {
        if !scopes.contains(scope) {
            scopes.push(scope.clone());
        }
    }
    scopes
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scopes_come_from_either_claim_once_each() {
        let scp = ["b".to_string(), "c".to_string()];
        assert_eq!(scopes_of(Some(" a  b "), Some(&scp)), ["a", "b", "c"]);
        assert!(scopes_of(None, None).is_empty());
    }
}
