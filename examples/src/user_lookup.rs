//! The user-lookup example: a `query_user` tool over a SQLite user directory and a `get_time`
//! tool, written with extractors and returning `Result`s of the example's own error type.
//!
//! | tool (as the model sees it) | parameters it takes from the host | returns |
//! |---|---|---|
//! | `mcp__users__query_user` | `State<Directory>`, [`ToolContext`] | `Result<Json<User>, LookupError>` |
//! | `mcp__users__get_time` | `State<Directory>`, `State<Clock>`, [`ToolContext`] | `Result<String, LookupError>` |
//!
//! Extractor parameters (`State<T>`, `ToolContext`) come from the host, not from the model: they
//! do not appear in the tool's input schema. The tools use the context for the call's
//! `tool_use_id`, written to an audit table with each lookup, and `query_user` for
//! cancellation too. The clock is state as well, so a test can stop it ([`Clock::Fixed`]). A
//! [`LookupError`] is a `thiserror` enum; returned as `Err`, its message reaches the model as an
//! `isError` result, so the model can correct itself (a name that matches nobody, or several
//! people).
//!
//! ```
//! use claude_tools::prelude::*;
//! use claude_tools_examples::user_lookup::{Clock, Directory, Users};
//!
//! # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
//! let dir = claude_tools_testkit::TempDir::new("users-doc").unwrap();
//! let directory = Directory::open(&dir.path().join("users.sqlite3")).unwrap();
//! let server = Users::server()
//!     .with_state(directory)
//!     .with_state(Clock::fixed_unix(1_700_000_000));
//! let time = server
//!     .call("get_time", serde_json::json!({"user": "grace"}), ToolContext::new())
//!     .await;
//! assert_eq!(time.text_content(), "For grace it is 17:13 on 2023-11-14 (UTC-05:00).");
//! let nobody = server
//!     .call("query_user", serde_json::json!({"query": "zed"}), ToolContext::new())
//!     .await;
//! assert!(nobody.is_error);
//! assert_eq!(nobody.text_content(), "No user matches `zed`. Try a handle, an email address or part of a name.");
//! # });
//! ```

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use claude_tools::prelude::*;
use claude_tools_testkit::model_server::{Script, Turn};
use rusqlite::{Connection, Row, params};
use serde_json::json;

use crate::db::{Db, DbError};
use crate::run::Example;

/// The server: the model sees its tools as `mcp__users__<tool>`.
#[tool_server(
    name = "users",
    version = "1.0.0",
    instructions = "A company directory: look people up and tell the time where they are."
)]
pub struct Users;

/// The environment variable naming the database file (`--db PATH` wins over it).
pub const DB_ENV: &str = "USERS_DB";

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS users (
    handle TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    email TEXT NOT NULL UNIQUE,
    team TEXT NOT NULL,
    utc_offset_minutes INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS lookups (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    tool_use_id TEXT,
    query TEXT NOT NULL,
    found TEXT
);
";

/// The people a new directory starts with: handle, name, email, team, UTC offset in minutes.
const SEED: [(&str, &str, &str, &str, i32); 4] = [
    ("ada", "Ada Lovelace", "ada@example.com", "compilers", 0),
    (
        "grace",
        "Grace Hopper",
        "grace@example.com",
        "compilers",
        -300,
    ),
    (
        "linus",
        "Linus Torvalds",
        "linus@example.com",
        "kernel",
        -480,
    ),
    (
        "margaret",
        "Margaret Hamilton",
        "margaret@example.com",
        "flight software",
        60,
    ),
];

/// One person in the directory.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct User {
    /// Their handle (unique)
    pub handle: String,
    /// Their full name
    pub name: String,
    /// Their email address
    pub email: String,
    /// The team they are on
    pub team: String,
    /// Their time zone, as an offset from UTC (`UTC+01:00`)
    pub utc_offset: String,
}

impl User {
    fn from_row(row: &Row<'_>) -> rusqlite::Result<(User, i32)> {
        let minutes: i32 = row.get("utc_offset_minutes")?;
        Ok((
            User {
                handle: row.get("handle")?,
                name: row.get("name")?,
                email: row.get("email")?,
                team: row.get("team")?,
                utc_offset: format_offset(minutes),
            },
            minutes,
        ))
    }
}

/// One lookup in the directory's audit log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Lookup {
    /// The tool call that made it (from its [`ToolContext`]).
    pub tool_use_id: Option<String>,
    /// What was asked for.
    pub query: String,
    /// The handle found, when exactly one person matched.
    pub found: Option<String>,
}

