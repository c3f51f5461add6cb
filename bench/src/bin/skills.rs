//! `ct-bench-skills`: listing and fetching a 10-file skill (issue 31's figure), claude-tools
//! against rmcp serving the same skill, over stdio and over Streamable HTTP, in one run.
//!
//! One round is what a client does to load a skill: `skills/list`, `skills/get` of its
//! `SKILL.md`, then `resources/read` of each of its 10 files (12 requests, each at MCP
//! 2026-07-28 with its `_meta`, and over HTTP its `MCP-Protocol-Version`, `Mcp-Method` and
//! `Mcp-Name` headers). The driver runs `ROUNDS` rounds against each server, one request at a
//! time, and reports the median and p90 time of a round and the bytes sent and received in one
//! (JSON-RPC lines over stdio, response bodies over HTTP).
//!
//! - claude-tools: `ToolServer::with_skill(path)`, served with `serve_stdio` / `HttpServer`.
//! - rmcp 3.11: a `ServerHandler` whose `list_skills`, `get_skill` and `read_resource` answer
//!   from the same files, built with rmcp's skill types (`Skill`, `SkillResource::from_bytes`);
//!   rmcp's directory-backed `SkillCatalog` needs its `skills-fs` feature (cap-std), which this
//!   bench does not pull in. Served with `rmcp::transport::io::stdio` and
//!   `StreamableHttpService` (stateless, JSON responses), as `ct-bench-http-rmcp` is.
//!
//! Usage: `ct-bench-skills [ROUNDS]` (default 300). The server modes (`serve-*`) are this
//! binary run again by the driver.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, ExitCode, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use claude_tools_bench::http_client::Connection;
use serde_json::{Value, json};

const NAME: &str = "report";
const FILES: usize = 10;

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let first = args.next();
    let result = match first.as_deref() {
        Some(mode) if mode.starts_with("serve-") => {
            let dir = PathBuf::from(args.next().unwrap_or_default());
            serve(mode, &dir)
        }
        other => {
            let rounds = other.and_then(|n| n.parse().ok()).unwrap_or(300);
            drive(rounds)
        }
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("ct-bench-skills: {error}");
            ExitCode::from(1)
        }
    }
}

type Error = Box<dyn std::error::Error + Send + Sync>;

/// Writes the skill: a `SKILL.md` and 9 reference files of about 2 KB each.
fn write_skill(root: &Path) -> Result<PathBuf, Error> {
    let dir = root.join(NAME);
    std::fs::create_dir_all(dir.join("reference"))?;
    std::fs::write(
        dir.join("SKILL.md"),
        format!(
            "---\nname: {NAME}\ndescription: Write the weekly report. Use when asked for the \
             weekly status report.\n---\n# Weekly report\n\n{}",
            "Read the files under reference/ and follow them in order.\n".repeat(20)
        ),
    )?;
    for n in 1..FILES {
        std::fs::write(
            dir.join(format!("reference/part-{n}.md")),
            format!(
                "# Part {n}\n\n{}",
                "A line of guidance for this part of the report.\n".repeat(40)
            ),
        )?;
    }
    Ok(dir)
}

/// The skill's files as (path, bytes), sorted by path.
fn files(dir: &Path) -> Result<Vec<(String, Vec<u8>)>, Error> {
    let mut files = vec![("SKILL.md".to_string(), std::fs::read(dir.join("SKILL.md"))?)];
    for entry in std::fs::read_dir(dir.join("reference"))? {
        let entry = entry?;
        let name = entry.file_name().to_string_lossy().into_owned();
        files.push((format!("reference/{name}"), std::fs::read(entry.path())?));
    }
    files.sort();
    Ok(files)
}

// ---------------------------------------------------------------------------------------------
// The servers.

