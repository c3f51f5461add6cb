//! `claude-tools-echo-mcp`: a tiny MCP server on stdin/stdout with one tool, `echo` (see
//! `claude_tools_testkit::stdio_mcp`).

fn main() {
    std::process::exit(claude_tools_testkit::stdio_mcp::run_stdio());
}
