//! Typed settings: round trips, unknown keys kept, wrong types named, and the way into a
//! session (`Options::typed_settings`).

use claude_tools_runtime::hooks::HookEvent;
use claude_tools_runtime::options::{ConfigDelivery, Options, PermissionMode, SandboxSettings};
use claude_tools_runtime::settings::{
    BUILTIN_TOOL_NAMES, CommandHook, DefaultMode, LEGACY_TOOL_NAME_ALIASES, McpServerRule,
    Permissions, ResolvedSettingSource, ResolvedSettings, Settings, SettingsHook,
    SettingsHookMatcher, SourcedSettings, canonical_tool_name, filter_escalating_default_mode,
};
use serde_json::{Value, json};

/// A settings file as people write them: typed keys, keys this library does not type, keys
/// inside typed blocks it does not type, and a hook type it does not know.
fn written() -> Value {
    json!({
        "$schema": "https://json.schemastore.org/claude-code-settings.json",
        "model": "claude-sonnet-4-5",
        "env": {"LOG_LEVEL": "debug"},
        "permissions": {
            "allow": ["Bash(npm test)"], "deny": ["WebFetch"], "defaultMode": "acceptEdits",
            "additionalDirectories": ["../shared"], "someFutureRule": {"x": 1}
        },
        "hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
            {"type": "command", "command": "./audit.sh", "timeout": 30, "shell": "bash"},
            {"type": "http", "url": "http://127.0.0.1:9/hook"},
            {"type": "telepathy", "channel": 7}
        ]}]},
        "sandbox": {"enabled": true, "network": {"allowedDomains": ["example.com"]}},
        "deniedMcpServers": [{"serverName": "evil"}, {"serverUrl": "https://*.evil.com/*"}],
        "effortLevel": "high",
        "spinnerTipsEnabled": false,
        "statusLine": {"type": "command", "command": "status.sh"}
    })
}

#[test]
fn settings_round_trip_with_unknown_keys_kept() {
    let wire = written();
    let settings = Settings::from_value(&wire).unwrap();
    assert_eq!(settings.model.as_deref(), Some("claude-sonnet-4-5"));
    let permissions = settings.permissions.as_ref().unwrap();
    assert_eq!(permissions.default_mode, Some(DefaultMode::AcceptEdits));
    assert_eq!(
        permissions.default_mode.as_ref().unwrap().permission_mode(),
        Some(PermissionMode::AcceptEdits)
    );
    assert_eq!(permissions.extra["someFutureRule"], json!({"x": 1}));
    let hooks = &settings.hooks.as_ref().unwrap()["PreToolUse"][0].hooks;
    let SettingsHook::Command(command) = &hooks[0] else {
        panic!("{hooks:?}")
    };
    assert_eq!(
        (command.command.as_str(), command.timeout),
        ("./audit.sh", Some(30.0))
    );
    assert_eq!(command.extra["shell"], "bash");
    assert!(matches!(&hooks[1], SettingsHook::Http(http) if http.url == "http://127.0.0.1:9/hook"));
    assert!(matches!(&hooks[2], SettingsHook::Other(other) if other["channel"] == 7));
    assert_eq!(settings.sandbox.as_ref().unwrap().enabled, Some(true));
    assert_eq!(
        settings.denied_mcp_servers.as_ref().unwrap()[1]
            .server_url
            .as_deref(),
        Some("https://*.evil.com/*")
    );
    assert_eq!(settings.extra["spinnerTipsEnabled"], false);
    assert_eq!(settings.extra["statusLine"]["command"], "status.sh");
    // Written back: the same JSON (numbers as JSON compares them).
    let back = settings.to_value();
    assert_eq!(back["hooks"]["PreToolUse"][0]["hooks"][0]["timeout"], 30.0);
    let mut expected = wire.clone();
    expected["hooks"]["PreToolUse"][0]["hooks"][0]["timeout"] = json!(30.0);
    assert_eq!(back, expected);
    assert_eq!(Settings::from_json(&settings.to_json()).unwrap(), settings);
}

#[test]
fn a_wrong_type_is_an_error_naming_the_field() {
    for (wire, path) in [
        (json!({"model": 5}), "model"),
        (
            json!({"permissions": {"allow": "Bash"}}),
            "permissions.allow",
        ),
        (json!({"env": {"A": 1}}), "env.A"),
        (json!({"cleanupPeriodDays": "soon"}), "cleanupPeriodDays"),
        (
            json!({"hooks": {"Stop": [{"hooks": [{"type": "command"}]}]}}),
            "hooks.Stop[0].hooks[0]",
        ),
    ] {
        let error = Settings::from_value(&wire).unwrap_err();
        assert_eq!(error.path, path, "{wire}: {error}");
        assert!(error.to_string().contains(path), "{error}");
    }
    let error = Settings::from_json("{\"model\": \"x\"} trailing").unwrap_err();
    assert_eq!(error.path, ".");
    // A newer CLI's mode is kept, not an error.
    let newer = Settings::from_value(&json!({"permissions": {"defaultMode": "yolo"}})).unwrap();
    let mode = newer.permissions.unwrap().default_mode.unwrap();
    assert_eq!(mode, DefaultMode::Other("yolo".into()));
    assert_eq!(mode.permission_mode(), None);
}

