//! CORS in a real browser: headless Chromium (Debian's `chromium`, installed by
//! `scripts/install-browser`) loads a page from one loopback port whose script calls the MCP
//! server on another with `fetch` (`initialize`, reading the `Mcp-Session-Id`, then
//! `tools/call` with a bearer token) and writes the tool's result into the DOM; the same page
//! served from an origin the server does not allow gets nothing, and the tool never runs.
//!
//! Without Chromium the test skips with a banner, unless `CI` is set, where it fails. The
//! browser reaches nothing but 127.0.0.1: every host name resolves to nothing.

use std::io::{Read, Write};
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use claude_tools::mcp::http::{HttpServer, axum};
use claude_tools::tools::{ToolDefBuilder, ToolServer};
use tokio::net::TcpListener;
use tokio::sync::oneshot;

/// How long one headless Chromium run may take, start to DOM, on a loaded machine.
const BROWSER_LIMIT: Duration = Duration::from_secs(90);

/// The token the server requires.
const TOKEN: &str = "browser-token";

/// Chromium, or `None` (after a loud banner) when it is not installed and `CI` is unset. With
/// `CI` set, a missing Chromium fails the test. `CHROMIUM` names another binary.
fn chromium(test: &str) -> Option<PathBuf> {
    let candidates = std::env::var_os("CHROMIUM")
        .map(PathBuf::from)
        .into_iter()
        .chain(["/usr/bin/chromium", "/usr/bin/chromium-browser"].map(PathBuf::from));
    for candidate in candidates {
        if candidate.exists() {
            return Some(candidate);
        }
    }
    let hint = "run scripts/install-browser (or scripts/test), or set CHROMIUM";
    if std::env::var_os("CI").is_some() {
        panic!("{test}: Chromium is not installed and CI is set; {hint}");
    }
    // Written to the stderr handle itself: libtest captures `eprintln!` of passing tests.
    let _ = writeln!(
        std::io::stderr(),
        "\n!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!\n\
         !!! SKIPPED {test}: Chromium is not installed ({hint})\n\
         !!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!\n"
    );
    None
}

/// The page: `initialize`, then `tools/call` of `echo`, against `mcp`; writes `RESULT:<text>`
/// or `ERROR:<why>` into `#out`.
fn page(mcp: &str) -> String {
    format!(
        r#"<!doctype html>
<html><body><p id="out">pending</p><script>
const url = "{mcp}";
const out = document.getElementById("out");
const post = (headers, body) =>
  fetch(url, {{ method: "POST", headers, body: JSON.stringify(body) }});
(async () => {{
  const headers = {{
    "content-type": "application/json",
    "accept": "application/json, text/event-stream",
    "authorization": "Bearer {TOKEN}",
  }};
  const init = await post(headers, {{ jsonrpc: "2.0", id: 0, method: "initialize",
    params: {{ protocolVersion: "2025-06-18", capabilities: {{}},
              clientInfo: {{ name: "browser", version: "1" }} }} }});
  const session = init.headers.get("mcp-session-id");
  if (!session) throw new Error("no readable Mcp-Session-Id; status " + init.status);
  headers["mcp-session-id"] = session;
  headers["mcp-protocol-version"] = "2025-06-18";
  const reply = await (await post(headers, {{ jsonrpc: "2.0", id: 1, method: "tools/call",
    params: {{ name: "echo", arguments: {{ text: "from the browser" }} }} }})).json();
  out.textContent = "RESULT:" + reply.result.content[0].text;
}})().catch(error => {{ out.textContent = "ERROR:" + error; }});
</script></body></html>
"#
    )
}

/// Serves `html` at `/` on `listener` until the sender is dropped.
fn serve_page(listener: TcpListener, html: String) -> oneshot::Sender<()> {
    let app = axum::Router::new().route(
        "/",
        axum::routing::get(move || {
            let html = html.clone();
            async move { ([("content-type", "text/html; charset=utf-8")], html) }
        }),
    );
    let (stop, stopped) = oneshot::channel::<()>();
    tokio::spawn(
        axum::serve(listener, app)
            .with_graceful_shutdown(async {
                let _ = stopped.await;
            })
            .into_future(),
    );
    stop
}

