//! When has a run ended? The host must keep the CLI's stdin open while the CLI may still ask it
//! something (a tool call, a hook, a permission), and close it once the run is over, or a
//! one-shot query never ends. The CLI reports its state (`session_state_changed`, requested with
//! `CLAUDE_CODE_SDK_READS_SESSION_STATE=1`); older CLIs do not, and then the last expected
//! `result` ends the run.

use std::time::Duration;

use tokio::sync::watch;

/// The CLI's own view of the session.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum CliState {
    Idle,
    Running,
    RequiresAction,
}

impl CliState {
    pub(crate) fn parse(state: &str) -> Option<Self> {
        match state {
            "idle" => Some(CliState::Idle),
            "running" => Some(CliState::Running),
            "requires_action" => Some(CliState::RequiresAction),
            _ => None,
        }
    }
}

/// What the session has seen so far.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct RunProgress {
    /// User messages written.
    pub(crate) prompts: u64,
    /// `result` messages read.
    pub(crate) results: u64,
    /// The last state the CLI reported, if it reports any.
    pub(crate) state: Option<CliState>,
    /// stdout reached its end.
    pub(crate) eof: bool,
}

impl RunProgress {
    /// Every prompt has its result and the CLI (if it says) is idle, or the CLI is gone.
    pub(crate) fn ended(&self) -> bool {
        self.eof
            || (self.results >= self.prompts
                && self.prompts > 0
                && matches!(self.state, None | Some(CliState::Idle)))
    }

    /// Every prompt has its result, whatever the CLI's state.
    pub(crate) fn answered(&self) -> bool {
        self.results >= self.prompts
    }
}

/// Waits until the run has ended. After every prompt has been answered, a CLI that keeps
/// reporting `running` (background work) is waited for at most `ceiling` since the last result;
/// `requires_action` suspends the ceiling, since the CLI is then waiting on the host.
pub(crate) async fn wait_for_end(mut progress: watch::Receiver<RunProgress>, ceiling: Duration) {
    loop {
        let current = *progress.borrow_and_update();
        if current.ended() {
            return;
        }
        let ceiling_applies = current.answered() && current.state == Some(CliState::Running);
        if ceiling_applies {
            match tokio::time::timeout(ceiling, progress.changed()).await {
                Ok(Ok(())) => continue,
                Ok(Err(_)) => return,
                Err(_) => {
                    let latest = *progress.borrow();
                    if latest.results == current.results {
                        tracing::warn!(
                            "the CLI still reports `running` {ceiling:?} after its last result; ending the run"
                        );
                        return;
                    }
                }
            }
        } else if progress.changed().await.is_err() {
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_run_ends_at_result_and_idle() {
        let mut p = RunProgress {
            prompts: 1,
            ..RunProgress::default()
        };
        p.state = Some(CliState::Running);
        assert!(!p.ended());
        p.results = 1;
        assert!(
            !p.ended(),
            "running after the result: background work may still call the host"
        );
        p.state = Some(CliState::Idle);
        assert!(p.ended());
        p.prompts = 2;
        assert!(!p.ended(), "a second prompt reopens the run");
    }

    #[test]
    fn a_cli_without_states_ends_at_the_last_result() {
        let p = RunProgress {
            prompts: 2,
            results: 1,
            state: None,
            eof: false,
        };
        assert!(!p.ended());
        assert!(RunProgress { results: 2, ..p }.ended());
    }

    #[tokio::test(start_paused = true)]
    async fn the_ceiling_ends_a_run_stuck_in_running() {
        let (tx, rx) = watch::channel(RunProgress {
            prompts: 1,
            results: 1,
            state: Some(CliState::Running),
            eof: false,
        });
        let started = tokio::time::Instant::now();
        wait_for_end(rx, Duration::from_secs(600)).await;
        assert_eq!(started.elapsed(), Duration::from_secs(600));
        drop(tx);
    }
}