#[test]
fn typed_settings_reach_the_cli_as_the_raw_ones_do() {
    let settings = Settings::new()
        .model("claude-sonnet-4-5")
        .permissions(
            Permissions::new()
                .allow(["Read"])
                .default_mode(PermissionMode::Plan),
        )
        .hook(
            HookEvent::Stop,
            SettingsHookMatcher::always().command(CommandHook::new("./done.sh")),
        )
        .setting("language", json!("french"));
    let typed = Options::new()
        .typed_settings(settings.clone())
        .config_delivery(ConfigDelivery::Argv)
        .launch_spec()
        .args;
    let raw = Options::new()
        .settings(settings.to_json())
        .config_delivery(ConfigDelivery::Argv)
        .launch_spec()
        .args;
    assert_eq!(typed, raw);
    let at = typed.iter().position(|arg| arg == "--settings").unwrap();
    let sent: Value = serde_json::from_str(&typed[at + 1]).unwrap();
    assert_eq!(
        sent,
        json!({"permissions": {"allow": ["Read"], "defaultMode": "plan"}, "model": "claude-sonnet-4-5",
            "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "./done.sh"}]}]}, "language": "french"})
    );
    // The sandbox option merges into typed settings as into raw ones.
    let merged = Options::new()
        .typed_settings(Settings::new().model("m"))
        .sandbox(SandboxSettings::new().enabled(true))
        .config_delivery(ConfigDelivery::Argv)
        .launch_spec()
        .args;
    let at = merged.iter().position(|arg| arg == "--settings").unwrap();
    assert!(merged[at + 1].contains("\"sandbox\""), "{}", merged[at + 1]);
    let _ = McpServerRule::name("evil");
}

#[test]
fn escalating_modes_from_the_repository_are_filtered_as_the_cli_does() {
    let with_mode = |mode| Settings::new().permissions(Permissions::new().default_mode(mode));
    let resolve = |tiers: Vec<(ResolvedSettingSource, PermissionMode)>| {
        let effective = with_mode(tiers.last().unwrap().1);
        let sources = tiers
            .into_iter()
            .map(|(source, mode)| SourcedSettings::new(source, with_mode(mode)))
            .collect();
        let honoured = filter_escalating_default_mode(&ResolvedSettings::new(effective, sources));
        honoured.permissions.and_then(|p| p.default_mode)
    };
    use PermissionMode::*;
    use ResolvedSettingSource as Tier;
    assert_eq!(resolve(vec![(Tier::Project, BypassPermissions)]), None);
    assert_eq!(resolve(vec![(Tier::Local, Auto)]), None);
    assert_eq!(
        resolve(vec![(Tier::Local, AcceptEdits)]),
        Some(DefaultMode::AcceptEdits)
    );
    assert_eq!(resolve(vec![(Tier::Project, AcceptEdits)]), None);
    assert_eq!(
        resolve(vec![(Tier::User, BypassPermissions)]),
        Some(DefaultMode::BypassPermissions)
    );
    assert_eq!(
        resolve(vec![(Tier::Project, Plan)]),
        Some(DefaultMode::Plan)
    );
    // The highest tier that sets the mode decides.
    assert_eq!(
        resolve(vec![
            (Tier::Project, BypassPermissions),
            (Tier::Flag, BypassPermissions)
        ]),
        Some(DefaultMode::BypassPermissions)
    );
}

#[test]
fn tool_name_constants_hold_the_sdks_values() {
    assert_eq!(BUILTIN_TOOL_NAMES.len(), 54);
    for name in [
        "Agent",
        "Bash",
        "Edit",
        "Read",
        "Write",
        "WebFetch",
        "propose_skills",
    ] {
        assert!(BUILTIN_TOOL_NAMES.contains(&name), "{name}");
    }
    // Every alias points at a listed tool.
    for &(old, current) in LEGACY_TOOL_NAME_ALIASES {
        assert!(BUILTIN_TOOL_NAMES.contains(&current), "{old} -> {current}");
        assert_eq!(canonical_tool_name(old), current);
    }
    assert_eq!(canonical_tool_name("KillBash"), "TaskStop");
}
