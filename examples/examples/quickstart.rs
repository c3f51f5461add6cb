//! Quickstart: two tools, one prompt, the transcript.
//!
//! ```text
//! cargo run -p claude-tools-examples --example quickstart
//! ```
//!
//! The tools (`add`, `to_fahrenheit`) are in `examples/src/quickstart.rs`: two `#[tool]`
//! functions on one `#[tool_server]`. This runs the real Claude Code CLI with them, served from
//! this process, and prints each call and result. Without `ANTHROPIC_API_KEY` a scripted model
//! on 127.0.0.1 plays the conversation (its last call fails on purpose: the model reads the
//! tool's error as an `isError` result); with the key, the real model answers (words after `--`
//! replace the prompt). The e2e test `examples_quickstart` runs it in CI.

#[tokio::main]
async fn main() -> std::process::ExitCode {
    claude_tools_examples::quickstart::example().main().await
}
