//! The permissions and hooks example: a host deciding, call by call, what the agent may do.
//!
//! A small customer database (`crm` server) offers three tools, and the host puts two guards in
//! front of them:
//!
//! - a **`can_use_tool` permission callback** ([`Policy::permit`]), which the CLI asks before
//!   each call of a tool not pre-allowed: it *rewrites* `find_customers`' input (a `limit`
//!   above [`MAX_LIMIT`] is clamped, and the tool runs with the clamped value) and *denies*
//!   `delete_customer` with a message the model reads as the tool's error result;
//! - a **`PreToolUse` hook** ([`Policy::pre_tool_use`]), which the CLI calls before every
//!   `mcp__crm__` call, even before asking permission: it logs the call and *blocks*
//!   `export_customers`, and the model reads the block reason.
//!
//! Both record what they did in the [`Policy`]'s log, which the example prints.
//!
//! ```
//! use claude_tools::PermissionDecision;
//! use claude_tools_examples::permissions::Policy;
//!
//! let policy = Policy::quiet();
//! let decision = policy.decide("mcp__crm__find_customers", &serde_json::json!({"query": "acme", "limit": 50}));
//! assert_eq!(decision, PermissionDecision::allow_with_input(serde_json::json!({"query": "acme", "limit": 3})));
//! ```

use std::sync::{Arc, Mutex};

use claude_tools::PermissionRequest;
use claude_tools::hooks::{HookPermissionDecision, PreToolUseInput, PreToolUseOutput};
use claude_tools::prelude::*;
use claude_tools_testkit::model_server::{Script, Turn};
use serde_json::{Value, json};

use crate::run::Example;

/// The most customers one `find_customers` call may return; the permission callback clamps a
/// larger `limit` to this.
pub const MAX_LIMIT: u64 = 3;

/// What the model reads when it tries to delete a customer.
pub const DELETE_DENIED: &str =
    "Deleting customers is not allowed for this agent; ask an administrator to do it.";

/// Why the hook blocks exports (the model reads it, after the CLI's `PreToolUse:<tool> hook
/// error: ` prefix).
pub const EXPORT_BLOCKED: &str =
    "bulk exports of customer data are blocked by the data-protection policy";

/// The server: the model sees its tools as `mcp__crm__<tool>`.
#[tool_server(
    name = "crm",
    version = "1.0.0",
    instructions = "A customer database: find, delete and export customers."
)]
pub struct Crm;

/// One customer.
#[derive(Debug, Clone, PartialEq)]
pub struct Customer {
    /// The customer's id.
    pub id: u64,
    /// The company's name.
    pub name: String,
    /// Where it is based.
    pub city: String,
}

/// The customer database the tools share.
#[derive(Debug, Default)]
pub struct Customers {
    rows: Mutex<Vec<Customer>>,
}

impl Customers {
    /// The example's seven customers, five of them named `Acme …`.
    pub fn sample() -> Customers {
        let rows = [
            (1, "Acme Corp", "Berlin"),
            (2, "Acme Corp.", "Berlin"),
            (3, "Acme Logistics", "Rotterdam"),
            (4, "Acme Robotics", "Lyon"),
            (5, "Acme Foods", "Turin"),
            (6, "Globex", "Springfield"),
            (7, "Initech", "Austin"),
        ];
        Customers {
            rows: Mutex::new(
                rows.into_iter()
                    .map(|(id, name, city)| Customer {
                        id,
                        name: name.into(),
                        city: city.into(),
                    })
                    .collect(),
            ),
        }
    }

    /// The customers, by id.
    pub fn all(&self) -> Vec<Customer> {
        self.with_rows(|rows| rows.clone())
    }

    fn with_rows<R>(&self, f: impl FnOnce(&mut Vec<Customer>) -> R) -> R {
        // A poisoned lock only means another tool panicked mid-update; the data is still usable.
        let mut rows = self.rows.lock().unwrap_or_else(|p| p.into_inner());
        f(&mut rows)
    }
}

