//! The README's getting started, tried as a new user would: a fresh crate outside the repository
//! made of the README's `Cargo.toml` lines and `src/main.rs` only, built, then run with the real
//! Claude Code CLI against the scripted model of the README's `script.json`; what it prints must
//! be the output the README shows.
//!
//! The blocks are found by the `<!-- getting-started: NAME -->` comment before each. The crate
//! reaches the workspace's crates through `[patch.crates-io]` (the only line the README does not
//! give: claude-tools is not published yet) and builds `--offline` into the workspace's target
//! directory, pinned to the workspace's `Cargo.lock`, so that it reuses what is built already.
//! Without the CLI the run is skipped with a banner, unless `CI` is set, where it fails.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use claude_tools_testkit::model_server::{ModelServer, Script};
use claude_tools_testkit::{TempDir, claude_cli_path};

/// The longest the build may take (a cold build of the dependencies on a loaded 2-core machine).
const BUILD_TIMEOUT: Duration = Duration::from_secs(900);
/// The longest the agent may take.
const RUN_TIMEOUT: Duration = Duration::from_secs(120);

/// The workspace root.
fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the tests crate is in the workspace")
        .to_path_buf()
}

fn readme() -> String {
    std::fs::read_to_string(workspace().join("README.md")).expect("README.md is readable")
}

/// The code block after `<!-- getting-started: {name} -->` in `text`, without its fences.
fn block(text: &str, name: &str) -> String {
    let marker = format!("<!-- getting-started: {name} -->");
    let after = text
        .split_once(&marker)
        .unwrap_or_else(|| panic!("no `{marker}` in the text"))
        .1;
    let fence = after.find("```").expect("a code block follows the marker");
    let body_start = fence
        + after[fence..]
            .find('\n')
            .expect("the opening fence ends its line")
        + 1;
    let body_len = after[body_start..]
        .find("\n```")
        .expect("the code block is closed");
    after[body_start..body_start + body_len + 1].to_string()
}

/// The manifest `cargo new` would write, with the README's lines and the patch to this
/// workspace.
fn manifest(readme_lines: &str) -> String {
    let root = workspace();
    let patch = [
        "claude-tools",
        "claude-tools-macros",
        "claude-tools-runtime",
    ]
    .iter()
    .map(|name| format!("{name} = {{ path = {:?} }}\n", root.join(name)))
    .collect::<String>();
    format!(
        "[package]\nname = \"my-agent\"\nversion = \"0.1.0\"\nedition = \"2024\"\n\n\
         {readme_lines}\n[patch.crates-io]\n{patch}\n\
         # Not part of any enclosing workspace.\n[workspace]\n"
    )
}

/// The target directory this test was built into (`<target>/debug/deps/readme-…`).
fn target_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("CARGO_TARGET_DIR") {
        return PathBuf::from(dir);
    }
    let exe = std::env::current_exe().expect("the test knows its path");
    exe.ancestors()
        .nth(3)
        .expect("the test runs from <target>/<profile>/deps")
        .to_path_buf()
}

/// Runs `command` to its end within `timeout`, killing it after; returns (success, stdout,
/// stderr).
fn run(mut command: Command, what: &str, timeout: Duration) -> (bool, String, String) {
    let dir = TempDir::new("ct-readme-out").expect("a temp dir");
    let out_path = dir.path().join("stdout");
    let err_path = dir.path().join("stderr");
    command
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(&out_path).expect("stdout file"))
        .stderr(std::fs::File::create(&err_path).expect("stderr file"));
    let mut child = command.spawn().unwrap_or_else(|e| panic!("{what}: {e}"));
    let deadline = Instant::now() + timeout;
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait") {
            break status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            let stderr = std::fs::read_to_string(&err_path).unwrap_or_default();
            panic!("{what} did not finish within {timeout:?}; stderr:\n{stderr}");
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let read = |path: &Path| std::fs::read_to_string(path).unwrap_or_default();
    (status.success(), read(&out_path), read(&err_path))
}

#[test]
fn the_crate_docs_show_the_readme_main() {
    let docs = std::fs::read_to_string(workspace().join("claude-tools/docs/getting-started.md"))
        .expect("the crate docs' getting started is readable");
    for name in ["Cargo.toml", "src/main.rs", "output"] {
        assert_eq!(
            block(&docs, name),
            block(&readme(), name),
            "the crate docs' `{name}` block differs from the README's"
        );
    }
}

