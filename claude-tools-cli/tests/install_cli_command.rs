//! `claude-tools install-cli` and `claude-tools where`, run as a user runs them, against a fake
//! npm registry on 127.0.0.1: what they print, their exit codes, and an install killed half-way.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use claude_tools_runtime::install::{Platform, cache};
use claude_tools_runtime::transport::process::CLI_VERSION;
use claude_tools_testkit::TempDir;
use claude_tools_testkit::npm_registry::{
    Delivery, FakePackage, FakeRegistry, fake_claude_script, sri, tarball,
};

fn platform() -> Platform {
    Platform::current().expect("the test machines have a CLI package")
}

fn package() -> FakePackage {
    let exe = format!("package/{}", platform().executable());
    let tarball = tarball(&[(&exe, &fake_claude_script(CLI_VERSION), 0o755)]);
    FakePackage::new(platform().package(), CLI_VERSION, tarball)
}

/// The command, in an environment of its own: a home with nothing installed, no CLI on the
/// way, the working directory `home` (not this repository, whose `.cache` may hold a CLI).
fn claude_tools(home: &Path) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_claude-tools"));
    command
        .current_dir(home)
        .env("HOME", home)
        .env("XDG_CACHE_HOME", home.join("cache"))
        .env("PATH", home.join("bin"))
        .env_remove("CLAUDE_CODE_CLI")
        .env_remove(cache::CLI_DIR_ENV)
        .env_remove("CLAUDE_TOOLS_NPM_REGISTRY")
        .stdin(Stdio::null());
    command
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).trim().to_string()
}

fn run(command: &mut Command) -> Output {
    command.output().expect("run claude-tools")
}

fn executable(root: &Path) -> PathBuf {
    cache::executable(root, CLI_VERSION, platform())
}

#[test]
fn install_cli_prints_where_it_installed_and_check_and_where_find_it() {
    let registry = FakeRegistry::start(vec![package()]);
    let home = TempDir::new("cli-home").unwrap();
    let root = home.path().join("cache/claude-tools/cli");

    // Nothing yet: --check and `where` say so.
    let check = run(claude_tools(home.path()).args(["install-cli", "--check"]));
    assert_eq!(check.status.code(), Some(1));
    assert!(
        text(&check.stderr).contains("not installed"),
        "{}",
        text(&check.stderr)
    );
    let nowhere = run(claude_tools(home.path()).arg("where"));
    assert_eq!(nowhere.status.code(), Some(1));
    assert!(
        text(&nowhere.stderr).contains(&executable(&root).display().to_string()),
        "the not-found message lists the cache: {}",
        text(&nowhere.stderr)
    );

    // Into the per-user cache (XDG_CACHE_HOME), from the registry the flag names.
    let out = run(claude_tools(home.path()).args(["install-cli", "--registry", registry.url()]));
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout), executable(&root).display().to_string());
    let stderr = text(&out.stderr);
    assert!(
        stderr.starts_with("installing the Claude Code CLI into "),
        "{stderr}"
    );
    assert!(
        stderr.contains(&format!(
            "\ninstalled Claude Code {CLI_VERSION} ({})",
            platform()
        )),
        "{stderr}"
    );

    let check = run(claude_tools(home.path()).args(["install-cli", "--check"]));
    assert!(check.status.success());
    assert_eq!(text(&check.stdout), executable(&root).display().to_string());
    // `where`: the runtime's lookup finds the install.
    let found = run(claude_tools(home.path()).arg("where"));
    assert!(found.status.success(), "{}", text(&found.stderr));
    assert_eq!(text(&found.stdout), executable(&root).display().to_string());

    // Again: nothing to do, the registry env var is read, nothing asked of it.
    let again = run(claude_tools(home.path())
        .arg("install-cli")
        .env("CLAUDE_TOOLS_NPM_REGISTRY", registry.url()));
    assert!(again.status.success());
    assert_eq!(
        text(&again.stderr),
        format!("Claude Code {CLI_VERSION} ({}) is installed", platform())
    );
    assert_eq!(registry.requests().len(), 2);
}

#[test]
fn dir_flag_and_env_var_name_the_root() {
    let registry = FakeRegistry::start(vec![package()]);
    let home = TempDir::new("cli-home").unwrap();
    let root = home.path().join("elsewhere");
    let out = run(claude_tools(home.path())
        .args(["install-cli", "--registry", registry.url(), "--dir"])
        .arg(&root));
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout), executable(&root).display().to_string());
    // The lookup finds it there when CLAUDE_TOOLS_CLI_DIR says so, and not otherwise.
    assert_eq!(
        run(claude_tools(home.path()).arg("where")).status.code(),
        Some(1)
    );
    let found = run(claude_tools(home.path())
        .arg("where")
        .env(cache::CLI_DIR_ENV, &root));
    assert_eq!(text(&found.stdout), executable(&root).display().to_string());
}

#[test]
fn a_bad_hash_fails_with_the_reason_and_installs_nothing() {
    let registry = FakeRegistry::start(vec![package().integrity(sri(b"not it"))]);
    let home = TempDir::new("cli-home").unwrap();
    let out = run(claude_tools(home.path()).args(["install-cli", "--registry", registry.url()]));
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("does not match the registry's integrity hash"),
        "{stderr}"
    );
    assert!(stderr.contains("nothing was installed"), "{stderr}");
    assert_eq!(
        run(claude_tools(home.path()).args(["install-cli", "--check"]))
            .status
            .code(),
        Some(1)
    );
}

