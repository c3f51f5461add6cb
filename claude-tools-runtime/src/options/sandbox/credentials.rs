//! The sandbox's credential protection ([`SandboxCredentials`], the `credentials` block of the
//! TypeScript SDK 0.3.332's `SandboxSettings`): credential files and environment variables
//! hidden from sandboxed commands (`deny`) or replaced by a sentinel that the sandbox's proxy
//! swaps for the real value on the way out (`mask`), and the AWS request-signing rules.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::strings;

/// What the sandbox does with a protected credential.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum CredentialMode {
    /// Sandboxed commands cannot read it (a file is unreadable, a variable unset).
    Deny,
    /// Sandboxed commands see a sentinel; the proxy puts the real value back on requests to
    /// the credential's hosts. On macOS and Windows a masked file is denied instead.
    Mask,
}

/// What happens when a masked credential's `extract` pattern (or `decode`) finds nothing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum OnExtractNoMatch {
    /// A warning on stderr; the credential is left as it is (the CLI's default).
    Warn,
    /// The credential is denied instead.
    Deny,
    /// The sandbox refuses to start until the configuration is fixed.
    Error,
}

/// One credential source the sandbox protects: a file (or directory) by its path
/// ([`file`](Self::file)), or an environment variable by its name
/// ([`env_var`](Self::env_var)).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ProtectedCredential {
    /// The file's path (absolute, `~`-expanded, or relative to the settings' root).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// The variable's name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Denied or masked.
    pub mode: CredentialMode,
    /// For a masked one: a regex whose first capture group in each match is a secret, so only
    /// those spans are masked and the rest still parses (a `.netrc`, a `DATABASE_URL`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extract: Option<String>,
    /// What happens when `extract` (or `decode`) finds nothing.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub on_extract_no_match: Option<OnExtractNoMatch>,
    /// For a masked one: the values are JSON Web Tokens, replaced by fake ones that still
    /// parse (`decode: "jwt"`).
    #[serde(
        rename = "decode",
        default,
        serialize_with = "jwt",
        deserialize_with = "is_jwt",
        skip_serializing_if = "std::ops::Not::not"
    )]
    pub decode_jwt: bool,
    /// With `decode_jwt`: only these top-level claims are masked, the token rebuilt around them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mask_claims: Option<Vec<String>>,
    /// For a masked file: verbatim copies of each secret elsewhere in the file are masked too
    /// (for long, high-entropy secrets only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mask_duplicates: Option<bool>,
    /// For a masked one: the hosts the proxy puts the real value back for (every host of
    /// `network.allowedDomains` without it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub inject_hosts: Option<Vec<String>>,
    /// Keys this type does not name, sent as given.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

fn jwt<S: serde::Serializer>(_: &bool, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.serialize_str("jwt")
}

/// `decode` read back: `"jwt"` is the one decoding the CLI knows; another value is refused
/// rather than read as no decoding (which would leave a token unmasked).
fn is_jwt<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<bool, D::Error> {
    let decode = String::deserialize(deserializer)?;
    if decode == "jwt" {
        Ok(true)
    } else {
        Err(serde::de::Error::custom(format!(
            "unknown `decode` {decode:?} (the CLI knows \"jwt\")"
        )))
    }
}

impl ProtectedCredential {
    /// The file (or directory) at `path`: absolute, `~`-expanded, or relative to the root of
    /// the settings it is in.
    pub fn file(path: impl Into<String>, mode: CredentialMode) -> Self {
        Self::new(Some(path.into()), None, mode)
    }

    /// The environment variable `name`.
    pub fn env_var(name: impl Into<String>, mode: CredentialMode) -> Self {
        Self::new(None, Some(name.into()), mode)
    }

    fn new(path: Option<String>, name: Option<String>, mode: CredentialMode) -> Self {
        Self {
            path,
            name,
            mode,
            extract: None,
            on_extract_no_match: None,
            decode_jwt: false,
            mask_claims: None,
            mask_duplicates: None,
            inject_hosts: None,
            extra: Map::new(),
        }
    }

