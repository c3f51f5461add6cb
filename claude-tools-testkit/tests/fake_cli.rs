//! The `fake-claude` binary driven by hand-written host lines.

use std::process::Stdio;
use std::time::{Duration, Instant};

use claude_tools_testkit::TempDir;
use claude_tools_testkit::fake_cli::{FakeScript, Transcript, canned};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::process::{Child, ChildStdin, ChildStdout, Command};

const BIN: &str = env!("CARGO_BIN_EXE_fake-claude");

struct Fake {
    child: Child,
    stdin: Option<ChildStdin>,
    stdout: BufReader<ChildStdout>,
    dir: TempDir,
}

impl Fake {
    fn spawn(script: &FakeScript) -> Fake {
        Fake::spawn_with(
            script,
            &[
                "--output-format",
                "stream-json",
                "--verbose",
                "--input-format",
                "stream-json",
            ],
            &[],
        )
    }

    fn spawn_with(script: &FakeScript, args: &[&str], env: &[(&str, &str)]) -> Fake {
        let dir = TempDir::new("fake").unwrap();
        script.write_to(dir.path().join("script.json")).unwrap();
        let mut cmd = Command::new(BIN);
        cmd.args(args)
            .env("FAKE_CLAUDE_SCRIPT", dir.path().join("script.json"))
            .env(
                "FAKE_CLAUDE_TRANSCRIPT",
                dir.path().join("transcript.jsonl"),
            )
            .env("FAKE_CLAUDE_EXPECT_TIMEOUT_MS", "5000")
            .envs(env.iter().copied())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true);
        let mut child = cmd.spawn().unwrap();
        let stdin = child.stdin.take();
        let stdout = BufReader::new(child.stdout.take().unwrap());
        Fake {
            child,
            stdin,
            stdout,
            dir,
        }
    }

    async fn write(&mut self, line: &Value) {
        let stdin = self.stdin.as_mut().unwrap();
        stdin
            .write_all(format!("{line}\n").as_bytes())
            .await
            .unwrap();
        stdin.flush().await.unwrap();
    }

    async fn read_raw(&mut self) -> String {
        let mut line = String::new();
        tokio::time::timeout(Duration::from_secs(10), self.stdout.read_line(&mut line))
            .await
            .expect("no line from fake-claude within 10 s")
            .unwrap();
        assert!(line.ends_with('\n'), "partial line {line:?}");
        line.pop();
        line
    }

    async fn read(&mut self) -> Value {
        let line = self.read_raw().await;
        serde_json::from_str(&line).unwrap_or_else(|e| panic!("not JSON ({e}): {line}"))
    }

    fn close_stdin(&mut self) {
        self.stdin = None;
    }

    /// Waits for exit; returns (code, stderr, remaining stdout).
    async fn finish(mut self) -> (i32, String, String, Transcript) {
        let mut rest = String::new();
        self.stdout.read_to_string(&mut rest).await.unwrap();
        let status = tokio::time::timeout(Duration::from_secs(10), self.child.wait())
            .await
            .unwrap()
            .unwrap();
        let mut stderr = String::new();
        self.child
            .stderr
            .take()
            .unwrap()
            .read_to_string(&mut stderr)
            .await
            .unwrap();
        let transcript = Transcript::read(self.dir.path().join("transcript.jsonl")).unwrap();
        (status.code().unwrap(), stderr, rest, transcript)
    }
}

#[tokio::test]
async fn version_flag() {
    let out = Command::new(BIN).arg("--version").output().await.unwrap();
    assert!(out.status.success());
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        "2.1.332 (Claude Code)\n"
    );
}

#[tokio::test]
async fn missing_script_is_exit_2() {
    let out = Command::new(BIN)
        .env_remove("FAKE_CLAUDE_SCRIPT")
        .output()
        .await
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8(out.stderr)
            .unwrap()
            .contains("FAKE_CLAUDE_SCRIPT is not set")
    );
}

