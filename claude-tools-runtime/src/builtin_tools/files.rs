//! File tools: `Read`, `Write`, `Edit` and `NotebookEdit`.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::wire_enum::wire_enum;

/// `Read`'s input: a file (or part of one) to read.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct FileReadInput {
    /// The file's absolute path.
    pub file_path: String,
    /// The first line to read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub offset: Option<u64>,
    /// How many lines to read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit: Option<u64>,
    /// A PDF's page range (`1-5`, `3`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pages: Option<String>,
    /// Read a text file over the usual size limits.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub allow_large: Option<bool>,
    /// Fields this library does not know, kept as they came.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `Read`'s answer, by the kind of file read (its `type`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "lowercase")]
#[non_exhaustive]
pub enum FileReadOutput {
    /// A text file.
    Text(ReadText),
    /// An image.
    Image(ReadImage),
    /// A Jupyter notebook.
    Notebook(ReadNotebook),
    /// A PDF, whole.
    Pdf(ReadPdf),
    /// A PDF's pages, extracted as images.
    Parts(ReadParts),
}

/// A [`FileReadOutput::Text`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ReadText {
    /// The text read.
    pub file: TextFile,
    /// The Artifact source file this read completed, when it did (`slug`, `ver`).
    #[serde(
        rename = "artifactRead",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub artifact_read: Option<Map<String, Value>>,
    /// Fields this library does not know, kept as they came.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The text of a [`ReadText`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct TextFile {
    /// The file's path.
    #[serde(rename = "filePath")]
    pub file_path: String,
    /// The lines read.
    pub content: String,
    /// How many lines `content` has.
    #[serde(rename = "numLines")]
    pub num_lines: u64,
    /// The first line's number.
    #[serde(rename = "startLine")]
    pub start_line: u64,
    /// How many lines the file has.
    #[serde(rename = "totalLines")]
    pub total_lines: u64,
    /// The file was too large for one read: `content` is its first page.
    #[serde(
        rename = "truncatedByTokenCap",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub truncated_by_token_cap: Option<bool>,
    /// Fields this library does not know, kept as they came.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// A [`FileReadOutput::Image`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ReadImage {
    /// The image.
    pub file: ImageFile,
    /// Fields this library does not know, kept as they came.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The image of a [`ReadImage`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ImageFile {
    /// The image, base64-encoded.
    pub base64: String,
    /// Its MIME type (`image/png`…).
    #[serde(rename = "type")]
    pub media_type: String,
    /// The file's size in bytes.
    #[serde(rename = "originalSize")]
    pub original_size: u64,
    /// Its original and displayed sizes in pixels (`originalWidth`, `displayWidth`…).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dimensions: Option<Map<String, Value>>,
    /// Fields this library does not know, kept as they came.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// A [`FileReadOutput::Notebook`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ReadNotebook {
    /// The notebook.
    pub file: NotebookFile,
    /// Fields this library does not know, kept as they came.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The notebook of a [`ReadNotebook`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct NotebookFile {
    /// Its path.
    #[serde(rename = "filePath")]
    pub file_path: String,
    /// Its cells, as the CLI gives them.
    pub cells: Vec<Value>,
    /// Fields this library does not know, kept as they came.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// A [`FileReadOutput::Pdf`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ReadPdf {
    /// The PDF.
    pub file: PdfFile,
    /// Fields this library does not know, kept as they came.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The PDF of a [`ReadPdf`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct PdfFile {
    /// Its path.
    #[serde(rename = "filePath")]
    pub file_path: String,
    /// The PDF, base64-encoded.
    pub base64: String,
    /// Its size in bytes.
    #[serde(rename = "originalSize")]
    pub original_size: u64,
    /// Fields this library does not know, kept as they came.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// A [`FileReadOutput::Parts`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ReadParts {
    /// Where the pages went.
    pub file: PdfParts,
    /// The number of the first page extracted.
    #[serde(rename = "firstPage", default, skip_serializing_if = "Option::is_none")]
    pub first_page: Option<u64>,
    /// Fields this library does not know (`pages` while in process), kept as they came.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The extracted pages of a [`ReadParts`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct PdfParts {
    /// The PDF's path.
    #[serde(rename = "filePath")]
    pub file_path: String,
    /// Its size in bytes.
    #[serde(rename = "originalSize")]
    pub original_size: u64,
    /// How many pages were extracted.
    pub count: u64,
    /// The directory holding the page images.
    #[serde(rename = "outputDir")]
    pub output_dir: String,
    /// Fields this library does not know, kept as they came.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `Write`'s input: a whole file's new content.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct FileWriteInput {
    /// The file's absolute path.
    pub file_path: String,
    /// What to write.
    pub content: String,
    /// Fields this library does not know, kept as they came.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `Write`'s answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct FileWriteOutput {
    /// `create` (a new file) or `update`.
    #[serde(rename = "type")]
    pub kind: String,
    /// The file's path.
    #[serde(rename = "filePath")]
    pub file_path: String,
    /// What was written.
    pub content: String,
    /// The change as diff hunks.
    #[serde(rename = "structuredPatch")]
    pub structured_patch: Vec<PatchHunk>,
    /// The file before (`None` for a new file, or one too large to include).
    #[serde(rename = "originalFile")]
    pub original_file: Option<String>,
    /// The change as git sees it.
    #[serde(rename = "gitDiff", default, skip_serializing_if = "Option::is_none")]
    pub git_diff: Option<GitDiff>,
    /// The user edited the content before accepting it.
    #[serde(
        rename = "userModified",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub user_modified: Option<bool>,
    /// The write was held for review; the file is unchanged.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub staged: Option<bool>,
    /// Fields this library does not know, kept as they came.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// One hunk of a diff (`structuredPatch`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct PatchHunk {
    /// The first line in the old file.
    #[serde(rename = "oldStart")]
    pub old_start: u64,
    /// How many old lines.
    #[serde(rename = "oldLines")]
    pub old_lines: u64,
    /// The first line in the new file.
    #[serde(rename = "newStart")]
    pub new_start: u64,
    /// How many new lines.
    #[serde(rename = "newLines")]
    pub new_lines: u64,
    /// The lines, each starting with ` `, `-` or `+`.
    pub lines: Vec<String>,
    /// Fields this library does not know, kept as they came.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// A file's change as git sees it (`gitDiff`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct GitDiff {
    /// The file.
    pub filename: String,
    /// `modified` or `added`.
    pub status: String,
    /// Lines added.
    pub additions: u64,
    /// Lines removed.
    pub deletions: u64,
    /// Lines changed.
    pub changes: u64,
    /// The patch.
    pub patch: String,
    /// The GitHub `owner/repo`: absent, `Some(None)` when the CLI sent `null` (not known).
    #[serde(
        default,
        deserialize_with = "super::present_or_null",
        skip_serializing_if = "Option::is_none"
    )]
    pub repository: Option<Option<String>>,
    /// Fields this library does not know, kept as they came.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `Edit`'s input: replace a string in a file.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct FileEditInput {
    /// The file's absolute path.
    pub file_path: String,
    /// The text to replace.
    pub old_string: String,
    /// Its replacement.
    pub new_string: String,
    /// Replace every occurrence (default: the one, which must be unique).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replace_all: Option<bool>,
    /// Fields this library does not know, kept as they came.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `Edit`'s answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct FileEditOutput {
    /// The file's path.
    #[serde(rename = "filePath")]
    pub file_path: String,
    /// The text replaced.
    #[serde(rename = "oldString")]
    pub old_string: String,
    /// Its replacement.
    #[serde(rename = "newString")]
    pub new_string: String,
    /// The file before.
    #[serde(rename = "originalFile")]
    pub original_file: Option<String>,
    /// The change as diff hunks.
    #[serde(rename = "structuredPatch")]
    pub structured_patch: Vec<PatchHunk>,
    /// The user changed the proposed edit.
    #[serde(rename = "userModified")]
    pub user_modified: bool,
    /// Every occurrence was replaced.
    #[serde(rename = "replaceAll")]
    pub replace_all: bool,
    /// The change as git sees it.
    #[serde(rename = "gitDiff", default, skip_serializing_if = "Option::is_none")]
    pub git_diff: Option<GitDiff>,
    /// The edit was held for review; the file is unchanged.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub staged: Option<bool>,
    /// Fields this library does not know, kept as they came.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