    /// Sets [`extract`](Self::extract).
    pub fn extract(mut self, regex: impl Into<String>) -> Self {
        self.extract = Some(regex.into());
        self
    }

    /// Sets [`on_extract_no_match`](Self::on_extract_no_match).
    pub fn on_extract_no_match(mut self, action: OnExtractNoMatch) -> Self {
        self.on_extract_no_match = Some(action);
        self
    }

    /// Sets [`decode_jwt`](Self::decode_jwt).
    pub fn decode_jwt(mut self) -> Self {
        self.decode_jwt = true;
        self
    }

    /// Sets [`mask_claims`](Self::mask_claims).
    pub fn mask_claims<I, S>(mut self, claims: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.mask_claims = strings(claims);
        self
    }

    /// Sets [`mask_duplicates`](Self::mask_duplicates).
    pub fn mask_duplicates(mut self, on: bool) -> Self {
        self.mask_duplicates = Some(on);
        self
    }

    /// Sets [`inject_hosts`](Self::inject_hosts).
    pub fn inject_hosts<I, S>(mut self, hosts: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.inject_hosts = strings(hosts);
        self
    }
}

/// Masked environment variables that make an AWS credential pair, for the proxy to re-sign
/// SigV4 requests with the real keys (the standard `AWS_ACCESS_KEY_ID` /
/// `AWS_SECRET_ACCESS_KEY` / `AWS_SESSION_TOKEN` are paired without it).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct AwsCredentialPair {
    /// The variable holding the access key id.
    pub access_key_id_var: String,
    /// The variable holding the secret access key.
    pub secret_access_key_var: String,
    /// The variable holding the session token, for temporary credentials.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_token_var: Option<String>,
}

impl AwsCredentialPair {
    /// The pair of these two variables.
    pub fn new(
        access_key_id_var: impl Into<String>,
        secret_access_key_var: impl Into<String>,
    ) -> Self {
        Self {
            access_key_id_var: access_key_id_var.into(),
            secret_access_key_var: secret_access_key_var.into(),
            session_token_var: None,
        }
    }

    /// With this session-token variable.
    pub fn session_token_var(mut self, name: impl Into<String>) -> Self {
        self.session_token_var = Some(name.into());
        self
    }
}

/// What the proxy does with an AWS request it cannot re-sign.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum SigV4Policy {
    /// Refused with a 403 (the default).
    Deny,
    /// Forwarded unsigned (the upstream will refuse its signature).
    Passthrough,
}

/// The policies for AWS SigV4 requests the proxy cannot re-sign
/// ([`SandboxCredentials::sigv4`]).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct SigV4Policies {
    /// `aws-chunked` streaming uploads.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub streaming: Option<SigV4Policy>,
    /// Presigned URLs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub presigned: Option<SigV4Policy>,
    /// SigV4A (asymmetric) signatures.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sigv4a: Option<SigV4Policy>,
}

