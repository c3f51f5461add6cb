//! What a tool author and a server owner decide about tasks.

use std::time::Duration;

/// Whether a tool may run as a task, chosen by its author.
///
/// ```
/// use claude_tools::tasks::TaskSupport;
/// use claude_tools::tools::ToolDefBuilder;
///
/// let mut builder = ToolDefBuilder::new("render_video");
/// builder.task(TaskSupport::Required);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum TaskSupport {
    /// Never a task: every call is answered when the handler finishes (the default).
    #[default]
    Never,
    /// A task for a client that declares the extension, a plain call for one that does not
    /// (`#[tool(task = "optional")]`).
    Optional,
    /// Only as a task: a client that does not declare the extension gets `-32021`
    /// (`#[tool(task)]`).
    Required,
}

/// When a task tool's call becomes a task.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum TaskStart {
    /// Before the handler runs: the whole handler is the task, and each of its questions puts
    /// the task in `input_required` (the default).
    #[default]
    Immediately,
    /// When the handler first waits on anything but a question: until then it runs inside the
    /// request, and its questions are asked the 2026-07-28 way (an `input_required` result, the
    /// handler run again from its start with the answers, see [`crate::mcp::mrtr`]); a handler
    /// that finishes without waiting is answered as a plain call. For a tool that gathers its
    /// input first and then works at length (`#[tool(task, task_start = "first_wait")]`).
    AtFirstWait,
}

/// How a server's tasks are kept: see the [module docs](super) for the defaults.
///
/// ```
/// use std::time::Duration;
/// use claude_tools::tasks::TaskSettings;
/// use claude_tools::tools::ToolServer;
///
/// let server = ToolServer::new("jobs", "1.0.0").with_task_settings(
///     TaskSettings::default()
///         .ttl(Duration::from_secs(15 * 60))
///         .max_running_per_caller(4),
/// );
/// assert_eq!(server.task_settings().max_running_per_caller, 4);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct TaskSettings {
    /// How long after its creation a task is kept (its `ttlMs`); a handler still running then
    /// is cancelled.
    pub ttl: Duration,
    /// The interval between polls suggested to clients (`pollIntervalMs`), also how often a
    /// running task reads answers and cancellations that reached another replica.
    pub poll_interval: Duration,
    /// How many tasks one caller may have running at once.
    pub max_running_per_caller: usize,
    /// How long a running task's record is vouched for by the replica running it: the runner
    /// renews the lease every third of it, and a task whose lease lapsed (its replica died, or
    /// lost its store) becomes `failed` on the next `tasks/*` request for it. Longer than the
    /// clock skew between replicas, and than a store's slowest write.
    pub lease: Duration,
}

impl Default for TaskSettings {
    fn default() -> Self {
        Self {
            ttl: Duration::from_secs(60 * 60),
            poll_interval: Duration::from_secs(1),
            max_running_per_caller: 32,
            lease: Duration::from_secs(30),
        }
    }
}

impl TaskSettings {
    /// These settings with a task TTL of `ttl` (at least a millisecond).
    pub fn ttl(mut self, ttl: Duration) -> Self {
        self.ttl = ttl.max(Duration::from_millis(1));
        self
    }

    /// These settings with a poll interval of `interval` (at least a millisecond).
    pub fn poll_interval(mut self, interval: Duration) -> Self {
        self.poll_interval = interval.max(Duration::from_millis(1));
        self
    }

    /// These settings with at most `max` running tasks per caller (at least one).
    pub fn max_running_per_caller(mut self, max: usize) -> Self {
        self.max_running_per_caller = max.max(1);
        self
    }

    /// These settings with a runner's lease of `lease` (at least 3 milliseconds, so that a
    /// third of it is a renewal interval).
    pub fn lease(mut self, lease: Duration) -> Self {
        self.lease = lease.max(Duration::from_millis(3));
        self
    }

    /// How often a running task renews its lease: a third of it.
    pub(crate) fn renew_interval(&self) -> Duration {
        self.lease / 3
    }
}