/// Why a lookup failed. Its message is what the model reads.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum LookupError {
    /// Nobody matches.
    #[error("No user matches `{query}`. Try a handle, an email address or part of a name.")]
    NotFound {
        /// What was asked for.
        query: String,
    },
    /// Several people match.
    #[error("`{query}` matches several users ({}); ask again with a handle.", handles.join(", "))]
    Ambiguous {
        /// What was asked for.
        query: String,
        /// The handles of everyone it matches.
        handles: Vec<String>,
    },
    /// The query was empty.
    #[error("The query is empty: give a handle, an email address or part of a name.")]
    EmptyQuery,
    /// The call was cancelled (the user interrupted).
    #[error("The lookup was cancelled.")]
    Cancelled,
    /// The database failed.
    #[error(transparent)]
    Database(#[from] DbError),
}

/// The user directory the tools share.
#[derive(Debug, Clone)]
pub struct Directory {
    db: Db,
}

impl Directory {
    /// Opens the directory in the SQLite file at `path`, creating and seeding it (four people)
    /// when new. Blocking.
    pub fn open(path: &Path) -> Result<Directory, DbError> {
        let db = Db::open(path, SCHEMA)?;
        db.blocking(seed_if_new)?;
        Ok(Directory { db })
    }

    /// The database file.
    pub fn path(&self) -> &Path {
        self.db.path()
    }

    /// The audit log, oldest first. Blocking.
    pub fn lookups(&self) -> Result<Vec<Lookup>, DbError> {
        self.db.blocking(|conn| {
            let mut statement =
                conn.prepare("SELECT tool_use_id, query, found FROM lookups ORDER BY seq")?;
            let rows = statement.query_map([], |r| {
                Ok(Lookup {
                    tool_use_id: r.get(0)?,
                    query: r.get(1)?,
                    found: r.get(2)?,
                })
            })?;
            rows.collect()
        })
    }

    /// Finds the one user `query` names (see [`query_user`]) and logs the lookup.
    async fn find(
        &self,
        query: String,
        tool_use_id: Option<String>,
    ) -> Result<(User, i32), LookupError> {
        let query = query.trim().to_string();
        if query.is_empty() {
            return Err(LookupError::EmptyQuery);
        }
        let for_db = query.clone();
        let mut matches = self
            .db
            .run(move |conn| {
                let matches = matching(conn, &for_db)?;
                let found = (matches.len() == 1).then(|| matches[0].0.handle.clone());
                conn.execute(
                    "INSERT INTO lookups (tool_use_id, query, found) VALUES (?1, ?2, ?3)",
                    params![tool_use_id, for_db, found],
                )?;
                Ok(matches)
            })
            .await?;
        match matches.len() {
            0 => Err(LookupError::NotFound { query }),
            1 => Ok(matches.remove(0)),
            _ => Err(LookupError::Ambiguous {
                query,
                handles: matches.into_iter().map(|(user, _)| user.handle).collect(),
            }),
        }
    }
}

fn seed_if_new(conn: &mut Connection) -> rusqlite::Result<()> {
    let tx = conn.transaction()?;
    let count: i64 = tx.query_row("SELECT count(*) FROM users", [], |r| r.get(0))?;
    if count == 0 {
        for (handle, name, email, team, offset) in SEED {
            tx.execute(
                "INSERT INTO users (handle, name, email, team, utc_offset_minutes)
                 VALUES (?1, ?2, ?3, ?4, ?5)",
                params![handle, name, email, team, offset],
            )?;
        }
    }
    tx.commit()
}

/// An exact handle or email wins; otherwise every name containing the query (any case).
fn matching(conn: &Connection, query: &str) -> rusqlite::Result<Vec<(User, i32)>> {
    let columns = "SELECT handle, name, email, team, utc_offset_minutes FROM users";
    let exact: Vec<(User, i32)> = conn
        .prepare_cached(&format!(
            "{columns} WHERE handle = lower(?1) OR lower(email) = lower(?1)"
        ))?
        .query_map([query], User::from_row)?
        .collect::<rusqlite::Result<_>>()?;
    if !exact.is_empty() {
        return Ok(exact);
    }
    conn.prepare_cached(&format!(
        "{columns} WHERE instr(lower(name), lower(?1)) > 0 ORDER BY handle"
    ))?
    .query_map([query], User::from_row)?
    .collect()
}

/// Where "now" comes from: the system clock, or a fixed instant (tests, reproducible runs).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Clock {
    /// The system clock.
    System,
    /// Always this instant.
    Fixed(SystemTime),
}

impl Clock {
    /// A clock stopped at `secs` seconds after the Unix epoch.
    pub fn fixed_unix(secs: u64) -> Clock {
        Clock::Fixed(UNIX_EPOCH + Duration::from_secs(secs))
    }

