//! The configured [`OAuth`](super::OAuth) as the server runs it: each request's bearer token
//! checked ([`Verifier::verify`]), the `401` and `403` challenges (RFC 6750 §3, with RFC 9728's
//! `resource_metadata`), and the required scopes of each tool ([`Verifier::refuse_call`]).

use std::collections::HashMap;

use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::Response;

use super::introspect::Introspection;
use super::jwt::JwtCheck;
use super::token::AccessToken;
use crate::http::TRANSPORT_ERROR;
use crate::http::auth::{Caller, bearer_token_of};
use crate::http::reply::transport_error;
use claude_tools_core::mcp::{Call, Message, Request as RpcRequest};

/// How tokens are checked.
pub(super) enum TokenCheck {
    Jwt(JwtCheck),
    Introspection(Box<Introspection>),
}

/// Why a request's token was refused: logged, never sent (the client reads only
/// `invalid_token`).
#[derive(Debug)]
pub(in crate::http) struct Rejection {
    pub(super) reason: String,
    /// The issuer could not be asked (its keys expired, introspection down): logged as a warning,
    /// as it refuses every caller.
    pub(super) issuer_unavailable: bool,
}

impl Rejection {
    pub(super) fn invalid(reason: impl Into<String>) -> Self {
        Self {
            reason: reason.into(),
            issuer_unavailable: false,
        }
    }

    pub(super) fn unavailable(reason: impl Into<String>) -> Self {
        Self {
            reason: reason.into(),
            issuer_unavailable: true,
        }
    }
}

/// A server's OAuth, ready to check requests (made by [`HttpServer::oauth`](crate::http::HttpServer::oauth)).
pub(in crate::http) struct Verifier {
    pub(super) check: TokenCheck,
    /// The URL of this server's protected-resource metadata, named in every challenge.
    pub(super) metadata_url: String,
    /// The paths the metadata is served at (the path-suffixed form and the root form).
    pub(super) metadata_paths: Vec<String>,
    /// The metadata document, serialized once.
    pub(super) metadata: axum::body::Bytes,
    /// The scopes each tool requires, by tool name.
    pub(super) tool_scopes: HashMap<String, Vec<String>>,
    /// The scopes a `401` asks a client to request first (`scope="…"`), if any.
    pub(super) challenge_scope: Option<String>,
    pub(super) max_token_size: usize,
}

impl Verifier {
    /// The caller of a request with `headers`: its bearer token, checked.
    pub(in crate::http) async fn verify(&self, headers: &HeaderMap) -> Result<Caller, Response> {
        let sent = headers.contains_key(header::AUTHORIZATION);
        let Some(token) = bearer_token_of(headers) else {
            return Err(self.unauthorized(sent, None));
        };
        if token.len() > self.max_token_size {
            return Err(self.unauthorized(
                true,
                Some(Rejection::invalid(format!(
                    "a token of {} bytes, over the {}-byte cap",
                    token.len(),
                    self.max_token_size
                ))),
            ));
        }
        let checked = match &self.check {
            TokenCheck::Jwt(check) => check.verify(token).await,
            TokenCheck::Introspection(check) => check.verify(token).await,
        };
        match checked {
            Ok(token) => Ok(caller_of(token)),
            Err(rejection) => Err(self.unauthorized(true, Some(rejection))),
        }
    }

    /// `401` with `WWW-Authenticate: Bearer resource_metadata="…"` (and `error="invalid_token"`
    /// when a token was sent), so that a client finds the authorization server and logs in.
    fn unauthorized(&self, token_sent: bool, rejection: Option<Rejection>) -> Response {
        if let Some(rejection) = &rejection {
            if rejection.issuer_unavailable {
                tracing::warn!(reason = %rejection.reason, "OAuth: a token could not be checked; 401");
            } else {
                tracing::info!(reason = %rejection.reason, "OAuth: a token was refused; 401");
            }
        }
        let mut challenge = format!("Bearer resource_metadata=\"{}\"", self.metadata_url);
        if let Some(scope) = &self.challenge_scope {
            challenge.push_str(&format!(", scope=\"{scope}\""));
        }
        if token_sent {
            challenge.push_str(", error=\"invalid_token\"");
        }
        let mut response = transport_error(
            StatusCode::UNAUTHORIZED,
            TRANSPORT_ERROR,
            "Unauthorized",
            "this server requires `Authorization: Bearer <token>` with a valid access token \
             from its authorization server (see its protected-resource metadata)",
        );
        insert_challenge(&mut response, challenge);
        response
    }

    /// `None` unless `message` calls a tool whose required scopes the caller's token lacks:
    /// then `403` with `WWW-Authenticate: Bearer error="insufficient_scope", scope="…"` naming the
    /// scopes the call needs, so that the client can ask for them (step-up) and retry.
    pub(in crate::http) fn refuse_call(
        &self,
        caller: &Caller,
        message: &Message,
    ) -> Option<Response> {
        let Message::Request(RpcRequest {
            call: Call::ToolsCall(call),
            ..
        }) = message
        else {
            return None;
        };
        let required = self.tool_scopes.get(call.name.as_str())?;
        let token = caller
            .identity
            .as_ref()
            .and_then(|identity| identity.downcast_ref::<AccessToken>());
        let missing = required
            .iter()
            .any(|scope| !token.is_some_and(|token| token.has_scope(scope)));
        if !missing {
            return None;
        }
        tracing::info!(tool = %call.name, "OAuth: the token lacks a scope the tool requires; 403");
        // The scopes the client should hold: what it has and what this tool needs.
        let mut wanted: Vec<&str> = token
            .map(|token| token.scopes().iter().map(String::as_str).collect())
            .unwrap_or_default();
        for scope in required {
            if !wanted.contains(&scope.as_str()) {
                wanted.push(scope);
            }
        }
        let challenge = format!(
            "Bearer error=\"insufficient_scope\", scope=\"{}\", resource_metadata=\"{}\", \
             error_description=\"the tool `{}` requires the scope(s) {}\"",
            wanted.join(" "),
            self.metadata_url,
            printable(&call.name),
            required.join(" ")
        );
        let mut response = transport_error(
            StatusCode::FORBIDDEN,
            TRANSPORT_ERROR,
            "Forbidden",
            &format!(
                "the tool `{}` requires the scope(s) {}, which the access token does not grant",
                call.name,
                required.join(" ")
            ),
        );
        insert_challenge(&mut response, challenge);
        Some(response)
    }
}

/// The caller a verified token makes: its principal, and the token handed to the tools.
fn caller_of(token: AccessToken) -> Caller {
    Caller {
        principal: Some(token.principal().into()),
        identity: Some(std::sync::Arc::new(token)),
    }
}

fn insert_challenge(response: &mut Response, challenge: String) {
    match HeaderValue::from_str(&challenge) {
        Ok(value) => {
            response
                .headers_mut()
                .insert(header::WWW_AUTHENTICATE, value);
        }
        // Only text configured by the developer goes in (checked when configured); kept safe
        // all the same.
        Err(_) => {
            response
                .headers_mut()
                .insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
        }
    }
}

/// A tool name as it may stand in a quoted header parameter (tool names are `[A-Za-z0-9_-]`;
/// a name a client made up is cut to those).
fn printable(name: &str) -> String {
    name.chars()
        .filter(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.' | '/'))
        .take(64)
        .collect()
}
