//! [`PublishInfo`]: what the publisher knows of a server that the server does not, and the
//! checks that make a `server.json` the registry accepts.

use super::{Package, PublishError, Remote, Repository, SERVER_JSON_SCHEMA, ServerJson, Transport};

/// The registry's limit on a description, in characters.
const MAX_DESCRIPTION: usize = 100;

/// crates.io, as the registry names it.
const CRATES_IO: &str = "https://crates.io";

/// How a server is published: its registry name, where its code lives, how it is installed
/// (crates) and where it is reached (remote URLs). Give it to
/// [`ToolServer::server_json`](crate::tool::ToolServer::server_json).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PublishInfo {
    name: String,
    description: Option<String>,
    title: Option<String>,
    version: Option<String>,
    repository: Option<String>,
    subfolder: Option<String>,
    website_url: Option<String>,
    crates: Vec<CratePackage>,
    remotes: Vec<String>,
}

/// A crate on crates.io that runs the server over stdio (`cargo install` puts its binary on
/// the path).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CratePackage {
    /// The crate's name.
    pub name: String,
    /// Its version, when it is not the server's.
    pub version: Option<String>,
}

impl PublishInfo {
    /// A server published under registry name `name`: `namespace/name` in reverse-DNS form,
    /// `io.github.<user>/<server>` for a GitHub login, `com.example/<server>` for a domain.
    pub fn new(name: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            description: None,
            title: None,
            version: None,
            repository: None,
            subfolder: None,
            website_url: None,
            crates: Vec::new(),
            remotes: Vec::new(),
        }
    }

    /// The description (at most 100 characters); without it, the server's instructions.
    pub fn description(mut self, description: impl Into<String>) -> Self {
        self.description = Some(description.into());
        self
    }

    /// A display name.
    pub fn title(mut self, title: impl Into<String>) -> Self {
        self.title = Some(title.into());
        self
    }

    /// The version published, when it is not the server's (`#[tool_server(version = ..)]`).
    pub fn version(mut self, version: impl Into<String>) -> Self {
        self.version = Some(version.into());
        self
    }

    /// The repository's URL; its host (`github`, `gitlab`…) is read from it.
    pub fn repository(mut self, url: impl Into<String>) -> Self {
        self.repository = Some(url.into());
        self
    }

    /// The folder of the repository the server is in (a monorepo).
    pub fn subfolder(mut self, subfolder: impl Into<String>) -> Self {
        self.subfolder = Some(subfolder.into());
        self
    }

    /// The project's website.
    pub fn website_url(mut self, url: impl Into<String>) -> Self {
        self.website_url = Some(url.into());
        self
    }

    /// Adds crate `name` on crates.io, at the server's version, run over stdio. Its README
    /// must carry [`mcp_name_marker`](Self::mcp_name_marker) for the registry to accept it.
    pub fn crate_package(mut self, name: impl Into<String>) -> Self {
        self.crates.push(CratePackage {
            name: name.into(),
            version: None,
        });
        self
    }

    /// Adds crate `name` at `version` (when the crate's version is not the server's).
    pub fn crate_package_at(mut self, name: impl Into<String>, version: impl Into<String>) -> Self {
        self.crates.push(CratePackage {
            name: name.into(),
            version: Some(version.into()),
        });
        self
    }

    /// Adds a Streamable HTTP endpoint, e.g. `https://mcp.example.com/mcp`.
    pub fn remote(mut self, url: impl Into<String>) -> Self {
        self.remotes.push(url.into());
        self
    }

    /// The registry name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The line a crate's README carries so that the registry accepts the crate as this
    /// server's: `mcp-name: io.github.alice/units`. Put it on a line of its own (in an HTML
    /// comment to hide it: `<!-- mcp-name: io.github.alice/units -->`), and publish the crate
    /// again: the registry reads the README of the version the `server.json` names.
    ///
    /// ```
    /// use claude_tools::publish::PublishInfo;
    ///
    /// let info = PublishInfo::new("io.github.alice/units");
    /// assert_eq!(info.mcp_name_marker(), "mcp-name: io.github.alice/units");
    /// assert!(info.readme_declares_name("# Units\n<!-- mcp-name: io.github.alice/units -->\n"));
    /// assert!(!info.readme_declares_name("mcp-name: io.github.alice/units-extra"));
    /// ```
    pub fn mcp_name_marker(&self) -> String {
        format!("mcp-name: {}", self.name)
    }

    /// Whether `readme` carries [`mcp_name_marker`](Self::mcp_name_marker) as the registry
    /// reads it: the marker followed by the end of the text or a character that cannot
    /// continue a name (so `…/units-extra` does not count for `…/units`). A test of the crate
    /// can check its README with it before publishing.
    pub fn readme_declares_name(&self, readme: &str) -> bool {
        let marker = self.mcp_name_marker();
        readme.match_indices(&marker).any(|(at, _)| {
            readme[at + marker.len()..]
                .bytes()
                .next()
                .is_none_or(|next| !is_name_byte(next))
        })
    }

    pub(super) fn server_json(
        &self,
        server_version: &str,
        instructions: Option<&str>,
    ) -> Result<ServerJson, PublishError> {
        check_name(&self.name)?;
        let description = self
            .description
            .as_deref()
            .or(instructions)
            .map(str::trim)
            .filter(|description| !description.is_empty())
            .ok_or(PublishError::MissingDescription)?;
        let chars = description.chars().count();
        if chars > MAX_DESCRIPTION {
            return Err(PublishError::DescriptionTooLong {
                chars,
                max: MAX_DESCRIPTION,
            });
        }
        let version = self.version.as_deref().unwrap_or(server_version);
        check_version(version)?;
        if self.crates.is_empty() && self.remotes.is_empty() {
            return Err(PublishError::NothingToRun);
        }
        let packages = self
            .crates
            .iter()
            .map(|package| {
                check_crate_name(&package.name)?;
                let version = package.version.as_deref().unwrap_or(version);
                check_version(version)?;
                Ok(Package {
                    registry_type: "cargo".to_string(),
                    registry_base_url: Some(CRATES_IO.to_string()),
                    identifier: package.name.clone(),
                    version: version.to_string(),
                    transport: Transport::Stdio,
                })
            })
            .collect::<Result<Vec<_>, PublishError>>()?;
        let remotes = self
            .remotes
            .iter()
            .map(|url| {
                check_url(url)?;
                Ok(Remote {
                    transport: "streamable-http".to_string(),
                    url: url.clone(),
                })
            })
            .collect::<Result<Vec<_>, PublishError>>()?;
        Ok(ServerJson {
            schema: SERVER_JSON_SCHEMA.to_string(),
            name: self.name.clone(),
            description: description.to_string(),
            title: self.title.clone(),
            version: version.to_string(),
            repository: self.repository.as_ref().map(|url| Repository {
                source: source_of(url),
                url: url.clone(),
                subfolder: self.subfolder.clone(),
            }),
            website_url: self.website_url.clone(),
            packages,
            remotes,
        })
    }
}

