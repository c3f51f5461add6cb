//! Which conversation the session is and how it is kept: resuming up to a point, not writing a
//! transcript, its title, the agent of the main thread and the names the model's tool calls are
//! read under. Flags and `initialize` fields as the TypeScript SDK 0.3.332 writes them.

use std::collections::BTreeMap;

use serde::Serialize;

use super::Options;

/// The conversation's settings, in [`Options`].
#[derive(Debug, Clone, Default)]
pub(crate) struct ConversationSettings {
    resume_at: Option<String>,
    drops_turn: Option<String>,
    persist: Option<bool>,
    title: Option<String>,
    main_agent: Option<String>,
    tool_aliases: BTreeMap<String, String>,
}

/// The conversation's fields of the `initialize` request.
#[derive(Debug, Serialize)]
pub(crate) struct ConversationInit<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    title: Option<&'a str>,
    #[serde(rename = "toolAliases", skip_serializing_if = "Option::is_none")]
    tool_aliases: Option<&'a BTreeMap<String, String>>,
}

impl Options {
    /// Resume a session by id (`--resume`).
    pub fn resume(mut self, session_id: impl Into<String>) -> Self {
        self.resume = Some(session_id.into());
        self
    }

    /// Continue the most recent conversation (`--continue`).
    pub fn continue_conversation(mut self) -> Self {
        self.continue_conversation = true;
        self
    }

    /// When resuming, fork to a new session id (`--fork-session`).
    pub fn fork_session(mut self) -> Self {
        self.fork_session = true;
        self
    }

    /// Use this session id (`--session-id`, a UUID).
    pub fn session_id(mut self, id: impl Into<String>) -> Self {
        self.session_id = Some(id.into());
        self
    }

    /// With [`Options::resume`]: resume only up to and including the transcript entry with
    /// this uuid (an assistant message's, usually), dropping what came after
    /// (`--resume-session-at`).
    ///
    /// ```
    /// use claude_tools::options::Options;
    ///
    /// let args = Options::new()
    ///     .resume("5f0c…")
    ///     .resume_session_at("a1b2…")
    ///     .launch_spec()
    ///     .args;
    /// assert!(args.windows(2).any(|w| w == ["--resume-session-at", "a1b2…"]));
    /// ```
    pub fn resume_session_at(mut self, message_uuid: impl Into<String>) -> Self {
        self.conversation.resume_at = Some(message_uuid.into());
        self
    }

    /// With [`Options::resume_session_at`]: the uuid of the prompt whose turn the cut is meant
    /// to drop. The CLI then checks that everything past the cut belongs to that turn, and
    /// refuses the resume when it does not (a result with `is_error`, whose text starts with
    /// `Resume rejected by --resume-drops-turn:`): the transcript holds something the caller
    /// has not seen. Do not retry such a refusal; resume without the cut instead.
    pub fn resume_drops_turn(mut self, prompt_uuid: impl Into<String>) -> Self {
        self.conversation.drops_turn = Some(prompt_uuid.into());
        self
    }

    /// `false`: the CLI writes no transcript of this session (`--no-session-persistence`), so
    /// it cannot be resumed or listed later. Default: it does.
    pub fn persist_session(mut self, persist: bool) -> Self {
        self.conversation.persist = Some(persist);
        self
    }

    /// The title of a new session (`title` in `initialize`), instead of one the CLI makes from
    /// the first prompt; [`sessions`](crate::history) list it. A resumed session keeps its own
    /// (rename it with the history's `rename`).
    pub fn title(mut self, title: impl Into<String>) -> Self {
        self.conversation.title = Some(title.into());
        self
    }

    /// Runs the main thread as this agent (`--agent`): one of [`Options::agent`]'s, or one the
    /// CLI finds in its settings or a plugin. Its prompt, tools and model then apply to the
    /// whole session.
    pub fn main_agent(mut self, name: impl Into<String>) -> Self {
        self.conversation.main_agent = Some(name.into());
        self
    }

