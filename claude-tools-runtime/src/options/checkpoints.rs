//! File checkpointing ([`Options::enable_file_checkpointing`]): the CLI backs up each file
//! before the agent changes it, so that
//! [`Controls::rewind_files`](crate::control::Controls::rewind_files) can restore the files as they
//! were at a user message.

use super::Options;

/// The variable that turns checkpointing on in the CLI, as the TypeScript SDK sets it.
const CHECKPOINTING_VAR: &str = "CLAUDE_CODE_ENABLE_SDK_FILE_CHECKPOINTING";

impl Options {
    /// Tracks file changes during the session (off by default), so that
    /// [`Controls::rewind_files`](crate::control::Controls::rewind_files) can restore the files to
    /// their state at any user message, and
    /// [`Controls::rewind_files_dry_run`](crate::control::Controls::rewind_files_dry_run) can say
    /// what that would change. Sets `CLAUDE_CODE_ENABLE_SDK_FILE_CHECKPOINTING=true` in the
    /// CLI's environment, over any value given with [`Options::env`], as the TypeScript SDK
    /// does. An administrator's managed `fileCheckpointingEnabled: false` keeps it off.
    ///
    /// ```
    /// use claude_tools::options::Options;
    ///
    /// let env = Options::new().enable_file_checkpointing(true).launch_spec().env;
    /// assert!(env.contains(&(
    ///     "CLAUDE_CODE_ENABLE_SDK_FILE_CHECKPOINTING".to_string(),
    ///     "true".to_string()
    /// )));
    /// ```
    pub fn enable_file_checkpointing(mut self, on: bool) -> Self {
        self.file_checkpointing = on;
        self
    }

    /// The checkpointing variable, when it is on: it goes last, so it wins over the user's.
    pub(crate) fn checkpointing_env(&self, env: &mut Vec<(String, String)>) {
        if self.file_checkpointing {
            env.push((CHECKPOINTING_VAR.into(), "true".into()));
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::options::*;

    fn checkpointing(options: Options) -> Vec<String> {
        let env = options.launch_spec().env;
        env.into_iter()
            .filter(|(name, _)| name == "CLAUDE_CODE_ENABLE_SDK_FILE_CHECKPOINTING")
            .map(|(_, value)| value)
            .collect()
    }

    #[test]
    fn the_option_sets_the_variable_last_and_only_when_on() {
        assert_eq!(checkpointing(Options::new()), Vec::<String>::new());
        assert_eq!(
            checkpointing(Options::new().enable_file_checkpointing(false)),
            Vec::<String>::new()
        );
        assert_eq!(
            checkpointing(Options::new().enable_file_checkpointing(true)),
            ["true"]
        );
        // The user's value comes first, so the option's (last) is the one the CLI sees.
        assert_eq!(
            checkpointing(
                Options::new()
                    .env("CLAUDE_CODE_ENABLE_SDK_FILE_CHECKPOINTING", "false")
                    .enable_file_checkpointing(true)
            ),
            ["false", "true"]
        );
    }
}