/// A byte that may continue a registry name (after the marker, one ends the name).
fn is_name_byte(byte: u8) -> bool {
    byte.is_ascii_alphanumeric() || matches!(byte, b'.' | b'-' | b'_' | b'/')
}

/// The registry's name rule: `^[a-zA-Z0-9.-]+/[a-zA-Z0-9._-]+$`, 3 to 200 characters.
fn check_name(name: &str) -> Result<(), PublishError> {
    let valid = (3..=200).contains(&name.len())
        && name.split_once('/').is_some_and(|(namespace, server)| {
            !namespace.is_empty()
                && !server.is_empty()
                && namespace
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'-'))
                && server
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'-' | b'_'))
        });
    if valid {
        Ok(())
    } else {
        Err(PublishError::InvalidName(name.to_string()))
    }
}

/// One exact version: not empty, not `latest`, not a range (`^1`, `~1`, `>=1`, `1.x`, `1.*`),
/// at most 255 characters.
fn check_version(version: &str) -> Result<(), PublishError> {
    let range = version.starts_with(['^', '~', '>', '<', '='])
        || version.contains(['*', ' ', ','])
        || version
            .split('.')
            .any(|part| part.eq_ignore_ascii_case("x"));
    if version.is_empty() || version.len() > 255 || version == "latest" || range {
        return Err(PublishError::InvalidVersion(version.to_string()));
    }
    Ok(())
}