    /// When the model calls a tool named `alias`, the CLI runs `tool` instead (`toolAliases` in
    /// `initialize`): for example `Bash` → `mcp__workspace__bash`, for a host that runs commands
    /// in its own sandbox. One hop: an alias of an alias is not followed. An alias only
    /// redirects the model's calls; keep the built-in tool in [`Options::disallowed_tools`] to
    /// block it everywhere.
    ///
    /// ```
    /// use claude_tools::options::Options;
    ///
    /// let options = Options::new()
    ///     .tool_alias("Bash", "mcp__workspace__bash")
    ///     .disallowed_tools(["Bash"]);
    /// # let _ = options;
    /// ```
    pub fn tool_alias(mut self, alias: impl Into<String>, tool: impl Into<String>) -> Self {
        self.conversation
            .tool_aliases
            .insert(alias.into(), tool.into());
        self
    }

    /// The conversation's flags.
    pub(crate) fn conversation_flags(&self, mut flag: impl FnMut(&str, Option<String>)) {
        let settings = &self.conversation;
        if let Some(agent) = &settings.main_agent {
            flag("--agent", Some(agent.clone()));
        }
        if let Some(uuid) = &settings.resume_at {
            flag("--resume-session-at", Some(uuid.clone()));
        }
        if let Some(uuid) = &settings.drops_turn {
            flag("--resume-drops-turn", Some(uuid.clone()));
        }
        if settings.persist == Some(false) {
            flag("--no-session-persistence", None);
        }
    }

    /// The conversation's fields of `initialize`.
    pub(crate) fn conversation_init(&self) -> ConversationInit<'_> {
        let settings = &self.conversation;
        ConversationInit {
            title: settings.title.as_deref(),
            tool_aliases: (!settings.tool_aliases.is_empty()).then_some(&settings.tool_aliases),
        }
    }

    /// Options that only mean something together.
    pub(crate) fn validate_conversation(&self) -> crate::Result<()> {
        let settings = &self.conversation;
        let refuse = |message: &str| Err(crate::Error::InvalidOptions(message.to_string()));
        if settings.resume_at.is_some() && self.resume.is_none() {
            return refuse("resume_session_at needs resume: it cuts the session being resumed");
        }
        if settings.drops_turn.is_some() && settings.resume_at.is_none() {
            return refuse("resume_drops_turn needs resume_session_at: it checks that cut");
        }
        for (alias, tool) in &settings.tool_aliases {
            if alias.is_empty() || tool.is_empty() || alias == tool {
                return refuse(&format!(
                    "tool_alias: `{alias}` → `{tool}` must map a name to another, non-empty one"
                ));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use crate::options::*;

    fn flags(options: &Options) -> Vec<String> {
        let mut args = Vec::new();
        options.conversation_flags(|name, value| {
            args.push(name.to_string());
            args.extend(value);
        });
        args
    }

    #[test]
    fn each_setting_becomes_the_flag_or_field_the_typescript_sdk_writes() {
        let options = Options::new()
            .resume("s-1")
            .resume_session_at("m-9")
            .resume_drops_turn("p-10")
            .persist_session(false)
            .main_agent("reviewer")
            .title("Nightly triage")
            .tool_alias("Bash", "mcp__box__bash")
            .tool_alias("Read", "mcp__box__read");
        assert_eq!(
            flags(&options),
            [
                "--agent",
                "reviewer",
                "--resume-session-at",
                "m-9",
                "--resume-drops-turn",
                "p-10",
                "--no-session-persistence"
            ]
        );
        assert_eq!(
            serde_json::to_value(options.conversation_init()).unwrap(),
            json!({"title": "Nightly triage",
                   "toolAliases": {"Bash": "mcp__box__bash", "Read": "mcp__box__read"}})
        );
        let defaults = Options::new().persist_session(true);
        assert!(flags(&defaults).is_empty());
        assert_eq!(
            serde_json::to_value(defaults.conversation_init()).unwrap(),
            json!({})
        );
    }

    #[test]
    fn settings_that_need_another_are_refused_without_it() {
        let error = |options: Options| options.validate().unwrap_err().to_string();
        assert!(error(Options::new().resume_session_at("m")).contains("needs resume"));
        assert!(
            error(Options::new().resume("s").resume_drops_turn("p"))
                .contains("needs resume_session_at")
        );
        assert!(error(Options::new().tool_alias("Bash", "Bash")).contains("tool_alias"));
        assert!(error(Options::new().tool_alias("", "x")).contains("tool_alias"));
        assert!(
            Options::new()
                .resume("s")
                .resume_session_at("m")
                .resume_drops_turn("p")
                .validate()
                .is_ok()
        );
    }
}
