//! What a tool returns: MCP content, and the [`IntoToolResult`] conversions from Rust values.

use serde::Serialize;
use serde_json::{Map, Value};

use crate::resource::ResourceContents;

mod into;

pub use into::IntoToolResult;

/// One MCP content block of a tool result.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Content {
    /// `{"type":"text","text":…}`
    Text(String),
    /// `{"type":"image","data":<base64>,"mimeType":…}`
    Image(Image),
    /// `{"type":"audio","data":<base64>,"mimeType":…}`
    Audio(Audio),
    /// An embedded resource: `{"type":"resource","resource":{"uri":…,"mimeType"?:…,"text":…}}`,
    /// or with a base64 `"blob"` in place of `"text"`.
    Resource(ResourceContents),
    /// Any other MCP content block (`resource_link`, a block with `annotations`…), passed
    /// through verbatim.
    Raw(Value),
}

impl Content {
    /// A text block.
    pub fn text(text: impl Into<String>) -> Self {
        Content::Text(text.into())
    }

    /// An image block from raw bytes (encoded to base64 here).
    pub fn image(bytes: impl AsRef<[u8]>, mime_type: impl Into<String>) -> Self {
        Content::Image(Image::from_bytes(bytes, mime_type))
    }

    /// An audio block from raw bytes (encoded to base64 here).
    ///
    /// ```
    /// use claude_tools::tools::Content;
    ///
    /// assert_eq!(
    ///     Content::audio(b"RIFF", "audio/wav").to_json(),
    ///     serde_json::json!({"type": "audio", "data": "UklGRg==", "mimeType": "audio/wav"})
    /// );
    /// ```
    pub fn audio(bytes: impl AsRef<[u8]>, mime_type: impl Into<String>) -> Self {
        Content::Audio(Audio::from_bytes(bytes, mime_type))
    }

    /// An embedded resource: the contents of the resource at a URI, sent inside the result (a
    /// tool's or a prompt's) rather than read with `resources/read`.
    ///
    /// ```
    /// use claude_tools::resources::ResourceContents;
    /// use claude_tools::tools::Content;
    ///
    /// let readme = ResourceContents::text("file:///README.md", "# Hello", Some("text/markdown"));
    /// assert_eq!(
    ///     Content::resource(readme).to_json(),
    ///     serde_json::json!({
    ///         "type": "resource",
    ///         "resource": {"uri": "file:///README.md", "mimeType": "text/markdown", "text": "# Hello"}
    ///     })
    /// );
    /// ```
    pub fn resource(contents: ResourceContents) -> Self {
        Content::Resource(contents)
    }

    /// The MCP JSON of this block (its `Serialize` form).
    pub fn to_json(&self) -> Value {
        // Serialising strings and `Value`s into a `Value` cannot fail.
        serde_json::to_value(self).unwrap_or(Value::Null)
    }
}

/// An image result: base64 data and a MIME type.
///
/// ```
/// use claude_tools::tools::Image;
///
/// let image = Image::from_bytes(b"\x89PNG", "image/png");
/// assert_eq!(image.data(), "iVBORw==");
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Image {
    data: String,
    mime_type: String,
}

impl Image {
    /// An image from raw bytes (encoded to base64 here).
    pub fn from_bytes(bytes: impl AsRef<[u8]>, mime_type: impl Into<String>) -> Self {
        Self {
            data: base64_encode(bytes.as_ref()),
            mime_type: mime_type.into(),
        }
    }

    /// An image from data that is already base64.
    pub fn from_base64(data: impl Into<String>, mime_type: impl Into<String>) -> Self {
        Self {
            data: data.into(),
            mime_type: mime_type.into(),
        }
    }

    /// A PNG image from raw bytes.
    pub fn png(bytes: impl AsRef<[u8]>) -> Self {
        Self::from_bytes(bytes, "image/png")
    }

    /// The base64 data.
    pub fn data(&self) -> &str {
        &self.data
    }

