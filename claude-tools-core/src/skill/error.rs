//! [`SkillError`]: why a skill directory cannot be served.

use std::path::PathBuf;

/// Why a skill cannot be served. Each is found when the skill is loaded (or when the server
/// is built), never by a client that then drops the skill silently.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SkillError {
    /// The directory could not be read.
    #[error("skill directory `{}`: {reason}", .path.display())]
    Io {
        /// What could not be read.
        path: PathBuf,
        /// The operating system's reason.
        reason: String,
    },
    /// The directory has no `SKILL.md`.
    #[error(
        "skill directory `{0}` has no SKILL.md (a skill is a directory with a SKILL.md at its top)"
    )]
    MissingSkillMd(String),
    /// `SKILL.md` is not UTF-8, or its front matter cannot be served as is.
    #[error("the SKILL.md of skill directory `{dir}`: {reason}")]
    FrontMatter {
        /// The skill's directory.
        dir: String,
        /// What is wrong, and how to write it.
        reason: String,
    },
    /// The `name` breaks the Agent Skills rules the Claude Code CLI applies.
    #[error(
        "skill name `{name}` (in the SKILL.md of `{dir}`) must be 1 to 64 characters of lowercase \
         ASCII letters and digits, in words joined by single hyphens (`deploy-app`)"
    )]
    InvalidName {
        /// The skill's directory.
        dir: String,
        /// The name as written.
        name: String,
    },
    /// The `name` differs from the directory's name.
    #[error(
        "skill `{name}` is in a directory named `{dir_name}`: the Agent Skills format wants them equal"
    )]
    NameMismatch {
        /// The front matter's name.
        name: String,
        /// The directory's last path component.
        dir_name: String,
    },
    /// A file is larger than a cap, or the skill is.
    #[error("skill `{skill}`: {what} is {size} bytes, past the cap of {cap} bytes")]
    TooLarge {
        /// The skill's directory.
        skill: String,
        /// The file (or "the skill", for the sum).
        what: String,
        /// Its size.
        size: u64,
        /// The cap.
        cap: u64,
    },
    /// The skill has more files than the cap.
    #[error("skill `{skill}` has {count} files, past the cap of {cap}")]
    TooManyFiles {
        /// The skill's directory.
        skill: String,
        /// How many it has.
        count: usize,
        /// The cap.
        cap: usize,
    },
    /// A symbolic link leads out of the skill's directory (or nowhere).
    #[error(
        "skill directory `{dir}`: `{path}` is a symbolic link that leads out of the skill's directory"
    )]
    SymlinkOutside {
        /// The skill's directory.
        dir: String,
        /// The link, relative to the directory.
        path: String,
    },
    /// A file's path cannot be served as a URI the Claude Code CLI accepts.
    #[error("skill directory `{dir}`: the file name `{path}` {reason}")]
    BadPath {
        /// The skill's directory.
        dir: String,
        /// The file, relative to the directory.
        path: String,
        /// Why.
        reason: String,
    },
}
