//! Checking [`Options`] before a launch, so that a mistake is refused by name instead of
//! becoming a CLI that silently does something else.

use std::collections::BTreeMap;

use super::Options;

impl Options {
    /// Checks the options before launching: state every tool needs is registered, names are
    /// unique across in-process and external servers, environment variables can be set.
    pub(crate) fn validate(&self) -> crate::Result<()> {
        self.validate_env()?;
        self.validate_prompt()?;
        self.validate_conversation()?;
        for server in &self.servers {
            server
                .check_state()
                .map_err(|e| crate::Error::InvalidOptions(e.to_string()))?;
        }
        self.validate_server_names()?;
        self.validate_tool_rules()?;
        self.validate_allowed_by_type()?;
        self.validate_typed_hooks()?;
        self.validate_sandbox()?;
        self.plugins.validate(self.cwd.as_deref())?;
        self.validate_launch_extras()?;
        self.permissions.validate(self.can_use_tool.is_some())?;
        if let Some(problem) = self.agents.iter().find_map(|(name, a)| a.problem(name)) {
            return Err(crate::Error::InvalidOptions(problem));
        }
        self.validate_server_settings()
    }

    /// A tool allowed by type ([`Options::allow`]) belongs to a server of the session: its
    /// rule would otherwise allow nothing, silently (a server left out of the session, or
    /// renamed).
    fn validate_allowed_by_type(&self) -> crate::Result<()> {
        for (server, qualified) in &self.allowed_by_type {
            if !self.allowed_tools.iter().any(|rule| rule == qualified) {
                continue; // replaced since by `allowed_tools`
            }
            let in_session = self.servers.iter().any(|s| s.name() == *server)
                || self.external_servers.iter().any(|(name, _)| name == server);
            if !in_session {
                return Err(crate::Error::InvalidOptions(format!(
                    "allow: `{qualified}` is a tool of the server `{server}`, which is not in \
                     this session: add it with `.mcp_server(..)`, or remove the rule"
                )));
            }
        }
        Ok(())
    }

    /// A matcher with a callback typed by its event ([`HookMatcher::pre_tool_use`]…) is
    /// registered for that event: under another, the CLI would hand it inputs it refuses.
    ///
    /// [`HookMatcher::pre_tool_use`]: crate::hooks::HookMatcher::pre_tool_use
    fn validate_typed_hooks(&self) -> crate::Result<()> {
        for (event, matchers) in &self.hooks {
            let typed = matchers.iter().flat_map(|matcher| &matcher.typed_for);
            if let Some(typed) = typed
                .into_iter()
                .find(|typed| typed.event.as_str() != event)
            {
                return Err(crate::Error::InvalidOptions(format!(
                    "hook: a HookMatcher with a `{}` callback is registered for {event}: \
                     register it with `.hook(HookEvent::{}, ..)`",
                    typed.method, typed.event
                )));
            }
        }
        Ok(())
    }

    /// A permission rule naming a tool of one of our in-process servers must name a tool that
    /// server has: `mcp__shop__serch` would otherwise allow (or deny) nothing, silently. Rules
    /// with a `*`, the server-wide `mcp__shop`, and rules for other servers are left alone.
    fn validate_tool_rules(&self) -> crate::Result<()> {
        let prompt_tool: Vec<String> = self
            .permissions
            .prompt_tool()
            .map(String::from)
            .into_iter()
            .collect();
        let lists = [
            ("allowed_tools", &self.allowed_tools),
            ("disallowed_tools", &self.disallowed_tools),
            ("permission_prompt_tool", &prompt_tool),
        ];
        for (option, rules) in lists {
            for rule in rules {
                if let Some(message) = self.unknown_tool_in(rule) {
                    return Err(crate::Error::InvalidOptions(format!("{option}: {message}")));
                }
            }
        }
        Ok(())
    }

    /// Why `rule` names no tool of the in-process server it is prefixed with, if it does not.
    /// A server whose name contains `__` makes prefixes ambiguous: the rule is fine when any
    /// server it may be prefixed with has the tool.
    fn unknown_tool_in(&self, rule: &str) -> Option<String> {
        let rest = rule.strip_prefix("mcp__")?;
        let mut problem = None;
        for server in &self.servers {
            let Some(tool) = rest
                .strip_prefix(server.name())
                .and_then(|rest| rest.strip_prefix("__"))
            else {
                continue;
            };
            if tool.contains('*') || server.tool(tool).is_some() {
                return None;
            }
            let tools: Vec<&str> = server.tools().iter().map(|tool| tool.name()).collect();
            problem.get_or_insert_with(|| {
                format!(
                    "`{rule}` names no tool: in-process server `{}` has no tool `{tool}` (its tools: \
                     {}); name tools with Options::allow::<tool_fn>() or \
                     ToolServer::qualified_name to have them checked",
                    server.name(),
                    tools.join(", ")
                )
            });
        }
        problem
    }

