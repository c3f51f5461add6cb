//! The watchdog: one thread for the whole process, outside every tokio runtime, that notices a
//! request's first poll that does not return (a handler blocking its thread) and hands that
//! session's reader to a new task, so the session's other requests are still read and answered.
//!
//! It is a thread of its own, not a task, because a task cannot be relied on while a worker is
//! blocked. Tokio's multi-thread scheduler puts a task woken or spawned from a worker into that
//! worker's LIFO slot, which no other worker can steal; the worker that wakes a sleeping watchdog
//! task as the first poll starts is the very one that then blocks. And timers and I/O readiness
//! are collected only by a worker that parks on the driver: when the one that last did is the one
//! now blocked, and the other one sleeps on its condition variable, no timer fires (a ticking
//! watchdog task's included) until something wakes it. From a thread outside the runtime,
//! [`Handle::spawn`](tokio::runtime::Handle::spawn) goes through the runtime's shared queue and
//! wakes an idle worker, which then runs the new reader and, as it parks again, drives the
//! timers and I/O.
//!
//! The cost on the reader's side is one uncontended lock per first poll, to leave the reader in
//! its [`Baton`] and take it back, as before, and a load of the watchdog's `asleep` flag. The
//! thread looks at the sessions every [`TICK`] while any of them is serving requests, and sleeps
//! on a condition variable once none has for [`IDLE_TICKS`] ticks, until a first poll wakes it.

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex, OnceLock, Weak};
use std::time::Duration;

use super::reader_state::Reader;
use super::{SessionCore, lock};

/// How often the watchdog looks for a first poll that does not return: one that has been
/// running across a whole tick (5 to 10 ms) is taken to block its thread.
const TICK: Duration = Duration::from_millis(5);
/// Ticks without a first poll in any session before the watchdog sleeps until the next one.
const IDLE_TICKS: u32 = 20;

/// How a session's reading goes on from a reader the watchdog took: the future the new reader
/// task runs. Given by the reader at [`Baton::watch`], so this file does not name the reader's.
pub(super) type Resume =
    fn(Arc<SessionCore>, Reader, Arc<Baton>) -> Pin<Box<dyn Future<Output = ()> + Send>>;

/// One session's side of the watchdog: where its reader is left for the length of each first
/// poll, for the watchdog to take if the poll does not return.
pub(super) struct Baton {
    slot: Mutex<Slot>,
    /// Where a new reader task is spawned.
    runtime: tokio::runtime::Handle,
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
    /// The baton of a session whose reader runs on the current runtime, watched from now on;
    /// `None` when the watchdog thread cannot be started.
    pub(super) fn watch(shared: &Arc<SessionCore>, resume: Resume) -> Option<Arc<Baton>> {
        let watchdog = Watchdog::get()?;
        let baton = Arc::new(Baton {
            slot: Mutex::default(),
            runtime: tokio::runtime::Handle::current(),
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

    /// Takes the reader back after a first poll; `None` if the watchdog gave it to a new task.
    pub(super) fn unpark(&self) -> Option<Reader> {
        lock(&self.slot).parked.take()
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
                    tracing::warn!(
                        "a request's first poll has not returned for over {TICK:?} (a handler \
                         blocking its thread?); reading on in a new task. Blocking work belongs \
                         in tokio::task::spawn_blocking"
                    );
                    let (runtime, shared) = (baton.runtime.clone(), baton.shared.clone());
                    let resume = baton.resume;
                    runtime.spawn(resume(shared, reader, baton));
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
