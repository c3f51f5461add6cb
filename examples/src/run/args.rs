//! The command line of an example.

use std::path::PathBuf;

/// The command line of an example: `[--scripted] [PROMPT...]`, plus any `--name VALUE` options
/// the example takes out with [`Args::take_value`] before running.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Args {
    /// `--scripted`: the scripted model even when `ANTHROPIC_API_KEY` is set.
    pub scripted: bool,
    /// `-h` / `--help`.
    pub help: bool,
    /// Every other word, in order.
    pub words: Vec<String>,
}

impl Args {
    /// This process's arguments.
    pub fn from_env() -> Args {
        Args::parse(std::env::args().skip(1))
    }

    /// Parses `args` (without the program name).
    pub fn parse(args: impl IntoIterator<Item = String>) -> Args {
        let mut parsed = Args::default();
        for arg in args {
            match arg.as_str() {
                "--scripted" => parsed.scripted = true,
                "-h" | "--help" => parsed.help = true,
                _ => parsed.words.push(arg),
            }
        }
        parsed
    }

    /// A file path from `--flag PATH` (or `--flag=PATH`), else from the environment variable
    /// `env` when it is set and not empty, else `default()`: how the database examples pick
    /// their file.
    pub fn take_path(
        &mut self,
        flag: &str,
        env: &str,
        default: impl FnOnce() -> PathBuf,
    ) -> PathBuf {
        self.take_value(flag)
            .or_else(|| std::env::var(env).ok().filter(|value| !value.is_empty()))
            .map_or_else(default, PathBuf::from)
    }

    /// Removes `--name VALUE` or `--name=VALUE` from the words and returns the value (the last
    /// one when given twice).
    pub fn take_value(&mut self, name: &str) -> Option<String> {
        let mut value = None;
        let mut kept = Vec::new();
        let mut words = std::mem::take(&mut self.words).into_iter();
        while let Some(word) = words.next() {
            if word == name {
                value = words.next();
            } else if let Some(inline) = word.strip_prefix(name).and_then(|w| w.strip_prefix('=')) {
                value = Some(inline.to_string());
            } else {
                kept.push(word);
            }
        }
        self.words = kept;
        value
    }

    /// The words as one prompt, or `None` when there are none.
    pub fn prompt(&self) -> Option<String> {
        (!self.words.is_empty()).then(|| self.words.join(" "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(args: &[&str]) -> Args {
        Args::parse(args.iter().map(|a| a.to_string()))
    }

    #[test]
    fn a_path_comes_from_its_flag_else_the_default() {
        let unset = "CLAUDE_TOOLS_EXAMPLES_TEST_NEVER_SET";
        let mut args = words(&["--db", "/tmp/a.sqlite3", "hello"]);
        let path = args.take_path("--db", unset, || PathBuf::from("default"));
        assert_eq!(path, PathBuf::from("/tmp/a.sqlite3"));
        let mut args = words(&["--db=/tmp/b.sqlite3"]);
        let path = args.take_path("--db", unset, || PathBuf::from("default"));
        assert_eq!(path, PathBuf::from("/tmp/b.sqlite3"));
        let mut args = words(&["hello"]);
        let path = args.take_path("--db", unset, || PathBuf::from("default"));
        assert_eq!(path, PathBuf::from("default"));
    }

    #[test]
    fn args_split_flags_options_and_prompt_words() {
        let mut args = words(&[
            "--scripted",
            "list",
            "--db",
            "/tmp/x.db",
            "my",
            "--db=/tmp/y.db",
        ]);
        assert_eq!(args.take_value("--db").as_deref(), Some("/tmp/y.db"));
        assert!(args.scripted && !args.help);
        assert_eq!(args.prompt().as_deref(), Some("list my"));
        assert_eq!(words(&[]).prompt(), None);
        assert_eq!(words(&["--db"]).take_value("--db"), None);
    }
}