/// The MCP server on 127.0.0.1, allowing `origin`, counting the `echo` calls in `calls`.
async fn serve_mcp(origin: &str, calls: Arc<AtomicUsize>) -> (SocketAddr, oneshot::Sender<()>) {
    let mut echo = ToolDefBuilder::new("echo");
    echo.input().property::<String>("text", None, true);
    let server = ToolServer::new("browser", "1.0.0")
        .with_tool(echo, move |mut call| {
            calls.fetch_add(1, Ordering::SeqCst);
            async move {
                let text = call.take_argument("text").unwrap_or_default();
                format!("ECHO:{}", text.as_str().unwrap_or_default())
            }
        })
        .unwrap();
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let (stop, stopped) = oneshot::channel::<()>();
    let serve = HttpServer::new(server)
        .allowed_origins([origin])
        .bearer_token(TOKEN)
        .sessions(true)
        .serve(listener)
        .with_graceful_shutdown(async {
            let _ = stopped.await;
        });
    tokio::spawn(serve.into_future());
    (addr, stop)
}

/// Loads `url` in headless Chromium and returns the DOM once the page's script has had its
/// time, within [`BROWSER_LIMIT`].
fn dump_dom(chromium: &PathBuf, url: &str) -> String {
    let profile = std::env::temp_dir().join(format!(
        "claude-tools-browser-{}-{}",
        std::process::id(),
        url.rsplit(':').next().unwrap_or_default().replace('/', "")
    ));
    let mut child = Command::new(chromium)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-dev-shm-usage",
            "--disable-quic",
            "--no-first-run",
            "--no-default-browser-check",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--disable-extensions",
            "--disable-domain-reliability",
            "--disable-breakpad",
            // Nothing but 127.0.0.1: every host name resolves to nothing.
            "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
            // Virtual time waits for the page's fetches, then runs this long at most.
            "--virtual-time-budget=20000",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .args(["--dump-dom", url])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("chromium starts");
    let mut stdout = child.stdout.take().expect("piped stdout");
    let reader = std::thread::spawn(move || {
        let mut dom = String::new();
        let _ = stdout.read_to_string(&mut dom);
        dom
    });
    let started = Instant::now();
    while child.try_wait().expect("wait on chromium").is_none() {
        if started.elapsed() > BROWSER_LIMIT {
            let _ = child.kill();
            let _ = child.wait();
            panic!("headless Chromium did not finish within {BROWSER_LIMIT:?} on {url}");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let dom = reader.join().expect("the reader thread");
    let _ = std::fs::remove_dir_all(&profile);
    dom
}

/// The text of `<p id="out">` in `dom`.
fn out_text(dom: &str) -> &str {
    let start = dom
        .find(r#"<p id="out">"#)
        .unwrap_or_else(|| panic!("no #out in the DOM: {dom:?}"))
        + r#"<p id="out">"#.len();
    let end = dom[start..].find("</p>").expect("#out closes") + start;
    &dom[start..end]
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_page_of_an_allowed_origin_calls_a_tool_and_a_page_of_another_gets_nothing() {
    let Some(chromium) = chromium("mcp_http_browser") else {
        return;
    };
    // Two page origins (ports); the MCP server allows only the first.
    let allowed_page = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let foreign_page = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let allowed_port = allowed_page.local_addr().unwrap().port();
    let foreign_port = foreign_page.local_addr().unwrap().port();
    let calls = Arc::new(AtomicUsize::new(0));
    let (mcp, _stop_mcp) =
        serve_mcp(&format!("http://127.0.0.1:{allowed_port}"), calls.clone()).await;
    let html = page(&format!("http://127.0.0.1:{}/mcp", mcp.port()));
    let _stop_allowed = serve_page(allowed_page, html.clone());
    let _stop_foreign = serve_page(foreign_page, html);

    let chromium_for_allowed = chromium.clone();
    let url = format!("http://127.0.0.1:{allowed_port}/");
    let dom = tokio::task::spawn_blocking(move || dump_dom(&chromium_for_allowed, &url))
        .await
        .unwrap();
    assert_eq!(out_text(&dom), "RESULT:ECHO:from the browser", "{dom}");
    assert_eq!(calls.load(Ordering::SeqCst), 1);

    let url = format!("http://127.0.0.1:{foreign_port}/");
    let dom = tokio::task::spawn_blocking(move || dump_dom(&chromium, &url))
        .await
        .unwrap();
    let text = out_text(&dom);
    // The script ran and its first fetch failed: the preflight was refused.
    assert!(text.starts_with("ERROR:TypeError"), "{dom}");
    assert_eq!(
        calls.load(Ordering::SeqCst),
        1,
        "the tool ran for a foreign page"
    );
}
