//! The scripted model server over real sockets, with a minimal HTTP/1.1 client written here.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

use claude_tools_testkit::model_server::{ModelServer, Script, Served, Turn};
use serde_json::{Value, json};

struct Resp {
    status_line: String,
    status: u16,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
    /// For chunked responses: each chunk as received.
    chunks: Vec<String>,
}

impl Resp {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
    fn json(&self) -> Value {
        serde_json::from_slice(&self.body).unwrap()
    }
    fn text(&self) -> String {
        String::from_utf8(self.body.clone()).unwrap()
    }
}

struct Client {
    conn: BufReader<TcpStream>,
}

impl Client {
    fn connect(server: &ModelServer) -> Client {
        let s = TcpStream::connect(server.addr()).unwrap();
        s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
        Client {
            conn: BufReader::new(s),
        }
    }

    fn raw(&mut self, bytes: &[u8], head_only: bool) -> Resp {
        self.conn.get_mut().write_all(bytes).unwrap();
        self.read_response(head_only)
    }

    fn line(&mut self) -> String {
        let mut l = String::new();
        self.conn.read_line(&mut l).unwrap();
        assert!(l.ends_with("\r\n"), "line not CRLF-terminated: {l:?}");
        l.truncate(l.len() - 2);
        l
    }

    fn read_response(&mut self, head_only: bool) -> Resp {
        let status_line = self.line();
        let status: u16 = status_line.split(' ').nth(1).unwrap().parse().unwrap();
        let mut headers = Vec::new();
        loop {
            let l = self.line();
            if l.is_empty() {
                break;
            }
            let (n, v) = l.split_once(':').unwrap();
            headers.push((n.trim().to_string(), v.trim().to_string()));
        }
        let mut resp = Resp {
            status_line,
            status,
            headers,
            body: Vec::new(),
            chunks: Vec::new(),
        };
        if head_only {
            return resp;
        }
        if resp.header("transfer-encoding") == Some("chunked") {
            loop {
                let size = usize::from_str_radix(&self.line(), 16).unwrap();
                if size == 0 {
                    assert_eq!(self.line(), "");
                    break;
                }
                let mut chunk = vec![0; size];
                self.conn.read_exact(&mut chunk).unwrap();
                assert_eq!(self.line(), "");
                resp.body.extend_from_slice(&chunk);
                resp.chunks.push(String::from_utf8(chunk).unwrap());
            }
        } else {
            let len: usize = resp.header("content-length").unwrap().parse().unwrap();
            resp.body = vec![0; len];
            self.conn.read_exact(&mut resp.body).unwrap();
        }
        resp
    }

    fn post(&mut self, path: &str, body: &Value) -> Resp {
        let body = body.to_string();
        let req = format!(
            "POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nx-api-key: test-key\r\nContent-Length: {}\r\n\r\n{body}",
            body.len()
        );
        self.raw(req.as_bytes(), false)
    }

