//! Resuming from a store: the session's transcripts loaded from the store and written where
//! the CLI looks for them (`<config dir>/projects/<project folder>/`), before it starts.

use std::path::{Path, PathBuf};
use std::time::Duration;

use super::{SessionKey, SessionStore, StoreError, TranscriptEntry};
use crate::error::{Error, Result};
use crate::history::{Lookup, ids, paths};
use crate::options::Options;

/// The default longest wait for each [`SessionStore::load`] (and `list_*`) when resuming.
pub const DEFAULT_LOAD_TIMEOUT: Duration = Duration::from_secs(60);

/// With a store and [`Options::resume`] (or [`Options::continue_conversation`]), writes the
/// session from the store under the config dir; returns the options to launch with (for
/// `continue`, resuming the session found), or `None` when nothing was to be done.
pub(crate) async fn prepare(options: &Options) -> Result<Option<Options>> {
    let Some(config) = &options.session_store else {
        return Ok(None);
    };
    let lookup = Lookup::from(options);
    let dir = paths::canonical(lookup.dir_path().unwrap_or(Path::new(".")));
    let folder = paths::folder_name(&dir.to_string_lossy());
    let project_key = config.project_key.clone().unwrap_or_else(|| folder.clone());
    let store = config.store.as_ref();
    let timeout = config.load_timeout;
    let (session_id, entries) = match (&options.resume, options.continue_conversation) {
        (Some(id), _) => {
            if !ids::is_uuid(id) {
                // Not a path component; the CLI gets it as given.
                return Ok(None);
            }
            let key = SessionKey::new(&project_key, id);
            match load(store, &key, timeout).await? {
                Some(entries) => (id.clone(), entries),
                None => {
                    return Err(Error::SessionNotInStore {
                        session_id: id.clone(),
                        project_key,
                    });
                }
            }
        }
        (None, true) => match latest(store, &project_key, timeout).await? {
            Some(found) => found,
            None => return Ok(None),
        },
        (None, false) => return Ok(None),
    };
    let fail = |message: String| Error::SessionStore {
        session_id: session_id.clone(),
        message,
    };
    let projects = paths::projects_dir(&lookup).map_err(|e| fail(e.to_string()))?;
    let project_dir = projects.join(&folder);
    write_transcript(&project_dir.join(format!("{session_id}.jsonl")), &entries).map_err(|e| {
        fail(format!(
            "writing the transcript under {}: {e}",
            project_dir.display()
        ))
    })?;
    let session = SessionKey::new(&project_key, &session_id);
    let subpaths = match with_timeout(store.list_subkeys(&session), timeout, "list_subkeys").await {
        Ok(subpaths) => subpaths,
        Err(LoadError::Store(StoreError::Unsupported(_))) => Vec::new(),
        Err(error) => return Err(fail(error.to_string())),
    };
    for subpath in subpaths {
        let key = session.clone().with_subpath(&subpath);
        if !key.is_safe_path() {
            tracing::warn!(%key, "session store: a subpath that cannot be a path was skipped");
            continue;
        }
        let Some(entries) = load(store, &key, timeout).await? else {
            continue;
        };
        let file = project_dir
            .join(&session_id)
            .join(format!("{subpath}.jsonl"));
        // A subagent's `.meta.json` is stored as an `agent_metadata` line (as `import_session`
        // and the official SDKs store it): written back as the file the CLI reads.
        let (meta, entries): (Vec<_>, Vec<_>) = entries
            .into_iter()
            .partition(|e| e.entry_type() == super::sessions::AGENT_METADATA);
        write_transcript(&file, &entries)
            .map_err(|e| fail(format!("writing {}: {e}", file.display())))?;
        if let Some(serde_json::Value::Object(mut meta)) =
            meta.last().map(TranscriptEntry::to_value)
        {
            meta.remove("type");
            let meta_file = file.with_extension("meta.json");
            write_whole(
                &meta_file,
                serde_json::Value::Object(meta).to_string().as_bytes(),
            )
            .map_err(|e| fail(format!("writing {}: {e}", meta_file.display())))?;
        }
    }
    let mut resumed = options.clone();
    resumed.resume = Some(session_id);
    resumed.continue_conversation = false;
    Ok(Some(resumed))
}

/// The lines of `key`; `None` when the store has none.
async fn load(
    store: &dyn SessionStore,
    key: &SessionKey,
    timeout: Duration,
) -> Result<Option<Vec<TranscriptEntry>>> {
    match with_timeout(store.load(key), timeout, "load").await {
        Ok(Some(entries)) if !entries.is_empty() => Ok(Some(entries)),
        Ok(_) => Ok(None),
        Err(error) => Err(Error::SessionStore {
            session_id: key.session_id.clone(),
            message: error.to_string(),
        }),
    }
}

/// For `continue`: the most recently written session of the project that is not a subagent's
/// side conversation, with its lines.
async fn latest(
    store: &dyn SessionStore,
    project_key: &str,
    timeout: Duration,
) -> Result<Option<(String, Vec<TranscriptEntry>)>> {
    let mut sessions = with_timeout(store.list_sessions(project_key), timeout, "list_sessions")
        .await
        .map_err(|error| Error::SessionStore {
            session_id: "(the latest)".into(),
            message: error.to_string(),
        })?;
    sessions.sort_by_key(|session| std::cmp::Reverse(session.modified));
    for session in sessions {
        if !ids::is_uuid(&session.session_id) {
            continue;
        }
        let key = SessionKey::new(project_key, &session.session_id);
        let Some(entries) = load(store, &key, timeout).await? else {
            continue;
        };
        if entries.first().is_some_and(TranscriptEntry::is_sidechain) {
            continue;
        }
        return Ok(Some((session.session_id, entries)));
    }
    Ok(None)
}

#[derive(Debug, thiserror::Error)]
enum LoadError {
    #[error("the store's {0} did not answer within {1:?}")]
    Timeout(&'static str, Duration),
    #[error(transparent)]
    Store(#[from] StoreError),
}

async fn with_timeout<T>(
    future: super::StoreFuture<'_, T>,
    timeout: Duration,
    what: &'static str,
) -> std::result::Result<T, LoadError> {
    match tokio::time::timeout(timeout, future).await {
        Ok(result) => Ok(result?),
        Err(_) => Err(LoadError::Timeout(what, timeout)),
    }
}

/// Writes the lines to `file` whole or not at all (a temp file renamed over it), readable by
/// its owner only: the store's copy replaces any local one, so a host resumes the session as
/// the store has it, whichever host ran it last.
fn write_transcript(file: &Path, entries: &[TranscriptEntry]) -> std::io::Result<()> {
    let mut content = String::with_capacity(entries.iter().map(|e| e.len() + 1).sum());
    for entry in entries {
        content.push_str(entry.json());
        content.push('\n');
    }
    write_whole(file, content.as_bytes())
}

/// Writes `content` to `file` whole or not at all, readable by its owner only.
fn write_whole(file: &Path, content: &[u8]) -> std::io::Result<()> {
    let dir = file.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir)?;
    let name = file
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let temp: PathBuf = dir.join(format!(".{name}.{}.tmp", std::process::id()));
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create(true).truncate(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    let written = (|| {
        use std::io::Write;
        let mut out = options.open(&temp)?;
        out.write_all(content)?;
        out.sync_all()?;
        std::fs::rename(&temp, file)
    })();
    if written.is_err() {
        let _ = std::fs::remove_file(&temp);
    }
    written
}
