//! The quickstart: two tools, one prompt, the transcript.
//!
//! Two plain `#[tool]` functions on one server; the agent adds two temperatures and converts
//! them, and one call (below absolute zero) fails: the tool returns `Err`, and the model reads
//! the message as an `isError` result.
//!
//! A tool is an ordinary function, so it can be called directly, without the CLI, exactly as the
//! CLI's `tools/call` runs it:
//!
//! ```
//! use claude_tools::prelude::*;
//! use claude_tools_examples::quickstart::Quickstart;
//!
//! # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
//! let server = Quickstart::server();
//! let result = server
//!     .call("to_fahrenheit", serde_json::json!({"celsius": 25.5}), ToolContext::new())
//!     .await;
//! assert_eq!(result.text_content(), "25.5 °C is 77.9 °F");
//! assert!(!result.is_error);
//! # });
//! ```

use claude_tools::prelude::*;
use claude_tools_testkit::model_server::{Script, Turn};
use serde_json::json;

use crate::run::Example;

/// The server: the model sees its tools as `mcp__quickstart__add` and
/// `mcp__quickstart__to_fahrenheit`.
#[tool_server(name = "quickstart", version = "1.0.0")]
pub struct Quickstart;

/// Add two numbers.
#[tool(server = Quickstart, read_only)]
pub async fn add(
    /// The first number
    a: f64,
    /// The second number
    b: f64,
) -> String {
    format!("{a} + {b} = {}", a + b)
}

/// Convert a temperature from degrees Celsius to degrees Fahrenheit.
#[tool(server = Quickstart, read_only)]
pub async fn to_fahrenheit(
    /// The temperature in °C
    celsius: f64,
) -> Result<String, ToolError> {
    if celsius < -273.15 {
        return Err(ToolError::new(format!(
            "{celsius} °C is below absolute zero (-273.15 °C)"
        )));
    }
    let fahrenheit = celsius * 9.0 / 5.0 + 32.0;
    // Rounded to a tenth, as a person would say it.
    Ok(format!(
        "{celsius} °C is {} °F",
        (fahrenheit * 10.0).round() / 10.0
    ))
}

/// The prompt.
pub const PROMPT: &str = "It is 21.5 °C in Lisbon and 4 degrees warmer in Seville. \
How warm is Seville in Fahrenheit? And what is -300 °C in Fahrenheit?";

/// The tools the model may call.
pub const TOOLS: [&str; 2] = ["mcp__quickstart__add", "mcp__quickstart__to_fahrenheit"];

/// The `tool_use` ids of the scripted calls, in order.
pub const TOOL_USE_IDS: [&str; 3] = [
    "toolu_quickstart_add",
    "toolu_quickstart_seville",
    "toolu_quickstart_cold",
];

/// What the offline model does: adds, then converts twice in one turn (the second conversion
/// fails), then answers quoting the tools.
pub fn script() -> Script {
    let [add, seville, cold] = TOOL_USE_IDS;
    Script::new()
        .turn(
            Turn::text("First the temperature in Seville.").and_tool_use(
                add,
                "mcp__quickstart__add",
                json!({"a": 21.5, "b": 4}),
            ),
        )
        .turn(
            Turn::text("Now both conversions.")
                .and_tool_use(
                    seville,
                    "mcp__quickstart__to_fahrenheit",
                    json!({"celsius": 25.5}),
                )
                .and_tool_use(
                    cold,
                    "mcp__quickstart__to_fahrenheit",
                    json!({"celsius": -300}),
                ),
        )
        .turn(Turn::text(format!(
            "Seville: {{{{tool_result:{seville}}}}}. \
             As for -300 °C, it does not exist: {{{{tool_result:{cold}}}}}."
        )))
}

/// The example: the server, its two tools, the prompt and the script.
pub fn example() -> Example {
    Example::new("quickstart", PROMPT, script())
        .server(Quickstart::server())
        .allowed_tools(TOOLS)
}
