//! Who answers permission prompts, and the opt-in that `bypassPermissions` needs: the
//! TypeScript SDK 0.3.332's `allowDangerouslySkipPermissions`, `permissionPromptToolName` and
//! `permissionPrompts`, as it writes their flags.

use claude_tools_core::tool::ToolRef;

use super::Options;

/// Who answers the permission prompts of the session ([`Options::permission_prompts`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum PermissionPrompts {
    /// This process: [`can_use_tool`](Options::can_use_tool) or the
    /// [permission prompt tool](Options::permission_prompt_tool) (the CLI's default).
    Host,
    /// Nobody: the permission mode, rules and hooks still decide, and anything that would
    /// prompt is denied at once, the model being told the session has no one to ask.
    /// `can_use_tool` is never called.
    None,
}

impl PermissionPrompts {
    fn as_str(self) -> &'static str {
        match self {
            PermissionPrompts::Host => "host",
            PermissionPrompts::None => "none",
        }
    }
}

/// The permission settings of [`Options`].
#[derive(Debug, Clone, Default)]
pub(crate) struct PermissionSettings {
    allow_dangerously_skip: bool,
    prompt_tool: Option<String>,
    prompts: Option<PermissionPrompts>,
}

impl PermissionSettings {
    /// `--permission-prompt-tool=<tool>`, `--permission-prompts=<who>` and
    /// `--allow-dangerously-skip-permissions`, in the TypeScript SDK's form. (With
    /// `can_use_tool`, `--permission-prompt-tool stdio` is written by the launch itself; the
    /// two together are refused by [`validate`](Self::validate).)
    pub(crate) fn flags(&self, mut flag: impl FnMut(String, Option<String>)) {
        if let Some(tool) = &self.prompt_tool {
            flag(format!("--permission-prompt-tool={tool}"), None);
        }
        if let Some(prompts) = self.prompts {
            flag(format!("--permission-prompts={}", prompts.as_str()), None);
        }
        if self.allow_dangerously_skip {
            flag("--allow-dangerously-skip-permissions".into(), None);
        }
    }

    /// The name the permission prompt tool was given, to be checked like a permission rule.
    pub(crate) fn prompt_tool(&self) -> Option<&str> {
        self.prompt_tool.as_deref()
    }

    /// A prompt tool and `can_use_tool` both answer prompts: the TypeScript SDK refuses the
    /// pair, and so does this; the tool must be an MCP tool's full name.
    pub(crate) fn validate(&self, has_can_use_tool: bool) -> crate::Result<()> {
        let invalid = |message: String| Err(crate::Error::InvalidOptions(message));
        let Some(tool) = &self.prompt_tool else {
            return Ok(());
        };
        if has_can_use_tool {
            return invalid(
                "Options::can_use_tool cannot be combined with Options::permission_prompt_tool: \
                 use one or the other"
                    .into(),
            );
        }
        let parts = tool
            .strip_prefix("mcp__")
            .and_then(|rest| rest.split_once("__"));
        if !parts.is_some_and(|(server, name)| !server.is_empty() && !name.is_empty()) {
            return invalid(format!(
                "Options::permission_prompt_tool: {tool:?} is not an MCP tool's name \
                 (mcp__<server>__<tool>)"
            ));
        }
        Ok(())
    }
}

impl Options {
    /// Allows switching to [`PermissionMode::BypassPermissions`](super::PermissionMode) during
    /// the session (`--allow-dangerously-skip-permissions`), which the CLI otherwise refuses;
    /// starting in that mode needs it too. A safety catch, so that bypassing permissions is
    /// always asked for twice.
    ///
    /// ```
    /// use claude_tools::options::{Options, PermissionMode};
    ///
    /// let args = Options::new()
    ///     .permission_mode(PermissionMode::BypassPermissions)
    ///     .allow_dangerously_skip_permissions()
    ///     .launch_spec()
    ///     .args;
    /// assert!(args.contains(&"--allow-dangerously-skip-permissions".to_string()));
    /// ```
    pub fn allow_dangerously_skip_permissions(mut self) -> Self {
        self.permissions.allow_dangerously_skip = true;
        self
    }

