//! What the CLI is launched with: [`Options`] rendered to its argv, its environment (with the
//! host's identity) and `--mcp-config`, as a [`LaunchSpec`].

use serde_json::{Map, Value, json};

use super::{AGENT_SDK_VERSION, CLIENT_APP, ENTRYPOINT, ExternalServer, Options};
use crate::transport::LaunchSpec;
use claude_tools_core::tool::ToolServer;

/// One of the variables that tell the CLI who its host is (see [`Options::entrypoint`]).
pub(super) struct IdentityVar<'a> {
    /// The environment variable.
    pub(super) name: &'static str,
    /// The option that sets it, as errors name it.
    pub(super) option: &'static str,
    /// The value that option set, if any.
    pub(super) value: Option<&'a str>,
    /// The value without the option.
    pub(super) default: &'static str,
}

impl Options {
    /// The argv and environment this configuration launches the CLI with.
    pub fn launch_spec(&self) -> LaunchSpec {
        let mut args: Vec<String> = vec![
            "--output-format".into(),
            "stream-json".into(),
            "--verbose".into(),
        ];
        let mut flag = |name: &str, value: Option<String>| {
            args.push(name.to_string());
            if let Some(value) = value {
                args.push(value);
            }
        };
        self.prompt_flags(&mut flag);
        if let Some(tools) = &self.tools {
            flag("--tools", Some(tools.join(",")));
        }
        let allowed_tools = self.plugins.allowed_tools(&self.allowed_tools);
        if !allowed_tools.is_empty() {
            flag("--allowedTools", Some(allowed_tools.join(",")));
        }
        if let Some(turns) = self.max_turns {
            flag("--max-turns", Some(turns.to_string()));
        }
        if let Some(usd) = self.max_budget_usd {
            flag("--max-budget-usd", Some(usd.to_string()));
        }
        if !self.disallowed_tools.is_empty() {
            flag("--disallowedTools", Some(self.disallowed_tools.join(",")));
        }
        if let Some(model) = &self.model {
            flag("--model", Some(model.clone()));
        }
        if let Some(model) = &self.fallback_model {
            flag("--fallback-model", Some(model.clone()));
        }
        if self.can_use_tool.is_some() {
            flag("--permission-prompt-tool", Some("stdio".into()));
        }
        if let Some(mode) = self.permission_mode {
            flag("--permission-mode", Some(mode.as_str().into()));
        }
        self.permissions.flags(|name, value| flag(&name, value));
        if self.continue_conversation {
            flag("--continue", None);
        }
        // The `=` forms keep a value starting with `-` from being read as a flag.
        if let Some(id) = &self.resume {
            flag(&format!("--resume={id}"), None);
        }
        if let Some(id) = &self.session_id {
            flag(&format!("--session-id={id}"), None);
        }
        if self.session_store.is_some() {
            flag("--session-mirror", None);
        }
        // Secrets go in `initialize` rather than here (`delivery`): the CLI then waits for it
        // before it reads settings or starts MCP servers, and takes only the fields named.
        let settings_in_initialize = self.initialize_settings().is_some();
        if settings_in_initialize
            || self.mcp_servers_in_initialize()
            || self.managed_settings_in_initialize()
            || self.plugins.in_initialize()
        {
            flag("--await-initialize", None);
        }
        if settings_in_initialize {
            flag("--initialize-fields=settings", None);
        } else if let Some(settings) = self.effective_settings() {
            flag("--settings", Some(settings));
        }
        self.managed_settings_flags(|name, value| flag(&name, value));
        for dir in &self.add_dirs {
            flag("--add-dir", Some(dir.display().to_string()));
        }
        self.plugins.flags(|name, value| flag(&name, value));
        self.launch_extras.flags(|name, value| flag(&name, value));
        if let Some(config) = self.mcp_config() {
            flag("--mcp-config", Some(config.to_string()));
        }
        if self.include_partial_messages {
            flag("--include-partial-messages", None);
        }
        if self.strict_mcp_config {
            flag("--strict-mcp-config", None);
        }
        if self.fork_session {
            flag("--fork-session", None);
        }
        if let Some(sources) = &self.setting_sources {
            let sources: Vec<&str> = sources.iter().map(|s| s.as_str()).collect();
            flag(&format!("--setting-sources={}", sources.join(",")), None);
        }
        self.model_settings.flags(|name, value| flag(&name, value));
        self.conversation_flags(&mut flag);
        self.stream_flags(&mut flag);
        if let Some(effort) = &self.effort {
            flag("--effort", Some(effort.clone()));
        }
        if let Some(schema) = &self.output_schema {
            flag("--json-schema", Some(schema.to_string()));
        }
        for (name, value) in &self.extra_args {
            let name = if name.starts_with("--") {
                name.clone()
            } else {
                format!("--{name}")
            };
            match value {
                Some(value) if value.starts_with('-') => flag(&format!("{name}={value}"), None),
                other => flag(&name, other.clone()),
            }
        }
        args.push("--input-format".into());
        args.push("stream-json".into());

        let mut env = self.host_identity_env();
        env.extend(self.env.iter().cloned());
        self.checkpointing_env(&mut env);
        self.launch_extras.env(&self.env, &mut env);
        let reads_state_set = self
            .env
            .iter()
            .any(|(k, _)| k.eq_ignore_ascii_case("CLAUDE_CODE_SDK_READS_SESSION_STATE"));
        if !reads_state_set {
            env.push(("CLAUDE_CODE_SDK_READS_SESSION_STATE".into(), "1".into()));
        }
        if let Some(cwd) = &self.cwd {
            env.push(("PWD".into(), cwd.display().to_string()));
        }
        #[cfg_attr(not(feature = "opentelemetry"), allow(unused_mut))]
        let mut env_remove = self.env_remove.clone();
        // The host's trace reaches the CLI (feature `opentelemetry`).
        #[cfg(feature = "opentelemetry")]
        crate::telemetry::inject_trace_context(&self.env, &mut env, &mut env_remove);
        LaunchSpec {
            cli_path: self.cli_path.clone(),
            args,
            env,
            env_remove,
            cwd: self.cwd.clone(),
        }
    }