/// Every `@anthropic-ai/claude-code@<version>` in `text`, as `<version>`.
fn install_versions(text: &str) -> Vec<&str> {
    text.match_indices("@anthropic-ai/claude-code@")
        .map(|(at, package)| {
            let rest = &text[at + package.len()..];
            let end = rest
                .find(|c: char| !(c.is_ascii_digit() || c == '.'))
                .unwrap_or(rest.len());
            &rest[..end]
        })
        .collect()
}

#[test]
fn the_docs_name_the_pinned_cli_version() {
    let pinned = claude_tools_runtime::transport::process::CLI_VERSION;
    for file in [
        "README.md",
        "claude-tools/docs/getting-started.md",
        "claude-tools/guide/09-troubleshooting.md",
    ] {
        let text = std::fs::read_to_string(workspace().join(file)).expect("readable");
        let versions = install_versions(&text);
        assert!(!versions.is_empty(), "{file} names no install command");
        assert!(
            versions.iter().all(|v| *v == pinned),
            "{file} installs {versions:?}, not the pinned {pinned}"
        );
    }
    // The demo's transcript, which the e2e suite compares with what the pinned CLI prints.
    let readme = readme();
    let oldest = claude_tools_runtime::transport::process::OLDEST_CLI_VERSION;
    for said in [
        format!("supports versions {oldest} to {pinned}"),
        format!("[Claude Code {pinned}; in-process server `triage`: connected]"),
    ] {
        assert!(readme.contains(&said), "the README does not say {said:?}");
    }
}

#[test]
fn a_new_crate_made_from_the_readme_runs_an_agent_with_two_tools() {
    let readme = readme();
    let Some(cli) = claude_cli_path() else {
        let hint = "run scripts/install-cli (or scripts/test), or set CLAUDE_CODE_CLI";
        if std::env::var_os("CI").is_some() {
            panic!("the Claude Code CLI is not installed and CI is set; {hint}");
        }
        let _ = writeln!(
            std::io::stderr(),
            "\n!!! SKIPPED the README's getting started: the Claude Code CLI is not installed ({hint})\n"
        );
        return;
    };

    // The crate, outside the repository.
    let project = TempDir::new("ct-readme-crate").expect("a temp dir");
    let root = project.path();
    assert!(
        !root.starts_with(workspace()),
        "the crate must be outside the repository"
    );
    std::fs::create_dir_all(root.join("src")).expect("src/");
    std::fs::write(
        root.join("Cargo.toml"),
        manifest(&block(&readme, "Cargo.toml")),
    )
    .expect("Cargo.toml");
    std::fs::write(root.join("src/main.rs"), block(&readme, "src/main.rs")).expect("main.rs");
    std::fs::copy(workspace().join("Cargo.lock"), root.join("Cargo.lock")).expect("Cargo.lock");

    let target = target_dir();
    let mut build = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()));
    build
        .args(["build", "--offline", "--quiet"])
        .current_dir(root)
        .env("CARGO_TARGET_DIR", &target);
    let (built, _, stderr) = run(build, "cargo build of the README's crate", BUILD_TIMEOUT);
    assert!(built, "the README's crate does not build:\n{stderr}");

    // The run: the real CLI, the README's script, nothing but 127.0.0.1.
    let script = Script::from_json(&block(&readme, "script.json")).expect("the README's script");
    let server = ModelServer::try_start(script).expect("the model server starts");
    let home = TempDir::new("ct-readme-home").expect("a temp dir");
    let mut agent = Command::new(target.join("debug/my-agent"));
    agent.current_dir(root);
    server.apply_cli_env(&mut agent, home.path());
    agent.env("CLAUDE_CODE_CLI", &cli);
    let (ran, stdout, stderr) = run(agent, "the README's agent", RUN_TIMEOUT);

    assert!(
        ran,
        "the agent failed; stdout:\n{stdout}\nstderr:\n{stderr}"
    );
    assert_eq!(stdout, block(&readme, "output"), "stderr:\n{stderr}");
    assert_eq!(stderr, "", "nothing was skipped or reported");
    assert_eq!(server.turn_requests().len(), 3);
    assert!(
        server.proxy_attempts().is_empty(),
        "the CLI tried to reach the internet"
    );
    assert_eq!(
        server
            .tool_results()
            .into_iter()
            .map(|(_, text, is_error)| (text, is_error))
            .collect::<Vec<_>>(),
        [
            ("40".to_string(), false),
            ("2 × apple in the basket".to_string(), false)
        ]
    );
}
