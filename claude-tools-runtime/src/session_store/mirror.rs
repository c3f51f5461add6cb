//! The mirror writer: `transcript_mirror` frames taken off the CLI's stdout by the reader
//! (never waiting), batched, and appended to the store by a task of their own.
//!
//! The reader only queues ([`Mirror::enqueue`]) and asks for a flush at each `result`; the
//! writer task takes everything queued, appends it per transcript in order, and puts back in
//! front what failed. What is queued or being appended counts against the bound; see the
//! module docs of [`session_store`](super) for what happens at it.

use std::collections::{HashMap, VecDeque};
use std::path::PathBuf;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use serde::Deserialize;
use tokio::sync::{Notify, mpsc};

use super::{MirrorError, SessionKey, SessionStore, TranscriptEntry};
use crate::error::Result;
use crate::message::Message;

/// More lines than this waiting starts a batch before the turn's `result`.
pub const FLUSH_ENTRIES: usize = 500;
/// More bytes than this waiting starts a batch before the turn's `result`.
pub const FLUSH_BYTES: usize = 1 << 20;
/// The default bound on the bytes of lines waiting for the store (64 MiB).
pub const DEFAULT_BUFFER_LIMIT: usize = 64 << 20;
/// The default longest wait for one [`SessionStore::append`].
pub const DEFAULT_APPEND_TIMEOUT: Duration = Duration::from_secs(60);

/// Attempts per batch in one round, and the pauses between them.
const ATTEMPTS: usize = 3;
const BACKOFF: [Duration; ATTEMPTS - 1] = [Duration::from_millis(200), Duration::from_millis(800)];
/// After a failed round, the least time before the next one.
const RETRY_PAUSE: Duration = Duration::from_secs(1);

/// A `transcript_mirror` frame: the lines the CLI just wrote to one transcript file.
#[derive(Debug, Deserialize)]
pub(crate) struct MirrorFrame {
    #[serde(rename = "filePath")]
    pub(crate) file_path: PathBuf,
    pub(crate) entries: Vec<TranscriptEntry>,
}

/// How a session mirrors (from [`SessionStoreOptions`](crate::options::SessionStoreOptions)).
#[derive(Clone)]
pub(crate) struct MirrorConfig {
    pub(crate) store: Arc<dyn SessionStore>,
    /// The CLI's `<config dir>/projects`, to make keys of the frames' file paths.
    pub(crate) projects: PathBuf,
    pub(crate) project_key: Option<String>,
    pub(crate) buffer_limit: usize,
    pub(crate) append_timeout: Duration,
    pub(crate) eager: bool,
}

impl MirrorConfig {
    /// The mirror of a session run with `options`, when they have a store.
    pub(crate) fn from_options(options: &crate::options::Options) -> Option<MirrorConfig> {
        let store = options.session_store.as_ref()?;
        let lookup = crate::history::Lookup::from(options);
        let projects = match crate::history::paths::projects_dir(&lookup) {
            Ok(projects) => projects,
            Err(error) => {
                // Every frame will then be reported as naming no transcript.
                tracing::warn!(%error, "session store: the CLI's config dir is unknown");
                PathBuf::new()
            }
        };
        Some(MirrorConfig {
            store: store.store.clone(),
            projects,
            project_key: store.project_key.clone(),
            buffer_limit: store.buffer_limit,
            append_timeout: store.append_timeout,
            eager: store.flush == crate::options::SessionStoreFlush::Eager,
        })
    }
}

/// Lines of one transcript waiting for the store.
struct Batch {
    key: SessionKey,
    file: PathBuf,
    entries: Vec<TranscriptEntry>,
    bytes: usize,
}

#[derive(Default)]
struct Pending {
    queue: VecDeque<Batch>,
    /// Lines not yet in the store: queued, or in the writer's hands.
    held_entries: usize,
    held_bytes: usize,
    /// Lines queued since the last flush began (what decides an early flush).
    unflushed_entries: usize,
    unflushed_bytes: usize,
    /// The writer's current round, per transcript: lines taken but not yet appended.
    in_round: Vec<(SessionKey, PathBuf, usize)>,
    flush: bool,
    closing: bool,
    /// Transcripts no longer mirrored (the bound was reached): their file, and the lines not
    /// mirrored since.
    stopped: HashMap<SessionKey, (PathBuf, u64)>,
}

struct Shared {
    config: MirrorConfig,
    pending: Mutex<Pending>,
    wake: Notify,
    /// The session's message queue, not kept open by the writer.
    reports: mpsc::WeakSender<Result<Message>>,
}

/// A session's mirror: the writer task and what it shares with the reader.
pub(crate) struct Mirror {
    shared: Arc<Shared>,
    task: Mutex<Option<tokio::task::JoinHandle<()>>>,
}