    /// Now, by this clock.
    pub fn now(&self) -> SystemTime {
        match self {
            Clock::System => SystemTime::now(),
            Clock::Fixed(at) => *at,
        }
    }
}

/// Look up a person in the company directory.
///
/// Matches an exact handle or email address, or else part of a name; a query matching several
/// people is an error listing their handles.
#[tool(server = Users, read_only)]
pub async fn query_user(
    directory: State<Directory>,
    context: ToolContext,
    /// A handle (`ada`), an email address, or part of a name
    query: String,
) -> Result<Json<User>, LookupError> {
    let tool_use_id = context.tool_use_id().map(str::to_string);
    let lookup = directory.find(query, tool_use_id);
    // The user may interrupt while the database is busy: stop waiting and say so (the query
    // itself, short, runs to its end on the blocking pool). Checked first, so a call cancelled
    // before it starts never waits.
    let (user, _) = tokio::select! {
        biased;
        () = context.cancellation_token().cancelled() => return Err(LookupError::Cancelled),
        found = lookup => found?,
    };
    Ok(Json(user))
}

/// Tell the current date and time, in UTC or where a person is.
#[tool(server = Users, read_only)]
pub async fn get_time(
    directory: State<Directory>,
    clock: State<Clock>,
    context: ToolContext,
    /// Whose local time (a handle, email or name); UTC when omitted
    user: Option<String>,
) -> Result<String, LookupError> {
    let now = clock.now();
    match user {
        None => Ok(format!("It is {} (UTC).", format_time(now, 0))),
        Some(query) => {
            let tool_use_id = context.tool_use_id().map(str::to_string);
            let (user, minutes) = directory.find(query, tool_use_id).await?;
            Ok(format!(
                "For {} it is {} ({}).",
                user.handle,
                format_time(now, minutes),
                user.utc_offset
            ))
        }
    }
}

/// `UTC+01:00`, `UTC-05:00`, `UTC+00:00`.
fn format_offset(minutes: i32) -> String {
    let sign = if minutes < 0 { '-' } else { '+' };
    let minutes = minutes.unsigned_abs();
    format!("UTC{sign}{:02}:{:02}", minutes / 60, minutes % 60)
}

/// `14:05 on 2026-11-23` at `offset_minutes` from UTC (minute precision).
fn format_time(at: SystemTime, offset_minutes: i32) -> String {
    let since_epoch = match at.duration_since(UNIX_EPOCH) {
        Ok(elapsed) => elapsed.as_secs() as i64,
        Err(before) => -(before.duration().as_secs() as i64),
    };
    let local = since_epoch + i64::from(offset_minutes) * 60;
    let (days, secs_of_day) = (local.div_euclid(86_400), local.rem_euclid(86_400));
    let (year, month, day) = civil_date(days);
    format!(
        "{:02}:{:02} on {year:04}-{month:02}-{day:02}",
        secs_of_day / 3600,
        secs_of_day % 3600 / 60
    )
}