    /// Every MCP server needs its own name: the name is its key in `--mcp-config` and the
    /// `mcp__{name}__` prefix of its tools, so a second server under it would silently hide
    /// the first. The error names the server and says which kinds clash.
    fn validate_server_names(&self) -> crate::Result<()> {
        let in_process = self.servers.iter().map(|server| (server.name(), true));
        let external = self
            .external_servers
            .iter()
            .map(|(name, _)| (name.as_str(), false));
        let mut seen: BTreeMap<&str, bool> = BTreeMap::new();
        for (name, is_in_process) in in_process.chain(external) {
            let Some(&first_in_process) = seen.get(name) else {
                seen.insert(name, is_in_process);
                continue;
            };
            let message = match (first_in_process, is_in_process) {
                (true, true) => format!("two in-process MCP servers are named `{name}`"),
                (false, false) => format!("two external MCP servers are named `{name}`"),
                _ => format!("`{name}` names both an in-process and an external MCP server"),
            };
            return Err(crate::Error::InvalidOptions(message));
        }
        Ok(())
    }

    /// An environment variable's name must be non-empty, without `=` or NUL (the OS would
    /// split `A=B` into another variable, and refuse a NUL at spawn); a value must have no NUL.
    /// The error names the variable, never its value.
    fn validate_env(&self) -> crate::Result<()> {
        let invalid = |message: String| Err(crate::Error::InvalidOptions(message));
        let names = self
            .env
            .iter()
            .map(|(name, _)| name)
            .chain(&self.env_remove);
        for name in names {
            if name.is_empty() || name.contains(['=', '\0']) {
                return invalid(format!(
                    "the environment variable name {name:?} is empty or contains `=` or NUL"
                ));
            }
        }
        for (name, value) in &self.env {
            if value.contains('\0') {
                return invalid(format!(
                    "the value of the environment variable {name} contains NUL"
                ));
            }
        }
        // These three reach the CLI's HTTP headers (User-Agent, x-client-app): a control
        // character there makes the CLI fail its requests, so refuse it here, by name.
        for var in self.host_identity() {
            if let Some(value) = var.value
                && value.chars().any(char::is_control)
            {
                let option = var.option;
                return invalid(format!("{option} {value:?} contains a control character"));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use crate::options::*;
    use claude_tools_core::tool::ToolServer;

    #[test]
    fn identity_values_with_control_characters_are_refused_by_name() {
        assert!(
            Options::new()
                .client_app("ticket-bot/2.1")
                .validate()
                .is_ok()
        );
        let cases = [
            (
                Options::new().client_app("bot\r\nX-Evil: 1"),
                r#"invalid options: Options::client_app "bot\r\nX-Evil: 1" contains a control character"#,
            ),
            (
                Options::new().entrypoint("sdk\0cli"),
                r#"invalid options: Options::entrypoint "sdk\0cli" contains a control character"#,
            ),
            (
                Options::new().agent_sdk_version("1.0\n"),
                r#"invalid options: Options::agent_sdk_version "1.0\n" contains a control character"#,
            ),
        ];
        for (options, expected) in cases {
            assert_eq!(validation_error(options), expected);
        }
    }

    #[test]
    fn validation_names_the_missing_state_and_clashing_servers() {
        let mut needs_state = claude_tools_core::tool::ToolDefBuilder::new("count");
        needs_state.requires_state::<u32>();
        let server = ToolServer::new("calc", "1.0.0")
            .with_tool(needs_state, |_| async { "" })
            .unwrap();
        let error = Options::new()
            .mcp_server(server.clone())
            .validate()
            .unwrap_err()
            .to_string();
        assert!(
            error.contains("State<u32>") && error.contains("with_state"),
            "{error}"
        );
        let clash = Options::new()
            .mcp_server(server.with_state(1u32))
            .external_mcp_server("calc", ExternalServer::http("http://127.0.0.1:1"))
            .validate()
            .unwrap_err()
            .to_string();
        assert_eq!(
            clash,
            "invalid options: `calc` names both an in-process and an external MCP server"
        );
    }

    fn validation_error(options: Options) -> String {
        options.validate().unwrap_err().to_string()
    }

    fn shop() -> ToolServer {
        ToolServer::new("shop", "1.0.0")
            .with_typed_tool("search", || async { "" })
            .and_then(|shop| shop.with_typed_tool("buy", || async { "" }))
            .unwrap()
    }

    /// A `#[tool]` of a server named `ghost`, as the macro names it.
    struct Haunt;

    impl claude_tools_core::tool::ToolRef for Haunt {
        const NAME: &'static str = "haunt";
        const SERVER: &'static str = "ghost";
        const QUALIFIED: &'static str = "mcp__ghost__haunt";
    }

    #[test]
    fn a_tool_allowed_by_type_whose_server_is_not_in_the_session_is_refused() {
        assert_eq!(
            validation_error(Options::new().mcp_server(shop()).allow::<Haunt>()),
            "invalid options: allow: `mcp__ghost__haunt` is a tool of the server `ghost`, which \
             is not in this session: add it with `.mcp_server(..)`, or remove the rule"
        );
        let ghost = ToolServer::new("ghost", "1.0.0")
            .with_typed_tool("haunt", || async { "" })
            .unwrap();
        assert!(
            Options::new()
                .mcp_server(ghost)
                .allow::<Haunt>()
                .validate()
                .is_ok()
        );
        // A list set afterwards replaces the rule, and with it the check.
        let replaced = Options::new().allow::<Haunt>().allowed_tools(["Read"]);
        assert!(replaced.validate().is_ok());
    }

    #[test]
    fn a_rule_naming_a_tool_our_server_lacks_is_refused_by_name() {
        assert_eq!(
            validation_error(
                Options::new()
                    .mcp_server(shop())
                    .allow_tool("mcp__shop__serch")
            ),
            "invalid options: allowed_tools: `mcp__shop__serch` names no tool: in-process server \
             `shop` has no tool `serch` (its tools: buy, search); name tools with \
             Options::allow::<tool_fn>() or ToolServer::qualified_name to have them checked"
        );
        assert_eq!(
            validation_error(
                Options::new()
                    .mcp_server(shop())
                    .disallow_tool("mcp__shop__")
            ),
            "invalid options: disallowed_tools: `mcp__shop__` names no tool: in-process server \
             `shop` has no tool `` (its tools: buy, search); name tools with \
             Options::allow::<tool_fn>() or ToolServer::qualified_name to have them checked"
        );
    }

    #[test]
    fn rules_for_existing_tools_wildcards_whole_servers_and_other_servers_pass() {
        let options = Options::new()
            .mcp_server(shop())
            .mcp_server(
                ToolServer::new("shop__eu", "1.0.0")
                    .with_typed_tool("ship", || async { "" })
                    .unwrap(),
            )
            .allowed_tools([
                "mcp__shop__search",
                "mcp__shop__*",
                "mcp__shop",
                "mcp__shop__eu__ship",
                "mcp__elsewhere__anything",
                "Read",
                "Bash(git *)",
            ])
            .disallow_tool("mcp__shop__buy");
        assert!(options.validate().is_ok());
    }

    #[test]
    fn two_servers_under_one_name_are_refused_by_name() {
        let calc = || ToolServer::new("calc", "1.0.0");
        let echo = || ExternalServer::stdio("echo-mcp", ["--quiet"]);
        assert_eq!(
            validation_error(Options::new().mcp_server(calc()).mcp_server(calc())),
            "invalid options: two in-process MCP servers are named `calc`"
        );
        assert_eq!(
            validation_error(
                Options::new()
                    .external_mcp_server("echo", echo())
                    .external_mcp_server("echo", ExternalServer::http("http://127.0.0.1:1"))
            ),
            "invalid options: two external MCP servers are named `echo`"
        );
        // Whichever comes first, an in-process and an external server may not share a name.
        assert_eq!(
            validation_error(
                Options::new()
                    .external_mcp_server("calc", echo())
                    .mcp_server(calc())
            ),
            "invalid options: `calc` names both an in-process and an external MCP server"
        );
        let distinct = Options::new()
            .mcp_server(calc())
            .mcp_server(ToolServer::new("notes", "1.0.0"))
            .external_mcp_server("echo", echo());
        assert!(distinct.validate().is_ok());
    }
}
