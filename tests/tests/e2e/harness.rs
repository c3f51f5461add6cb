//! The harness of the end-to-end tests: finding the real CLI, an isolated environment per test
//! (its own model server, HOME, config dir, CLI temp dir and working directory), options that
//! keep the CLI offline and on our server, timeouts, and readers of what came back.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::time::Duration;

use claude_tools_runtime::message::Message;
use claude_tools_runtime::options::Options;
use claude_tools_testkit::model_server::{
    ModelServer, RecordedRequest, Script, inherited_env_to_remove,
};
use claude_tools_testkit::{TempDir, claude_cli_path};
use serde_json::Value;

/// The longest any one scenario may take (generous: a 2-core machine running other builds).
pub const SCENARIO_TIMEOUT: Duration = Duration::from_secs(60);

/// The real CLI, or `None` (after a loud banner) when it is not installed and `CI` is unset.
/// With `CI` set, a missing CLI fails the test.
pub fn cli(test: &str) -> Option<PathBuf> {
    static FOUND: OnceLock<Option<PathBuf>> = OnceLock::new();
    let found = FOUND.get_or_init(claude_cli_path).clone();
    if found.is_none() {
        let hint = "run scripts/install-cli (or scripts/test), or set CLAUDE_CODE_CLI";
        if std::env::var_os("CI").is_some() {
            panic!("{test}: the Claude Code CLI is not installed and CI is set; {hint}");
        }
        // Written to the stderr handle itself: libtest captures `eprintln!` of passing tests.
        use std::io::Write;
        let _ = writeln!(
            std::io::stderr(),
            "\n!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!\n\
             !!! SKIPPED {test}: the Claude Code CLI is not installed ({hint})\n\
             !!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!\n"
        );
    }
    found
}

/// One test's world: a model server playing its script and throwaway directories.
pub struct World {
    /// The scripted Messages API.
    pub server: ModelServer,
    /// HOME (with `.claude` as CLAUDE_CONFIG_DIR and `tmp` as CLAUDE_CODE_TMPDIR in it).
    pub home: TempDir,
    /// The CLI's working directory (inside `home`).
    pub cwd: PathBuf,
    cli: PathBuf,
}

/// Starts a world for `test`, or `None` when the CLI is missing outside CI (see [`cli`]).
pub async fn world(test: &str, script: Script) -> Option<World> {
    let cli = cli(test)?;
    let server = ModelServer::start(script).await;
    let home = TempDir::new("e2e").expect("temp dir");
    let cwd = home.path().join("work");
    std::fs::create_dir_all(&cwd).expect("cwd");
    Some(World {
        server,
        home,
        cwd,
        cli,
    })
}

impl World {
    /// Options that keep the CLI isolated, offline and on this world's model server, with the
    /// CLI's tool search off (MCP tools are offered to the model directly).
    pub fn options(&self) -> Options {
        self.base_options(self.server.cli_env(self.home.path()))
    }

    /// [`World::options`] with the CLI's default tool search left on.
    pub fn options_keep_tool_search(&self) -> Options {
        self.base_options(self.server.cli_env_keep_tool_search(self.home.path()))
    }

    fn base_options(&self, env: Vec<(String, String)>) -> Options {
        let mut options = Options::new()
            .cli_path(self.cli_or_tap())
            .cwd(&self.cwd)
            .setting_sources([])
            .strict_mcp_config()
            .max_turns(8);
        for name in inherited_env_to_remove() {
            options = options.env_remove(name);
        }
        for (name, value) in env {
            options = options.env(name, value);
        }
        options
    }

