//! Opening an existing receipts database, read-only or writable when possible.
//!
//! Opening never creates a file, never changes the journal mode, and reads the
//! schema at once, so that a bad file fails here with a clear message rather
//! than later. A database that cannot be written opens read-only with a reason
//! the interface shows as a banner.

use std::path::{Path, PathBuf};
use std::time::Duration;

pub use crate::storage::{Access, DEFAULT_BUSY_TIMEOUT, OpenOptions};

use rusqlite::{Connection, OpenFlags};

use super::file::{self, FileKind};
use crate::storage::error::StorageError;
use crate::storage::location::Location;
use crate::storage::source::Source;

/// An open receipts database.
#[derive(Debug)]
pub struct Database {
    conn: Connection,
    path: PathBuf,
    location: Location,
    read_only: bool,
    read_only_reason: Option<String>,
    source: Source,
    busy_timeout: Duration,
    wal: bool,
}

impl Database {
    /// Opens the database at `path` with the default busy timeout.
    pub fn open(path: impl AsRef<Path>, access: Access) -> Result<Database, StorageError> {
        Self::open_with(path, OpenOptions::new(access))
    }

    /// Opens the database at `path`.
    pub fn open_with(
        path: impl AsRef<Path>,
        options: OpenOptions,
    ) -> Result<Database, StorageError> {
        let path = path.as_ref();
        let timeout = options.busy_timeout;
        match file::inspect(path)? {
            FileKind::Empty => {
                return Err(StorageError::Empty {
                    path: crate::storage::error::show_path(path),
                });
            }
            // Any SQLite connection to a WAL database creates its -wal and -shm
            // files. When they are absent (no intake running), the file is first
            // checked without them, so that a damaged file leaves nothing behind.
            FileKind::Sqlite { wal: true } if !wal_files_present(path) => {
                immutable_connection(path, timeout)?;
            }
            FileKind::Sqlite { .. } => {}
        }
        let (conn, reason) = match options.access {
            Access::ReadOnly => (connect_checked(path, true, timeout)?, None),
            Access::PreferWrite => open_prefer_write(path, timeout)?,
        };
        let read_only = options.access == Access::ReadOnly || reason.is_some();
        let read_only_reason = reason;
        // A view stays writable: decisions go to review_log, only state changes are off.
        let source = Source::detect(&conn, path, timeout)?;
        if read_only {
            conn.pragma_update(None, "query_only", true)
                .map_err(|e| StorageError::from_sqlite(path, "opening", timeout, e))?;
        }
        let wal = journal_mode(&conn)
            .map_err(|e| StorageError::from_sqlite(path, "opening", timeout, e))?
            .eq_ignore_ascii_case("wal");
        Ok(Database {
            conn,
            path: path.to_path_buf(),
            location: Location::File(path.to_path_buf()),
            read_only,
            read_only_reason,
            source,
            busy_timeout: timeout,
            wal,
        })
    }

    pub fn conn(&self) -> &Connection {
        &self.conn
    }

    /// The connection, for transactions (`transaction_with_behavior`).
    pub fn conn_mut(&mut self) -> &mut Connection {
        &mut self.conn
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    pub fn location(&self) -> &Location {
        &self.location
    }

    /// The connection to write on, with the shape of `receipts` it writes.
    pub(super) fn write_parts(&mut self) -> (&mut Connection, &Source) {
        (&mut self.conn, &self.source)
    }

    /// True when nothing may be written (asked for, or the fallback).
    pub fn is_read_only(&self) -> bool {
        self.read_only
    }

    /// Why a [`Access::PreferWrite`] open fell back to read-only, for a banner:
    /// "the file is read-only", "the folder is read-only".
    /// `None` when writable or when read-only was asked for.
    pub fn read_only_reason(&self) -> Option<&str> {
        self.read_only_reason.as_deref()
    }

    /// The shape of `receipts`, `key_conflicts`, `replays` and `absorbed` as
    /// found at open.
    pub fn source(&self) -> &Source {
        &self.source
    }

    /// Whether the database is in WAL mode (it is never switched).
    pub fn is_wal(&self) -> bool {
        self.wal
    }

    pub fn busy_timeout(&self) -> Duration {
        self.busy_timeout
    }

    /// A second connection to the same file with the same access and busy
    /// timeout, e.g. to watch [`data_version`] while the first one reads.
    pub fn connect(&self) -> Result<Connection, StorageError> {
        let conn = connect_checked(&self.path, self.read_only, self.busy_timeout)?;
        if self.read_only {
            conn.pragma_update(None, "query_only", true)
                .map_err(|e| self.error("opening", e))?;
        }
        Ok(conn)
    }

    /// A read transaction, so that everything read until it ends comes from
    /// one snapshot of the database; `None` inside a caller's transaction,
    /// whose snapshot is used instead. Ends (read-only) when dropped.
    pub fn read_transaction(&self) -> Result<Option<rusqlite::Transaction<'_>>, StorageError> {
        if !self.conn.is_autocommit() {
            return Ok(None);
        }
        self.conn
            .unchecked_transaction()
            .map(Some)
            .map_err(|e| self.error("starting a read", e))
    }