/// Find customers whose name contains the query (case-insensitive).
#[tool(server = Crm, read_only)]
async fn find_customers(
    customers: State<Customers>,
    /// Part of the company name, e.g. `acme`
    query: String,
    /// How many customers to return at most (default 3)
    limit: Option<u64>,
) -> String {
    let limit = limit.unwrap_or(MAX_LIMIT);
    let needle = query.to_lowercase();
    let matching: Vec<Customer> = customers
        .all()
        .into_iter()
        .filter(|c| c.name.to_lowercase().contains(&needle))
        .collect();
    let shown: Vec<String> = matching
        .iter()
        .take(usize::try_from(limit).unwrap_or(usize::MAX))
        .map(|c| format!("#{} {} ({})", c.id, c.name, c.city))
        .collect();
    format!(
        "{} of {} customers matching `{query}` (limit {limit}): {}",
        shown.len(),
        matching.len(),
        shown.join("; ")
    )
}

/// Delete a customer and all their data.
#[tool(server = Crm, destructive)]
async fn delete_customer(
    customers: State<Customers>,
    /// The customer's id
    id: u64,
) -> Result<String, ToolError> {
    customers.with_rows(|rows| {
        let before = rows.len();
        rows.retain(|c| c.id != id);
        if rows.len() == before {
            Err(ToolError::new(format!("no customer #{id}")))
        } else {
            Ok(format!("Deleted customer #{id}"))
        }
    })
}

/// Export every customer as CSV (`id,name,city`).
#[tool(server = Crm, read_only)]
async fn export_customers(customers: State<Customers>) -> String {
    let mut csv = String::from("id,name,city\n");
    for c in customers.all() {
        csv.push_str(&format!("{},{},{}\n", c.id, c.name, c.city));
    }
    csv
}

/// Which guard took a [`Decision`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Guard {
    /// The `PreToolUse` hook.
    Hook,
    /// The `can_use_tool` permission callback.
    Permission,
}

/// One decision of a guard, as [`Policy::log`] records it.
#[derive(Debug, Clone, PartialEq)]
pub struct Decision {
    /// Who decided.
    pub guard: Guard,
    /// The tool, e.g. `mcp__crm__delete_customer`.
    pub tool: String,
    /// The input the model gave it.
    pub input: Value,
    /// What was decided, e.g. `allowed with {"limit":3,"query":"acme"}` or `denied: …`.
    pub verdict: String,
}

impl std::fmt::Display for Decision {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let guard = match self.guard {
            Guard::Hook => "hook",
            Guard::Permission => "permission",
        };
        write!(
            f,
            "{guard}: {} {} -> {}",
            self.tool, self.input, self.verdict
        )
    }
}

/// The host's guards and what they did.
///
/// [`permit`](Self::permit) is the `can_use_tool` callback, [`pre_tool_use`](Self::pre_tool_use)
/// the hook; [`Policy::install`] puts both on the options. Every decision is
/// appended to [`log`](Self::log) (and printed, unless the policy is [`quiet`](Self::quiet)).
#[derive(Debug, Clone, Default)]
pub struct Policy {
    log: Arc<Mutex<Vec<Decision>>>,
    print: bool,
}

impl Policy {
    /// A policy that prints each decision as it is taken.
    pub fn printing() -> Policy {
        Policy {
            print: true,
            ..Policy::default()
        }
    }

    /// A policy that only records its decisions.
    pub fn quiet() -> Policy {
        Policy::default()
    }

    /// The decisions so far, oldest first.
    pub fn log(&self) -> Vec<Decision> {
        self.log.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }

    fn record(&self, guard: Guard, tool: &str, input: &Value, verdict: String) {
        let decision = Decision {
            guard,
            tool: tool.to_string(),
            input: input.clone(),
            verdict,
        };
        if self.print {
            // Not `println!`: a closed pipe (`| head`) must not panic the example.
            use std::io::Write;
            let _ = writeln!(std::io::stdout().lock(), "  [{decision}]");
        }
        self.log
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .push(decision);
    }

