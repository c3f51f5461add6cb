//! The server's OAuth protected-resource metadata (RFC 9728): which authorization server issues
//! its tokens and which scopes it knows, served without auth at
//! `/.well-known/oauth-protected-resource` and at the form suffixed with the endpoint's path
//! (`/.well-known/oauth-protected-resource/mcp`), where MCP clients look first.

use std::sync::Arc;

use axum::http::{HeaderValue, header};
use axum::response::{IntoResponse, Response};
use serde::Serialize;

use super::url::Url;
use super::verifier::Verifier;

/// The well-known prefix of RFC 9728.
const WELL_KNOWN: &str = "/.well-known/oauth-protected-resource";

/// The metadata document (RFC 9728 §2), the members a resource server of this crate sets.
#[derive(Serialize)]
pub(super) struct ResourceMetadata<'a> {
    pub(super) resource: &'a str,
    pub(super) authorization_servers: [&'a str; 1],
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    pub(super) scopes_supported: &'a [String],
    pub(super) bearer_methods_supported: [&'static str; 1],
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) resource_name: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) resource_documentation: Option<&'a str>,
}

/// Where the metadata of `resource` is: its URL (named in every challenge), and the paths it is
/// served at on this server, the path-suffixed one first.
pub(super) fn metadata_location(resource: &Url) -> (String, Vec<String>) {
    let path = resource.path_without_trailing_slash();
    let suffixed = format!("{WELL_KNOWN}{path}");
    let url = format!("{}{suffixed}", resource.origin());
    let mut paths = vec![suffixed];
    if !path.is_empty() {
        paths.push(WELL_KNOWN.to_string());
    }
    (url, paths)
}

/// The routes serving the metadata of `verifier`, added to the endpoint's router.
pub(in crate::http) fn routes<S: Clone + Send + Sync + 'static>(
    mut router: axum::Router<S>,
    verifier: &Arc<Verifier>,
) -> axum::Router<S> {
    for path in &verifier.metadata_paths {
        let document = verifier.metadata.clone();
        router = router.route(
            path,
            axum::routing::get(move || {
                let document = document.clone();
                async move { document_response(document) }
            }),
        );
    }
    router
}

fn document_response(document: axum::body::Bytes) -> Response {
    let mut response = document.into_response();
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    // Public and the same for everyone: any origin may read it (browser-based clients fetch it
    // cross-origin), and it may be cached for an hour.
    headers.insert(
        header::ACCESS_CONTROL_ALLOW_ORIGIN,
        HeaderValue::from_static("*"),
    );
    headers.insert(
        header::CACHE_CONTROL,
        HeaderValue::from_static("public, max-age=3600"),
    );
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_metadata_is_found_at_the_path_suffixed_url_and_the_root() {
        let resource = Url::parse("http://127.0.0.1:8080/mcp").expect("a URL");
        let (url, paths) = metadata_location(&resource);
        assert_eq!(
            url,
            "http://127.0.0.1:8080/.well-known/oauth-protected-resource/mcp"
        );
        assert_eq!(
            paths,
            [
                "/.well-known/oauth-protected-resource/mcp",
                "/.well-known/oauth-protected-resource"
            ]
        );
        let root = Url::parse("https://mcp.example/").expect("a URL");
        assert_eq!(
            metadata_location(&root).1,
            ["/.well-known/oauth-protected-resource"]
        );
    }
}