fn serve(mode: &str, dir: &Path) -> Result<(), Error> {
    let runtime = tokio::runtime::Runtime::new()?;
    runtime.block_on(async {
        match mode {
            "serve-ct-stdio" => {
                use claude_tools::ServeExt;
                ct_server(dir)?.serve_stdio().await?;
            }
            "serve-ct-http" => {
                let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
                println!("http://{}/mcp", listener.local_addr()?);
                claude_tools::mcp::http::HttpServer::new(ct_server(dir)?)
                    .serve(listener)
                    .await?;
            }
            "serve-rmcp-stdio" => {
                use rmcp::ServiceExt;
                let server = RmcpSkills::load(dir)?;
                server
                    .serve(rmcp::transport::io::stdio())
                    .await?
                    .waiting()
                    .await?;
            }
            "serve-rmcp-http" => {
                use rmcp::transport::streamable_http_server::session::never::NeverSessionManager;
                use rmcp::transport::streamable_http_server::{
                    StreamableHttpServerConfig, StreamableHttpService,
                };
                let server = RmcpSkills::load(dir)?;
                let config = StreamableHttpServerConfig::default()
                    .with_legacy_session_mode(false)
                    .with_json_response(true);
                let service = StreamableHttpService::new(
                    move || Ok(server.clone()),
                    Arc::new(NeverSessionManager::default()),
                    config,
                );
                let app = axum::Router::new().nest_service("/mcp", service);
                let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
                println!("http://{}/mcp", listener.local_addr()?);
                axum::serve(listener, app).await?;
            }
            other => return Err(format!("unknown mode {other}").into()),
        }
        Ok(())
    })
}

fn ct_server(dir: &Path) -> Result<claude_tools::ToolServer, Error> {
    Ok(claude_tools::ToolServer::new("bench", "1.0.0").with_skill(dir)?)
}

/// rmcp's side: the same files, answered with rmcp's skill types.
#[derive(Clone)]
struct RmcpSkills {
    skill: Arc<rmcp::model::Skill>,
    /// By URI: the text and MIME type.
    files: Arc<std::collections::HashMap<String, String>>,
}

impl RmcpSkills {
    fn load(dir: &Path) -> Result<Self, Error> {
        use rmcp::model::{Skill, SkillFrontmatter, SkillResource, SkillResources};
        let root = format!("skill://{NAME}");
        let mut resources = Vec::new();
        let mut texts = std::collections::HashMap::new();
        for (path, bytes) in files(dir)? {
            let uri = format!("{root}/{path}");
            resources.push(SkillResource::from_bytes(uri.clone(), &bytes));
            texts.insert(uri, String::from_utf8(bytes)?);
        }
        let front_matter = SkillFrontmatter::new(
            NAME,
            "Write the weekly report. Use when asked for the weekly status report.",
        );
        let skill = Skill::new(
            format!("{root}/SKILL.md"),
            front_matter,
            SkillResources::Files(resources),
        );
        Ok(Self {
            skill: Arc::new(skill),
            files: Arc::new(texts),
        })
    }
}

impl rmcp::ServerHandler for RmcpSkills {
    fn get_info(&self) -> rmcp::model::ServerConfig {
        use rmcp::model::{Implementation, ServerCapabilities, ServerConfig};
        ServerConfig::new(
            ServerCapabilities::builder()
                .enable_resources()
                .enable_skills()
                .build(),
        )
        .with_server_info(Implementation::new("bench", "1.0.0"))
    }

    async fn list_skills(
        &self,
        _request: Option<rmcp::model::PaginatedRequestParams>,
        _context: rmcp::service::RequestContext<rmcp::RoleServer>,
    ) -> Result<rmcp::model::ListSkillsResult, rmcp::ErrorData> {
        Ok(rmcp::model::ListSkillsResult::with_all_items(vec![
            (*self.skill).clone(),
        ]))
    }

    async fn get_skill(
        &self,
        request: rmcp::model::GetSkillRequestParams,
        _context: rmcp::service::RequestContext<rmcp::RoleServer>,
    ) -> Result<rmcp::model::GetSkillResult, rmcp::ErrorData> {
        if request.uri == self.skill.uri {
            Ok(rmcp::model::GetSkillResult::new((*self.skill).clone()))
        } else {
            Err(rmcp::ErrorData::invalid_params("unknown skill", None))
        }
    }

