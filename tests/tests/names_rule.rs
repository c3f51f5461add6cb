//! The name rule (`mcp__{server}__{tool}`, at most 64 characters, `[A-Za-z0-9_-]+`) is written
//! once, in `claude-tools-core/src/tool/names_rule.rs`. claude-tools-macros, a proc-macro crate
//! that cannot depend on core, carries a copy, since a `#[path]` outside its package would not
//! survive `cargo package`: this test keeps the copy byte-identical.

#[test]
fn the_macro_crates_copy_of_the_name_rule_is_identical() {
    let core = include_str!("../../claude-tools-core/src/tool/names_rule.rs");
    let macros = include_str!("../../claude-tools-macros/src/names_rule.rs");
    assert!(
        core == macros,
        "claude-tools-macros/src/names_rule.rs differs from claude-tools-core/src/tool/names_rule.rs: \
         edit the core file and copy it over"
    );
}