#[tokio::test]
async fn initialize_is_echoed_and_everything_is_recorded() {
    let script = canned::initialize()
        .then(canned::expect_user_message(json!("hello")))
        .then(canned::result("done"))
        .expect_eof(Duration::from_secs(5));
    let mut fake = Fake::spawn_with(
        &script,
        &[
            "--output-format",
            "stream-json",
            "--verbose",
            "--model",
            "claude-x",
            "--mcp-config",
            "{\"mcpServers\":{}}",
        ],
        &[
            ("CLAUDE_CODE_ENTRYPOINT", "sdk-rust"),
            ("ANTHROPIC_API_KEY", "sk-secret"),
            ("UNRELATED_VAR", "x"),
        ],
    );
    let init = json!({"type": "control_request", "request_id": "req_1_de87a569", "request": {"subtype": "initialize", "hooks": null}});
    fake.write(&init).await;
    let resp = fake.read().await;
    assert_eq!(resp["type"], "control_response");
    assert_eq!(resp["response"]["subtype"], "success");
    assert_eq!(resp["response"]["request_id"], "req_1_de87a569");
    let payload = &resp["response"]["response"];
    assert_eq!(payload["claude_code_version"], "2.1.332");
    assert_eq!(payload["pid"], json!(fake.child.id().unwrap()));
    assert_eq!(payload["account"]["apiKeySource"], "ANTHROPIC_API_KEY");
    assert!(payload["commands"].as_array().unwrap().len() >= 3);
    assert!(payload["models"][0]["value"].is_string());
    let user = json!({"type": "user", "session_id": "", "message": {"role": "user", "content": "hello"}, "parent_tool_use_id": null});
    fake.write(&user).await;
    let result = fake.read().await;
    assert_eq!(result["type"], "result");
    assert_eq!(result["subtype"], "success");
    assert_eq!(result["result"], "done");
    assert_eq!(result["session_id"].as_str().unwrap().len(), 36);
    fake.close_stdin();
    let (code, stderr, rest, t) = fake.finish().await;
    assert_eq!((code, stderr.as_str(), rest.as_str()), (0, "", ""));
    assert_eq!(
        t.args,
        [
            "--output-format",
            "stream-json",
            "--verbose",
            "--model",
            "claude-x",
            "--mcp-config",
            "{\"mcpServers\":{}}"
        ]
    );
    assert_eq!(t.arg_value("--model"), Some("claude-x"));
    assert!(t.has_arg("--verbose"));
    assert_eq!(
        t.env.get("CLAUDE_CODE_ENTRYPOINT").map(String::as_str),
        Some("sdk-rust")
    );
    assert_eq!(
        t.env.get("ANTHROPIC_API_KEY").map(String::as_str),
        Some("<redacted>")
    );
    assert!(!t.env.contains_key("UNRELATED_VAR"));
    assert_eq!(t.lines, [init.to_string(), user.to_string()]);
    assert_eq!(t.json_lines().unwrap(), [init, user]);
}

