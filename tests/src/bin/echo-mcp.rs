//! The external stdio MCP server of the end-to-end tests, built as a binary of this crate so they
//! find it at `env!("CARGO_BIN_EXE_echo-mcp")` (see `claude_tools_testkit::stdio_mcp`).

fn main() {
    std::process::exit(claude_tools_testkit::stdio_mcp::run_stdio());
}