    /// Classifies a SQLite error met on this database (names the file, knows
    /// the busy timeout).
    pub fn error(&self, context: &str, err: rusqlite::Error) -> StorageError {
        StorageError::from_sqlite(&self.path, context, self.busy_timeout, err)
    }
}

/// `PRAGMA data_version`: changes when another connection commits. Compare
/// successive values on one long-lived connection to notice new receipts.
pub fn data_version(conn: &Connection) -> rusqlite::Result<i64> {
    conn.pragma_query_value(None, "data_version", |row| row.get(0))
}

fn journal_mode(conn: &Connection) -> rusqlite::Result<String> {
    conn.pragma_query_value(None, "journal_mode", |row| row.get(0))
}

/// Opens a connection (never creating the file) and reads the schema once, so
/// that a file SQLite cannot use fails now.
fn connect_checked(
    path: &Path,
    read_only: bool,
    timeout: Duration,
) -> Result<Connection, StorageError> {
    let sqlite = |e| StorageError::from_sqlite(path, "opening", timeout, e);
    let mode = if read_only {
        OpenFlags::SQLITE_OPEN_READ_ONLY
    } else {
        OpenFlags::SQLITE_OPEN_READ_WRITE
    };
    // No SQLITE_OPEN_CREATE, and no SQLITE_OPEN_URI: the path is a file name.
    let conn = Connection::open_with_flags(path, mode | OpenFlags::SQLITE_OPEN_NO_MUTEX)
        .map_err(sqlite)?;
    conn.busy_timeout(timeout).map_err(sqlite)?;
    conn.query_row("SELECT count(*) FROM main.sqlite_master", [], |row| {
        row.get::<_, i64>(0)
    })
    .map_err(sqlite)?;
    Ok(conn)
}

fn wal_files_present(path: &Path) -> bool {
    ["-wal", "-shm"].iter().all(|suffix| {
        let mut name = path.as_os_str().to_owned();
        name.push(suffix);
        Path::new(&name).exists()
    })
}

/// A read-only connection for a quick look that changes nothing on disk: for a
/// WAL database without its -wal and -shm files (no intake running), an
/// `immutable` one (no locks, no side files); otherwise an ordinary one. The
/// schema has been read once.
pub(super) fn look_only_connection(
    path: &Path,
    kind: FileKind,
    timeout: Duration,
) -> Result<Connection, StorageError> {
    match kind {
        FileKind::Sqlite { wal: true } if !wal_files_present(path) => {
            immutable_connection(path, timeout)
        }
        _ => connect_checked(path, true, timeout),
    }
}

/// Only for short checks: an immutable connection does not see concurrent writes.
fn immutable_connection(path: &Path, timeout: Duration) -> Result<Connection, StorageError> {
    let sqlite = |e| StorageError::from_sqlite(path, "opening", timeout, e);
    let absolute =
        std::fs::canonicalize(path).map_err(|e| StorageError::from_io(path, "opening", &e))?;
    let uri = format!("file://{}?mode=ro&immutable=1", uri_path(&absolute));
    let conn = Connection::open_with_flags(
        uri,
        OpenFlags::SQLITE_OPEN_READ_ONLY
            | OpenFlags::SQLITE_OPEN_URI
            | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )
    .map_err(sqlite)?;
    conn.query_row("SELECT count(*) FROM main.sqlite_master", [], |row| {
        row.get::<_, i64>(0)
    })
    .map_err(sqlite)?;
    Ok(conn)
}