#[tokio::test]
async fn mismatch_exits_3_with_a_diagnostic() {
    let script = canned::initialize();
    let mut fake = Fake::spawn(&script);
    let line =
        json!({"type": "control_request", "request_id": "r", "request": {"subtype": "interrupt"}});
    fake.write(&line).await;
    let (code, stderr, rest, t) = fake.finish().await;
    assert_eq!(code, 3);
    assert_eq!(rest, "");
    assert!(
        stderr.starts_with(r#"fake-claude: step 0 (expect): line did not match: at $.request.subtype: expected "initialize", found "interrupt""#),
        "{stderr}"
    );
    assert!(stderr.contains(&format!("  line:    {line}")), "{stderr}");
    assert_eq!(t.lines, [line.to_string()]);

    // Not JSON at all.
    let mut fake = Fake::spawn(&script);
    fake.stdin
        .as_mut()
        .unwrap()
        .write_all(b"garbage\n")
        .await
        .unwrap();
    let (code, stderr, _, _) = fake.finish().await;
    assert_eq!(code, 3);
    assert!(
        stderr.contains("step 0 (expect): the host wrote a line that is not JSON"),
        "{stderr}"
    );

    // stdin closed while expecting.
    let mut fake = Fake::spawn(&script);
    fake.close_stdin();
    let (code, stderr, _, _) = fake.finish().await;
    assert_eq!(code, 3);
    assert!(
        stderr.contains("step 0 (expect): stdin closed while a line was expected"),
        "{stderr}"
    );
}

#[tokio::test]
async fn expect_timeout_is_reported() {
    let script =
        FakeScript::new().expect_within(json!({"type": "user"}), Duration::from_millis(100));
    let fake = Fake::spawn(&script);
    let (code, stderr, _, _) = fake.finish().await;
    assert_eq!(code, 3);
    assert!(
        stderr.contains("step 0 (expect): no line from the host within 100 ms"),
        "{stderr}"
    );
}

#[tokio::test]
async fn unordered_responses_and_captures() {
    // We send two requests; the host answers them in reverse order.
    let script = FakeScript::new()
        .let_var("a", json!("$uuid"))
        .let_var("b", json!("$uuid"))
        .send(json!({"type": "control_request", "request_id": "$a", "request": {"subtype": "can_use_tool", "n": 1}}))
        .send(json!({"type": "control_request", "request_id": "$b", "request": {"subtype": "can_use_tool", "n": 2}}))
        .expect_unordered(vec![
            json!({"type": "control_response", "response": {"request_id": "$a", "response": {"behavior": "$first"}}}),
            json!({"type": "control_response", "response": {"request_id": "$b", "response": {"behavior": "$second"}}}),
        ])
        .send(json!({"first": "$first", "second": "$second", "text": "${first}/${second}"}));
    let mut fake = Fake::spawn(&script);
    let r1 = fake.read().await;
    let r2 = fake.read().await;
    let (a, b) = (r1["request_id"].clone(), r2["request_id"].clone());
    assert_ne!(a, b);
    fake.write(&json!({"type": "control_response", "response": {"subtype": "success", "request_id": b, "response": {"behavior": "deny"}}})).await;
    fake.write(&json!({"type": "control_response", "response": {"subtype": "success", "request_id": a, "response": {"behavior": "allow"}}})).await;
    assert_eq!(
        fake.read().await,
        json!({"first": "allow", "second": "deny", "text": "allow/deny"})
    );
    let (code, stderr, _, _) = fake.finish().await;
    assert_eq!((code, stderr.as_str()), (0, ""));

    // A line matching none of the open patterns.
    let mut fake = Fake::spawn(&script);
    fake.read().await;
    fake.read().await;
    fake.write(&json!({"type": "control_response", "response": {"request_id": "nope"}}))
        .await;
    let (code, stderr, _, _) = fake.finish().await;
    assert_eq!(code, 3);
    assert!(
        stderr.contains(
            "step 4 (expect_unordered): line matched none of the 2 pattern(s) still open"
        ),
        "{stderr}"
    );
}

/// Answers one MCP control request the way the Python SDK does; returns the request.
async fn answer_mcp(fake: &mut Fake) -> Value {
    let req = fake.read().await;
    assert_eq!(req["type"], "control_request");
    assert_eq!(req["request"]["subtype"], "mcp_message");
    let msg = &req["request"]["message"];
    let mcp_response = match msg["method"].as_str().unwrap() {
        "initialize" => {
            json!({"jsonrpc": "2.0", "id": msg["id"], "result": {"capabilities": {"tools": {"listChanged": false}},
            "protocolVersion": "2025-11-25", "serverInfo": {"name": "calc", "version": "1.0.0"}}})
        }
        "notifications/initialized" => json!({"jsonrpc": "2.0", "result": {}}),
        "tools/list" => {
            json!({"jsonrpc": "2.0", "id": msg["id"], "result": {"tools": [{"name": "add", "inputSchema": {"type": "object"}}]}})
        }
        "tools/call" => {
            json!({"jsonrpc": "2.0", "id": msg["id"], "result": {"content": [{"type": "text", "text": "3"}], "isError": false}})
        }
        other => panic!("unexpected method {other}"),
    };
    fake.write(&json!({"type": "control_response", "response": {"subtype": "success", "request_id": req["request_id"], "response": {"mcp_response": mcp_response}}})).await;
    req
}

#[tokio::test]
async fn mcp_handshake_and_tools_call() {
    let script =
        canned::mcp_handshake_expecting("calc", json!([{"name": "add", "inputSchema": "$any"}]))
            .then(canned::session_state_changed("running"))
            .then(canned::system_init(&["mcp__calc__add"], &["calc"]))
            .then(canned::tools_call_expecting(
                "calc",
                json!(2),
                "add",
                json!({"a": 1, "b": 2}),
                "toolu_01",
                json!({"content": [{"type": "text", "text": "3"}], "isError": false}),
            ))
            .then(canned::session_state_changed("idle"));
    let mut fake = Fake::spawn(&script);
    let init = answer_mcp(&mut fake).await;
    assert_eq!(init["request"]["server_name"], "calc");
    assert_eq!(init["request"]["message"]["id"], 0);
    assert_eq!(
        init["request"]["message"]["params"]["protocolVersion"],
        "2025-11-25"
    );
    let note = answer_mcp(&mut fake).await;
    assert_eq!(
        note["request"]["message"],
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"})
    );
    let list = answer_mcp(&mut fake).await;
    assert_eq!(
        list["request"]["message"],
        json!({"method": "tools/list", "jsonrpc": "2.0", "id": 1})
    );
    let running = fake.read().await;
    assert_eq!(
        (
            running["type"].as_str(),
            running["subtype"].as_str(),
            running["state"].as_str(),
            running["sdk_host_only"].as_bool()
        ),
        (
            Some("system"),
            Some("session_state_changed"),
            Some("running"),
            Some(true)
        )
    );
    let sys = fake.read().await;
    assert_eq!(sys["subtype"], "init");
    assert_eq!(sys["tools"], json!(["mcp__calc__add"]));
    assert_eq!(
        sys["mcp_servers"],
        json!([{"name": "calc", "status": "connected", "source": "sdk"}])
    );
    assert_eq!(sys["session_id"], running["session_id"]);
    let call = answer_mcp(&mut fake).await;
    assert_eq!(
        call["request"]["message"],
        json!({"method": "tools/call", "params": {"name": "add", "arguments": {"a": 1, "b": 2},
            "_meta": {"claudecode/toolUseId": "toolu_01", "progressToken": 2}}, "jsonrpc": "2.0", "id": 2})
    );
    // Distinct UUID request ids for each CLI request.
    let ids: std::collections::HashSet<String> = [&init, &note, &list, &call]
        .iter()
        .map(|r| r["request_id"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(ids.len(), 4);
    assert!(ids.iter().all(|i| i.len() == 36));
    assert_eq!(fake.read().await["state"], "idle");
    let (code, stderr, _, t) = fake.finish().await;
    assert_eq!((code, stderr.as_str()), (0, ""));
    assert_eq!(t.lines.len(), 4);
}

#[tokio::test]
async fn wrong_mcp_result_is_a_mismatch() {
    let script = canned::tools_call_expecting(
        "calc",
        json!(2),
        "add",
        json!({}),
        "toolu_01",
        json!({"isError": true}),
    );
    let mut fake = Fake::spawn(&script);
    answer_mcp(&mut fake).await;
    let (code, stderr, _, _) = fake.finish().await;
    assert_eq!(code, 3);
    assert!(
        stderr.contains(
            "at $.response.response.mcp_response.result.isError: expected true, found false"
        ),
        "{stderr}"
    );
}

#[tokio::test]
async fn expect_no_line_within_and_expect_eof() {
    let script = FakeScript::new()
        .send(json!({"type": "control_cancel_request", "request_id": "abc"}))
        .expect_no_line_within(Duration::from_millis(200))
        .send(json!({"ok": 1}))
        .expect_eof(Duration::from_secs(5));
    // Host stays silent, then closes stdin.
    let mut fake = Fake::spawn(&script);
    assert_eq!(fake.read().await["type"], "control_cancel_request");
    let t0 = Instant::now();
    assert_eq!(fake.read().await, json!({"ok": 1}));
    assert!(t0.elapsed() >= Duration::from_millis(190));
    fake.close_stdin();
    let (code, _, _, _) = fake.finish().await;
    assert_eq!(code, 0);

    // Host answers the cancelled request: failure.
    let mut fake = Fake::spawn(&script);
    fake.read().await;
    fake.write(&json!({"type": "control_response", "response": {"subtype": "success", "request_id": "abc"}})).await;
    let (code, stderr, rest, _) = fake.finish().await;
    assert_eq!((code, rest.as_str()), (3, ""));
    assert!(
        stderr.contains("step 1 (expect_no_line_within 200 ms): the host wrote a line"),
        "{stderr}"
    );

    // Host keeps stdin open: expect_eof times out.
    let script = FakeScript::new().expect_eof(Duration::from_millis(100));
    let fake = Fake::spawn(&script);
    let (code, stderr, _, _) = fake.finish().await;
    assert_eq!(code, 3);
    assert!(
        stderr.contains("step 0 (expect_eof): stdin still open after 100 ms"),
        "{stderr}"
    );
}

#[tokio::test]
async fn raw_output_and_exit_with_stderr() {
    let script = FakeScript::new()
        .send_raw("this is not json")
        .send_oversized(2 * 1024 * 1024)
        .exit_with_stderr(7, "Error: something broke");
    let mut fake = Fake::spawn(&script);
    assert_eq!(fake.read_raw().await, "this is not json");
    let big = fake.read_raw().await;
    assert_eq!(big.len(), 2 * 1024 * 1024);
    assert!(big.bytes().all(|b| b == b'x'));
    let (code, stderr, rest, _) = fake.finish().await;
    assert_eq!(
        (code, stderr.as_str(), rest.as_str()),
        (7, "Error: something broke\n", "")
    );
}

#[tokio::test]
async fn tools_call_loop_runs_fast() {
    const N: u64 = 200;
    let script = canned::tools_call_loop("calc", N, "add", json!({"a": 1}));
    let mut fake = Fake::spawn(&script);
    let t0 = Instant::now();
    for k in 0..N {
        let req = answer_mcp(&mut fake).await;
        let id = 2 + k;
        assert_eq!(req["request"]["message"]["id"], id);
        assert_eq!(
            req["request"]["message"]["params"]["_meta"]["claudecode/toolUseId"],
            format!("toolu_bench_{id}")
        );
        assert_eq!(
            req["request"]["message"]["params"]["_meta"]["progressToken"],
            id
        );
    }
    let elapsed = t0.elapsed();
    let (code, stderr, _, t) = fake.finish().await;
    assert_eq!((code, stderr.as_str()), (0, ""));
    assert_eq!(t.lines.len(), N as usize);
    eprintln!("{N} tools/call round trips through fake-claude in {elapsed:?}");
}

#[tokio::test]
async fn json_lines_script_file_is_accepted() {
    let dir = TempDir::new("jsonl").unwrap();
    let path = dir.path().join("s.jsonl");
    std::fs::write(&path, "# greet\n{\"expect\": {\"type\": \"user\", \"n\": \"$n\"}}\n{\"send\": {\"got\": \"$n\"}}\n").unwrap();
    let mut child = Command::new(BIN)
        .env("FAKE_CLAUDE_SCRIPT", &path)
        .env_remove("FAKE_CLAUDE_TRANSCRIPT")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .as_mut()
        .unwrap()
        .write_all(b"{\"type\":\"user\",\"n\":[1,2]}\n")
        .await
        .unwrap();
    let out = child.wait_with_output().await.unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(String::from_utf8(out.stdout).unwrap(), "{\"got\":[1,2]}\n");
}

#[tokio::test]
async fn one_tool_session_plays_the_observed_order() {
    let script = canned::one_tool_session(
        "calc",
        "add",
        json!({"a": 1, "b": 2}),
        json!("add them"),
        "It is 3.",
    );
    let mut fake = Fake::spawn(&script);
    fake.write(&json!({"type": "control_request", "request_id": "req_1_00000001", "request": {"subtype": "initialize", "hooks": null}})).await;
    // The CLI's MCP initialize arrives before the initialize reply.
    let init = answer_mcp(&mut fake).await;
    assert_eq!(init["request"]["message"]["method"], "initialize");
    let reply = fake.read().await;
    assert_eq!(reply["response"]["request_id"], "req_1_00000001");
    fake.write(&json!({"type": "user", "session_id": "", "message": {"role": "user", "content": "add them"}, "parent_tool_use_id": null})).await;
    assert_eq!(
        answer_mcp(&mut fake).await["request"]["message"]["method"],
        "notifications/initialized"
    );
    assert_eq!(fake.read().await["state"], "running");
    assert_eq!(
        answer_mcp(&mut fake).await["request"]["message"]["method"],
        "tools/list"
    );
    assert_eq!(fake.read().await["subtype"], "init");
    let tool_use = fake.read().await;
    assert_eq!(
        tool_use["message"]["content"],
        json!([{"type": "tool_use", "id": "toolu_fake_01", "name": "mcp__calc__add", "input": {"a": 1, "b": 2}}])
    );
    assert_eq!(
        answer_mcp(&mut fake).await["request"]["message"]["method"],
        "tools/call"
    );
    let echoed = fake.read().await;
    assert_eq!(
        echoed["message"]["content"],
        json!([{"type": "tool_result", "content": [{"type": "text", "text": "3"}], "tool_use_id": "toolu_fake_01"}])
    );
    assert_eq!(
        fake.read().await["message"]["content"][0]["text"],
        "It is 3."
    );
    assert_eq!(fake.read().await["result"], "It is 3.");
    assert_eq!(fake.read().await["state"], "idle");
    fake.close_stdin();
    let (code, stderr, rest, t) = fake.finish().await;
    assert_eq!((code, stderr.as_str(), rest.as_str()), (0, "", ""));
    assert_eq!(t.lines.len(), 6);
}

#[tokio::test]
async fn transcript_path_can_hold_the_pid() {
    let dir = TempDir::new("pid").unwrap();
    let script = dir.path().join("s.json");
    FakeScript::new().exit(0).write_to(&script).unwrap();
    let child = Command::new(BIN)
        .arg("--print")
        .env("FAKE_CLAUDE_SCRIPT", &script)
        .env("FAKE_CLAUDE_TRANSCRIPT", dir.path().join("t-%p.jsonl"))
        .stdin(Stdio::null())
        .spawn()
        .unwrap();
    let pid = child.id().unwrap();
    let out = child.wait_with_output().await.unwrap();
    assert_eq!(out.status.code(), Some(0));
    let t = Transcript::read(dir.path().join(format!("t-{pid}.jsonl"))).unwrap();
    assert_eq!(t.args, ["--print"]);
    assert!(t.lines.is_empty());
}
