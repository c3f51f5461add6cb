//! The watchdog: one thread for the whole process, outside every tokio runtime, that notices a
//! request's first poll that does not return (a handler blocking the session's reading thread)
//! and hands that session's reader to a new reading thread, so the session's other requests are
//! still read and answered.
//!
//! It is a thread of its own because nothing that runs on a runtime can be relied on while a
//! thread of that runtime is blocked (see the reader). The new reading thread has a runtime of
//! its own, with which the CLI's stdout registers anew as it reads (`transport::mobile`): it
//! needs nothing of the blocked thread, nor of the application's runtime.
//!
//! The cost on the reader's side is one uncontended lock per first poll, to leave the reader in
//! its [`Baton`] and take it back, and a load of the watchdog's `asleep` flag. The thread looks
//! at the sessions every [`TICK`] while any of them is serving requests, and sleeps on a
//! condition variable once none has for [`IDLE_TICKS`] ticks, until a first poll wakes it.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex, OnceLock, Weak};
use std::time::{Duration, Instant};

use super::reader_state::Reader;
use super::{SessionCore, lock};

/// How often the watchdog looks for a first poll that does not return: one that has been
/// running across a whole tick (5 to 10 ms) is taken to block its thread.
const TICK: Duration = Duration::from_millis(5);
/// Ticks without a first poll in any session before the watchdog sleeps until the next one.
const IDLE_TICKS: u32 = 20;

/// How a session's reading goes on from a reader the watchdog took: starts a new reading thread
/// with it, or gives it back (`Some`) when none can be started. Given by the reader at [`Baton::watch`],
/// so this file does not name the reader's.
pub(super) type Resume = fn(Arc<SessionCore>, Reader, Arc<Baton>) -> Option<Reader>;

/// One session's side of the watchdog: where its reader is left for the length of each first
/// poll, for the watchdog to take if the poll does not return.
pub(super) struct Baton {
    slot: Mutex<Slot>,
    shared: Arc<SessionCore>,
    /// What the new reader task runs.
    resume: Resume,
    watchdog: &'static Watchdog,
}

#[derive(Default)]
struct Slot {
    parked: Option<Reader>,
    /// First polls started so far.
    polls: u64,
    /// `polls` when the watchdog last looked.
    seen: u64,
    /// When the watchdog first saw the first poll that is parked now: how long the host's
    /// code held the thread is measured from here (up to one tick short).
    first_seen: Option<Instant>,
    /// How long the first poll the watchdog took the reader from held its thread, measured as
    /// the poll returned.
    held: Duration,
    /// The reading has ended.
    ended: bool,
}

/// What the watchdog found in a session.
enum Look {
    /// No first poll since the last look.
    Idle,
    /// A first poll started since the last look, or is running.
    Busy,
    /// A first poll has been running since the last look: the reader to hand on.
    Stuck(Reader),
    /// The session's reading has ended.
    Ended,
}

impl Baton {
    /// The baton of a session, watched from now on; `None` when the watchdog thread cannot be
    /// started.
    pub(super) fn watch(shared: &Arc<SessionCore>, resume: Resume) -> Option<Arc<Baton>> {
        let watchdog = Watchdog::get()?;
        let baton = Arc::new(Baton {
            slot: Mutex::default(),
            shared: shared.clone(),
            resume,
            watchdog,
        });
        let mut sessions = lock(&watchdog.sessions);
        sessions.retain(|session| session.strong_count() > 0);
        sessions.push(Arc::downgrade(&baton));
        Some(baton)
    }

    /// Leaves the reader here for the length of a first poll.
    pub(super) fn park(&self, reader: Reader) {
        {
            let mut slot = lock(&self.slot);
            slot.parked = Some(reader);
            slot.polls += 1;
        }
        // After the poll is published: a watchdog going to sleep either sees it or has set the
        // flag first (see `Watchdog::run`).
        if self.watchdog.asleep.load(Ordering::SeqCst) {
            self.watchdog.wake();
        }
    }

    /// Takes the reader back after a first poll; `None` if the watchdog gave it to a new
    /// reading thread (then [`Baton::held`] says for how long the poll held its thread).
    pub(super) fn unpark(&self) -> Option<Reader> {
        let mut slot = lock(&self.slot);
        let reader = slot.parked.take();
        if reader.is_none() {
            slot.held = slot
                .first_seen
                .map(|seen| seen.elapsed())
                .unwrap_or_default();
        }
        slot.first_seen = None;
        reader
    }

