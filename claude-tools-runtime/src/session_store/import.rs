//! [`import_transcript`]: a transcript file the CLI wrote, copied into a store.

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::sessions::AGENT_METADATA;
use super::{SessionKey, SessionStore, StoreError, TranscriptEntry};
use crate::history::ids::is_uuid;
use crate::history::paths::find_session;
use crate::history::{HistoryError, Lookup};

/// Lines per [`SessionStore::append`] when importing.
const IMPORT_BATCH: usize = 500;

/// Appends every whole line of the transcript file `file` to `key` in `store`, in order, in
/// batches; returns how many lines were appended. Lines that are not transcript lines (not JSON,
/// or a line the CLI is still writing) are skipped.
///
/// For a session run without a store, or the lines a
/// [`MirrorError`](super::MirrorError) reports as not mirrored (the store deduplicates the lines
/// it has by uuid): the official SDKs' `importSessionToStore`.
///
/// ```no_run
/// use claude_tools::session_store::{InMemorySessionStore, SessionKey, import_transcript};
///
/// # async fn run() -> Result<(), claude_tools::session_store::StoreError> {
/// let store = InMemorySessionStore::new();
/// let id = "3f1c2a9e-0b1d-4c55-9a7e-2d8e6f1a4b20";
/// let key = SessionKey::new(SessionKey::project_key_for("/srv/app"), id);
/// let file = format!("/home/me/.claude/projects/-srv-app/{id}.jsonl");
/// import_transcript(&store, file.as_ref(), &key).await?;
/// # Ok(())
/// # }
/// ```
pub async fn import_transcript(
    store: &dyn SessionStore,
    file: &Path,
    key: &SessionKey,
) -> Result<usize, StoreError> {
    let path = file.to_path_buf();
    let content = tokio::task::spawn_blocking(move || std::fs::read(path))
        .await
        .map_err(StoreError::backend)?
        .map_err(StoreError::backend)?;
    let entries = entries_of(&content);
    for batch in entries.chunks(IMPORT_BATCH) {
        store.append(key, batch).await?;
    }
    Ok(entries.len())
}

/// The transcript lines of a file's bytes: whole lines only (a last line without its newline
/// may still be being written), lines that are not transcript lines skipped.
fn entries_of(content: &[u8]) -> Vec<TranscriptEntry> {
    let whole = match content.iter().rposition(|b| *b == b'\n') {
        Some(end) => &content[..end],
        None => &content[..0],
    };
    whole
        .split(|b| *b == b'\n')
        .filter_map(|line| std::str::from_utf8(line.trim_ascii()).ok())
        .filter(|line| !line.is_empty())
        .filter_map(|line| TranscriptEntry::from_json(line).ok())
        .collect()
}

/// How [`import_session`] imports: where the session is, under which project key, with its
/// subagents or not, in batches of how many lines.
///
/// ```
/// use claude_tools::session_store::ImportSession;
///
/// let import = ImportSession::new().dir("/srv/app").include_subagents(false).batch_size(100);
/// assert_eq!((import.include_subagents, import.batch_size), (false, 100));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ImportSession {
    /// Where the local transcript is looked for (as the [`sessions`](crate::history) functions
    /// look).
    pub lookup: Lookup,
    /// The project key to import under. `None`: the one the CLI gives the lookup's `dir`, or
    /// without a `dir`, the name of the project folder the session was found in (the same).
    pub project_key: Option<String>,
    /// Also the session's subagents' transcripts (default `true`), each with its
    /// `.meta.json` as an `agent_metadata` line.
    pub include_subagents: bool,
    /// Lines per [`SessionStore::append`] (default 500; 0 is read as 1).
    pub batch_size: usize,
}

impl Default for ImportSession {
    fn default() -> Self {
        Self {
            lookup: Lookup::default(),
            project_key: None,
            include_subagents: true,
            batch_size: IMPORT_BATCH,
        }
    }
}

impl ImportSession {
    /// Look everywhere, subagents included, 500 lines a batch.
    pub fn new() -> Self {
        Self::default()
    }

    /// Look in the project that ran in `dir` (see [`Lookup::dir`]).
    pub fn dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.lookup.dir = Some(dir.into());
        self
    }

    /// Where to look, all at once (see [`Lookup`]).
    pub fn lookup(mut self, lookup: impl Into<Lookup>) -> Self {
        self.lookup = lookup.into();
        self
    }

    /// The project key to import under.
    pub fn project_key(mut self, project_key: impl Into<String>) -> Self {
        self.project_key = Some(project_key.into());
        self
    }

    /// Whether the subagents' transcripts are imported too.
    pub fn include_subagents(mut self, include: bool) -> Self {
        self.include_subagents = include;
        self
    }

    /// Lines per append.
    pub fn batch_size(mut self, lines: usize) -> Self {
        self.batch_size = lines;
        self
    }
}