    /// `CLAUDE_CODE_ENTRYPOINT`, `CLAUDE_AGENT_SDK_VERSION` and `CLAUDE_AGENT_SDK_CLIENT_APP`:
    /// the defaults or their overrides, except any variable the user names in
    /// [`Options::env`] (their value wins) or [`Options::env_remove`] (they want it gone).
    fn host_identity_env(&self) -> Vec<(String, String)> {
        let user_names = |name: &str| {
            self.env.iter().any(|(k, _)| k == name) || self.env_remove.iter().any(|k| k == name)
        };
        self.host_identity()
            .into_iter()
            .filter(|var| !user_names(var.name))
            .map(|var| {
                let value = var.value.unwrap_or(var.default);
                (var.name.to_string(), value.to_string())
            })
            .collect()
    }

    /// The three host-identity variables, each with the option that sets it and its default:
    /// the one list both [`host_identity_env`](Self::host_identity_env) and
    /// [`validate_env`](Self::validate_env) read.
    pub(super) fn host_identity(&self) -> [IdentityVar<'_>; 3] {
        [
            IdentityVar {
                name: "CLAUDE_CODE_ENTRYPOINT",
                option: "Options::entrypoint",
                value: self.entrypoint.as_deref(),
                default: ENTRYPOINT,
            },
            IdentityVar {
                name: "CLAUDE_AGENT_SDK_VERSION",
                option: "Options::agent_sdk_version",
                value: self.agent_sdk_version.as_deref(),
                default: AGENT_SDK_VERSION,
            },
            IdentityVar {
                name: "CLAUDE_AGENT_SDK_CLIENT_APP",
                option: "Options::client_app",
                value: self.client_app.as_deref(),
                default: CLIENT_APP,
            },
        ]
    }