impl Mirror {
    /// Starts the writer task.
    pub(crate) fn start(config: MirrorConfig, reports: &mpsc::Sender<Result<Message>>) -> Mirror {
        let shared = Arc::new(Shared {
            config,
            pending: Mutex::default(),
            wake: Notify::new(),
            reports: reports.downgrade(),
        });
        let task = tokio::spawn(write_loop(shared.clone()));
        Mirror {
            shared,
            task: Mutex::new(Some(task)),
        }
    }

    /// Queues a frame's lines (never waits). A report to make at once (the bound was reached,
    /// or the frame names no transcript) is returned for the reader to put in the stream.
    pub(crate) fn enqueue(&self, frame: MirrorFrame) -> Option<MirrorError> {
        let config = &self.shared.config;
        let count = frame.entries.len();
        if count == 0 {
            return None;
        }
        let Some(key) = SessionKey::from_transcript_path(
            &frame.file_path,
            &config.projects,
            config.project_key.as_deref(),
        ) else {
            let error = MirrorError {
                error: format!(
                    "a transcript_mirror frame names {}, which is not under {}: the CLI runs with \
                     another CLAUDE_CONFIG_DIR than the options give",
                    frame.file_path.display(),
                    config.projects.display()
                ),
                key: None,
                session_id: String::new(),
                file: Some(frame.file_path),
                entries_not_mirrored: count as u64,
                will_retry: false,
            };
            tracing::warn!(error = %error.error, "session store: lines not mirrored");
            return Some(error);
        };
        let bytes: usize = frame.entries.iter().map(TranscriptEntry::len).sum();
        let mut pending = self.shared.lock();
        if let Some((_, lost)) = pending.stopped.get_mut(&key) {
            *lost += count as u64;
            return None;
        }
        if pending.held_bytes + bytes > config.buffer_limit {
            pending
                .stopped
                .insert(key.clone(), (frame.file_path.clone(), count as u64));
            let held = pending.held_bytes;
            drop(pending);
            let error = MirrorError {
                error: format!(
                    "the session store is {held} bytes behind, and {bytes} more would pass the \
                     bound of {} bytes: this transcript is no longer mirrored in this session",
                    config.buffer_limit
                ),
                session_id: key.session_id.clone(),
                key: Some(key),
                file: Some(frame.file_path),
                entries_not_mirrored: count as u64,
                will_retry: false,
            };
            tracing::warn!(error = %error.error, "session store: lines not mirrored");
            return Some(error);
        }
        pending.held_entries += count;
        pending.held_bytes += bytes;
        pending.unflushed_entries += count;
        pending.unflushed_bytes += bytes;
        match pending.queue.back_mut() {
            Some(last) if last.key == key => {
                last.entries.extend(frame.entries);
                last.bytes += bytes;
            }
            _ => pending.queue.push_back(Batch {
                key,
                file: frame.file_path,
                entries: frame.entries,
                bytes,
            }),
        }
        if config.eager
            || pending.unflushed_entries > FLUSH_ENTRIES
            || pending.unflushed_bytes > FLUSH_BYTES
        {
            pending.flush = true;
            drop(pending);
            self.shared.wake.notify_one();
        }
        None
    }

    /// Asks for what is queued to be appended now (at a turn's `result`).
    pub(crate) fn flush_soon(&self) {
        let mut pending = self.shared.lock();
        if pending.queue.is_empty() {
            return;
        }
        pending.flush = true;
        drop(pending);
        self.shared.wake.notify_one();
    }

    /// The session's end: appends what is queued, waiting at most the append timeout (plus the
    /// pauses between attempts), then reports what is still not in the store and stops the
    /// writer.
    pub(crate) async fn finish(&self) {
        let task = {
            let mut pending = self.shared.lock();
            pending.closing = true;
            pending.flush = true;
            self.task.lock().unwrap_or_else(|p| p.into_inner()).take()
        };
        self.shared.wake.notify_one();
        let Some(mut task) = task else { return };
        let wait = self.shared.config.append_timeout + BACKOFF.iter().sum::<Duration>();
        let finished = tokio::time::timeout(wait, &mut task).await.is_ok();
        if !finished {
            self.give_up(task, wait).await;
        }
        // The totals of the transcripts that stopped being mirrored at the bound.
        let stopped: Vec<(SessionKey, (PathBuf, u64))> =
            self.shared.lock().stopped.drain().collect();
        for (key, (file, lost)) in stopped {
            let error = "the session ended; this transcript stopped being mirrored when the \
                         store fell behind by more than the bound"
                .to_string();
            self.shared
                .report(failure(key, file, lost as usize, error, false))
                .await;
        }
    }

