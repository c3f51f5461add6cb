//! The scripted stand-in for the Claude Code CLI, built as a binary of this crate so its
//! integration tests find it at `env!("CARGO_BIN_EXE_scripted-cli")`.

fn main() {
    std::process::exit(claude_tools_testkit::fake_cli::run_from_env());
}
