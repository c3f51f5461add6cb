//! The in-process tools the end-to-end scenarios give the real CLI. Each records what it
//! received (typed arguments, tool_use id, start and end times, whether it saw cancellation) in
//! the shared [`Lab`] state, so a test can assert exactly what ran.

use std::sync::Mutex;
use std::sync::atomic::{AtomicI64, Ordering};
use std::time::{Duration, Instant};

use claude_tools::prelude::*;
use schemars::JsonSchema;
use serde::Serialize;
use serde_json::{Value, json};

/// The test server: the model sees `mcp__e2e__<tool>`.
#[tool_server(name = "e2e", version = "0.1.0")]
pub struct E2e;

/// A 1×1 PNG.
pub const PNG_1X1_BASE64: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";

/// One call a tool saw.
#[derive(Debug, Clone)]
pub struct Call {
    /// The tool's name (without the `mcp__e2e__` prefix).
    pub tool: &'static str,
    /// The arguments as the tool received them (rebuilt from its typed parameters).
    pub args: Value,
    /// The API tool_use id the CLI passed along.
    pub tool_use_id: Option<String>,
    /// When the handler started.
    pub start: Instant,
    /// When it returned (`None` while running, or if it panicked).
    pub end: Option<Instant>,
    /// Whether it ended because it was cancelled.
    pub cancelled: bool,
}

/// The state every e2e tool shares.
#[derive(Debug)]
pub struct Lab {
    counter: AtomicI64,
    calls: Mutex<Vec<Call>>,
}

impl Lab {
    /// A lab whose counter starts at `counter`.
    pub fn new(counter: i64) -> Lab {
        Lab {
            counter: AtomicI64::new(counter),
            calls: Mutex::new(Vec::new()),
        }
    }

    /// Every call so far, in start order.
    pub fn calls(&self) -> Vec<Call> {
        self.calls.lock().unwrap().clone()
    }

    /// `(tool, args, tool_use_id)` of every call, for exact comparisons.
    pub fn received(&self) -> Vec<(&'static str, Value, String)> {
        self.calls()
            .into_iter()
            .map(|c| (c.tool, c.args, c.tool_use_id.unwrap_or_default()))
            .collect()
    }

    /// The counter's value.
    pub fn counter(&self) -> i64 {
        self.counter.load(Ordering::SeqCst)
    }