/// The proleptic Gregorian date `days` after 1970-01-01: counted in 400-year eras of 146 097
/// days, with years starting on 1 March so the leap day falls at the end of a year.
fn civil_date(days: i64) -> (i64, u32, u32) {
    let shifted = days + 719_468; // days from 0000-03-01 to 1970-01-01
    let era = shifted.div_euclid(146_097);
    let day_of_era = shifted.rem_euclid(146_097);
    let year_of_era =
        (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let month_from_march = (5 * day_of_year + 2) / 153;
    let day = (day_of_year - (153 * month_from_march + 2) / 5 + 1) as u32;
    let month = if month_from_march < 10 {
        month_from_march + 3
    } else {
        month_from_march - 9
    } as u32;
    let year = year_of_era + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

/// The prompt the example sends.
pub const PROMPT: &str = "I need to call Ada and someone called Zed this afternoon. \
Who are they, and what time is it for Ada right now?";

/// The tools the model may call.
pub const TOOLS: [&str; 2] = ["mcp__users__query_user", "mcp__users__get_time"];

/// The `tool_use` ids of the scripted calls, in order.
pub const TOOL_USE_IDS: [&str; 4] = [
    "toolu_users_ada",
    "toolu_users_zed",
    "toolu_users_a",
    "toolu_users_time",
];

/// What the offline model does: looks up `ada` and `zed` at once (two read-only calls; nobody
/// is called Zed, an `isError` result), then tries `a` (several people: `isError` again) while
/// asking for Ada's local time, and answers quoting the tools.
pub fn script() -> Script {
    let [ada, zed, a, time] = TOOL_USE_IDS;
    Script::new()
        .turn(
            Turn::text("Looking both of them up.")
                .and_tool_use(ada, "mcp__users__query_user", json!({"query": "ada"}))
                .and_tool_use(zed, "mcp__users__query_user", json!({"query": "Zed"})),
        )
        .turn(
            Turn::text("No Zed in the directory; maybe a short name. Checking, and Ada's time.")
                .and_tool_use(a, "mcp__users__query_user", json!({"query": "a"}))
                .and_tool_use(time, "mcp__users__get_time", json!({"user": "ada"})),
        )
        .turn(Turn::text(format!(
            "Ada: {{{{tool_result:{ada}}}}}\n\
             {{{{tool_result:{time}}}}}\n\
             Zed is not in the directory: {{{{tool_result:{zed}}}}}"
        )))
}

/// The database file when neither `--db` nor [`DB_ENV`] names one: `claude-tools-users.sqlite3`
/// in the system's temp directory.
pub fn default_db_path() -> PathBuf {
    std::env::temp_dir().join("claude-tools-users.sqlite3")
}

/// The example over the directory in `db` (created and seeded when new), telling time by
/// `clock`.
pub fn example(db: &Path, clock: Clock) -> Result<Example, DbError> {
    let directory = Directory::open(db)?;
    Ok(Example::new("user_lookup", PROMPT, script())
        .system_prompt(
            "You help people reach their colleagues, using the users tools. Answer briefly.",
        )
        .note(format!(
            "users:  {} (--db PATH or {DB_ENV}=PATH for another)",
            directory.path().display()
        ))
        .server(Users::server().with_state(directory).with_state(clock))
        .allowed_tools(TOOLS))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_model_sees_only_its_own_parameters_not_the_extractors() {
        let tools = Users::server().list_tools();
        let properties = |name: &str| -> Vec<String> {
            let tool = tools.iter().find(|t| t["name"] == name).unwrap();
            let properties = tool["inputSchema"]["properties"].as_object().unwrap();
            properties.keys().cloned().collect()
        };
        assert_eq!(properties("query_user"), ["query"]);
        assert_eq!(properties("get_time"), ["user"]);
    }

    #[tokio::test]
    async fn a_cancelled_lookup_says_so_and_a_found_one_is_logged_with_its_call_id() {
        let dir = claude_tools_testkit::TempDir::new("users-unit").unwrap();
        let directory = Directory::open(&dir.path().join("u.db")).unwrap();
        let server = Users::server()
            .with_state(directory.clone())
            .with_state(Clock::System);
        let cancelled = ToolContext::new().with_tool_use_id("toolu_cancelled");
        cancelled.cancellation_token().cancel();
        let result = server
            .call("query_user", json!({"query": "ada"}), cancelled)
            .await;
        assert!(result.is_error);
        assert_eq!(result.text_content(), "The lookup was cancelled.");
        let context = ToolContext::new().with_tool_use_id("toolu_found");
        let found = server
            .call("query_user", json!({"query": "GRACE@example.com"}), context)
            .await;
        assert!(!found.is_error, "{}", found.text_content());
        assert_eq!(
            found.structured_content.unwrap()["name"],
            json!("Grace Hopper")
        );
        assert_eq!(
            directory.lookups().unwrap(),
            [Lookup {
                tool_use_id: Some("toolu_found".to_string()),
                query: "GRACE@example.com".to_string(),
                found: Some("grace".to_string()),
            }]
        );
    }

    #[test]
    fn dates_and_offsets_format_as_the_calendar_says() {
        let at = |secs: u64| UNIX_EPOCH + Duration::from_secs(secs);
        assert_eq!(format_time(at(0), 0), "00:00 on 1970-01-01");
        // 2000-02-29 12:34 UTC (a leap day of a year divisible by 400).
        assert_eq!(format_time(at(951_827_640), 0), "12:34 on 2000-02-29");
        // 2023-11-14 22:13:20 UTC, eight hours west: the same day; an hour east: the next.
        assert_eq!(format_time(at(1_700_000_000), -480), "14:13 on 2023-11-14");
        assert_eq!(format_time(at(1_700_000_000), 120), "00:13 on 2023-11-15");
        assert_eq!(format_time(at(1_709_251_199), 0), "23:59 on 2024-02-29");
        assert_eq!(format_time(at(1_709_251_200), 0), "00:00 on 2024-03-01");
        assert_eq!(format_offset(-300), "UTC-05:00");
        assert_eq!(format_offset(330), "UTC+05:30");
        assert_eq!(format_offset(0), "UTC+00:00");
    }
}
