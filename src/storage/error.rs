//! What can go wrong with a database file, each as one clear line that names the file.

use std::path::Path;
use std::time::Duration;

use rusqlite::ErrorCode;

/// Exit code for bad usage or unusable input (SPEC "Interfaces").
pub const EXIT_UNUSABLE: i32 = 2;
/// Exit code for a failure at run time.
pub const EXIT_FAILURE: i32 = 1;

/// A storage failure. `Display` is one line: the file, then the problem.
/// File names are shown terminal-safe (see [`crate::sanitize`]).
#[derive(Debug, thiserror::Error)]
pub enum StorageError {
    #[error("{path}: the file does not exist")]
    NotFound { path: String },

    #[error("{path}: is a directory, not a database file")]
    IsDirectory { path: String },

    #[error("{path}: not a SQLite database ({detail})")]
    NotSqlite { path: String, detail: String },

    #[error("{path} is empty: not a receipts database")]
    Empty { path: String },

    #[error("{path}: the database is damaged ({detail})")]
    Corrupt { path: String, detail: String },

    #[error("{path}: no `receipts` table or view: not a receipts database")]
    NoReceipts { path: String },

    #[error("{path}: receipts has no `{column}` column (required: id, payload, created_at)")]
    MissingColumn { path: String, column: &'static str },

    #[error("{path}: `receipts` cannot be read ({detail})")]
    BadReceipts { path: String, detail: String },

    #[error(
        "{path}: the database is locked by another process (still busy after {}); try again later",
        human_timeout(*.waited)
    )]
    Busy { path: String, waited: Duration },

    #[error("{path}: permission denied ({detail})")]
    PermissionDenied { path: String, detail: String },

    #[error("{path}: init refused: {reason}; nothing was changed")]
    InitRefused { path: String, reason: String },

    #[error("{path}: {context}: {detail}")]
    Other {
        path: String,
        context: String,
        detail: String,
    },
}

impl StorageError {
    /// The process exit code for this error: 2 for unusable input (a database
    /// locked by another process counts: the command cannot use it now), 1 for
    /// a failure at run time (an I/O error).
    pub fn exit_code(&self) -> i32 {
        match self {
            Self::Other { .. } => EXIT_FAILURE,
            _ => EXIT_UNUSABLE,
        }
    }

    /// True when another process holds the database (worth retrying later).
    pub fn is_busy(&self) -> bool {
        matches!(self, Self::Busy { .. })
    }

    /// Classifies a SQLite error met while working on `path`. `context` says
    /// what was being done ("opening", "reading receipts", ...).
    pub fn from_sqlite(path: &Path, context: &str, waited: Duration, err: rusqlite::Error) -> Self {
        let shown = show_path(path);
        let detail = one_line(&err.to_string());
        match err.sqlite_error_code() {
            Some(ErrorCode::NotADatabase) => Self::NotSqlite {
                path: shown,
                detail,
            },
            Some(ErrorCode::DatabaseCorrupt) => Self::Corrupt {
                path: shown,
                detail,
            },
            Some(ErrorCode::DatabaseBusy | ErrorCode::DatabaseLocked) => Self::Busy {
                path: shown,
                waited,
            },
            Some(ErrorCode::PermissionDenied | ErrorCode::AuthorizationForStatementDenied) => {
                Self::PermissionDenied {
                    path: shown,
                    detail,
                }
            }
            _ => Self::Other {
                path: shown,
                context: context.to_string(),
                detail,
            },
        }
    }

    /// Classifies an I/O error met while looking at `path` itself.
    pub fn from_io(path: &Path, context: &str, err: &std::io::Error) -> Self {
        let shown = show_path(path);
        match err.kind() {
            std::io::ErrorKind::NotFound => Self::NotFound { path: shown },
            std::io::ErrorKind::PermissionDenied => Self::PermissionDenied {
                path: shown,
                detail: one_line(&err.to_string()),
            },
            std::io::ErrorKind::IsADirectory => Self::IsDirectory { path: shown },
            _ => Self::Other {
                path: shown,
                context: context.to_string(),
                detail: one_line(&err.to_string()),
            },
        }
    }

    pub(crate) fn other(path: &Path, context: &str, detail: impl std::fmt::Display) -> Self {
        Self::Other {
            path: show_path(path),
            context: context.to_string(),
            detail: one_line(&detail.to_string()),
        }
    }
}

/// Why the review log could not be read or written (or a guarded decision
/// made). Its messages are those of the decision path: short, no file name.
#[derive(Debug, thiserror::Error)]
pub enum LogError {
    /// The engine failed; `failure` says how, `detail` is its message.
    #[error("database error: {detail}")]
    Engine { failure: Failure, detail: String },
    /// A review log exists but was not made by this tool.
    #[error("review_log is not the table receipt-review expects: {0}")]
    Schema(String),
    /// A row that the table's checks should have made impossible.
    #[error("review_log row {id} cannot be read: {detail}")]
    BadRow { id: i64, detail: String },
    /// Beginning a read failed.
    #[error(transparent)]
    Storage(#[from] StorageError),
}

/// How an engine failed, as far as someone deciding needs to know.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Failure {
    /// Another program holds the write lock (still, after the busy timeout).
    Busy,
    ReadOnly,
    /// The disk is full, or the database is at its size limit.
    Full,
    Other,
}

impl From<rusqlite::Error> for LogError {
    fn from(e: rusqlite::Error) -> Self {
        let failure = match e.sqlite_error_code() {
            Some(ErrorCode::DatabaseBusy | ErrorCode::DatabaseLocked) => Failure::Busy,
            Some(ErrorCode::ReadOnly) => Failure::ReadOnly,
            Some(ErrorCode::DiskFull) => Failure::Full,
            _ => Failure::Other,
        };
        // A failed CHECK quotes its expression, line breaks and all.
        let text = e.to_string();
        let detail =
            crate::sanitize::inline(&text.split_whitespace().collect::<Vec<_>>().join(" "), 200);
        Self::Engine { failure, detail }
    }
}

/// A path as it may be shown on one terminal line.
pub fn show_path(path: &Path) -> String {
    crate::sanitize::clean(&path.display().to_string()).into_owned()
}

/// Any text made safe and kept to one line.
fn one_line(text: &str) -> String {
    crate::sanitize::inline(text.trim(), 200)
}

fn human_timeout(d: Duration) -> String {
    let ms = d.as_millis();
    if ms.is_multiple_of(1000) {
        format!("{} s", ms / 1000)
    } else {
        format!("{ms} ms")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_are_one_line_and_name_the_file() {
        let p = Path::new("/tmp/x\nevil\x1b[2J.db");
        let errors = [
            StorageError::NotFound { path: show_path(p) },
            StorageError::Busy {
                path: show_path(p),
                waited: Duration::from_secs(5),
            },
            StorageError::other(p, "reading receipts", "line one\nline two"),
        ];
        for e in errors {
            let text = e.to_string();
            assert!(!text.contains('\n'), "{text}");
            assert!(!text.contains('\x1b'), "{text}");
            assert!(text.starts_with("/tmp/x\\nevil\\x1b[2J.db"), "{text}");
        }
    }

    #[test]
    fn busy_says_how_long_it_waited() {
        let e = StorageError::Busy {
            path: "a.db".into(),
            waited: Duration::from_millis(250),
        };
        assert_eq!(
            e.to_string(),
            "a.db: the database is locked by another process (still busy after 250 ms); try again later"
        );
        assert_eq!(e.exit_code(), 2);
        assert_eq!(StorageError::Empty { path: "a".into() }.exit_code(), 2);
    }
}
