//! [`import_transcript`]: a transcript file the CLI wrote, copied into a store.

use std::path::Path;

use super::{SessionKey, SessionStore, StoreError, TranscriptEntry};

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
    // A last line without its newline may still be being written: only whole lines.
    let whole = match content.iter().rposition(|b| *b == b'\n') {
        Some(end) => &content[..end],
        None => &content[..0],
    };
    let entries: Vec<TranscriptEntry> = whole
        .split(|b| *b == b'\n')
        .filter_map(|line| std::str::from_utf8(line.trim_ascii()).ok())
        .filter(|line| !line.is_empty())
        .filter_map(|line| TranscriptEntry::from_json(line).ok())
        .collect();
    for batch in entries.chunks(IMPORT_BATCH) {
        store.append(key, batch).await?;
    }
    Ok(entries.len())
}