    /// The MIME type.
    pub fn mime_type(&self) -> &str {
        &self.mime_type
    }
}

/// An audio result: base64 data and a MIME type (`audio/wav`, `audio/mpeg`…).
///
/// ```
/// use claude_tools::tools::Audio;
///
/// let audio = Audio::from_bytes(b"RIFF", "audio/wav");
/// assert_eq!((audio.data(), audio.mime_type()), ("UklGRg==", "audio/wav"));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Audio {
    data: String,
    mime_type: String,
}

impl Audio {
    /// Audio from raw bytes (encoded to base64 here).
    pub fn from_bytes(bytes: impl AsRef<[u8]>, mime_type: impl Into<String>) -> Self {
        Self {
            data: base64_encode(bytes.as_ref()),
            mime_type: mime_type.into(),
        }
    }

    /// Audio from data that is already base64.
    pub fn from_base64(data: impl Into<String>, mime_type: impl Into<String>) -> Self {
        Self {
            data: data.into(),
            mime_type: mime_type.into(),
        }
    }

    /// WAV audio from raw bytes.
    pub fn wav(bytes: impl AsRef<[u8]>) -> Self {
        Self::from_bytes(bytes, "audio/wav")
    }

    /// The base64 data.
    pub fn data(&self) -> &str {
        &self.data
    }

    /// The MIME type.
    pub fn mime_type(&self) -> &str {
        &self.mime_type
    }
}

pub(crate) fn base64_encode(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(char::from(ALPHABET[(n >> (18 - 6 * i)) as usize & 63]));
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// The result of one tool call, as MCP's `CallToolResult`.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ToolResult {
    /// The content blocks the model reads.
    pub content: Vec<Content>,
    /// Structured content (for tools with an output schema).
    pub structured_content: Option<Value>,
    /// Whether this result reports a failure to the model.
    pub is_error: bool,
    /// The result's own `_meta` (MCP's `CallToolResult._meta`): entries for the client, not
    /// the model; written when present and not empty ([`with_meta`](Self::with_meta)). Boxed:
    /// few results have one, and every call moves its result.
    pub meta: Option<Box<Map<String, Value>>>,
}

impl ToolResult {
    /// A successful result with one text block.
    pub fn text(text: impl Into<String>) -> Self {
        Self {
            content: vec![Content::text(text)],
            ..Self::default()
        }
    }

    /// An `isError` result with one text block: the model reads `message`.
    pub fn error(message: impl Into<String>) -> Self {
        Self {
            content: vec![Content::text(message)],
            is_error: true,
            ..Self::default()
        }
    }

    /// The same result with the `_meta` entry `key` set to `value` (a client reads it; the
    /// model does not).
    ///
    /// ```
    /// use claude_tools::tools::ToolResult;
    ///
    /// let result = ToolResult::text("3 rows").with_meta("example.com/queryMs", 12);
    /// assert_eq!(
    ///     result.to_json(),
    ///     serde_json::json!({
    ///         "content": [{"type": "text", "text": "3 rows"}],
    ///         "isError": false,
    ///         "_meta": {"example.com/queryMs": 12}
    ///     })
    /// );
    /// ```
    pub fn with_meta(mut self, key: impl Into<String>, value: impl Into<Value>) -> Self {
        self.meta
            .get_or_insert_default()
            .insert(key.into(), value.into());
        self
    }

    /// The `_meta` that goes on the wire: none for an absent or empty one.
    pub(crate) fn written_meta(&self) -> Option<&Map<String, Value>> {
        self.meta.as_deref().filter(|meta| !meta.is_empty())
    }

    /// The text of all text blocks, joined by newlines (handy in tests).
    pub fn text_content(&self) -> String {
        let texts: Vec<&str> = self
            .content
            .iter()
            .filter_map(|c| match c {
                Content::Text(t) => Some(t.as_str()),
                _ => None,
            })
            .collect();
        texts.join("\n")
    }