    /// `{"mcpServers": {...}}`: in-process servers as `{"type":"sdk","name":…}` (their key is
    /// their name, which is what the CLI's `mcp__{key}__` prefix uses), external ones as given.
    fn mcp_config(&self) -> Option<Value> {
        // With manifests the in-process servers are named in `initialize` instead: the CLI
        // connects the ones from `--mcp-config` before it reads that request, so it would not
        // use their manifests.
        let in_process: &[ToolServer] = if self.handshake_manifests {
            &[]
        } else {
            &self.servers
        };
        // External servers go in `initialize` unless they travel on the command line.
        let external: &[(String, ExternalServer)] = if self.mcp_servers_in_initialize() {
            &[]
        } else {
            &self.external_servers
        };
        if in_process.is_empty() && external.is_empty() {
            return None;
        }
        let mut servers = Map::new();
        for (name, server) in external {
            servers.insert(name.clone(), self.external_server_json(name, server));
        }
        for server in in_process {
            servers.insert(
                server.name().to_string(),
                self.sdk_server_json(server.name()),
            );
        }
        Some(json!({"mcpServers": servers}))
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use crate::options::*;
    use crate::permission::PermissionDecision;
    use claude_tools_core::tool::ToolServer;

    #[test]
    fn external_servers_and_inline_settings_stay_off_the_command_line_by_default() {
        let options = Options::new()
            .settings(r#"{"env": {"TOKEN": "settings-secret"}}"#)
            .mcp_server(ToolServer::new("calc", "1.0.0"))
            .external_mcp_server(
                "remote",
                ExternalServer::http("https://mcp.example.com/mcp")
                    .header("Authorization", "Bearer header-secret"),
            )
            .external_mcp_server(
                "local",
                ExternalServer::stdio("local-mcp", ["--quiet"]).env("API_KEY", "env-secret"),
            );
        let args = options.launch_spec().args;
        for secret in [
            "settings-secret",
            "header-secret",
            "env-secret",
            "remote",
            "local",
        ] {
            assert!(
                !args.iter().any(|arg| arg.contains(secret)),
                "{secret}: {args:?}"
            );
        }
        let flag = |name: &str| args.iter().position(|arg| arg == name);
        assert!(flag("--await-initialize").is_some(), "{args:?}");
        assert!(flag("--initialize-fields=settings").is_some(), "{args:?}");
        assert!(flag("--settings").is_none(), "{args:?}");
        // The in-process server holds no secret and stays where the CLI reads it at launch.
        let mcp = flag("--mcp-config").map(|at| &args[at + 1]);
        assert_eq!(
            mcp.map(String::as_str),
            Some(r#"{"mcpServers":{"calc":{"type":"sdk","name":"calc"}}}"#)
        );
        assert_eq!(
            options
                .initialize_mcp_servers()
                .map(serde_json::Value::Object),
            Some(json!({
                "remote": {"type": "http", "url": "https://mcp.example.com/mcp",
                    "headers": {"Authorization": "Bearer header-secret"}},
                "local": {"type": "stdio", "command": "local-mcp", "args": ["--quiet"],
                    "env": {"API_KEY": "env-secret"}},
            }))
        );
        assert_eq!(
            options.initialize_settings().map(serde_json::Value::Object),
            Some(json!({"env": {"TOKEN": "settings-secret"}}))
        );
    }

    #[test]
    fn a_settings_file_and_no_external_server_launch_as_before() {
        let args = Options::new()
            .settings("/etc/claude/settings.json")
            .mcp_server(ToolServer::new("calc", "1.0.0"))
            .launch_spec()
            .args;
        let at = args.iter().position(|arg| arg == "--settings").unwrap();
        assert_eq!(args[at + 1], "/etc/claude/settings.json");
        assert!(
            !args.iter().any(|arg| arg.contains("initialize")),
            "{args:?}"
        );
    }

    #[test]
    fn every_option_becomes_its_flag_in_the_official_order() {
        let options = Options::new()
            .system_prompt(SystemPrompt::preset().append("Be brief."))
            .tools(["Read", "Grep"])
            .allowed_tools(["mcp__calc__*"])
            .max_turns(3)
            .max_budget_usd(0.5)
            .disallowed_tools(["Bash"])
            .model("claude-sonnet-4-5")
            .fallback_model("claude-haiku-4-5")
            .can_use_tool(|_| async { PermissionDecision::allow() })
            .permission_mode(PermissionMode::AcceptEdits)
            .continue_conversation()
            .resume("-odd-id")
            .session_id("3f2b")
            .settings("{\"x\":1}")
            .add_dir("/data")
            .mcp_server(ToolServer::new("calc", "1.0.0"))
            .external_mcp_server("echo", ExternalServer::stdio("echo-mcp", ["--quiet"]))
            .include_partial_messages()
            .strict_mcp_config()
            .fork_session()
            .setting_sources([SettingSource::User, SettingSource::Project])
            .effort("high")
            .output_schema(json!({"type": "object"}))
            .extra_arg("debug", None)
            .extra_arg("--betas", Some("-x".into()))
            .env("FOO", "bar")
            .env_remove("ANTHROPIC_API_KEY")
            .cwd("/work")
            // The command-line forms of the servers and settings (`delivery` tests the default).
            .config_delivery(ConfigDelivery::Argv);
        let launch = options.launch_spec();
        // serde_json's preserve_order: keys in the order they are inserted (external servers,
        // then in-process ones), not sorted.
        let mcp = r#"{"mcpServers":{"echo":{"type":"stdio","command":"echo-mcp","args":["--quiet"]},"calc":{"type":"sdk","name":"calc"}}}"#;
        assert_eq!(
            launch.args,
            [
                "--output-format",
                "stream-json",
                "--verbose",
                "--append-system-prompt",
                "Be brief.",
                "--tools",
                "Read,Grep",
                "--allowedTools",
                "mcp__calc__*",
                "--max-turns",
                "3",
                "--max-budget-usd",
                "0.5",
                "--disallowedTools",
                "Bash",
                "--model",
                "claude-sonnet-4-5",
                "--fallback-model",
                "claude-haiku-4-5",
                "--permission-prompt-tool",
                "stdio",
                "--permission-mode",
                "acceptEdits",
                "--continue",
                "--resume=-odd-id",
                "--session-id=3f2b",
                "--settings",
                "{\"x\":1}",
                "--add-dir",
                "/data",
                "--mcp-config",
                mcp,
                "--include-partial-messages",
                "--strict-mcp-config",
                "--fork-session",
                "--setting-sources=user,project",
                "--effort",
                "high",
                "--json-schema",
                "{\"type\":\"object\"}",
                "--debug",
                "--betas=-x",
                "--input-format",
                "stream-json",
            ]
        );
        assert_eq!(
            launch.env,
            [
                ("CLAUDE_CODE_ENTRYPOINT".to_string(), "sdk-cli".to_string()),
                (
                    "CLAUDE_AGENT_SDK_VERSION".into(),
                    env!("CARGO_PKG_VERSION").into()
                ),
                (
                    "CLAUDE_AGENT_SDK_CLIENT_APP".into(),
                    format!("claude-tools/{}", env!("CARGO_PKG_VERSION"))
                ),
                ("FOO".into(), "bar".into()),
                ("CLAUDE_CODE_SDK_READS_SESSION_STATE".into(), "1".into()),
                ("PWD".into(), "/work".into()),
            ]
        );
        assert_eq!(launch.env_remove, ["ANTHROPIC_API_KEY"]);
        assert_eq!(launch.cwd.as_deref(), Some(std::path::Path::new("/work")));
    }

    #[test]
    fn the_defaults_and_the_system_prompt_variants() {
        let args = |options: Options| options.launch_spec().args;
        assert_eq!(
            args(Options::new()),
            [
                "--output-format",
                "stream-json",
                "--verbose",
                "--system-prompt",
                "",
                "--input-format",
                "stream-json"
            ]
        );
        assert!(
            args(Options::new().system_prompt(SystemPrompt::Text("Hi".into())))
                .windows(2)
                .any(|w| w == ["--system-prompt", "Hi"])
        );
        let preset = args(Options::new().system_prompt(SystemPrompt::preset()));
        assert!(
            !preset.iter().any(|a| a.contains("system-prompt")),
            "{preset:?}"
        );
        let own_state = Options::new()
            .env("CLAUDE_CODE_SDK_READS_SESSION_STATE", "0")
            .launch_spec()
            .env;
        assert_eq!(
            own_state
                .iter()
                .filter(|(k, _)| k == "CLAUDE_CODE_SDK_READS_SESSION_STATE")
                .count(),
            1
        );
    }

    /// The identity variables of the launch, in order.
    fn identity(options: Options) -> Vec<(String, String)> {
        let names = [
            "CLAUDE_CODE_ENTRYPOINT",
            "CLAUDE_AGENT_SDK_VERSION",
            "CLAUDE_AGENT_SDK_CLIENT_APP",
        ];
        options
            .launch_spec()
            .env
            .into_iter()
            .filter(|(k, _)| names.contains(&k.as_str()))
            .collect()
    }

    fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
        list.iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn the_cli_sees_an_sdk_host_with_this_crates_version_and_name_by_default() {
        let version = env!("CARGO_PKG_VERSION");
        let app = format!("claude-tools/{version}");
        assert_eq!(
            identity(Options::new()),
            pairs(&[
                ("CLAUDE_CODE_ENTRYPOINT", "sdk-cli"),
                ("CLAUDE_AGENT_SDK_VERSION", version),
                ("CLAUDE_AGENT_SDK_CLIENT_APP", &app),
            ])
        );
        assert_eq!((AGENT_SDK_VERSION, CLIENT_APP), (version, app.as_str()));
    }

    #[test]
    fn each_identity_variable_can_be_overridden_and_the_users_env_wins() {
        let overridden = Options::new()
            .entrypoint("sdk-rust")
            .agent_sdk_version("9.9.9")
            .client_app("ticket-bot/2.1");
        assert_eq!(
            identity(overridden.clone()),
            pairs(&[
                ("CLAUDE_CODE_ENTRYPOINT", "sdk-rust"),
                ("CLAUDE_AGENT_SDK_VERSION", "9.9.9"),
                ("CLAUDE_AGENT_SDK_CLIENT_APP", "ticket-bot/2.1"),
            ])
        );
        // `env` wins over the method and over the default, and each variable is set once.
        let with_env = overridden
            .env("CLAUDE_AGENT_SDK_CLIENT_APP", "from-env/1")
            .env("CLAUDE_CODE_ENTRYPOINT", "sdk-py");
        assert_eq!(
            identity(with_env),
            pairs(&[
                ("CLAUDE_AGENT_SDK_VERSION", "9.9.9"),
                ("CLAUDE_AGENT_SDK_CLIENT_APP", "from-env/1"),
                ("CLAUDE_CODE_ENTRYPOINT", "sdk-py"),
            ])
        );
        // `env_remove` keeps the variable out; only the CLI's own default remains.
        let removed = Options::new()
            .client_app("ticket-bot/2.1")
            .env_remove("CLAUDE_AGENT_SDK_CLIENT_APP")
            .env_remove("CLAUDE_AGENT_SDK_VERSION");
        assert_eq!(
            identity(removed.clone()),
            pairs(&[("CLAUDE_CODE_ENTRYPOINT", "sdk-cli")])
        );
        assert_eq!(
            removed.launch_spec().env_remove,
            ["CLAUDE_AGENT_SDK_CLIENT_APP", "CLAUDE_AGENT_SDK_VERSION"]
        );
    }

    /// The value of `flag` in the launch argv, if it is there.
    fn flag_value(options: &Options, flag: &str) -> Option<String> {
        let args = options.launch_spec().args;
        let at = args.iter().position(|arg| arg == flag)?;
        args.get(at + 1).cloned()
    }

    #[test]
    fn no_builtin_tools_and_an_empty_tools_list_pass_an_empty_tools_flag() {
        // `--tools ""` is the CLI's "no built-in tools"; without a call the flag is absent.
        assert_eq!(flag_value(&Options::new(), "--tools"), None);
        for options in [Options::new().no_builtin_tools(), Options::new().tools([])] {
            assert_eq!(
                options.launch_spec().args,
                [
                    "--output-format",
                    "stream-json",
                    "--verbose",
                    "--system-prompt",
                    "",
                    "--tools",
                    "",
                    "--input-format",
                    "stream-json"
                ]
            );
        }
        let replaced = Options::new().tools(["Bash"]).no_builtin_tools();
        assert_eq!(flag_value(&replaced, "--tools").as_deref(), Some(""));
        let again = Options::new().no_builtin_tools().tools(["Read"]);
        assert_eq!(flag_value(&again, "--tools").as_deref(), Some("Read"));
    }

    #[test]
    fn tool_lists_replace_and_single_tools_append() {
        let options = Options::new()
            .allowed_tools(["Read", "Grep"])
            .allowed_tools(["mcp__calc__*"])
            .allow_tool("Bash(git *)")
            .disallowed_tools(["WebFetch"])
            .disallowed_tools(["Bash"])
            .disallow_tool("Edit");
        assert_eq!(
            flag_value(&options, "--allowedTools").as_deref(),
            Some("mcp__calc__*,Bash(git *)")
        );
        assert_eq!(
            flag_value(&options, "--disallowedTools").as_deref(),
            Some("Bash,Edit")
        );
        // An empty list clears what was there, and the flag goes away.
        let cleared = options.allowed_tools([]).disallowed_tools([]);
        assert_eq!(flag_value(&cleared, "--allowedTools"), None);
        assert_eq!(flag_value(&cleared, "--disallowedTools"), None);
    }

    #[test]
    fn tool_lists_take_arrays_slices_and_vecs_of_str_or_string() {
        let owned: Vec<String> = vec!["Read".into(), "Grep".into()];
        let borrowed: Vec<&str> = vec!["Read", "Grep"];
        // Bound to names so the borrowed array forms are what is passed.
        let array_ref: &[&str; 2] = &["Read", "Grep"];
        let empty_ref: &[&str; 0] = &[];
        let lists = [
            Options::new().tools(["Read", "Grep"]),
            Options::new().tools(array_ref),
            Options::new().tools(borrowed.as_slice()),
            Options::new().tools(borrowed),
            Options::new().tools(owned.as_slice()),
            Options::new().tools(owned),
        ];
        for options in lists {
            assert_eq!(
                flag_value(&options, "--tools").as_deref(),
                Some("Read,Grep")
            );
        }
        assert_eq!(
            flag_value(&Options::new().tools(empty_ref), "--tools").as_deref(),
            Some("")
        );
    }
}
