//! Which model answers: the real Anthropic API or the example's script.

/// Which model answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ModelChoice {
    /// The real Anthropic API (the CLI reads `ANTHROPIC_API_KEY` from this process).
    Real,
    /// The example's script, played by a model server on 127.0.0.1.
    Scripted,
}

impl ModelChoice {
    /// [`Real`](ModelChoice::Real) when `ANTHROPIC_API_KEY` is set and not empty, unless
    /// `force_scripted`.
    pub fn from_env(force_scripted: bool) -> ModelChoice {
        let has_key = std::env::var_os("ANTHROPIC_API_KEY").is_some_and(|key| !key.is_empty());
        if has_key && !force_scripted {
            ModelChoice::Real
        } else {
            ModelChoice::Scripted
        }
    }
}