    async fn read_resource(
        &self,
        request: rmcp::model::ReadResourceRequestParams,
        _context: rmcp::service::RequestContext<rmcp::RoleServer>,
    ) -> Result<rmcp::model::ReadResourceResponse, rmcp::ErrorData> {
        use rmcp::model::{ReadResourceResult, ResourceContents};
        let Some(text) = self.files.get(&request.uri) else {
            return Err(rmcp::ErrorData::resource_not_found(request.uri, None));
        };
        let contents =
            ResourceContents::text(text.clone(), request.uri).with_mime_type("text/markdown");
        Ok(ReadResourceResult::new(vec![contents]).into())
    }
}

// ---------------------------------------------------------------------------------------------
// The driver.

/// One request of a round: its method, its `Mcp-Name` (if any) and its body.
struct Step {
    method: &'static str,
    name: Option<String>,
    body: Vec<u8>,
}

fn round(dir: &Path) -> Result<Vec<Step>, Error> {
    let meta = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {"extensions": {"io.modelcontextprotocol/skills": {}}},
    });
    let request = |id: usize, method: &str, mut params: Value| {
        params["_meta"] = meta.clone();
        serde_json::to_vec(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))
    };
    let skill_md = format!("skill://{NAME}/SKILL.md");
    let mut steps = vec![
        Step {
            method: "skills/list",
            name: None,
            body: request(1, "skills/list", json!({}))?,
        },
        Step {
            method: "skills/get",
            name: Some(skill_md.clone()),
            body: request(2, "skills/get", json!({"uri": skill_md}))?,
        },
    ];
    for (n, (path, _)) in files(dir)?.into_iter().enumerate() {
        let uri = format!("skill://{NAME}/{path}");
        steps.push(Step {
            method: "resources/read",
            name: Some(uri.clone()),
            body: request(3 + n, "resources/read", json!({"uri": uri}))?,
        });
    }
    Ok(steps)
}

/// What one server gave: the time of each round, bytes per round.
struct Figures {
    rounds: Vec<Duration>,
    sent: usize,
    received: usize,
}

fn drive(rounds: usize) -> Result<(), Error> {
    let root = std::env::temp_dir().join(format!("ct-bench-skills-{}", std::process::id()));
    let dir = write_skill(&root)?;
    let steps = round(&dir)?;
    let me = std::env::current_exe()?;
    println!(
        "A {FILES}-file skill ({} bytes): skills/list, skills/get, {FILES} resources/read per round; {rounds} rounds, one request at a time.\n",
        files(&dir)?
            .iter()
            .map(|(_, bytes)| bytes.len())
            .sum::<usize>()
    );
    println!("| server | transport | round p50 | round p90 | sent / round | received / round |");
    println!("|---|---|---|---|---|---|");
    for (label, mode) in [
        ("claude-tools", "serve-ct-stdio"),
        ("rmcp 3.11", "serve-rmcp-stdio"),
        ("claude-tools", "serve-ct-http"),
        ("rmcp 3.11", "serve-rmcp-http"),
    ] {
        let figures = if mode.ends_with("stdio") {
            over_stdio(&me, mode, &dir, &steps, rounds)?
        } else {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()?;
            runtime.block_on(over_http(&me, mode, &dir, &steps, rounds))?
        };
        let mut sorted = figures.rounds.clone();
        sorted.sort();
        let at = |q: f64| sorted[((sorted.len() - 1) as f64 * q) as usize];
        println!(
            "| {label} | {} | {:.0} µs | {:.0} µs | {} B | {} B |",
            if mode.ends_with("stdio") {
                "stdio"
            } else {
                "HTTP"
            },
            at(0.5).as_secs_f64() * 1e6,
            at(0.9).as_secs_f64() * 1e6,
            figures.sent,
            figures.received,
        );
    }
    let _ = std::fs::remove_dir_all(&root);
    Ok(())
}

