//! The process transport against tiny `/bin/sh` scripts, and CLI discovery over temporary trees.
#![cfg(unix)]

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::pin::Pin;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use claude_tools_core::ndjson::LineReader;
use claude_tools_runtime::Error;
use claude_tools_runtime::transport::{
    CliSearch, Connection, ExitInfo, LaunchSpec, ProcessHandle, ProcessTransport, Transport,
};
use tokio::io::{AsyncRead, AsyncWrite, AsyncWriteExt};

/// A fresh directory under the system temp dir, removed on drop.
struct TempDir(PathBuf);

impl TempDir {
    fn new() -> Self {
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let dir = std::env::temp_dir().join(format!(
            "claude-tools-transport-{}-{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        TempDir(dir)
    }

    fn path(&self) -> &Path {
        &self.0
    }

    /// Writes `body` at `rel` (creating folders) with the given mode.
    fn file(&self, rel: &str, body: &str, mode: u32) -> PathBuf {
        let path = self.0.join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, body).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(mode)).unwrap();
        path
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Runs `script` with `/bin/sh` (not executed directly: that avoids ETXTBSY races between tests
/// that write and exec files in parallel threads).
async fn run_script(dir: &TempDir, script: &str, launch: LaunchSpec) -> Connection {
    run_script_with(dir, script, launch, ProcessTransport::new()).await
}

async fn run_script_with(
    dir: &TempDir,
    script: &str,
    mut launch: LaunchSpec,
    transport: ProcessTransport,
) -> Connection {
    let path = dir.file("script.sh", script, 0o644);
    launch.cli_path = Some("/bin/sh".into());
    launch.args.insert(0, path.display().to_string());
    Box::new(transport).connect(launch).await.unwrap()
}

async fn lines(conn: Connection) -> (Vec<String>, Connection) {
    let Connection {
        reader,
        writer,
        process,
    } = conn;
    let mut reader = LineReader::new(reader);
    let mut out = Vec::new();
    while let Some(line) = reader.next_line().await.unwrap() {
        out.push(String::from_utf8(line.to_vec()).unwrap());
    }
    let conn = Connection {
        reader: Box::pin(reader.into_inner()),
        writer,
        process,
    };
    (out, conn)
}

#[tokio::test]
async fn stdin_to_stdout_round_trip_and_exit_code() {
    let dir = TempDir::new();
    let launch = LaunchSpec {
        args: vec!["first arg".into(), "--x=$HOME;".into()],
        ..LaunchSpec::default()
    };
    let mut conn = run_script(
        &dir,
        "printf '%s|%s\\n' \"$1\" \"$2\"\nwhile read -r line; do echo \"got $line\"; done\nexit 0\n",
        launch,
    )
    .await;
    conn.writer
        .write_all(b"{\"a\":1}\n{\"b\":2}\n")
        .await
        .unwrap();
    conn.writer.flush().await.unwrap();
    // Closing stdin ends the loop.
    conn.writer.shutdown().await.unwrap();
    let (out, mut conn) = lines(conn).await;
    // Arguments reach the process verbatim: no shell expansion.
    assert_eq!(
        out,
        ["first arg|--x=$HOME;", "got {\"a\":1}", "got {\"b\":2}"]
    );
    assert_eq!(
        conn.process.wait().await,
        ExitInfo::new(Some(0), None, String::new())
    );
    // Waiting again gives the same answer; killing after the exit is a no-op.
    conn.process.kill();
    assert_eq!(conn.process.wait().await.code, Some(0));
}

#[tokio::test]
async fn environment_is_set_and_removed_and_claudecode_always_removed() {
    let dir = TempDir::new();
    let launch = LaunchSpec {
        env: vec![
            ("CT_SET".into(), "value with spaces".into()),
            ("CLAUDECODE".into(), "1".into()),
        ],
        // `cargo test` sets both CARGO_PKG_* variables for the test process.
        env_remove: vec!["HOME".into(), "CARGO_PKG_NAME".into()],
        cwd: Some(dir.path().to_path_buf()),
        ..LaunchSpec::default()
    };
    let conn = run_script(
        &dir,
        "echo \"set=${CT_SET-unset}\"\necho \"home=${HOME-unset}\"\necho \"name=${CARGO_PKG_NAME-unset}\"\n\
         echo \"inherited=${CARGO_PKG_VERSION-unset}\"\n\
         echo \"claudecode=${CLAUDECODE-unset}\"\npwd -P\n",
        launch,
    )
    .await;
    let (out, mut conn) = lines(conn).await;
    let cwd = std::fs::canonicalize(dir.path()).unwrap();
    assert_eq!(
        out,
        [
            "set=value with spaces".to_string(),
            "home=unset".into(),
            "name=unset".into(),
            format!("inherited={}", env!("CARGO_PKG_VERSION")),
            "claudecode=unset".into(),
            cwd.display().to_string(),
        ]
    );
    assert_eq!(conn.process.wait().await.code, Some(0));
}

#[tokio::test]
async fn stderr_tail_and_callback_and_exit_code() {
    let dir = TempDir::new();
    let seen = Arc::new(Mutex::new(Vec::<String>::new()));
    let sink = Arc::clone(&seen);
    let transport = ProcessTransport::new().stderr_callback(Arc::new(move |line: &str| {
        sink.lock().unwrap().push(line.to_owned());
    }));
    let conn = run_script_with(
        &dir,
        "i=1\nwhile [ $i -le 60 ]; do echo \"err $i\" >&2; i=$((i+1)); done\necho out\nexit 3\n",
        LaunchSpec::default(),
        transport,
    )
    .await;
    let (out, mut conn) = lines(conn).await;
    assert_eq!(out, ["out"]);
    let exit = conn.process.wait().await;
    let expected: Vec<String> = (11..=60).map(|i| format!("err {i}")).collect();
    assert_eq!(exit, ExitInfo::new(Some(3), None, expected.join("\n")));
    assert_eq!(conn.process.stderr_tail(), expected.join("\n"));
    let all: Vec<String> = (1..=60).map(|i| format!("err {i}")).collect();
    assert_eq!(*seen.lock().unwrap(), all);
}

#[tokio::test]
async fn a_panicking_stderr_callback_does_not_stop_the_capture() {
    let dir = TempDir::new();
    let transport =
        ProcessTransport::new().stderr_callback(Arc::new(|line: &str| panic!("callback: {line}")));
    let conn = run_script_with(
        &dir,
        "echo one >&2\necho two >&2\n",
        LaunchSpec::default(),
        transport,
    )
    .await;
    let (_, mut conn) = lines(conn).await;
    assert_eq!(conn.process.wait().await.stderr_tail, "one\ntwo");
}

/// Reads the pid the script printed first.
async fn sleeper(dir: &TempDir) -> (u32, Connection) {
    let conn = run_script(dir, "echo $$\nexec sleep 30\n", LaunchSpec::default()).await;
    let Connection {
        reader,
        writer,
        process,
    } = conn;
    let mut reader = LineReader::new(reader);
    let pid: u32 = std::str::from_utf8(reader.next_line().await.unwrap().unwrap())
        .unwrap()
        .parse()
        .unwrap();
    let conn = Connection {
        reader: Box::pin(reader.into_inner()),
        writer,
        process,
    };
    (pid, conn)
}

/// Waits until `/proc/<pid>` is gone: the process ended *and* was reaped (a zombie keeps it).
async fn assert_reaped(pid: u32) {
    let proc = PathBuf::from(format!("/proc/{pid}"));
    let start = Instant::now();
    while proc.exists() {
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "process {pid} still present: {:?}",
            std::fs::read_to_string(proc.join("stat"))
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[tokio::test]
async fn dropping_the_connection_kills_and_reaps_the_process() {
    let dir = TempDir::new();
    let (pid, conn) = sleeper(&dir).await;
    assert!(Path::new(&format!("/proc/{pid}")).exists());
    drop(conn);
    assert_reaped(pid).await;
}

#[tokio::test]
async fn kill_then_wait_reports_no_exit_code() {
    let dir = TempDir::new();
    let (pid, mut conn) = sleeper(&dir).await;
    conn.process.kill();
    let exit = tokio::time::timeout(Duration::from_secs(10), conn.process.wait())
        .await
        .unwrap();
    assert_eq!(exit.code, None);
    assert_reaped(pid).await;
}

#[tokio::test]
async fn spawn_errors_and_bad_cwd() {
    let dir = TempDir::new();
    // An executable whose interpreter does not exist: found, but the exec fails.
    let bad = dir.file("bad-claude", "#!/nonexistent/interpreter\n", 0o755);
    let launch = LaunchSpec {
        cli_path: Some(bad.clone()),
        ..LaunchSpec::default()
    };
    match Box::new(ProcessTransport::new()).connect(launch).await {
        Err(Error::Spawn { path, source }) => {
            assert_eq!(path, bad);
            assert_eq!(source.kind(), std::io::ErrorKind::NotFound);
        }
        Err(other) => panic!("unexpected error {other}"),
        Ok(_) => panic!("spawned a broken executable"),
    }

    let launch = LaunchSpec {
        cli_path: Some("/bin/sh".into()),
        cwd: Some(dir.path().join("missing")),
        ..LaunchSpec::default()
    };
    assert!(matches!(
        Box::new(ProcessTransport::new()).connect(launch).await,
        Err(Error::InvalidOptions(_))
    ));
}

// ---- discovery ----

fn search(root: &TempDir) -> CliSearch {
    let path = root.path().join("bin1").display().to_string()
        + ":"
        + &root.path().join("bin2").display().to_string();
    CliSearch {
        env_cli: None,
        path: Some(path.into()),
        cwd: Some(root.path().join("project/sub")),
        home: Some(root.path().join("home")),
        system: vec![root.path().join("usr/local/bin/claude")],
        installed: Some(root.path().join("cache/cli/claude")),
    }
}

fn not_found(result: claude_tools_runtime::Result<PathBuf>) -> Vec<PathBuf> {
    match result {
        Err(Error::CliNotFound { searched }) => searched,
        Err(other) => panic!("unexpected error {other}"),
        Ok(path) => panic!("unexpectedly found {}", path.display()),
    }
}

#[test]
fn not_found_lists_every_place_searched_in_order() {
    let root = TempDir::new();
    let r = root.path();
    let searched = not_found(search(&root).find(None));
    let mut expected = vec![r.join("bin1/claude"), r.join("bin2/claude")];
    for dir in r.join("project/sub").ancestors() {
        expected.push(dir.join("node_modules/.bin/claude"));
        expected.push(dir.join(".cache/claude-cli/node_modules/.bin/claude"));
    }
    expected.extend([
        r.join("home/.claude/local/claude"),
        r.join("home/.npm-global/bin/claude"),
        r.join("usr/local/bin/claude"),
        r.join("home/.local/bin/claude"),
        r.join("home/node_modules/.bin/claude"),
        r.join("home/.yarn/bin/claude"),
        // The pinned version installed without npm, last.
        r.join("cache/cli/claude"),
    ]);
    assert_eq!(searched, expected);

    // The error message names them.
    let message = Error::CliNotFound { searched }.to_string();
    assert!(message.contains(&r.join("home/.local/bin/claude").display().to_string()));
}

#[test]
fn finds_in_path_then_project_then_home_and_skips_non_executables() {
    let root = TempDir::new();
    let s = search(&root);
    let installed = root.file("cache/cli/claude", "", 0o755);
    assert_eq!(s.find(None).unwrap(), installed);
    let home = root.file("home/.local/bin/claude", "", 0o755);
    assert_eq!(s.find(None).unwrap(), home);
    let project = root.file(
        "project/.cache/claude-cli/node_modules/.bin/claude",
        "",
        0o755,
    );
    assert_eq!(s.find(None).unwrap(), project);
    let nearer = root.file("project/sub/node_modules/.bin/claude", "", 0o755);
    assert_eq!(s.find(None).unwrap(), nearer);
    // Not executable, and a directory named claude: both skipped.
    root.file("bin1/claude", "", 0o644);
    std::fs::create_dir_all(root.path().join("bin2/claude")).unwrap();
    assert_eq!(s.find(None).unwrap(), nearer);
    std::fs::remove_dir(root.path().join("bin2/claude")).unwrap();
    let in_path = root.file("bin2/claude", "", 0o755);
    assert_eq!(s.find(None).unwrap(), in_path);
}

#[test]
fn explicit_path_and_env_var_are_authoritative() {
    let root = TempDir::new();
    let mut s = search(&root);
    let in_path = root.file("bin1/claude", "", 0o755);
    let custom = root.file("custom/my-claude", "", 0o755);

    assert_eq!(s.find(Some(&custom)).unwrap(), custom);
    let missing = root.path().join("custom/missing");
    assert_eq!(
        not_found(s.find(Some(&missing))),
        std::slice::from_ref(&missing)
    );

    // A bare name is looked up in PATH.
    root.file("bin2/claude-next", "", 0o755);
    assert_eq!(
        s.find(Some(Path::new("claude-next"))).unwrap(),
        root.path().join("bin2/claude-next")
    );

    s.env_cli = Some(custom.clone().into());
    assert_eq!(s.find(None).unwrap(), custom);
    // The explicit path wins over the variable.
    assert_eq!(s.find(Some(&in_path)).unwrap(), in_path);
    s.env_cli = Some(missing.clone().into());
    assert_eq!(not_found(s.find(None)), [missing]);
    // An empty variable is ignored.
    s.env_cli = Some("".into());
    assert_eq!(s.find(None).unwrap(), in_path);
}

#[tokio::test]
async fn connect_reports_cli_not_found() {
    let root = TempDir::new();
    let transport = ProcessTransport::new().with_search(search(&root));
    match Box::new(transport).connect(LaunchSpec::default()).await {
        Err(Error::CliNotFound { searched }) => {
            assert_eq!(searched.first(), Some(&root.path().join("bin1/claude")));
        }
        Err(other) => panic!("unexpected error {other}"),
        Ok(_) => panic!("found a CLI"),
    }
}

// ---- exit detection and the process group ----

/// Whether `pid` is gone or a zombie (an orphan whose reaper, init, may never reap it here).
fn dead(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Err(_) => true,
        Ok(stat) => stat
            .rsplit_once(')')
            .and_then(|(_, rest)| rest.split_whitespace().next())
            .is_some_and(|state| state == "Z"),
    }
}

async fn assert_dead_within(pid: u32, bound: Duration) {
    let start = Instant::now();
    while !dead(pid) {
        assert!(
            start.elapsed() < bound,
            "process {pid} alive after {bound:?}"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// Reads the lines the script prints, each a pid.
async fn read_pids(
    reader: &mut LineReader<std::pin::Pin<Box<dyn tokio::io::AsyncRead + Send>>>,
    n: usize,
) -> Vec<u32> {
    let mut pids = Vec::new();
    for _ in 0..n {
        let line = reader.next_line().await.unwrap().unwrap();
        pids.push(std::str::from_utf8(line).unwrap().parse().unwrap());
    }
    pids
}

/// A script's connection in parts, with the pids it printed first already read.
struct PidScript {
    pids: Vec<u32>,
    reader: LineReader<Pin<Box<dyn AsyncRead + Send>>>,
    writer: Pin<Box<dyn AsyncWrite + Send>>,
    process: Box<dyn ProcessHandle>,
}

/// Runs `script` with the default launch and reads the `n` pids it prints first.
async fn run_script_reading_pids(dir: &TempDir, script: &str, n: usize) -> PidScript {
    let Connection {
        reader,
        writer,
        process,
    } = run_script(dir, script, LaunchSpec::default()).await;
    let mut reader = LineReader::new(reader);
    let pids = read_pids(&mut reader, n).await;
    PidScript {
        pids,
        reader,
        writer,
        process,
    }
}

#[tokio::test]
async fn stdout_ends_soon_after_the_exit_though_a_grandchild_holds_it() {
    let dir = TempDir::new();
    let PidScript {
        pids,
        mut reader,
        mut process,
        writer: _writer,
    } = run_script_reading_pids(
        &dir,
        // The grandchild ignores SIGTERM: only stdout's grace after the exit ends the pipe.
        "(trap '' TERM; exec sleep 30) &\necho $!\necho last >&2\nexit 4\n",
        1,
    )
    .await;
    let grandchild = pids[0];
    let start = Instant::now();
    let end = tokio::time::timeout(Duration::from_secs(5), reader.next_line())
        .await
        .expect("stdout ends within 5 s, not when the grandchild does");
    assert_eq!(end.unwrap(), None);
    assert!(
        // The 500 ms grace, well before the group's SIGKILL (2 s) would close the pipe.
        start.elapsed() < Duration::from_millis(1500),
        "{:?}",
        start.elapsed()
    );
    let exit = tokio::time::timeout(Duration::from_secs(5), process.wait())
        .await
        .unwrap();
    assert_eq!(exit, ExitInfo::new(Some(4), None, "last"));
    // Left behind in the CLI's group, the grandchild is ended with it (SIGKILL after 2 s).
    assert_dead_within(grandchild, Duration::from_secs(5)).await;
}

#[tokio::test]
async fn kill_asks_the_group_to_terminate_first() {
    let dir = TempDir::new();
    // The shell handles SIGTERM (exits 7); its background sleep is in the same group.
    let PidScript {
        pids,
        reader: _reader,
        mut process,
        writer: _writer,
    } = run_script_reading_pids(&dir, "trap 'exit 7' TERM\nsleep 30 &\necho $!\nwait\n", 1).await;
    let grandchild = pids[0];
    process.kill();
    let exit = tokio::time::timeout(Duration::from_secs(5), process.wait())
        .await
        .unwrap();
    assert_eq!((exit.code, exit.signal), (Some(7), None));
    assert_dead_within(grandchild, Duration::from_secs(5)).await;
}

#[tokio::test]
async fn kill_falls_back_to_sigkill_when_sigterm_is_ignored() {
    let dir = TempDir::new();
    let PidScript {
        pids,
        reader: _reader,
        writer: _writer,
        mut process,
    } = run_script_reading_pids(&dir, "trap '' TERM\necho $$\nexec sleep 30\n", 1).await;
    let pid = pids[0];
    let start = Instant::now();
    process.kill();
    let exit = tokio::time::timeout(Duration::from_secs(10), process.wait())
        .await
        .unwrap();
    assert_eq!((exit.code, exit.signal), (None, Some(9)));
    // SIGKILL came after the 2 s grace, not at once.
    assert!(
        start.elapsed() >= Duration::from_secs(2),
        "{:?}",
        start.elapsed()
    );
    assert_reaped(pid).await;
}

#[tokio::test]
async fn a_dropped_connection_ends_the_whole_group() {
    let dir = TempDir::new();
    let PidScript {
        pids,
        reader,
        writer,
        process,
    } = run_script_reading_pids(&dir, "sleep 30 &\necho $!\necho $$\nwait\n", 2).await;
    drop((reader, writer, process));
    assert_reaped(pids[1]).await;
    assert_dead_within(pids[0], Duration::from_secs(5)).await;
}

/// Whether this test process runs as root, the one case where it may switch users.
fn running_as_root() -> bool {
    std::process::Command::new("id")
        .arg("-u")
        .output()
        .map(|out| out.stdout.trim_ascii() == b"0")
        .unwrap_or(false)
}

#[tokio::test]
async fn run_as_user_starts_the_cli_with_that_users_ids() {
    // Switching to another user needs root (the CI containers run as root); an unprivileged
    // run checks only the unknown-user paths below.
    if !running_as_root() {
        eprintln!("skipped: switching users needs root");
        return;
    }
    let dir = TempDir::new();
    // The user must be able to read the script: world-readable, in a world-searchable folder.
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let conn = run_script_with(
        &dir,
        "id -u\nid -g\nid -G\n",
        LaunchSpec::default(),
        ProcessTransport::new().run_as_user("nobody"),
    )
    .await;
    let (out, _conn) = lines(conn).await;
    // nobody's ids, and none of root's supplementary groups.
    let (uid, gid) = nobody_ids();
    assert_eq!(out, [uid.clone(), gid.clone(), gid]);
}

/// nobody's user and group ids from the user database, as `id` prints them.
fn nobody_ids() -> (String, String) {
    let out = std::process::Command::new("id")
        .args(["-u", "nobody"])
        .output()
        .unwrap();
    let uid = String::from_utf8(out.stdout).unwrap().trim().to_owned();
    let out = std::process::Command::new("id")
        .args(["-g", "nobody"])
        .output()
        .unwrap();
    let gid = String::from_utf8(out.stdout).unwrap().trim().to_owned();
    (uid, gid)
}

#[tokio::test]
async fn run_as_an_unknown_user_is_a_typed_error_and_starts_nothing() {
    let dir = TempDir::new();
    let marker = dir.path().join("started");
    let path = dir.file(
        "script.sh",
        &format!("touch '{}'\n", marker.display()),
        0o644,
    );
    let launch = LaunchSpec {
        cli_path: Some("/bin/sh".into()),
        args: vec![path.display().to_string()],
        ..LaunchSpec::default()
    };
    let transport = ProcessTransport::new().run_as_user("no-such-user-claude-tools");
    let Err(error) = Box::new(transport).connect(launch).await else {
        panic!("connected as an unknown user");
    };
    assert!(
        matches!(&error, Error::UnknownUser { name, .. } if name == "no-such-user-claude-tools"),
        "{error:?}"
    );
    assert!(error.is_fatal());
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert!(!marker.exists(), "the CLI was started");
}

#[tokio::test]
async fn options_user_reaches_the_process_transport() {
    // `query` builds its ProcessTransport from the options: the unknown user fails it before
    // the CLI (here a shell that would exit at once) is looked for or started.
    let options = claude_tools_runtime::options::Options::new()
        .cli_path("/bin/sh")
        .user("no-such-user-claude-tools");
    let Err(error) = claude_tools_runtime::query::query("hi", options).await else {
        panic!("a session started as an unknown user");
    };
    assert!(
        matches!(&error, Error::UnknownUser { name, .. } if name == "no-such-user-claude-tools"),
        "{error:?}"
    );
}
