//! The embedded SQLite database the [`tickets`](crate::tickets) and
//! [`user_lookup`](crate::user_lookup) examples keep their data in, and how tools use it without
//! blocking the async runtime.
//!
//! SQLite calls block: a query reads the file, a commit waits for `fsync`, which can take
//! milliseconds. A tool is an `async fn` polled on a tokio worker thread, so a blocking call made
//! there stalls every other task on that worker — other tool calls, and the session reading the
//! CLI's messages. [`Db::run`] therefore moves each piece of database work to tokio's blocking
//! pool ([`tokio::task::spawn_blocking`]). There it takes the one connection, kept behind a
//! `std::sync::Mutex` (a `rusqlite::Connection` is `Send` but not `Sync`), for the duration of
//! that piece of work only. One connection is enough here: SQLite admits one writer at a time
//! anyway, and the examples' queries are short. An application with heavy concurrent reads would
//! use a pool of connections instead (e.g. one per blocking thread, in WAL mode).

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use rusqlite::Connection;

/// A SQLite database with one connection, shared cheaply (`Clone` shares it).
#[derive(Clone)]
pub struct Db {
    inner: Arc<Inner>,
}

struct Inner {
    path: PathBuf,
    conn: Mutex<Connection>,
}

/// Why database work failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum DbError {
    /// SQLite reported an error.
    #[error("database error: {0}")]
    Sqlite(#[from] rusqlite::Error),
    /// The work panicked or the runtime is shutting down.
    #[error("the database task did not finish: {0}")]
    Task(#[from] tokio::task::JoinError),
}

impl std::fmt::Debug for Db {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Db")
            .field("path", &self.inner.path)
            .finish_non_exhaustive()
    }
}

impl Db {
    /// Opens (creating if needed) the database file at `path` and runs `schema` on it, a batch
    /// of `CREATE TABLE IF NOT EXISTS …` statements. Creates the file's directory if missing.
    ///
    /// Blocking: call it before serving tools, or inside [`tokio::task::spawn_blocking`].
    pub fn open(path: &Path, schema: &str) -> Result<Db, DbError> {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            // Best effort: when it fails, opening the file reports the real problem.
            let _ = std::fs::create_dir_all(dir);
        }
        let conn = Connection::open(path)?;
        conn.execute_batch(schema)?;
        Ok(Db {
            inner: Arc::new(Inner {
                path: path.to_path_buf(),
                conn: Mutex::new(conn),
            }),
        })
    }

    /// The database file.
    pub fn path(&self) -> &Path {
        &self.inner.path
    }

    /// Runs `work` with the connection on this thread (blocking). For setup, `main` and tests;
    /// tools use [`Db::run`].
    pub fn blocking<R>(
        &self,
        work: impl FnOnce(&mut Connection) -> rusqlite::Result<R>,
    ) -> Result<R, DbError> {
        // A poisoned lock means an earlier piece of work panicked mid-way; SQLite rolled back
        // whatever transaction it had open, so the connection is still usable.
        let mut conn = self
            .inner
            .conn
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        Ok(work(&mut conn)?)
    }

    /// Runs `work` with the connection on tokio's blocking pool, so the async runtime's worker
    /// threads stay free while SQLite reads and writes (see the [module docs](self)).
    pub async fn run<R: Send + 'static>(
        &self,
        work: impl FnOnce(&mut Connection) -> rusqlite::Result<R> + Send + 'static,
    ) -> Result<R, DbError> {
        let db = self.clone();
        tokio::task::spawn_blocking(move || db.blocking(work)).await?
    }
}
