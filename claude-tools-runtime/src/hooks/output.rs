//! [`HookOutput`]: a hook's answer.

use std::fmt;

use serde_json::{Map, Value, json};

use super::HookEvent;
use super::specific::HookSpecificOutput;

/// A hook's answer. The default (`HookOutput::new()`) has no opinion (`{}`).
///
/// ```
/// use claude_tools::hooks::HookOutput;
///
/// let output = HookOutput::new().deny_tool("writes are frozen today");
/// assert_eq!(
///     output.to_json("PreToolUse"),
///     serde_json::json!({"hookSpecificOutput": {"hookEventName": "PreToolUse",
///         "permissionDecision": "deny", "permissionDecisionReason": "writes are frozen today"}})
/// );
/// ```
#[derive(Debug, Clone, Default, PartialEq)]
pub struct HookOutput {
    fields: Map<String, Value>,
    specific: Map<String, Value>,
}

impl HookOutput {
    /// No opinion.
    pub fn new() -> Self {
        Self::default()
    }

    /// `decision: "block"` with a reason for the model (PostToolUse, Stop, UserPromptSubmit…).
    pub fn block(mut self, reason: impl Into<String>) -> Self {
        self.fields.insert("decision".into(), json!("block"));
        self.fields.insert("reason".into(), json!(reason.into()));
        self
    }

    /// `decision: "approve"` with a reason: the older form of
    /// [`allow_tool`](Self::allow_tool) (PreToolUse), which the CLI still reads; new code should
    /// prefer `allow_tool`.
    pub fn approve(mut self, reason: impl Into<String>) -> Self {
        self.fields.insert("decision".into(), json!("approve"));
        self.fields.insert("reason".into(), json!(reason.into()));
        self
    }

    /// A terminal escape sequence for the CLI to write on the hook's behalf (`terminalSequence`),
    /// e.g. an OSC 9 or OSC 777 desktop notification; the CLI keeps only notification and title
    /// sequences (OSC 0, 1, 2, 9, 99, 777) and BEL, and drops anything else.
    pub fn terminal_sequence(mut self, sequence: impl Into<String>) -> Self {
        self.fields
            .insert("terminalSequence".into(), json!(sequence.into()));
        self
    }

    /// PreToolUse: deny the tool call; the model reads `reason`. PreSkillShellCommand: keep
    /// the command from running.
    pub fn deny_tool(self, reason: impl Into<String>) -> Self {
        self.permission("deny", reason.into())
    }

    /// PreToolUse: allow the tool call without asking. PreSkillShellCommand: no effect (the
    /// command runs unless a hook refuses it).
    pub fn allow_tool(self, reason: impl Into<String>) -> Self {
        self.permission("allow", reason.into())
    }

    /// PreToolUse: ask the user (or the permission callback). PreSkillShellCommand: like
    /// [`deny_tool`](Self::deny_tool), the command does not run.
    pub fn ask(self, reason: impl Into<String>) -> Self {
        self.permission("ask", reason.into())
    }

    /// PreToolUse: pause the turn at this call (`permissionDecision: "defer"`): the run ends
    /// with `terminal_reason: "tool_deferred"` and the call as `deferred_tool_use`, for the
    /// host to resume later. PreSkillShellCommand: the command does not run.
    pub fn defer_tool(self, reason: impl Into<String>) -> Self {
        self.permission("defer", reason.into())
    }

    fn permission(mut self, decision: &str, reason: String) -> Self {
        self.specific
            .insert("permissionDecision".into(), json!(decision));
        self.specific
            .insert("permissionDecisionReason".into(), json!(reason));
        self
    }

    /// PreToolUse: run the tool with this input instead. PreSkillShellCommand: never applied;
    /// any value keeps the command from running.
    pub fn updated_input(mut self, input: Value) -> Self {
        self.specific.insert("updatedInput".into(), input);
        self
    }

    /// Adds context for the model (PostToolUse, UserPromptSubmit, SessionStart…).
    pub fn additional_context(mut self, context: impl Into<String>) -> Self {
        self.specific
            .insert("additionalContext".into(), json!(context.into()));
        self
    }

    /// A message shown to the user.
    pub fn system_message(mut self, message: impl Into<String>) -> Self {
        self.fields
            .insert("systemMessage".into(), json!(message.into()));
        self
    }

    /// Stops the agent (`continue: false`) with a reason.
    pub fn stop(mut self, reason: impl Into<String>) -> Self {
        self.fields.insert("continue".into(), json!(false));
        self.fields
            .insert("stopReason".into(), json!(reason.into()));
        self
    }

