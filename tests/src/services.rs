//! Throwaway PostgreSQL clusters and nginx load balancers for the replicated-deployment tests
//! (`tests/tests/http_replicas.rs`), from the machine's packages (`scripts/install-services`
//! installs them).
//!
//! Each [`Postgres`] and [`Nginx`] lives in its own temp dir, listens on a free port of
//! 127.0.0.1 only, and is stopped (and its dir removed) when dropped, a panicking test included.
//! Should the test process itself die, the service gets a signal from the kernel
//! (`PR_SET_PDEATHSIG`), so nothing outlives it.
//!
//! As root, `initdb` and `postgres` refuse to run: they run as the `postgres` user (the temp dir
//! is handed to it). Start services from the test's own thread: the kernel's parent-death signal
//! follows the thread that spawned the process.

use std::fs::File;
use std::io::{self, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use claude_tools_testkit::TempDir;

/// How long a service may take to accept connections.
const START_TIMEOUT: Duration = Duration::from_secs(30);

/// How long a service may take to stop before it is killed.
const STOP_TIMEOUT: Duration = Duration::from_secs(10);

/// Whether nginx and PostgreSQL can be started here. When they cannot: under CI (`CI` set) this
/// panics; elsewhere it prints a loud banner to stderr and returns `false`, and the test skips.
pub fn services_or_skip(test: &str) -> bool {
    let missing: Vec<&str> = [
        nginx_binary().is_none().then_some("nginx"),
        postgres_bin_dir()
            .is_none()
            .then_some("PostgreSQL (initdb, postgres)"),
    ]
    .into_iter()
    .flatten()
    .collect();
    if missing.is_empty() {
        return true;
    }
    let missing = missing.join(" and ");
    let hint = "run scripts/install-services (or scripts/test)";
    if std::env::var_os("CI").is_some() {
        panic!("{test}: {missing} not installed and CI is set; {hint}");
    }
    // Written to the stderr handle itself: libtest captures `eprintln!` of passing tests.
    let _ = writeln!(
        io::stderr(),
        "\n!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!\n\
         !!! SKIPPED {test}: {missing} not installed ({hint})\n\
         !!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!\n"
    );
    false
}

/// Whether PostgreSQL can be started here (for tests that need no nginx): as
/// [`services_or_skip`], a panic under CI and a loud banner elsewhere when it cannot.
pub fn postgres_or_skip(test: &str) -> bool {
    if postgres_bin_dir().is_some() {
        return true;
    }
    let hint = "run scripts/install-services (or scripts/test)";
    if std::env::var_os("CI").is_some() {
        panic!("{test}: PostgreSQL (initdb, postgres) not installed and CI is set; {hint}");
    }
    let _ = writeln!(
        io::stderr(),
        "\n!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!\n\
         !!! SKIPPED {test}: PostgreSQL (initdb, postgres) not installed ({hint})\n\
         !!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!\n"
    );
    false
}

/// Whether nginx can be started here (for tests that need no PostgreSQL): as
/// [`services_or_skip`], a panic under CI and a loud banner elsewhere when it cannot.
pub fn nginx_or_skip(test: &str) -> bool {
    if nginx_binary().is_some() {
        return true;
    }
    let hint = "run scripts/install-services (or scripts/test)";
    if std::env::var_os("CI").is_some() {
        panic!("{test}: nginx not installed and CI is set; {hint}");
    }
    let _ = writeln!(
        io::stderr(),
        "\n!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!\n\
         !!! SKIPPED {test}: nginx not installed ({hint})\n\
         !!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!\n"
    );
    false
}

/// nginx: on `PATH`, else where Debian puts it (`/usr/sbin` is not on every user's `PATH`).
pub fn nginx_binary() -> Option<PathBuf> {
    find_on_path("nginx").or_else(|| {
        let debian = PathBuf::from("/usr/sbin/nginx");
        debian.is_file().then_some(debian)
    })
}

/// The directory with `initdb`, `postgres` and `pg_isready`: Debian's newest
/// `/usr/lib/postgresql/<version>/bin`, else the directory `initdb` on `PATH` resolves to.
pub fn postgres_bin_dir() -> Option<PathBuf> {
    let is_complete = |dir: &Path| dir.join("initdb").is_file() && dir.join("postgres").is_file();
    let mut debian: Vec<(u32, PathBuf)> = std::fs::read_dir("/usr/lib/postgresql")
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|entry| {
            let version = entry.file_name().to_str()?.parse().ok()?;
            Some((version, entry.path().join("bin")))
        })
        .filter(|(_, dir)| is_complete(dir))
        .collect();
    debian.sort();
    if let Some((_, dir)) = debian.pop() {
        return Some(dir);
    }
    let initdb = std::fs::canonicalize(find_on_path("initdb")?).ok()?;
    let dir = initdb.parent()?.to_path_buf();
    is_complete(&dir).then_some(dir)
}

