//! The system prompt in each of its forms ([`SystemPrompt`]), whether the CLI records it once
//! for the conversation, and the instructions of plan mode: on the command line where the CLI
//! has a flag for them, in `initialize` where the TypeScript SDK 0.3.332 puts them.

use std::path::PathBuf;

use serde::Serialize;

use super::Options;

/// The marker between the static part of a [`SystemPrompt::Sections`] prompt (cacheable across
/// sessions) and its dynamic part, as a section of its own.
///
/// ```
/// use claude_tools::options::{Options, SYSTEM_PROMPT_DYNAMIC_BOUNDARY, SystemPrompt};
///
/// let options = Options::new().system_prompt(SystemPrompt::Sections(vec![
///     "You are the release bot.".into(),
///     SYSTEM_PROMPT_DYNAMIC_BOUNDARY.into(),
///     "Today's branch: main.".into(),
/// ]));
/// # let _ = options;
/// ```
pub const SYSTEM_PROMPT_DYNAMIC_BOUNDARY: &str = "__SYSTEM_PROMPT_DYNAMIC_BOUNDARY__";

/// The system prompt ([`Options::system_prompt`]).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum SystemPrompt {
    /// No system prompt of Claude Code's (`--system-prompt ""`), like the official SDKs' default.
    #[default]
    Empty,
    /// This text replaces Claude Code's system prompt (`--system-prompt`).
    Text(String),
    /// This prompt, as blocks, replaces Claude Code's (`systemPrompt` in `initialize`); put
    /// [`SYSTEM_PROMPT_DYNAMIC_BOUNDARY`] between the blocks every session shares and the ones
    /// of this session, so the first stay in the API's prompt cache across sessions.
    Sections(Vec<String>),
    /// The text of this file replaces Claude Code's system prompt (`--system-prompt-file`; the
    /// CLI reads the file at start, and the session fails to start when it cannot).
    File(PathBuf),
    /// Claude Code's own system prompt (the `claude_code` preset).
    Preset {
        /// Text appended to the preset (`--append-system-prompt`).
        append: Option<String>,
        /// Leave out the sections that differ per user and machine (working directory,
        /// memory, git status) so the prompt is the same for everyone and stays cached; the
        /// CLI sends them in the first user message instead (`excludeDynamicSections` in
        /// `initialize`).
        exclude_dynamic_sections: bool,
    },
}

impl SystemPrompt {
    /// Claude Code's own system prompt, as it is.
    ///
    /// ```
    /// use claude_tools::options::{Options, SystemPrompt};
    ///
    /// let args = Options::new()
    ///     .system_prompt(SystemPrompt::preset().append("Answer in French.").exclude_dynamic_sections())
    ///     .launch_spec()
    ///     .args;
    /// assert!(args.windows(2).any(|w| w == ["--append-system-prompt", "Answer in French."]));
    /// ```
    pub fn preset() -> Self {
        SystemPrompt::Preset {
            append: None,
            exclude_dynamic_sections: false,
        }
    }

    /// Appends `text` to the preset; on any other form this makes a preset with it.
    pub fn append(self, text: impl Into<String>) -> Self {
        let exclude = self.excludes_dynamic_sections();
        SystemPrompt::Preset {
            append: Some(text.into()),
            exclude_dynamic_sections: exclude,
        }
    }

    /// Leaves out the preset's per-user sections (see [`SystemPrompt::Preset`]); on any other
    /// form this makes a preset.
    pub fn exclude_dynamic_sections(self) -> Self {
        let append = match self {
            SystemPrompt::Preset { append, .. } => append,
            _ => None,
        };
        SystemPrompt::Preset {
            append,
            exclude_dynamic_sections: true,
        }
    }

    fn excludes_dynamic_sections(&self) -> bool {
        matches!(
            self,
            SystemPrompt::Preset {
                exclude_dynamic_sections: true,
                ..
            }
        )
    }
}

/// What the options say about the system prompt beyond its form, in [`Options`].
#[derive(Debug, Clone, Default)]
pub(crate) struct PromptSettings {
    snapshot: Option<bool>,
    plan_mode_instructions: Option<String>,
}

/// The prompt's fields of the `initialize` request (each left out when unset).
#[derive(Debug, Serialize)]
pub(crate) struct PromptInit<'a> {
    #[serde(rename = "systemPrompt", skip_serializing_if = "Option::is_none")]
    system_prompt: Option<&'a [String]>,
    #[serde(
        rename = "excludeDynamicSections",
        skip_serializing_if = "Option::is_none"
    )]
    exclude_dynamic_sections: Option<bool>,
    #[serde(
        rename = "systemPromptSnapshot",
        skip_serializing_if = "Option::is_none"
    )]
    snapshot: Option<bool>,
    #[serde(
        rename = "planModeInstructions",
        skip_serializing_if = "Option::is_none"
    )]
    plan_mode_instructions: Option<&'a str>,
}

impl Options {
    /// The system prompt (default: [`SystemPrompt::Empty`]).
    pub fn system_prompt(mut self, prompt: SystemPrompt) -> Self {
        self.system_prompt = prompt;
        self
    }

    /// Whether the CLI records the system prompt once, in the transcript, and sends that record
    /// on every later request and resume (`true`, the CLI's default), or renders it afresh each
    /// time (`false`: for a host that changes its prompt within a session). Sent as
    /// `systemPromptSnapshot` in `initialize`.
    pub fn system_prompt_snapshot(mut self, record: bool) -> Self {
        self.prompt_settings.snapshot = Some(record);
        self
    }

