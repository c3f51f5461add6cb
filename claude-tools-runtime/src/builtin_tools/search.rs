//! Search tools: `Glob` (files by name) and `Grep` (file contents, through ripgrep).

use serde::{Deserialize, Serialize};
use serde_json::{Map, Number, Value};

use crate::wire_enum::wire_enum;

/// `Glob`'s input: a file name pattern.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct GlobInput {
    /// The glob pattern (`**/*.rs`).
    pub pattern: String,
    /// The directory to search (default: the working directory).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// Fields this library does not know, kept as they came.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `Glob`'s answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct GlobOutput {
    /// How long the search took, in milliseconds.
    #[serde(rename = "durationMs")]
    pub duration_ms: Number,
    /// How many paths `filenames` has.
    #[serde(rename = "numFiles")]
    pub num_files: u64,
    /// The matching paths.
    pub filenames: Vec<String>,
    /// Whether the list was cut (at 100 paths).
    pub truncated: bool,
    /// How many paths matched before the cut.
    #[serde(
        rename = "totalMatches",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub total_matches: Option<u64>,
    /// Whether `total_matches` is exact (or a lower bound).
    #[serde(
        rename = "countIsComplete",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub count_is_complete: Option<bool>,
    /// The time limit stopped the search.
    #[serde(rename = "timedOut", default, skip_serializing_if = "Option::is_none")]
    pub timed_out: Option<bool>,
    /// Fields this library does not know, kept as they came.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

wire_enum! {
    /// What `Grep` answers with.
    pub enum GrepOutputMode {
        /// `content`: the matching lines.
        Content = "content",
        /// `files_with_matches` (the default): the paths of the matching files.
        FilesWithMatches = "files_with_matches",
        /// `count`: match counts.
        Count = "count",
    }
}

/// `Grep`'s input: a regular expression to search file contents for (ripgrep's flags).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct GrepInput {
    /// The regular expression.
    pub pattern: String,
    /// The file or directory to search (default: the working directory).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// A glob the files must match (`rg --glob`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub glob: Option<String>,
    /// What to answer with.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_mode: Option<GrepOutputMode>,
    /// Lines before each match (`-B`).
    #[serde(rename = "-B", default, skip_serializing_if = "Option::is_none")]
    pub before: Option<u64>,
    /// Lines after each match (`-A`).
    #[serde(rename = "-A", default, skip_serializing_if = "Option::is_none")]
    pub after: Option<u64>,
    /// Lines around each match (`-C`, an alias of `context`).
    #[serde(rename = "-C", default, skip_serializing_if = "Option::is_none")]
    pub around: Option<u64>,
    /// Lines around each match.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context: Option<u64>,
    /// Show line numbers (`-n`; default true).
    #[serde(rename = "-n", default, skip_serializing_if = "Option::is_none")]
    pub line_numbers: Option<bool>,
    /// Ignore case (`-i`).
    #[serde(rename = "-i", default, skip_serializing_if = "Option::is_none")]
    pub case_insensitive: Option<bool>,
    /// Print only the matched parts (`-o`).
    #[serde(rename = "-o", default, skip_serializing_if = "Option::is_none")]
    pub only_matching: Option<bool>,
    /// A file type (`rg --type`: `rust`, `py`…).
    #[serde(rename = "type", default, skip_serializing_if = "Option::is_none")]
    pub file_type: Option<String>,
    /// At most this many lines or entries (default 250; 0 for all).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub head_limit: Option<u64>,
    /// Skip this many lines or entries first.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub offset: Option<u64>,
    /// Let patterns span lines (`rg -U --multiline-dotall`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub multiline: Option<bool>,
    /// Fields this library does not know, kept as they came.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `Grep`'s answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct GrepOutput {
    /// What it answered with.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<GrepOutputMode>,
    /// How many files matched.
    #[serde(rename = "numFiles")]
    pub num_files: u64,
    /// The matching files.
    pub filenames: Vec<String>,
    /// The matching lines (`content` mode).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<String>,
    /// How many lines `content` has.
    #[serde(rename = "numLines", default, skip_serializing_if = "Option::is_none")]
    pub num_lines: Option<u64>,
    /// How many matches (`count` mode).
    #[serde(
        rename = "numMatches",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub num_matches: Option<u64>,
    /// Files before the limit.
    #[serde(
        rename = "totalFiles",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub total_files: Option<u64>,
    /// Lines before the limit.
    #[serde(
        rename = "totalLines",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub total_lines: Option<u64>,
    /// The limit applied.
    #[serde(
        rename = "appliedLimit",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub applied_limit: Option<u64>,
    /// The offset applied.
    #[serde(
        rename = "appliedOffset",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub applied_offset: Option<u64>,
    /// The time limit stopped the search.
    #[serde(rename = "timedOut", default, skip_serializing_if = "Option::is_none")]
    pub timed_out: Option<bool>,
    /// Fields this library does not know, kept as they came.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}
