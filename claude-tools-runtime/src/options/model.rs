//! How the model works for the session: extended thinking ([`Thinking`]), reasoning effort
//! ([`Effort`]), beta features and the task budget, each on the command line as the TypeScript
//! SDK 0.3.332 writes it.

use super::Options;

/// Extended thinking ([`Options::thinking`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Thinking {
    /// The model decides how much to think (`--thinking=adaptive`).
    Adaptive,
    /// A fixed budget of thinking tokens, for older models (`--max-thinking-tokens N`); with a
    /// model that thinks adaptively the CLI uses adaptive thinking instead.
    Budget(u32),
    /// No extended thinking (`--thinking=disabled`).
    Disabled,
}

/// What the session shows of the model's thinking ([`Options::thinking_display`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ThinkingDisplay {
    /// A summary of the thinking.
    Summarized,
    /// None of it.
    Omitted,
    /// One short title per stretch of thinking: offered by the API only to sessions Anthropic
    /// hosts (elsewhere the CLI refuses it).
    Highlights,
}

impl ThinkingDisplay {
    /// The display's wire name (`summarized`, `omitted`, `highlights`).
    pub fn as_str(self) -> &'static str {
        match self {
            ThinkingDisplay::Summarized => "summarized",
            ThinkingDisplay::Omitted => "omitted",
            ThinkingDisplay::Highlights => "highlights",
        }
    }
}

/// A reasoning effort level ([`Options::effort`] takes one, or any text the CLI accepts).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Effort {
    /// `low`.
    Low,
    /// `medium`.
    Medium,
    /// `high`.
    High,
    /// `xhigh`.
    XHigh,
    /// `max`.
    Max,
}

impl Effort {
    /// The level's name on the command line.
    pub fn as_str(self) -> &'static str {
        match self {
            Effort::Low => "low",
            Effort::Medium => "medium",
            Effort::High => "high",
            Effort::XHigh => "xhigh",
            Effort::Max => "max",
        }
    }
}

impl From<Effort> for String {
    fn from(effort: Effort) -> String {
        effort.as_str().to_string()
    }
}

/// The model's settings for the session, in [`Options`].
#[derive(Debug, Clone, Default)]
pub(crate) struct ModelSettings {
    thinking: Option<Thinking>,
    display: Option<ThinkingDisplay>,
    betas: Vec<String>,
    task_budget: Option<u64>,
}

impl ModelSettings {
    /// The flags, in the TypeScript SDK's form (`--flag=value` where it writes it so).
    pub(crate) fn flags(&self, mut flag: impl FnMut(String, Option<String>)) {
        match self.thinking {
            Some(Thinking::Adaptive) => flag("--thinking=adaptive".into(), None),
            Some(Thinking::Budget(tokens)) => {
                flag("--max-thinking-tokens".into(), Some(tokens.to_string()));
            }
            Some(Thinking::Disabled) => flag("--thinking=disabled".into(), None),
            None => {}
        }
        if let Some(display) = self.display
            && self.thinking != Some(Thinking::Disabled)
        {
            flag("--thinking-display".into(), Some(display.as_str().into()));
        }
        if !self.betas.is_empty() {
            flag("--betas".into(), Some(self.betas.join(",")));
        }
        if let Some(total) = self.task_budget {
            flag("--task-budget".into(), Some(total.to_string()));
        }
    }
}

impl Options {
    /// Extended thinking: adaptive, a fixed token budget, or off (default: the CLI's).
    ///
    /// ```
    /// use claude_tools::options::{Options, Thinking, ThinkingDisplay};
    ///
    /// let args = Options::new()
    ///     .thinking(Thinking::Budget(8_000))
    ///     .thinking_display(ThinkingDisplay::Summarized)
    ///     .launch_spec()
    ///     .args;
    /// assert!(args.windows(2).any(|w| w == ["--max-thinking-tokens", "8000"]));
    /// assert!(args.windows(2).any(|w| w == ["--thinking-display", "summarized"]));
    /// ```
    pub fn thinking(mut self, thinking: Thinking) -> Self {
        self.model_settings.thinking = Some(thinking);
        self
    }

    /// What the session shows of the model's thinking (left out when thinking is off).
    pub fn thinking_display(mut self, display: ThinkingDisplay) -> Self {
        self.model_settings.display = Some(display);
        self
    }

    /// Beta features of the Anthropic API to turn on (`--betas`), e.g.
    /// `context-1m-2025-08-07`. Adds to the list. The CLI (2.1.332) sends only the betas it
    /// knows in its `anthropic-beta` header: an unknown name is dropped without a word.
    pub fn betas<I, S>(mut self, betas: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.model_settings
            .betas
            .extend(betas.into_iter().map(Into::into));
        self
    }

    /// The task budget: the total tokens the model is told it may spend on the task
    /// (`--task-budget`).
    pub fn task_budget(mut self, total_tokens: u64) -> Self {
        self.model_settings.task_budget = Some(total_tokens);
        self
    }
}

#[cfg(test)]
mod tests {
    use crate::options::*;

    fn flags(options: Options) -> Vec<String> {
        let args = options.launch_spec().args;
        // What comes between the fixed head and the input format.
        args[3..args.len() - 2].to_vec()
    }

    #[test]
    fn each_setting_becomes_the_flag_the_typescript_sdk_writes() {
        assert_eq!(
            flags(Options::new().thinking(Thinking::Adaptive)),
            ["--system-prompt", "", "--thinking=adaptive"]
        );
        assert_eq!(
            flags(
                Options::new()
                    .thinking(Thinking::Disabled)
                    .thinking_display(ThinkingDisplay::Omitted)
            ),
            ["--system-prompt", "", "--thinking=disabled"]
        );
        assert_eq!(
            flags(
                Options::new()
                    .thinking(Thinking::Budget(1024))
                    .thinking_display(ThinkingDisplay::Omitted)
                    .betas(["a-2025", "b-2026"])
                    .task_budget(50_000)
                    .effort(Effort::XHigh)
            ),
            [
                "--system-prompt",
                "",
                "--max-thinking-tokens",
                "1024",
                "--thinking-display",
                "omitted",
                "--betas",
                "a-2025,b-2026",
                "--task-budget",
                "50000",
                "--effort",
                "xhigh",
            ]
        );
    }
}