    /// The workflow plan mode asks of the model ([`PermissionMode::Plan`]): this text replaces
    /// the default body of the CLI's plan-mode reminder, which keeps its read-only preamble and
    /// its `ExitPlanMode` footer (`planModeInstructions` in `initialize`).
    ///
    /// [`PermissionMode::Plan`]: super::PermissionMode::Plan
    ///
    /// ```
    /// use claude_tools::options::{Options, PermissionMode};
    ///
    /// let options = Options::new()
    ///     .permission_mode(PermissionMode::Plan)
    ///     .plan_mode_instructions("List the files you would touch, then stop.");
    /// # let _ = options;
    /// ```
    pub fn plan_mode_instructions(mut self, instructions: impl Into<String>) -> Self {
        self.prompt_settings.plan_mode_instructions = Some(instructions.into());
        self
    }

    /// The prompt's flags.
    pub(crate) fn prompt_flags(&self, mut flag: impl FnMut(&str, Option<String>)) {
        match &self.system_prompt {
            SystemPrompt::Empty => flag("--system-prompt", Some(String::new())),
            SystemPrompt::Text(text) => flag("--system-prompt", Some(text.clone())),
            SystemPrompt::File(path) => {
                flag("--system-prompt-file", Some(path.display().to_string()))
            }
            SystemPrompt::Preset {
                append: Some(text), ..
            } => flag("--append-system-prompt", Some(text.clone())),
            SystemPrompt::Preset { append: None, .. } | SystemPrompt::Sections(_) => {}
        }
    }

    /// The prompt's fields of `initialize`.
    pub(crate) fn prompt_init(&self) -> PromptInit<'_> {
        PromptInit {
            system_prompt: match &self.system_prompt {
                SystemPrompt::Sections(sections) => Some(sections),
                _ => None,
            },
            exclude_dynamic_sections: self
                .system_prompt
                .excludes_dynamic_sections()
                .then_some(true),
            snapshot: self.prompt_settings.snapshot,
            plan_mode_instructions: self.prompt_settings.plan_mode_instructions.as_deref(),
        }
    }

    /// A prompt file must be there (the CLI would fail to start without saying which option).
    pub(crate) fn validate_prompt(&self) -> crate::Result<()> {
        if let SystemPrompt::File(path) = &self.system_prompt {
            let path = match &self.cwd {
                Some(cwd) if path.is_relative() => cwd.join(path),
                _ => path.clone(),
            };
            if !path.is_file() {
                return Err(crate::Error::InvalidOptions(format!(
                    "system_prompt: the prompt file {} is not a readable file",
                    path.display()
                )));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use crate::options::*;

    fn prompt_args(options: &Options) -> Vec<String> {
        let mut args = Vec::new();
        options.prompt_flags(|name, value| {
            args.push(name.to_string());
            args.extend(value);
        });
        args
    }

    fn init(options: &Options) -> Value {
        serde_json::to_value(options.prompt_init()).unwrap()
    }

    #[test]
    fn each_form_goes_where_the_cli_reads_it() {
        let empty = Options::new();
        assert_eq!(prompt_args(&empty), ["--system-prompt", ""]);
        assert_eq!(init(&empty), json!({}));

        let text = Options::new().system_prompt(SystemPrompt::Text("Be brief.".into()));
        assert_eq!(prompt_args(&text), ["--system-prompt", "Be brief."]);

        let file = Options::new().system_prompt(SystemPrompt::File("/p/prompt.md".into()));
        assert_eq!(prompt_args(&file), ["--system-prompt-file", "/p/prompt.md"]);

        let sections = Options::new().system_prompt(SystemPrompt::Sections(vec![
            "static".into(),
            SYSTEM_PROMPT_DYNAMIC_BOUNDARY.into(),
            "dynamic".into(),
        ]));
        assert!(prompt_args(&sections).is_empty());
        assert_eq!(
            init(&sections),
            json!({"systemPrompt": ["static", "__SYSTEM_PROMPT_DYNAMIC_BOUNDARY__", "dynamic"]})
        );

        let preset = Options::new().system_prompt(SystemPrompt::preset());
        assert!(prompt_args(&preset).is_empty());
        assert_eq!(init(&preset), json!({}));

        let cached = Options::new().system_prompt(
            SystemPrompt::preset()
                .exclude_dynamic_sections()
                .append("And be kind."),
        );
        assert_eq!(
            prompt_args(&cached),
            ["--append-system-prompt", "And be kind."]
        );
        assert_eq!(init(&cached), json!({"excludeDynamicSections": true}));
    }

    #[test]
    fn snapshot_and_plan_mode_instructions_go_in_initialize() {
        let options = Options::new()
            .system_prompt_snapshot(false)
            .plan_mode_instructions("Plan in three steps.");
        assert_eq!(
            init(&options),
            json!({"systemPromptSnapshot": false, "planModeInstructions": "Plan in three steps."})
        );
    }

    #[test]
    fn a_missing_prompt_file_is_refused_before_the_cli_starts() {
        let options = Options::new().system_prompt(SystemPrompt::File("/no/such/prompt.md".into()));
        let error = options.validate().unwrap_err().to_string();
        assert!(error.contains("/no/such/prompt.md"), "{error}");
    }
}
