//! Single use of MCP 2026-07-28's `requestState` across replicas: the spent states in
//! PostgreSQL, beside the board.
//!
//! A retry carries the sealed state of the round before; the replica that opens it records it
//! as spent, so that the same retry sent again (to this replica or any other) is refused. With
//! the default guard (in each process's memory) a state spent on replica `a` would still open
//! once on replica `b`: every replica has to ask the same table.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, SystemTime};

use claude_tools::mcp::request_state::{GuardError, GuardFuture, ReplayGuard, Spend, StateId};
use deadpool_postgres::Pool;

/// The table (created with the board's, under the same advisory lock): one row per spent state,
/// keyed by its id (the 24-byte nonce), kept until `forget_after`.
pub(super) const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS spent_request_states (
    id BYTEA PRIMARY KEY,
    forget_after TIMESTAMPTZ NOT NULL
);
CREATE INDEX IF NOT EXISTS spent_request_states_forget_after
    ON spent_request_states (forget_after);
";

/// How long a row is kept past its state's expiry: the replicas' clocks may disagree by this
/// much before a state one of them still takes for unexpired is forgotten (and could open
/// again). Keep the clocks in step (NTP) well within it.
pub const CLOCK_SKEW_MARGIN: Duration = Duration::from_secs(60);

/// How often, at most, one replica deletes the rows past their `forget_after`.
pub const SWEEP_EVERY: Duration = Duration::from_secs(60);

/// A [`ReplayGuard`] every replica shares: `INSERT … ON CONFLICT (id) DO NOTHING` into
/// `spent_request_states`, where one inserted row means the state is spent for the first time
/// and none means it was spent before (the primary key makes the check and the record one
/// atomic step, however many replicas race). Expired rows are swept by whichever replica
/// spends a state first after [`SWEEP_EVERY`].
///
/// Made by [`PostgresStore::replay_guard`](super::PostgresStore::replay_guard); it shares the
/// store's pool. When the database does not answer, the state is refused (the guard fails
/// closed, [`GuardError::Unavailable`]) and the client starts its call over.
pub struct PostgresReplayGuard {
    pool: Pool,
    /// The codec-clock time of the last sweep, in Unix milliseconds (0: none yet).
    last_sweep: AtomicU64,
}

impl std::fmt::Debug for PostgresReplayGuard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PostgresReplayGuard")
            .field("pool", &self.pool.status())
            .finish_non_exhaustive()
    }
}

impl PostgresReplayGuard {
    pub(super) fn new(pool: Pool) -> Self {
        Self {
            pool,
            last_sweep: AtomicU64::new(0),
        }
    }

    async fn spend_in_table(
        &self,
        id: &StateId,
        expires_at: SystemTime,
        now: SystemTime,
    ) -> Result<Spend, GuardError> {
        let client = self.pool.get().await.map_err(unavailable)?;
        // The expiry was sealed by one of the replicas, so it is near; saturate anyway.
        let forget_after = expires_at
            .checked_add(CLOCK_SKEW_MARGIN)
            .unwrap_or(expires_at);
        let inserted = client
            .execute(
                "INSERT INTO spent_request_states (id, forget_after) VALUES ($1, $2)
                 ON CONFLICT (id) DO NOTHING",
                &[&id.as_bytes().as_slice(), &forget_after],
            )
            .await
            .map_err(unavailable)?;
        if self.sweep_due(now) {
            // Housekeeping, not part of the answer: a failed sweep leaves rows that the next
            // one deletes, and must not refuse the state just recorded.
            if let Err(error) = client
                .execute(
                    "DELETE FROM spent_request_states WHERE forget_after < $1",
                    &[&now],
                )
                .await
            {
                eprintln!("tickets_http: sweeping spent_request_states failed: {error}");
            }
        }
        Ok(if inserted == 1 {
            Spend::First
        } else {
            Spend::Replayed
        })
    }

    /// Whether this spend sweeps: the first one, then one per [`SWEEP_EVERY`] of the codec's
    /// clock (claimed atomically, so concurrent spends sweep once).
    fn sweep_due(&self, now: SystemTime) -> bool {
        let now = unix_millis(now);
        let every = u64::try_from(SWEEP_EVERY.as_millis()).unwrap_or(u64::MAX);
        let last = self.last_sweep.load(Ordering::Relaxed);
        if last != 0 && now < last.saturating_add(every) {
            return false;
        }
        self.last_sweep
            .compare_exchange(last, now.max(1), Ordering::Relaxed, Ordering::Relaxed)
            .is_ok()
    }
}

impl ReplayGuard for PostgresReplayGuard {
    fn spend<'a>(
        &'a self,
        id: &'a StateId,
        expires_at: SystemTime,
        now: SystemTime,
    ) -> GuardFuture<'a> {
        Box::pin(self.spend_in_table(id, expires_at, now))
    }
}

fn unavailable(error: impl std::error::Error + Send + Sync + 'static) -> GuardError {
    GuardError::Unavailable(Box::new(error))
}

fn unix_millis(time: SystemTime) -> u64 {
    time.duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}
