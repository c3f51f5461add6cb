//! The two URLs an OAuth resource server is configured with (the issuer's, and its own
//! canonical one, RFC 8707), checked once when configured.

use axum::http::Uri;

use super::OAuthError;

/// An absolute `http` or `https` URL without a fragment, as given (after the check).
#[derive(Debug, Clone)]
pub(super) struct Url {
    text: String,
    scheme: String,
    authority: String,
    path: String,
}

impl Url {
    /// `text` as a URL: absolute, `http` or `https`, with a host, no fragment.
    pub(super) fn parse(text: &str) -> Result<Self, String> {
        if text.contains('#') {
            return Err("it has a fragment (`#…`)".to_string());
        }
        let uri: Uri = text
            .parse()
            .map_err(|error| format!("not a URL: {error}"))?;
        let scheme = uri
            .scheme_str()
            .ok_or("not an absolute URL")?
            .to_ascii_lowercase();
        if scheme != "http" && scheme != "https" {
            return Err(format!("the scheme `{scheme}` is neither http nor https"));
        }
        let authority = uri.authority().ok_or("it has no host")?;
        if authority.as_str().contains('@') {
            return Err("it carries credentials (`user@`)".to_string());
        }
        Ok(Self {
            text: text.to_string(),
            scheme,
            // Hosts compare without regard to case (RFC 3986 §6.2.2.1).
            authority: authority.as_str().to_ascii_lowercase(),
            path: uri.path().to_string(),
        })
    }

    /// Parsed, or the [`OAuthError`] naming which URL is bad.
    pub(super) fn parse_named(what: &'static str, text: &str) -> Result<Self, OAuthError> {
        Self::parse(text).map_err(|reason| OAuthError::BadUrl {
            what,
            url: text.to_string(),
            reason,
        })
    }

    /// The URL as given.
    pub(super) fn as_str(&self) -> &str {
        &self.text
    }

    /// `scheme://authority`.
    pub(super) fn origin(&self) -> String {
        format!("{}://{}", self.scheme, self.authority)
    }

    /// The path, `""` for the root (`/`), else without its trailing `/`.
    pub(super) fn path_without_trailing_slash(&self) -> &str {
        self.path.trim_end_matches('/')
    }
}

/// Whether two issuer (or resource) identifiers are the same: equal, or equal but for one
/// trailing `/` (authorization servers differ on writing `https://as.example` with or without
/// it, and clients on the resource's).
pub(super) fn same_issuer(a: &str, b: &str) -> bool {
    a == b || a.trim_end_matches('/') == b.trim_end_matches('/')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_absolute_http_urls_without_fragment_or_credentials_pass() {
        let url = Url::parse("https://AS.example:8443/t/").expect("a URL");
        assert_eq!(url.origin(), "https://as.example:8443");
        assert_eq!(url.path_without_trailing_slash(), "/t");
        for bad in [
            "/relative",
            "ftp://as.example",
            "https://as.example/#x",
            "https://u:p@as.example/",
            "not a url",
        ] {
            assert!(Url::parse(bad).is_err(), "{bad}");
        }
        assert!(same_issuer("https://a/", "https://a"));
        assert!(!same_issuer("https://a/x", "https://a"));
    }
}
