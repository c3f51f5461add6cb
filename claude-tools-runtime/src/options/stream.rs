//! What the message stream carries beyond the conversation (hook events, the subagents' text,
//! prompt suggestions, progress summaries), how the CLI reads the host's prompts, and how an
//! interrupt treats background tasks. Flags and `initialize` fields as the TypeScript SDK
//! 0.3.332 writes them.

use serde::Serialize;

use super::Options;

/// The stream's settings, in [`Options`].
#[derive(Debug, Clone, Default)]
pub(crate) struct StreamSettings {
    hook_events: bool,
    subagent_text: Option<bool>,
    prompt_suggestions: Option<bool>,
    progress_summaries: Option<bool>,
    per_task_stop: Option<bool>,
    pub(crate) verbatim_prompts: bool,
}

/// The stream's fields of the `initialize` request.
#[derive(Debug, Serialize)]
pub(crate) struct StreamInit {
    #[serde(rename = "promptSuggestions", skip_serializing_if = "Option::is_none")]
    prompt_suggestions: Option<bool>,
    #[serde(
        rename = "agentProgressSummaries",
        skip_serializing_if = "Option::is_none"
    )]
    progress_summaries: Option<bool>,
    #[serde(
        rename = "forwardSubagentText",
        skip_serializing_if = "Option::is_none"
    )]
    subagent_text: Option<bool>,
    #[serde(
        rename = "perTaskStopAffordance",
        skip_serializing_if = "Option::is_none"
    )]
    per_task_stop: Option<bool>,
}

impl Options {
    /// Stream partial messages as `stream_event`s (`--include-partial-messages`).
    pub fn include_partial_messages(mut self) -> Self {
        self.include_partial_messages = true;
        self
    }

    /// Streams every hook's `system` messages `hook_started`, `hook_progress` and
    /// `hook_response` (`--include-hook-events`); without it the CLI sends them only for
    /// `SessionStart` and `Setup` hooks.
    pub fn include_hook_events(mut self, include: bool) -> Self {
        self.stream.hook_events = include;
        self
    }

    /// Streams the subagents' whole conversation, text and thinking included, as assistant and
    /// user messages with `parent_tool_use_id` set (`forwardSubagentText` in `initialize`);
    /// by default only their tool calls and results come through.
    pub fn forward_subagent_text(mut self, forward: bool) -> Self {
        self.stream.subagent_text = Some(forward);
        self
    }

    /// After each turn (not the first), a `prompt_suggestion` message with a predicted next
    /// prompt, arriving after the turn's `result` (`promptSuggestions` in `initialize`).
    pub fn prompt_suggestions(mut self, suggest: bool) -> Self {
        self.stream.prompt_suggestions = Some(suggest);
        self
    }

    /// Short progress summaries of running subagents, in the `summary` of their
    /// `task_progress` messages, made about every 30 s while their conversation changes
    /// (`agentProgressSummaries` in `initialize`).
    pub fn agent_progress_summaries(mut self, summarize: bool) -> Self {
        self.stream.progress_summaries = Some(summarize);
        self
    }

    /// Declares that the host stops background tasks one at a time itself
    /// ([`Controls::stop_task`](crate::control::Controls::stop_task)): an interrupt then aborts only the
    /// current turn and leaves them running (`perTaskStopAffordance` in `initialize`).
    /// Without it, an interrupt also kills them.
    pub fn per_task_stop_affordance(mut self, declared: bool) -> Self {
        self.stream.per_task_stop = Some(declared);
        self
    }

    /// Sends every prompt as written (`client_composed: true` on each user message): no
    /// `@path` file mentions expanded, no slash command run, and none of the context the CLI
    /// attaches at a turn's start. For prompts assembled from text the end user did not
    /// type.
    ///
    /// ```
    /// use claude_tools::options::Options;
    ///
    /// let options = Options::new().verbatim_prompts(true);
    /// # let _ = options;
    /// ```
    pub fn verbatim_prompts(mut self, verbatim: bool) -> Self {
        self.stream.verbatim_prompts = verbatim;
        self
    }

    /// The stream's flags.
    pub(crate) fn stream_flags(&self, mut flag: impl FnMut(&str, Option<String>)) {
        if self.stream.hook_events {
            flag("--include-hook-events", None);
        }
    }

    /// The stream's fields of `initialize`.
    pub(crate) fn stream_init(&self) -> StreamInit {
        StreamInit {
            prompt_suggestions: self.stream.prompt_suggestions,
            progress_summaries: self.stream.progress_summaries,
            subagent_text: self.stream.subagent_text,
            per_task_stop: self.stream.per_task_stop,
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use crate::options::*;

    #[test]
    fn each_setting_becomes_the_flag_or_field_the_typescript_sdk_writes() {
        let options = Options::new()
            .include_hook_events(true)
            .forward_subagent_text(true)
            .prompt_suggestions(true)
            .agent_progress_summaries(false)
            .per_task_stop_affordance(true);
        let mut args = Vec::new();
        options.stream_flags(|name, value| {
            args.push(name.to_string());
            args.extend(value);
        });
        assert_eq!(args, ["--include-hook-events"]);
        assert_eq!(
            serde_json::to_value(options.stream_init()).unwrap(),
            json!({"promptSuggestions": true, "agentProgressSummaries": false,
                   "forwardSubagentText": true, "perTaskStopAffordance": true})
        );
        assert_eq!(
            serde_json::to_value(Options::new().stream_init()).unwrap(),
            json!({})
        );
    }
}