    /// The MCP JSON of this result (its `Serialize` form, which the session writes directly).
    pub fn to_json(&self) -> Value {
        // Serialising strings and `Value`s into a `Value` cannot fail.
        serde_json::to_value(self).unwrap_or(Value::Null)
    }
}

/// A structured result: `T` is sent as `structuredContent`, mirrored as JSON text for clients
/// that read only text, and its schema is advertised as the tool's `outputSchema`.
///
/// `T` must serialize to a JSON object (a struct or a map), as MCP requires of structured content.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Json<T>(pub T);

impl Serialize for Content {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        match self {
            Content::Text(text) => {
                let mut block = serializer.serialize_map(Some(2))?;
                block.serialize_entry("type", "text")?;
                block.serialize_entry("text", text)?;
                block.end()
            }
            Content::Image(image) => {
                let mut block = serializer.serialize_map(Some(3))?;
                block.serialize_entry("type", "image")?;
                block.serialize_entry("data", &image.data)?;
                block.serialize_entry("mimeType", &image.mime_type)?;
                block.end()
            }
            Content::Audio(audio) => {
                let mut block = serializer.serialize_map(Some(3))?;
                block.serialize_entry("type", "audio")?;
                block.serialize_entry("data", &audio.data)?;
                block.serialize_entry("mimeType", &audio.mime_type)?;
                block.end()
            }
            Content::Resource(contents) => {
                let mut block = serializer.serialize_map(Some(2))?;
                block.serialize_entry("type", "resource")?;
                block.serialize_entry("resource", contents)?;
                block.end()
            }
            Content::Raw(value) => value.serialize(serializer),
        }
    }
}

