//! Where the codec reads the time: the system clock, or one a test sets.

use std::time::SystemTime;

/// The time source of a [`RequestStateCodec`](super::RequestStateCodec): a seal's expiry is
/// its time plus the TTL, an open refuses a state whose expiry has passed, and the
/// [`ReplayGuard`](super::ReplayGuard) evicts what has expired.
///
/// [`SystemClock`] is the default. Any `Fn() -> SystemTime` is a clock too, which is how tests
/// move time without sleeping:
///
/// ```
/// use std::sync::Arc;
/// use std::sync::atomic::{AtomicU64, Ordering};
/// use std::time::{Duration, SystemTime, UNIX_EPOCH};
///
/// use claude_tools::mcp::request_state::RequestStateConfig;
///
/// let seconds = Arc::new(AtomicU64::new(1_000_000));
/// let clock = {
///     let seconds = Arc::clone(&seconds);
///     move || UNIX_EPOCH + Duration::from_secs(seconds.load(Ordering::Relaxed))
/// };
/// let config = RequestStateConfig::default().clock(clock);
/// // … later, in the test: eleven minutes pass.
/// seconds.fetch_add(660, Ordering::Relaxed);
/// # let _ = (config, SystemTime::now());
/// ```
pub trait Clock: Send + Sync + 'static {
    /// The current time.
    fn now(&self) -> SystemTime;
}

/// The system's wall clock ([`SystemTime::now`]). Replicas that share a key should keep their
/// clocks in step (NTP): a state minted on one is judged expired or not by the other's clock.
#[derive(Debug, Clone, Copy, Default)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> SystemTime {
        SystemTime::now()
    }
}

impl<F> Clock for F
where
    F: Fn() -> SystemTime + Send + Sync + 'static,
{
    fn now(&self) -> SystemTime {
        self()
    }
}

/// The milliseconds since the Unix epoch of `time` (0 before it, saturating far after it): the
/// expiry's unit in the sealed form.
pub(super) fn unix_millis(time: SystemTime) -> u64 {
    time.duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}
