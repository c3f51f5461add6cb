//! A tool handler's panic over stdio and Streamable HTTP: the client reads a generic `isError`
//! result with an incident id, never the panic's message (it may hold a secret); the server's
//! log has the message beside the same incident id. `panic_detail(PanicDetail::Shown)` sends
//! the message, as in-process.

use std::fmt::Write as _;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use claude_tools::mcp::PanicDetail;
use claude_tools::mcp::http::HttpServer;
use claude_tools::mcp::stdio::serve;
use claude_tools::tools::{ToolDefBuilder, ToolServer};
use serde_json::Value;
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::{TcpListener, TcpStream};
use tracing::field::{Field, Visit};
use tracing_subscriber::layer::{Context, Layer, SubscriberExt};

const WAIT: Duration = Duration::from_secs(10);

const SECRET: &str = "postgres://app:hunter2@db.internal/app";

const CALL: &str = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"boom"}}"#;

fn server() -> ToolServer {
    ToolServer::new("panics", "1.0.0")
        .with_tool(ToolDefBuilder::new("boom"), |_call| async {
            if std::hint::black_box(true) {
                panic!("cannot reach {SECRET}");
            }
            "unreachable"
        })
        .unwrap()
}

/// Every event's fields, one line per event.
#[derive(Clone, Default)]
struct Log(Arc<Mutex<Vec<String>>>);

impl Log {
    fn lines(&self) -> Vec<String> {
        self.0.lock().unwrap().clone()
    }
}

struct Fields<'a>(&'a mut String);

impl Visit for Fields<'_> {
    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        let _ = write!(self.0, "{}={:?} ", field.name(), value);
    }
}

impl<S: tracing::Subscriber> Layer<S> for Log {
    fn on_event(&self, event: &tracing::Event<'_>, _: Context<'_, S>) {
        let mut line = String::new();
        event.record(&mut Fields(&mut line));
        self.0.lock().unwrap().push(line);
    }
}

/// The text of a `tools/call` answer's one content block, after checking it is an `isError`
/// result for id 1.
fn error_text(answer: &Value) -> String {
    assert_eq!(answer["id"], 1, "{answer}");
    assert_eq!(answer["result"]["isError"], true, "{answer}");
    answer["result"]["content"][0]["text"]
        .as_str()
        .unwrap()
        .to_string()
}

/// The incident id in a hidden panic's text, after checking the text says nothing more.
fn incident_of(text: &str) -> String {
    let incident = text
        .strip_prefix("tool `boom` failed with an internal error (incident ")
        .and_then(|rest| rest.strip_suffix("); the server's log has the details"))
        .unwrap_or_else(|| panic!("not the generic text: {text}"));
    assert_eq!(incident.len(), 16, "{text}");
    assert!(incident.bytes().all(|b| b.is_ascii_hexdigit()), "{text}");
    incident.to_string()
}

/// The log has one event naming the incident, the tool and the panic's message.
fn assert_logged(log: &Log, incident: &str) {
    let lines = log.lines();
    let logged = lines
        .iter()
        .filter(|line| line.contains(incident))
        .collect::<Vec<_>>();
    assert_eq!(logged.len(), 1, "{lines:#?}");
    assert!(logged[0].contains(SECRET), "{logged:?}");
    assert!(logged[0].contains("tool=boom"), "{logged:?}");
}

async fn over_stdio(detail: Option<PanicDetail>) -> Value {
    let (mut to_server, from_client) = tokio::io::duplex(1 << 16);
    let (to_client, from_server) = tokio::io::duplex(1 << 16);
    let mut serving = serve(server(), from_client, to_client);
    if let Some(detail) = detail {
        serving = serving.panic_detail(detail);
    }
    let serving = tokio::spawn(serving.into_future());
    to_server
        .write_all(format!("{CALL}\n").as_bytes())
        .await
        .unwrap();
    let mut line = String::new();
    tokio::time::timeout(WAIT, BufReader::new(from_server).read_line(&mut line))
        .await
        .expect("an answer in time")
        .unwrap();
    to_server.shutdown().await.unwrap();
    tokio::time::timeout(WAIT, serving)
        .await
        .expect("serve returned")
        .unwrap()
        .unwrap();
    serde_json::from_str(&line).unwrap()
}

async fn over_http(detail: Option<PanicDetail>) -> Value {
    let mut http = HttpServer::new(server());
    if let Some(detail) = detail {
        http = http.panic_detail(detail);
    }
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(http.serve(listener).into_future());
    let mut stream = TcpStream::connect(addr).await.unwrap();
    let request = format!(
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nContent-Length: {}\r\n\
         Connection: close\r\n\r\n{CALL}",
        CALL.len()
    );
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut reply = Vec::new();
    tokio::time::timeout(WAIT, stream.read_to_end(&mut reply))
        .await
        .expect("an answer in time")
        .unwrap();
    let reply = String::from_utf8(reply).unwrap();
    assert!(reply.starts_with("HTTP/1.1 200"), "{reply}");
    let (_, body) = reply.split_once("\r\n\r\n").unwrap();
    serde_json::from_str(body).unwrap_or_else(|e| panic!("{e}: {body}"))
}

#[tokio::test]
async fn over_stdio_a_panic_is_an_incident_id_and_its_message_goes_to_the_log() {
    let log = Log::default();
    let _guard = tracing::subscriber::set_default(tracing_subscriber::registry().with(log.clone()));
    let answer = over_stdio(None).await;
    let text = error_text(&answer);
    assert!(!answer.to_string().contains("hunter2"), "{answer}");
    assert_logged(&log, &incident_of(&text));
}

#[tokio::test]
async fn over_http_a_panic_is_an_incident_id_and_its_message_goes_to_the_log() {
    let log = Log::default();
    let _guard = tracing::subscriber::set_default(tracing_subscriber::registry().with(log.clone()));
    let answer = over_http(None).await;
    let text = error_text(&answer);
    assert!(!answer.to_string().contains("hunter2"), "{answer}");
    assert_logged(&log, &incident_of(&text));
}

#[tokio::test]
async fn shown_sends_the_panics_message_on_both_transports() {
    let shown = format!("tool `boom` panicked: cannot reach {SECRET}");
    assert_eq!(
        error_text(&over_stdio(Some(PanicDetail::Shown)).await),
        shown
    );
    assert_eq!(
        error_text(&over_http(Some(PanicDetail::Shown)).await),
        shown
    );
}

#[tokio::test]
async fn two_panics_get_two_incident_ids() {
    let first = incident_of(&error_text(&over_stdio(None).await));
    let second = incident_of(&error_text(&over_http(None).await));
    assert_ne!(first, second);
}