    /// Waits (up to 60 s) until `pred` holds for the calls.
    pub async fn wait_until(&self, what: &str, pred: impl Fn(&[Call]) -> bool) {
        let deadline = Instant::now() + Duration::from_secs(60);
        while !pred(&self.calls()) {
            assert!(
                Instant::now() < deadline,
                "waited 60 s for {what}; calls: {:#?}",
                self.calls()
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }

    fn begin(&self, tool: &'static str, args: Value, ctx: &ToolContext) -> usize {
        let mut calls = self.calls.lock().unwrap();
        calls.push(Call {
            tool,
            args,
            tool_use_id: ctx.tool_use_id().map(str::to_string),
            start: Instant::now(),
            end: None,
            cancelled: false,
        });
        calls.len() - 1
    }

    fn finish(&self, index: usize, cancelled: bool) {
        let mut calls = self.calls.lock().unwrap();
        calls[index].end = Some(Instant::now());
        calls[index].cancelled = cancelled;
    }
}

/// Add to the shared counter.
#[tool(server = E2e)]
async fn counter_add(
    lab: State<Lab>,
    ctx: ToolContext,
    /// How much to add
    by: i64,
) -> String {
    let call = lab.begin("counter_add", json!({"by": by}), &ctx);
    let now = lab.counter.fetch_add(by, Ordering::SeqCst) + by;
    lab.finish(call, false);
    format!("counter is now {now}")
}

/// Look a key up slowly (read-only, so the CLI may run several at once).
#[tool(server = E2e, read_only)]
async fn slow_lookup(
    lab: State<Lab>,
    ctx: ToolContext,
    /// The key
    key: String,
    /// How long the lookup takes, in milliseconds
    ms: u64,
) -> String {
    let call = lab.begin("slow_lookup", json!({"key": key, "ms": ms}), &ctx);
    tokio::time::sleep(Duration::from_millis(ms)).await;
    lab.finish(call, false);
    format!("value of {key}")
}

/// Fail with the given reason.
#[tool(server = E2e)]
async fn fail(lab: State<Lab>, ctx: ToolContext, reason: String) -> Result<String, ToolError> {
    let call = lab.begin("fail", json!({"reason": reason}), &ctx);
    lab.finish(call, false);
    Err(ToolError::new(reason))
}

/// Panic.
#[tool(server = E2e)]
async fn explode(lab: State<Lab>, ctx: ToolContext) -> String {
    lab.begin("explode", json!({}), &ctx);
    panic!("kaboom")
}

/// Greet someone.
#[tool(server = E2e)]
async fn greet(lab: State<Lab>, ctx: ToolContext, name: String) -> String {
    let call = lab.begin("greet", json!({"name": name}), &ctx);
    lab.finish(call, false);
    format!("Hello, {name}!")
}

/// Delete everything (never allowed).
#[tool(server = E2e, destructive)]
async fn delete_everything(lab: State<Lab>, ctx: ToolContext) -> String {
    let call = lab.begin("delete_everything", json!({}), &ctx);
    lab.finish(call, false);
    "deleted everything".to_string()
}

/// Wait until cancelled, or `secs` seconds.
///
/// A cancelled handler sees its token fire and returns (or is dropped after `CANCEL_GRACE` if it
/// did not), and its result is discarded; what it saw is observed from a drop guard: whether its
/// token had fired when it ended.
#[tool(server = E2e)]
async fn wait_for_cancel(lab: State<Lab>, ctx: ToolContext, secs: u64) -> String {
    let call = lab.begin("wait_for_cancel", json!({"secs": secs}), &ctx);
    let _guard = FinishOnDrop {
        lab: &lab,
        call,
        ctx: ctx.clone(),
    };
    tokio::select! {
        _ = ctx.cancelled() => "cancelled".to_string(),
        _ = tokio::time::sleep(Duration::from_secs(secs)) => {
            format!("waited {secs} s without being cancelled")
        }
    }
}

/// Records the end of a call, and whether its cancellation token had fired, however it ends.
struct FinishOnDrop<'a> {
    lab: &'a Lab,
    call: usize,
    ctx: ToolContext,
}

impl Drop for FinishOnDrop<'_> {
    fn drop(&mut self) {
        self.lab.finish(self.call, self.ctx.is_cancelled());
    }
}

/// Sleep, then answer.
#[tool(server = E2e)]
async fn sleepy(lab: State<Lab>, ctx: ToolContext, secs: u64) -> String {
    let call = lab.begin("sleepy", json!({"secs": secs}), &ctx);
    tokio::time::sleep(Duration::from_secs(secs)).await;
    lab.finish(call, false);
    format!("slept for {secs} s")
}

/// Draw a chart (a 1×1 PNG).
#[tool(server = E2e, read_only)]
async fn chart(lab: State<Lab>, ctx: ToolContext) -> Image {
    let call = lab.begin("chart", json!({}), &ctx);
    lab.finish(call, false);
    Image::from_base64(PNG_1X1_BASE64, "image/png")
}

/// Count and mean of numbers.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Stats {
    /// How many numbers
    pub count: usize,
    /// Their mean
    pub mean: f64,
}

/// Count and average numbers.
#[tool(server = E2e, read_only)]
async fn stats(lab: State<Lab>, ctx: ToolContext, numbers: Vec<f64>) -> Json<Stats> {
    let call = lab.begin("stats", json!({"numbers": numbers}), &ctx);
    lab.finish(call, false);
    let mean = numbers.iter().sum::<f64>() / numbers.len().max(1) as f64;
    Json(Stats {
        count: numbers.len(),
        mean,
    })
}

/// A tool left to the CLI's tool search (not loaded up front).
#[tool(server = E2e, read_only, always_load = false)]
async fn rarely_used(lab: State<Lab>, ctx: ToolContext) -> String {
    let call = lab.begin("rarely_used", json!({}), &ctx);
    lab.finish(call, false);
    "rarely used".to_string()
}

/// The e2e server with a fresh lab whose counter starts at `counter`.
pub fn server(counter: i64) -> (ToolServer, std::sync::Arc<Lab>) {
    let lab = std::sync::Arc::new(Lab::new(counter));
    (E2e::server().with_shared_state(lab.clone()), lab)
}
