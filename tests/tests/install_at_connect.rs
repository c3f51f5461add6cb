//! `Options::install_cli_if_missing`: with no CLI anywhere, connecting installs the pinned
//! version from the registry (a fake one on 127.0.0.1) into the per-user cache and launches it;
//! without the option, or with an explicit CLI path, it does not.
//!
//! The one test of this binary: it sets the process's environment and working directory (the
//! runtime's CLI lookup reads them), which no other test may share.

use std::path::Path;

use claude_tools_runtime::client::Client;
use claude_tools_runtime::error::Error;
use claude_tools_runtime::install::{Platform, REGISTRY_ENV, cache};
use claude_tools_runtime::options::Options;
use claude_tools_runtime::transport::process::CLI_VERSION;
use claude_tools_testkit::TempDir;
use claude_tools_testkit::npm_registry::{FakePackage, FakeRegistry, fake_claude_script, tarball};

#[tokio::test]
async fn connect_installs_a_missing_cli_only_when_asked() {
    let platform = Platform::current().expect("the test machines have a CLI package");
    let exe_in_package = format!("package/{}", platform.executable());
    let registry = FakeRegistry::start(vec![FakePackage::new(
        platform.package(),
        CLI_VERSION,
        tarball(&[(&exe_in_package, &fake_claude_script(CLI_VERSION), 0o755)]),
    )]);
    let home = TempDir::new("install-at-connect").unwrap();
    let cache_home = home.path().join("cache");
    // SAFETY: this binary's only test, before anything of it reads the environment from
    // another thread (the runtime's blocking threads start at the first connect below).
    unsafe {
        std::env::set_var("HOME", home.path());
        std::env::set_var("XDG_CACHE_HOME", &cache_home);
        std::env::set_var("PATH", home.path().join("bin"));
        std::env::set_var(REGISTRY_ENV, registry.url());
        std::env::remove_var("CLAUDE_CODE_CLI");
        std::env::remove_var(cache::CLI_DIR_ENV);
    }
    // Not this repository, whose .cache may hold a CLI.
    std::env::set_current_dir(home.path()).unwrap();
    let installed = cache::executable(&cache_home.join("claude-tools/cli"), CLI_VERSION, platform);

    // Without the option: not found, and the message lists the cache among the places.
    match Client::connect(Options::new()).await {
        Err(Error::CliNotFound { searched }) => {
            assert_eq!(searched.last(), Some(&installed), "{searched:?}")
        }
        Err(other) => panic!("{other}"),
        Ok(_) => panic!("connected without a CLI"),
    }
    assert!(registry.requests().is_empty());

    // An explicit path is final: a wrong one is not a reason to install.
    let wrong = Options::new()
        .cli_path(home.path().join("no-claude"))
        .install_cli_if_missing(true);
    assert!(matches!(
        Client::connect(wrong).await,
        Err(Error::CliNotFound { .. })
    ));
    assert!(registry.requests().is_empty());

    // With it: installed, then launched (the fake CLI says who it is on stderr and exits 3).
    let result = Client::connect(Options::new().install_cli_if_missing(true)).await;
    assert_launched_fake(result.err());
    assert!(is_file(&installed));
    assert_eq!(registry.requests().len(), 2);

    // Next time the lookup finds it: nothing more is fetched.
    let result = Client::connect(Options::new().install_cli_if_missing(true)).await;
    assert_launched_fake(result.err());
    assert_eq!(registry.requests().len(), 2);
}

fn assert_launched_fake(error: Option<Error>) {
    match error {
        Some(Error::ProcessExited {
            code, stderr_tail, ..
        }) => {
            assert_eq!(code, Some(3));
            assert!(
                stderr_tail.contains("fake claude from the fake registry"),
                "{stderr_tail}"
            );
        }
        Some(other) => panic!("{other}"),
        None => panic!("the fake CLI connected"),
    }
}

fn is_file(path: &Path) -> bool {
    path.is_file()
}