    fn get(&mut self, method: &str, path: &str) -> Resp {
        let req = format!("{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
        self.raw(req.as_bytes(), method == "HEAD")
    }
}

fn start(script: Script) -> ModelServer {
    ModelServer::try_start(script).unwrap()
}

/// A turn request body with tools offered: a first user message, then `assistants`
/// assistant/user pairs; the last user message's content is `last_user` when not null.
fn body(stream: bool, assistants: usize, last_user: Value) -> Value {
    let mut messages = vec![json!({"role": "user", "content": [
        {"type": "text", "text": "<system-reminder>ctx</system-reminder>"},
        {"type": "text", "text": "first prompt"}]})];
    for i in 0..assistants {
        messages.push(
            json!({"role": "assistant", "content": [{"type": "text", "text": format!("a{i}")}]}),
        );
        messages.push(json!({"role": "user", "content": format!("u{i}")}));
    }
    if !last_user.is_null() {
        let last = messages.len() - 1;
        messages[last] = json!({"role": "user", "content": last_user});
    }
    json!({"model": "claude-test-1", "max_tokens": 128000, "stream": stream, "messages": messages,
           "tools": [{"name": "mcp__calc__add", "input_schema": {"type": "object"}}, {"name": "Bash", "input_schema": {}}]})
}

/// Parses SSE text into `(event, data)` pairs, checking the framing strictly.
fn sse_events(text: &str) -> Vec<(String, Value)> {
    assert!(text.ends_with("\n\n"));
    text.trim_end_matches("\n\n")
        .split("\n\n")
        .map(|frame| {
            let lines: Vec<&str> = frame.split('\n').collect();
            assert_eq!(lines.len(), 2, "frame {frame:?}");
            let name = lines[0].strip_prefix("event: ").unwrap().to_string();
            let data: Value =
                serde_json::from_str(lines[1].strip_prefix("data: ").unwrap()).unwrap();
            assert_eq!(data["type"], name.as_str());
            (name, data)
        })
        .collect()
}

#[test]
fn streams_text_and_tool_use_as_sse() {
    let server = start(
        Script::new().turn(Turn::text("Let me add those numbers.").and_tool_use(
            "toolu_01",
            "mcp__calc__add",
            json!({"a": 1, "b": 22}),
        )),
    );
    let mut c = Client::connect(&server);
    let resp = c.post("/v1/messages?beta=true", &body(true, 0, Value::Null));
    assert_eq!(resp.status, 200);
    assert_eq!(
        resp.header("content-type"),
        Some("text/event-stream; charset=utf-8")
    );
    assert_eq!(resp.header("transfer-encoding"), Some("chunked"));
    // One chunk per SSE event.
    assert!(resp.chunks.iter().all(|c| c.starts_with("event: ")
        && c.ends_with("\n\n")
        && c.matches("event: ").count() == 1));
    let events = sse_events(&resp.text());
    let names: Vec<&str> = events.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(
        names,
        [
            "message_start",
            "content_block_start",
            "ping",
            "content_block_delta",
            "content_block_delta",
            "content_block_delta",
            "content_block_stop",
            "content_block_start",
            "content_block_delta",
            "content_block_delta",
            "content_block_delta",
            "content_block_delta",
            "content_block_stop",
            "message_delta",
            "message_stop"
        ]
    );
    let start = &events[0].1["message"];
    assert_eq!(start["role"], "assistant");
    assert_eq!(start["model"], "claude-test-1");
    assert_eq!(start["content"], json!([]));
    assert_eq!(start["stop_reason"], Value::Null);
    assert_eq!(
        events[1].1,
        json!({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}})
    );
    let text: String = events[3..6]
        .iter()
        .map(|(_, d)| {
            assert_eq!(d["index"], 0);
            assert_eq!(d["delta"]["type"], "text_delta");
            d["delta"]["text"].as_str().unwrap().to_string()
        })
        .collect();
    assert_eq!(text, "Let me add those numbers.");
    assert_eq!(
        events[6].1,
        json!({"type": "content_block_stop", "index": 0})
    );
    assert_eq!(
        events[7].1,
        json!({"type": "content_block_start", "index": 1, "content_block": {"type": "tool_use", "id": "toolu_01", "name": "mcp__calc__add", "input": {}}})
    );
    assert_eq!(
        events[8].1["delta"],
        json!({"type": "input_json_delta", "partial_json": ""})
    );
    let json_text: String = events[9..12]
        .iter()
        .map(|(_, d)| d["delta"]["partial_json"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(
        serde_json::from_str::<Value>(&json_text).unwrap(),
        json!({"a": 1, "b": 22})
    );
    assert_eq!(
        events[13].1["delta"],
        json!({"stop_reason": "tool_use", "stop_sequence": null})
    );
    assert!(events[13].1["usage"]["output_tokens"].as_u64().unwrap() >= 1);

    let reqs = server.message_requests();
    assert_eq!(reqs.len(), 1);
    assert_eq!(reqs[0].query.as_deref(), Some("beta=true"));
    assert_eq!(reqs[0].header("X-API-KEY"), Some("test-key"));
    assert!(reqs[0].is_streaming());
    assert_eq!(reqs[0].served, Served::Turn { index: 0 });
    assert_eq!(
        server.tools_offered(0),
        Some(vec!["mcp__calc__add".to_string(), "Bash".to_string()])
    );
    assert_eq!(server.tools_offered(1), None);
}

#[test]
fn non_streaming_reply_is_a_message_object() {
    let server = start(Script::new().turn(Turn::text("plain")));
    let mut c = Client::connect(&server);
    let resp = c.post("/v1/messages", &body(false, 0, Value::Null));
    assert_eq!(resp.status, 200);
    assert_eq!(resp.header("content-type"), Some("application/json"));
    let m = resp.json();
    assert_eq!(m["type"], "message");
    assert_eq!(m["role"], "assistant");
    assert_eq!(m["content"], json!([{"type": "text", "text": "plain"}]));
    assert_eq!(m["stop_reason"], "end_turn");
    assert!(m["id"].as_str().unwrap().starts_with("msg_"));
}

#[test]
fn turn_selection_by_assistant_count_side_requests_and_user_text() {
    let server = start(
        Script::new()
            .turn(Turn::text("zero"))
            .turn(Turn::text("after interrupt").when_user_text("second prompt"))
            .turn(Turn::text("one"))
            .side_reply("side!"),
    );
    let mut c = Client::connect(&server);
    let text_of = |r: Resp| r.json()["content"][0]["text"].as_str().unwrap().to_string();
    // Side request (no tools): does not consume the script.
    let side =
        json!({"model": "m", "max_tokens": 1, "messages": [{"role": "user", "content": "Hi"}]});
    assert_eq!(text_of(c.post("/v1/messages", &side)), "side!");
    assert_eq!(
        text_of(c.post("/v1/messages", &body(false, 0, Value::Null))),
        "zero"
    );
    // A retry of turn 0 gets turn 0 again.
    assert_eq!(
        text_of(c.post("/v1/messages", &body(false, 0, Value::Null))),
        "zero"
    );
    assert_eq!(
        text_of(c.post("/v1/messages", &body(false, 1, Value::Null))),
        "one"
    );
    // Keyed turn: chosen by the last user text, whatever the assistant count.
    assert_eq!(
        text_of(c.post(
            "/v1/messages",
            &body(
                false,
                0,
                json!([{"type": "text", "text": "the second prompt now"}])
            )
        )),
        "after interrupt"
    );
    let exhausted = text_of(c.post("/v1/messages", &body(false, 2, Value::Null)));
    assert!(exhausted.starts_with("script exhausted"), "{exhausted}");
    let served: Vec<Served> = server
        .message_requests()
        .into_iter()
        .map(|r| r.served)
        .collect();
    assert_eq!(
        served,
        [
            Served::SideReply,
            Served::Turn { index: 0 },
            Served::Turn { index: 0 },
            Served::Turn { index: 2 },
            Served::Turn { index: 1 },
            Served::Exhausted
        ]
    );
    assert_eq!(server.turn_requests().len(), 5);
}

#[test]
fn http_error_is_served_n_times_then_the_content() {
    let server = start(
        Script::new().turn(
            Turn::http_error(529, "overloaded_error", "Overloaded")
                .times(2)
                .header("x-should-retry", "true")
                .header("retry-after", "0")
                .and_text("recovered"),
        ),
    );
    let mut c = Client::connect(&server);
    for _ in 0..2 {
        let r = c.post("/v1/messages", &body(true, 0, Value::Null));
        assert_eq!(r.status, 529);
        assert_eq!(r.header("x-should-retry"), Some("true"));
        assert_eq!(r.header("retry-after"), Some("0"));
        assert_eq!(
            r.json(),
            json!({"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}})
        );
    }
    let r = c.post("/v1/messages", &body(true, 0, Value::Null));
    assert_eq!(r.status, 200);
    assert!(r.text().contains("\"text\":\"re"));
    let served: Vec<Served> = server
        .message_requests()
        .into_iter()
        .map(|r| r.served)
        .collect();
    assert_eq!(
        served,
        [
            Served::TurnError {
                index: 0,
                status: 529
            },
            Served::TurnError {
                index: 0,
                status: 529
            },
            Served::Turn { index: 0 }
        ]
    );

    // Without .times(), the error never stops.
    let server = start(Script::new().turn(Turn::http_error(400, "invalid_request_error", "bad")));
    let mut c = Client::connect(&server);
    for _ in 0..3 {
        assert_eq!(
            c.post("/v1/messages", &body(true, 0, Value::Null)).status,
            400
        );
    }
}

#[test]
fn placeholders_quote_tool_results_and_recording_helpers() {
    let server = start(
        Script::new()
            .turn(
                Turn::tool_use("toolu_a", "mcp__calc__add", json!({})).and_tool_use(
                    "toolu_b",
                    "mcp__calc__add",
                    json!({}),
                ),
            )
            .turn(Turn::text("last={{tool_result}} a={{tool_result:toolu_a}}")),
    );
    let mut c = Client::connect(&server);
    c.post("/v1/messages", &body(false, 0, Value::Null));
    let results = json!([
        {"type": "tool_result", "tool_use_id": "toolu_a", "content": [{"type": "text", "text": "3"}]},
        {"type": "tool_result", "tool_use_id": "toolu_b", "is_error": true,
         "content": "boom<system-reminder>noise</system-reminder>"}
    ]);
    let r = c.post("/v1/messages", &body(false, 1, results.clone()));
    assert_eq!(r.json()["content"][0]["text"], "last=boom a=3");
    // A retry repeats the history; tool_results() lists each result once.
    c.post("/v1/messages", &body(false, 1, results));
    assert_eq!(
        server.tool_results(),
        [
            ("toolu_a".to_string(), "3".to_string(), false),
            ("toolu_b".to_string(), "boom".to_string(), true)
        ]
    );
}

#[test]
fn other_routes_keep_alive_and_chunked_request_bodies() {
    let server = start(Script::new().turn(Turn::text("x")));
    let mut c = Client::connect(&server);
    // All on one keep-alive connection.
    let r = c.post(
        "/v1/messages/count_tokens?beta=true",
        &json!({"messages": [{"role": "user", "content": "hello there"}]}),
    );
    assert_eq!(r.status, 200);
    assert!(r.json()["input_tokens"].as_u64().unwrap() >= 1);
    assert_eq!(r.json().as_object().unwrap().len(), 1);
    let r = c.get("GET", "/v1/models");
    assert_eq!(r.json()["data"][0]["type"], "model");
    let r = c.get("GET", "/v1/models/claude-x");
    assert_eq!(r.json()["id"], "claude-x");
    let r = c.get("GET", "/anything/else");
    assert_eq!((r.status, r.json()), (200, json!({})));
    let r = c.get("HEAD", "/api/hello");
    assert_eq!(r.status, 200);
    assert_eq!(r.header("content-length"), Some("2"));
    let r = c.raw(b"POST /v1/messages HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nTransfer-Encoding: chunked\r\n\r\n", true);
    assert_eq!(r.status, 100);
    let payload = body(false, 0, Value::Null).to_string();
    let (a, b) = payload.split_at(10);
    let chunked = format!("{:x}\r\n{a}\r\n{:x}\r\n{b}\r\n0\r\n\r\n", a.len(), b.len());
    c.conn.get_mut().write_all(chunked.as_bytes()).unwrap();
    let r = c.read_response(false);
    assert_eq!(r.json()["content"][0]["text"], "x");
    let methods: Vec<(String, String, Served)> = server
        .requests()
        .into_iter()
        .map(|r| (r.method, r.path, r.served))
        .collect();
    assert_eq!(
        methods,
        [
            (
                "POST".into(),
                "/v1/messages/count_tokens".into(),
                Served::CountTokens
            ),
            ("GET".into(), "/v1/models".into(), Served::Models),
            ("GET".into(), "/v1/models/claude-x".into(), Served::Models),
            ("GET".into(), "/anything/else".into(), Served::Fallback),
            ("HEAD".into(), "/api/hello".into(), Served::Fallback),
            (
                "POST".into(),
                "/v1/messages".into(),
                Served::Turn { index: 0 }
            ),
        ]
    );
}

/// Whether the server closed `c`'s connection (rather than leaving it open for another request).
fn closed(c: &mut Client) -> bool {
    let mut rest = Vec::new();
    matches!(c.conn.read_to_end(&mut rest), Ok(0))
}

#[test]
fn headers_are_recorded_as_sent_in_order() {
    let server = start(Script::new().turn(Turn::text("x")));
    let mut c = Client::connect(&server);
    let payload = body(false, 0, Value::Null).to_string();
    // Mixed case, a name repeated apart from its first, a Content-Length body; then, pipelined
    // in the same write, a chunked body that holds a head of its own and a last request.
    let (a, b) = payload.split_at(10);
    let inner = "GET /v1/models HTTP/1.1\r\nX-Inner: yes\r\n\r\n";
    let requests = format!(
        "POST /v1/messages?beta=true HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Stainless-Retry-Count: 0\r\nanthropic-version: 2023-06-01\r\nx-stainless-retry-count: 1\r\nContent-Length: {}\r\n\r\n{payload}\
         POST /v1/messages/count_tokens HTTP/1.1\r\nTransfer-Encoding: chunked\r\nX-App: cli\r\n\r\n{:x}\r\n{inner}\r\n{:x}\r\n{a}\r\n{:x}\r\n{b}\r\n0\r\nX-Trailer: t\r\n\r\n\
         GET /v1/models HTTP/1.1\r\nX-Last: 1\r\nConnection: close\r\n\r\n",
        payload.len(),
        inner.len(),
        a.len(),
        b.len()
    );
    c.conn.get_mut().write_all(requests.as_bytes()).unwrap();
    let answers: Vec<Resp> = (0..3).map(|_| c.read_response(false)).collect();
    assert!(answers.iter().all(|r| r.status == 200));
    assert!(closed(&mut c));
    let recorded: Vec<(String, Vec<(String, String)>)> = server
        .requests()
        .into_iter()
        .map(|r| (r.path, r.headers))
        .collect();
    let h = |pairs: &[(&str, &str)]| -> Vec<(String, String)> {
        pairs
            .iter()
            .map(|(n, v)| (n.to_string(), v.to_string()))
            .collect()
    };
    assert_eq!(
        recorded,
        [
            (
                "/v1/messages".to_string(),
                h(&[
                    ("Host", "127.0.0.1"),
                    ("X-Stainless-Retry-Count", "0"),
                    ("anthropic-version", "2023-06-01"),
                    ("x-stainless-retry-count", "1"),
                    ("Content-Length", &payload.len().to_string()),
                ])
            ),
            (
                "/v1/messages/count_tokens".to_string(),
                h(&[("Transfer-Encoding", "chunked"), ("X-App", "cli")])
            ),
            (
                "/v1/models".to_string(),
                h(&[("X-Last", "1"), ("Connection", "close")])
            ),
        ]
    );
    // The chunked body arrived whole, the inner head included (count_tokens counts bytes / 4).
    assert_eq!(server.requests()[1].served, Served::CountTokens);
    assert_eq!(
        answers[1].json()["input_tokens"],
        (inner.len() + payload.len()) / 4
    );
    assert_eq!(answers[2].json()["data"][0]["type"], "model");
}

#[test]
fn an_oversized_body_is_refused_with_413_and_the_server_goes_on() {
    let server = start(Script::new().turn(Turn::text("x")));
    let mut c = Client::connect(&server);
    // Declared over 64 MiB: refused at once, before the client sends any of it.
    let r = c.raw(
        b"POST /v1/messages HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 67108865\r\n\r\n",
        false,
    );
    assert_eq!(r.status, 413);
    assert_eq!(r.header("connection"), Some("close"));
    assert_eq!(r.json()["error"]["type"], "request_too_large");
    assert!(closed(&mut c));
    assert!(server.requests().is_empty());
    let mut c = Client::connect(&server);
    assert_eq!(
        c.post("/v1/messages", &body(false, 0, Value::Null)).status,
        200
    );
}

#[test]
fn http_1_0_closes_after_its_answer_and_529_keeps_its_reason() {
    let server = start(Script::new().turn(Turn::http_error(529, "overloaded_error", "Overloaded")));
    let mut c = Client::connect(&server);
    let r = c.raw(b"GET /v1/models HTTP/1.0\r\n\r\n", false);
    assert_eq!(r.status, 200);
    assert!(closed(&mut c));
    let mut c = Client::connect(&server);
    let r = c.post("/v1/messages", &body(false, 0, Value::Null));
    assert_eq!(r.status_line, "HTTP/1.1 529 Overloaded");
}

#[test]
fn a_script_error_that_http_cannot_carry_is_refused_at_start() {
    let bad_name = Script::new()
        .turn(Turn::text("fine"))
        .turn(Turn::http_error(529, "overloaded_error", "Overloaded").header("retry after", "1"));
    let e = ModelServer::try_start(bad_name).unwrap_err();
    assert_eq!(e.kind(), std::io::ErrorKind::InvalidInput);
    assert!(e.to_string().contains("turn 1"), "{e}");
    assert!(e.to_string().contains("\"retry after\""), "{e}");
    let bad_status = Script::new().turn(Turn::http_error(42, "odd", "odd"));
    let e = ModelServer::try_start(bad_status).unwrap_err();
    assert!(
        e.to_string().contains("42 is not a final HTTP status"),
        "{e}"
    );
}

#[test]
fn proxy_attempts_are_refused_and_recorded() {
    let server = start(Script::new());
    let mut c = Client::connect(&server);
    let r = c.raw(
        b"CONNECT api.anthropic.com:443 HTTP/1.1\r\nHost: api.anthropic.com:443\r\n\r\n",
        false,
    );
    assert_eq!(r.status, 403);
    assert_eq!(r.header("connection"), Some("close"));
    assert!(closed(&mut c));
    let mut c = Client::connect(&server);
    let r = c.get("GET", "http://example.com/x");
    assert_eq!(r.status, 403);
    let attempts: Vec<(String, String)> = server
        .proxy_attempts()
        .into_iter()
        .map(|r| (r.method, r.path))
        .collect();
    assert_eq!(
        attempts,
        [
            ("CONNECT".to_string(), "api.anthropic.com:443".to_string()),
            ("GET".to_string(), "http://example.com/x".to_string())
        ]
    );
}

#[test]
fn delay_postpones_the_reply() {
    let server = start(Script::new().turn(Turn::text("late").delay(Duration::from_millis(300))));
    let mut c = Client::connect(&server);
    let t = Instant::now();
    let r = c.post("/v1/messages", &body(true, 0, Value::Null));
    assert!(t.elapsed() >= Duration::from_millis(300));
    assert_eq!(r.status, 200);
    assert!(server.message_requests()[0].at < Duration::from_secs(5));
}

#[test]
fn cli_env_is_complete() {
    let server = start(Script::new());
    let home = claude_tools_testkit::TempDir::new("env").unwrap();
    let env = server.cli_env(home.path());
    let get = |k: &str| env.iter().find(|(n, _)| n == k).map(|(_, v)| v.clone());
    assert_eq!(get("ANTHROPIC_BASE_URL"), Some(server.base_url()));
    assert_eq!(get("ANTHROPIC_API_KEY").as_deref(), Some("test-key"));
    assert_eq!(
        get("HOME"),
        Some(home.path().to_string_lossy().into_owned())
    );
    assert_eq!(
        get("CLAUDE_CONFIG_DIR"),
        Some(home.path().join(".claude").to_string_lossy().into_owned())
    );
    assert!(home.path().join("tmp").is_dir());
    for k in [
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC",
        "DISABLE_AUTOUPDATER",
        "DISABLE_TELEMETRY",
        "DISABLE_ERROR_REPORTING",
        "DISABLE_BUG_COMMAND",
    ] {
        assert_eq!(get(k).as_deref(), Some("1"), "{k}");
    }
    assert_eq!(get("ENABLE_TOOL_SEARCH").as_deref(), Some("false"));
    assert_eq!(get("HTTPS_PROXY"), Some(server.base_url()));
    assert_eq!(get("NO_PROXY").as_deref(), Some("127.0.0.1,localhost"));
    let keep = server.cli_env_keep_tool_search(home.path());
    assert_eq!(keep.len() + 1, env.len());
    assert!(keep.iter().all(|(k, _)| k != "ENABLE_TOOL_SEARCH"));
    assert!(server.base_url().starts_with("http://127.0.0.1:"));
}