    /// Stops a writer that did not finish in time and reports what it still held.
    async fn give_up(&self, task: tokio::task::JoinHandle<()>, wait: Duration) {
        task.abort();
        let _ = task.await;
        // The writer is gone: whatever it held or had queued will not reach the store.
        let lost = {
            let mut pending = self.shared.lock();
            let mut lost: Vec<(SessionKey, PathBuf, usize)> = std::mem::take(&mut pending.in_round);
            lost.extend(
                pending
                    .queue
                    .drain(..)
                    .map(|b| (b.key, b.file, b.entries.len())),
            );
            lost
        };
        for (key, file, count) in merge(lost) {
            let error =
                format!("the session ended and the store did not take these lines within {wait:?}");
            self.shared
                .report(failure(key, file, count, error, false))
                .await;
        }
    }
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, Pending> {
        // Every update of `Pending` is whole before anything that could panic.
        self.pending.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Puts a report in the session's message stream (while it is open), and in the log.
    async fn report(&self, error: MirrorError) {
        tracing::warn!(
            key = ?error.key,
            error = %error.error,
            entries = error.entries_not_mirrored,
            will_retry = error.will_retry,
            "session store: a batch was not mirrored"
        );
        if let Some(queue) = self.reports.upgrade() {
            let _ = queue.send(Ok(error.to_message())).await;
        }
    }

    /// One append with its timeout and retries.
    async fn append(&self, key: &SessionKey, entries: &[TranscriptEntry]) -> Result<(), String> {
        let mut last = String::new();
        for attempt in 0..ATTEMPTS {
            if attempt > 0 {
                tokio::time::sleep(BACKOFF[attempt - 1]).await;
            }
            let append = self.config.store.append(key, entries);
            match tokio::time::timeout(self.config.append_timeout, append).await {
                Ok(Ok(())) => return Ok(()),
                Ok(Err(error)) => last = error.to_string(),
                // The append may still land: not tried again in this round (the store
                // deduplicates a later one by uuid).
                Err(_) => {
                    return Err(format!(
                        "the store did not answer within {:?}",
                        self.config.append_timeout
                    ));
                }
            }
        }
        Err(format!("{last} (after {ATTEMPTS} attempts)"))
    }
}

/// Batches of the same transcript merged, in order of first appearance.
fn merge(
    items: impl IntoIterator<Item = (SessionKey, PathBuf, usize)>,
) -> Vec<(SessionKey, PathBuf, usize)> {
    let mut merged: Vec<(SessionKey, PathBuf, usize)> = Vec::new();
    for (key, file, count) in items {
        match merged.iter_mut().find(|(k, _, _)| *k == key) {
            Some((_, _, total)) => *total += count,
            None => merged.push((key, file, count)),
        }
    }
    merged
}

fn failure(
    key: SessionKey,
    file: PathBuf,
    count: usize,
    error: String,
    will_retry: bool,
) -> MirrorError {
    MirrorError {
        error,
        session_id: key.session_id.clone(),
        key: Some(key),
        file: Some(file),
        entries_not_mirrored: count as u64,
        will_retry,
    }
}

/// The writer task: waits for a flush, appends each transcript's waiting lines in one batch,
/// puts back what failed; at the session's end, one last round, then what failed is reported
/// as not mirrored.
async fn write_loop(shared: Arc<Shared>) {
    loop {
        let (batches, closing) = loop {
            let notified = shared.wake.notified();
            {
                let mut pending = shared.lock();
                if pending.flush || pending.closing {
                    pending.flush = false;
                    pending.unflushed_entries = 0;
                    pending.unflushed_bytes = 0;
                    let batches = coalesce(pending.queue.drain(..));
                    pending.in_round = batches
                        .iter()
                        .map(|b| (b.key.clone(), b.file.clone(), b.entries.len()))
                        .collect();
                    break (batches, pending.closing);
                }
            }
            notified.await;
        };
        let mut failed = Vec::new();
        for batch in batches {
            match shared.append(&batch.key, &batch.entries).await {
                Ok(()) => {
                    let mut pending = shared.lock();
                    pending.held_entries -= batch.entries.len();
                    pending.held_bytes -= batch.bytes;
                    pending.in_round.retain(|(key, _, _)| *key != batch.key);
                }
                Err(error) => {
                    let report = failure(
                        batch.key.clone(),
                        batch.file.clone(),
                        batch.entries.len(),
                        error,
                        !closing,
                    );
                    shared.report(report).await;
                    failed.push(batch);
                }
            }
        }
        if closing {
            return;
        }
        if failed.is_empty() {
            continue;
        }
        {
            let mut pending = shared.lock();
            pending.in_round.clear();
            // In front of anything queued meanwhile: each transcript stays in order.
            for batch in failed.into_iter().rev() {
                pending.queue.push_front(batch);
            }
            pending.flush = true;
        }
        tokio::time::sleep(RETRY_PAUSE).await;
    }
}

/// One batch per transcript, in order of first appearance, each transcript's lines in order.
fn coalesce(items: impl Iterator<Item = Batch>) -> Vec<Batch> {
    let mut batches: Vec<Batch> = Vec::new();
    for item in items {
        match batches.iter_mut().find(|b| b.key == item.key) {
            Some(batch) => {
                batch.entries.extend(item.entries);
                batch.bytes += item.bytes;
            }
            None => batches.push(item),
        }
    }
    batches
}