/// The credentials the sandbox protects ([`SandboxSettings::credentials`](super::SandboxSettings::credentials)).
///
/// ```
/// use claude_tools::options::{
///     CredentialMode, ProtectedCredential, SandboxCredentials, SandboxSettings,
/// };
///
/// let sandbox = SandboxSettings::new().enabled(true).credentials(
///     SandboxCredentials::new()
///         .file(ProtectedCredential::file("~/.aws/credentials", CredentialMode::Deny))
///         .env_var(
///             ProtectedCredential::env_var("GITHUB_TOKEN", CredentialMode::Mask)
///                 .inject_hosts(["api.github.com"]),
///         ),
/// );
/// let wire = serde_json::to_value(&sandbox).unwrap();
/// assert_eq!(wire["credentials"]["files"][0]["mode"], "deny");
/// assert_eq!(wire["credentials"]["envVars"][0]["injectHosts"][0], "api.github.com");
/// ```
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct SandboxCredentials {
    /// Credential files or directories.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub files: Vec<ProtectedCredential>,
    /// Credential environment variables.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub env_vars: Vec<ProtectedCredential>,
    /// Whether the proxy puts real values back on plain-HTTP requests too (unverified and in
    /// clear text: for trusted test networks only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub allow_plaintext_inject: Option<bool>,
    /// Masked AWS variables paired for re-signing.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub aws_pairs: Vec<AwsCredentialPair>,
    /// What happens to AWS requests the proxy cannot re-sign.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sigv4: Option<SigV4Policies>,
    /// Keys this type does not name, sent as given.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl SandboxCredentials {
    /// No credential protected.
    pub fn new() -> Self {
        Self::default()
    }

    /// Protects a file (or directory): [`ProtectedCredential::file`].
    pub fn file(mut self, file: ProtectedCredential) -> Self {
        self.files.push(file);
        self
    }

    /// Protects an environment variable: [`ProtectedCredential::env_var`].
    pub fn env_var(mut self, var: ProtectedCredential) -> Self {
        self.env_vars.push(var);
        self
    }

    /// Sets [`allow_plaintext_inject`](Self::allow_plaintext_inject).
    pub fn allow_plaintext_inject(mut self, on: bool) -> Self {
        self.allow_plaintext_inject = Some(on);
        self
    }

    /// Adds an AWS pair.
    pub fn aws_pair(mut self, pair: AwsCredentialPair) -> Self {
        self.aws_pairs.push(pair);
        self
    }

    /// Sets [`sigv4`](Self::sigv4).
    pub fn sigv4(mut self, policies: SigV4Policies) -> Self {
        self.sigv4 = Some(policies);
        self
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn every_credential_field_has_the_typescript_sdks_name() {
        let credentials = SandboxCredentials::new()
            .file(ProtectedCredential::file("~/.netrc", CredentialMode::Deny))
            .file(
                ProtectedCredential::file("~/.config/gh/hosts.yml", CredentialMode::Mask)
                    .extract("oauth_token: (\\S+)")
                    .on_extract_no_match(OnExtractNoMatch::Error)
                    .decode_jwt()
                    .mask_claims(["sub"])
                    .mask_duplicates(true)
                    .inject_hosts(["api.github.com"]),
            )
            .env_var(ProtectedCredential::env_var(
                "NPM_TOKEN",
                CredentialMode::Deny,
            ))
            .env_var(
                ProtectedCredential::env_var("DATABASE_URL", CredentialMode::Mask)
                    .extract("://[^:]+:([^@]+)@")
                    .on_extract_no_match(OnExtractNoMatch::Warn),
            )
            .allow_plaintext_inject(false)
            .aws_pair(
                AwsCredentialPair::new("MY_KEY_ID", "MY_SECRET").session_token_var("MY_TOKEN"),
            )
            .sigv4(SigV4Policies {
                streaming: Some(SigV4Policy::Deny),
                presigned: Some(SigV4Policy::Passthrough),
                sigv4a: None,
            });
        assert_eq!(
            serde_json::to_value(&credentials).unwrap(),
            json!({
                "files": [
                    {"path": "~/.netrc", "mode": "deny"},
                    {"path": "~/.config/gh/hosts.yml", "mode": "mask", "extract": "oauth_token: (\\S+)",
                        "onExtractNoMatch": "error", "decode": "jwt", "maskClaims": ["sub"],
                        "maskDuplicates": true, "injectHosts": ["api.github.com"]},
                ],
                "envVars": [
                    {"name": "NPM_TOKEN", "mode": "deny"},
                    {"name": "DATABASE_URL", "mode": "mask", "extract": "://[^:]+:([^@]+)@",
                        "onExtractNoMatch": "warn"},
                ],
                "allowPlaintextInject": false,
                "awsPairs": [{"accessKeyIdVar": "MY_KEY_ID", "secretAccessKeyVar": "MY_SECRET",
                    "sessionTokenVar": "MY_TOKEN"}],
                "sigv4": {"streaming": "deny", "presigned": "passthrough"},
            })
        );
        assert_eq!(
            serde_json::to_value(SandboxCredentials::new()).unwrap(),
            json!({})
        );
    }
}