/// Checks one answer: a result, not an error.
fn check(method: &str, answer: &[u8]) -> Result<(), Error> {
    let value: Value = serde_json::from_slice(answer)?;
    if value.get("result").is_none() {
        return Err(format!("{method} was answered {value}").into());
    }
    Ok(())
}

fn over_stdio(
    me: &Path,
    mode: &str,
    dir: &Path,
    steps: &[Step],
    rounds: usize,
) -> Result<Figures, Error> {
    let mut child: Child = Command::new(me)
        .arg(mode)
        .arg(dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()?;
    let mut stdin: ChildStdin = child.stdin.take().ok_or("no stdin")?;
    let mut stdout = BufReader::new(child.stdout.take().ok_or("no stdout")?);
    let exchange = |stdin: &mut ChildStdin,
                    stdout: &mut BufReader<ChildStdout>,
                    step: &Step|
     -> Result<(usize, usize), Error> {
        stdin.write_all(&step.body)?;
        stdin.write_all(b"\n")?;
        stdin.flush()?;
        let mut line = String::new();
        loop {
            line.clear();
            if stdout.read_line(&mut line)? == 0 {
                return Err(format!("{mode} closed its stdout").into());
            }
            // Skip the server's notifications; the answer has an id.
            if line.contains("\"id\"") {
                break;
            }
        }
        check(step.method, line.as_bytes())?;
        Ok((step.body.len() + 1, line.len()))
    };
    let mut figures = Figures {
        rounds: Vec::with_capacity(rounds),
        sent: 0,
        received: 0,
    };
    for index in 0..rounds + 20 {
        let start = Instant::now();
        let (mut sent, mut received) = (0, 0);
        for step in steps {
            let (s, r) = exchange(&mut stdin, &mut stdout, step)?;
            sent += s;
            received += r;
        }
        // The first rounds warm up.
        if index >= 20 {
            figures.rounds.push(start.elapsed());
        }
        (figures.sent, figures.received) = (sent, received);
    }
    drop(stdin);
    let _ = child.wait();
    Ok(figures)
}

async fn over_http(
    me: &Path,
    mode: &str,
    dir: &Path,
    steps: &[Step],
    rounds: usize,
) -> Result<Figures, Error> {
    let mut child = Command::new(me)
        .arg(mode)
        .arg(dir)
        .stdout(Stdio::piped())
        .spawn()?;
    let mut first = String::new();
    BufReader::new(child.stdout.take().ok_or("no stdout")?).read_line(&mut first)?;
    let url = first.trim();
    let address: std::net::SocketAddr = url
        .strip_prefix("http://")
        .and_then(|rest| rest.strip_suffix("/mcp"))
        .ok_or_else(|| format!("unexpected URL {url:?}"))?
        .parse()?;
    // One keep-alive connection per step: each carries its own headers.
    let mut connections = Vec::new();
    for step in steps {
        let mut connection = Connection::connect(address, "/mcp").await?;
        connection.set_header("MCP-Protocol-Version", "2026-07-28");
        connection.set_header("Mcp-Method", step.method);
        if let Some(name) = &step.name {
            connection.set_header("Mcp-Name", name);
        }
        connections.push(connection);
    }
    let mut figures = Figures {
        rounds: Vec::with_capacity(rounds),
        sent: 0,
        received: 0,
    };
    for index in 0..rounds + 20 {
        let start = Instant::now();
        let (mut sent, mut received) = (0, 0);
        for (step, connection) in steps.iter().zip(&mut connections) {
            let response = connection
                .post_json(&step.body)
                .await
                .map_err(|error| format!("{mode} {}: {error:?}", step.method))?;
            if response.status != 200 {
                return Err(format!(
                    "{mode} {}: HTTP {} {}",
                    step.method,
                    response.status,
                    String::from_utf8_lossy(response.body)
                )
                .into());
            }
            check(step.method, response.body)?;
            sent += step.body.len();
            received += response.body.len();
        }
        if index >= 20 {
            figures.rounds.push(start.elapsed());
        }
        (figures.sent, figures.received) = (sent, received);
    }
    let _ = child.kill();
    let _ = child.wait();
    Ok(figures)
}