    /// How long the last first poll whose reader was handed on held its thread (from when the
    /// watchdog first saw it, so up to one tick short).
    pub(super) fn held(&self) -> Duration {
        lock(&self.slot).held
    }

    /// The reading has ended: the watchdog forgets this session.
    pub(super) fn end(&self) {
        lock(&self.slot).ended = true;
    }

    fn look(&self) -> Look {
        let mut slot = lock(&self.slot);
        if slot.ended {
            return Look::Ended;
        }
        let same_poll = slot.polls == slot.seen;
        slot.seen = slot.polls;
        match slot.parked.take() {
            Some(reader) if same_poll => Look::Stuck(reader),
            Some(reader) => {
                slot.parked = Some(reader);
                slot.first_seen = Some(Instant::now());
                Look::Busy
            }
            None if same_poll => Look::Idle,
            None => Look::Busy,
        }
    }

    fn has_parked(&self) -> bool {
        lock(&self.slot).parked.is_some()
    }
}

/// The process's watchdog thread's state.
struct Watchdog {
    /// Every session watched (pruned as they end).
    sessions: Mutex<Vec<Weak<Baton>>>,
    /// Wakes the sleeping thread; waited on with `sessions`.
    wake: Condvar,
    /// The thread sleeps until a first poll wakes it.
    asleep: AtomicBool,
}

impl Watchdog {
    /// The process's watchdog, its thread started on first use; `None` if it could not be.
    fn get() -> Option<&'static Watchdog> {
        static WATCHDOG: OnceLock<Option<&'static Watchdog>> = OnceLock::new();
        *WATCHDOG.get_or_init(|| {
            let watchdog: &'static Watchdog = Box::leak(Box::new(Watchdog {
                sessions: Mutex::default(),
                wake: Condvar::new(),
                asleep: AtomicBool::new(false),
            }));
            let started = std::thread::Builder::new()
                .name("claude-tools-watchdog".into())
                .spawn(move || watchdog.run());
            match started {
                Ok(_) => Some(watchdog),
                Err(error) => {
                    tracing::warn!(
                        %error,
                        "could not start the session watchdog thread: a handler that blocks its \
                         thread will stall its session until it returns"
                    );
                    None
                }
            }
        })
    }

    fn wake(&self) {
        let _sessions = lock(&self.sessions);
        self.asleep.store(false, Ordering::SeqCst);
        self.wake.notify_one();
    }

    fn run(&self) {
        let mut idle_ticks = 0;
        let mut stuck = Vec::new();
        let mut sessions = lock(&self.sessions);
        loop {
            let mut busy = false;
            sessions.retain(|session| {
                let Some(baton) = session.upgrade() else {
                    return false;
                };
                match baton.look() {
                    Look::Idle => true,
                    Look::Busy => {
                        busy = true;
                        true
                    }
                    Look::Stuck(reader) => {
                        busy = true;
                        stuck.push((baton, reader));
                        true
                    }
                    Look::Ended => false,
                }
            });
            if !stuck.is_empty() {
                drop(sessions);
                for (baton, reader) in stuck.drain(..) {
                    // The thread that was stuck names the handler once its poll returns.
                    tracing::debug!(
                        "a request's first poll has not returned for over {TICK:?}; reading on \
                         in a new thread"
                    );
                    let resume = baton.resume;
                    if let Some(reader) = resume(baton.shared.clone(), reader, baton.clone()) {
                        // No new thread: the stuck one reads on once its poll returns.
                        let mut slot = lock(&baton.slot);
                        slot.parked = Some(reader);
                        slot.seen = slot.polls;
                    }
                }
                sessions = lock(&self.sessions);
            }
            idle_ticks = if busy { 0 } else { idle_ticks + 1 };
            if idle_ticks < IDLE_TICKS {
                sessions = match self.wake.wait_timeout(sessions, TICK) {
                    Ok((sessions, _)) => sessions,
                    Err(poisoned) => poisoned.into_inner().0,
                };
                continue;
            }
            // Going to sleep. The flag is set before the last look, so a first poll that
            // starts after the look sees it and wakes the thread.
            self.asleep.store(true, Ordering::SeqCst);
            let parked = sessions
                .iter()
                .filter_map(Weak::upgrade)
                .any(|baton| baton.has_parked());
            if !parked {
                sessions = match self
                    .wake
                    .wait_while(sessions, |_| self.asleep.load(Ordering::SeqCst))
                {
                    Ok(sessions) => sessions,
                    Err(poisoned) => poisoned.into_inner(),
                };
            }
            self.asleep.store(false, Ordering::SeqCst);
            idle_ticks = 0;
        }
    }
}
