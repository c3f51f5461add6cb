//! Serving the board: where it lives ([`Database`], [`Board`]), the command line ([`Config`]),
//! the key and codec that seal MCP 2026-07-28's `requestState` ([`state_key`],
//! [`request_state`]) and the HTTP server ([`serve`]).

use std::future::Future;
use std::sync::Arc;

use super::{PostgresStore, Replica, SharedTickets, SqliteStore, StoreError, TicketStore};
use claude_tools::mcp::http::HttpServer;
use claude_tools::mcp::request_state::{
    ConfigError, ReplayGuard, RequestStateCodec, RequestStateConfig, StateKey,
};

/// The environment variable with the bearer token clients must send (`--token` wins over it;
/// an environment variable keeps the token out of `ps`).
pub const TOKEN_ENV: &str = "TICKETS_HTTP_TOKEN";

/// The address served when `--listen` is not given.
pub const DEFAULT_LISTEN: &str = "127.0.0.1:8080";

/// The path clients POST to.
pub const MCP_PATH: &str = "/mcp";

/// Where the board lives.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Database {
    /// A PostgreSQL URL (`postgres://…` or `postgresql://…`): shared by every replica.
    Postgres(String),
    /// A SQLite file (`sqlite:PATH`): one machine.
    Sqlite(std::path::PathBuf),
}

impl Database {
    /// Parses `postgres://…`, `postgresql://…` or `sqlite:PATH`.
    pub fn parse(text: &str) -> Result<Database, String> {
        if text.starts_with("postgres://") || text.starts_with("postgresql://") {
            Ok(Database::Postgres(text.to_string()))
        } else if let Some(path) = text.strip_prefix("sqlite:").filter(|p| !p.is_empty()) {
            Ok(Database::Sqlite(path.into()))
        } else {
            Err(format!(
                "`{text}` is not a database: give postgres://user@host:port/dbname or sqlite:PATH"
            ))
        }
    }

    /// Connects (PostgreSQL) or opens (SQLite) the board, creating and seeding it when new.
    pub async fn open(&self) -> Result<Board, StoreError> {
        Ok(match self {
            Database::Postgres(url) => {
                let store = PostgresStore::connect(url).await?;
                Board {
                    replay_guard: Some(Arc::new(store.replay_guard())),
                    store: Box::new(store),
                }
            }
            Database::Sqlite(path) => {
                let path = path.clone();
                let store = tokio::task::spawn_blocking(move || SqliteStore::open(&path))
                    .await
                    .map_err(crate::db::DbError::from)??;
                Board {
                    store: Box::new(store),
                    replay_guard: None,
                }
            }
        })
    }
}

/// An opened board: its store, and the replay guard its replicas share.
pub struct Board {
    /// Where the tickets are.
    pub store: Box<dyn TicketStore>,
    /// The [`PostgresReplayGuard`](super::PostgresReplayGuard) on PostgreSQL (every replica spends `requestState`s in one
    /// table); `None` on SQLite, one machine, where the codec's default guard (in this
    /// process's memory) is right.
    pub replay_guard: Option<Arc<dyn ReplayGuard>>,
}

impl std::fmt::Debug for Board {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Board")
            .field("shared_replay_guard", &self.replay_guard.is_some())
            .finish_non_exhaustive()
    }
}

/// The environment variable with the operator key that seals MCP 2026-07-28's `requestState`:
/// base64 of at least 32 random bytes (`openssl rand -base64 32`), the same on every replica so
/// that a client's retry may land on any of them. Only from the environment, never the command
/// line (`ps` shows that).
pub const STATE_KEY_ENV: &str = "TICKETS_HTTP_STATE_KEY";

/// The operator key in `value` (the value of [`STATE_KEY_ENV`]; unset or empty: none), or why
/// it is not one. The message never shows the value.
pub fn state_key(value: Option<&str>) -> Result<Option<StateKey>, String> {
    match value.map(str::trim).filter(|text| !text.is_empty()) {
        None => Ok(None),
        Some(text) => StateKey::from_base64(text)
            .map(Some)
            .map_err(|error| format!("{STATE_KEY_ENV}: {error}")),
    }
}

