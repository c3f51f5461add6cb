//! Compile-time behaviour of `#[tool]` and `#[tool_server]`: every `ui/pass` file compiles, every
//! `ui/fail` file fails with exactly the error in its `.stderr`.
//!
//! The `.stderr` snapshots are pinned to this machine's rustc 1.95.0: diagnostics drift between
//! compiler versions, so on another toolchain regenerate them with
//! `TRYBUILD=overwrite cargo test -p claude-tools-tests --test ui` and review every change.

#[test]
fn ui() {
    let cases = trybuild::TestCases::new();
    cases.pass("ui/pass/*.rs");
    cases.compile_fail("ui/fail/*.rs");
}
