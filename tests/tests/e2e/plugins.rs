//! Plugins (`Options::plugin`, `Options::plugin_without_mcp`) and skills (`Options::skills`)
//! through the real CLI: a local plugin directory with one skill is loaded for the session.

use claude_tools_runtime::options::{PluginDelivery, Skills};
use claude_tools_testkit::model_server::{Script, Turn};

use crate::harness::{raw, success_text, world};
use crate::run_query;

/// Writes a plugin `review` with the skill `check` under `dir`.
fn write_plugin(dir: &std::path::Path) {
    std::fs::create_dir_all(dir.join(".claude-plugin")).expect("plugin dir");
    std::fs::write(
        dir.join(".claude-plugin/plugin.json"),
        r#"{"name":"review","version":"1.0.0","description":"Reviews things"}"#,
    )
    .expect("manifest");
    std::fs::create_dir_all(dir.join("skills/check")).expect("skill dir");
    std::fs::write(
        dir.join("skills/check/SKILL.md"),
        "---\nname: check\ndescription: Checks the work for mistakes\n---\nLook for mistakes.\n",
    )
    .expect("skill");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_plugin_directory_is_loaded_with_its_skill() {
    for without_mcp in [false, true] {
        let Some(w) = world("plugins", Script::new().turn(Turn::text("ok"))).await else {
            return;
        };
        let dir = w.path("review-plugin");
        write_plugin(&dir);
        let options = w.options().skills(Skills::All);
        let options = if without_mcp {
            options.plugin_without_mcp(&dir)
        } else {
            options.plugin(&dir)
        };
        let messages = run_query("hello", options).await;
        assert_eq!(success_text(&messages), "ok");
        let init = messages
            .iter()
            .map(raw)
            .find(|m| m["type"] == "system" && m["subtype"] == "init")
            .expect("system/init");
        let plugins = init["plugins"].as_array().cloned().unwrap_or_default();
        assert!(
            plugins.iter().any(|p| p["name"] == "review"),
            "{without_mcp}: {init:#}"
        );
        let skills = init["skills"].as_array().cloned().unwrap_or_default();
        assert!(
            skills.iter().any(|s| s == "review:check"),
            "{without_mcp}: {init:#}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_skills_list_limits_what_the_model_is_shown() {
    let shown = |skills: Skills| async move {
        let w = world("skills_only", Script::new().turn(Turn::text("ok"))).await?;
        let dir = w.path("review-plugin");
        write_plugin(&dir);
        let options = w.options().plugin(&dir).skills(skills);
        let messages = run_query("hello", options).await;
        assert_eq!(success_text(&messages), "ok");
        let turns = w.turns();
        let body = turns[0].body.as_ref().expect("a JSON body").to_string();
        // The listing the model reads: our plugin's skill and a bundled one.
        Some((
            body.contains("- review:check: Checks the work"),
            body.contains("- dataviz: "),
        ))
    };
    let Some(all) = shown(Skills::All).await else {
        return;
    };
    assert_eq!(all, (true, true), "every skill is listed");
    let only = shown(Skills::only(["review:check"])).await.expect("world");
    assert_eq!(only, (true, false), "only the listed skill");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn plugins_delivered_in_initialize_are_loaded_as_from_the_command_line() {
    let Some(w) = world("plugin_delivery", Script::new().turn(Turn::text("ok"))).await else {
        return;
    };
    let dir = w.path("review-plugin");
    write_plugin(&dir);
    let options = w
        .options()
        .skills(Skills::All)
        .plugin(&dir)
        .plugin_delivery(PluginDelivery::Initialize);
    assert!(
        !options
            .launch_spec()
            .args
            .iter()
            .any(|arg| arg.starts_with("--plugin-dir"))
    );
    // The session starts only if the CLI says it loaded them (`plugins_applied`).
    let messages = run_query("hello", options).await;
    assert_eq!(success_text(&messages), "ok");
    let init = messages
        .iter()
        .map(raw)
        .find(|m| m["type"] == "system" && m["subtype"] == "init")
        .expect("system/init");
    let plugins = init["plugins"].as_array().cloned().unwrap_or_default();
    assert!(plugins.iter().any(|p| p["name"] == "review"), "{init:#}");
    let skills = init["skills"].as_array().cloned().unwrap_or_default();
    assert!(skills.iter().any(|s| s == "review:check"), "{init:#}");
}
