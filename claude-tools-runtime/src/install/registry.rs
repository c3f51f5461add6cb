//! The npm registry, as far as the installer needs it: a package version's document
//! (`GET <registry>/<package>/<version>`, its `dist.tarball` and `dist.integrity`) and the
//! tarball's bytes, streamed.

use std::io::Read;
use std::time::Duration;

use serde::Deserialize;

use super::error::{BoxError, InstallError};

/// The npm registry the installer fetches from unless told otherwise.
pub const DEFAULT_REGISTRY: &str = "https://registry.npmjs.org";

/// The environment variable naming another registry (a mirror, or a test's local one), read by
/// [`Installer::new`](super::Installer::new).
pub const REGISTRY_ENV: &str = "CLAUDE_TOOLS_NPM_REGISTRY";

/// The largest version document read: a few hundred bytes in practice.
const MAX_DOCUMENT_BYTES: u64 = 1024 * 1024;

/// What the installer reads of a version document; the registry sends more.
#[derive(Debug, Deserialize)]
struct VersionDocument {
    name: String,
    version: String,
    dist: Dist,
}

#[derive(Debug, Deserialize)]
struct Dist {
    tarball: String,
    integrity: Option<String>,
}

/// Where a package version's tarball is and what its hash must be.
#[derive(Debug)]
pub(crate) struct Release {
    pub(crate) tarball: String,
    pub(crate) integrity: String,
}

/// A response body being read, with its announced length.
pub(crate) struct Download {
    pub(crate) body: Box<dyn Read + Send>,
    pub(crate) length: Option<u64>,
}

/// A client for one registry.
pub(crate) struct Registry {
    base: String,
    agent: ureq::Agent,
}

impl Registry {
    /// A client for the registry at `base` (`https://…`, or `http://…` for a local mirror or
    /// a test), whose downloads may take `download_timeout` each.
    pub(crate) fn new(base: &str, download_timeout: Duration) -> Result<Self, InstallError> {
        let base = base.trim_end_matches('/').to_string();
        check_scheme(&base, true)?;
        let agent = ureq::Agent::config_builder()
            // Statuses are read here, so that a 404 says which package and version.
            .http_status_as_error(false)
            .timeout_connect(Some(Duration::from_secs(30)))
            .timeout_recv_response(Some(Duration::from_secs(60)))
            .timeout_recv_body(Some(download_timeout))
            .user_agent(concat!("claude-tools/", env!("CARGO_PKG_VERSION")))
            // The system's trust store (and SSL_CERT_FILE), as curl and npm use.
            .tls_config(
                ureq::tls::TlsConfig::builder()
                    .root_certs(ureq::tls::RootCerts::PlatformVerifier)
                    .build(),
            )
            .build()
            .new_agent();
        Ok(Self { base, agent })
    }

    /// The document of `package@version`: where its tarball is and its sha512.
    pub(crate) fn release(&self, package: &str, version: &str) -> Result<Release, InstallError> {
        // A scoped name's slash is escaped, as npm does (`@scope%2fname`).
        let url = format!("{}/{}/{version}", self.base, package.replace('/', "%2f"));
        let mut response = self.get(&url, "application/json", package, version)?;
        let body = response
            .body_mut()
            .with_config()
            .limit(MAX_DOCUMENT_BYTES)
            .read_to_vec()
            .map_err(|source| InstallError::Download {
                url: url.clone(),
                source: source.into(),
            })?;
        let bad = |reason: String| InstallError::BadDocument {
            url: url.clone(),
            reason,
        };
        let document: VersionDocument = serde_json::from_slice(&body)
            .map_err(|e| bad(format!("not a version document: {e}")))?;
        if document.name != package || document.version != version {
            return Err(bad(format!(
                "it describes {}@{}, not {package}@{version}",
                document.name, document.version
            )));
        }
        let integrity = document
            .dist
            .integrity
            .filter(|i| !i.trim().is_empty())
            .ok_or_else(|| bad("it has no dist.integrity to check the tarball against".into()))?;
        // The document came over https: its tarball must not come over plain http (a local
        // registry over http may point to http).
        check_scheme(&document.dist.tarball, self.base.starts_with("http://"))?;
        Ok(Release {
            tarball: document.dist.tarball,
            integrity,
        })
    }

    /// The tarball's body, to be streamed.
    pub(crate) fn download(
        &self,
        url: &str,
        package: &str,
        version: &str,
    ) -> Result<Download, InstallError> {
        let response = self.get(url, "application/octet-stream", package, version)?;
        let body = response.into_body();
        let length = body.content_length();
        Ok(Download {
            body: Box::new(body.into_reader()),
            length,
        })
    }

    fn get(
        &self,
        url: &str,
        accept: &str,
        package: &str,
        version: &str,
    ) -> Result<ureq::http::Response<ureq::Body>, InstallError> {
        let response = self
            .agent
            .get(url)
            .header("Accept", accept)
            .call()
            .map_err(|error| match error {
                ureq::Error::BadUri(reason) => InstallError::BadUrl {
                    url: url.to_string(),
                    reason,
                },
                other => InstallError::Unreachable {
                    url: url.to_string(),
                    source: BoxError::from(other),
                },
            })?;
        match response.status().as_u16() {
            200..=299 => Ok(response),
            404 => Err(InstallError::NotFound {
                package: package.to_string(),
                version: version.to_string(),
                url: url.to_string(),
            }),
            status => Err(InstallError::Status {
                url: url.to_string(),
                status,
            }),
        }
    }
}

/// `https://…`, or `http://…` where `allow_http`.
fn check_scheme(url: &str, allow_http: bool) -> Result<(), InstallError> {
    let lower = url.to_ascii_lowercase();
    if lower.starts_with("https://") || (allow_http && lower.starts_with("http://")) {
        return Ok(());
    }
    Err(InstallError::BadUrl {
        url: url.to_string(),
        reason: if allow_http {
            "not an http:// or https:// URL".into()
        } else {
            "the tarball of a registry reached over https must come over https too".into()
        },
    })
}