/// An absolute path for a `file:` URI: every byte but `[A-Za-z0-9/._~-]`
/// percent-encoded, so that `?`, `#` and `%` in names stay part of the name.
fn uri_path(path: &Path) -> String {
    use std::fmt::Write as _;
    #[cfg(unix)]
    let bytes = std::os::unix::ffi::OsStrExt::as_bytes(path.as_os_str()).to_vec();
    #[cfg(not(unix))]
    let bytes = path.to_string_lossy().replace('\\', "/").into_bytes();
    let mut out = String::new();
    for &b in &bytes {
        if b.is_ascii_alphanumeric() || b"/._~-".contains(&b) {
            out.push(b as char);
        } else {
            let _ = write!(out, "%{b:02X}");
        }
    }
    out
}

/// A writable connection when the file, its folder and SQLite agree;
/// otherwise a read-only one and the reason.
fn open_prefer_write(
    path: &Path,
    timeout: Duration,
) -> Result<(Connection, Option<String>), StorageError> {
    if let Some(reason) = file::read_only_reason(path) {
        return Ok((connect_checked(path, true, timeout)?, Some(reason)));
    }
    let conn = match connect_checked(path, false, timeout) {
        Ok(conn) => conn,
        // The file itself is unusable, or held by someone else: no fallback helps.
        Err(
            e @ (StorageError::NotSqlite { .. }
            | StorageError::Corrupt { .. }
            | StorageError::Busy { .. }),
        ) => return Err(e),
        // Typically a WAL database whose -shm/-wal cannot be created here.
        Err(e) => {
            let conn = connect_checked(path, true, timeout)?;
            let lang = crate::i18n::current();
            let reason = match e {
                StorageError::PermissionDenied { .. } => {
                    crate::t!(lang, "error.storage.reason.folder_read_only")
                }
                _ => crate::t!(lang, "error.storage.reason.no_writing_here"),
            };
            return Ok((conn, Some(reason.to_string())));
        }
    };
    let sqlite = |e| StorageError::from_sqlite(path, "opening", timeout, e);
    if conn.is_readonly("main").map_err(sqlite)? {
        // SQLite fell back to read-only: the OS refused write access.
        return Ok((
            conn,
            Some(
                crate::t!(
                    crate::i18n::current(),
                    "error.storage.reason.no_write_permission"
                )
                .into(),
            ),
        ));
    }
    let wal = journal_mode(&conn)
        .map_err(sqlite)?
        .eq_ignore_ascii_case("wal");
    // A rollback-journal database writes a journal beside itself at every write.
    if !wal && !file::folder_accepts_files(path) {
        drop(conn);
        return Ok((
            connect_checked(path, true, timeout)?,
            Some(
                crate::t!(
                    crate::i18n::current(),
                    "error.storage.reason.folder_read_only"
                )
                .into(),
            ),
        ));
    }
    Ok((conn, None))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_open_without_options_waits_the_default_busy_timeout() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.db");
        super::super::schema::init(&path).unwrap();
        let db = Database::open(&path, Access::ReadOnly).unwrap();
        assert_eq!(db.busy_timeout(), DEFAULT_BUSY_TIMEOUT);
        assert_eq!(db.busy_timeout(), Duration::from_secs(5));
        assert_eq!(db.path(), path.as_path());
        let timeout = Duration::from_millis(300);
        let db = Database::open_with(
            &path,
            OpenOptions::new(Access::ReadOnly).busy_timeout(timeout),
        )
        .unwrap();
        assert_eq!(db.busy_timeout(), timeout);
    }

    #[test]
    fn uri_paths_keep_odd_names_literal() {
        assert_eq!(
            uri_path(Path::new("/tmp/a b?c#d%e.db")),
            "/tmp/a%20b%3Fc%23d%25e.db"
        );
        assert_eq!(uri_path(Path::new("/x/é.db")), "/x/%C3%A9.db");
    }
}
