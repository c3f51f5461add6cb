//! The text prefixes by which the CLI's usage-limit messages are told apart, with the same
//! values as the TypeScript SDK 0.3.332's `USAGE_LIMIT_ERROR_PREFIXES`,
//! `USAGE_TRANSITION_PREFIXES`, `USAGE_WARNING_PREFIXES` and `ORG_POLICY_LIMIT_PREFIXES`, and
//! [`UsageNotice::classify`] to sort a message by them.

/// A usage limit was reached: the start of the error text of a turn refused for it (a `result`'s
/// `result` or `errors`, an `assistant` frame's text). Show a usage-limit card, not a retry.
pub const USAGE_LIMIT_ERROR_PREFIXES: [&str; 12] = [
    "You've hit your",
    "You've reached your",
    "You're out of usage credits",
    "Your org is out of usage · add funds to continue",
    "Your org is out of usage · contact your admin",
    "Your seat type doesn't include usage credits",
    "Your seat type doesn't include usage",
    "Your usage allocation has been disabled by your admin",
    "Your group's usage limit is set to $0",
    "Fable 5 requires usage credits",
    "You're out of extra usage",
    "Your seat type doesn't include extra usage",
];

/// The account moved on to paid usage ("now drawing from credits"): a notice, never an API
/// error.
pub const USAGE_TRANSITION_PREFIXES: [&str; 7] = [
    "You're now using usage credits",
    "You're now using your usage allocation",
    "Now using your usage allocation",
    "Now using usage credits",
    "Now using credits",
    "You're now using extra usage",
    "Now using extra usage",
];

/// A limit is close: a warning, never an API error.
pub const USAGE_WARNING_PREFIXES: [&str; 2] = ["You've used", "You're close to"];

/// The organization's policy refuses the service: reported like a reached limit, but no limit
/// was used up, so it wants the "disabled by your organization" presentation.
pub const ORG_POLICY_LIMIT_PREFIXES: [&str; 1] = ["This service is disabled for your org"];

/// Which kind of usage message a text is, by its prefix ([`UsageNotice::classify`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum UsageNotice {
    /// A usage limit was reached ([`USAGE_LIMIT_ERROR_PREFIXES`]).
    LimitReached,
    /// The organization's policy refuses the service ([`ORG_POLICY_LIMIT_PREFIXES`]).
    OrgPolicy,
    /// The account moved on to paid usage ([`USAGE_TRANSITION_PREFIXES`]).
    Transition,
    /// A limit is close ([`USAGE_WARNING_PREFIXES`]).
    Warning,
}

impl UsageNotice {
    /// The kind of usage message `text` is, by its prefix (leading white space ignored), or
    /// `None` for any other text.
    ///
    /// ```
    /// use claude_tools::message::UsageNotice;
    ///
    /// assert_eq!(
    ///     UsageNotice::classify("You've hit your limit · resets 5pm"),
    ///     Some(UsageNotice::LimitReached)
    /// );
    /// assert_eq!(UsageNotice::classify("You've used 90% of your limit"), Some(UsageNotice::Warning));
    /// assert_eq!(UsageNotice::classify("API Error: 500"), None);
    /// ```
    pub fn classify(text: &str) -> Option<UsageNotice> {
        let text = text.trim_start();
        let starts = |prefixes: &[&str]| prefixes.iter().any(|prefix| text.starts_with(prefix));
        // The org-policy text is checked first: it shares the error path with reached limits.
        if starts(&ORG_POLICY_LIMIT_PREFIXES) {
            Some(UsageNotice::OrgPolicy)
        } else if starts(&USAGE_LIMIT_ERROR_PREFIXES) {
            Some(UsageNotice::LimitReached)
        } else if starts(&USAGE_TRANSITION_PREFIXES) {
            Some(UsageNotice::Transition)
        } else if starts(&USAGE_WARNING_PREFIXES) {
            Some(UsageNotice::Warning)
        } else {
            None
        }
    }
}