    /// The CLI, or with `E2E_WIRE_DIR` set, a wrapper script that tees the CLI's stdin and
    /// stdout to `<dir>/<pid>.{in,out}` (for diagnosing a failing scenario).
    fn cli_or_tap(&self) -> PathBuf {
        let Some(dir) = std::env::var_os("E2E_WIRE_DIR") else {
            return self.cli.clone();
        };
        let tap = self.home.path().join("claude-tap");
        let script = format!(
            "#!/bin/sh\ntee \"{dir}/$$.in\" | \"{cli}\" \"$@\" | tee \"{dir}/$$.out\"\n",
            dir = PathBuf::from(dir).display(),
            cli = self.cli.display()
        );
        std::fs::write(&tap, script).expect("tap script");
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&tap, std::fs::Permissions::from_mode(0o755)).expect("chmod");
        tap
    }

    /// The `/v1/messages` requests that selected a turn, in order.
    pub fn turns(&self) -> Vec<RecordedRequest> {
        self.server.turn_requests()
    }

    /// Every tool_result the model was sent, `(tool_use_id, text, is_error)`, in order.
    pub fn tool_results(&self) -> Vec<(String, String, bool)> {
        self.server.tool_results()
    }

    /// Asserts the CLI never tried to reach the internet (every proxy attempt is recorded).
    pub fn assert_offline(&self) {
        assert!(
            self.server.proxy_attempts().is_empty(),
            "proxy attempts: {:#?}",
            self.server.proxy_attempts()
        );
    }

    /// A path inside this world's HOME.
    pub fn path(&self, name: &str) -> PathBuf {
        self.home.path().join(name)
    }
}

/// Runs `future`, failing the test after [`SCENARIO_TIMEOUT`].
pub async fn within<T>(what: &str, future: impl std::future::Future<Output = T>) -> T {
    match tokio::time::timeout(SCENARIO_TIMEOUT, future).await {
        Ok(value) => value,
        Err(_) => panic!("{what}: no answer within {SCENARIO_TIMEOUT:?}"),
    }
}

/// A message as the JSON line the CLI wrote.
pub fn raw(message: &Message) -> Value {
    message.to_value()
}

/// The `result` message's JSON (the last one), failing when there is none.
pub fn result_of(messages: &[Message]) -> Value {
    messages
        .iter()
        .rev()
        .map(raw)
        .find(|m| m["type"] == "result")
        .unwrap_or_else(|| panic!("no result among {:#?}", dump(messages)))
}

/// The final answer of a successful run: asserts `subtype: success`, `is_error: false`, and
/// returns `result`.
pub fn success_text(messages: &[Message]) -> String {
    let result = result_of(messages);
    assert_eq!(
        (&result["subtype"], &result["is_error"]),
        (&Value::from("success"), &Value::from(false)),
        "result: {result:#}\nall: {:#?}",
        dump(messages)
    );
    result["result"].as_str().unwrap_or_default().to_string()
}

/// Every `tool_use` block of the assistant messages: `(id, name, input)`.
pub fn tool_uses(messages: &[Message]) -> Vec<(String, String, Value)> {
    messages
        .iter()
        .map(raw)
        .filter(|m| m["type"] == "assistant")
        .flat_map(|m| {
            m["message"]["content"]
                .as_array()
                .cloned()
                .unwrap_or_default()
        })
        .filter(|b| b["type"] == "tool_use")
        .map(|b| {
            (
                b["id"].as_str().unwrap_or_default().to_string(),
                b["name"].as_str().unwrap_or_default().to_string(),
                b["input"].clone(),
            )
        })
        .collect()
}

/// The messages as JSON, for failure output.
pub fn dump(messages: &[Message]) -> Vec<Value> {
    messages.iter().map(raw).collect()
}

/// The content blocks of the last `user` message of a request.
pub fn last_user_blocks(request: &RecordedRequest) -> Vec<Value> {
    let body = request.body.as_ref().expect("request body");
    body["messages"]
        .as_array()
        .expect("messages")
        .iter()
        .rev()
        .find(|m| m["role"] == "user")
        .and_then(|m| m["content"].as_array().cloned())
        .unwrap_or_default()
}

/// The `tool_use_id`s of the tool_results in the last user message of a request, in order.
pub fn last_user_tool_result_ids(request: &RecordedRequest) -> Vec<String> {
    last_user_blocks(request)
        .iter()
        .filter(|b| b["type"] == "tool_result")
        .map(|b| b["tool_use_id"].as_str().unwrap_or_default().to_string())
        .collect()
}

/// Reads a file of JSON lines (missing file: no lines).
pub fn json_lines(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .collect()
}

/// `(tool_use_id, text, is_error)` of a tool_result, for comparisons.
pub fn tr(id: &str, text: &str, is_error: bool) -> (String, String, bool) {
    (id.to_string(), text.to_string(), is_error)
}
