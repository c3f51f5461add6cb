//! What the history functions are asked: where to look (a project's working directory, the
//! config dir), which page, how to fork.

use std::path::{Path, PathBuf};

use crate::options::Options;

/// Where a session is looked for: shared by every function of the module (and part of each
/// options struct).
///
/// By default all projects of the default config dir are searched. With [`dir`](Lookup::dir),
/// only that project's folder is (and its git worktrees'); with
/// [`config_dir`](Lookup::config_dir), that config dir replaces the default.
///
/// ```
/// use claude_tools::sessions::Lookup;
///
/// let lookup = Lookup::new().dir("/home/me/repo").config_dir("/tmp/agent-config");
/// assert_eq!(lookup.dir.as_deref(), Some(std::path::Path::new("/home/me/repo")));
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Lookup {
    /// The project: the working directory the sessions ran in (as given to
    /// [`Options::cwd`](crate::options::Options::cwd)), not a folder under `projects`. `None`:
    /// every project.
    pub dir: Option<PathBuf>,
    /// The CLI's config dir, whose `projects` folder holds the transcripts. `None`:
    /// `CLAUDE_CONFIG_DIR` of this process when set, else `~/.claude` — which is where the CLI
    /// writes unless the session was given another `CLAUDE_CONFIG_DIR` (with
    /// [`Options::env`](crate::options::Options::env)); then give that one here.
    pub config_dir: Option<PathBuf>,
}

impl Lookup {
    /// Every project of the default config dir.
    pub fn new() -> Self {
        Self::default()
    }

    /// Only the project that ran in `dir` (and its git worktrees).
    pub fn dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.dir = Some(dir.into());
        self
    }

    /// The CLI's config dir (the one holding `projects`).
    pub fn config_dir(mut self, config_dir: impl Into<PathBuf>) -> Self {
        self.config_dir = Some(config_dir.into());
        self
    }

    pub(crate) fn dir_path(&self) -> Option<&Path> {
        self.dir
            .as_deref()
            .filter(|dir| !dir.as_os_str().is_empty())
    }
}

impl From<&Lookup> for Lookup {
    /// A copy, so that the options structs' `lookup` setter takes `&lookup` too.
    fn from(lookup: &Lookup) -> Self {
        lookup.clone()
    }
}

impl From<&Options> for Lookup {
    /// Where the CLI records the sessions it runs with `options`: their working directory
    /// ([`Options::cwd`], else this process's) and the config dir their environment gives it
    /// (`CLAUDE_CONFIG_DIR` set with [`Options::env`], else `.claude` in the `HOME` set there;
    /// neither: this process's default).
    ///
    /// ```
    /// use claude_tools::Options;
    /// use claude_tools::sessions::Lookup;
    ///
    /// let options = Options::new().cwd("/srv/work").env("CLAUDE_CONFIG_DIR", "/srv/agent-config");
    /// let lookup = Lookup::from(&options);
    /// assert_eq!(lookup.dir.as_deref(), Some(std::path::Path::new("/srv/work")));
    /// assert_eq!(lookup.config_dir.as_deref(), Some(std::path::Path::new("/srv/agent-config")));
    /// ```
    fn from(options: &Options) -> Self {
        let var = |name: &str| {
            options
                .env
                .iter()
                .rev()
                .find(|(key, _)| key == name)
                .map(|(_, value)| value.as_str())
                .filter(|value| !value.is_empty())
        };
        let removed = |name: &str| options.env_remove.iter().any(|key| key == name);
        let config_dir = match (var("CLAUDE_CONFIG_DIR"), var("HOME")) {
            (Some(dir), _) => Some(PathBuf::from(dir)),
            (None, Some(home)) => Some(Path::new(home).join(".claude")),
            (None, None) if removed("CLAUDE_CONFIG_DIR") => {
                std::env::home_dir().map(|home| home.join(".claude"))
            }
            (None, None) => None,
        };
        Lookup {
            dir: options.cwd.clone().or_else(|| std::env::current_dir().ok()),
            config_dir,
        }
    }
}

