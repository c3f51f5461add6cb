//! What a resource reads as: [`ResourceContents`] (text or base64 blob), and the
//! [`IntoResourceContents`] conversions from what a resource fn returns.

use serde::Serialize;

use super::ResourceError;

/// The contents of a resource at one URI: text, or binary data sent as base64.
///
/// ```
/// use claude_tools::resources::ResourceContents;
///
/// let blob = ResourceContents::blob("units://logo", b"\x89PNG", Some("image/png"));
/// assert_eq!(
///     serde_json::to_value(&blob).unwrap(),
///     serde_json::json!({"uri": "units://logo", "mimeType": "image/png", "blob": "iVBORw=="})
/// );
/// ```
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum ResourceContents {
    /// Text.
    Text {
        /// The resource's URI.
        uri: String,
        /// Its MIME type, when known.
        #[serde(rename = "mimeType", skip_serializing_if = "Option::is_none")]
        mime_type: Option<String>,
        /// The text.
        text: String,
    },
    /// Binary data, base64-encoded.
    Blob {
        /// The resource's URI.
        uri: String,
        /// Its MIME type, when known.
        #[serde(rename = "mimeType", skip_serializing_if = "Option::is_none")]
        mime_type: Option<String>,
        /// The data, in base64.
        blob: String,
    },
}

impl ResourceContents {
    /// Text contents.
    pub fn text(uri: impl Into<String>, text: impl Into<String>, mime_type: Option<&str>) -> Self {
        ResourceContents::Text {
            uri: uri.into(),
            mime_type: mime_type.map(String::from),
            text: text.into(),
        }
    }

    /// Binary contents (encoded to base64 here).
    pub fn blob(uri: impl Into<String>, bytes: impl AsRef<[u8]>, mime_type: Option<&str>) -> Self {
        ResourceContents::Blob {
            uri: uri.into(),
            mime_type: mime_type.map(String::from),
            blob: crate::tool::base64_encode(bytes.as_ref()),
        }
    }
}

/// Binary data a resource fn returns: sent base64-encoded, as a `blob`, with the resource's
/// MIME type.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Blob(pub Vec<u8>);

/// The result of `resources/read`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ReadResourceResult {
    /// The contents (one, or several for a resource made of parts).
    pub contents: Vec<ResourceContents>,
}

/// What a resource fn may return: a `String` (text), a [`Blob`] (binary), a
/// [`ResourceContents`] or a `Vec` of them, or a `Result` of one of these whose error converts
/// into a [`ResourceError`]. Text and blobs take the URI read and the resource's MIME type.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be the contents of a resource",
    label = "a resource returns its contents",
    note = "return a String (text), a Blob (binary), a ResourceContents, a Vec<ResourceContents>, or a Result of one of these with an error that converts into ResourceError"
)]
pub trait IntoResourceContents {
    /// The contents of the resource read at `uri`, whose MIME type is `mime_type`.
    fn into_contents(
        self,
        uri: &str,
        mime_type: Option<&str>,
    ) -> Result<Vec<ResourceContents>, ResourceError>;
}

impl IntoResourceContents for String {
    fn into_contents(
        self,
        uri: &str,
        mime_type: Option<&str>,
    ) -> Result<Vec<ResourceContents>, ResourceError> {
        Ok(vec![ResourceContents::text(uri, self, mime_type)])
    }
}

impl IntoResourceContents for &'static str {
    fn into_contents(
        self,
        uri: &str,
        mime_type: Option<&str>,
    ) -> Result<Vec<ResourceContents>, ResourceError> {
        self.to_string().into_contents(uri, mime_type)
    }
}

impl IntoResourceContents for Blob {
    fn into_contents(
        self,
        uri: &str,
        mime_type: Option<&str>,
    ) -> Result<Vec<ResourceContents>, ResourceError> {
        Ok(vec![ResourceContents::blob(uri, self.0, mime_type)])
    }
}

impl IntoResourceContents for ResourceContents {
    fn into_contents(
        self,
        _uri: &str,
        _mime_type: Option<&str>,
    ) -> Result<Vec<ResourceContents>, ResourceError> {
        Ok(vec![self])
    }
}

impl IntoResourceContents for Vec<ResourceContents> {
    fn into_contents(
        self,
        _uri: &str,
        _mime_type: Option<&str>,
    ) -> Result<Vec<ResourceContents>, ResourceError> {
        Ok(self)
    }
}

impl<T: IntoResourceContents, E: Into<ResourceError>> IntoResourceContents for Result<T, E> {
    fn into_contents(
        self,
        uri: &str,
        mime_type: Option<&str>,
    ) -> Result<Vec<ResourceContents>, ResourceError> {
        self.map_err(Into::into)?.into_contents(uri, mime_type)
    }
}