#[test]
fn usage_mistakes_exit_2_with_the_usage() {
    let home = TempDir::new("cli-home").unwrap();
    let out = run(claude_tools(home.path()).args(["install-cli", "--platform", "beos-x64"]));
    assert_eq!(out.status.code(), Some(2));
    let stderr = text(&out.stderr);
    assert!(stderr.contains("`beos-x64` is not a platform"), "{stderr}");
    assert!(stderr.contains("Usage:"), "{stderr}");
    let help = run(claude_tools(home.path()).arg("--help"));
    assert!(help.status.success());
    assert!(text(&help.stdout).contains("claude-tools install-cli"));
}

/// The process is killed while the tarball is half-way in: nothing is findable, and the next
/// install succeeds and removes what the killed one left.
#[test]
fn an_install_killed_half_way_leaves_nothing_findable_and_the_next_one_cleans_up() {
    let stalled = {
        let package = package();
        let half = package.tarball.len() / 2;
        FakeRegistry::start(vec![package.delivery(Delivery::StallAfter(half))])
    };
    let home = TempDir::new("cli-home").unwrap();
    let root = home.path().join("cache/claude-tools/cli");
    let mut child = claude_tools(home.path())
        .args(["install-cli", "--registry", stalled.url()])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    stalled.wait_stalled();
    child.kill().unwrap();
    child.wait().unwrap();
    drop(stalled);

    assert_eq!(
        run(claude_tools(home.path()).args(["install-cli", "--check"]))
            .status
            .code(),
        Some(1)
    );
    assert_eq!(
        run(claude_tools(home.path()).arg("where")).status.code(),
        Some(1)
    );
    assert!(!cache::install_dir(&root, CLI_VERSION, platform()).exists());
    let leftovers = |root: &Path| -> Vec<String> {
        std::fs::read_dir(root.join(CLI_VERSION))
            .map(|entries| {
                entries
                    .flatten()
                    .map(|e| e.file_name().to_string_lossy().into_owned())
                    .collect()
            })
            .unwrap_or_default()
    };
    let left = leftovers(&root);
    assert_eq!(left.len(), 1, "{left:?}");
    assert!(left[0].starts_with(".partial-"), "{left:?}");

    let registry = FakeRegistry::start(vec![package()]);
    let out = run(claude_tools(home.path()).args(["install-cli", "--registry", registry.url()]));
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(leftovers(&root), [platform().name()]);
}

/// The lines of `stderr`, trimmed.
fn lines(stderr: &[u8]) -> Vec<String> {
    text(stderr).lines().map(str::to_string).collect()
}

#[test]
fn off_a_terminal_each_stage_is_one_line_and_the_end_says_how_the_cli_is_found() {
    let registry = FakeRegistry::start(vec![package()]);
    let home = TempDir::new("cli-home").unwrap();
    let root = home.path().join("cache/claude-tools/cli");
    let exe = executable(&root).display().to_string();
    // stderr is a pipe here: no bar, no carriage returns or escape codes.
    let out = run(claude_tools(home.path()).args(["install-cli", "--registry", registry.url()]));
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stderr = lines(&out.stderr);
    assert!(
        !text(&out.stderr).contains(['\r', '\x1b']),
        "{:?}",
        text(&out.stderr)
    );
    assert_eq!(stderr.len(), 6, "{stderr:#?}");
    assert_eq!(
        stderr[1],
        format!(
            "resolving {}@{CLI_VERSION} at {}",
            platform().package(),
            registry.url()
        )
    );
    assert!(
        stderr[2].starts_with(&format!("downloading {}", registry.url()))
            && stderr[2].ends_with(" (0.0 MB)"),
        "{}",
        stderr[2]
    );
    let dir = cache::install_dir(&root, CLI_VERSION, platform());
    assert_eq!(
        stderr[3],
        format!("moving the install into place at {}", dir.display())
    );
    assert!(
        stderr[4].starts_with("installed Claude Code"),
        "{}",
        stderr[4]
    );
    assert_eq!(
        stderr[5],
        format!(
            "the CLI is at {exe}; claude-tools programs run it when no CLI comes before it in \
             their search (Options::cli_path, CLAUDE_CODE_CLI, `claude` on PATH…): \
             `claude-tools where` shows the one they run"
        )
    );
}

#[test]
fn the_end_says_when_another_cli_comes_first_and_what_to_set() {
    let registry = FakeRegistry::start(vec![package()]);
    let home = TempDir::new("cli-home").unwrap();
    // A `claude` on PATH, which the runtime's search finds before the cache.
    let bin = home.path().join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let other = bin.join("claude");
    std::fs::write(&other, "#!/bin/sh\necho other\n").unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&other, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let out = run(claude_tools(home.path()).args(["install-cli", "--registry", registry.url()]));
    assert!(out.status.success(), "{}", text(&out.stderr));
    let exe = executable(&home.path().join("cache/claude-tools/cli"))
        .display()
        .to_string();
    assert_eq!(
        lines(&out.stderr).last().cloned().unwrap_or_default(),
        format!(
            "the CLI is at {exe}, but claude-tools programs run {}, which their search finds \
             first: set CLAUDE_CODE_CLI={exe} (or Options::cli_path) to run this one",
            other.display()
        )
    );
    // Installed elsewhere (--dir), where the search does not look, on a machine without one.
    let home = TempDir::new("cli-home").unwrap();
    let elsewhere = home.path().join("elsewhere");
    let out = run(claude_tools(home.path())
        .args(["install-cli", "--registry", registry.url(), "--dir"])
        .arg(&elsewhere));
    assert!(out.status.success(), "{}", text(&out.stderr));
    let exe = executable(&elsewhere).display().to_string();
    assert_eq!(
        lines(&out.stderr).last().cloned().unwrap_or_default(),
        format!(
            "the CLI is at {exe}, where claude-tools programs do not look (another directory \
             or version than theirs): set CLAUDE_CODE_CLI={exe} (or Options::cli_path) to run it"
        )
    );
}