wire_enum! {
    /// A notebook cell's type.
    pub enum CellType {
        /// `code`.
        Code = "code",
        /// `markdown`.
        Markdown = "markdown",
    }
}

wire_enum! {
    /// What a `NotebookEdit` does to its cell.
    pub enum NotebookEditMode {
        /// `replace` (the default).
        Replace = "replace",
        /// `insert`: a new cell after `cell_id`.
        Insert = "insert",
        /// `delete`.
        Delete = "delete",
    }
}

/// `NotebookEdit`'s input: change one cell of a Jupyter notebook.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct NotebookEditInput {
    /// The notebook's absolute path.
    pub notebook_path: String,
    /// The cell (for an insert: the cell to insert after).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cell_id: Option<String>,
    /// The cell's new source.
    pub new_source: String,
    /// The cell's type.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cell_type: Option<CellType>,
    /// What to do.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub edit_mode: Option<NotebookEditMode>,
    /// Fields this library does not know, kept as they came.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `NotebookEdit`'s answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct NotebookEditOutput {
    /// The source written.
    pub new_source: String,
    /// The cell's source before.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub old_source: Option<String>,
    /// The cell.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cell_id: Option<String>,
    /// Its type.
    pub cell_type: CellType,
    /// The notebook's language.
    pub language: String,
    /// What was done.
    pub edit_mode: NotebookEditMode,
    /// Why it failed, when it did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// The notebook's path.
    pub notebook_path: String,
    /// The notebook before.
    pub original_file: String,
    /// The notebook after.
    pub updated_file: String,
    /// Fields this library does not know, kept as they came.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}
