//! The schema of the database contract, and `init`, which creates it.

use std::fs;
use std::path::Path;

use rusqlite::{Connection, OpenFlags, TransactionBehavior};

use super::file::{self, FileKind};
use super::open::{DEFAULT_BUSY_TIMEOUT, look_only_connection};
use crate::i18n::current;
use crate::storage::error::{StorageError, show_path};
use crate::t;

/// `assets/schema.sql`: the single source of truth of the schema.
pub const SCHEMA_SQL: &str = include_str!("../../../assets/schema.sql");

/// Creates a receipts database at `path` with the schema, in WAL mode.
///
/// A missing file is created; an existing 0-byte file, or a SQLite database
/// with nothing in it, is initialised. Anything else (a database holding any
/// table or view, a file that is not SQLite, a directory) is refused and left
/// exactly as it was. `review_log` is not created here.
pub fn init(path: &Path) -> Result<(), StorageError> {
    let refuse = |reason: String| StorageError::InitRefused {
        path: show_path(path),
        reason,
    };
    let created = match file::inspect(path) {
        Ok(FileKind::Empty) => false,
        Ok(kind @ FileKind::Sqlite { .. }) => {
            let n = {
                let conn = look_only_connection(path, kind, DEFAULT_BUSY_TIMEOUT)?;
                schema_entries(&conn).map_err(|e| sqlite(path, e))?
            };
            if n > 0 {
                let lang = crate::i18n::current();
                return Err(refuse(if n == 1 {
                    t!(lang, "error.storage.init.holds_one", n = n)
                } else {
                    t!(lang, "error.storage.init.holds", n = n)
                }));
            }
            false
        }
        Err(StorageError::NotFound { .. }) => {
            let folder = file::folder_of(path);
            if !folder.is_dir() {
                return Err(StorageError::Other {
                    path: show_path(path),
                    context: "init".into(),
                    detail: "the folder does not exist".into(),
                });
            }
            // Created here, exclusively: a file that appeared meanwhile is not ours.
            match fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(path)
            {
                Ok(_) => true,
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                    return Err(refuse(t!(current(), "error.storage.init.appeared").into()));
                }
                Err(e) => return Err(StorageError::from_io(path, "init", &e)),
            }
        }
        Err(StorageError::NotSqlite { .. }) => {
            return Err(refuse(
                t!(current(), "error.storage.init.not_sqlite").into(),
            ));
        }
        Err(e) => return Err(e),
    };
    let result = create_schema(path);
    if result.is_err() && created {
        for suffix in ["", "-wal", "-shm", "-journal"] {
            let mut name = path.as_os_str().to_owned();
            name.push(suffix);
            let _ = fs::remove_file(&name);
        }
    }
    result
}

fn create_schema(path: &Path) -> Result<(), StorageError> {
    let mut conn = Connection::open_with_flags(
        path,
        OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )
    .map_err(|e| sqlite(path, e))?;
    conn.busy_timeout(DEFAULT_BUSY_TIMEOUT)
        .map_err(|e| sqlite(path, e))?;
    let mode: String = conn
        .pragma_update_and_check(None, "journal_mode", "WAL", |row| row.get(0))
        .map_err(|e| sqlite(path, e))?;
    if !mode.eq_ignore_ascii_case("wal") {
        return Err(StorageError::other(
            path,
            "init",
            t!(current(), "error.storage.init.no_wal", mode = mode),
        ));
    }
    let tx = conn
        .transaction_with_behavior(TransactionBehavior::Immediate)
        .map_err(|e| sqlite(path, e))?;
    // Checked again under the write lock: another process may have been faster.
    let n = schema_entries(&tx).map_err(|e| sqlite(path, e))?;
    if n > 0 {
        return Err(StorageError::InitRefused {
            path: show_path(path),
            reason: t!(current(), "error.storage.init.raced").into(),
        });
    }
    tx.execute_batch(SCHEMA_SQL).map_err(|e| sqlite(path, e))?;
    tx.commit().map_err(|e| sqlite(path, e))
}

fn schema_entries(conn: &Connection) -> rusqlite::Result<i64> {
    conn.query_row("SELECT count(*) FROM main.sqlite_master", [], |row| {
        row.get(0)
    })
}

fn sqlite(path: &Path, e: rusqlite::Error) -> StorageError {
    StorageError::from_sqlite(path, "init", DEFAULT_BUSY_TIMEOUT, e)
}