fn find_on_path(name: &str) -> Option<PathBuf> {
    std::env::split_paths(&std::env::var_os("PATH")?)
        .map(|dir| dir.join(name))
        .find(|path| path.is_file())
}

/// A free port on 127.0.0.1 (free when asked: the service binds it right after).
pub fn free_port() -> io::Result<u16> {
    Ok(TcpListener::bind("127.0.0.1:0")?.local_addr()?.port())
}

/// A running child process, stopped with `signal` (then `SIGKILL` after [`STOP_TIMEOUT`]) when
/// dropped.
struct Guard {
    child: Child,
    stop_signal: libc::c_int,
    /// Whether the child leads its own process group, signalled as a whole (nginx's master and
    /// worker).
    group: bool,
}

impl Guard {
    fn is_running(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(None))
    }
}

impl Drop for Guard {
    fn drop(&mut self) {
        if !self.is_running() {
            return;
        }
        self.signal(self.stop_signal);
        let deadline = Instant::now() + STOP_TIMEOUT;
        while Instant::now() < deadline {
            if !self.is_running() {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        self.signal(libc::SIGKILL);
        let _ = self.child.wait();
    }
}

impl Guard {
    fn signal(&self, signal: libc::c_int) {
        let Ok(pid) = libc::pid_t::try_from(self.child.id()) else {
            return;
        };
        let target = if self.group { -pid } else { pid };
        // SAFETY: kill(2) has no memory-safety preconditions; the pid is our own unreaped child
        // (or the group it leads).
        unsafe { libc::kill(target, signal) };
    }
}

/// Makes `command`'s process get `signal` when the thread that spawned it dies, so a service
/// does not outlive a test process that was killed. Set after any uid change (which clears it).
fn die_with_parent(command: &mut Command, signal: libc::c_int) {
    // SAFETY: prctl(2) is async-signal-safe, and the closure touches no memory of the parent.
    unsafe {
        command.pre_exec(move || {
            if libc::prctl(libc::PR_SET_PDEATHSIG, signal as libc::c_ulong) != 0 {
                return Err(io::Error::last_os_error());
            }
            Ok(())
        });
    }
}

/// The last lines of a log file, for a failure message.
fn log_tail(path: &Path) -> String {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let lines: Vec<&str> = text.lines().collect();
    lines[lines.len().saturating_sub(30)..].join("\n")
}

/// Waits until `ready()` or the process exits; the error names the log.
fn wait_until_ready(
    what: &str,
    guard: &mut Guard,
    log: &Path,
    mut ready: impl FnMut() -> bool,
) -> io::Result<()> {
    let deadline = Instant::now() + START_TIMEOUT;
    loop {
        if ready() {
            return Ok(());
        }
        if !guard.is_running() {
            return Err(io::Error::other(format!(
                "{what} exited at start:\n{}",
                log_tail(log)
            )));
        }
        if Instant::now() > deadline {
            return Err(io::Error::other(format!(
                "{what} did not accept connections within {START_TIMEOUT:?}:\n{}",
                log_tail(log)
            )));
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// The uid and gid of the `postgres` user when this process is root (PostgreSQL refuses to run
/// as root), else `None` (run as ourselves).
fn postgres_user() -> io::Result<Option<(u32, u32)>> {
    // SAFETY: getuid(2) cannot fail.
    if unsafe { libc::getuid() } != 0 {
        return Ok(None);
    }
    let name = c"postgres";
    // SAFETY: `name` is a valid C string; the returned record is read at once, on this thread,
    // before any other getpw* call.
    let record = unsafe { libc::getpwnam(name.as_ptr()) };
    if record.is_null() {
        return Err(io::Error::other(
            "running as root, and there is no `postgres` user to run PostgreSQL as",
        ));
    }
    // SAFETY: non-null, just returned by getpwnam.
    let (uid, gid) = unsafe { ((*record).pw_uid, (*record).pw_gid) };
    Ok(Some((uid, gid)))
}

/// A throwaway PostgreSQL cluster on 127.0.0.1: trust authentication for the `postgres` role,
/// `fsync` off (it lives for one test). Stopped (fast shutdown) and removed when dropped.
pub struct Postgres {
    // Field order: the server stops before its directory goes.
    server: Guard,
    port: u16,
    dir: TempDir,
}

impl Postgres {
    /// Initialises a cluster in a new temp dir and starts it on a free port.
    pub fn start() -> io::Result<Postgres> {
        let bin = postgres_bin_dir()
            .ok_or_else(|| io::Error::other("PostgreSQL's initdb/postgres are not installed"))?;
        let user = postgres_user()?;
        let dir = TempDir::new("postgres")?;
        if let Some((uid, gid)) = user {
            std::os::unix::fs::chown(dir.path(), Some(uid), Some(gid))?;
        }
        let data = dir.path().join("data");
        let log = dir.path().join("postgres.log");
        let mut initdb = Command::new(bin.join("initdb"));
        initdb
            .args(["--auth=trust", "--username=postgres", "--encoding=UTF8"])
            .args(["--no-locale", "--no-sync", "--no-instructions", "-D"])
            .arg(&data);
        as_user(&mut initdb, user, dir.path());
        let output = initdb.stdin(Stdio::null()).output()?;
        if !output.status.success() {
            return Err(io::Error::other(format!(
                "initdb failed ({}):\n{}{}",
                output.status,
                String::from_utf8_lossy(&output.stdout),
                String::from_utf8_lossy(&output.stderr)
            )));
        }
        // A port taken between `free_port` and the server's bind makes it exit at start: try
        // another.
        let mut last_error = None;
        for _ in 0..3 {
            let port = free_port()?;
            match Self::run_server(&bin, user, dir.path(), &data, &log, port) {
                Ok(server) => return Ok(Postgres { server, port, dir }),
                Err(error) => last_error = Some(error),
            }
        }
        Err(last_error.unwrap_or_else(|| io::Error::other("postgres did not start")))
    }

    fn run_server(
        bin: &Path,
        user: Option<(u32, u32)>,
        dir: &Path,
        data: &Path,
        log: &Path,
        port: u16,
    ) -> io::Result<Guard> {
        let mut command = Command::new(bin.join("postgres"));
        command
            .arg("-D")
            .arg(data)
            .args(["-p", &port.to_string()])
            .args(["-c", "listen_addresses=127.0.0.1"])
            .arg("-c")
            .arg(format!("unix_socket_directories={}", dir.display()))
            .args(["-c", "fsync=off", "-c", "full_page_writes=off"])
            .args(["-c", "max_connections=60"]);
        as_user(&mut command, user, dir);
        // SIGINT is PostgreSQL's fast shutdown: it ends the sessions and stops cleanly.
        die_with_parent(&mut command, libc::SIGINT);
        let log_file = File::create(log)?;
        let child = command
            .stdin(Stdio::null())
            .stdout(log_file.try_clone()?)
            .stderr(log_file)
            .spawn()?;
        let mut server = Guard {
            child,
            stop_signal: libc::SIGINT,
            group: false,
        };
        // pg_isready tells "accepting connections" from "starting up"; without it (a bin dir
        // found through PATH may lack it), an open port has to do.
        let pg_isready = bin.join("pg_isready");
        let has_pg_isready = pg_isready.is_file();
        wait_until_ready("postgres", &mut server, log, || {
            if !has_pg_isready {
                return TcpStream::connect(("127.0.0.1", port)).is_ok();
            }
            Command::new(&pg_isready)
                .args(["-q", "-h", "127.0.0.1", "-U", "postgres", "-p"])
                .arg(port.to_string())
                .status()
                .is_ok_and(|status| status.success())
        })?;
        Ok(server)
    }

    /// The connection URL of the cluster's `postgres` database.
    pub fn url(&self) -> String {
        format!("postgres://postgres@127.0.0.1:{}/postgres", self.port)
    }

    /// The port it listens on (127.0.0.1).
    pub fn port(&self) -> u16 {
        self.port
    }

    /// Its temp dir (data directory, log, unix socket).
    pub fn dir(&self) -> &Path {
        self.dir.path()
    }

    /// Whether the server process still runs.
    pub fn is_running(&mut self) -> bool {
        self.server.is_running()
    }
}

/// Runs `command` as `user` (when set) in `dir`, with a clean locale.
fn as_user(command: &mut Command, user: Option<(u32, u32)>, dir: &Path) {
    if let Some((uid, gid)) = user {
        // std drops root's supplementary groups when it changes the uid.
        command.uid(uid).gid(gid);
    }
    command
        .current_dir(dir)
        .env("LC_ALL", "C")
        .env_remove("PGDATA");
}

/// nginx on 127.0.0.1 balancing over `upstreams` (plain round robin, nothing that ties a client
/// to a replica; HTTP/1.1 keepalive to them; responses unbuffered so SSE streams pass as they
/// are written; a POST already sent never sent to another replica). Killed when dropped.
pub struct Nginx {
    // Field order: the server stops before its directory goes.
    server: Guard,
    port: u16,
    dir: TempDir,
}

impl Nginx {
    /// Starts nginx in a new temp dir on a free port, in front of `upstreams`.
    pub fn start(upstreams: &[SocketAddr]) -> io::Result<Nginx> {
        let (http, server) = balancer(upstreams);
        Self::start_with(&http, &server)
    }

    /// Starts nginx in a new temp dir on a free port with a configuration of the test's own:
    /// `http` is written inside the `http` block (`upstream`s, `map`s), `server` inside its one
    /// `server` block, after the `listen` on 127.0.0.1 (its `location`s). Every path nginx
    /// writes is in the temp dir.
    pub fn start_with(http: &str, server: &str) -> io::Result<Nginx> {
        let binary = nginx_binary().ok_or_else(|| io::Error::other("nginx is not installed"))?;
        let dir = TempDir::new("nginx")?;
        let mut last_error = None;
        for _ in 0..3 {
            let port = free_port()?;
            std::fs::write(
                dir.path().join("nginx.conf"),
                nginx_config(dir.path(), port, http, server),
            )?;
            match Self::run_server(&binary, dir.path(), port) {
                Ok(server) => return Ok(Nginx { server, port, dir }),
                Err(error) => last_error = Some(error),
            }
        }
        Err(last_error.unwrap_or_else(|| io::Error::other("nginx did not start")))
    }

    fn run_server(binary: &Path, dir: &Path, port: u16) -> io::Result<Guard> {
        let log = dir.join("error.log");
        let mut command = Command::new(binary);
        command
            .arg("-p")
            .arg(dir)
            .arg("-c")
            .arg(dir.join("nginx.conf"))
            .arg("-e")
            .arg(&log)
            // Its own process group: the master and its worker go together.
            .process_group(0);
        die_with_parent(&mut command, libc::SIGTERM);
        let log_file = File::create(dir.join("nginx.out"))?;
        let child = command
            .stdin(Stdio::null())
            .stdout(log_file.try_clone()?)
            .stderr(log_file)
            .spawn()?;
        let mut server = Guard {
            child,
            // SIGTERM is nginx's fast shutdown: the master stops its worker and exits.
            stop_signal: libc::SIGTERM,
            group: true,
        };
        wait_until_ready("nginx", &mut server, &log, || {
            TcpStream::connect(("127.0.0.1", port)).is_ok()
        })?;
        Ok(server)
    }

    /// `http://127.0.0.1:<port><path>`.
    pub fn url(&self, path: &str) -> String {
        format!("http://127.0.0.1:{}{path}", self.port)
    }

    /// Its temp dir (config, logs).
    pub fn dir(&self) -> &Path {
        self.dir.path()
    }

    /// Whether the master process still runs.
    pub fn is_running(&mut self) -> bool {
        self.server.is_running()
    }
}

/// The balancer of [`Nginx::start`]: an `upstream` of `upstreams` and the one `location` that
/// passes every request to it.
fn balancer(upstreams: &[SocketAddr]) -> (String, String) {
    let servers: String = upstreams
        .iter()
        .map(|addr| format!("        server {addr};\n"))
        .collect();
    let http = format!(
        "    upstream replicas {{
{servers}        keepalive 16;
    }}
"
    );
    let server = "        location / {
            proxy_pass http://replicas;
            proxy_http_version 1.1;
            proxy_set_header Connection \"\";
            proxy_set_header Host $http_host;
            proxy_buffering off;
            proxy_read_timeout 60s;
            # nginx's default, written out: on an error or a timeout, the request goes to the
            # next replica, but a POST (every MCP request) only if it was not sent yet (a
            # replica that refuses connections); one already sent is answered 502, never sent
            # again. No `non_idempotent`: a tool call may have done its work before its replica
            # died, and a 2026-07-28 retry's requestState is spent when it is opened.
            proxy_next_upstream error timeout;
        }
"
    .to_owned();
    (http, server)
}

/// The config: loopback only, every path inside `dir`, one worker; `http` and `server` as
/// [`Nginx::start_with`] says.
fn nginx_config(dir: &Path, port: u16, http: &str, server: &str) -> String {
    let dir = dir.display();
    // As root the worker would switch to `nobody`, who cannot write the temp paths.
    // SAFETY: getuid(2) cannot fail.
    let user = if unsafe { libc::getuid() } == 0 {
        "user root;"
    } else {
        ""
    };
    format!(
        "# Written by claude-tools-tests' services module for one test.
daemon off;
worker_processes 1;
{user}
pid {dir}/nginx.pid;
error_log {dir}/error.log warn;
events {{
    worker_connections 512;
}}
http {{
    access_log off;
    client_body_temp_path {dir}/client_body;
    proxy_temp_path {dir}/proxy;
    fastcgi_temp_path {dir}/fastcgi;
    uwsgi_temp_path {dir}/uwsgi;
    scgi_temp_path {dir}/scgi;
{http}    server {{
        listen 127.0.0.1:{port};
{server}    }}
}}
"
    )
}
