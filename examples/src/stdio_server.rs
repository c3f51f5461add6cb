//! The standalone stdio MCP server example: a `#[tool_server]` served to any MCP client on
//! stdin/stdout with [`claude_tools::ServeExt::serve_stdio`].
//!
//! Three tools show the three kinds of answer a client sees: a text result or an `isError`
//! result ([`to_fahrenheit`]), a structured result with an output schema ([`word_stats`]), and a
//! long call that reports progress and stops when the client cancels it ([`count_to`]).
//!
//! ```
//! use claude_tools::prelude::*;
//! use claude_tools_examples::stdio_server::Units;
//!
//! # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
//! let result = Units::server()
//!     .call("to_fahrenheit", serde_json::json!({"celsius": 100}), ToolContext::new())
//!     .await;
//! assert_eq!(result.text_content(), "100 °C is 212 °F");
//! # });
//! ```

use std::time::Duration;

use claude_tools::prelude::*;
use serde::Serialize;

/// The server: Claude Code shows its tools as `mcp__<the name it was added under>__<tool>`.
#[tool_server(
    name = "units",
    version = "1.0.0",
    instructions = "Unit conversions and text statistics."
)]
pub struct Units;

/// The tools of [`Units`], sorted by name, as `tools/list` returns them.
pub const TOOLS: [&str; 3] = ["count_to", "to_fahrenheit", "word_stats"];

/// How long [`count_to`] waits between two numbers.
pub const COUNT_STEP: Duration = Duration::from_millis(50);

/// Convert a temperature from degrees Celsius to degrees Fahrenheit.
#[tool(server = Units, read_only)]
pub async fn to_fahrenheit(
    /// The temperature in °C
    celsius: f64,
) -> Result<String, ToolError> {
    if celsius < -273.15 {
        return Err(ToolError::new(format!(
            "{celsius} °C is below absolute zero (-273.15 °C)"
        )));
    }
    let fahrenheit = (celsius * 9.0 / 5.0 + 32.0) * 10.0;
    Ok(format!("{celsius} °C is {} °F", fahrenheit.round() / 10.0))
}

/// What [`word_stats`] counts.
#[derive(Debug, Serialize, JsonSchema)]
pub struct WordStats {
    /// Words (runs of non-whitespace).
    pub words: usize,
    /// Characters (Unicode scalar values).
    pub chars: usize,
    /// The longest word; empty for a text without words.
    pub longest: String,
}

/// Count the words and characters of a text and find its longest word.
#[tool(server = Units, read_only)]
pub async fn word_stats(
    /// The text to measure
    text: String,
) -> Json<WordStats> {
    let longest = text
        .split_whitespace()
        .fold("", |best, word| {
            if word.chars().count() > best.chars().count() {
                word
            } else {
                best
            }
        })
        .to_string();
    Json(WordStats {
        words: text.split_whitespace().count(),
        chars: text.chars().count(),
        longest,
    })
}

/// Count from 1 to `n`, slowly, reporting progress at each number.
///
/// Shows a long call over stdio: the client that sends a `progressToken` gets
/// `notifications/progress` as it goes, and a `notifications/cancelled` stops it.
#[tool(server = Units, read_only)]
pub async fn count_to(
    context: ToolContext,
    /// Where to stop (at most 100)
    n: u32,
) -> Result<String, ToolError> {
    if n > 100 {
        return Err(ToolError::new(format!("{n} is more than 100")));
    }
    for i in 1..=n {
        tokio::select! {
            biased;
            () = context.cancelled() => return Err(ToolError::new(format!("cancelled at {i}"))),
            () = tokio::time::sleep(COUNT_STEP) => {}
        }
        context.report_progress(f64::from(i), Some(f64::from(n)), Some(&format!("at {i}")));
    }
    Ok(format!("counted to {n}"))
}