impl ToolResult {
    /// Appends the bytes [`Serialize`] writes, with the fixed parts (the keys, a text block's
    /// frame) copied rather than serialised: the answer to every call is written with this
    /// ([`Response::write_to`](crate::jsonrpc::Response::write_to)).
    pub(crate) fn write_json(&self, out: &mut Vec<u8>) -> serde_json::Result<()> {
        out.extend_from_slice(br#"{"content":["#);
        for (i, block) in self.content.iter().enumerate() {
            if i > 0 {
                out.push(b',');
            }
            match block {
                Content::Text(text) => {
                    out.extend_from_slice(br#"{"type":"text","text":"#);
                    serde_json::to_writer(&mut *out, text)?;
                    out.push(b'}');
                }
                other => serde_json::to_writer(&mut *out, other)?,
            }
        }
        out.push(b']');
        if let Some(structured) = &self.structured_content {
            out.extend_from_slice(br#","structuredContent":"#);
            serde_json::to_writer(&mut *out, structured)?;
        }
        out.extend_from_slice(if self.is_error {
            br#","isError":true"#
        } else {
            br#","isError":false"#
        });
        if let Some(meta) = self.written_meta() {
            out.extend_from_slice(br#","_meta":"#);
            serde_json::to_writer(&mut *out, meta)?;
        }
        out.push(b'}');
        Ok(())
    }
}

/// Serialises as MCP's `CallToolResult`, the same JSON as [`ToolResult::to_json`].
impl Serialize for ToolResult {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut result = serializer.serialize_map(None)?;
        result.serialize_entry("content", &self.content)?;
        if let Some(structured) = &self.structured_content {
            result.serialize_entry("structuredContent", structured)?;
        }
        result.serialize_entry("isError", &self.is_error)?;
        if let Some(meta) = self.written_meta() {
            result.serialize_entry("_meta", meta)?;
        }
        result.end()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn base64_matches_rfc4648_vectors() {
        let cases = [
            ("", ""),
            ("f", "Zg=="),
            ("fo", "Zm8="),
            ("foo", "Zm9v"),
            ("foob", "Zm9vYg=="),
            ("fooba", "Zm9vYmE="),
            ("foobar", "Zm9vYmFy"),
        ];
        for (input, expected) in cases {
            assert_eq!(base64_encode(input.as_bytes()), expected, "input {input:?}");
        }
    }

    /// `write_json` copies a text block's frame instead of serialising it: its bytes must be
    /// exactly the `Serialize` form's, for every kind of block.
    #[test]
    fn write_json_writes_the_bytes_of_serialize() {
        let result = ToolResult {
            content: vec![
                Content::text("a \"quoted\"\n\u{1} é"),
                Content::image(b"\x89PNG", "image/png"),
                Content::audio(b"RIFF", "audio/wav"),
                Content::Audio(Audio::from_base64("AA==", "audio/\"odd\"")),
                Content::resource(ResourceContents::text("test://t", "hi \"x\"", None)),
                Content::resource(ResourceContents::text(
                    "test://m",
                    "# m",
                    Some("text/markdown"),
                )),
                Content::resource(ResourceContents::blob("test://b", [0u8, 255], Some("x/y"))),
                Content::Raw(json!({"type": "resource_link", "uri": "x:/y", "name": "y"})),
            ],
            structured_content: Some(json!({"n": 1})),
            is_error: true,
            meta: Some(Box::new(Map::from_iter([(
                "k".to_owned(),
                json!({"nested": ["v\"", 1]}),
            )]))),
        };
        let mut written = Vec::new();
        result.write_json(&mut written).unwrap();
        assert_eq!(
            String::from_utf8(written).unwrap(),
            serde_json::to_string(&result).unwrap()
        );
    }

    #[test]
    fn audio_and_embedded_resources_are_the_spec_blocks() {
        assert_eq!(
            Audio::wav(b"RIFF").into_tool_result().to_json(),
            json!({"content": [{"type": "audio", "data": "UklGRg==", "mimeType": "audio/wav"}], "isError": false})
        );
        assert_eq!(
            ResourceContents::text(
                "test://embedded-resource",
                "This is an embedded resource content.",
                Some("text/plain")
            )
            .into_tool_result()
            .to_json(),
            json!({"content": [{"type": "resource", "resource": {
                "uri": "test://embedded-resource",
                "mimeType": "text/plain",
                "text": "This is an embedded resource content."
            }}], "isError": false})
        );
        assert_eq!(
            Content::resource(ResourceContents::blob("test://b", b"hi", None)).to_json(),
            json!({"type": "resource", "resource": {"uri": "test://b", "blob": "aGk="}})
        );
    }

    #[test]
    fn a_result_carries_its_meta_only_when_given() {
        let plain = ToolResult::text("ok");
        assert_eq!(plain.to_json().get("_meta"), None);
        let emptied = ToolResult {
            meta: Some(Box::default()),
            ..ToolResult::text("ok")
        };
        assert_eq!(emptied.to_json(), plain.to_json());
        let tagged = ToolResult::error("late")
            .with_meta("example.com/retryAfterMs", 500)
            .with_meta("example.com/source", "cache");
        assert_eq!(
            tagged.to_json(),
            json!({"content": [{"type": "text", "text": "late"}], "isError": true,
                "_meta": {"example.com/retryAfterMs": 500, "example.com/source": "cache"}})
        );
        let mut written = Vec::new();
        tagged.write_json(&mut written).unwrap();
        assert_eq!(
            serde_json::from_slice::<Value>(&written).unwrap(),
            tagged.to_json()
        );
    }

    #[test]
    fn results_serialize_to_mcp_json() {
        assert_eq!(
            42u8.into_tool_result().to_json(),
            json!({"content": [{"type": "text", "text": "42"}], "isError": false})
        );
        assert_eq!(
            ().into_tool_result().to_json(),
            json!({"content": [], "isError": false})
        );
        let failed: Result<String, &str> = Err("disk on fire");
        assert_eq!(
            failed.into_tool_result().to_json(),
            json!({"content": [{"type": "text", "text": "disk on fire"}], "isError": true})
        );
        assert_eq!(
            Image::from_base64("AAAA", "image/png")
                .into_tool_result()
                .to_json(),
            json!({"content": [{"type": "image", "data": "AAAA", "mimeType": "image/png"}], "isError": false})
        );
    }
}