/// The codec that seals this server's `requestState`: with `key` (every replica the same) or,
/// without one, a per-process random key; with the board's shared `replay_guard`, or the
/// default in-memory one.
pub fn request_state(
    key: Option<StateKey>,
    replay_guard: Option<Arc<dyn ReplayGuard>>,
) -> Result<RequestStateCodec, ConfigError> {
    let mut config = RequestStateConfig::new();
    if let Some(key) = key {
        config = config.key(key);
    }
    if let Some(guard) = replay_guard {
        config = config.replay_guard(guard);
    }
    config.build(SharedTickets::server().name())
}

impl std::fmt::Display for Database {
    /// The database without its password, for logs.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Database::Postgres(url) => match url.split_once('@') {
                Some((scheme_user, host)) => match scheme_user.rsplit_once(':') {
                    Some((user, _password)) if user.contains("//") => {
                        write!(f, "{user}:***@{host}")
                    }
                    _ => f.write_str(url),
                },
                None => f.write_str(url),
            },
            Database::Sqlite(path) => write!(f, "sqlite:{}", path.display()),
        }
    }
}

/// The command line of the `tickets_http` binary:
/// `--database postgres://…|sqlite:PATH [--listen ADDR] [--replica NAME] [--token TOKEN]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Config {
    /// Where to listen ([`DEFAULT_LISTEN`] by default; port 0 picks a free one).
    pub listen: std::net::SocketAddr,
    /// Where the board lives.
    pub database: Database,
    /// This replica's name, recorded on the tickets it files (default: `replica`).
    pub replica: String,
    /// The bearer token clients must send, if any (`--token`, else [`TOKEN_ENV`]).
    pub token: Option<String>,
}

/// The usage line printed on a bad command line.
pub const USAGE: &str = "usage: tickets_http --database postgres://USER@HOST:PORT/DB|sqlite:PATH \
[--listen ADDR] [--replica NAME] [--token TOKEN]";

impl Config {
    /// Parses `args` (without the program name); `token_env` is the value of [`TOKEN_ENV`].
    pub fn parse(
        args: impl IntoIterator<Item = String>,
        token_env: Option<String>,
    ) -> Result<Config, String> {
        let mut args = crate::run::Args::parse(args);
        if args.help {
            return Err(USAGE.to_string());
        }
        let listen = args.take_value("--listen");
        let database = args.take_value("--database");
        let replica = args.take_value("--replica");
        let token = args.take_value("--token");
        if args.scripted || !args.words.is_empty() {
            return Err(format!("unexpected arguments {:?}\n{USAGE}", args.words));
        }
        let listen = listen.as_deref().unwrap_or(DEFAULT_LISTEN);
        let listen = listen
            .parse()
            .map_err(|_| format!("`{listen}` is not an address like 127.0.0.1:8080"))?;
        let database = database.ok_or_else(|| format!("--database is missing\n{USAGE}"))?;
        Ok(Config {
            listen,
            database: Database::parse(&database)?,
            replica: replica.unwrap_or_else(|| "replica".to_string()),
            token: token.or(token_env).filter(|token| !token.is_empty()),
        })
    }
}

/// Serves `replica`'s board on `listener` at [`MCP_PATH`] (requiring `token` as a bearer token
/// when given, sealing 2026-07-28 questions' state with `request_state`) until `shutdown`
/// resolves; then stops accepting, lets the calls in progress answer, and returns.
pub async fn serve(
    listener: tokio::net::TcpListener,
    replica: Replica,
    token: Option<String>,
    request_state: RequestStateCodec,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let server = SharedTickets::server()
        .with_state(replica)
        .with_request_state(request_state);
    let mut http = HttpServer::new(server).path(MCP_PATH);
    if let Some(token) = token {
        http = http.bearer_token(token);
    }
    http.serve(listener).with_graceful_shutdown(shutdown).await
}