/// Implements the [`Lookup`] builder methods on an options struct with a `lookup` field.
macro_rules! lookup_methods {
    ($($options:ty),*) => {$(
        impl $options {
            /// Only the project that ran in `dir` (see [`Lookup::dir`]).
            pub fn dir(mut self, dir: impl Into<PathBuf>) -> Self {
                self.lookup.dir = Some(dir.into());
                self
            }

            /// The CLI's config dir (see [`Lookup::config_dir`]).
            pub fn config_dir(mut self, config_dir: impl Into<PathBuf>) -> Self {
                self.lookup.config_dir = Some(config_dir.into());
                self
            }

            /// Where to look, all at once: a [`Lookup`] (or `&Lookup`), or the `&Options` the
            /// sessions ran with (see [`Lookup::from`](Lookup#impl-From<%26Options>-for-Lookup)).
            pub fn lookup(mut self, lookup: impl Into<Lookup>) -> Self {
                self.lookup = lookup.into();
                self
            }
        }
    )*};
}

lookup_methods!(ListSessions, ReadMessages, ForkSession);

/// What [`list_sessions`](super::list_sessions) lists: newest first, a page of them.
///
/// ```
/// use claude_tools::sessions::ListSessions;
///
/// // The second page of twenty, of one project only, its git worktrees left out.
/// let page = ListSessions::new()
///     .dir("/home/me/repo")
///     .offset(20)
///     .limit(20)
///     .include_worktrees(false);
/// assert_eq!((page.offset, page.limit), (20, Some(20)));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ListSessions {
    /// Where to look.
    pub lookup: Lookup,
    /// At most this many sessions (`None`: all; `Some(0)`: none, where the official SDKs read
    /// a limit of 0 as no limit).
    pub limit: Option<usize>,
    /// Skip this many of the newest first.
    pub offset: usize,
    /// With a `dir` inside a git repository: the sessions of every worktree of the repository
    /// too (`git worktree list`). On by default, as in the official SDKs.
    pub include_worktrees: bool,
    /// Whether sessions started by an SDK (`entrypoint` `sdk-cli`, `sdk-ts`, `sdk-py`, as every
    /// session of this library is) or by a daemon are listed. On by default, as in the
    /// TypeScript SDK; a picker of the user's own sessions (as the CLI's `/resume`) turns it off.
    pub include_programmatic: bool,
}

impl Default for ListSessions {
    fn default() -> Self {
        ListSessions {
            lookup: Lookup::default(),
            limit: None,
            offset: 0,
            include_worktrees: true,
            include_programmatic: true,
        }
    }
}

impl ListSessions {
    /// Every session of every project, newest first.
    pub fn new() -> Self {
        Self::default()
    }

    /// At most `limit` sessions.
    pub fn limit(mut self, limit: usize) -> Self {
        self.limit = Some(limit);
        self
    }

    /// Skip the `offset` newest.
    pub fn offset(mut self, offset: usize) -> Self {
        self.offset = offset;
        self
    }

    /// Whether a project's git worktrees are listed with it.
    pub fn include_worktrees(mut self, include: bool) -> Self {
        self.include_worktrees = include;
        self
    }

    /// Whether SDK and daemon sessions are listed
    /// ([`include_programmatic`](Self::include_programmatic)).
    pub fn include_programmatic(mut self, include: bool) -> Self {
        self.include_programmatic = include;
        self
    }
}

