//! `fake-claude`: a scripted stand-in for the Claude Code CLI (see
//! `claude_tools_testkit::fake_cli` for the script format and environment).

fn main() {
    std::process::exit(claude_tools_testkit::fake_cli::run_from_env());
}
