//! The transcript of a run, built from the message stream and printed as it goes, and the
//! footer printed after it.

use std::collections::HashMap;
use std::time::Duration;

use claude_tools::{Message, ResultMessage};
use claude_tools_testkit::model_server::ModelServer;

use super::model_choice::ModelChoice;
use super::outcome::{Entry, Run};
use super::printer::Printer;

/// Builds the transcript from the message stream, printing each entry once it is known.
pub(super) struct Transcript<'a> {
    servers: &'a [String],
    out: Printer,
    entries: Vec<Entry>,
    messages: Vec<Message>,
    names: HashMap<String, String>,
    replies: Vec<String>,
    /// The latest assistant text, printed once something follows it (the last one is the final
    /// answer, printed with the result).
    pending: Option<String>,
    result: Option<ResultMessage>,
}

impl<'a> Transcript<'a> {
    pub(super) fn new(servers: &'a [String], out: Printer) -> Self {
        Transcript {
            servers,
            out,
            entries: Vec::new(),
            messages: Vec::new(),
            names: HashMap::new(),
            replies: Vec::new(),
            pending: None,
            result: None,
        }
    }

    pub(super) fn see(&mut self, message: Message) {
        match &message {
            Message::System(system) => {
                if let Some(init) = system.init() {
                    let version = init.claude_code_version.as_deref().unwrap_or("?");
                    let servers: Vec<String> = init
                        .mcp_servers
                        .iter()
                        .map(|s| {
                            let kind = if self.servers.contains(&s.name) {
                                "in-process server"
                            } else {
                                "server"
                            };
                            format!("{kind} `{}`: {}", s.name, s.status)
                        })
                        .collect();
                    self.out.line(&format!(
                        "[Claude Code {version}; {}]\n",
                        servers.join("; ")
                    ));
                }
            }
            Message::Assistant(assistant) => {
                if let Some(id) = &assistant.message.id
                    && !self.replies.contains(id)
                {
                    self.replies.push(id.clone());
                }
                let text = assistant.text();
                if !text.trim().is_empty() {
                    self.flush();
                    self.pending = Some(text.trim().to_string());
                }
                for (id, name, input) in assistant.tool_uses() {
                    self.flush();
                    let tool = self.short_name(name);
                    self.out.line(&format!("  -> {tool} {input}"));
                    self.names.insert(id.to_string(), tool.clone());
                    self.entries.push(Entry::ToolCall {
                        id: id.to_string(),
                        tool,
                        input: input.clone(),
                    });
                }
            }
            Message::User(user) => {
                for (id, content, is_error) in user.tool_results() {
                    self.flush();
                    let tool = self.names.get(id).cloned().unwrap_or_else(|| "?".into());
                    let text = content.map(|c| c.text()).unwrap_or_default();
                    let text = text.trim().to_string();
                    let mark = if is_error { "ERROR " } else { "" };
                    // Continuation lines indented under the result, so the transcript reads.
                    let shown = text.replace('\n', "\n       ");
                    self.out.line(&format!("  <- {tool}: {mark}{shown}"));
                    self.entries.push(Entry::ToolResult {
                        id: id.to_string(),
                        tool,
                        text,
                        is_error,
                    });
                }
            }
            Message::Result(result) => {
                let last = self.pending.take();
                if let Some(text) = last {
                    if Some(text.as_str()) != result.result.as_deref().map(str::trim) {
                        self.out.line(&format!("assistant: {text}"));
                    }
                    self.entries.push(Entry::Assistant(text));
                }
                self.result = Some(result.clone());
            }
            _ => {}
        }
        self.messages.push(message);
    }

    /// `create_ticket` for a tool of the example's in-process servers, the full name otherwise.
    fn short_name(&self, name: &str) -> String {
        self.servers
            .iter()
            .find_map(|server| {
                name.strip_prefix("mcp__")
                    .and_then(|rest| rest.strip_prefix(server.as_str()))
                    .and_then(|rest| rest.strip_prefix("__"))
            })
            .unwrap_or(name)
            .to_string()
    }

    fn flush(&mut self) {
        if let Some(text) = self.pending.take() {
            self.out.line(&format!("assistant: {text}"));
            self.entries.push(Entry::Assistant(text));
        }
    }

    pub(super) fn finish(
        mut self,
        model: ModelChoice,
        server: Option<ModelServer>,
        elapsed: Duration,
    ) -> Run {
        self.flush();
        Run {
            model,
            transcript: self.entries,
            messages: self.messages,
            result: self.result,
            model_replies: self.replies.len(),
            server,
            elapsed,
            printed: String::new(),
        }
    }
}

/// The final answer and one line of figures: model replies, turns, time, cost, outcome (and with
/// the scripted model, proof that nothing left 127.0.0.1).
pub(super) fn print_footer(out: &Printer, run: &Run) {
    let Some(result) = &run.result else {
        return;
    };
    out.line(&format!("\n== final answer\n{}\n", run.final_text()));
    let cost = match (run.model, result.total_cost_usd) {
        (ModelChoice::Real, Some(usd)) => format!("${usd:.4}"),
        _ => "n/a (scripted)".to_string(),
    };
    let outcome = if result.is_success() {
        "success".to_string()
    } else {
        format!("{} (error)", result.subtype.as_str())
    };
    out.line(&format!(
        "model replies: {} (the CLI counts {} turns) | duration: {:.2} s (CLI: {} ms) | cost: {cost} | {outcome}",
        run.model_replies,
        result.num_turns,
        run.elapsed.as_secs_f64(),
        result.duration_ms,
    ));
    if let Some(server) = &run.server {
        out.line(&format!(
            "network: {} model requests to 127.0.0.1, {} attempts to go anywhere else",
            server.message_requests().len(),
            server.proxy_attempts().len()
        ));
    }
}
