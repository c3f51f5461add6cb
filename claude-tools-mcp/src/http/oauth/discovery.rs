//! Where the issuer keeps its keys and its introspection endpoint: its metadata, RFC 8414
//! (`/.well-known/oauth-authorization-server`) or OpenID Connect Discovery
//! (`/.well-known/openid-configuration`), tried in the order the MCP authorization spec gives.

use serde::Deserialize;

use super::fetch::{Call, FetchError, Fetcher};
use super::url::{Url, same_issuer};

/// The parts of an authorization server's metadata a resource server uses.
#[derive(Debug, Clone, Deserialize)]
pub(super) struct IssuerMetadata {
    pub(super) issuer: String,
    #[serde(default)]
    pub(super) jwks_uri: Option<String>,
    #[serde(default)]
    pub(super) introspection_endpoint: Option<String>,
}

/// The metadata URLs of `issuer`, in the order to try them: for `https://as.example/tenant`,
/// RFC 8414's `https://as.example/.well-known/oauth-authorization-server/tenant`, then OpenID
/// Connect's path-inserted and path-appended forms; for an issuer without a path, the two
/// root documents.
pub(super) fn metadata_urls(issuer: &Url) -> Vec<String> {
    let origin = issuer.origin();
    let path = issuer.path_without_trailing_slash();
    if path.is_empty() {
        vec![
            format!("{origin}/.well-known/oauth-authorization-server"),
            format!("{origin}/.well-known/openid-configuration"),
        ]
    } else {
        vec![
            format!("{origin}/.well-known/oauth-authorization-server{path}"),
            format!("{origin}/.well-known/openid-configuration{path}"),
            format!("{origin}{path}/.well-known/openid-configuration"),
        ]
    }
}

/// The issuer's metadata: the first of its [metadata URLs](metadata_urls) that answers with a
/// document naming this issuer (RFC 8414 §3.3: a document naming another is not used).
pub(super) async fn discover(
    fetcher: &Fetcher,
    issuer: &Url,
) -> Result<IssuerMetadata, FetchError> {
    let mut last = None;
    for url in metadata_urls(issuer) {
        match fetcher.json::<IssuerMetadata>(&url, Call::Get).await {
            Ok(metadata) if same_issuer(&metadata.issuer, issuer.as_str()) => return Ok(metadata),
            Ok(metadata) => {
                last = Some(FetchError {
                    url,
                    reason: format!(
                        "the metadata names the issuer `{}`, not `{}`",
                        metadata.issuer,
                        issuer.as_str()
                    ),
                });
            }
            Err(error) => last = Some(error),
        }
    }
    Err(last.unwrap_or_else(|| FetchError {
        url: issuer.as_str().to_string(),
        reason: "no metadata URL".to_string(),
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn metadata_urls_insert_the_well_known_path_before_the_issuers_path() {
        let root = Url::parse("https://as.example/").expect("a URL");
        assert_eq!(
            metadata_urls(&root),
            [
                "https://as.example/.well-known/oauth-authorization-server",
                "https://as.example/.well-known/openid-configuration"
            ]
        );
        let tenant = Url::parse("https://as.example:8443/tenant/1").expect("a URL");
        assert_eq!(
            metadata_urls(&tenant),
            [
                "https://as.example:8443/.well-known/oauth-authorization-server/tenant/1",
                "https://as.example:8443/.well-known/openid-configuration/tenant/1",
                "https://as.example:8443/tenant/1/.well-known/openid-configuration"
            ]
        );
    }
}