    /// Hides the hook's output from the transcript.
    pub fn suppress_output(mut self) -> Self {
        self.fields.insert("suppressOutput".into(), json!(true));
        self
    }

    /// Sets the event's typed `hookSpecificOutput` (its fields are merged over any the other
    /// builder methods set; its `hookEventName` is its own).
    ///
    /// ```
    /// use claude_tools::hooks::{HookOutput, HookSpecificOutput, PostToolUseOutput};
    /// use serde_json::json;
    ///
    /// let output = HookOutput::new().specific(HookSpecificOutput::PostToolUse(
    ///     PostToolUseOutput::default()
    ///         .updated_mcp_tool_output(json!([{"type": "text", "text": "[redacted]"}])),
    /// ));
    /// assert_eq!(
    ///     output.to_json("PostToolUse")["hookSpecificOutput"]["updatedMCPToolOutput"][0]["text"],
    ///     "[redacted]"
    /// );
    /// ```
    pub fn specific(mut self, output: HookSpecificOutput) -> Self {
        // Serializing these types cannot fail: every map key is a string.
        if let Ok(Value::Object(fields)) = serde_json::to_value(output) {
            self.specific.extend(fields);
        }
        self
    }

    /// An asynchronous answer (`{"async": true}`): the CLI goes on without waiting for this
    /// hook's decision, for up to `timeout_ms` milliseconds (`asyncTimeout`; the CLI's default,
    /// 15 s, when `None`). The other fields of this output are still sent.
    pub fn asynchronous(mut self, timeout_ms: Option<u64>) -> Self {
        self.fields.insert("async".into(), json!(true));
        match timeout_ms {
            Some(timeout) => self.fields.insert("asyncTimeout".into(), json!(timeout)),
            None => self.fields.shift_remove("asyncTimeout"),
        };
        self
    }

    /// Sets any other top-level output field.
    pub fn field(mut self, key: impl Into<String>, value: Value) -> Self {
        self.fields.insert(key.into(), value);
        self
    }

    /// Whether this output is an answer to `event`: a typed [`specific`](Self::specific)
    /// output must be that event's, and a shortcut must be one the event reads
    /// ([`deny_tool`](Self::deny_tool) and its siblings: `PreToolUse`, `PreSkillShellCommand`,
    /// `PreModelSwitch`; [`updated_input`](Self::updated_input): `PreToolUse`,
    /// `PreSkillShellCommand`; [`additional_context`](Self::additional_context): the events
    /// whose output has it). An event this library does not know accepts anything. Fields set
    /// with [`field`](Self::field) are not checked.
    ///
    /// The session checks every callback's answer: one that fails is not sent as it is. For
    /// `PreToolUse` and `PreSkillShellCommand` the call is denied, the reason naming the
    /// mistake (the CLI 2.1.332 does not run the call either when an answer names another
    /// event); any other event gets an error answer naming it (a failure of the hook, which
    /// [`HookMatcher::on_failure`](super::HookMatcher::on_failure) decides about).
    ///
    /// ```
    /// use claude_tools::hooks::{HookEvent, HookOutput};
    ///
    /// let deny = HookOutput::new().deny_tool("no");
    /// assert!(deny.check(&HookEvent::PreToolUse).is_ok());
    /// let error = deny.check(&HookEvent::PostToolUse).unwrap_err();
    /// assert_eq!(
    ///     error.to_string(),
    ///     "a PostToolUse hook answered with `permissionDecision` (`HookOutput::deny_tool`, \
    ///      `allow_tool`, `ask` or `defer_tool`), which only PreToolUse, PreSkillShellCommand \
    ///      and PreModelSwitch read: the answer was not sent"
    /// );
    /// ```
    pub fn check(&self, event: &HookEvent) -> Result<(), MismatchedHookOutput> {
        if matches!(event, HookEvent::Other(_)) {
            return Ok(());
        }
        if let Some(named) = self.specific.get("hookEventName").and_then(Value::as_str)
            && named != event.as_str()
        {
            return Err(MismatchedHookOutput {
                event: event.clone(),
                problem: Mismatch::SpecificOf(HookEvent::from(named)),
            });
        }
        for shortcut in SHORTCUTS {
            if self.specific.contains_key(shortcut.key) && !shortcut.read_by.contains(event) {
                return Err(MismatchedHookOutput {
                    event: event.clone(),
                    problem: Mismatch::Shortcut(shortcut),
                });
            }
        }
        Ok(())
    }

