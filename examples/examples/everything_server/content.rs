//! Tools that return each kind of content the suite checks (`tools-call-*`), fail on purpose,
//! report progress, or log.

use std::time::Duration;

use claude_tools::prelude::*;
use claude_tools::resources::ResourceContents;

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

/// An embedded text resource as a content block (of a tool result or a prompt message).
pub fn embedded_text(
    uri: impl Into<String>,
    mime_type: &'static str,
    text: impl Into<String>,
) -> Content {
    Content::resource(ResourceContents::text(uri, text, Some(mime_type)))
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
    vec![Content::Audio(Audio::from_base64(
        SILENT_WAV_BASE64,
        "audio/wav",
    ))]
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

/// Runs in three steps, 50 ms apart, and logs each at `info` to the client ("Tool execution
/// started", "Tool processing data", "Tool execution completed"): `notifications/message` on
/// the call's own stream, at or above the level the client set.
#[tool(server = Everything, read_only)]
async fn test_tool_with_logging(context: ToolContext) -> &'static str {
    context.log_info("Tool execution started");
    tokio::time::sleep(STEP).await;
    context.log_info("Tool processing data");
    tokio::time::sleep(STEP).await;
    context.log_info("Tool execution completed");
    "Tool with logging executed."
}

/// Logs to the client, which at 2026-07-28 receives the messages only when its request asks
/// for them: a request whose `_meta` has no `io.modelcontextprotocol/logLevel` gets no
/// `notifications/message` (`server-stateless`, check `sep-2575-server-no-log-without-loglevel`).
#[tool(server = Everything, read_only)]
async fn test_logging_tool(context: ToolContext) -> &'static str {
    context.log_info("Logging tool ran");
    "Logging tool executed."
}