    /// Routes permission prompts to this MCP tool (`--permission-prompt-tool`), by its full
    /// name `mcp__{server}__{tool}`: a tool of an in-process server given here (see
    /// [`permission_prompt`](Self::permission_prompt) for the typed form), or of an external
    /// one. The CLI calls it with the tool name and input and reads its answer (JSON
    /// `{"behavior":"allow","updatedInput":…}` or `{"behavior":"deny","message":…}`).
    ///
    /// Cannot be combined with [`can_use_tool`](Self::can_use_tool), which answers the prompts
    /// itself; a name that is not `mcp__{server}__{tool}`, or that names no tool of the
    /// in-process server it is prefixed with, is refused too, with
    /// [`Error::InvalidOptions`](crate::Error::InvalidOptions) when the session starts.
    ///
    /// ```
    /// use claude_tools::options::Options;
    ///
    /// let args = Options::new().permission_prompt_tool("mcp__approvals__ask").launch_spec().args;
    /// assert!(args.contains(&"--permission-prompt-tool=mcp__approvals__ask".to_string()));
    /// ```
    pub fn permission_prompt_tool(mut self, tool: impl Into<String>) -> Self {
        self.permissions.prompt_tool = Some(tool.into());
        self
    }

    /// Routes permission prompts to tool `T` of an in-process server, named by the type
    /// `#[tool]` emits for it, so a misspelt tool is a compile error (see
    /// [`permission_prompt_tool`](Self::permission_prompt_tool)).
    pub fn permission_prompt<T: ToolRef>(self) -> Self {
        self.permission_prompt_tool(T::QUALIFIED)
    }

    /// Who answers permission prompts (`--permission-prompts`): this process
    /// ([`PermissionPrompts::Host`], the CLI's default) or nobody ([`PermissionPrompts::None`]:
    /// what would prompt is denied at once).
    ///
    /// ```
    /// use claude_tools::options::{Options, PermissionPrompts};
    ///
    /// let args = Options::new().permission_prompts(PermissionPrompts::None).launch_spec().args;
    /// assert!(args.contains(&"--permission-prompts=none".to_string()));
    /// ```
    pub fn permission_prompts(mut self, prompts: PermissionPrompts) -> Self {
        self.permissions.prompts = Some(prompts);
        self
    }
}

#[cfg(test)]
mod tests {
    use crate::options::*;
    use crate::permission::PermissionDecision;
    use claude_tools_core::tool::ToolServer;

    fn flags(options: Options) -> Vec<String> {
        let args = options.launch_spec().args;
        args[5..args.len() - 2].to_vec()
    }

    #[test]
    fn each_setting_becomes_the_flag_the_typescript_sdk_writes() {
        assert_eq!(
            flags(
                Options::new()
                    .permission_prompt_tool("mcp__approvals__ask")
                    .permission_prompts(PermissionPrompts::Host)
                    .allow_dangerously_skip_permissions()
            ),
            [
                "--permission-prompt-tool=mcp__approvals__ask",
                "--permission-prompts=host",
                "--allow-dangerously-skip-permissions"
            ]
        );
        assert_eq!(
            flags(Options::new().permission_prompts(PermissionPrompts::None)),
            ["--permission-prompts=none"]
        );
        assert_eq!(flags(Options::new()), Vec::<String>::new());
    }

    #[test]
    fn a_prompt_tool_with_can_use_tool_or_that_is_no_mcp_tool_is_refused() {
        let both = Options::new()
            .permission_prompt_tool("mcp__approvals__ask")
            .can_use_tool(|_| async { PermissionDecision::allow() });
        let error = both.validate().unwrap_err().to_string();
        assert!(error.contains("cannot be combined"), "{error}");
        for bad in ["stdio", "mcp__approvals", "mcp____ask", "Bash"] {
            let error = Options::new()
                .permission_prompt_tool(bad)
                .validate()
                .unwrap_err()
                .to_string();
            assert!(
                error.contains("is not an MCP tool's name"),
                "{bad}: {error}"
            );
        }
        // A tool of an external server cannot be checked here; one of ours must exist.
        Options::new()
            .permission_prompt_tool("mcp__remote__ask")
            .validate()
            .unwrap();
        let ours = ToolServer::new("approvals", "1.0.0")
            .with_typed_tool("ask", || async { "" })
            .unwrap();
        Options::new()
            .mcp_server(ours.clone())
            .permission_prompt_tool("mcp__approvals__ask")
            .validate()
            .unwrap();
        let error = Options::new()
            .mcp_server(ours)
            .permission_prompt_tool("mcp__approvals__aks")
            .validate()
            .unwrap_err()
            .to_string();
        assert!(
            error.contains("permission_prompt_tool: `mcp__approvals__aks` names no tool"),
            "{error}"
        );
    }
}