    /// The permission callback and the hook, added to `options`. The `crm` tools must not be in
    /// `allowed_tools`: the CLI asks the callback only about tools it does not already allow.
    pub fn install(&self, options: Options) -> Options {
        let permit = self.clone();
        let hook = self.clone();
        options
            .can_use_tool(move |request| {
                let permit = permit.clone();
                async move { permit.permit(request) }
            })
            .hook(
                HookEvent::PreToolUse,
                // Typed by its event: an answer of another event would not compile, and an
                // input that does not fit PreToolUse is denied before it reaches the policy.
                HookMatcher::new("mcp__crm__.*").pre_tool_use(move |call| {
                    let hook = hook.clone();
                    async move { hook.pre_tool_use(&call) }
                }),
            )
    }

    /// The `can_use_tool` callback: [`decide`](Self::decide), recorded.
    pub fn permit(&self, request: PermissionRequest) -> PermissionDecision {
        let decision = self.decide(&request.tool_name, &request.input);
        let verdict = match &decision {
            PermissionDecision::Allow {
                updated_input: Some(input),
                ..
            } if *input != request.input => format!("allowed with {input}"),
            PermissionDecision::Allow { .. } => "allowed".to_string(),
            PermissionDecision::Deny { message, .. } => format!("denied: {message}"),
            // PermissionDecision is #[non_exhaustive]; `decide` builds only the two above.
            _ => "another decision".to_string(),
        };
        self.record(
            Guard::Permission,
            &request.tool_name,
            &request.input,
            verdict,
        );
        decision
    }

    /// The permission rules: `find_customers` runs with its `limit` clamped to [`MAX_LIMIT`],
    /// `delete_customer` is denied ([`DELETE_DENIED`]), the other `crm` tools (and the CLI's
    /// `ToolSearch`) run as asked, and every other tool is denied.
    pub fn decide(&self, tool: &str, input: &Value) -> PermissionDecision {
        match tool {
            "mcp__crm__find_customers" => match input.get("limit").and_then(Value::as_u64) {
                Some(limit) if limit > MAX_LIMIT => {
                    let mut clamped = input.clone();
                    clamped["limit"] = json!(MAX_LIMIT);
                    PermissionDecision::allow_with_input(clamped)
                }
                _ => PermissionDecision::allow(),
            },
            "mcp__crm__delete_customer" => PermissionDecision::deny(DELETE_DENIED),
            tool if tool.starts_with("mcp__crm__") => PermissionDecision::allow(),
            // How the CLI finds deferred MCP tools when its tool search is on (the real API).
            "ToolSearch" => PermissionDecision::allow(),
            // Bash, Write, …: a real model could reach for them; this agent has no business there.
            other => PermissionDecision::deny(format!(
                "{other} is not available here; use the crm tools"
            )),
        }
    }

    /// The `PreToolUse` hook: logs the call; blocks `export_customers` ([`EXPORT_BLOCKED`]) and
    /// has no opinion on the rest (the permission callback decides those).
    pub fn pre_tool_use(&self, call: &PreToolUseInput) -> PreToolUseOutput {
        let tool = call.tool_name.as_str();
        if tool == "mcp__crm__export_customers" {
            self.record(Guard::Hook, tool, &call.tool_input, "blocked".into());
            PreToolUseOutput::default()
                .permission_decision(HookPermissionDecision::Deny)
                .permission_decision_reason(EXPORT_BLOCKED)
        } else {
            self.record(Guard::Hook, tool, &call.tool_input, "no objection".into());
            PreToolUseOutput::default()
        }
    }
}

/// The example as its `main` runs it: the `crm` server with the sample customers, `policy`'s
/// callback and hook, no tool pre-allowed (so the callback is asked about each).
pub fn example(policy: &Policy) -> Example {
    Example::new("permissions", PROMPT, script())
        .system_prompt(
            "You manage the customer database with the crm tools. When a tool is denied or \
             blocked, report why instead of working around it.",
        )
        .note(
            "guards: a can_use_tool callback (clamps limits, denies deletes) and a PreToolUse \
             hook (logs, blocks exports); no tool is pre-allowed, so both see every crm call",
        )
        .server(Crm::server().with_state(Customers::sample()))
        .options(|options| policy.install(options))
}