/// Copies a session the CLI recorded locally (found by id, as
/// [`session_messages`](crate::history::session_messages) finds it) into `store`, with its
/// subagents' transcripts unless told not to: the official SDKs' `importSessionToStore`.
/// Gives the key it was imported under. Running it again appends only the lines the store does
/// not have (a store deduplicates on uuids).
///
/// ```no_run
/// use claude_tools::session_store::{ImportSession, InMemorySessionStore, import_session};
///
/// # async fn run() -> Result<(), claude_tools::sessions::HistoryError> {
/// let store = InMemorySessionStore::new();
/// let id = "3f1c2a9e-0b1d-4c55-9a7e-2d8e6f1a4b20";
/// let key = import_session(&store, id, &ImportSession::new().dir("/srv/app")).await?;
/// # Ok(())
/// # }
/// ```
pub async fn import_session(
    store: &dyn SessionStore,
    session_id: &str,
    options: &ImportSession,
) -> Result<SessionKey, HistoryError> {
    if !is_uuid(session_id) {
        return Err(HistoryError::InvalidSessionId(session_id.to_string()));
    }
    let (lookup, id) = (options.lookup.clone(), session_id.to_string());
    let (file, project) = tokio::task::spawn_blocking(move || find_session(&lookup, &id))
        .await
        .map_err(|error| HistoryError::io("finding", "", std::io::Error::other(error)))??;
    let project_key = match (&options.project_key, options.lookup.dir_path()) {
        (Some(key), _) => key.clone(),
        (None, Some(dir)) => SessionKey::project_key_for(dir),
        (None, None) => project
            .file_name()
            .map(|name| name.to_string_lossy().into_owned())
            .unwrap_or_default(),
    };
    let key = SessionKey::new(project_key, session_id);
    let batch = options.batch_size.max(1);
    let failed = |source| HistoryError::Store {
        operation: "append",
        source,
    };
    let entries = read_lines(&file).await?;
    for chunk in entries.chunks(batch) {
        store.append(&key, chunk).await.map_err(failed)?;
    }
    if !options.include_subagents {
        return Ok(key);
    }
    let folder = project.join(session_id);
    let files = tokio::task::spawn_blocking(move || {
        let mut files = Vec::new();
        transcripts_under(&folder, &folder, &mut files);
        files
    })
    .await
    .map_err(|error| HistoryError::io("listing", "", std::io::Error::other(error)))?;
    for (subpath, file) in files {
        let sub = key.clone().with_subpath(&subpath);
        let mut entries = read_lines(&file).await?;
        let meta = file.with_extension("meta.json");
        // An unreadable or malformed `.meta.json` is left out, as the local readers do.
        if let Ok(bytes) = read_file(meta).await
            && let Ok(Value::Object(meta)) = serde_json::from_slice::<Value>(&bytes)
        {
            let mut line = serde_json::Map::new();
            line.insert("type".into(), AGENT_METADATA.into());
            line.extend(meta.into_iter().filter(|(k, _)| k != "type"));
            entries.push(TranscriptEntry::from_value(&Value::Object(line)).map_err(failed)?);
        }
        for chunk in entries.chunks(batch) {
            store.append(&sub, chunk).await.map_err(failed)?;
        }
    }
    Ok(key)
}

/// The whole transcript lines of `file`.
async fn read_lines(file: &Path) -> Result<Vec<TranscriptEntry>, HistoryError> {
    let content = read_file(file.to_path_buf())
        .await
        .map_err(|error| HistoryError::io("reading", file, error))?;
    Ok(entries_of(&content))
}

/// A file's bytes, read on the blocking pool.
async fn read_file(path: PathBuf) -> std::io::Result<Vec<u8>> {
    tokio::task::spawn_blocking(move || std::fs::read(path))
        .await
        .map_err(std::io::Error::other)?
}

/// Every `.jsonl` under `dir`, at any depth, with its path relative to `root` without
/// `.jsonl` (`/`-separated), sorted.
fn transcripts_under(root: &Path, dir: &Path, found: &mut Vec<(String, PathBuf)>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<_> = entries.flatten().collect();
    entries.sort_by_key(|entry| entry.file_name());
    for entry in entries {
        let path = entry.path();
        match entry.file_type() {
            Ok(kind) if kind.is_dir() => transcripts_under(root, &path, found),
            Ok(kind) if kind.is_file() => {
                let Some(relative) = path
                    .strip_prefix(root)
                    .ok()
                    .and_then(|r| r.to_str())
                    .and_then(|r| r.strip_suffix(".jsonl"))
                else {
                    continue;
                };
                found.push((relative.replace('\\', "/"), path));
            }
            _ => {}
        }
    }
}
