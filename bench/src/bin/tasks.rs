//! `ct-bench-tasks`: what running a tool call as a task (MCP's tasks extension, issue 31)
//! costs against a plain call, and the memory an idle task holds, in the router, with no
//! transport around it.
//!
//! `ct-bench-tasks <calls> <idle-tasks>` serves one tool that answers at once twice: `plain`
//! (never a task) and `job` (only as a task), and one, `idle`, that waits until cancelled. Over a
//! current-thread runtime it times, per call, for `<calls>` calls each (after a tenth as many to
//! warm up):
//!
//! - **plain**: a 2026-07-28 `tools/call` of `plain`, decoded from bytes and answered;
//! - **task**: a `tools/call` of `job` (the `CreateTaskResult`), one turn of the runtime (the
//!   task's runner runs the handler and records the result), and one `tasks/get` (which must
//!   find it `completed`, with the result inlined): create + one poll + result.
//!
//! Then it creates `<idle-tasks>` tasks of `idle`, lets each runner start (the handler waits),
//! and prints the resident memory gained per idle task (its record in the memory store, its
//! runner, the handler's future), then cancels them all.

use std::process::ExitCode;
use std::sync::Arc;
use std::time::{Duration, Instant};

use claude_tools::mcp::{McpRouter, Message};
use claude_tools::tasks::{MemoryTaskStore, TaskSettings, TaskSupport};
use claude_tools::tools::{ToolDefBuilder, ToolServer};
use claude_tools_bench::procfs::rss_kib;
use serde::Deserialize;

const META: &str = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}}}"#;

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let (Some(calls), Some(idle)) = (
        args.next().and_then(|n| n.parse::<usize>().ok()),
        args.next().and_then(|n| n.parse::<usize>().ok()),
    ) else {
        eprintln!("usage: ct-bench-tasks <calls> <idle-tasks>");
        return ExitCode::from(2);
    };
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
    {
        Ok(runtime) => runtime,
        Err(e) => {
            eprintln!("ct-bench-tasks: runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    match runtime.block_on(run(calls, idle)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("ct-bench-tasks: {e}");
            ExitCode::FAILURE
        }
    }
}

fn task(name: &str) -> ToolDefBuilder {
    let mut builder = ToolDefBuilder::new(name);
    builder.task(TaskSupport::Required);
    builder
}

fn server(idle: usize) -> Result<ToolServer, String> {
    let server = ToolServer::new("bench", "1.0.0")
        .with_tool(ToolDefBuilder::new("plain"), |_call| async { "ok" })
        .and_then(|server| server.with_tool(task("job"), |_call| async { "ok" }))
        .and_then(|server| {
            server.with_tool(task("idle"), |call| async move {
                call.context().cancelled().await;
                "stopped"
            })
        })
        .map_err(|e| e.to_string())?;
    Ok(server
        .with_task_store(Arc::new(MemoryTaskStore::with_capacity(idle + 1_000_000)))
        .with_task_settings(TaskSettings::default().max_running_per_caller(idle + 1_000_000)))
}

/// What the bench reads of a result.
#[derive(Deserialize)]
struct Reply {
    result: Option<ReplyResult>,
}

#[derive(Deserialize)]
struct ReplyResult {
    #[serde(rename = "taskId")]
    task_id: Option<String>,
    status: Option<String>,
}

async fn answer(router: &McpRouter, bytes: &[u8]) -> Result<ReplyResult, String> {
    let response = router
        .handle(Message::decode(bytes))
        .await
        .ok_or("no answer")?;
    let mut out = Vec::with_capacity(256);
    response.write_to(&mut out);
    let reply: Reply = serde_json::from_slice(&out).map_err(|e| e.to_string())?;
    reply
        .result
        .ok_or_else(|| format!("an error: {}", String::from_utf8_lossy(&out)))
}

fn call(id: usize, tool: &str) -> Vec<u8> {
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"{tool}",{META}}}}}"#
    )
    .into_bytes()
}

fn get(id: usize, task_id: &str) -> Vec<u8> {
    format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"tasks/get","params":{{"taskId":"{task_id}",{META}}}}}"#)
        .into_bytes()
}

async fn plain_calls(router: &McpRouter, calls: usize) -> Result<Duration, String> {
    let started = Instant::now();
    for id in 0..calls {
        answer(router, &call(id, "plain")).await?;
    }
    Ok(started.elapsed())
}

/// Runs `calls` tasks to their result; the time, and how many polls found a task unfinished.
async fn task_calls(router: &McpRouter, calls: usize) -> Result<(Duration, usize), String> {
    let mut extra_polls = 0;
    let started = Instant::now();
    for id in 0..calls {
        let created = answer(router, &call(id, "job")).await?;
        let task_id = created.task_id.ok_or("no taskId")?;
        loop {
            // One turn of the runtime: the task's runner runs.
            tokio::task::yield_now().await;
            let task = answer(router, &get(id, &task_id)).await?;
            if task.status.as_deref() == Some("completed") {
                break;
            }
            extra_polls += 1;
        }
    }
    Ok((started.elapsed(), extra_polls))
}

async fn run(calls: usize, idle: usize) -> Result<(), String> {
    let router = McpRouter::new(server(idle)?);
    let warm = (calls / 10).max(1);
    plain_calls(&router, warm).await?;
    task_calls(&router, warm).await?;

    let plain = plain_calls(&router, calls).await?;
    let (tasks, extra_polls) = task_calls(&router, calls).await?;
    let per = |d: Duration| d.as_nanos() as f64 / calls as f64;
    println!("calls: {calls}");
    println!("plain call (ns/call): {:.0}", per(plain));
    println!(
        "task: create + one poll + result (ns/call): {:.0}",
        per(tasks)
    );
    println!("task overhead (ns/call): {:.0}", per(tasks) - per(plain));
    println!("polls that found the task unfinished: {extra_polls}");

    // A fresh router for the idle tasks, so the finished ones above do not count.
    let router = McpRouter::new(server(idle)?);
    let pid = std::process::id();
    // Warm the allocator and the store's map with one task first.
    let first = answer(&router, &call(0, "idle")).await?;
    tokio::task::yield_now().await;
    let before = rss_kib(pid).map(|(rss, _)| rss).ok_or("no RSS")?;
    let mut ids = Vec::with_capacity(idle);
    for id in 0..idle {
        let created = answer(&router, &call(id + 1, "idle")).await?;
        ids.push(created.task_id.ok_or("no taskId")?);
    }
    // Let every runner start: each polls its handler once, which then waits.
    tokio::time::sleep(Duration::from_millis(50)).await;
    let after = rss_kib(pid).map(|(rss, _)| rss).ok_or("no RSS")?;
    println!("idle tasks: {idle}");
    println!(
        "resident memory per idle task (bytes): {:.0}",
        (after.saturating_sub(before) * 1024) as f64 / idle as f64
    );
    for (n, task_id) in ids.iter().chain(first.task_id.iter()).enumerate() {
        let cancel = format!(
            r#"{{"jsonrpc":"2.0","id":{n},"method":"tasks/cancel","params":{{"taskId":"{task_id}",{META}}}}}"#
        );
        answer(&router, cancel.as_bytes()).await?;
    }
    Ok(())
}