/// Resolves at the first `SIGTERM` (how service managers and orchestrators stop a process) or
/// ctrl-c (`SIGINT`): [`claude_tools::mcp::shutdown_signal`].
pub async fn shutdown_signal() {
    claude_tools::mcp::shutdown_signal().await;
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(args: &[&str]) -> Result<Config, String> {
        Config::parse(args.iter().map(|s| s.to_string()), None)
    }

    #[test]
    fn the_command_line_names_the_database_the_replica_and_the_address() {
        let config = parse(&[
            "--database",
            "postgres://app:secret@127.0.0.1:5432/board",
            "--listen=127.0.0.1:0",
            "--replica",
            "a",
        ])
        .unwrap();
        assert_eq!(
            config,
            Config {
                listen: "127.0.0.1:0".parse().unwrap(),
                database: Database::Postgres("postgres://app:secret@127.0.0.1:5432/board".into()),
                replica: "a".into(),
                token: None,
            }
        );
        assert_eq!(
            config.database.to_string(),
            "postgres://app:***@127.0.0.1:5432/board"
        );
        let sqlite = parse(&["--database", "sqlite:/tmp/b.db", "--token", "t"]).unwrap();
        assert_eq!(sqlite.database, Database::Sqlite("/tmp/b.db".into()));
        assert_eq!(sqlite.token.as_deref(), Some("t"));
        assert_eq!(sqlite.listen, DEFAULT_LISTEN.parse().unwrap());
        let from_env = Config::parse(
            ["--database".to_string(), "sqlite:x".to_string()],
            Some("e".into()),
        )
        .unwrap();
        assert_eq!(from_env.token.as_deref(), Some("e"));
    }

    #[test]
    fn a_bad_command_line_says_what_is_wrong() {
        assert_eq!(
            parse(&["--database", "mysql://x"]).unwrap_err(),
            "`mysql://x` is not a database: give postgres://user@host:port/dbname or sqlite:PATH"
        );
        assert_eq!(
            parse(&[]).unwrap_err(),
            format!("--database is missing\n{USAGE}")
        );
        assert_eq!(
            parse(&["--database", "sqlite:x", "--listen", "nowhere"]).unwrap_err(),
            "`nowhere` is not an address like 127.0.0.1:8080"
        );
        assert_eq!(
            parse(&["--database", "sqlite:x", "stray"]).unwrap_err(),
            format!("unexpected arguments [\"stray\"]\n{USAGE}")
        );
    }

    #[test]
    fn the_state_key_comes_from_base64_and_its_errors_do_not_show_it() {
        assert!(state_key(None).unwrap().is_none());
        assert!(state_key(Some("  ")).unwrap().is_none());
        let key = state_key(Some("HYeVB68UbsF9aoMXrx54thiP914lYyhKl/cqlLd3Z80=\n"))
            .unwrap()
            .unwrap();
        let again = state_key(Some("HYeVB68UbsF9aoMXrx54thiP914lYyhKl/cqlLd3Z80"))
            .unwrap()
            .unwrap();
        assert_eq!(key.id(), again.id(), "padding and whitespace do not matter");
        assert_eq!(
            state_key(Some("not base64!")).unwrap_err(),
            "TICKETS_HTTP_STATE_KEY: the requestState key is not base64 (standard or URL-safe alphabet)"
        );
        assert_eq!(
            state_key(Some("c2hvcnQ=")).unwrap_err(),
            "TICKETS_HTTP_STATE_KEY: a requestState key needs at least 32 bytes of secret, got 5"
        );
        let keyed = request_state(Some(key), None).unwrap();
        assert!(!keyed.has_per_process_key());
        assert_eq!(keyed.audience(), "tickets");
        assert!(request_state(None, None).unwrap().has_per_process_key());
    }
}
