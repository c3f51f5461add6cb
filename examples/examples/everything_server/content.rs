//! Tools that return each kind of content the suite checks (`tools-call-*`), fail on purpose,
//! report progress, or log.

use std::time::Duration;

use claude_tools::prelude::*;
use serde::Serialize;

use crate::Everything;

/// A 1×1 red PNG: the image of `test_image_content`, `test_multiple_content_types`,
/// `test_prompt_with_image` and the `test://static-binary` resource.
pub const RED_PIXEL_PNG: &[u8] = b"\x89PNG\r\n\x1a\n\
    \x00\x00\x00\x0dIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x02\x00\x00\x00\x90\x77\x53\xde\
    \x00\x00\x00\x0cIDAT\x78\x9c\x63\xf8\xcf\xc0\x00\x00\x03\x01\x01\x00\xc9\xfe\x92\xef\
    \x00\x00\x00\x00IEND\xae\x42\x60\x82";

/// A WAV file, base64: 8 samples of silence, 8 kHz, mono, 8-bit (the suite asks for "a
/// minimal test audio file" of type `audio/wav`).
const SILENT_WAV_BASE64: &str =
    "UklGRiwAAABXQVZFZm10IBAAAAABAAEAQB8AAEAfAAABAAgAZGF0YQgAAACAgICAgICAgA==";

/// How long the progress and logging tools wait between two steps (the suite asks for ~50 ms,
/// so that a client sees the notifications arrive during the call).
const STEP: Duration = Duration::from_millis(50);

/// A content block that `Content` has no typed variant for yet: sent through
/// [`Content::Raw`], the documented way to return any other MCP block.
#[derive(Serialize)]
#[serde(tag = "type", rename_all = "lowercase")]
enum OtherContent {
    /// `{"type":"audio","data":<base64>,"mimeType":…}`
    Audio {
        data: &'static str,
        #[serde(rename = "mimeType")]
        mime_type: &'static str,
    },
    /// `{"type":"resource","resource":{"uri":…,"mimeType":…,"text":…}}`
    Resource { resource: EmbeddedText },
}

/// The text contents of an embedded resource.
#[derive(Serialize)]
pub struct EmbeddedText {
    uri: String,
    #[serde(rename = "mimeType")]
    mime_type: &'static str,
    text: String,
}

impl OtherContent {
    fn into_content(self) -> Content {
        // Serialising these structs of strings cannot fail.
        Content::Raw(serde_json::to_value(self).unwrap_or_default())
    }
}

/// An embedded text resource as a content block (of a tool result or a prompt message).
pub fn embedded_text(
    uri: impl Into<String>,
    mime_type: &'static str,
    text: impl Into<String>,
) -> Content {
    OtherContent::Resource {
        resource: EmbeddedText {
            uri: uri.into(),
            mime_type,
            text: text.into(),
        },
    }
    .into_content()
}

/// Returns a simple text.
#[tool(server = Everything, read_only)]
async fn test_simple_text() -> &'static str {
    "This is a simple text response for testing."
}

/// Returns a 1×1 red PNG image.
#[tool(server = Everything, read_only)]
async fn test_image_content() -> Image {
    Image::png(RED_PIXEL_PNG)
}

/// Returns a short silent WAV clip as audio content.
#[tool(server = Everything, read_only)]
async fn test_audio_content() -> Vec<Content> {
    vec![
        OtherContent::Audio {
            data: SILENT_WAV_BASE64,
            mime_type: "audio/wav",
        }
        .into_content(),
    ]
}

/// Returns an embedded text resource.
#[tool(server = Everything, read_only)]
async fn test_embedded_resource() -> Vec<Content> {
    vec![embedded_text(
        "test://embedded-resource",
        "text/plain",
        "This is an embedded resource content.",
    )]
}

/// Returns text, an image and an embedded resource in one result.
#[tool(server = Everything, read_only)]
async fn test_multiple_content_types() -> Vec<Content> {
    vec![
        Content::text("Multiple content types test:"),
        Content::Image(Image::png(RED_PIXEL_PNG)),
        embedded_text(
            "test://mixed-content-resource",
            "application/json",
            r#"{"test":"data","value":123}"#,
        ),
    ]
}

/// Always fails, with an `isError` result the model reads.
#[tool(server = Everything, read_only)]
async fn test_error_handling() -> Result<String, ToolError> {
    Err(ToolError::new(
        "This tool intentionally returns an error for testing",
    ))
}

/// Reports progress 0/100, 50/100 and 100/100, 50 ms apart.
#[tool(server = Everything, read_only)]
async fn test_tool_with_progress(context: ToolContext) -> &'static str {
    for (step, progress) in [0.0, 50.0, 100.0].into_iter().enumerate() {
        if step > 0 {
            tokio::time::sleep(STEP).await;
        }
        context.report_progress(progress, Some(100.0), None);
    }
    "Progress reported: 0, 50 and 100 of 100."
}

/// Runs in three steps, 50 ms apart, meant to log each at `info` to the client
/// ("Tool execution started", "Tool processing data", "Tool execution completed").
///
/// The logging itself is missing: claude-tools has no way yet for a tool to send
/// `notifications/message` (nor the `logging` capability and `logging/setLevel`), so the
/// 2025-11-25 scenario `tools-call-with-logging` fails on the log count until it does.
#[tool(server = Everything, read_only)]
async fn test_tool_with_logging() -> &'static str {
    tokio::time::sleep(STEP).await;
    tokio::time::sleep(STEP).await;
    "Tool with logging executed."
}

/// Meant to log to the client only when the request asks for logs: at 2026-07-28 a request
/// whose `_meta` has no `io.modelcontextprotocol/logLevel` must get no `notifications/message`
/// (`server-stateless`, check `sep-2575-server-no-log-without-loglevel`). Like
/// [`test_tool_with_logging`], its logging waits for a logging API.
#[tool(server = Everything, read_only)]
async fn test_logging_tool() -> &'static str {
    "Logging tool executed."
}