/// The example's prompt.
pub const PROMPT: &str = "List our Acme customers (up to 50), delete the duplicate \
`Acme Corp.` record, and export the whole customer list as CSV.";

/// The tool_use ids of the scripted calls, in order.
pub const TOOL_USE_IDS: [&str; 3] = [
    "toolu_permissions_find",
    "toolu_permissions_delete",
    "toolu_permissions_export",
];

/// The scripted model: a search asking for 50 customers, then a delete and an export in one
/// turn, then an answer quoting what each call returned.
pub fn script() -> Script {
    let [find, delete, export] = TOOL_USE_IDS;
    Script::new()
        .turn(Turn::text("Looking up the Acme customers.").and_tool_use(
            find,
            "mcp__crm__find_customers",
            json!({"query": "acme", "limit": 50}),
        ))
        .turn(
            Turn::text("Removing the duplicate and exporting the list.")
                .and_tool_use(delete, "mcp__crm__delete_customer", json!({"id": 2}))
                .and_tool_use(export, "mcp__crm__export_customers", json!({})),
        )
        .turn(Turn::text(format!(
            "Found: {{{{tool_result:{find}}}}}\n\
             Delete: {{{{tool_result:{delete}}}}}\n\
             Export: {{{{tool_result:{export}}}}}"
        )))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_rules() {
        let policy = Policy::quiet();
        assert_eq!(
            policy.decide(
                "mcp__crm__find_customers",
                &json!({"query": "a", "limit": 2})
            ),
            PermissionDecision::allow()
        );
        assert_eq!(
            policy.decide("mcp__crm__find_customers", &json!({"query": "a"})),
            PermissionDecision::allow()
        );
        assert_eq!(
            policy.decide(
                "mcp__crm__find_customers",
                &json!({"query": "a", "limit": 9})
            ),
            PermissionDecision::allow_with_input(json!({"query": "a", "limit": 3}))
        );
        assert_eq!(
            policy.decide("mcp__crm__delete_customer", &json!({"id": 2})),
            PermissionDecision::deny(DELETE_DENIED)
        );
        assert_eq!(
            policy.decide("mcp__crm__export_customers", &json!({})),
            PermissionDecision::allow()
        );
        assert_eq!(
            policy.decide("Bash", &json!({"command": "rm -rf /"})),
            PermissionDecision::deny("Bash is not available here; use the crm tools")
        );
    }

    #[tokio::test]
    async fn the_tools_answer_in_process() {
        let server = Crm::server().with_state(Customers::sample());
        let call = |tool: &'static str, arguments: Value| {
            let server = server.clone();
            async move {
                server
                    .call(tool, arguments, ToolContext::new())
                    .await
                    .to_json()
            }
        };
        assert_eq!(
            call("find_customers", json!({"query": "acme", "limit": 2})).await["content"][0]["text"],
            "2 of 5 customers matching `acme` (limit 2): #1 Acme Corp (Berlin); #2 Acme Corp. (Berlin)"
        );
        assert_eq!(
            call("delete_customer", json!({"id": 2})).await["content"][0]["text"],
            "Deleted customer #2"
        );
        assert_eq!(
            call("delete_customer", json!({"id": 2})).await,
            json!({"content": [{"type": "text", "text": "no customer #2"}], "isError": true})
        );
        assert_eq!(
            call("export_customers", json!({})).await["content"][0]["text"],
            "id,name,city\n1,Acme Corp,Berlin\n3,Acme Logistics,Rotterdam\n4,Acme Robotics,Lyon\n\
             5,Acme Foods,Turin\n6,Globex,Springfield\n7,Initech,Austin\n"
        );
    }
}