/// crates.io's rule for a new crate's name.
fn check_crate_name(name: &str) -> Result<(), PublishError> {
    let valid = name.len() <= 64
        && name.starts_with(|c: char| c.is_ascii_alphabetic())
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_'));
    if valid {
        Ok(())
    } else {
        Err(PublishError::InvalidCrateName(name.to_string()))
    }
}

/// The schema's rule for a remote URL: `^https?://[^\s]+$`.
fn check_url(url: &str) -> Result<(), PublishError> {
    let rest = url
        .strip_prefix("https://")
        .or_else(|| url.strip_prefix("http://"));
    match rest {
        Some(rest) if !rest.is_empty() && !rest.contains(char::is_whitespace) => Ok(()),
        _ => Err(PublishError::InvalidRemoteUrl(url.to_string())),
    }
}

/// The repository's host, as the registry names it: `github` for `https://github.com/..`,
/// `gitlab` for `https://gitlab.com/..`, else the host's first label.
fn source_of(url: &str) -> String {
    let host = url
        .split_once("://")
        .map_or(url, |(_, rest)| rest)
        .split(['/', ':'])
        .next()
        .unwrap_or_default();
    let host = host.strip_prefix("www.").unwrap_or(host);
    host.split('.').next().unwrap_or(host).to_ascii_lowercase()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn info() -> PublishInfo {
        PublishInfo::new("io.github.alice/units").crate_package("units-mcp")
    }

    #[test]
    fn the_description_falls_back_to_the_instructions_and_is_bounded() {
        let json = info()
            .server_json("1.0.0", Some("Converts units."))
            .unwrap();
        assert_eq!(json.description, "Converts units.");
        assert_eq!(
            info().server_json("1.0.0", None),
            Err(PublishError::MissingDescription)
        );
        let long = "x".repeat(101);
        assert_eq!(
            info().description(long).server_json("1.0.0", None),
            Err(PublishError::DescriptionTooLong {
                chars: 101,
                max: 100
            })
        );
    }

    #[test]
    fn names_versions_urls_and_crates_the_registry_refuses_are_errors() {
        for name in [
            "units",
            "io.github.alice/",
            "/units",
            "io github/units",
            "a/b/c",
        ] {
            assert_eq!(
                PublishInfo::new(name)
                    .crate_package("units-mcp")
                    .server_json("1.0.0", Some("d")),
                Err(PublishError::InvalidName(name.to_string())),
                "{name}"
            );
        }
        for version in ["latest", "^1.2.0", "~1.2", ">=1.0", "1.x", "1.*", ""] {
            assert_eq!(
                info().server_json(version, Some("d")),
                Err(PublishError::InvalidVersion(version.to_string())),
                "{version}"
            );
        }
        assert_eq!(
            info()
                .remote("ftp://example.com")
                .server_json("1.0.0", Some("d")),
            Err(PublishError::InvalidRemoteUrl("ftp://example.com".into()))
        );
        assert_eq!(
            PublishInfo::new("io.github.alice/units")
                .crate_package("9units")
                .server_json("1.0.0", Some("d")),
            Err(PublishError::InvalidCrateName("9units".into()))
        );
        assert_eq!(
            PublishInfo::new("io.github.alice/units").server_json("1.0.0", Some("d")),
            Err(PublishError::NothingToRun)
        );
    }

    #[test]
    fn the_repository_host_names_its_source() {
        assert_eq!(source_of("https://github.com/alice/units"), "github");
        assert_eq!(source_of("https://gitlab.com/alice/units"), "gitlab");
        assert_eq!(source_of("https://www.github.com/alice/units"), "github");
    }

    #[test]
    fn the_readme_marker_must_end_where_the_name_ends() {
        let info = info();
        assert!(info.readme_declares_name("mcp-name: io.github.alice/units"));
        assert!(info.readme_declares_name("<p>mcp-name: io.github.alice/units</p>"));
        assert!(!info.readme_declares_name("mcp-name: io.github.alice/units_v2"));
        assert!(!info.readme_declares_name("mcp-name:io.github.alice/units"));
    }
}