/// Which messages [`session_messages`](super::session_messages) and
/// [`subagent_messages`](super::subagent_messages) read: a page of the conversation, oldest
/// first.
///
/// ```
/// use claude_tools::sessions::ReadMessages;
///
/// let first_ten = ReadMessages::new().dir("/home/me/repo").limit(10);
/// assert_eq!(first_ten.limit, Some(10));
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct ReadMessages {
    /// Where to look.
    pub lookup: Lookup,
    /// At most this many messages (`None`: all; `Some(0)`: none, where the official SDKs read
    /// a limit of 0 as no limit).
    pub limit: Option<usize>,
    /// Skip this many of the oldest.
    pub offset: usize,
    /// Also the `system` lines of the conversation (compaction boundaries, notices), as
    /// [`Message::System`](crate::message::Message::System); off by default, as in the
    /// TypeScript SDK's `includeSystemMessages`. For [`session_messages`](super::session_messages)
    /// only.
    pub include_system_messages: bool,
}

impl ReadMessages {
    /// The whole conversation, from any project.
    pub fn new() -> Self {
        Self::default()
    }

    /// At most `limit` messages.
    pub fn limit(mut self, limit: usize) -> Self {
        self.limit = Some(limit);
        self
    }

    /// Skip the `offset` oldest.
    pub fn offset(mut self, offset: usize) -> Self {
        self.offset = offset;
        self
    }

    /// Whether the conversation's `system` lines are read too.
    pub fn include_system_messages(mut self, include: bool) -> Self {
        self.include_system_messages = include;
        self
    }
}

/// How [`fork_session`](super::fork_session) forks: where the session is, up to which
/// message, and the fork's title.
///
/// ```
/// use claude_tools::sessions::ForkSession;
///
/// let fork = ForkSession::new()
///     .up_to("660e8400-e29b-41d4-a716-446655440001")
///     .title("Try the other approach");
/// assert_eq!(fork.title.as_deref(), Some("Try the other approach"));
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct ForkSession {
    /// Where to look.
    pub lookup: Lookup,
    /// Copy the transcript up to this message (its uuid, as [`Message::uuid`] gives it),
    /// inclusive. `None`: all of it.
    ///
    /// [`Message::uuid`]: crate::message::Message::uuid
    pub up_to_message_id: Option<String>,
    /// The fork's title. `None` (or blank): the source's title, or its first prompt, with
    /// ` (fork)` after it.
    pub title: Option<String>,
}

impl ForkSession {
    /// The whole session, the title derived from the source's.
    pub fn new() -> Self {
        Self::default()
    }

    /// Up to this message (inclusive).
    pub fn up_to(mut self, message_id: impl Into<String>) -> Self {
        self.up_to_message_id = Some(message_id.into());
        self
    }

    /// The fork's title.
    pub fn title(mut self, title: impl Into<String>) -> Self {
        self.title = Some(title.into());
        self
    }
}

/// `items` from `offset`, at most `limit` of them.
pub(crate) fn page<T>(items: Vec<T>, offset: usize, limit: Option<usize>) -> Vec<T> {
    items
        .into_iter()
        .skip(offset)
        .take(limit.unwrap_or(usize::MAX))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_lookup_from_options_finds_where_their_sessions_are() {
        let lookup = Lookup::from(
            &Options::new()
                .cwd("/w")
                .env("HOME", "/h")
                .env("CLAUDE_CONFIG_DIR", "/c1")
                .env("CLAUDE_CONFIG_DIR", "/c2"),
        );
        assert_eq!(
            lookup,
            Lookup::new().dir("/w").config_dir("/c2"),
            "the last value wins"
        );
        let lookup = Lookup::from(&Options::new().cwd("/w").env("HOME", "/h"));
        assert_eq!(lookup.config_dir.as_deref(), Some(Path::new("/h/.claude")));
        let lookup = Lookup::from(&Options::new());
        assert_eq!(lookup.config_dir, None, "this process's default");
        assert_eq!(lookup.dir, std::env::current_dir().ok());
        let read = ReadMessages::new()
            .limit(3)
            .lookup(&Options::new().cwd("/w"));
        assert_eq!(
            (read.lookup.dir.as_deref(), read.limit),
            (Some(Path::new("/w")), Some(3))
        );
    }
}
