//! The standalone stdio MCP server example: a `#[tool_server]` served to any MCP client on
//! stdin/stdout with [`claude_tools::ServeExt::serve_stdio`].
//!
//! Three tools show the three kinds of answer a client sees: a text result or an `isError`
//! result ([`to_fahrenheit`]), a structured result with an output schema ([`word_stats`]), and a
//! long call that reports progress and stops when the client cancels it ([`count_to`]).
//!
//! Beside the tools, a prompt with typed and completed arguments ([`explain_conversion`]), a
//! fixed resource ([`formulas`]) and a resource template ([`celsius`]), read by URI.
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
use serde::{Deserialize, Serialize};

/// The server: Claude Code shows its tools as `mcp__<the name it was added under>__<tool>`.
#[tool_server(
    name = "units",
    version = "1.0.0",
    instructions = "Unit conversions and text statistics."
)]
pub struct Units;

/// [`Units::server`] with the skill `temperature-report` (`examples/skills/`), compiled into
/// the binary with `include_skill!`: an MCP 2026-07-28 client that uses skills (the Claude Code
/// CLI) lists it with `skills/list` and reads its `SKILL.md` and `feel.md` from the server. The
/// `stdio_server` and `http_server` examples serve this.
///
/// ```
/// let server = claude_tools_examples::stdio_server::server_with_skill().unwrap();
/// assert_eq!(server.skills()[0].name(), "temperature-report");
/// assert_eq!(server.skills()[0].files().len(), 2);
/// ```
pub fn server_with_skill() -> Result<ToolServer, claude_tools::ServerBuildError> {
    Units::server().with_skill(claude_tools::include_skill!("skills/temperature-report"))
}

/// How [`Units`] would be published to the MCP registry: the crate that runs it over stdio
/// (whose README would carry `mcp-name: io.github.claude-tools/units`, the registry's
/// ownership check for a crate) and the endpoint of the `http_server` example deployed. `stdio_server --server-json`
/// prints [`server_json`] of it.
pub fn publish_info() -> claude_tools::publish::PublishInfo {
    claude_tools::publish::PublishInfo::new("io.github.claude-tools/units")
        .title("Units")
        .repository("https://github.com/claude-tools/claude-tools")
        .subfolder("examples")
        .crate_package("claude-tools-examples")
        .remote("https://units.example.com/mcp")
}

/// The registry's `server.json` of [`Units`], as [`publish_info`] publishes it: name, version
/// and description from the server itself.
///
/// ```
/// let json = claude_tools_examples::stdio_server::server_json().unwrap();
/// assert_eq!(json.version, "1.0.0");
/// assert_eq!(json.description, "Unit conversions and text statistics.");
/// ```
pub fn server_json()
-> Result<claude_tools::publish::ServerJson, claude_tools::publish::PublishError> {
    Units::server().server_json(&publish_info())
}

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

/// A temperature scale.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Scale {
    /// Degrees Celsius
    Celsius,
    /// Degrees Fahrenheit
    Fahrenheit,
    /// Kelvins
    Kelvin,
}

impl Scale {
    /// The scale's symbol.
    pub fn symbol(self) -> &'static str {
        match self {
            Scale::Celsius => "°C",
            Scale::Fahrenheit => "°F",
            Scale::Kelvin => "K",
        }
    }
}

/// The audiences [`explain_conversion`] suggests while the user types one.
pub const AUDIENCES: [&str; 3] = ["a chemist", "a child", "a cook"];

/// Completes the `audience` of [`explain_conversion`]: the suggestions starting with what was
/// typed.
pub fn audiences(typed: &str) -> Vec<String> {
    AUDIENCES
        .iter()
        .filter(|audience| audience.starts_with(typed))
        .map(|audience| audience.to_string())
        .collect()
}

/// Ask the model to convert a temperature and explain each step.
#[prompt(server = Units, title = "Explain a conversion", complete(audience = audiences))]
pub async fn explain_conversion(
    /// The temperature to convert
    value: f64,
    /// Its scale
    from: Scale,
    /// The scale to convert to (°F when absent)
    to: Option<Scale>,
    /// Who the explanation is for, e.g. "a child"
    audience: Option<String>,
) -> Vec<PromptMessage> {
    let to = to.unwrap_or(Scale::Fahrenheit);
    let audience = audience.unwrap_or_else(|| "an engineer".to_string());
    vec![
        PromptMessage::user(format!(
            "Convert {value} {} to {}, and explain each step for {audience}.",
            from.symbol(),
            to.symbol()
        )),
        PromptMessage::assistant("Read units://formulas first, then show the arithmetic."),
    ]
}

/// The formulas between the temperature scales, one per line of CSV.
#[resource(server = Units, uri = "units://formulas", mime_type = "text/csv")]
pub fn formulas() -> String {
    "from,to,formula\n°C,°F,F = C × 9/5 + 32\n°C,K,K = C + 273.15\n°F,°C,C = (F − 32) × 5/9\n"
        .to_string()
}

/// Temperatures worth suggesting for [`celsius`]: those starting with what was typed.
pub fn common_temperatures(typed: &str) -> Vec<String> {
    ["-40", "0", "37", "100"]
        .iter()
        .filter(|value| value.starts_with(typed))
        .map(|value| value.to_string())
        .collect()
}

/// A temperature in degrees Celsius, in every scale.
#[resource(
    server = Units,
    uri = "units://celsius/{value}",
    mime_type = "application/json",
    complete(value = common_temperatures)
)]
pub fn celsius(value: f64) -> Result<String, ResourceError> {
    if value < -273.15 {
        return Err(ResourceError::not_found(format!(
            "{value} °C is below absolute zero (-273.15 °C)"
        )));
    }
    let fahrenheit = (value * 9.0 / 5.0 + 32.0) * 100.0;
    let kelvin = (value + 273.15) * 100.0;
    Ok(format!(
        r#"{{"celsius":{value},"fahrenheit":{},"kelvin":{}}}"#,
        fahrenheit.round() / 100.0,
        kelvin.round() / 100.0
    ))
}