    /// The hook output JSON for an event (`hookSpecificOutput.hookEventName` is filled in,
    /// unless a typed [`specific`](Self::specific) output named its own). It is not
    /// [`check`](Self::check)ed.
    pub fn to_json(&self, event_name: &str) -> Value {
        let mut output = self.fields.clone();
        if !self.specific.is_empty() {
            let mut specific = Map::new();
            // First, as the official SDKs write it.
            let name = self
                .specific
                .get("hookEventName")
                .cloned()
                .unwrap_or_else(|| json!(event_name));
            specific.insert("hookEventName".into(), name);
            specific.extend(
                self.specific
                    .iter()
                    .filter(|(key, _)| *key != "hookEventName")
                    .map(|(key, value)| (key.clone(), value.clone())),
            );
            output.insert("hookSpecificOutput".into(), Value::Object(specific));
        }
        Value::Object(output)
    }
}

/// A field of `hookSpecificOutput` that a shortcut of [`HookOutput`] sets, and the events that
/// read it (those whose typed output has it).
struct Shortcut {
    key: &'static str,
    setters: &'static str,
    read_by: &'static [HookEvent],
}

const PRE_TOOL_USE_FAMILY: &[HookEvent] = &[
    HookEvent::PreToolUse,
    HookEvent::PreSkillShellCommand,
    HookEvent::PreModelSwitch,
];

const SHORTCUTS: &[Shortcut] = &[
    Shortcut {
        key: "permissionDecision",
        setters: "`HookOutput::deny_tool`, `allow_tool`, `ask` or `defer_tool`",
        read_by: PRE_TOOL_USE_FAMILY,
    },
    Shortcut {
        key: "updatedInput",
        setters: "`HookOutput::updated_input`",
        read_by: &[HookEvent::PreToolUse, HookEvent::PreSkillShellCommand],
    },
    Shortcut {
        key: "additionalContext",
        setters: "`HookOutput::additional_context`",
        read_by: &[
            HookEvent::PreToolUse,
            HookEvent::PreSkillShellCommand,
            HookEvent::PreModelSwitch,
            HookEvent::PostToolUse,
            HookEvent::PostToolUseFailure,
            HookEvent::PostToolBatch,
            HookEvent::Notification,
            HookEvent::Setup,
            HookEvent::SubagentStart,
            HookEvent::Stop,
            HookEvent::SubagentStop,
            HookEvent::PostModelSwitch,
            HookEvent::UserPromptSubmit,
            HookEvent::UserPromptExpansion,
            HookEvent::SessionStart,
        ],
    },
];

/// A [`HookOutput`] that is not an answer to the event it was given for
/// ([`HookOutput::check`]): a `PostToolUse` output from a `PreToolUse` callback, a
/// [`deny_tool`](HookOutput::deny_tool) in a `PostToolUse` hook.
#[derive(Debug)]
pub struct MismatchedHookOutput {
    event: HookEvent,
    problem: Mismatch,
}

#[derive(Debug)]
enum Mismatch {
    /// A typed `hookSpecificOutput` of this other event.
    SpecificOf(HookEvent),
    /// A shortcut the event does not read.
    Shortcut(&'static Shortcut),
}

impl fmt::Debug for Shortcut {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.key)
    }
}

impl MismatchedHookOutput {
    /// The event the output was an answer to.
    pub fn event(&self) -> &HookEvent {
        &self.event
    }
}

impl fmt::Display for MismatchedHookOutput {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let event = &self.event;
        match &self.problem {
            Mismatch::SpecificOf(other) => write!(
                f,
                "a {event} hook answered with the hookSpecificOutput of {other} \
                 (`HookSpecificOutput::{other}`): answer with `HookSpecificOutput::{event}`; \
                 the answer was not sent"
            ),
            Mismatch::Shortcut(shortcut) => {
                let readers: Vec<&str> = shortcut.read_by.iter().map(HookEvent::as_str).collect();
                let readers = match readers.split_last() {
                    Some((last, [])) => (*last).to_string(),
                    Some((last, rest)) => format!("{} and {last}", rest.join(", ")),
                    None => String::new(),
                };
                write!(
                    f,
                    "a {event} hook answered with `{}` ({}), which only {readers} read: the \
                     answer was not sent",
                    shortcut.key, shortcut.setters
                )
            }
        }
    }
}

impl std::error::Error for MismatchedHookOutput {}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::HookOutput;

    #[test]
    fn approve_and_terminal_sequence_are_top_level_fields() {
        let output = HookOutput::new()
            .approve("read-only command")
            .terminal_sequence("\u{1b}]9;done\u{7}");
        assert_eq!(
            output.to_json("PreToolUse"),
            json!({"decision": "approve", "reason": "read-only command",
                "terminalSequence": "\u{1b}]9;done\u{7}"})
        );
    }
}
